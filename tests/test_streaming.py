"""Streamed answers on the web API (`POST /api/ask/stream`, server-sent events), through the
app's front door in-process, with a model behind a scripted chat server."""

from __future__ import annotations

import json

import httpx
import pytest

from bot.web import create_app
from core.combine import CheckedLLM
from core.extractive import ExtractiveLLM
from core.llm import OpenAILLM
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.tiny_wiki import make_assistant

CONVERSATION = "tab-0123456789"
QUESTION = "What does BATS stand for?"


def events_of(body: str) -> list[tuple[str, dict]]:
    """The (event, data) pairs of a server-sent events body."""
    out = []
    for block in body.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        out.append((fields["event"], json.loads(fields["data"])))
    return out


async def stream(assistant, question: str = QUESTION) -> tuple[httpx.Response, list]:
    transport = httpx.ASGITransport(app=create_app(assistant))
    async with httpx.AsyncClient(transport=transport, base_url="http://confbot.test") as client:
        body = {"question": question, "conversation": CONVERSATION, "space": "TEST"}
        response = await client.post("/api/ask/stream", json=body)
    return response, events_of(response.text) if response.status_code == 200 else []


def model_assistant(wiki, tmp_path, server: FakeOpenAI):
    model = OpenAILLM(server.base_url, "m", "k", max_retries=0, first_token_timeout=5.0)
    return make_assistant(wiki, tmp_path, CheckedLLM(model, ExtractiveLLM(), "grounded"))


@pytest.mark.anyio
async def test_sources_then_checked_sentences_then_the_turn(wiki, tmp_path):
    reply = (
        "BATS stands for Bash Automated Testing System [2]. Ada Lovelace wrote it. BATS is"
        " compliant with the Test Anything Protocol."
    )
    with FakeOpenAI(lambda request: reply) as server:
        assistant = model_assistant(wiki, tmp_path, server)
        response, events = await stream(assistant)
        assistant.close()
    assert response.headers["content-type"].startswith("text/event-stream")
    names = [name for name, _ in events]
    assert names == ["sources", "text", "text", "turn"]
    sources = events[0][1]["sources"]
    assert sources[0]["number"] == 1 and sources[0]["url"].startswith("https://wiki.example/")
    shown = "".join(data["text"] for name, data in events if name == "text")
    assert "Lovelace" not in shown and shown.startswith("BATS stands for Bash Automated")
    turn = events[-1][1]
    assert "Lovelace" not in turn["answer"] and turn["turn"] >= 1
    assert all(s["url"] for s in turn["sources"])


@pytest.mark.anyio
async def test_the_offline_answerer_streams_its_answer_at_once(assistant_offline):
    response, events = await stream(assistant_offline)
    assert [name for name, _ in events] == ["sources", "text", "turn"]
    assert "Bash Automated Testing System" in events[1][1]["text"]


@pytest.fixture
def assistant_offline(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    yield assistant
    assistant.close()


@pytest.mark.anyio
async def test_a_failing_model_ends_the_stream_with_an_error_event(wiki, tmp_path):
    with FakeOpenAI(lambda request: Reply.error(500)) as server:
        assistant = model_assistant(wiki, tmp_path, server)
        response, events = await stream(assistant)
        assistant.close()
    assert [name for name, _ in events] == ["sources", "error"]
    assert events[-1][1]["error"].startswith("The language model could not answer")


@pytest.mark.anyio
async def test_a_bad_question_is_refused_before_streaming(assistant_offline):
    response, events = await stream(assistant_offline, "   ")
    assert response.status_code == 400 and "error" in response.json()


@pytest.mark.anyio
async def test_a_streamed_turn_is_answered_for_its_asker(assistant_offline):
    """As `/api/ask` does, the stream searches with the asker's permissions and records them
    with the turn (a turn with no readers would be answered from public pages only and
    shown to anyone with its link)."""
    from core.assistant import readers_of

    _, events = await stream(assistant_offline)
    record = assistant_offline.turn_record(events[-1][1]["turn"])
    assert readers_of(record) != []
