"""The web app through its front door, in-process (`httpx.ASGITransport`), on the tiny wiki:
the /ask page, the JSON API it uses, /healthz, the Slack HTTP-mode mount and bad requests."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import re
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from bot.web import (
    MAX_QUESTION_CHARS,
    STATIC,
    Scope,
    WebApp,
    answer_segments,
    create_app,
    excerpt,
)
from core.assistant import ConversationKey
from core.conversation import TurnRecord
from tests.fakes.tiny_wiki import PAGES, build_wiki, make_assistant

CONVERSATION = "tab-0123456789"


@pytest.fixture
def assistant(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    yield assistant
    assistant.close()


@pytest.fixture
async def client(assistant):
    transport = httpx.ASGITransport(app=create_app(assistant))
    async with httpx.AsyncClient(transport=transport, base_url="http://confbot.test") as client:
        yield client


async def ask(client, question: str, **fields) -> httpx.Response:
    body = {"question": question, "conversation": CONVERSATION, **fields}
    return await client.post("/api/ask", json=body)


@pytest.mark.anyio
async def test_a_copy_of_a_source_page_is_listed_under_it_as_also_in(tmp_path):
    original = PAGES[0]
    copy = dataclasses.replace(
        original,
        id="104",
        space="~ross",
        title=f"Copy of {original.title}",
        url="https://wiki.example/spaces/~ross/pages/104/Copy",
    )
    wiki = build_wiki(tmp_path / "wiki", [copy, *PAGES], prefer_canonical="true")
    assistant = make_assistant(wiki, tmp_path)
    transport = httpx.ASGITransport(app=create_app(assistant))
    async with httpx.AsyncClient(transport=transport, base_url="http://confbot.test") as client:
        turn = (await ask(client, "What does BATS stand for?")).json()
    assistant.close()
    assert "104" not in {s["page_id"] for s in turn["sources"]}
    first = turn["sources"][0]
    assert first["page_id"] == "101"
    assert first["also_in"] == [{"title": copy.title, "url": copy.url, "space": "~ross"}]


# --------------------------------------------------------------------------- pure helpers
@pytest.mark.parametrize(
    ("text", "sources", "expected"),
    [
        ("No citation.", 3, [{"text": "No citation."}]),
        (
            "BATS [1].",
            3,
            [{"text": "BATS "}, {"text": "[1]", "cite": [1]}, {"text": "."}],
        ),
        (
            "A [1, 3] and B [2-3]",
            3,
            [
                {"text": "A "},
                {"text": "[1, 3]", "cite": [1, 3]},
                {"text": " and B "},
                {"text": "[2-3]", "cite": [2, 3]},
            ],
        ),
        ("Unknown [7] source.", 3, [{"text": "Unknown [7] source."}]),
        ("Partly [2, 9]", 3, [{"text": "Partly "}, {"text": "[2, 9]", "cite": [2]}]),
        ("[1][2]", 2, [{"text": "[1]", "cite": [1]}, {"text": "[2]", "cite": [2]}]),
        ("", 3, []),
    ],
)
def test_answer_segments(text, sources, expected):
    assert answer_segments(text, sources) == expected


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("short  text\n here", 50, "short text here"),
        ("one two three four", 10, "one two…"),
    ],
)
def test_excerpt(text, limit, expected):
    assert excerpt(text, limit) == expected


# --------------------------------------------------------------------------- ask
@pytest.mark.anyio
async def test_ask_returns_answer_and_numbered_sources(client):
    response = await ask(client, "What does BATS stand for?")
    assert response.status_code == 200
    turn = response.json()
    assert turn["question"] == "What does BATS stand for?"
    assert turn["conversation"] == CONVERSATION
    assert "Bash Automated Testing System" in turn["answer"]
    assert turn["citations"], "the extractive answerer cites its sources"
    by_number = {s["number"]: s for s in turn["sources"]}
    assert sorted(by_number) == list(range(1, len(turn["sources"]) + 1))
    # numbered as shown: the cited sources are 1..k, in order of first citation
    assert turn["citations"] == list(range(1, len(turn["citations"]) + 1))
    assert [s["cited"] for s in turn["sources"]] == sorted(
        (s["cited"] for s in turn["sources"]), reverse=True
    )
    assert sorted(s["prompt_number"] for s in turn["sources"]) == sorted(by_number)
    for number in turn["citations"]:
        source = by_number[number]
        assert source["cited"] is True
        assert source["url"].startswith("https://wiki.example/")
        assert source["title"] and source["excerpt"]
    first = by_number[1]["excerpt"]  # the sentence the page says it in
    assert first["kind"] == "text"
    assert "BATS stands for Bash Automated Testing System." in "".join(
        p["text"] for p in first["pieces"]
    )
    cited_links = [n for s in turn["segments"] if "cite" in s for n in s["cite"]]
    assert set(cited_links) == set(turn["citations"])
    assert "".join(s["text"] for s in turn["segments"]) == turn["answer"]
    likely = "".join(s["text"] for s in turn["parts"]["answer"])
    related = ["".join(s["text"] for s in line) for line in turn["parts"]["related"]]
    assert likely == turn["answer"].split("\n")[0]
    assert [f"Related: {line}" for line in related] == turn["answer"].split("\n")[1:]
    assert "declined" not in turn


@pytest.mark.anyio
async def test_ask_marks_chit_chat_and_spelling_corrections(client):
    hello = (await ask(client, "Hallo!")).json()
    assert hello["small_talk"] == "greeting" and hello["sources"] == []
    assert hello["answer"].startswith("Hallo! Ich beantworte Fragen") and hello["spelling"] is None
    turn = (await ask(client, "Which BIOS did the Dell Optiplx 7040 have?")).json()
    assert turn["spelling"] == "Optiplx → Optiplex" and turn["small_talk"] is None
    assert turn["completed_question"] == "Which BIOS did the Dell Optiplex 7040 have?"
    assert {"lexical", "dense"} <= set(turn["sources"][0]["ranks"])
    assert turn["timings"]["total_ms"] > 0


@pytest.mark.anyio
async def test_a_cited_row_is_shown_as_a_table_row_under_its_header(client):
    turn = (await ask(client, "Which TPM version did the Dell Optiplex 7040 have?")).json()
    source = turn["sources"][0]
    assert source["cited"] and source["title"] == "OpenXT 9.0 Measurement Test"
    assert source["excerpt"] == {
        "kind": "table",
        "header": ["Machine", "BIOS", "Build", "TPM"],
        "rows": [["Dell Optiplex 7040", "1.14.0", "6662", "2.0"]],
        "marked": [[0, 3]],
        "more_rows": 1,
        "more": "1 more row",
    }
    assert "in Table" not in json.dumps([s["excerpt"] for s in turn["sources"]])
    assert turn["labels"]["sources"] == "Sources" and turn["language"] == "en"


@pytest.mark.anyio
async def test_a_german_question_gets_german_labels(client):
    turn = (await ask(client, "Welche BIOS-Version hatte der Dell Optiplex 7040?")).json()
    assert turn["language"] == "de"
    assert turn["labels"]["sources"] == "Quellen" and turn["labels"]["explain"] == "Erklären"
    body = {"turn": turn["turn"], "conversation": CONVERSATION}
    explanation = (await client.post("/api/explain", json=body)).json()
    assert explanation["labels"]["why"] == "Warum diese Antwort"
    plain = "".join(w["text"] for sentence in explanation["plain"] for w in sentence)
    assert plain.startswith("Diese Antwort stammt aus einer Quelle: OpenXT 9.0 Measurement Test")


@pytest.mark.anyio
async def test_follow_up_is_completed_within_the_conversation_only(client):
    await ask(client, "Which TPM version did the Dell Optiplex 7040 have?")
    follow_up = (await ask(client, "And the BIOS?")).json()
    shown = follow_up["completed_question"]
    assert "BIOS" in shown and "Optiplex 7040" in shown and "context:" not in shown
    assert "1.14.0" in follow_up["answer"]
    other_tab = (await ask(client, "And the BIOS?", conversation="tab-other-tab")).json()
    assert other_tab["completed_question"] == "And the BIOS?"
    assert other_tab["clarification"] is True  # no topic there: asked back, not guessed
    assert other_tab["answer"] == "BIOS of what? Please ask the whole question."


@pytest.mark.anyio
async def test_space_scoping_never_cites_another_space(client):
    # BATS is only documented in TEST; asked from DEV, no TEST page may come back.
    turn = (await ask(client, "What does BATS stand for?", space="DEV")).json()
    assert turn["space"] == "DEV"
    assert turn["sources"], "DEV still has evidence to rank"
    assert {s["space"] for s in turn["sources"]} == {"DEV"}
    assert "Bash Automated Testing System" not in turn["answer"]
    unscoped = (await ask(client, "What does BATS stand for?", conversation="tab-unscoped")).json()
    assert "TEST" in {s["space"] for s in unscoped["sources"]}


@pytest.mark.anyio
async def test_page_alone_scopes_to_its_space(client):
    turn = (await ask(client, "What does BATS stand for?", page="103")).json()
    assert turn["space"] == "DEV" and turn["page"] == "103"
    assert {s["space"] for s in turn["sources"]} == {"DEV"}


# ------------------------------------------------------------------ explain, feedback, trace
@pytest.mark.anyio
async def test_explain_gives_shares_with_evidence_links(client):
    turn = (await ask(client, "What does BATS stand for?")).json()
    body = {"turn": turn["turn"], "conversation": CONVERSATION}
    response = await client.post("/api/explain", json=body)
    assert response.status_code == 200
    explanation = response.json()
    assert explanation["turn"] == turn["turn"]
    assert explanation["method"] == "counterfactual"
    assert explanation["lines"]
    shares = [c["share"] for c in explanation["clusters"]]
    assert shares == sorted(shares, reverse=True)
    assert sum(shares) == pytest.approx(1.0)
    top = explanation["clusters"][0]["evidences"][0]
    assert top["number"] == explanation["top_evidence"]
    assert top["url"].startswith("https://wiki.example/") and top["title"]
    # numbered as the answer shows its sources; those it does not cite have no number
    numbers = {e["number"] for c in explanation["clusters"] for e in c["evidences"]}
    assert numbers - {None} == set(turn["citations"])
    plain = explanation["plain"]
    linked = {n for sentence in plain for words in sentence for n in words["sources"]}
    assert linked and linked <= set(turn["citations"])
    assert "".join(w["text"] for w in plain[0]).startswith(
        "This answer came from one source: Bats: Bash Automated Testing"
    )
    again = await client.post("/api/explain", json=body)
    assert again.json()["clusters"] == explanation["clusters"], "stored and reused"


@pytest.mark.anyio
async def test_feedback_is_recorded(client, assistant):
    turn = (await ask(client, "What does BATS stand for?")).json()
    body = {"turn": turn["turn"], "conversation": CONVERSATION, "value": "up"}
    response = await client.post("/api/feedback", json=body)
    assert response.status_code == 200
    assert response.json()["value"] == "up"
    assert [(f.value, f.user) for f in assistant.store.feedback(turn["turn"])] == [("up", "web")]


@pytest.mark.anyio
async def test_trace_shows_every_step(client):
    turn = (await ask(client, "What does BATS stand for?", space="TEST")).json()
    params = {"conversation": CONVERSATION, "space": "TEST"}
    response = await client.get(f"/api/turns/{turn['turn']}", params=params)
    assert response.status_code == 200
    trace = response.json()
    assert trace["query"] == "What does BATS stand for?"
    assert len(trace["retrieval"]) == len(turn["sources"])
    first = trace["retrieval"][0]
    assert first["number"] == 1 and first["rank"] == 1
    assert set(first["ranks"]) >= {"lexical", "dense"}
    assert first["space"] == "TEST" and first["kind"]
    answer_prompt = trace["messages"]["answer"]
    assert [m["role"] for m in answer_prompt] == ["system", "user"]
    assert "Question: What does BATS stand for?" in answer_prompt[1]["content"]
    assert {"history_ms", "complete_ms", "retrieve_ms", "answer_ms", "total_ms"} <= set(
        trace["timings"]
    )
    assert trace["explanation"] is None
    await client.post("/api/explain", json={"turn": turn["turn"], **params})
    explained = (await client.get(f"/api/turns/{turn['turn']}", params=params)).json()
    assert explained["explanation"]["method"] == "counterfactual"


@pytest.mark.anyio
async def test_turns_are_private_to_their_conversation(client):
    turn = (await ask(client, "What does BATS stand for?", space="TEST")).json()
    number = turn["turn"]
    for params in (
        {"conversation": "tab-somebody-else", "space": "TEST"},
        {"conversation": CONVERSATION},  # same tab id, other scope: another conversation
    ):
        assert (await client.get(f"/api/turns/{number}", params=params)).status_code == 404
        body = {"turn": number, **params}
        assert (await client.post("/api/explain", json=body)).status_code == 404
        body["value"] = "down"
        assert (await client.post("/api/feedback", json=body)).status_code == 404


# --------------------------------------------------------------------------- pages and health
@pytest.mark.anyio
async def test_ask_page_shows_scope_and_a_new_conversation_each_load(client):
    first = await client.get("/ask", params={"space": "TEST", "page": "102"})
    assert first.status_code == 200
    assert first.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in first.headers["content-security-policy"]
    page = first.text
    assert "<strong>TEST</strong> space" in page
    assert 'href="https://wiki.example/spaces/TEST/pages/102/Measurement"' in page
    assert ">OpenXT 9.0 Measurement Test</a>" in page
    assert 'data-space="TEST"' in page and 'data-page="102"' in page
    second = (await client.get("/ask", params={"space": "TEST", "page": "102"})).text

    def conversation(text: str) -> str:
        return text.split('data-conversation="', 1)[1].split('"', 1)[0]

    assert conversation(page) != conversation(second)
    unknown = (await client.get("/ask", params={"space": "NOPE"})).text
    assert "no pages of NOPE are indexed" in unknown
    everything = (await client.get("/ask")).text
    assert "every indexed space" in everything and 'data-space=""' in everything
    assert (await client.get("/")).headers["location"] == "ask"


@pytest.mark.anyio
async def test_a_link_prepares_a_question_without_asking_it(client, assistant):
    response = await client.get("/ask", params={"space": "TEST", "q": "How do I book leave?"})
    assert response.status_code == 200
    assert ">How do I book leave?</textarea>" in response.text
    assert 'data-space="TEST"' in response.text
    assert assistant.store.turns(ConversationKey("web", "TEST", "", "x")) == []
    with assistant.store._sessions() as session:
        assert session.scalar(select(func.count()).select_from(TurnRecord)) == 0

    hostile = await client.get("/ask", params={"q": "</textarea><script>alert(1)</script>"})
    assert "<script>alert(1)" not in hostile.text
    assert "&lt;/textarea&gt;&lt;script&gt;" in hostile.text
    long = await client.get("/ask", params={"q": "x" * (MAX_QUESTION_CHARS + 50)})
    assert f">{'x' * MAX_QUESTION_CHARS}</textarea>" in long.text
    assert ">How" not in (await client.get("/ask", params={"space": "TEST"})).text


def test_page_escapes_what_it_shows(assistant):
    web = WebApp(assistant)
    scope = Scope(
        space="TEST",
        page="9",
        page_title="<script>alert(1)</script>",
        page_url='https://x.example/"onmouseover="alert(1)',
    )
    page = web.render(scope, conversation="c0nversation")
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '"onmouseover' not in page


@pytest.mark.anyio
async def test_static_files_and_no_innerhtml(client):
    script = await client.get("/static/ask.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    html_sinks = re.compile(r"\.\s*(innerHTML|outerHTML|insertAdjacentHTML)\b|document\.write")
    assert not html_sinks.search(script.text), "text is inserted with textContent only"
    assert (await client.get("/static/ask.css")).status_code == 200
    assert (STATIC / "ask.js").is_file()


@pytest.mark.anyio
async def test_healthz(client):
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["evidences"] > 0


# --------------------------------------------------------------------------- bad requests
@pytest.mark.anyio
@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (json.dumps({"conversation": CONVERSATION}).encode(), "question is required"),
        (json.dumps({"question": "   ", "conversation": CONVERSATION}).encode(), "question"),
        (json.dumps({"question": 42, "conversation": CONVERSATION}).encode(), "question"),
        (
            json.dumps({"question": "x" * (MAX_QUESTION_CHARS + 1), "conversation": "tab-1234"}),
            "too long",
        ),
        (json.dumps({"question": "Why?"}).encode(), "conversation is required"),
        (json.dumps({"question": "Why?", "conversation": "short"}).encode(), "conversation"),
        (
            json.dumps({"question": "Why?", "conversation": CONVERSATION, "space": "A B"}),
            "space must be a Confluence space key",
        ),
        (
            json.dumps({"question": "Why?", "conversation": CONVERSATION, "page": "../etc"}),
            "page must be a page id",
        ),
    ],
)
async def test_bad_ask_requests_get_a_clear_400(client, body, message):
    if isinstance(body, str):
        body = body.encode()
    response = await client.post(
        "/api/ask", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert message in response.json()["error"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/api/explain", {"conversation": CONVERSATION}, "turn must be a positive integer"),
        ("/api/explain", {"turn": "x", "conversation": CONVERSATION}, "turn must be"),
        ("/api/explain", {"turn": 0, "conversation": CONVERSATION}, "turn must be"),
        ("/api/explain", {"turn": 1}, "conversation is required"),
        ("/api/feedback", {"turn": 1, "conversation": CONVERSATION}, "value must be one of"),
        (
            "/api/feedback",
            {"turn": 1, "conversation": CONVERSATION, "value": "meh"},
            "value must be one of: up, down",
        ),
    ],
)
async def test_bad_explain_and_feedback_requests_get_a_clear_400(client, path, body, message):
    response = await client.post(path, json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]


@pytest.mark.anyio
async def test_bad_page_and_trace_requests(client):
    page = await client.get("/ask", params={"space": "<script>"})
    assert page.status_code == 400
    assert "space must be a Confluence space key" in page.text
    assert "<script>" not in page.text
    trace = await client.get("/api/turns/abc", params={"conversation": CONVERSATION})
    assert trace.status_code == 400
    assert "turn must be" in trace.json()["error"]
    too_big = await client.post("/api/ask", content=b"{" + b" " * 2_000_000 + b"}")
    assert too_big.status_code == 413 and "too large" in too_big.json()["error"]


# --------------------------------------------------------------------------- Slack HTTP mode
def _signed(secret: str, body: str) -> dict:
    """Headers Slack sends with a request body (v0 signature, Slack's signing docs)."""
    timestamp = str(int(time.time()))
    base = f"v0:{timestamp}:{body}".encode()
    signature = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return {
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": signature,
        "content-type": "application/json",
    }


@pytest.mark.anyio
async def test_slack_events_endpoint_is_mounted_when_given(assistant):
    from slack_bolt import App

    secret = "test-signing-secret"
    assistant.settings = assistant.settings.replace(slack_signing_secret=secret)
    slack = App(token="xoxb-test", signing_secret=secret, token_verification_enabled=False)
    transport = httpx.ASGITransport(app=create_app(assistant, slack_app=slack))
    async with httpx.AsyncClient(transport=transport, base_url="http://confbot.test") as client:
        body = json.dumps({"type": "url_verification", "challenge": "c-123", "token": "t"})
        signed = await client.post("/slack/events", content=body, headers=_signed(secret, body))
        assert signed.status_code == 200 and "c-123" in signed.text
        forged = await client.post(
            "/slack/events", content=body, headers=_signed("another-secret", body)
        )
        assert forged.status_code == 401

    transport = httpx.ASGITransport(app=create_app(assistant))
    async with httpx.AsyncClient(transport=transport, base_url="http://confbot.test") as client:
        assert (await client.post("/slack/events", content="{}")).status_code == 404


def test_templates_static_and_sample_wiki_are_package_data():
    """Every data file under bot/ is matched by the package data of a declared package, so a
    wheel ships it (and setuptools has no undeclared data folder to warn about)."""
    import fnmatch
    import tomllib

    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages, data = set(config["packages"]), config["package-data"]
    for folder in ("static", "templates", "sample_wiki"):
        files = [f for f in (root / "bot" / folder).rglob("*") if f.is_file()]
        assert files
        for file in files:
            package = ".".join(file.parent.relative_to(root).parts)
            assert package in packages, f"{package} is not declared"
            assert any(fnmatch.fnmatch(file.name, g) for g in data.get(package, [])), file


@pytest.mark.anyio
async def test_a_declined_answer_names_the_closest_pages(client):
    turn = (await ask(client, "Who won the football world cup in 1954?")).json()
    assert turn["out_of_scope"] and "parts" not in turn
    declined = turn["declined"]
    assert declined["message"] == "I couldn't find this in the wiki; closest pages:"
    assert 1 <= len(declined["pages"]) <= 3
    assert len({p["url"] for p in declined["pages"]}) == len(declined["pages"])
    by_number = {s["number"]: s for s in turn["sources"]}
    for page in declined["pages"]:
        assert by_number[page["number"]]["url"] == page["url"]


@pytest.mark.anyio
async def test_suggested_follow_ups_are_asked_in_the_same_conversation(client):
    turn = (await ask(client, "What does BATS stand for?")).json()
    assert turn["suggestions"] == [] and turn["suggestions_pending"]  # not on the answer's path
    url = f"/api/turns/{turn['turn']}/suggestions"
    found = (await client.get(url, params={"conversation": CONVERSATION})).json()
    assert found["turn"] == turn["turn"]
    suggestions = found["suggestions"]
    assert suggestions, "the BATS page has sections the question did not touch"
    again = await client.get(url, params={"conversation": CONVERSATION})
    assert again.json()["suggestions"] == suggestions  # stored, not drawn again
    elsewhere = await client.get(url, params={"conversation": "someone-else"})
    assert elsewhere.status_code == 404  # only the turn's own conversation sees them
    follow_up = (await ask(client, suggestions[0])).json()
    assert follow_up["conversation"] == turn["conversation"]
    assert not follow_up["out_of_scope"]
    assert follow_up["sources"][0]["page_id"] == "101"
    script = (await client.get("/static/ask.js")).text
    assert "renderSuggestions(turn.suggestions)" in script
    assert "loadSuggestions(node, turn)" in script and "/suggestions?" in script
