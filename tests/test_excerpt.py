"""Source excerpts (core/excerpt.py): evidences of each kind back to what the page shows,
the answer marked, on literal inputs."""

from __future__ import annotations

import pytest

from core.excerpt import MAX_ROWS, MAX_WORDS, Excerpt, Piece, answer_terms, excerpt

ROTA = (
    "Table 1: Week, Team, On-call / Primary, On-call / Secondary\n"
    "Row 1 in Table 1: Week is Week 1, Team is Payments, On-call / Primary is Anna Lee,"
    " and On-call / Secondary is Bob Ray\n"
    "Row 2 in Table 1: Week is Week 2, Team is Payments, On-call / Primary is Emre Yilmaz,"
    " and On-call / Secondary is Sophie Brandt\n"
    "Row 3 in Table 1: Week is Week 2, Team is Search, On-call / Primary is Li Wei,"
    " and On-call / Secondary is Tom Hart"
)
ROTA_HEADER = ("Week", "Team", "On-call / Primary", "On-call / Secondary")
WHO = "Who is the secondary on-call for the Payments team in week 2?"
SOPHIE = "The secondary on-call for Payments in week 2 is Sophie Brandt [1]."


def text(*pieces: tuple[str, bool] | str) -> Excerpt:
    """A text excerpt from literal pieces: a string, or (string, marked)."""
    return Excerpt(
        "text", pieces=tuple(Piece(p) if isinstance(p, str) else Piece(*p) for p in pieces)
    )


@pytest.mark.parametrize(
    ("evidence", "kind", "answer", "question", "expected"),
    [
        # a cited row: exactly that row, under its header, the answer's cell marked
        (
            "Row 2 in Table 1: Week is Week 2, Team is Payments, On-call / Primary is Emre"
            " Yilmaz, and On-call / Secondary is Sophie Brandt",
            "row",
            SOPHIE,
            WHO,
            Excerpt(
                "table",
                ROTA_HEADER,
                (("Week 2", "Payments", "Emre Yilmaz", "Sophie Brandt"),),
                frozenset({(0, 3)}),
            ),
        ),
        # a value holding commas and " and " stays one cell; empty cells are no columns
        (
            "Row 4 in Table 2: City is Munich, Dates is Mon 12 Oct – Mon 19 Oct,"
            " and Note is bring a, b and c",
            "row",
            "Bring a, b and c [1].",
            "What do I bring in Munich?",
            Excerpt(
                "table",
                ("City", "Dates", "Note"),
                (("Munich", "Mon 12 Oct – Mon 19 Oct", "bring a, b and c"),),
                frozenset({(0, 2)}),
            ),
        ),
        # a value that reads like "…, X is Y" stays in its cell: X is no column name
        (
            "Row 2 in Table 1: Patch is acpi.patch, and Comments is removes the vga device,"
            " which prevents S3 in a Windows guest. R: This one is really weird",
            "row",
            "acpi.patch [1]",
            "Which patch is weird?",
            Excerpt(
                "table",
                ("Patch", "Comments"),
                (
                    (
                        "acpi.patch",
                        "removes the vga device, which prevents S3 in a Windows guest."
                        " R: This one is really weird",
                    ),
                ),
                frozenset({(0, 0)}),
            ),
        ),
        # two columns named alike keep a cell each
        (
            "Row 1 in Table 4: Platform is Dell 9010, 9.0.2-pre is Pass, 9.0.1 is ?,"
            " and 9.0.2-pre is ?",
            "row",
            "Pass [1]",
            "Which tests did the Dell 9010 pass?",
            Excerpt(
                "table",
                ("Platform", "9.0.2-pre", "9.0.1", "9.0.2-pre"),
                (("Dell 9010", "Pass", "?", "?"),),
            ),
        ),
        # a table whose columns the page does not name has no header names
        (
            "Table 1: Column 1\nRow 1 in Table 1: Column 1 is All tickets are closed\n"
            "Row 2 in Table 1: Column 1 is Docs are reviewed",
            "table",
            "Docs are reviewed [1].",
            "What about the docs?",
            Excerpt("table", ("",), (("Docs are reviewed",),), frozenset({(0, 0)}), more_rows=1),
        ),
        # a whole table: the header and only the row holding the answer
        (
            ROTA,
            "table",
            SOPHIE,
            WHO,
            Excerpt(
                "table",
                ROTA_HEADER,
                (("Week 2", "Payments", "Emre Yilmaz", "Sophie Brandt"),),
                frozenset({(0, 3)}),
                more_rows=2,
            ),
        ),
        # a whole table whose rows do not hold the answer: those sharing the question's words
        (
            ROTA,
            "table",
            "No [1].",
            "Who is on call for Search?",
            Excerpt(
                "table", ROTA_HEADER, (("Week 2", "Search", "Li Wei", "Tom Hart"),), more_rows=2
            ),
        ),
        # a passage: the sentence holding the answer, the answer marked, ellipses for the rest
        (
            "Travel is booked in Concur. The hotel limit in Munich is €180 per night,"
            " breakfast included. Meals are extra.",
            "passage",
            "Hotel per night: €180 [2]",
            "What is the hotel limit in Munich?",
            text(
                "… ",
                "The hotel limit in Munich is ",
                ("€180 per night", True),
                ", breakfast included.",
                " …",
            ),
        ),
        # a time keeps its colon inside the mark; the first sentence has no leading ellipsis
        (
            "The handover is at 10:00 Berlin time. Swaps go to #sre.",
            "passage",
            "At 10:00 [1].",
            "When is the handover?",
            text("The handover is at ", ("10:00", True), " Berlin time.", " …"),
        ),
        # a German passage: the answer in it marked, the page's words kept
        (
            "Die Probezeit dauert sechs Monate. Danach gilt die Kündigungsfrist.",
            "passage",
            "Sechs Monate [1].",
            "Wie lange dauert die Probezeit?",
            text("Die Probezeit dauert ", ("sechs Monate", True), ".", " …"),
        ),
        # a sentence the answer quotes whole is the answer: nothing in it is marked
        (
            "Read the handbook. Set goals for your probation period with your manager.",
            "passage",
            "Set goals for your probation period with your manager [1].",
            "What do I do in my probation period?",
            text("… ", "Set goals for your probation period with your manager."),
        ),
        # a list: the item holding the answer, without its bullet
        (
            "- Laptop on day one\n- Badge from reception on day two\n- Buddy assigned",
            "list",
            "You get your badge from reception [1].",
            "Where do I get my badge?",
            text("… ", "Badge from ", ("reception", True), " on day two", " …"),
        ),
        # a sentence that is all answer is shown unmarked
        (
            "BATS stands for Bash Automated Testing System.",
            "passage",
            "BATS stands for Bash Automated Testing System [1].",
            "What does BATS mean?",
            text("BATS stands for Bash Automated Testing System."),
        ),
        # another linearizer's table text is shown as text, never parsed wrongly
        (
            "City | Hotel\nMunich | €180",
            "row",
            "€180 [1]",
            "Hotel in Munich?",
            text("… ", "Munich | ", ("€180", True)),
        ),
    ],
)
def test_excerpt(evidence, kind, answer, question, expected):
    assert excerpt(evidence, kind, answer, question) == expected


@pytest.mark.parametrize(
    "part",
    [
        "Table 1: Item, Who, Notes",  # only the header of a table split in parts
        "Table 1: Item, Who, Notes\nR: we keep it. M: OXT-590",  # a split row's tail
    ],
)
def test_a_part_of_a_split_table_never_shows_the_index_labels(part):
    found = excerpt(part, "table", "OXT-590 [1]", "Which ticket?")
    assert "Table 1" not in "".join(p.text for p in found.pieces)


def test_the_item_holding_the_answer_is_chosen_over_its_neighbours():
    found = excerpt(
        "- Laptop on day one\n- Badge from reception on day two\n- Buddy assigned",
        "list",
        "A buddy is assigned [1].",
        "Who helps me in my first week?",
    )
    assert "".join(p.text for p in found.pieces) == "… Buddy assigned"


def test_a_long_sentence_is_cut_around_the_answer():
    words = [f"w{i}" for i in range(100)]
    words[70] = "Sophie"
    found = excerpt(" ".join(words) + ".", "passage", "Sophie [1]", "Who?")
    shown = "".join(p.text for p in found.pieces)
    assert shown.startswith("… ") and shown.endswith(" …")
    assert len(shown.split()) == MAX_WORDS + 2  # and the two ellipses
    assert [p.text for p in found.pieces if p.marked] == ["Sophie"]


def test_a_whole_table_shows_at_most_max_rows():
    rows = "\n".join(f"Row {i} in Table 1: Name is Sam {i}, and Role is SRE" for i in range(1, 9))
    found = excerpt(f"Table 1: Name, Role\n{rows}", "table", "An SRE [1]", "Who are the staff?")
    assert len(found.rows) == MAX_ROWS and found.more_rows == 8 - MAX_ROWS
    assert found.rows[0] == ("Sam 1", "SRE")


@pytest.mark.parametrize(
    ("answer", "question", "expected"),
    [
        (SOPHIE, WHO, {"sophi", "brandt"}),
        ("€180 [2]", "What is the hotel limit?", {"180"}),
        ("Yes [1].", "Is it free?", {"yes"}),
    ],
)
def test_answer_terms_leave_out_what_the_question_says(answer, question, expected):
    assert answer_terms(answer, question) == expected
