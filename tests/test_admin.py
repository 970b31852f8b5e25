"""The admin surface through the web app's front door (`httpx.ASGITransport`): the token,
`/metrics`, the status JSON and the admin page with the gaps report; the metrics server of
`metrics_address`; the counters of syncs. The tiny wiki, real Assistant, real SQLite."""

from __future__ import annotations

import base64
import itertools
import json
import re

import httpx
import pytest
from prometheus_client import REGISTRY

from bot.admin import presented_token, token_matches
from bot.metrics import serve_metrics
from bot.web import create_app
from connectors.state import SyncPage, SyncSpace
from core.answer import OUT_OF_SCOPE
from core.assistant import Assistant
from core.conversation import ConversationStore, utcnow
from core.db import session_factory, upgrade
from core.extractive import ExtractiveLLM
from core.rephrase import OfflineCompleter
from tests.fakes.tiny_wiki import Wiki, build_wiki

TOKEN = "s3cret-admin-token"
CONVERSATION = "tab-0123456789"
CONVERSATIONS = itertools.count()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def wiki(tmp_path_factory) -> Wiki:
    return build_wiki(tmp_path_factory.mktemp("wiki"))


def make(wiki: Wiki, folder, **changes) -> Assistant:
    """An Assistant whose settings name its own state database (as `confbot serve` has)."""
    settings, index, retriever = wiki
    url = f"sqlite:///{folder / 'state.sqlite'}"
    upgrade(url)
    settings = settings.replace(database_url=url, **changes)
    return Assistant(
        settings, index, retriever, ExtractiveLLM(), OfflineCompleter(), ConversationStore(url)
    )


@pytest.fixture
async def client(wiki, tmp_path):
    assistant = make(wiki, tmp_path, admin_token=TOKEN)
    transport = httpx.ASGITransport(app=create_app(assistant))
    async with httpx.AsyncClient(transport=transport, base_url="http://confbot.test") as client:
        client.assistant = assistant
        yield client
    assistant.close()


BEARER = {"Authorization": f"Bearer {TOKEN}"}


def value(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def ask(client, question: str, **fields) -> dict:
    """Ask in a new conversation (no earlier turn completes the question)."""
    conversation = f"{CONVERSATION}-{next(CONVERSATIONS)}"
    body = {"question": question, "conversation": conversation, **fields}
    response = await client.post("/api/ask", json=body)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (f"Bearer {TOKEN}", TOKEN),
        (f"bearer  {TOKEN} ", TOKEN),
        ("Basic " + base64.b64encode(f"admin:{TOKEN}".encode()).decode(), TOKEN),
        ("Basic " + base64.b64encode(f":{TOKEN}".encode()).decode(), TOKEN),
        ("Basic !!not-base64!!", None),
        ("Digest abc", None),
        ("", None),
    ],
)
def test_presented_token(header, expected):
    assert presented_token(header) == expected


@pytest.mark.parametrize(
    ("presented", "token", "expected"),
    [(TOKEN, TOKEN, True), ("nope", TOKEN, False), ("", "", False), (None, TOKEN, False)],
)
def test_token_matches(presented, token, expected):
    assert token_matches(presented, token) is expected


@pytest.mark.anyio
async def test_admin_is_off_without_a_token(wiki, tmp_path):
    assistant = make(wiki, tmp_path)
    transport = httpx.ASGITransport(app=create_app(assistant))
    async with httpx.AsyncClient(transport=transport, base_url="http://confbot.test") as client:
        for path in ("/admin", "/api/admin/status", "/metrics"):
            assert (await client.get(path, headers=BEARER)).status_code == 404


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["/admin", "/api/admin/status", "/metrics"])
async def test_every_admin_path_needs_the_token(client, path):
    missing = await client.get(path)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Basic ")
    wrong = await client.get(path, headers={"Authorization": "Bearer not-the-token"})
    assert wrong.status_code == 401 and TOKEN not in wrong.text
    assert (await client.get(path, headers=BEARER)).status_code == 200
    basic = base64.b64encode(f"anyone:{TOKEN}".encode()).decode()
    page = await client.get(path, headers={"Authorization": f"Basic {basic}"})
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"


@pytest.mark.anyio
async def test_metrics_count_questions_declines_steps_and_feedback(client):
    before = {
        "questions": value("confbot_questions_total", surface="web"),
        "declined": value("confbot_declined_total", surface="web"),
        "totals": value("confbot_answer_step_seconds_count", step="total"),
        "retrieve": value("confbot_answer_step_seconds_count", step="retrieve"),
        "down": value("confbot_feedback_total", value="down"),
    }
    answered = await ask(client, "What does BATS stand for?")
    declined = await ask(client, "Zqx flurbo wibble?")
    assert not answered["out_of_scope"] and declined["out_of_scope"]
    assert declined["answer"] == OUT_OF_SCOPE
    body = {"turn": answered["turn"], "conversation": answered["conversation"], "value": "down"}
    assert (await client.post("/api/feedback", json=body)).status_code == 200

    scrape = await client.get("/metrics", headers=BEARER)
    assert scrape.headers["content-type"].startswith("text/plain")
    assert 'confbot_questions_total{surface="web"}' in scrape.text
    assert value("confbot_questions_total", surface="web") == before["questions"] + 2
    assert value("confbot_declined_total", surface="web") == before["declined"] + 1
    assert value("confbot_answer_step_seconds_count", step="total") == before["totals"] + 2
    assert value("confbot_answer_step_seconds_count", step="retrieve") == before["retrieve"] + 2
    assert value("confbot_feedback_total", value="down") == before["down"] + 1


def record_sync_state(url: str) -> None:
    """Sync state as the sync leaves it: space TEST with two pages, one failed."""
    with session_factory(url)() as db:
        db.add(
            SyncSpace(
                space="TEST",
                last_run_at=utcnow(),
                last_report=json.dumps({"space": "TEST", "added": 1, "failed": 1}),
            )
        )
        db.add(
            SyncPage(
                page_id="101",
                space="TEST",
                title="Bats",
                version=3,
                ancestors="[]",
                synced_at=utcnow(),
            )
        )
        db.add(
            SyncPage(
                page_id="199",
                space="TEST",
                title="Broken page",
                ancestors="[]",
                error="ValueError('body.storage.value is NoneType, not text')",
                attempts=2,
                synced_at=utcnow(),
            )
        )
        db.commit()


@pytest.mark.anyio
async def test_metrics_read_the_sync_state_per_space(client):
    record_sync_state(client.assistant.settings.sqlalchemy_url)
    text = (await client.get("/metrics", headers=BEARER)).text
    assert 'confbot_indexed_pages{space="TEST"} 1.0' in text
    assert 'confbot_failed_pages{space="TEST"} 1.0' in text
    assert 'confbot_sync_last_run_timestamp_seconds{space="TEST"}' in text


@pytest.mark.anyio
async def test_status_json_and_admin_page(client):
    record_sync_state(client.assistant.settings.sqlalchemy_url)
    first = await ask(client, "What does BATS stand for?", space="TEST")
    await ask(client, "How do I book parental leave?", space="TEST")
    await ask(client, "How can I book my parental leave days?", space="TEST")
    body = {"turn": first["turn"], "conversation": first["conversation"], "value": "up"}
    body["space"] = "TEST"
    await client.post("/api/feedback", json=body)

    status = (await client.get("/api/admin/status", headers=BEARER)).json()
    spaces = {s["space"]: s for s in status["spaces"]}
    assert set(spaces) == {"TEST", "DEV"}  # synced or indexed
    test = spaces["TEST"]
    assert test["pages"] == 2 and test["evidences"] > 2  # from the index
    assert test["last_run_at"] and "1 added" in test["last_run"]
    (failed,) = test["failed"]
    assert failed["page_id"] == "199" and failed["attempts"] == 2
    assert "NoneType" in failed["error"]
    usage = status["usage"]
    assert usage["questions"] == 3 and usage["declined"] == 2
    assert usage["questions_per_day"][-1] == [utcnow().date().isoformat(), 3]
    assert usage["feedback"] == {"up": 1} and usage["median_ms"] > 0

    page = await client.get("/admin", headers=BEARER, params={"space": "TEST"})
    assert page.status_code == 200
    text = page.text
    assert "Broken page" in text and "NoneType" in text
    assert "TEST: 2 unanswered" in text
    assert "parental leave" in text
    assert "admin-token@" in text and "admin.page" in text  # this view, in the audit log
    from core import audit

    (entry,) = audit.recent(client.assistant.settings.sqlalchemy_url)
    assert entry.action == "admin.page" and entry.detail == {"space": "TEST", "since": "30d"}
    assert (await client.get("/admin", headers=BEARER, params={"since": "soon"})).status_code == 400
    for since in ("99999999999d", "9" * 400 + "d", "²d", "0d"):  # bounded: a clear 400
        found = await client.get("/admin", headers=BEARER, params={"since": since})
        assert found.status_code == 400 and "span" in found.text


def test_metrics_address_serves_without_a_token(wiki, tmp_path):
    assistant = make(wiki, tmp_path, metrics_address="127.0.0.1:0")
    record_sync_state(assistant.settings.sqlalchemy_url)
    server = serve_metrics(assistant.settings)
    try:
        host, port = server.server_address[:2]
        text = httpx.get(f"http://{host}:{port}/metrics").text
    finally:
        server.shutdown()
    assert 'confbot_failed_pages{space="TEST"} 1.0' in text
    assert "confbot_questions_total" in text or "confbot_questions_created" in text
    assert serve_metrics(assistant.settings.replace(metrics_address="")) is None


def test_a_bad_metrics_address_names_the_setting(settings):
    from core.settings import SettingsError

    with pytest.raises(SettingsError, match="CONFBOT_METRICS_ADDRESS"):
        serve_metrics(settings.replace(metrics_address="localhost"))


def test_sync_runs_are_counted_per_space(tmp_path):
    from bot.serve import SAMPLE_PAGES
    from connectors.schedule import Worker
    from core.index import EvidenceIndex
    from core.settings import Settings
    from tests.fakes.hash_embedder import HashEmbedder

    settings = Settings.load(
        environ={
            "CONFBOT_DATA_DIR": str(tmp_path),
            "CONFBOT_SYNC_SOURCE": "files",
            "CONFBOT_SYNC_FILES_PATH": str(SAMPLE_PAGES),
        }
    )
    upgrade(settings.sqlalchemy_url)
    before = value("confbot_sync_runs_total", space="HR", outcome="ok")
    added = value("confbot_sync_pages_total", space="HR", change="added")
    report = Worker(settings, EvidenceIndex(settings, HashEmbedder())).sync("HR")
    assert report.added > 0 and report.error is None
    assert value("confbot_sync_runs_total", space="HR", outcome="ok") == before + 1
    assert value("confbot_sync_pages_total", space="HR", change="added") == added + report.added
    assert REGISTRY.get_sample_value("confbot_sync_failures_total", {"space": "HR"}) is not None


@pytest.mark.anyio
async def test_admin_page_is_styled_charted_and_its_gaps_are_questions(client):
    """The page reads on a phone (viewport), charts each day's questions, declines, 👎 and
    sync health as inline SVG (nothing loaded from elsewhere), and its gaps list holds each
    question once with its count, and no chit-chat."""
    record_sync_state(client.assistant.settings.sqlalchemy_url)
    await ask(client, "hi", space="TEST")  # chit-chat: the help text, not a gap
    down = await ask(client, "hello", space="TEST")
    body = {"turn": down["turn"], "conversation": down["conversation"], "value": "down"}
    await client.post("/api/feedback", json={**body, "space": "TEST"})  # a 👎 on chit-chat
    for _ in range(3):
        await ask(client, "How do I book parental leave?", space="TEST")
    answered = await ask(client, "What does BATS stand for?", space="TEST")
    body = {"turn": answered["turn"], "conversation": answered["conversation"], "value": "down"}
    await client.post("/api/feedback", json={**body, "space": "TEST"})

    response = await client.get("/admin", headers=BEARER, params={"space": "TEST"})
    assert response.status_code == 200
    page = response.text
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "default-src 'none'" in response.headers["content-security-policy"]
    assert "<script" not in page and "src=" not in page  # nothing fetched: CSP-safe
    assert page.count("<svg ") == 3
    today = utcnow().date().isoformat()
    numbers = re.findall(r"<tr><td>" + today + r"</td>((?:<td>\d+</td>)+)</tr>", page)
    per_chart = [[int(n) for n in re.findall(r"\d+", row)] for row in numbers]
    # questions: answered and declined (3 declined: the parental leave ones); 👎: 2;
    # sync: one page indexed, one failing
    assert per_chart == [[3, 3], [2], [1, 1]], per_chart
    assert "<title>" in page and "3 declined" in page

    gaps = page.split("What the wiki is missing")[1]
    assert gaps.count("How do I book parental leave?") == 1
    assert "How do I book parental leave? (asked 3×)" in gaps
    assert "BATS" in gaps  # rated 👎: a gap
    assert ">hi<" not in gaps and ">hello<" not in gaps
