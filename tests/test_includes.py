"""`include` and `excerpt-include` resolved to the included page's current text."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from connectors.includes import IncludeResolver, excerpt, included_pages
from core.index import EvidenceIndex
from tests.fakes.confluence_server import FakeConfluence, FakePage
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import run_sync, sync_settings


def include(title: str, space: str = "", name: str = "include") -> str:
    key = f' ri:space-key="{space}"' if space else ""
    return (
        f'<ac:structured-macro ac:name="{name}" ac:schema-version="1">'
        f'<ac:parameter ac:name=""><ac:link><ri:page ri:content-title="{title}"{key}/>'
        "</ac:link></ac:parameter></ac:structured-macro>"
    )


def excerpt_macro(body: str) -> str:
    return (
        '<ac:structured-macro ac:name="excerpt"><ac:rich-text-body>'
        f"{body}</ac:rich-text-body></ac:structured-macro>"
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (include("Setup"), [("include", "ENG", "Setup")]),
        (include("R&amp;D plan", "OPS"), [("include", "OPS", "R&D plan")]),
        (include("Intro", name="excerpt-include"), [("excerpt-include", "ENG", "Intro")]),
        (
            '<ac:macro ac:name="include"><ac:default-parameter>x</ac:default-parameter></ac:macro>',
            [],
        ),
        ("<p>No macros</p>", []),
    ],
)
def test_included_pages(body, expected):
    assert included_pages(body, "ENG") == expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "<p>before</p>" + excerpt_macro("<p>The short story.</p>") + "<p>after</p>",
            "<p>The short story.</p>",
        ),
        (
            excerpt_macro(
                '<p>a</p><ac:structured-macro ac:name="info"><ac:rich-text-body><p>b</p>'
                "</ac:rich-text-body></ac:structured-macro><p>c</p>"
            ),
            '<p>a</p><ac:structured-macro ac:name="info"><ac:rich-text-body><p>b</p>'
            "</ac:rich-text-body></ac:structured-macro><p>c</p>",
        ),
        ("<p>none</p>", ""),
    ],
)
def test_excerpt(body, expected):
    assert excerpt(body) == expected


PAGES = {
    ("ENG", "Setup"): ("2", "<p>Install with make.</p>" + include("Versions")),
    ("ENG", "Versions"): ("3", "<p>Python 3.12.</p>"),
    ("ENG", "Loop A"): ("4", "<p>A</p>" + include("Loop B")),
    ("ENG", "Loop B"): ("5", "<p>B</p>" + include("Loop A")),
    ("ENG", "Summary"): ("6", "<p>long</p>" + excerpt_macro("<p>Short.</p>")),
    **{
        ("ENG", f"Level {n}"): (str(10 + n), f"<p>L{n}</p>" + include(f"Level {n + 1}"))
        for n in range(6)
    },
}


def resolve(body: str) -> tuple[str, set[str]]:
    used: set[str] = set()
    resolver = IncludeResolver(lambda space, title: PAGES.get((space, title)), sessions=None)
    return resolver.resolve(body, "ENG", ("1",), used), used


def test_includes_are_replaced_by_the_current_text_nested():
    text, used = resolve("<p>Intro.</p>" + include("Setup"))
    assert text == "<p>Intro.</p><p>Install with make.</p><p>Python 3.12.</p>"
    assert used == {"2", "3"}


def test_excerpt_include_takes_the_excerpt_only():
    assert resolve(include("Summary", name="excerpt-include"))[0] == "<p>Short.</p>"


def test_a_cycle_stops_where_it_would_repeat_a_page():
    text, used = resolve(include("Loop A"))
    assert text.startswith("<p>A</p><p>B</p><ac:structured-macro")  # B's include of A kept
    assert used == {"4", "5"}


def test_depth_is_bounded_and_missing_pages_keep_the_macro():
    text, used = resolve(include("Level 0"))
    assert used == {"10", "11", "12"}
    assert text.count("<p>L") == 3 and 'ri:content-title="Level 3"' in text
    assert resolve(include("Nowhere"))[0] == include("Nowhere")


OLD = datetime(2023, 1, 1, tzinfo=UTC)
NEWER = datetime(2024, 1, 1, tzinfo=UTC)


def test_an_included_page_edit_reindexes_the_pages_that_include_it(tmp_path):
    pages = [
        FakePage(
            "701", "ENG", "Onboarding", "<p>Welcome.</p>" + include("Tool versions"), modified=OLD
        ),
        FakePage("702", "ENG", "Tool versions", "<p>We build with Gradle 7.</p>", modified=OLD),
        FakePage("703", "ENG", "Unrelated", "<p>Other.</p>", modified=NEWER),
    ]
    with FakeConfluence(pages, cloud=False) as fake:
        settings = sync_settings(
            tmp_path, fake, CONFBOT_SYNC_LISTING_INTERVAL="1d", CONFBOT_SYNC_OVERLAP_MINUTES="0"
        )
        index = EvidenceIndex(settings, HashEmbedder())
        run_sync(settings, index, "ENG")
        texts = {e.page_id: e.text for e in index.get(index.page_evidence_ids("701"))}
        assert "Gradle 7" in texts["701"]

        fake.edit("702", body="<p>We build with Gradle 8.</p>")
        report = run_sync(settings, index, "ENG")  # the change search finds 702 and 703 only
        assert (report.updated, report.unchanged) == (2, 1)  # 702, and 701 read again by id
        assert any(r.path.endswith("/rest/api/content/701") for r in fake.requests)
        text = " ".join(e.text for e in index.get(index.page_evidence_ids("701")))
        assert "Gradle 8" in text and "Gradle 7" not in text
