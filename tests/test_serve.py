"""`confbot serve` as a user runs it: a real process on the embedded defaults (offline USE
embedder, extractive answerer, SQLite, embedded Chroma) with no sync source configured.

It must index the packaged sample wiki, print the URL, answer over HTTP, stop cleanly on
SIGTERM and on SIGINT (exit status 0), and on a restart reuse the index instead of indexing
again. The process gets a clean environment: only PATH, a temporary HOME and data folder.
"""

from __future__ import annotations

import json
import re
import signal
import socket
from pathlib import Path

import httpx
import pytest

from bot.serve import SAMPLE_PAGES, SAMPLE_WIKI, sample_questions, source_configured
from core.settings import Settings
from tests.processes import READY, Confbot


@pytest.mark.parametrize(
    ("environ", "configured"),
    [
        ({}, False),
        ({"CONFBOT_CONFLUENCE_URL": "https://x.atlassian.net/wiki"}, True),
        ({"CONFBOT_SYNC_SOURCE": "files"}, False),
        ({"CONFBOT_SYNC_SOURCE": "files", "CONFBOT_SYNC_FILES_PATH": "/srv/export"}, True),
    ],
)
def test_source_configured(tmp_path, environ, configured):
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path), **environ})
    assert source_configured(settings) is configured


def test_sample_wiki_is_shipped():
    pages = sorted(SAMPLE_PAGES.glob("*.json"))
    assert len(pages) >= 10
    spaces = {json.loads(p.read_text())["space"] for p in pages}
    assert len(spaces) >= 2, "two spaces, so space scoping can be tried"
    assert (SAMPLE_WIKI / "questions.json").is_file() and sample_questions()


def serve_process(home: Path, **extra: str) -> Confbot:
    """`confbot serve --port 0` with only a temporary HOME and data folder (and `extra`)."""
    return Confbot(
        ["serve", "--port", "0"],
        {"HOME": str(home), "CONFBOT_DATA_DIR": str(home / "data"), **extra},
    )


def test_serve_indexes_the_sample_wiki_answers_and_stops_cleanly(tmp_path):
    question = json.loads((SAMPLE_WIKI / "questions.json").read_text())[0]

    first = serve_process(tmp_path)
    url = first.wait_for(READY, timeout=240).group(1)
    output = "".join(first.lines)
    assert "indexing the sample wiki" in output
    assert "sync scheduler: ACME, HR" in output
    with httpx.Client(base_url=url, timeout=30) as http:
        assert http.get("/healthz").json()["evidences"] > 0
        body = {"question": question["question"], "conversation": "serve-test-1"}
        turn = http.post("/api/ask", json=body).json()
        assert question["page_id"] in {s["page_id"] for s in turn["sources"] if s["cited"]}
        scoped = http.post("/api/ask", json={**body, "space": "HR"}).json()
        assert {s["space"] for s in scoped["sources"]} == {"HR"}
    # Quiet by default: no library's lines (Alembic's migrations, APScheduler's jobs,
    # uvicorn's start and access lines), the scheduler leaves the sample wiki it just indexed
    # alone, and the ready line (with its example question) stays the last thing shown.
    assert first.stop(signal.SIGTERM) == 0
    output = "".join(first.lines)
    assert "Traceback" not in output
    assert not re.search(r"alembic|apscheduler|uvicorn|Running upgrade|HTTP/1.1", output)
    assert not re.search(r"INFO connectors.schedule: sync (ACME|HR): \d+ added", output)
    after_ready = output.split("confbot is ready: ")[1].splitlines()[1:]
    assert [line.split(":")[0] for line in after_ready] == ["  try"], after_ready

    second = serve_process(tmp_path)
    second.wait_for(READY, timeout=240)
    assert "indexing the sample wiki" not in "".join(second.lines), "the index is reused"
    assert second.stop(signal.SIGINT) == 0
    assert "Traceback" not in "".join(second.lines)


def test_serve_stops_cleanly_while_starting(tmp_path):
    serve = serve_process(tmp_path)
    serve.wait_for(re.compile("indexing the sample wiki"), timeout=240)
    assert serve.stop(signal.SIGTERM) == 0
    output = "".join(serve.lines)
    assert "Traceback" not in output
    assert "SIGTERM received while starting" in output or "confbot is ready" in output


def test_serve_answers_on_the_web_while_slack_cannot_be_reached(tmp_path):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens there once it is closed
    serve = serve_process(
        tmp_path,
        SLACK_BOT_TOKEN="xoxb-SERVE-SECRET-TOKEN",
        SLACK_SIGNING_SECRET="serve-signing-secret",
        CONFBOT_SLACK_API_URL=f"http://127.0.0.1:{port}/api/",
    )
    url = serve.wait_for(READY, timeout=240).group(1)
    with httpx.Client(base_url=url, timeout=30) as http:
        body = {"question": sample_questions()[0], "conversation": "serve-test-2"}
        assert http.post("/api/ask", json=body).status_code == 200
        assert http.post("/slack/events", content=b"{}").status_code == 503
    serve.wait_for(re.compile("Slack could not be started"), timeout=60)
    assert serve.stop(signal.SIGTERM) == 0
    output = "".join(serve.lines)
    assert "sync scheduler: ACME, HR" in output
    assert "Traceback" not in output and "xoxb-SERVE-SECRET-TOKEN" not in output
