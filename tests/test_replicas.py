"""Server mode with more than one process: two web replicas (`confbot serve --no-worker
--no-socket-mode`) and one `confbot worker`, all real processes on the PostgreSQL and Chroma
servers of CONFBOT_TEST_POSTGRES_URL and CONFBOT_TEST_CHROMA_URL (CI starts both).

A page edited on the fake Confluence is answered with its new text by both replicas within
one sync interval of the worker's next run, and a Slack event delivered to both replicas
(as a load balancer retrying on the other one might) is answered once. The processes embed
through the fake OpenAI-compatible server's `/embeddings` and post to the fake Slack.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid

import httpx
import pytest
from slack_sdk.signature import SignatureVerifier

from core.db import upgrade
from tests.fakes.confluence_server import FakeConfluence, FakePage
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.slack_api_server import BOT_USER_ID, TEAM_ID, FakeSlack
from tests.processes import READY, Confbot

pytestmark = [pytest.mark.postgres, pytest.mark.chroma_server]

INTERVAL = 5  # seconds between the worker's syncs
SECRET = "replica-signing-secret"
QUESTION = "What is the zebra gate code?"


def wiki() -> list[FakePage]:
    pages = [
        FakePage(
            "200001", "GEN", "Zebra gate", "<p>The zebra gate code is kept by facilities.</p>"
        ),
        FakePage("200002", "GEN", "Lunch", "<p>Lunch is served at noon in the atrium.</p>"),
        FakePage("200003", "GEN", "Parking", "<p>Parking permits are issued by reception.</p>"),
    ]
    return pages


def ask(url: str, conversation: str) -> str:
    reply = httpx.post(
        f"{url}/api/ask", json={"question": QUESTION, "conversation": conversation}, timeout=30
    )
    reply.raise_for_status()
    return reply.json()["answer"]


def slack_event(event_id: str, ts: str) -> tuple[bytes, dict[str, str]]:
    """A signed app_mention event, as Slack delivers it."""
    body = json.dumps(
        {
            "token": "unused",
            "team_id": TEAM_ID,
            "api_app_id": "A0APP",
            "type": "event_callback",
            "event_id": event_id,
            "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
            "event": {
                "type": "app_mention",
                "user": "U0ASKER",
                "text": f"<@{BOT_USER_ID}> {QUESTION}",
                "ts": ts,
                "channel": "C1",
                "event_ts": ts,
            },
        }
    )
    timestamp = str(int(time.time()))
    headers = {
        "content-type": "application/json",
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": SignatureVerifier(SECRET).generate_signature(
            timestamp=timestamp, body=body
        ),
    }
    return body.encode(), headers


def test_two_replicas_and_a_worker_share_the_servers(tmp_path, postgres_url):
    chroma_url = os.environ.get("CONFBOT_TEST_CHROMA_URL", "")
    if not chroma_url:
        pytest.skip("set CONFBOT_TEST_CHROMA_URL to a running Chroma server (.ci/run starts one)")
    upgrade(postgres_url)  # `confbot init`, once, before the processes start
    with FakeConfluence(wiki()) as confluence, FakeOpenAI() as openai, FakeSlack() as slack:
        environ = {
            "HOME": str(tmp_path),
            "CONFBOT_DATABASE_URL": postgres_url,
            "CONFBOT_CHROMA_URL": chroma_url,
            "CONFBOT_COLLECTION": f"replicas-{uuid.uuid4().hex[:8]}",
            "CONFBOT_EMBEDDER": "openai",
            "CONFBOT_EMBEDDINGS_BASE_URL": openai.base_url,
            "OPENAI_API_KEY": "sk-test",
            "CONFBOT_SYNC_SPACES": "GEN",
            "CONFBOT_SYNC_SCHEDULE": f"{INTERVAL}s",
            "SLACK_BOT_TOKEN": "xoxb-test",
            "SLACK_SIGNING_SECRET": SECRET,
            "CONFBOT_SLACK_API_URL": slack.base_url,
            **confluence.settings_environ(),
        }
        processes = [
            Confbot(["worker"], {**environ, "CONFBOT_DATA_DIR": str(tmp_path / "worker")}),
            *(
                Confbot(
                    ["serve", "--no-worker", "--no-socket-mode", "--port", "0"],
                    {**environ, "CONFBOT_DATA_DIR": str(tmp_path / f"web{n}")},
                )
                for n in (1, 2)
            ),
        ]
        try:
            worker, *webs = processes
            urls = [web.wait_for(READY, timeout=120).group(1) for web in webs]

            # The worker's first sync: both replicas answer from the shared store.
            deadline = time.monotonic() + 60
            while not all(
                httpx.get(f"{u}/healthz", timeout=10).json().get("evidences") for u in urls
            ):
                assert time.monotonic() < deadline, worker.output
                time.sleep(0.5)
            for n, url in enumerate(urls):
                assert "facilities" in ask(url, f"before-replica-{n}")

            confluence.edit("200001", body="<p>The zebra gate code is 7319, since Monday.</p>")
            edited = time.monotonic()
            answered: dict[str, float] = {}
            attempt = 0
            while len(answered) < len(urls) and time.monotonic() - edited < 4 * INTERVAL:
                attempt += 1
                for url in urls:
                    if url not in answered and "7319" in ask(url, f"after-edit-{attempt}"):
                        answered[url] = time.monotonic() - edited
                time.sleep(0.2)
            assert set(answered) == set(urls), worker.output
            # The worker's next run starts at most one interval after the edit; the run
            # itself (one changed page) takes a small part of another.
            assert max(answered.values()) <= 2 * INTERVAL

            body, headers = slack_event("Ev0REPLICAS", "1700000000.000100")
            replies = []

            def deliver(url: str) -> None:
                replies.append(
                    httpx.post(f"{url}/slack/events", content=body, headers=headers, timeout=30)
                )

            threads = [threading.Thread(target=deliver, args=(url,)) for url in urls]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert [r.status_code for r in replies] == [200, 200]
            posted = slack.wait_for("chat.postMessage", 1, timeout=30)
            time.sleep(2.0)  # room for a second answer, which must not come
            posted = slack.calls_to("chat.postMessage")
            assert len(posted) == 1
            assert posted[0].params["thread_ts"] == "1700000000.000100"
            assert "7319" in json.dumps(posted[0].params)
        finally:
            for process in processes:
                if process.process.poll() is None:
                    process.stop(signal.SIGTERM)
        for process in processes:
            assert process.process.returncode == 0, process.output
            assert "Traceback" not in process.output, process.output
