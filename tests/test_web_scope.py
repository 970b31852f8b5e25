"""A web link-out narrowed by label and page tree (`/ask?space=&label=&root=`), end to end
through the page and /api/ask, on the tiny wiki with labels and a page tree added."""

from __future__ import annotations

import dataclasses
import html
import json

import httpx
import pytest

from bot.web import create_app
from tests.fakes.tiny_wiki import PAGES, build_wiki, make_assistant

CONVERSATION = "tab-scope-0123456789"
BATS, MEASUREMENT, XEN = PAGES
SCOPED_PAGES = [
    BATS,
    dataclasses.replace(MEASUREMENT, labels=("results",)),
    XEN,
    dataclasses.replace(
        BATS,
        id="104",
        title="Running BATS",
        url="https://wiki.example/spaces/TEST/pages/104/Running",
        body="<p>BATS tests run with the bats command; BATS stands for the test runner.</p>",
        ancestors=("101",),
        labels=("howto",),
    ),
]


@pytest.fixture
async def client(tmp_path):
    assistant = make_assistant(build_wiki(tmp_path / "wiki", SCOPED_PAGES), tmp_path)
    transport = httpx.ASGITransport(app=create_app(assistant))
    async with httpx.AsyncClient(transport=transport, base_url="http://confbot.test") as client:
        yield client
    assistant.close()


async def ask(client, question: str, path: str = "/api/ask", **fields) -> httpx.Response:
    body = {"question": question, "conversation": CONVERSATION, **fields}
    return await client.post(path, json=body)


def source_pages(turn: dict) -> set[str]:
    return {s["page_id"] for s in turn["sources"]}


@pytest.mark.anyio
async def test_the_page_carries_labels_and_roots_and_names_them(client):
    page = await client.get("/ask?space=TEST&label=Results,howto&label=other&root=101")
    assert page.status_code == 200
    assert 'data-label="howto,other,results"' in page.text  # lower-cased, both forms
    assert 'data-root="101"' in page.text
    assert "labelled howto or other or results" in page.text
    assert "under Bats: Bash Automated Testing System" in page.text
    plain = (await client.get("/ask?space=TEST")).text
    assert 'data-label=""' in plain and 'data-root=""' in plain


@pytest.mark.anyio
async def test_questions_search_only_the_label_or_tree_of_the_link(client):
    everything = (await ask(client, "What does BATS stand for?")).json()
    assert source_pages(everything) >= {"101", "104"}
    labelled = (await ask(client, "What does BATS stand for?", label="RESULTS")).json()
    assert labelled["sources"] and source_pages(labelled) == {"102"}
    tree = (await ask(client, "What does BATS stand for?", root=["104"])).json()
    assert source_pages(tree) == {"104"}
    under = (await ask(client, "What does BATS stand for?", space="TEST", root="101")).json()
    assert source_pages(under) == {"101", "104"}
    suggestions = await client.get(
        f"/api/turns/{under['turn']}/suggestions",
        params={"conversation": CONVERSATION, "space": "TEST"},
    )
    assert suggestions.status_code == 200


@pytest.mark.anyio
async def test_the_stream_is_scoped_too(client):
    response = await ask(client, "What does BATS stand for?", "/api/ask/stream", label="howto")
    events = [
        json.loads(line.removeprefix("data: "))
        for line in response.text.splitlines()
        if line.startswith("data: ")
    ]
    turn = events[-1]
    assert source_pages(turn) == {"104"}


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"root": "999"}, "root=999 is not an indexed page"),
        ({"root": "../x"}, "root '../x' is not valid"),
        ({"label": ["a b"]}, "label 'a b' is not valid"),
        ({"label": [1]}, "expected text"),
        ({"label": ",".join(f"l{i}" for i in range(21))}, "at most 20 of label"),
    ],
)
async def test_a_bad_label_or_root_gets_a_clear_400(client, fields, message):
    response = await ask(client, "What does BATS stand for?", **fields)
    assert response.status_code == 400
    assert message in response.json()["error"]
    if isinstance(fields.get("root"), str):
        page = await client.get("/ask", params=fields)
        assert page.status_code == 400 and html.escape(message) in page.text
