"""Failing dependencies: a read-only or unreachable state database, a bad data folder, a busy
port, an LLM endpoint that rejects its credentials, Slack unreachable or rejecting its token,
Confluence failing. Each says clearly what is wrong (to users: generic; in the log and on
the command line: what and which setting), takes nothing else down, and no secret appears
in any output."""

from __future__ import annotations

import logging
import socket
import threading

import httpx
import pytest
from sqlalchemy import func, select

from bot.cli import main
from bot.serve import SlackStarter, bind_socket
from bot.web import WebApp
from connectors.confluence import ConfluenceSource
from connectors.state import SyncSpace
from connectors.sync import SpaceSync
from core.conversation import ConversationRecord, ConversationStore
from core.db import session_factory, upgrade
from core.index import EvidenceIndex
from core.llm import OpenAILLM
from core.redact import SecretMasker, secret_values
from core.settings import Settings, SettingsError
from tests.fakes.confluence_server import FakeConfluence, generated_pages
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.slack_api_server import FakeSlack
from tests.fakes.tiny_wiki import make_assistant
from tests.sync_helpers import sync_settings

CONVERSATION = "tab-0123456789"


@pytest.fixture
def masked(caplog):
    """Install the secret masker on the log handlers as `confbot` does for its settings."""
    installed: list[SecretMasker] = []

    def install(settings: Settings) -> None:
        masker = SecretMasker(secret_values(settings))
        masker.install()
        installed.append(masker)

    yield install
    for handler in logging.getLogger().handlers:
        for masker in installed:
            handler.removeFilter(masker)


def assert_no_secret(secrets: list[str], *outputs: str) -> None:
    for output in outputs:
        for secret in secrets:
            assert secret not in output


# --------------------------------------------------------------------------- state database
async def post(app, path: str, **json) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        return await client.post(path, json=json)


async def get(app, path: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        return await client.get(path)


@pytest.mark.anyio
async def test_a_read_only_state_database_is_not_ready_and_asks_say_why(wiki, tmp_path, caplog):
    assistant = make_assistant(wiki, tmp_path)  # migrates state.sqlite
    readonly = f"sqlite:///file:{tmp_path / 'state.sqlite'}?mode=ro&uri=true"
    assistant.store = ConversationStore(readonly)
    app = WebApp(assistant).app
    live = await get(app, "/healthz")
    ready = await get(app, "/readyz")
    asked = await post(app, "/api/ask", question="What is BATS?", conversation=CONVERSATION)
    assert live.status_code == 200  # the process serves and can read
    assert ready.status_code == 503
    assert "state database cannot be written" in ready.json()["checks"]["state_database"]
    assert asked.status_code == 503 and asked.headers["retry-after"] == "5"
    assert "cannot use its state database" in asked.json()["error"]
    assert "readonly" not in asked.text and "Traceback" not in asked.text
    assert "readonly database" in caplog.text  # the details are in the log
    assistant.close()


@pytest.mark.anyio
async def test_readiness_means_able_to_answer(wiki, tmp_path, monkeypatch):
    """Ready while a first sync runs, an orphan vector exists and a page is half written
    (a sync is writing it; figures under `index`); not ready when nothing is indexed or the
    vector database cannot be read."""
    assistant = make_assistant(wiki, tmp_path)
    app = WebApp(assistant).app
    ready = (await get(app, "/readyz")).json()
    assert ready["status"] == "ready"
    assert ready["checks"] == {"state_database": "ok", "index": "ok", "first_sync": "ok"}
    with session_factory(assistant.store.url)() as db:
        db.add(SyncSpace(space="TEST"))  # a first run that has not finished
        db.commit()
    index = assistant.index
    index._collection.upsert(  # an orphan vector, and a page being written
        ids=["ghost#0000"], embeddings=index.embedder.embed(["x"]), metadatas=[{"page_id": "g"}]
    )
    index._mark_pending(["g"])
    reply = await get(app, "/readyz")
    assert reply.status_code == 200 and reply.json()["status"] == "ready"
    figures = reply.json()["index"]
    assert figures["vectors"] == figures["evidences"] + 1 and figures["pending"] == 1

    monkeypatch.setattr(index, "count", lambda: 0)
    reply = await get(app, "/readyz")
    assert reply.status_code == 503
    assert reply.json()["checks"]["first_sync"] == (
        "nothing is indexed yet; the first sync of 1 space(s) runs"
    )
    assert "TEST" not in reply.text  # anonymous: no space is named
    monkeypatch.undo()

    def chroma_down():
        raise httpx.ConnectError("[Errno 111] Connection refused")

    monkeypatch.setattr(index, "dense_count", chroma_down)
    reply = await get(app, "/readyz")
    assert reply.status_code == 503
    assert "vector database (Chroma) cannot be read" in reply.json()["checks"]["index"]
    assistant.close()


@pytest.fixture(scope="module")
def chroma_outage(tmp_path_factory) -> BaseException:
    """What a query of a Chroma server that went down raises: a real `chroma run` on
    127.0.0.1, a collection, the server stopped, a query."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    import chromadb
    import numpy as np

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chroma = Path(sys.executable).with_name("chroma")
    folder = tmp_path_factory.mktemp("chroma")
    command = [str(chroma), "run", "--path", str(folder), "--host", "127.0.0.1"]
    server = subprocess.Popen(
        [*command, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/v2/heartbeat")
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "chroma run did not start"
                time.sleep(0.1)
        client = chromadb.HttpClient(host="127.0.0.1", port=port)
        collection = client.get_or_create_collection("outage", embedding_function=None)
        collection.upsert(ids=["a"], embeddings=np.ones((1, 4), dtype=np.float32))
    finally:
        server.terminate()
        server.wait()
    with pytest.raises(Exception) as caught:
        collection.query(query_embeddings=[np.ones(4, dtype=np.float32)], n_results=1)
    return caught.value


@pytest.mark.anyio
async def test_a_chroma_server_that_is_down_is_a_503_with_retry_after(
    wiki, tmp_path, monkeypatch, chroma_outage
):
    assert isinstance(chroma_outage, httpx.ConnectError)  # the HTTP client's, not Chroma's
    assistant = make_assistant(wiki, tmp_path)

    def down(*args, **kwargs):
        raise chroma_outage

    monkeypatch.setattr(assistant.index, "dense_search", down)
    asked = await post(
        WebApp(assistant).app, "/api/ask", question="What is BATS?", conversation=CONVERSATION
    )
    assert asked.status_code == 503
    assert asked.headers["retry-after"] == "5"
    assert "cannot read its search index" in asked.json()["error"]
    assert "Connection refused" not in asked.text
    assistant.close()


def test_a_vector_deleted_during_a_search_is_searched_again(wiki, tmp_path, caplog):
    """A Chroma server may answer "Error finding id" for a query that meets a vector a
    sync deleted meanwhile; the search is made once more, not failed."""
    from chromadb.errors import InternalError

    assistant = make_assistant(wiki, tmp_path)
    index = assistant.index
    collection = index._collection
    calls = []

    class Racing:
        def __getattr__(self, name):
            return getattr(collection, name)

        def query(self, **kwargs):
            calls.append(kwargs)
            if len(calls) == 1:
                raise InternalError("Error executing plan: Error finding id")
            return collection.query(**kwargs)

    index._collection = Racing()
    found = index.dense_search(index.embedder.embed(["BATS"])[0], k=3)
    assert len(calls) == 2 and len(found) == 3
    assert "searching again" in caplog.text
    assistant.close()


def test_an_unreachable_database_is_a_clear_error_without_its_password(environ, capsys):
    url = "postgresql+psycopg2://confbot:PG-SECRET-PASSWORD@127.0.0.1:1/confbot"
    assert main(["init", "--config", f"database_url={url}"]) == 2
    err = capsys.readouterr().err
    assert "cannot open the state database" in err and "CONFBOT_DATABASE_URL" in err
    assert "confbot:***@127.0.0.1:1" in err
    assert "PG-SECRET-PASSWORD" not in err and "Traceback" not in err


@pytest.mark.parametrize("problem", ["a file", "under a file"])
def test_a_bad_data_folder_is_a_clear_error(environ, monkeypatch, capsys, problem):
    blocker = environ / "blocker"
    blocker.write_text("not a folder")
    folder = blocker if problem == "a file" else blocker / "data"
    monkeypatch.setenv("CONFBOT_DATA_DIR", str(folder))
    assert main(["init"]) == 2
    err = capsys.readouterr().err
    assert f"CONFBOT_DATA_DIR={folder}" in err and "Traceback" not in err


def test_a_busy_port_is_a_clear_error(environ, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SettingsError, match="CONFBOT_WEB_PORT"):
            bind_socket("127.0.0.1", port)
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and "Traceback" not in err


# --------------------------------------------------------------------------- the LLM
@pytest.mark.anyio
async def test_llm_credentials_and_upstream_errors_never_reach_users_or_logs(
    wiki, tmp_path, caplog, masked
):
    key = "sk-LLM-SECRET-KEY-123"
    with FakeOpenAI() as server:
        server.push(Reply.error(401, message=f"Incorrect API key provided: {key}"))
        url = server.base_url.replace("http://", "http://user:URL-SECRET-PASSWORD@")
        settings = wiki[0].replace(llm_base_url=url, openai_api_key=key)
        masked(settings)
        llm = OpenAILLM.from_settings(settings)
        assistant = make_assistant(wiki, tmp_path, llm)
        asked = await post(
            WebApp(assistant).app, "/api/ask", question="What is BATS?", conversation=CONVERSATION
        )
    assert asked.status_code == 502
    assert asked.json()["error"] == (
        "The language model could not answer just now. Please try again later."
    )
    assert "Incorrect API key" in caplog.text  # the upstream detail is logged...
    assert "user:***@127.0.0.1" in caplog.text  # ...with the endpoint, redacted
    assert_no_secret([key, "URL-SECRET-PASSWORD"], asked.text, caplog.text)
    assistant.close()


# --------------------------------------------------------------------------- Slack
def starter(wiki, tmp_path, slack_api_url: str, **changes) -> tuple[SlackStarter, WebApp]:
    assistant = make_assistant(wiki, tmp_path)
    assistant.settings = assistant.settings.replace(
        slack_bot_token="xoxb-SLACK-SECRET-TOKEN",
        slack_signing_secret="slack-signing-secret-1",
        slack_api_url=slack_api_url,
        **changes,
    )
    web = WebApp(assistant, slack_http=True)
    return SlackStarter(assistant.settings, assistant, web, False, first_delay=0.05), web


@pytest.mark.anyio
async def test_slack_rejecting_its_token_does_not_take_the_web_page_down(
    wiki, tmp_path, caplog, masked
):
    with FakeSlack() as slack:
        slack.fail("auth.test", "invalid_auth")
        slack_starter, web = starter(wiki, tmp_path, slack.base_url)
        masked(slack_starter.settings)
        slack_starter.start()
        slack.wait_for("auth.test", 3)  # retried, with backoff
        assert not slack_starter.connected.is_set()
        asked = await post(web.app, "/api/ask", question="What is BATS?", conversation="t-12345678")
        events = await post(web.app, "/slack/events")
        assert (asked.status_code, events.status_code) == (200, 503)
        slack.failures.clear()  # the token is fixed in Slack
        assert slack_starter.connected.wait(10)
        assert web.slack_app is not None
        slack_starter.close()
    assert "invalid_auth" in caplog.text and "check SLACK_BOT_TOKEN" in caplog.text
    assert "web page and the sync keep running" in caplog.text
    assert_no_secret(["xoxb-SLACK-SECRET-TOKEN"], caplog.text)


def test_slack_unreachable_is_retried_and_stops_cleanly(wiki, tmp_path, caplog):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens once it is closed
    slack_starter, _ = starter(wiki, tmp_path, f"http://127.0.0.1:{port}/api/")
    slack_starter.start()
    deadline = threading.Event()
    while slack_starter.attempts < 3 and not deadline.wait(0.05):
        pass
    slack_starter.close()
    assert slack_starter.attempts >= 3 and not slack_starter.connected.is_set()
    assert "Slack could not be started" in caplog.text


# --------------------------------------------------------------------------- Confluence
def test_confluence_rejecting_the_token_stops_the_run_with_a_clear_reason(tmp_path, caplog, masked):
    with FakeConfluence(generated_pages(5), token="CONFLUENCE-SECRET-TOKEN") as fake:
        settings = sync_settings(
            tmp_path / "data", fake, CONFBOT_CONFLUENCE_TOKEN="WRONG-SECRET-TOKEN"
        )
        masked(settings)
        report = SpaceSync(
            settings, EvidenceIndex(settings, HashEmbedder()), ConfluenceSource(settings)
        ).run("GEN")
    assert report.error is not None and "HTTP 401" in report.error
    assert_no_secret(["CONFLUENCE-SECRET-TOKEN", "WRONG-SECRET-TOKEN"], report.error, caplog.text)


def test_confluence_unreachable_or_failing_ends_the_run_and_the_next_run_goes_on(tmp_path):
    with FakeConfluence(generated_pages(8)) as fake:
        settings = sync_settings(tmp_path / "data", fake, CONFBOT_CONFLUENCE_MAX_RETRIES="1")
        index = EvidenceIndex(settings, HashEmbedder())
        fake.fail_next(2, status=503)  # the request and its one retry
        failed = SpaceSync(settings, index, ConfluenceSource(settings)).run("GEN")
        assert failed.error is not None and "HTTP 503" in failed.error
        assert index.page_ids() == set()
        recovered = SpaceSync(settings, index, ConfluenceSource(settings)).run("GEN")
    assert recovered.error is None and len(index.page_ids()) == 8
    stopped = SpaceSync(settings, index, ConfluenceSource(settings)).run("GEN")  # server gone
    assert stopped.error is not None and "ConnectionError" in stopped.error
    assert len(index.page_ids()) == 8  # what was indexed stays


def test_the_writability_check_leaves_nothing_behind(tmp_path):
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    store = ConversationStore(url)
    store.check_writable()
    store.check_writable()
    with session_factory(url)() as db:
        assert db.scalar(select(func.count()).select_from(ConversationRecord)) == 0
