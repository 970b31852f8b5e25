"""Slack message building (bot/blocks.py): mrkdwn escaping, links, question text, bars,
Block Kit limits, and the answer and explanation messages, on literal inputs."""

from __future__ import annotations

import dataclasses

import pytest

from bot.blocks import (
    EXPLAIN_ACTION,
    FEEDBACK_DOWN_ACTION,
    FEEDBACK_UP_ACTION,
    MAX_BLOCKS,
    MAX_SECTION_TEXT,
    SHARE_ACTION,
    ZWSP,
    answer_blocks,
    answer_text,
    bar,
    escape,
    excerpt_lines,
    explanation_blocks,
    explanation_text,
    link,
    mentions,
    plain_text,
    private_answer_blocks,
    render_answer,
    shared_answer_blocks,
    split_rendered,
)
from bot.slack_auto import looks_like_question
from bot.slack_home import Asked, home_view, settings_lines
from core.answer import Citation
from core.assistant import ConversationKey, Turn
from core.attribution import ClusterShare, Explanation
from core.excerpt import Excerpt, Piece
from core.index import PageEntry
from core.pages import Evidence, Page
from core.present import named_sources
from core.retrieve import ScoredEvidence
from core.settings import Settings

Z = ZWSP


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain words", "plain words"),
        ("a & b", "a &amp; b"),
        ("<!channel> now", "&lt;!channel&gt; now"),
        ("hi <@U0EVE>", "hi &lt;@U0EVE&gt;"),
        ("<https://evil.example|click>", "&lt;https://evil.example|click&gt;"),
        ("*bold*", f"{Z}*bold*{Z}"),
        ("an _italic_ word", f"an {Z}_italic_{Z} word"),
        ("~gone~", f"{Z}~gone~{Z}"),
        ("`code`", f"{Z}`code`{Z}"),
        ("> quoted\nnext", f"{Z}&gt; quoted\nnext"),
        ("DISTRO_FEATURE and 2*3", "DISTRO_FEATURE and 2*3"),
        ("&amp; stays visible", "&amp;amp; stays visible"),
    ],
)
def test_escape(text, expected):
    assert escape(text) == expected


@pytest.mark.parametrize(
    ("url", "label", "expected"),
    [
        ("https://wiki.example/p?a=1&b=2", "Page", "<https://wiki.example/p?a=1&amp;b=2|Page>"),
        ("https://wiki.example/x|y>z", "<b>", "<https://wiki.example/x%7Cy%3Ez|&lt;b&gt;>"),
        ("https://wiki.example/a b", "*T*", f"<https://wiki.example/a%20b|{Z}*T*{Z}>"),
        ("javascript:alert(1)", "Page", "Page"),
        ("", "Page", "Page"),
    ],
)
def test_link(url, label, expected):
    assert link(url, label) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<@U0BOT> What is BATS?", "What is BATS?"),
        ("<@U0BOT|confbot> ask <@U2|bob> or <@U3>", "ask @bob or @U3"),
        ("see <https://x.example|the page> &amp; <#C1|general>", "see the page & #general"),
        ("<!here> what is &lt;b&gt;?", "what is <b>?"),
        (
            "<mailto:a@b.example> and <https://x.example>",
            "mailto:a@b.example and https://x.example",
        ),
        ("<@U0BOT>", ""),
        ("line one\n  line   two  ", "line one\nline two"),
    ],
)
def test_plain_text(text, expected):
    assert plain_text(text, "U0BOT") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("<@U0BOT> hi", True), ("hi <@U0BOT|confbot>", True), ("<@U0BOTX> hi", False), ("hi", False)],
)
def test_mentions(text, expected):
    assert mentions(text, "U0BOT") is expected


@pytest.mark.parametrize(
    ("share", "expected"),
    [
        (0.521, "▇▇▇▇▇░░░░░"),
        (0.0, "░░░░░░░░░░"),
        (0.04, "░░░░░░░░░░"),
        (0.06, "▇░░░░░░░░░"),
        (1.0, "▇▇▇▇▇▇▇▇▇▇"),
        (1.3, "▇▇▇▇▇▇▇▇▇▇"),
    ],
)
def test_bar(share, expected):
    assert bar(share) == expected


URLS = {1: "https://w.example/1", 2: "https://w.example/2"}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("It is X [1].", "It is X <https://w.example/1|[1]>."),
        ("Both [1, 2]", "Both <https://w.example/1|[1]><https://w.example/2|[2]>"),
        ("Unknown [3] & [1]", "Unknown [3] &amp; <https://w.example/1|[1]>"),
        ("No sources.", "No sources."),
    ],
)
def test_render_answer(answer, expected):
    assert render_answer(answer, URLS) == expected


def test_split_rendered_keeps_every_word_within_the_limit():
    lines = [" ".join(f"w{line}_{i} & [1, 2]" for i in range(80)) for line in range(30)]
    text = "\n".join(lines)
    text += "\n" + "q" * 7000
    pieces = split_rendered(text, lambda raw: render_answer(raw, URLS), 1000)
    assert all(len(p) <= 1000 for p in pieces)
    joined = " ".join(pieces)
    both = "<https://w.example/1|[1]><https://w.example/2|[2]>"  # one word, never split
    assert joined.count(both) == 30 * 80
    assert all(f"w{line}_79" in joined for line in range(30))
    assert sum(p.count("q") for p in pieces) == 7000


# --------------------------------------------------------------------------- messages
EVIL_TITLE = "<!channel> *Pwned* & <@U0EVE>"


def make_turn(answer: str, out_of_scope: bool = False) -> Turn:
    evidences = [
        Evidence("e1", "101", "TEST", "https://w.example/101", EVIL_TITLE, "passage", 0, "x"),
        Evidence("e2", "102", "T&D", "https://w.example/102", "Second", "passage", 1, "y"),
    ]
    citations = [Citation(1, "e1", "101", EVIL_TITLE, "https://w.example/101")]
    if "[2]" in answer:
        citations.append(Citation(2, "e2", "102", "Second", "https://w.example/102"))
    return Turn(
        id=42,
        key=ConversationKey("slack", "T", "C", "1.1"),
        question="and then?",
        completed_question="What happened *then*? <!here>",
        query="q",
        answer=answer,
        citations=[] if out_of_scope else citations,
        evidences=[ScoredEvidence(e, 1.0 / n, n) for n, e in enumerate(evidences, start=1)],
        timings={},
        model="m",
        out_of_scope=out_of_scope,
    )


PAGES = {
    "101": Page(
        "101", "TEST", EVIL_TITLE, "https://w.example/101", "", updated_at="2024-05-01T10:00:00Z"
    ),
}


def test_answer_message_escapes_page_text():
    turn = make_turn("It happened [1] and then [2].")
    blocks = answer_blocks(turn, PAGES)
    question = blocks[0]["elements"][0]["text"]
    assert "<!here>" not in question and f"{Z}*then*{Z}" in question
    sources = blocks[-2]["text"]["text"]
    assert sources.splitlines() == [
        "*Sources*",
        f"[1] <https://w.example/101|&lt;!channel&gt; {Z}*Pwned*{Z} &amp; &lt;@U0EVE&gt;>"
        " · TEST · updated 2024-05-01",
        ">x",
        "[2] <https://w.example/102|Second> · T&amp;D",
        ">y",
    ]
    assert all(b["text"]["verbatim"] for b in blocks if b["type"] == "section")
    assert "<!channel>" not in str(blocks)


def test_sources_are_numbered_as_cited_with_their_excerpts():
    turn = make_turn("It happened [2] and then [1, 2].")
    row = "Row 3 in Table 1: Week is Week 2, and Secondary is <Sophie>"
    turn.evidences[1].evidence = dataclasses.replace(
        turn.evidences[1].evidence, text=row, kind="row"
    )
    turn.completed_question = "Who is secondary in week 2?"
    blocks = answer_blocks(turn, PAGES)
    assert blocks[1]["text"]["text"] == (
        "*Most likely answer*\nIt happened <https://w.example/102|[1]> and then"
        " <https://w.example/102|[1]><https://w.example/101|[2]>."
    )
    assert blocks[-2]["text"]["text"].splitlines()[1:] == [
        "[1] <https://w.example/102|Second> · T&amp;D",
        ">Week: Week 2 · Secondary: &lt;Sophie&gt;",
        f"[2] <https://w.example/101|&lt;!channel&gt; {Z}*Pwned*{Z} &amp; &lt;@U0EVE&gt;>"
        " · TEST · updated 2024-05-01",
        ">x",
    ]
    assert answer_text(turn) == "It happened [1] and then [1][2]."


def test_german_questions_get_german_labels():
    turn = make_turn("Es passierte [1].\nRelated: Und dann [2].")
    turn.question = "Was ist dann passiert?"
    blocks = answer_blocks(turn, PAGES)
    texts = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    assert texts[0].startswith("*Wahrscheinlichste Antwort*\n")
    assert texts[1].startswith("*Siehe auch*\n")
    assert texts[2].startswith("*Quellen*\n")
    assert blocks[-1]["elements"][0]["text"]["text"] == "Erklären"


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        (
            Excerpt(
                "table",
                ("Week", "Team", "On <call>"),
                (("Week 2", "", "Sophie *B*"),),
                frozenset({(0, 2)}),
            ),
            [f"Week: Week 2 · On &lt;call&gt;: *Sophie {Z}*B*{Z}*"],
        ),
        (
            Excerpt(
                "table",
                ("City", "Hotel"),
                (("Munich", "€180"), ("Berlin", "€150")),
                frozenset({(0, 1)}),
                more_rows=3,
            ),
            ["City: Munich · Hotel: *€180*", "City: Berlin · Hotel: €150", "_… 3 more rows_"],
        ),
        (
            Excerpt("table", ("",), (("All tickets are closed",),), frozenset()),
            ["All tickets are closed"],
        ),
        (
            Excerpt(
                "text",
                pieces=(
                    Piece("… "),
                    Piece("The limit is "),
                    Piece("€180 ", marked=True),
                    Piece("a night. …"),
                ),
            ),
            ["… The limit is *€180* a night. …"],
        ),
    ],
)
def test_excerpt_lines(found, expected):
    assert excerpt_lines(found) == expected


def test_a_source_lists_its_near_duplicate_pages_as_also_in():
    turn = make_turn("It happened [1].")
    copy = PageEntry("103", "Copy of <Pwned>", "~eve", "https://w.example/103", ())
    turn.evidences[0].also_in = [copy]
    sources = answer_blocks(turn, PAGES)[-2]["text"]["text"]
    assert sources.splitlines()[1].endswith(
        " · also in <https://w.example/103|Copy of &lt;Pwned&gt;>"
    )


def test_long_answer_respects_slack_limits():
    paragraph = "A long paragraph about the build & the tests [1]. " * 40
    turn = make_turn("\n\n".join([paragraph] * 200))
    blocks = answer_blocks(turn, PAGES)
    assert len(blocks) == MAX_BLOCKS
    sections = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    assert all(len(text) <= MAX_SECTION_TEXT for text in sections)
    assert sections[-2].endswith("…")  # the last answer section, before the sources
    assert blocks[-1]["type"] == "actions"
    assert len(answer_text(turn)) <= 3000


def test_out_of_scope_answer_has_no_sources_and_no_explain():
    turn = make_turn("The desired information cannot be found.", out_of_scope=True)
    blocks = answer_blocks(turn, PAGES)
    assert "*Sources*" not in str(blocks)
    actions = [e["action_id"] for e in blocks[-1]["elements"]]
    assert EXPLAIN_ACTION not in actions and len(actions) == 2
    declined = blocks[1]["text"]["text"]
    assert declined == (
        "I couldn't find this in the wiki; closest pages: <https://w.example/101|&lt;!channel&gt;"
        f" {Z}*Pwned*{Z} &amp; &lt;@U0EVE&gt;>, <https://w.example/102|Second>"
    )


def test_declined_german_question_without_pages():
    turn = make_turn("x", out_of_scope=True)
    turn.completed_question = "Wie viele Urlaubstage haben wir?"
    turn.evidences = []
    blocks = answer_blocks(turn, PAGES)
    assert blocks[1]["text"]["text"] == "Das habe ich im Wiki nicht gefunden."


def test_most_likely_answer_and_related_are_shown_apart():
    turn = make_turn("TPM: 2.0 [1]\nRelated: Machine: Dell Optiplex 7040; TPM: 2.0 [2]")
    sections = [b["text"]["text"] for b in answer_blocks(turn, PAGES) if b["type"] == "section"]
    assert sections[0] == "*Most likely answer*\nTPM: 2.0 <https://w.example/101|[1]>"
    assert sections[1] == (
        "*Related*\nMachine: Dell Optiplex 7040; TPM: 2.0 <https://w.example/102|[2]>"
    )


EVIDENCES = [
    {"id": "e1", "page_id": "101", "title": EVIL_TITLE, "url": "https://w.example/101"},
    {"id": "e2", "page_id": "101", "title": EVIL_TITLE, "url": "https://w.example/101"},
    {"id": "e3", "page_id": "102", "title": "Second", "url": "https://w.example/102"},
    {"id": "e4", "page_id": "103", "title": "Third", "url": "https://w.example/103"},
]
HEADINGS = {"e1": "Limits", "e2": "Limits", "e3": "Intro > Meals"}


def test_explanation_message():
    explanation = Explanation(
        method="counterfactual",
        question="q",
        answer="a",
        clusters=[
            ClusterShare(1, [1, 2], ["e1", "e2"], 0.4, 0.521),
            ClusterShare(2, [3], ["e3"], 0.38, 0.479),
            ClusterShare(3, [4], ["e4"], 0.0, 0.0),
        ],
    )
    sources = named_sources("From Second [3] and the first [2][1].", EVIDENCES, HEADINGS)
    blocks = explanation_blocks(explanation, sources)
    title = f"Limits (&lt;!channel&gt; {Z}*Pwned*{Z} &amp; &lt;@U0EVE&gt;)"
    assert blocks[0]["text"]["text"] == (
        f"*Why this answer*\n<https://w.example/101|{title}> [2][3] shaped 52% of this answer."
        " <https://w.example/102|Meals (Second)> [1] shaped 48%."
    )
    lines = blocks[-1]["text"]["text"].splitlines()
    assert lines == [
        f"`▇▇▇▇▇░░░░░` 52.1%  [2] <https://w.example/101|{title}>,"
        f" [3] <https://w.example/101|{title}>",
        "`▇▇▇▇▇░░░░░` 47.9%  [1] <https://w.example/102|Meals (Second)>",
        "_1 other source group: no effect on the answer._",
    ]
    assert explanation_text(explanation, sources) == (
        f"Why this answer: {title} shaped 52% of this answer. Meals (Second) shaped 48%."
    )


def test_explanation_names_uncited_sources_without_linking_them():
    explanation = Explanation(
        "counterfactual",
        "q",
        "a",
        [ClusterShare(1, [3], ["e3"], 0.5, 0.8), ClusterShare(2, [4], ["e4"], 0.1, 0.2)],
    )
    sources = named_sources("Das Essen [3].", EVIDENCES, HEADINGS)
    blocks = explanation_blocks(explanation, sources, "de")
    assert blocks[0]["text"]["text"] == (
        "*Warum diese Antwort*\nDiese Antwort stammt aus einer Quelle:"
        " <https://w.example/102|Meals (Second)> [1]. Sie hat 80 % der Antwort bestimmt;"
        " nicht zitierte Abschnitte den Rest."
    )
    assert blocks[-1]["text"]["text"].splitlines()[1] == (
        "`▇▇░░░░░░░░` 20.0%  Third _(nicht zitiert)_"
    )
    assert "w.example/103" not in str(blocks)


def test_explanation_with_nothing_attributed():
    explanation = Explanation("counterfactual", "q", "a", [ClusterShare(1, [1], ["e1"], 0.0, 0.0)])
    sources = named_sources("a [1]", [{"title": "T", "url": "https://w.example/1"}], {})
    blocks = explanation_blocks(explanation, sources)
    assert blocks[0]["text"]["text"] == (
        "*Why this answer*\nThis answer came from one source: <https://w.example/1|T> [1]."
        " Leaving out any one source did not change this answer, so no source stands out."
    )


def test_chit_chat_gets_the_help_text_alone():
    turn = dataclasses.replace(make_turn("Hi! I answer <questions>."), small_talk="greeting")
    turn = dataclasses.replace(turn, evidences=[], citations=[])
    (block,) = answer_blocks(turn)
    assert block["type"] == "section" and block["text"]["text"] == "Hi! I answer &lt;questions&gt;."


def test_a_corrected_question_says_what_was_searched_for():
    turn = dataclasses.replace(make_turn("It happened [1]."), corrections={"thne": "then"})
    head = answer_blocks(turn)[0]["elements"][0]["text"]
    assert head.startswith("_Searching for:_ What happened") and head.endswith("(thne → then)")


def test_answering_line_only_when_the_completed_question_differs():
    turn = make_turn("Sophie Brandt [1]")
    head = answer_blocks(turn)[0]["elements"][0]["text"]
    assert head.startswith("_Answering:_ What happened")
    turn.completed_question = turn.question
    assert "Answering" not in str(answer_blocks(turn))


def test_a_clarification_is_its_text_alone():
    turn = make_turn("Week 3 of what? Please ask the whole question.")
    turn.evidences, turn.citations, turn.clarification = [], [], True
    (block,) = answer_blocks(turn)
    assert block["text"]["text"] == "Week 3 of what? Please ask the whole question."


# --------------------------------------------------------------------------- private answers
def action_ids(blocks: list[dict]) -> list[str]:
    return [e["action_id"] for b in blocks if b["type"] == "actions" for e in b["elements"]]


def test_private_answer_has_share_instead_of_explain():
    turn = make_turn("It happened [1].")
    blocks = private_answer_blocks(turn, PAGES, thread="1.1")
    head = blocks[0]["elements"][0]["text"]
    assert head.startswith("Only you can see this answer") and head.endswith("and then?")
    assert action_ids(blocks) == [SHARE_ACTION, FEEDBACK_UP_ACTION, FEEDBACK_DOWN_ACTION]
    assert blocks[-1]["elements"][0]["value"] == "42:1.1"
    assert blocks[1:-1] == answer_blocks(turn, PAGES)[:-1]  # the answer as a mention gets it


def test_private_help_text_has_nothing_to_share():
    turn = dataclasses.replace(make_turn("Hi! Ask me."), small_talk="greeting")
    turn = dataclasses.replace(turn, evidences=[], citations=[])
    assert SHARE_ACTION not in action_ids(private_answer_blocks(turn))


def test_long_private_and_shared_answers_keep_their_buttons_within_the_limit():
    paragraph = "A long paragraph about the build & the tests [1]. " * 40
    turn = make_turn("\n\n".join([paragraph] * 200))
    for blocks in (private_answer_blocks(turn, PAGES), shared_answer_blocks(turn, "U0ALICE")):
        assert len(blocks) == MAX_BLOCKS and blocks[-1]["type"] == "actions"


@pytest.mark.parametrize(
    ("user", "expected"),
    [("U0ALICE", "<@U0ALICE> asked: and then?"), ("<!channel>", "Someone asked: and then?")],
)
def test_shared_answer_names_who_asked(user, expected):
    blocks = shared_answer_blocks(make_turn("It happened [1]."), user)
    assert blocks[0]["elements"][0]["text"] == expected
    assert EXPLAIN_ACTION in action_ids(blocks)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What does BATS stand for?", True),
        ("how do I enable BATS", True),
        ("Wie aktiviere ich BATS", True),
        ("BATS is enabled in local.conf, right?", True),
        ("any ideas?", False),  # too short to search for
        ("BATS is great, thanks all", False),
        ("Whatever works for you", False),
    ],
)
def test_looks_like_question(text, expected):
    assert looks_like_question(text) is expected


def test_home_view_lists_spaces_questions_and_settings():
    view = home_view(
        {"ENG": 120, "HR": 1},
        [
            Asked("What is <!here> BATS?", "2026-11-26", False),
            Asked("Who won?", "2026-11-25", True),
        ],
        ["*Auto-answers*: off; I answer only when asked."],
    )
    assert view["type"] == "home"
    text = "\n".join(b["text"]["text"] for b in view["blocks"] if b["type"] == "section")
    assert "121 pages in 2 spaces:\n• *ENG*: 120 pages\n• *HR*: 1 page" in text
    assert "• What is &lt;!here&gt; BATS? _(2026-11-26)_" in text
    assert "• Who won? _(2026-11-25, not found in the wiki)_" in text
    assert "*Auto-answers*: off" in text


def test_the_home_settings_name_each_channels_scope():
    settings = Settings.load(
        environ={"CONFBOT_SLACK_CHANNEL_SCOPES": "C0123=label:runbook;*=root:<!here>"}
    )
    text = "\n".join(settings_lines(settings))
    assert "*Labels and page trees searched* per channel: <#C0123>: label:runbook," in text
    assert "every other channel: root:&lt;!here&gt;." in text


def test_home_view_of_an_empty_index():
    text = str(home_view({}, [], []))
    assert "Nothing is indexed yet" in text and "haven't asked me anything" in text
