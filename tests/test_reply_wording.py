"""Replies that read as one sentence a colleague would write, in English and German: a
count said with what it counts, a contracted question turned into a statement, a row named
by its naming cells only, an either/or question answered without Yes or No, and a Yes or
No supported by a clause rather than a heading, a command or a cut line."""

from __future__ import annotations

import pytest

from core.cell_sentences import naming_keys, subject
from core.compose import compose
from core.extractive import render
from core.phrasing import counted_list, either_or, statement, unverdicted
from core.spans import Span


@pytest.mark.parametrize(
    ("question", "value", "language", "expected"),
    [
        (
            "How many requests per minute does the Starter plan allow?",
            "120 [1]",
            "en",
            "The Starter plan allows 120 requests per minute [1].",
        ),
        (
            "How many desks does the Bristol office have?",
            "40 [2]",
            "en",
            "The Bristol office has 40 desks [2].",
        ),
        (
            "How many requests does the plan allow per minute?",
            "120 [1]",
            "en",
            "The plan allows 120 requests per minute [1].",
        ),
        (
            "How many people are in the SRE team?",
            "5 [1]",
            "en",
            "There are 5 people in the SRE team [1].",
        ),
        (
            "Wie viele Anfragen pro Minute erlaubt der Starter-Plan?",
            "120 [1]",
            "de",
            "Der Starter-Plan erlaubt 120 Anfragen pro Minute [1].",
        ),
        (
            "Wie viele Personen sind im SRE-Team?",
            "5 [1]",
            "de",
            "Im SRE-Team sind 5 Personen [1].",
        ),
        # the contracted copula: "What's" is "What is"
        (
            "What's the hotel limit in Amsterdam?",
            "€190 [1]",
            "en",
            "The hotel limit in Amsterdam is €190 [1].",
        ),
        (
            "Who’s the CTO?",
            "Dr. Tobias Albrecht [2]",
            "en",
            "The CTO is Dr. Tobias Albrecht [2].",
        ),
    ],
)
def test_counts_and_contractions_said_as_statements(question, value, language, expected):
    assert statement(question, value, language) == expected


@pytest.mark.parametrize(
    ("question", "value", "language"),
    [
        # a value with its own unit would say the unit twice
        ("How many map imports does the API allow?", "5 per hour per site [1]", "en"),
        # a singular counted noun reads "allows 500 burst"
        ("How many burst does the Enterprise plan allow?", "500 [1]", "en"),
        # no noun-phrase subject
        ("How many days of leave do I get?", "28 [1]", "en"),
        ("Wie viele Urlaubstage haben Mitarbeitende?", "28 [1]", "de"),
        # a clause in the subject
        ("How many tests does the team that owns it run?", "4 [1]", "en"),
    ],
)
def test_no_count_statement(question, value, language):
    assert statement(question, value, language) == ""


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        # a key cell whose words another holds: left out
        (["Site Reliability (SRE)", "#sre"], ["Site Reliability (SRE)"]),
        # an amount beside a named cell: left out
        (["Starter", "50,000 requests"], ["Starter"]),
        # two cells that name the row together: both kept
        (["Week 1", "Payments"], ["Week 1", "Payments"]),
        (["€190"], ["€190"]),
        # a channel sharing a word with the row's name before it: left out
        (["Robot Firmware", "#team-firmware"], ["Robot Firmware"]),
        # a channel that shares no word with the other key: kept
        (["Week 2", "#payments-de"], ["Week 2", "#payments-de"]),
    ],
)
def test_the_key_cells_that_name_a_row(keys, expected):
    assert naming_keys(keys) == expected


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_row_key_without_glued_cells(language):
    row = "Team: Site Reliability (SRE); Lead: Aisha Mensah; Slack channel: #sre; People: 5"
    assert subject(row, "People", "Site Reliability (SRE), #sre", "Teams", language) == (
        "People",
        "Site Reliability (SRE)",
        False,
    )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Were more versions of Dell Latitude tested, or HP EliteDesks?", True),
        ("were more latitudes compared or elitedesks?", True),
        ("Wurden mehr Latitudes verglichen oder EliteDesks?", True),
        ("Which OS led to the most failures - Windows or Linux?", True),
        ("Wird Überstunden ausgezahlt, oder in Freizeit ausgeglichen?", True),
        # a yes/no over a list of things, not a choice between two
        ("Do I need the VPN for Slack, Jira or Confluence?", False),
        ("Is there a git repo or a website?", False),
    ],
)
def test_either_or_questions(question, expected):
    assert either_or(question) is expected


def test_unverdicted():
    assert unverdicted("Yes: for Dell E7450, INST is Y.") == "For Dell E7450, INST is Y."
    assert unverdicted("Ja: für Dell E7450 gilt: INST ist Y.") == "Für Dell E7450 gilt: INST ist Y."
    assert unverdicted("The CTO is X.") == "The CTO is X."


def _span(answer: str, unit: str, kind: str = "sentence", label: str = "") -> Span:
    return Span(answer=answer, unit=unit, score=1.0, support=0.9, kind=kind, label=label)


ELITEDESK = "Vendor: HP; Model: EliteDesk 800 G2; INST: Y; UPG: Y"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("were more latitudes compared or elitedesks?", "For HP EliteDesk 800 G2, "),
        ("Wurden mehr Latitudes verglichen oder EliteDesks?", "Für HP EliteDesk 800 G2 gilt: "),
    ],
)
def test_an_either_or_question_is_not_answered_yes(question, expected):
    reply = render(question, [(1, _span("Yes", ELITEDESK, "row", "INST: Y"))], 0)
    assert reply.startswith(expected)
    assert not reply.startswith(("Yes", "Ja"))


def test_an_either_or_question_answered_by_a_sentence_says_the_sentence():
    said = "Overtime is compensated with time off within three months."
    reply = render(
        "Is overtime paid out, or compensated with time off?", [(2, _span("Yes", said))], 0
    )
    assert reply == f"{said} [2]"


@pytest.mark.parametrize(
    ("question", "yes"),
    [
        ("Is the architecture document finalized?", "Yes"),
        ("Ist das Architektur-Dokument fertiggestellt?", "Ja"),
    ],
)
@pytest.mark.parametrize(
    "fragment",
    [
        "Revision History of this Document",  # a heading
        "If the architecture document is finalized,",  # cut at a comma
        "Clone the architecture document repository:",  # a list intro
        "git clone https://example.org/architecture/document.git",  # a command
    ],
)
def test_a_yes_is_supported_by_a_clause_not_a_fragment(question, yes, fragment):
    clause = "The architecture document was finalized by the board in May."
    spans = [(1, _span("Yes", fragment)), (2, _span("Yes", clause))]
    assert render(question, spans, 0) == f"{yes}: {clause} [2]"


def test_a_fragment_stays_when_no_clause_is_as_much_about_the_question():
    fragment = "If the guest has more displays than the host,"
    spans = [(1, _span("Yes", fragment)), (2, _span("Yes", "Pinned displays stay attached."))]
    assert render("Can a guest have more displays than the host?", spans, 0) == (
        f"Yes: {fragment} [1]"
    )


HARDWARE = "OpenXT 7.0 Hardware Testing — Tested hardware"
HARDWARE_TABLE = (
    "Table 1: Vendor, Model, INST\n"
    "Row 1 in Table 1: Vendor is Dell, Model is Latitude E7470, and INST is Y\n"
    "Row 2 in Table 1: Vendor is Dell, Model is Latitude 7480, and INST is Y\n"
    "Row 3 in Table 1: Vendor is HP, Model is EliteDesk 800 G2, and INST is Y"
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("were more latitudes compared or elitedesks?", "More latitudes (2: "),
        ("Wurden mehr latitudes verglichen oder elitedesks?", "Mehr latitudes (2: "),
    ],
)
def test_more_of_which_with_names_written_in_lower_case(question, expected):
    composed = compose(question, [(1, HARDWARE, HARDWARE_TABLE)])
    assert composed is not None
    assert composed.text.startswith(expected)


@pytest.mark.parametrize(
    ("question", "column", "language", "expected"),
    [
        (
            "How many requests per minute does the Starter plan allow?",
            "Requests per minute",
            "en",
            "The Starter plan allows 120 requests per minute [1].",
        ),
        # the value is from another column than the one counted: no statement claims it
        ("How many requests per day does the Starter plan allow?", "Requests per minute", "en", ""),
        (
            "Wie viele Anfragen pro Minute erlaubt der Starter-Plan?",
            "Requests per minute",
            "de",
            "Der Starter-Plan erlaubt 120 Anfragen pro Minute [1].",
        ),
        ("Wie viele Anfragen pro Tag erlaubt der Starter-Plan?", "Requests per minute", "de", ""),
    ],
)
def test_a_count_is_said_with_the_question_noun_only_for_the_counted_column(
    question, column, language, expected
):
    assert statement(question, "120 [1]", language, column) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "3 items are listed: Targeted release, Last updates and Jira Epic"),
        ("de", "Aufgeführt sind 3 Einträge: Targeted release, Last updates und Jira Epic"),
    ],
)
def test_a_counted_list_of_fields_is_named_by_its_labels(language, expected):
    fields = "3: Targeted release: .neXT; Last updates:; Jira Epic: Will be filled in once approved"
    assert counted_list(fields, language) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "4 items are listed, among them Targeted release, Last updates and Jira Epic"),
        ("de", "Aufgeführt sind 4 Einträge, darunter Targeted release, Last updates und Jira Epic"),
    ],
)
def test_a_counted_list_of_fields_cut_short_names_some_without_an_ellipsis(language, expected):
    fields = "4: Targeted release: .neXT; Last updates:; Jira Epic: Will be filled in …"
    assert counted_list(fields, language) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "4 items are listed: Targeted release, Last updates, Jira Epic and Status"),
        ("de", "Aufgeführt sind 4 Einträge: Targeted release, Last updates, Jira Epic und Status"),
    ],
)
def test_a_counted_list_cut_short_is_listed_whole_from_the_uncut_list(language, expected):
    cut = "4: Targeted release: .neXT; Last updates:; Jira Epic: Will be filled in …"
    whole = "Targeted release: .neXT; Last updates:; Jira Epic: Will be filled in; Status: Draft"
    assert counted_list(cut, language, whole) == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "5 items are listed, among them Open and In Progress"),
        ("de", "Aufgeführt sind 5 Einträge, darunter Open und In Progress"),
    ],
)
def test_a_counted_list_of_plain_items_cut_short_names_the_whole_ones(language, expected):
    assert counted_list("5: Open; In Progress; Review by the …", language) == expected


def test_a_counted_list_of_plain_items_keeps_them():
    assert counted_list("3: Berlin; Bristol; Munich", "en") == (
        "3 items are listed: Berlin; Bristol; Munich"
    )


@pytest.mark.parametrize(
    "clause",
    [
        "The service desk is staffed 24/7 for the architecture document.",
        "Reviewers and/or owners finalized the architecture document.",
    ],
)
def test_a_clause_with_a_slash_is_no_command(clause):
    spans = [(1, _span("Yes", clause)), (2, _span("Yes", "The architecture document exists."))]
    assert render("Is the architecture document finalized?", spans, 0) == f"Yes: {clause} [1]"


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_row_keyed_by_a_channel_alone_is_named_by_its_first_cell(language):
    # "#team-payments" matched "team" of "Wer leitet das Team?": the row's name says which
    row = "Team: Payments; Lead: Chloe Whitfield; Slack channel: #team-payments; People: 4"
    assert subject(row, "Lead", "#team-payments", "Teams", language) == (
        "Lead",
        "Payments",
        False,
    )
