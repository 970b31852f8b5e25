"""Confluence webhooks: the signed endpoint queues a page, the worker reads it again at once,
and an edit is answerable within seconds (fake Confluence, worker, web app in-process)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time

import httpx
import pytest
from sqlalchemy import select

from bot.web import create_app
from connectors.schedule import Worker
from connectors.state import SyncRequest
from connectors.webhooks import done, event_page, queue_page, queued
from core.assistant import Assistant
from core.conversation import ConversationStore
from core.db import session_factory
from core.extractive import ExtractiveLLM
from core.index import EvidenceIndex
from core.rephrase import OfflineCompleter
from core.retrieve import Retriever
from tests.fakes.confluence_server import FakeConfluence, FakePage
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import sync_settings

SECRET = "whsec-test"


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"page": {"id": 65601, "spaceKey": "ENG", "title": "T"}}, ("65601", "ENG")),
        ({"blog": {"id": "77", "spaceKey": "ENG"}}, ("77", "ENG")),
        ({"comment": {"id": 9, "spaceKey": "ENG", "parent": {"id": 65601}}}, ("65601", "ENG")),
        (
            {"attachment": {"id": "att5", "container": {"id": "12", "spaceKey": "OPS"}}},
            ("12", "OPS"),
        ),
        (
            {"attachments": [{"id": "att5", "container": {"id": "12"}}], "space": {"key": "OPS"}},
            ("12", "OPS"),
        ),
        ({"page": {"id": "{{page.id}}"}}, ("", "")),  # an automation rule left unfilled
        ({"space": {"key": "ENG"}}, ("", "")),
    ],
)
def test_event_page(payload, expected):
    assert event_page(payload) == expected


def signature(body: bytes, secret: str = SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def assistant_for(settings, index: EvidenceIndex) -> Assistant:
    retriever = Retriever.from_settings(index, index.embedder, settings)
    return Assistant(
        settings,
        index,
        retriever,
        ExtractiveLLM(),
        OfflineCompleter(),
        ConversationStore(settings.sqlalchemy_url),
    )


def wiki() -> FakeConfluence:
    return FakeConfluence(
        [FakePage("901", "ENG", "On-call", "<p>The on-call rotation changes on Mondays.</p>")],
        cloud=False,
    )


@pytest.mark.anyio
async def test_the_endpoint_checks_the_secret_and_queues_the_page(tmp_path):
    with wiki() as fake:
        settings = sync_settings(tmp_path, fake, CONFBOT_WEBHOOK_SECRET=SECRET)
        index = EvidenceIndex(settings, HashEmbedder())
        assistant = assistant_for(settings, index)
        transport = httpx.ASGITransport(app=create_app(assistant))
        async with httpx.AsyncClient(transport=transport, base_url="http://confbot.test") as web:
            body = json.dumps({"page": {"id": 901, "spaceKey": "ENG"}}).encode()
            post = lambda headers, content=body: web.post(  # noqa: E731
                "/webhooks/confluence", content=content, headers=headers
            )
            assert (await post({})).status_code == 401
            assert (await post({"X-Hub-Signature": signature(body, "wrong")})).status_code == 401
            assert (await post({"Authorization": "Bearer nope"})).status_code == 401
            assert (await post({"X-Confbot-Secret": SECRET}, b"[1]")).status_code == 400
            empty = b'{"space": {"key": "ENG"}}'
            ignored = await post({"X-Hub-Signature": signature(empty)}, empty)
            assert (ignored.status_code, ignored.json()) == (
                200,
                {"ignored": "the event names no page"},
            )
            for headers in (
                {"X-Hub-Signature": signature(body)},
                {"Authorization": f"Bearer {SECRET}"},
                {"X-Confbot-Secret": SECRET},
            ):
                response = await post(headers)
                assert (response.status_code, response.json()) == (
                    202,
                    {"queued": "901", "space": "ENG"},
                )
        with session_factory(settings.sqlalchemy_url)() as db:
            assert [(r.page_id, r.space) for r in db.scalars(select(SyncRequest))] == [
                ("901", "ENG")
            ]
        assistant.close()


def test_without_a_secret_there_is_no_endpoint(tmp_path):
    settings = sync_settings(tmp_path)
    index = EvidenceIndex(settings, HashEmbedder())
    routes = {getattr(r, "path", "") for r in create_app(assistant_for(settings, index)).routes}
    assert "/webhooks/confluence" not in routes


@pytest.mark.anyio
async def test_a_webhook_triggered_edit_is_answerable_within_ten_seconds(tmp_path):
    with wiki() as fake:
        settings = sync_settings(
            tmp_path,
            fake,
            CONFBOT_WEBHOOK_SECRET=SECRET,
            CONFBOT_WEBHOOK_POLL="1s",
            CONFBOT_SYNC_SPACES="ENG",
            CONFBOT_SYNC_SCHEDULE="1d",  # only the webhook can bring the edit in time
        )
        index = EvidenceIndex(settings, HashEmbedder())
        worker = Worker(settings, index)
        worker.start()  # its first sync of ENG runs now, the next in a day
        deadline = time.monotonic() + 30
        while not worker.runs["ENG"]:
            assert time.monotonic() < deadline, "the first sync did not run"
            time.sleep(0.1)
        assistant = assistant_for(settings, index)
        transport = httpx.ASGITransport(app=create_app(assistant))
        try:
            async with httpx.AsyncClient(transport=transport, base_url="http://x.test") as web:
                fake.edit("901", body="<p>The on-call rotation changes on Thursdays at noon.</p>")
                fake.comment("901", "<p>Handover happens in the #ops-handover channel.</p>")
                event = json.dumps({"page": {"id": 901, "spaceKey": "ENG"}}).encode()
                started = time.monotonic()
                sent = await web.post(
                    "/webhooks/confluence",
                    content=event,
                    headers={"X-Hub-Signature": signature(event)},
                )
                assert sent.status_code == 202
                answer = ""
                while time.monotonic() - started < 10 and "Thursdays" not in answer:
                    await asyncio.sleep(0.2)
                    body = {
                        "question": "When does the on-call rotation change?",
                        "conversation": "tab-webhook-1",
                    }
                    answer = (await web.post("/api/ask", json=body)).json()["answer"]
                assert "Thursdays" in answer, f"not answerable 10 s after the event: {answer!r}"
                assert worker.runs["ENG"] == 1  # the webhook brought it, not the schedule
                ids = [i for i, _ in index.lexical_search("handover channel", 3)]
                assert any("ops-handover" in e.text for e in index.get(ids))
        finally:
            worker.shutdown()
            assistant.close()
        with session_factory(settings.sqlalchemy_url)() as db:
            assert not list(db.scalars(select(SyncRequest)))  # taken off the queue


def test_an_event_that_comes_while_its_page_is_read_is_not_lost(tmp_path):
    settings = sync_settings(tmp_path)
    sessions = session_factory(settings.sqlalchemy_url)
    queue_page(sessions, "901", "ENG")
    taken = queued(sessions)
    assert taken == {"ENG": {"901": 0}}
    queue_page(sessions, "901", "ENG")  # the page is edited again while the worker reads it
    done(sessions, taken["ENG"])
    assert queued(sessions) == {"ENG": {"901": 1}}  # read again on the next poll
    done(sessions, {"901": 1})
    assert queued(sessions) == {}
