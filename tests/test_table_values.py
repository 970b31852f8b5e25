"""Answers over several rows of a table (`core.compose.column_values`, `any_verdict`) and
a yes/no row decided by the cell that denies what is asked (`core.spans`), English and
German, on small evidences: a value spread over rows is listed whole, each value cited."""

from __future__ import annotations

import pytest

from core.compose import compose
from core.spans import best_spans

LAPTOPS = "Laptop Rollout Tests — Results"
LAPTOP_ROWS = (
    # (row, machine, boot, kernel, result, notes)
    (2, "Lenovo X1", "UEFI", "5.15", "Pass", "Battery test ran"),
    (3, "Lenovo X1", "Legacy", "5.15", "Pass", "Did not run battery tests"),
    (4, "Lenovo X1", "UEFI", "6.1", "Pass", "-"),
    (5, "Framework 13", "UEFI", "6.1", "Pass", "Battery test ran"),
    (7, "Framework 13", "UEFI", "6.1", "Blocked", "-"),
)


def row(number: int, machine: str, boot: str, kernel: str, result: str, notes: str) -> str:
    return (
        f"Row {number} in Table 1: Machine is {machine}, Boot mode is {boot}, Kernel is"
        f" {kernel}, Result is {result}, and Notes is {notes}"
    )


def laptop_sources(rows=LAPTOP_ROWS, header: str = LAPTOPS):
    """Each row as a row evidence of its own, as retrieval returns them."""
    return [(n, header, row(*r)) for n, r in enumerate(rows, start=1)]


def answer(question: str, sources, translations=()) -> str | None:
    composed = compose(question, sources, translations)
    return composed.text if composed else None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which kernels were used in the laptop rollout tests?",
            "The Kernel values in Laptop Rollout Tests are 5.15 [1][2] and 6.1 [3][4][5] (from rows"
            " 2–5 and 7 of the table found).",
        ),
        (
            "Welche Kernel wurden in den Laptop Rollout Tests verwendet?",
            "Die Werte von Kernel in Laptop Rollout Tests sind 5.15 [1][2] und 6.1 [3][4][5]"
            " (aus den gefundenen Zeilen 2–5 und 7 der Tabelle).",
        ),
        (
            # the rows of the machine named, not those of another
            "What were the boot modes used with the Lenovo X1 in the rollout tests?",
            "The Boot mode values for Lenovo X1 in Laptop Rollout Tests are UEFI [1][3] and"
            " Legacy [2] (from rows 2–5 and 7 of the table found).",
        ),
        (
            # two machines joined by "and": the rows of either
            "Which kernels were used with the Lenovo X1 and the Framework 13?",
            "The Kernel values for Lenovo X1 and Framework 13 in Laptop Rollout Tests are"
            " 5.15 [1][2] and 6.1 [3][4][5] (from rows 2–5 and 7 of the table found).",
        ),
    ],
)
def test_the_values_of_a_column_over_the_rows_asked_about(question, expected):
    assert answer(question, laptop_sources()) == expected


def test_one_value_or_a_named_filter_is_left_to_the_best_span():
    # the Framework rows hold one boot mode: the row span answers
    assert answer("What boot modes were used with the Framework 13?", laptop_sources()) is None
    # "Which Lenovo machines": the values must name Lenovo, a filter, not a column's values
    assert answer("Which Lenovo machines were tested?", laptop_sources()) is None
    # values that differ in every row: the rows, listed, answer (a key column)
    keyed = [
        (n, "Rollout — Endpoints", f"Row {n} in Table 1: Endpoint is /v{n}/x, Limit is {n}0")
        for n in (1, 2, 3)
    ]
    assert answer("Which endpoints have limits?", keyed) is None
    # a singular ask wants one value
    assert answer("Which kernel was used with the Framework 13?", laptop_sources()) is None


def test_a_part_of_a_two_part_question_lists_no_column():
    # the first part ("Which boot modes?") lacks the machine the second part names
    text = answer(
        "Which boot modes and which kernels were used for the Framework 13?", laptop_sources()
    )
    assert text is None or "Legacy" not in text


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Did any machine fail the laptop rollout tests?",
            "No: none of the 5 rows found in Laptop Rollout Tests failed (Result: Pass"
            " [1][2][3][4] and Blocked [5]) (from rows 2–5 and 7 of the table found).",
        ),
        (
            "Hat irgendeine Maschine die Laptop Rollout Tests nicht bestanden?",
            "Nein: keine der 5 gefundenen Zeilen in Laptop Rollout Tests ist fehlgeschlagen"
            " (Result: Pass [1][2][3][4] und Blocked [5]) (aus den gefundenen Zeilen 2–5 und 7"
            " der Tabelle).",
        ),
    ],
)
def test_no_row_failed(question, expected):
    assert answer(question, laptop_sources()) == expected


def test_the_rows_that_failed_answer_yes():
    rows = [*LAPTOP_ROWS[:4], (7, "Framework 13", "UEFI", "6.1", "Fail", "Hangs on resume")]
    text = answer("Did any laptop fail the rollout tests?", laptop_sources(rows))
    assert text == (
        "Yes: Framework 13 (Result: Fail) [5] (from rows 2–5 and 7 of the table found)."
    )
    german = answer(
        "Ist irgendein Laptop in den Rollout Tests fehlgeschlagen?", laptop_sources(rows)
    )
    assert german.startswith("Ja: Framework 13 (Result: Fail) [5]")


def test_any_without_a_verdict_column_or_pass_words_composes_nothing():
    assert answer("Did any laptop use UEFI in the rollout tests?", laptop_sources()) is None
    sources = [(1, "Team Directory — Leads", "Row 1 in Table 1: Team is Payments, Lead is Ana")]
    assert answer("Did any team fail the audit?", sources) is None


@pytest.mark.parametrize(
    "question",
    [
        "Was a battery test run for the Lenovo X1 with Legacy boot in the laptop rollout tests?",
        "Wurde ein Battery Test für das Lenovo X1 mit Legacy Boot in den Rollout Tests gemacht?",
    ],
)
def test_a_yes_no_row_is_decided_by_the_cell_that_denies_it(question):
    (number, span), *_ = best_spans(question, laptop_sources())
    assert (span.answer, span.label) == ("No", "Notes: Did not run battery tests")
    assert number == 2


def test_a_question_asked_with_a_negation_is_not_denied_by_a_cell():
    question = "Was the battery test not run for the Lenovo X1 with Legacy boot?"
    (_, span), *_ = best_spans(question, laptop_sources())
    assert span.label != "Notes: Did not run battery tests" or span.answer != "No"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Were more Lenovo laptops tested, or Framework laptops, in the rollout tests?",
            "More Lenovo (3: Lenovo X1 [1], Lenovo X1 [2] and Lenovo X1 [3]) than Framework (2:"
            " Framework 13 [4] and Framework 13 [5]) (from rows 2–5 and 7 of the table found).",
        ),
        (
            "Wurden mehr Framework oder Lenovo Laptops in den Rollout Tests getestet?",
            "Mehr Lenovo (3: Lenovo X1 [1], Lenovo X1 [2] und Lenovo X1 [3]) als Framework (2:"
            " Framework 13 [4] und Framework 13 [5]) (aus den gefundenen Zeilen 2–5 und 7 der"
            " Tabelle).",
        ),
    ],
)
def test_which_of_two_kinds_of_rows_a_table_holds_more_of(question, expected):
    assert answer(question, laptop_sources()) == expected


def test_more_of_two_kinds_needs_rows_of_each_and_no_verdict():
    # no row names Dell: nothing to compare
    assert answer("Were more Lenovo or Dell laptops tested?", laptop_sources()) is None
    # failures per kind would need each row's verdict
    assert answer("Did more Lenovo or Framework laptops fail?", laptop_sources()) is None


MACHINES_DE = (("maschinen", ("machine", "machines")),)


@pytest.mark.parametrize(
    ("question", "translations", "expected"),
    [
        (
            "Were any other machines tested besides the Lenovo X1 and the Framework 13?",
            (),
            "No: Machine is only Lenovo X1 [1][2][3] and Framework 13 [4][5] (from rows 2–5 and"
            " 7 of the table found).",
        ),
        (
            "Wurden neben dem Lenovo X1 und dem Framework 13 noch andere Maschinen getestet?",
            MACHINES_DE,
            "Nein: Machine ist nur Lenovo X1 [1][2][3] und Framework 13 [4][5] (aus den"
            " gefundenen Zeilen 2–5 und 7 der Tabelle).",
        ),
    ],
)
def test_no_other_values_of_a_column_besides_those_named(question, translations, expected):
    assert answer(question, laptop_sources(), translations) == expected


@pytest.mark.parametrize(
    ("question", "translations", "expected"),
    [
        (
            # the verb left out, the names written in lower case as a user types them
            "any other machines besides the lenovo x1 and framework 13 in these tests?",
            (),
            "No: Machine is only Lenovo X1 [1][2][3] and Framework 13 [4][5] (from rows 2–5 and"
            " 7 of the table found).",
        ),
        (
            "Noch andere Maschinen außer dem Lenovo X1 und dem Framework 13?",
            MACHINES_DE,
            "Nein: Machine ist nur Lenovo X1 [1][2][3] und Framework 13 [4][5] (aus den"
            " gefundenen Zeilen 2–5 und 7 der Tabelle).",
        ),
    ],
)
def test_other_values_asked_without_the_verb(question, translations, expected):
    assert answer(question, laptop_sources(), translations) == expected


def test_lower_case_names_count_only_when_the_table_writes_them_as_names():
    # "tests" is no name in the table: nothing is named besides, nothing composed
    assert answer("any other machines besides tests?", laptop_sources()) is None


def test_other_values_of_a_column_answer_yes():
    rows = [*LAPTOP_ROWS, (8, "Dell XPS 13", "UEFI", "6.1", "Pass", "-")]
    text = answer("Were other machines tested besides the Lenovo X1?", laptop_sources(rows))
    assert text == (
        "Yes: Machine Framework 13 [4][5] and Dell XPS 13 [6] (from rows 2–5 and 7–8 of the"
        " table found)."
    )
    # no column named, or no value of it named: nothing composed
    assert answer("Were other tests run besides the Lenovo X1?", laptop_sources(rows)) is None
    assert answer("Were other machines tested besides the Acer?", laptop_sources(rows)) is None


def test_rows_gathered_for_a_plural_which_by_the_names_they_share():
    rows = [
        (2, "Lenovo X1", "UEFI", "5.15", "Pass", "BUG-12. Sleep issue with the lid closed"),
        (3, "Framework 13", "UEFI", "6.1", "Pass", "BUG-12. Fixed by a firmware update"),
        (4, "Dell XPS 13", "UEFI", "6.1", "Pass", "BUG-40. Sleep issue"),
    ]
    question = "For which machines did we face the BUG-12 issue in the rollout tests?"
    (number, span), *_ = best_spans(question, laptop_sources(rows))
    # "issue" in the first row's notes does not exclude the other BUG-12 row
    assert {span.answer, *(value for _, value in span.parts)} == {"Lenovo X1", "Framework 13"}


def test_rows_counted_by_a_bare_name_are_called_by_their_label():
    rows = [
        (1, "Lenovo X1", "UEFI", "5.15", "Pass", "-"),
        (2, "Framework 13", "UEFI", "6.1", "Pass", "-"),
        (3, "Dell XPS 13", "Legacy", "6.1", "Pass", "-"),
    ]
    text = answer("Were more machines booted with UEFI or Legacy?", laptop_sources(rows))
    assert text == (
        "More UEFI (2: Lenovo X1 [1] and Framework 13 [2]) than Legacy (1: Dell XPS 13 [3])"
        " (from rows 1–3 of the table found)."
    )


def test_a_no_over_the_verdict_column_quotes_another_cell_that_says_it():
    # Stable-9 rc1 (issue 35): no Result says FAIL, but a notes cell does ("Power: FAIL");
    # "none of the rows failed" would deny what the page states.
    rows = [*LAPTOP_ROWS[:4], (7, "Framework 13", "UEFI", "6.1", "PWE", "Power: FAIL - OXT-1591 x")]
    text = answer("Did any machine fail the laptop rollout tests?", laptop_sources(rows))
    assert text == (
        "No: no Result of the 5 rows found in Laptop Rollout Tests says failed (Result: Pass"
        ' [1][2][3][4] and PWE [5]), but a Notes cell says "Power: FAIL - OXT-1591" [5] (from'
        " rows 2–5 and 7 of the table found)."
    )
    german = answer(
        "Hat irgendeine Maschine die Laptop Rollout Tests nicht bestanden?", laptop_sources(rows)
    )
    assert german.startswith(
        "Nein: kein Result der 5 gefundenen Zeilen in Laptop Rollout Tests ist fehlgeschlagen"
    )
    assert "eine Zelle Notes sagt „Power: FAIL - OXT-1591“ [5]" in german


def test_a_no_over_a_whole_table_needs_no_scope_words():
    # The whole table is one source that closes it: "none of the rows" is said of all of it;
    # over part of a table the No counts the rows it read (issue 35).
    rows = "\n".join(
        row(n, machine, "UEFI", "6.1", "Pass", "-")
        for n, machine in enumerate(("Lenovo X1", "Framework 13", "Dell XPS 13"), start=1)
    )
    whole = [(1, LAPTOPS, f"Table 1: Machine, Boot mode, Kernel, Result, Notes\n{rows}")]
    assert answer("Did any machine fail the laptop rollout tests?", whole) == (
        "No: none of the rows in Laptop Rollout Tests failed (Result: Pass [1])."
    )
    german = answer("Hat irgendeine Maschine die Laptop Rollout Tests nicht bestanden?", whole)
    assert german.startswith("Nein: keine der Zeilen in Laptop Rollout Tests")


GPU = "Stable-9 rc2 — Test Matrix"


def gpu_sources(results):
    """GPU rows (one per OS), each with a Result or none (not run), as row evidences."""
    out = []
    for n, (os_version, result) in enumerate(results, start=1):
        cells = f"Test is GPU pass through with Heaven, OS Version is {os_version}"
        if result:
            cells += f", and Result is {result}"
        out.append((n, GPU, f"Row {n + 10} in Table 1: {cells}"))
    out.append(
        (
            9,
            GPU,
            "Row 30 in Table 1: Test is Install Ubuntu, OS Version is Ubuntu, and Result is Pass",
        )
    )
    return out


@pytest.mark.parametrize(
    ("question", "results", "expected"),
    [
        (
            # every filled verdict of the rows asked about says pass; the rows with none
            # (not run) are said apart, and the Yes is said of the rows found (issue 35)
            "Did all GPU pass through tests with Heaven and Windows 10 pass in Stable-9 rc2?",
            [("Windows 10 1803", ""), ("Windows 10 1809", "Pass"), ("Windows 10 1803", "Pass")],
            "Yes: the 2 rows found with a Result in Stable-9 rc2 passed (Result: Pass [2][3]);"
            " 1 row found has no Result [1] (from rows 11–13 of the table found).",
        ),
        (
            "Haben alle GPU pass through Tests mit Heaven und Windows 10 in Stable-9 rc2"
            " bestanden?",
            [("Windows 10 1803", ""), ("Windows 10 1809", "Pass"), ("Windows 10 1803", "Pass")],
            "Ja: die 2 gefundenen Zeilen mit Result in Stable-9 rc2 sind bestanden (Result:"
            " Pass [2][3]); 1 gefundene Zeile hat kein Result [1] (aus den gefundenen Zeilen"
            " 11–13 der Tabelle).",
        ),
        (
            # passing said as the results' adjective
            "Haben alle GPU pass through Tests mit Heaven und Windows 10 zu bestandenen"
            " Resultaten in Stable-9 rc2 geführt?",
            [("Windows 10 1809", "Pass")],
            "Ja: die 1 gefundene Zeile mit Result in Stable-9 rc2 ist bestanden (Result: Pass"
            " [1]) (aus der gefundenen Zeile 11 der Tabelle).",
        ),
        (
            # one row that failed decides it
            "Did all GPU pass through tests with Heaven and Windows 10 pass in Stable-9 rc2?",
            [("Windows 10 1803", "Pass"), ("Windows 10 1809", "Fail OXT-12")],
            "No: GPU pass through with Heaven (Result: Fail OXT-12) [2].",
        ),
    ],
)
def test_all_rows_asked_about_passed(question, results, expected):
    assert answer(question, gpu_sources(results)) == expected


def test_all_is_not_said_where_a_verdict_decides_nothing_or_none_is_filled():
    question = "Did all GPU pass through tests with Heaven and Windows 10 pass in Stable-9 rc2?"
    unsure = [("Windows 10 1803", "Pass"), ("Windows 10 1809", "PWE")]
    assert not (answer(question, gpu_sources(unsure)) or "").startswith(("Yes", "No"))
    unrun = [("Windows 10 1803", ""), ("Windows 10 1809", "")]
    assert not (answer(question, gpu_sources(unrun)) or "").startswith(("Yes", "No"))
