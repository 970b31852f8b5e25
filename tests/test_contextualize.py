"""Contextualization: blocks in, evidences with their context out."""

from __future__ import annotations

import pytest

from core.contextualize import (
    ContextOptions,
    compose,
    contextualize,
    linearize_table,
    page_evidences,
    verbalize_row,
)
from core.extract import Block, ListItem
from core.limits import (
    MAX_EVIDENCE_WORDS,
    MAX_NAME_CHARS,
    MAX_PAGE_EMBED_UNITS,
    MAX_PAGE_EVIDENCES,
    MAX_WORD_CHARS,
    embed_units,
)
from core.pages import Page

PAGE = Page(id="42", space="DOC", title="Guide", url="https://wiki/42", body="")

HEADING = Block("heading", text="Setup", level=2)
INTRO = Block("passage", text="Install the tools first.")
TABLE = Block(
    "table",
    text="Member | Task\nAlice | Search\nBob | Ranking",
    header=("Member", "Task"),
    rows=(("Alice", "Search"), ("Bob", "Ranking")),
)
OUTRO = Block("passage", text="Then run the build.")
LIST = Block(
    "list",
    text="- a\n  - b",
    items=(ListItem(0, "a"), ListItem(1, "b")),
)
BLOCKS = [HEADING, INTRO, TABLE, OUTRO, LIST]
TABLE_TEXT = (
    "Table 1: Member, Task\n"
    "Row 1 in Table 1: Member is Alice, and Task is Search\n"
    "Row 2 in Table 1: Member is Bob, and Task is Ranking"
)


ROWS = [
    (("Member", "Task"), ("Alice", "Similarity function"), 2, 1,
     "Row 2 in Table 1: Member is Alice, and Task is Similarity function"),
    (("A", "B", "C"), ("x", "y", "z"), 1, 3, "Row 1 in Table 3: A is x, B is y, and C is z"),
    (("A", "B", "C", "D"), ("x", "y", "z", "w"), 1, 1,
     "Row 1 in Table 1: A is x, B is y, C is z, and D is w"),
    (("A",), ("x",), 1, 1, "Row 1 in Table 1: A is x"),
    (("A", "B", "C"), ("x", "", "z"), 4, 2, "Row 4 in Table 2: A is x, and C is z"),
    (("A", "B", "C"), ("", " ", "z"), 1, 1, "Row 1 in Table 1: C is z"),
    (("", ""), ("x", "y"), 1, 1, "Row 1 in Table 1: Column 1 is x, and Column 2 is y"),
    (("Name", ""), ("x", "y"), 1, 1, "Row 1 in Table 1: Name is x, and Column 2 is y"),
    (("A",), ("x", "y"), 1, 1, "Row 1 in Table 1: A is x, and Column 2 is y"),
    (("A", "B"), ("", ""), 1, 1, "Row 1 in Table 1:"),
]  # fmt: skip


@pytest.mark.parametrize("header, row, row_number, table_number, expected", ROWS)
def test_verbalize_row(header, row, row_number, table_number, expected):
    assert verbalize_row(header, row, row_number, table_number) == expected


HEADER = ("Name", "Role")
BODY = (("Alice", "Dev"), ("Bob", ""))
LINEARIZED = [
    ("verbalized", HEADER,
     "Table 3: Name, Role\nRow 1 in Table 3: Name is Alice, and Role is Dev\n"
     "Row 2 in Table 3: Name is Bob"),
    ("verbalized", ("", ""),
     "Table 3: Column 1, Column 2\nRow 1 in Table 3: Column 1 is Alice, and Column 2 is Dev\n"
     "Row 2 in Table 3: Column 1 is Bob"),
    ("piped", HEADER, "Name | Role\nAlice | Dev\nBob | "),
    ("piped", ("", ""), "Alice | Dev\nBob | "),
    ("markdown", HEADER, "| Name | Role |\n| --- | --- |\n| Alice | Dev |\n| Bob |  |"),
    ("markdown", ("", ""), "| Column 1 | Column 2 |\n| --- | --- |\n| Alice | Dev |\n| Bob |  |"),
    ("html", HEADER,
     "<table>\n<tr><th>Name</th><th>Role</th></tr>\n<tr><td>Alice</td><td>Dev</td></tr>\n"
     "<tr><td>Bob</td><td></td></tr>\n</table>"),
    ("html", ("", ""),
     "<table>\n<tr><td>Alice</td><td>Dev</td></tr>\n<tr><td>Bob</td><td></td></tr>\n</table>"),
    ("plain", HEADER, "Name Role\nAlice Dev\nBob"),
    ("plain", ("", ""), "Alice Dev\nBob"),
]  # fmt: skip


@pytest.mark.parametrize("style, header, expected", LINEARIZED)
def test_linearize_table(style, header, expected):
    assert linearize_table(header, BODY, style, 3) == expected


def test_linearizers_escape_their_markup():
    assert linearize_table(("a|b",), [("<x> & y",)], "markdown", 1) == (
        "| a\\|b |\n| --- |\n| <x> & y |"
    )
    assert linearize_table(("a",), [("<x> & y",)], "html", 1) == (
        "<table>\n<tr><th>a</th></tr>\n<tr><td>&lt;x&gt; &amp; y</td></tr>\n</table>"
    )


def test_unknown_linearizer_names_the_choices():
    with pytest.raises(ValueError, match="verbalized, piped, markdown, html, plain"):
        linearize_table(HEADER, BODY, "latex", 1)


@pytest.mark.parametrize(
    "change, choices",
    [({"linearizer": "latex"}, "verbalized, piped"), ({"indexing_mode": "cells"}, "rows, tables")],
)
def test_options_reject_unknown_choices(change, choices):
    with pytest.raises(ValueError, match=choices):
        ContextOptions().replace(**change)


def test_options_from_settings(settings):
    changed = settings.replace(
        context_title="false", context_after="no", context_words="7", linearizer="markdown",
        indexing_mode="rows",
    )  # fmt: skip
    assert ContextOptions.from_settings(changed) == ContextOptions(
        title=False, after=False, words=7, linearizer="markdown", indexing_mode="rows"
    )
    assert ContextOptions.from_settings(settings) == ContextOptions()


MODES = [
    ("both", ["passage", "table", "row", "row", "passage", "list"]),
    ("tables", ["passage", "table", "passage", "list"]),
    ("rows", ["passage", "row", "row", "passage", "list"]),
]


@pytest.mark.parametrize("mode, kinds", MODES)
def test_indexing_modes_ids_and_positions(mode, kinds):
    evidences = contextualize(PAGE, BLOCKS, ContextOptions(indexing_mode=mode))
    assert [e.kind for e in evidences] == kinds
    assert [e.position for e in evidences] == list(range(len(kinds)))
    assert [e.id for e in evidences] == [f"42#{i:04d}" for i in range(len(kinds))]
    assert {(e.page_id, e.space, e.url, e.title) for e in evidences} == {
        ("42", "DOC", "https://wiki/42", "Guide")
    }
    # A passage's neighbour is the table, indexed whole or not.
    assert evidences[-2].before == TABLE_TEXT.replace("\n", " ")


def test_evidences_text_heading_neighbours_and_metadata():
    evidences = contextualize(PAGE, BLOCKS)
    got = [(e.kind, e.text, e.heading, e.before, e.after, e.metadata) for e in evidences]
    table_flat = TABLE_TEXT.replace("\n", " ")
    assert got == [
        ("passage", "Install the tools first.", "Setup", "", table_flat, {}),
        ("table", TABLE_TEXT, "Setup", "Install the tools first.", "Then run the build.",
         {"table": 1}),
        ("row", "Row 1 in Table 1: Member is Alice, and Task is Search", "Setup",
         "Install the tools first.", "Then run the build.", {"table": 1, "row": 1}),
        ("row", "Row 2 in Table 1: Member is Bob, and Task is Ranking", "Setup",
         "Install the tools first.", "Then run the build.", {"table": 1, "row": 2}),
        ("passage", "Then run the build.", "Setup", table_flat, "- a - b", {}),
        ("list", "- a\n  - b", "Setup", "Then run the build.", "", {"depth_max": 1}),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "linearizer, row_text",
    [
        ("piped", "Member | Task\nAlice | Search"),
        ("plain", "Member Task\nAlice Search"),
        ("markdown", "| Member | Task |\n| --- | --- |\n| Alice | Search |"),
    ],
)
def test_rows_use_the_linearizer_with_their_header(linearizer, row_text):
    evidences = contextualize(PAGE, [TABLE], ContextOptions(linearizer=linearizer))
    assert evidences[1].text == row_text
    assert evidences[0].text == linearize_table(TABLE.header, TABLE.rows, linearizer, 1)


SWITCHES = [
    ({}, "Guide\nSetup\nInstall the tools first.\nThen run the build.\n- a - b"),
    ({"title": False}, "Setup\nInstall the tools first.\nThen run the build.\n- a - b"),
    ({"heading": False}, "Guide\nInstall the tools first.\nThen run the build.\n- a - b"),
    ({"before": False}, "Guide\nSetup\nThen run the build.\n- a - b"),
    ({"after": False}, "Guide\nSetup\nInstall the tools first.\nThen run the build."),
    ({"title": False, "heading": False, "before": False, "after": False}, "Then run the build."),
    ({"words": 2}, "Guide\nSetup\ntools first.\nThen run the build.\n- a"),
    ({"words": 0}, "Guide\nSetup\nThen run the build."),
]


@pytest.mark.parametrize("changes, expected", SWITCHES)
def test_context_switches(changes, expected):
    options = ContextOptions().replace(**changes)
    evidence = contextualize(PAGE, [HEADING, INTRO, OUTRO, LIST], options)[1]
    assert evidence.contextualized == expected
    assert compose(evidence, options) == expected
    # The raw parts are stored whatever is switched on.
    assert (evidence.title, evidence.heading, evidence.text) == (
        "Guide",
        "Setup",
        "Then run the build.",
    )


def test_neighbours_keep_the_near_end_of_long_text():
    first = Block("passage", text="one two three four five")
    last = Block("passage", text="six seven eight nine ten")
    middle = Block("passage", text="middle")
    evidences = contextualize(PAGE, [first, middle, last], ContextOptions(words=2))
    assert (evidences[1].before, evidences[1].after) == ("four five", "six seven")
    assert compose(evidences[1], ContextOptions(words=1)) == "Guide\nfive\nmiddle\nsix"


HEADINGS = [
    ([Block("heading", text="A", level=1), Block("heading", text="B", level=2)], "A > B"),
    ([Block("heading", text="A", level=1), Block("heading", text="B", level=3),
      Block("heading", text="C", level=2)], "A > C"),
    ([Block("heading", text="A", level=2), Block("heading", text="B", level=1)], "B"),
    ([Block("heading", text="A", level=2), Block("heading", text="B", level=2)], "B"),
    ([], ""),
]  # fmt: skip


@pytest.mark.parametrize("headings, path", HEADINGS)
def test_heading_is_the_path_of_open_headings(headings, path):
    evidences = contextualize(PAGE, [*headings, Block("passage", text="x")])
    (x,) = [e for e in evidences if e.text == "x"]
    assert x.heading == path


def H(level: int, text: str) -> Block:
    return Block("heading", text=text, level=level)


def P(text: str) -> Block:
    return Block("passage", text=text)


@pytest.mark.parametrize(
    ("blocks", "expected"),
    [
        # a space home page: "Goal" has nothing under it before the next h2
        (
            [H(1, "Home"), H(2, "Goal"), H(2, "Scope"), P("All of it.")],
            [("Goal", "Home"), ("All of it.", "Home > Scope")],
        ),
        ([H(2, "A"), P("a"), H(2, "End")], [("a", "A"), ("End", "")]),
        ([H(1, "A"), H(2, "B"), H(1, "C"), P("c")], [("B", "A"), ("c", "C")]),
        ([H(1, "Only")], [("Only", "")]),
        ([H(1, "A"), H(2, "B"), P("b")], [("b", "A > B")]),
    ],
)
def test_headings_with_nothing_under_them_are_kept(blocks, expected):
    evidences = contextualize(PAGE, blocks)
    assert [(e.text, e.heading) for e in evidences] == expected
    assert all(e.kind == "passage" for e in evidences)


def test_a_heading_too_long_for_context_is_also_an_evidence():
    long_heading = " ".join(["word"] * 100)
    evidences = contextualize(PAGE, [H(2, long_heading), P("body")])
    assert evidences[0].heading == long_heading[: MAX_NAME_CHARS - 1] + "…"
    assert evidences[1].text == long_heading


def test_every_evidence_is_bounded_and_no_text_is_lost_below_the_page_limit():
    long_list = "\n".join(f"- item {i} " + "word " * 30 for i in range(40))
    garbage = "x" * 50_000
    rows = tuple((f"r{i}", "v " * 20) for i in range(300))
    table = Block("table", text="", header=("Name", "Value"), rows=rows)
    blocks = [Block("list", text=long_list), P(garbage), table]
    evidences = contextualize(PAGE, blocks, ContextOptions(indexing_mode="tables"))
    for e in evidences:
        words = e.text.split()
        assert len(words) <= MAX_EVIDENCE_WORDS and max(map(len, words)) <= MAX_WORD_CHARS
    lists = [e.text for e in evidences if e.kind == "list"]
    assert len(lists) > 1 and "\n".join(lists) == long_list
    assert "".join(e.text for e in evidences if e.kind == "passage").replace(" ", "") == garbage
    tables = [e for e in evidences if e.kind == "table"]
    assert all(e.text.startswith("Table 1: Name, Value") for e in tables)
    assert " ".join(e.text for e in tables).count("Row ") == 300
    assert "Row 300 in Table 1: Name is r299" in tables[-1].text
    assert tables[0].metadata == {"table": 1, "parts": len(tables)}


def test_a_page_is_cut_at_the_evidence_limit_with_a_warning():
    blocks = [P(f"passage {i}") for i in range(MAX_PAGE_EVIDENCES + 5)]
    warnings: list[str] = []
    evidences = contextualize(PAGE, blocks, warnings=warnings)
    assert len(evidences) == MAX_PAGE_EVIDENCES
    assert evidences[-1].after == f"passage {MAX_PAGE_EVIDENCES}"
    assert any(f"cut after {MAX_PAGE_EVIDENCES} evidences" in w for w in warnings)
    assert contextualize(PAGE, blocks[:MAX_PAGE_EVIDENCES], warnings=(kept := [])) and kept == []


def test_a_page_is_cut_at_the_embedding_limit_with_a_warning():
    text = " ".join(["word"] * 190)  # 380 units
    blocks = [P(text) for _ in range(MAX_PAGE_EMBED_UNITS // 370)]
    warnings: list[str] = []
    evidences = contextualize(PAGE, blocks, warnings=warnings)
    assert len(evidences) < MAX_PAGE_EVIDENCES
    embedded = sum(embed_units(f"{e.title}\n{e.text}") for e in evidences)
    assert embedded <= MAX_PAGE_EMBED_UNITS < embedded + 390
    assert any("the rest is not indexed" in w for w in warnings)


@pytest.mark.parametrize(
    ("text", "units"),
    [("one two three", 6), ("x" * 400, 133), ("a " * 300, 600), ("y" * 10_000, 666)],
)
def test_embed_units(text, units):
    assert embed_units(text) == units


def test_long_names_are_cut_where_they_repeat():
    name = "N" * 5000
    table = Block("table", text="", header=(name,), rows=(("v",),))
    page = Page(id="9", space="S", title="T" * 5000, url="u", body="")
    evidences = contextualize(page, [table])
    assert all(len(e.contextualized) < 1000 for e in evidences)


def test_macro_title_extends_the_heading():
    blocks = [
        Block("heading", text="Setup", level=1),
        Block("passage", text="x", title="Details"),
        Block("passage", text="print(1)", language="python", title="run.py"),
        Block("passage", text="y"),
    ]
    evidences = contextualize(PAGE, blocks)
    assert [(e.heading, e.metadata) for e in evidences] == [
        ("Setup > Details", {}),
        ("Setup > run.py", {"language": "python"}),
        ("Setup", {}),
    ]


def test_long_passages_are_split_at_line_then_sentence_boundaries():
    sentence = "This sentence has exactly eight words in it."
    long_line = " ".join([sentence] * 30)  # 240 words on one line
    text = "\n".join(["short line here", long_line, "tail line"])
    evidences = contextualize(PAGE, [Block("passage", text=text)])
    chunks = [e.text for e in evidences]
    assert all(len(chunk.split()) <= MAX_EVIDENCE_WORDS for chunk in chunks)
    assert " ".join(" ".join(chunks).split()) == " ".join(text.split())
    assert chunks[0].startswith("short line here\nThis sentence")
    assert all(chunk.endswith(("in it.", "tail line")) for chunk in chunks)
    assert [e.kind for e in evidences] == ["passage"] * len(chunks)
    assert evidences[1].before == " ".join(chunks[0].split()[-40:])


def test_one_overlong_sentence_is_cut_every_bound_words():
    text = " ".join(f"w{i}" for i in range(450))
    chunks = [e.text for e in contextualize(PAGE, [Block("passage", text=text)])]
    assert [len(chunk.split()) for chunk in chunks] == [200, 200, 50]


def test_code_passages_split_only_at_lines():
    code = "\n".join(f"echo {i} one two three four five six seven eight" for i in range(40))
    chunks = [e.text for e in contextualize(PAGE, [Block("passage", text=code, language="sh")])]
    assert len(chunks) == 2
    assert "\n".join(chunks) == code


def test_page_evidences_extracts_then_contextualizes():
    body = (
        "<h1>Team</h1><p>Who does what.</p><table><tr><th>Member</th><th>Task</th></tr>"
        "<tr><td>Alice</td><td>Similarity function</td></tr></table><p>AT&T</p>"
    )
    page = Page(id="7", space="S", title="Roles", url="u", body=body)
    evidences, warnings = page_evidences(page, ContextOptions(indexing_mode="rows"))
    assert [(e.id, e.kind, e.text) for e in evidences] == [
        ("7#0000", "passage", "Who does what."),
        ("7#0001", "row", "Row 1 in Table 1: Member is Alice, and Task is Similarity function"),
        ("7#0002", "passage", "AT&T"),
    ]
    assert evidences[1].contextualized == (
        "Roles\nTeam\nWho does what.\n"
        "Row 1 in Table 1: Member is Alice, and Task is Similarity function\nAT&T"
    )
    assert warnings == ["escaped 1 stray '&'"]


def test_empty_page_has_no_evidences():
    assert page_evidences(Page(id="1", space="S", title="T", url="u", body="")) == (
        [],
        ["empty body"],
    )


def test_tables_are_numbered_in_page_order():
    second = Block("table", text="k\nv", header=("k",), rows=(("v",),))
    evidences = contextualize(PAGE, [TABLE, INTRO, second], ContextOptions(indexing_mode="rows"))
    assert [(e.text, e.metadata) for e in evidences][-1] == (
        "Row 1 in Table 2: k is v",
        {"table": 2, "row": 1},
    )
