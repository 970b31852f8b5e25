"""Table cells and rows said as sentences naming their subject, in English and German."""

from __future__ import annotations

import pytest

from core.cell_sentences import (
    cell_sentence,
    cells_sentence,
    column_words,
    extreme_sentence,
    item_sentence,
    lowered,
    naming_cell,
    row_cells,
    subject,
)

HARDWARE = "Platform: Dell Optiplex 7040; BIOS: 1.14.0; TPM: 2.0; Result: ML fail"


@pytest.mark.parametrize(
    ("column", "words"),
    [
        ("TPM", "TPM"),
        ("UEFI / OTA upgrade 8.0.1 → 9.0.0", "UEFI OTA upgrade 8.0.1 → 9.0.0"),
        ("On-call / Secondary", "On-call Secondary"),
        ("Hotel / Hotel per night", "Hotel per night"),  # a sub-header repeating its group
    ],
)
def test_a_header_path_is_read_as_words(column, words):
    assert column_words(column) == words


@pytest.mark.parametrize(
    ("value", "column", "about", "language", "names_row", "expected"),
    [
        ("2.0", "TPM", "Dell Optiplex 7040", "en", False, "The TPM for Dell Optiplex 7040 is 2.0."),
        ("2.0", "TPM", "Dell Optiplex 7040", "de", False, "TPM für Dell Optiplex 7040 ist 2.0."),
        (
            "Sophie Brandt",
            "On-call / Secondary",
            "Week 2, Payments",
            "en",
            False,
            "The On-call Secondary for Week 2, Payments is Sophie Brandt.",
        ),
        # the value names its row, picked by the question's cells
        (
            "Dell Optiplex 7050",
            "Platform",
            "ML fail",
            "en",
            True,
            "The Platform with ML fail is Dell Optiplex 7050.",
        ),
        (
            "Dell Optiplex 7050",
            "Platform",
            "ML fail",
            "de",
            True,
            "Platform mit ML fail ist Dell Optiplex 7050.",
        ),
        ("4.4.0", "Xen Version", "", "en", False, "The Xen Version is 4.4.0."),
        # the page's closing period is the sentence's
        ("Upgrade to self.", "Test", "Dell", "en", False, "The Test for Dell is Upgrade to self."),
        # a sentence-like value is quoted after "reads", not run on after "is"
        (
            "Host stress test will start and stop guest VMs for 120 hours",
            "Test Desc",
            "NOT TESTING",
            "en",
            True,
            "The Test Desc with NOT TESTING reads “Host stress test will start and stop guest VMs"
            " for 120 hours”.",
        ),
        (
            "Host stress test will start and stop guest VMs for 120 hours",
            "Test Desc",
            "NOT TESTING",
            "de",
            True,
            "Test Desc mit NOT TESTING lautet „Host stress test will start and stop guest VMs for"
            " 120 hours“.",
        ),
        # a value with its conditions is a value
        (
            "Mon–Fri 08:00–19:00; weekend access only if booked with reception",
            "Opening hours",
            "Bristol",
            "en",
            False,
            "The Opening hours for Bristol is Mon–Fri 08:00–19:00; weekend access only if booked"
            " with reception.",
        ),
        # a name of many words is a value
        (
            "Install Windows guest VM with Tools",
            "Test",
            "Dell",
            "en",
            False,
            "The Test for Dell is Install Windows guest VM with Tools.",
        ),
    ],
)
def test_a_cell_is_said_of_its_row_and_column(value, column, about, language, names_row, expected):
    assert cell_sentence(value, column, about, language, names_row=names_row) == expected


@pytest.mark.parametrize(
    ("value", "column", "about", "language", "expected"),
    [
        # a value counting the column's own noun: what the row has
        (
            "26 desks, book in Deskbird",
            "Desks",
            "Bristol",
            "en",
            "Bristol has 26 desks, book in Deskbird.",
        ),
        ("26 desks", "Desks", "Bristol", "de", "Bristol hat 26 desks."),
        ("1 desk", "Desks", "Lab", "en", "Lab has 1 desk."),
        # a count of another noun: the column frame
        ("12 robots", "Desks", "Lab", "en", "The Desks for Lab is 12 robots."),
        ("9", "People", "Robot Firmware", "en", "The People for Robot Firmware is 9."),
    ],
)
def test_a_count_of_the_columns_noun_is_what_the_row_has(value, column, about, language, expected):
    assert cell_sentence(value, column, about, language) == expected


@pytest.mark.parametrize(
    ("place", "language", "expected"),
    [
        (True, "en", "In Bristol, Whit Monday (Pfingstmontag) is Normal day."),
        (True, "de", "In Bristol ist Whit Monday (Pfingstmontag) Normal day."),
        (False, "en", "The Bristol for Whit Monday (Pfingstmontag) is Normal day."),
    ],
)
def test_a_column_named_as_a_place_is_said_as_where(place, language, expected):
    said = cell_sentence(
        "Normal day", "Bristol", "Whit Monday (Pfingstmontag)", language, place=place
    )
    assert said == expected


@pytest.mark.parametrize(
    ("row", "column", "key", "heading", "expected"),
    [
        # the question named the row
        (HARDWARE, "TPM", "Dell Optiplex 7040", "Results", ("TPM", "Dell Optiplex 7040", False)),
        # the cell is the row's name, picked by another cell
        (HARDWARE, "Platform", "ML fail", "Results", ("Platform", "ML fail", True)),
        # nothing named: the row's first cell names it
        (HARDWARE, "BIOS", "", "Results", ("BIOS", "Dell Optiplex 7040", False)),
        # a bare number names a row with its column
        (
            "Version: 2.5.1; Code freeze: 2026-10-22",
            "Code freeze",
            "",
            "",
            ("Code freeze", "Version 2.5.1", False),
        ),
        # the first cell itself, nothing named: the table's heading
        (
            "Xen Version: 4.4.0; Result: Pass",
            "Xen Version",
            "",
            "GPU tests",
            ("Xen Version", "GPU tests", False),
        ),
        # a row opening with its own header: the things compared are the columns
        (
            "Opening hours; Berlin: 07:00–21:00; Bristol: 08:00–19:00",
            "Bristol",
            "Opening hours",
            "Offices",
            ("Opening hours", "Bristol", False),
        ),
    ],
)
def test_the_subject_of_a_cell(row, column, key, heading, expected):
    assert subject(row, column, key, heading, "en") == expected


@pytest.mark.parametrize(
    ("cells", "language", "expected"),
    [
        ([("Model", "E7450")], "en", "E7450"),
        ([("Build", "6662")], "en", "Build 6662"),
        (
            [("Test Description", "Install Windows guest VM with Tools and drivers.")],
            "en",
            "Test Description “Install Windows guest VM with Tools and drivers”",
        ),
        (
            [
                (
                    "Testbeschreibung",
                    "Configure guest VM in multiple configurations with all the options on",
                )
            ],
            "de",
            "Testbeschreibung „Configure guest VM in multiple configurations with all the"
            " options …“",
        ),
        ([], "en", ""),
    ],
)
def test_a_row_is_named_by_its_first_cell(cells, language, expected):
    assert naming_cell(cells, language) == expected


@pytest.mark.parametrize(
    ("about", "language", "expected"),
    [
        ("Debian", "en", "For Debian, Stubdom is w/ and Tools is installation OK."),
        ("Debian", "de", "Für Debian gilt: Stubdom ist w/ und Tools ist installation OK."),
        ("", "en", "Stubdom is w/ and Tools is installation OK."),
    ],
)
def test_cells_of_a_row_are_said_of_its_name(about, language, expected):
    cells = [("Stubdom", "w/"), ("Tools", "installation OK")]
    assert cells_sentence(about, cells, language) == expected


def test_a_row_text_is_read_as_cells_with_a_value_holding_semicolons():
    row = "Endpoint: POST /token; Why: Tokens are valid for 60 minutes; cache them"
    assert row_cells(row) == [
        ("Endpoint", "POST /token"),
        ("Why", "Tokens are valid for 60 minutes; cache them"),
    ]
    assert row_cells("a sentence; Notes: x") == []


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The TPM is 2.0.", "the TPM is 2.0."),
        ("Für Dell gilt: INST ist Y.", "für Dell gilt: INST ist Y."),
        ("TPM für Dell ist 2.0.", "TPM für Dell ist 2.0."),  # a page's word stays
        ("In Bristol, Whit Monday is Normal day.", "in Bristol, Whit Monday is Normal day."),
    ],
)
def test_a_sentence_after_yes_or_no_keeps_the_pages_words(sentence, expected):
    assert lowered(sentence) == expected


@pytest.mark.parametrize(
    ("names", "several", "highest", "language", "expected"),
    [
        ("Enterprise", False, True, "en", "Enterprise has the highest Burst (500)"),
        ("Starter and Team", True, False, "en", "Starter and Team have the lowest Burst (500)"),
        ("Enterprise", False, True, "de", "Den höchsten Wert bei Burst hat Enterprise (500)"),
        (
            "Starter und Team",
            True,
            False,
            "de",
            "Den niedrigsten Wert bei Burst haben Starter und Team (500)",
        ),
    ],
)
def test_the_row_with_the_extreme_amount_is_said_with_its_column(
    names, several, highest, language, expected
):
    assert extreme_sentence(names, several, "Burst", "500", highest, language) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "“Issues with switcher keys OXT-1569” is listed under Notes Test Data for Dell."),
        ("de", "„Issues with switcher keys OXT-1569“ steht unter Notes Test Data für Dell."),
    ],
)
def test_an_item_of_a_cell_is_said_with_its_column_and_row(language, expected):
    item = "Issues with switcher keys OXT-1569"
    assert item_sentence(item, "Notes / Test Data", "Dell", language) == expected


@pytest.mark.parametrize(
    ("cells", "language", "expected"),
    [
        (
            [("INST", "Y"), ("ML", "Y"), ("ML/S3", "Y")],
            "en",
            "For Dell E7450, INST, ML and ML/S3 are all Y.",
        ),
        ([("INST", "Y"), ("ML", "N")], "de", "Für Dell E7450 gilt: INST ist Y und ML ist N."),
        (
            [("INST", "Y"), ("FF", "L"), ("ML", "Y")],
            "de",
            "Für Dell E7450 gilt: INST und ML sind beide Y und FF ist L.",
        ),
        # one column twice ("Y/N") reads as two cells, not as "Y/N and Y/N"
        ([("Y/N", "Yes"), ("Y/N", "Yes")], "en", "For Dell E7450, Y/N is Yes and Y/N is Yes."),
    ],
)
def test_cells_of_one_mark_are_said_together(cells, language, expected):
    assert cells_sentence("Dell E7450", cells, language) == expected
