"""Composed answers over small evidences whose answer is known: counts of rows and list
items, filters with a threshold, pass/fail and "both", minimum and maximum, yes/no
comparisons, the steps of a list, in English and German; the questions that compose nothing;
which rows of a table are known; and a few questions end to end through the Assistant on
the sample wiki."""

from __future__ import annotations

import pytest

from core.answer import build_messages, split_answer
from core.compose import Composed, _counted, amount, compose, read_lists, read_tables
from core.extractive import ExtractiveLLM
from tests.fakes.evidence import make_evidence
from tests.test_spans import glossary_translations

HOTELS = "Travel Policy — Hotel and meal limits"
HOTEL_ROWS = [
    ("Berlin", "Germany", "€150", "€28"),
    ("Munich", "Germany", "€180", "€28"),
    ("Hamburg", "Germany", "€160", "€28"),
    ("London", "United Kingdom", "£220", "£45"),
    ("Any other city", "–", "€140 / £120", "€30 / £30"),
]


def hotel_table(rows=HOTEL_ROWS, first: int = 1) -> str:
    lines = ["Table 1: City, Country, Hotel per night, Meals per day"]
    for number, (city, country, hotel, meals) in enumerate(rows, start=first):
        lines.append(
            f"Row {number} in Table 1: City is {city}, Country is {country},"
            f" Hotel per night is {hotel}, and Meals per day is {meals}"
        )
    return "\n".join(lines)


def row_of(number: int) -> str:
    """Row `number` of the hotel table alone, as a row evidence gives it."""
    return hotel_table([HOTEL_ROWS[number - 1]], number).split("\n")[1]


MACHINES = "OpenXT 9.0.2 Measurement Test — Results"
MACHINE_TABLE = (
    "Table 1: Machine, BIOS, Legacy, EFI\n"
    "Row 1 in Table 1: Machine is Dell Latitude 7470, BIOS is 1.21.6, Legacy is Pass,"
    " and EFI is Pass\n"
    "Row 2 in Table 1: Machine is Dell Optiplex 7040, BIOS is 1.14.0, Legacy is Pass,"
    " and EFI is N/A\n"
    "Row 3 in Table 1: Machine is Dell Optiplex 7050, BIOS is 1.12.2, Legacy is Pass,"
    " and EFI is Pass\n"
    "Row 4 in Table 1: Machine is Dell Optiplex 7060, BIOS is 1.4.2, Legacy is Fail,"
    " and EFI is Pass"
)
TESTS = "OpenXT 9.0 Measurement Test — Test table > OpenXT 9.0.2 > Legacy"
TEST_TABLE = (
    "Table 2: Platform, TPM, OpenXT 9.0.2-pre, OTA to OpenXT 9.0.2, OTA to OpenXT 10.0.0-pre\n"
    "Row 1 in Table 2: Platform is Dell Optiplex 9010, TPM is 1.2, OpenXT 9.0.2-pre is Pass,"
    " OTA to OpenXT 9.0.2 is Pass, and OTA to OpenXT 10.0.0-pre is Fail\n"
    "Row 2 in Table 2: Platform is Dell Latitude 7470, TPM is 2.0, OpenXT 9.0.2-pre is Pass,"
    " OTA to OpenXT 9.0.2 is Fail, and OTA to OpenXT 10.0.0-pre is Pass"
)
ATTENDEES = "Community call 2015-07-23 — Attendees"
ATTENDEE_LIST = (
    "Attendees of the call:\n"
    "- Rich Persaud (BAH)\n"
    "- Christopher Clark (AIS)\n"
    "- Eric Chanudet (AIS)\n"
    "- Ross Philipson (AIS)\n"
    "- Jed Lejosne, Nick Krasnoff (AIS Boston)"
)
FEDORA = "Guest VM installation — Fedora"
FEDORA_STEPS = (
    "Steps to install a Fedora guest:\n"
    "- Download the netinst installer from the Fedora web site\n"
    "- Create a new guest with 2 GB of memory\n"
    "- Boot the guest from the installer"
)
TEAMS = "Team Directory — Teams"
TEAM_TABLE = (
    "Table 1: Team, Lead, Slack channel, People\n"
    "Row 1 in Table 1: Team is Payments, Lead is Chloe Whitfield, Slack channel is"
    " #team-payments, and People is 4\n"
    "Row 2 in Table 1: Team is Robot Firmware, Lead is Jonas Becker, Slack channel is"
    " #firmware, and People is 7\n"
    "Row 3 in Table 1: Team is Developer Experience, Lead is Felix Wagner, Slack channel is"
    " #devex, and People is 3"
)
ESCALATION = "Incident Response — Escalation"
ESCALATION_STEPS = (
    "- The primary is paged and must acknowledge within 5 minutes for SEV1.\n"
    "- If the page is not acknowledged within 10 minutes, PagerDuty pages the secondary.\n"
    "- After 20 minutes without acknowledgement, the team lead is called."
)
# German questions' words as the index translates them (`core.extractive.Translate`).
GERMAN = (
    ("hotellimit", ("hotel", "limit")),
    ("maschinen", ("machine", "machines")),
    ("städte", ("city", "cities")),
    ("teilnehmer", ("attendees", "attended")),
    ("getestet", ("tested",)),
)


def answer(question: str, sources, translations=()) -> str | None:
    composed = compose(question, sources, translations)
    return composed.text if composed else None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which cities have a hotel limit above 150 euros?",
            "Munich (€180) and Hamburg (€160); in another currency, not compared:"
            " London (£220) [1]",
        ),
        ("Which cities have a hotel limit below 160 euros?", "Berlin (€150); in another"),
        ("Which cities have a hotel limit of at least 160 euros?", "Munich (€180) and Hamburg"),
        ("Which city has the highest hotel limit?", "Munich: €180; London: £220 (Hotel per"),
        (
            "Which city in Germany has the highest hotel limit?",
            "Munich has the highest Hotel per night (€180)",
        ),
        ("Which city has the cheapest meals?", "Berlin, Munich and Hamburg: €28; London: £45"),
        ("Is the hotel limit in Munich higher than in Berlin?", "Yes: Munich €180 vs Berlin"),
        ("Is the hotel limit in Berlin higher than in Munich?", "No: Berlin €150 vs Munich"),
        ("Is the hotel limit in Hamburg lower than in Munich?", "Yes: Hamburg €160 vs Munich"),
        (
            "Is the hotel limit in London higher than in Berlin?",
            "London £220 vs Berlin €150 (Hotel per night); different currencies, so not"
            " directly comparable [1]",
        ),
        ("How many cities in Germany have a hotel limit?", "3 cities: Berlin, Munich and"),
        (
            "Welche Städte haben ein Hotellimit über 150 Euro?",
            "Munich (€180) und Hamburg (€160); in einer anderen Währung, nicht verglichen:",
        ),
        ("Welche Stadt hat das höchste Hotellimit?", "Munich: €180; London: £220"),
        ("Wie viele Städte haben ein Hotellimit?", "4 Städte: Berlin, Munich, Hamburg und"),
    ],
)
def test_rows_filtered_compared_and_counted_by_amount(question, expected):
    text = answer(question, [(1, HOTELS, hotel_table())], GERMAN)
    assert text is not None and text.startswith(expected)
    assert text.endswith("[1]")
    assert "Any other city" not in text  # the catch-all row is no city


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which machines were tested with both legacy and EFI?",
            "Dell Latitude 7470 and Dell Optiplex 7050 [1]",
        ),
        (
            "Which machines passed the legacy test?",
            "Dell Latitude 7470, Dell Optiplex 7040 and Dell Optiplex 7050 [1]",
        ),
        ("Which machines failed the legacy test?", "Dell Optiplex 7060 [1]"),
        ("How many machines passed the legacy test?", "3 machines: Dell Latitude 7470, Dell"),
        ("How many machines were tested with EFI?", "3 machines: Dell Latitude 7470, Dell"),
        (
            "Welche Maschinen wurden sowohl mit Legacy als auch mit EFI getestet?",
            "Dell Latitude 7470 und Dell Optiplex 7050 [1]",
        ),
        ("Wie viele Maschinen haben den Legacy Test bestanden?", "3 Maschinen: Dell Latitude"),
    ],
)
def test_rows_filtered_and_counted_by_pass_and_fail_cells(question, expected):
    assert answer(question, [(1, MACHINES, MACHINE_TABLE)], GERMAN).startswith(expected)


def test_a_machine_in_two_rows_that_meet_the_filter_is_named_once():
    table = MACHINE_TABLE + (
        "\nRow 5 in Table 1: Machine is Dell Optiplex 7060, BIOS is 1.5.0, Legacy is Fail,"
        " and EFI is Pass"
    )
    question = "Which machines failed the legacy test?"
    assert answer(question, [(1, MACHINES, table)], GERMAN).startswith("Dell Optiplex 7060 [1]")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which OpenXT 9.0.2 tests did Dell Optiplex 9010 pass for the legacy system?",
            "OpenXT 9.0.2-pre and OTA to OpenXT 9.0.2 [2]",
        ),
        ("Which tests did Dell 9010 fail?", "OTA to OpenXT 10.0.0-pre [2]"),
        (
            "Welche OpenXT Tests hat der Dell 9010 bestanden?",
            "OpenXT 9.0.2-pre und OTA to OpenXT 9.0.2 [2]",
        ),
    ],
)
def test_the_columns_a_named_row_passed(question, expected):
    # the test columns repeat the page's words (OpenXT 9.0.2), the "Legacy" condition not
    sources = [(1, HOTELS, hotel_table()), (2, TESTS, TEST_TABLE)]
    assert answer(question, sources) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "How many people attended the community call?",
            "6 people: Rich Persaud, Christopher Clark, Eric Chanudet, Ross Philipson, Jed"
            " Lejosne and Nick Krasnoff [3]",
        ),
        ("How many people from AIS attended the community call?", "5 people: Christopher"),
        (
            "How many people from Boston attended the call?",
            "2 people: Jed Lejosne and Nick Krasnoff [3]",
        ),
        ("Wie viele Teilnehmer hatte der Community Call?", "6 Teilnehmer: Rich Persaud"),
        ("Wie viele Personen nahmen aus Boston am Call teil?", "2 Personen: Jed Lejosne und"),
    ],
)
def test_list_items_counted(question, expected):
    text = answer(question, [(3, ATTENDEES, ATTENDEE_LIST)], GERMAN)
    assert text.startswith(expected) and text.endswith("[3]")


@pytest.mark.parametrize(
    "question",
    [
        "What are the steps to install a Fedora guest?",
        "Was sind die Schritte, um einen Fedora Gast zu installieren?",
    ],
)
def test_the_steps_of_a_short_list_joined_and_cited(question):
    text = answer(question, [(2, FEDORA, FEDORA_STEPS)], (("gast", ("guest",)),))
    assert text == (
        "(1) Download the netinst installer from the Fedora web site; (2) Create a new guest"
        " with 2 GB of memory; (3) Boot the guest from the installer [2]"
    )


@pytest.mark.parametrize(
    ("question", "sources"),
    [
        # no composition asked for
        ("What is the hotel limit in Berlin?", [(1, HOTELS, hotel_table())]),
        ("What is the highest hotel limit in Berlin?", [(1, HOTELS, hotel_table())]),
        ("Which machines ran OpenXT older than 9.0.2?", [(1, MACHINES, MACHINE_TABLE)]),
        ("Which BIOS version had the Dell Optiplex 7040?", [(1, MACHINES, MACHINE_TABLE)]),
        # a row with one pass/fail cell, and a "which X" that names rows, not columns
        (
            "Which result did Dell 9010 pass?",
            [(1, TESTS, TEST_TABLE.replace(", and OTA to", " OTA to"))],
        ),
        ("Which Dell models passed the OpenXT 9.0.2 tests?", [(1, TESTS, TEST_TABLE)]),
        ("What was the reason that Dell 9010 failed the OTA test?", [(1, TESTS, TEST_TABLE)]),
        ("Who attended the community call?", [(1, ATTENDEES, ATTENDEE_LIST)]),
        # asked, but no table or list holds what is asked
        ("How many weeks of parental leave do we get?", [(1, HOTELS, hotel_table())]),
        ("Which cities have a parking limit above 10 euros?", [(1, HOTELS, hotel_table())]),
        ("How many machines passed the USB test?", [(1, MACHINES, MACHINE_TABLE)]),
        ("Is the hotel limit in Paris higher than in Berlin?", [(1, HOTELS, hotel_table())]),
        ("What are the steps to install a Debian guest?", [(1, FEDORA, FEDORA_STEPS)]),
        # fewer rows than `MIN_ROWS` say little about the table
        ("How many cities have a hotel limit?", [(1, HOTELS, row_of(1)), (2, HOTELS, row_of(2))]),
        # a column of numbers that answers "how many" itself, and sentences about the thing
        ("How many people are on the Payments team?", [(1, TEAMS, TEAM_TABLE)]),
        ("How many SEV levels are there?", [(1, ESCALATION, ESCALATION_STEPS)]),
        ("How many people are paged?", [(1, ESCALATION, ESCALATION_STEPS)]),
        # two asks, one of them not answered by the evidence
        (
            "What is the Slack channel of Payments and when was it founded?",
            [(1, TEAMS, TEAM_TABLE)],
        ),
        (
            "Which cities have a hotel limit above 170 euros, and who leads Payments?",
            [(1, HOTELS, hotel_table()), (2, TEAMS, TEAM_TABLE)],
        ),
        # the second ask answered by no cell of the row; a list under the page's title only
        ("Who leads Payments and what is the escalation policy?", [(1, TEAMS, TEAM_TABLE)]),
        (
            "How many teams are in Berlin?",
            [
                (
                    1,
                    "Team Directory — Leadership",
                    "- CEO: Maren Lindqvist (Berlin)\n- CTO: Tobias Albrecht (Berlin)",
                )
            ],
        ),
        # a filter over two single rows
        (
            "Which cities have a hotel limit above 150 euros?",
            [(1, HOTELS, row_of(2)), (2, HOTELS, row_of(3))],
        ),
    ],
)
def test_nothing_composed(question, sources):
    assert compose(question, sources) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "What is the Slack channel of the Payments team and who leads it?",
            "For Payments, Slack channel is #team-payments and Lead is Chloe Whitfield [2].",
        ),
        (
            "Who leads Robot Firmware and what is its Slack channel?",
            "For Robot Firmware, Lead is Jonas Becker and Slack channel is #firmware [2].",
        ),
        (
            "Was ist der Slack channel des Payments Teams und wer ist der Lead?",
            "Für Payments gilt: Slack channel ist #team-payments und Lead ist Chloe Whitfield [2].",
        ),
        (
            "Which cities have a hotel limit above 170 euros, and what are the meals per day"
            " in Munich?",
            "Munich (€180); in another currency, not compared: London (£220), and Meals per day €28"
            " [1]",
        ),
    ],
)
def test_two_asks_answered_each_and_joined(question, expected):
    sources = [(1, HOTELS, hotel_table()), (2, TEAMS, TEAM_TABLE)]
    assert answer(question, sources) == expected


def test_rows_gathered_from_sources_each_cited():
    sources = [(1, HOTELS, row_of(2)), (2, HOTELS, row_of(3)), (3, HOTELS, hotel_table())]
    composed = compose("Which cities have a hotel limit above 150 euros?", sources)
    assert composed == Composed(
        "Munich (€180) and Hamburg (€160); in another currency, not compared: London (£220)"
        " [1][2][3]",
        (1, 2, 3),
    )
    # without the source that gave a row, the answer cites the next one that holds it
    assert compose("Which cities have a hotel limit above 150 euros?", sources[1:]).sources == (
        2,
        3,
    )


def test_a_table_part_read_alone_says_which_rows_it_read():
    rows = HOTEL_ROWS[:4] + [("Paris", "France", "€170", "€35")] * 8
    full = hotel_table(rows)  # a part over MAX_EVIDENCE_WORDS less a row: the table goes on
    (table,) = read_tables([(1, HOTELS, full)])
    assert not table.complete and table.readable
    text = answer("Which city has the lowest hotel limit?", [(1, HOTELS, full)])
    assert text == (
        "Berlin: €150; London: £220 (Hotel per night; different currencies, not compared with"
        " each other) (from rows 1–12 of the table found) [1]"
    )
    # a count over the rows found is a lower bound
    counted = answer("How many cities have a hotel limit?", [(1, HOTELS, full)])
    assert counted.startswith("At least 12 cities: Berlin, Munich, Hamburg, London, Paris")


def test_tables_are_complete_when_their_last_part_had_room():
    (table,) = read_tables([(1, HOTELS, hotel_table())])
    assert table.complete and sorted(table.rows) == [1, 2, 3, 4, 5]
    single = read_tables([(1, HOTELS, row_of(1)), (2, HOTELS, row_of(2)), (3, HOTELS, row_of(3))])
    assert not single[0].complete and single[0].readable
    gap = read_tables([(1, HOTELS, row_of(1)), (2, HOTELS, row_of(3)), (3, HOTELS, row_of(4))])
    assert not gap[0].readable


def test_lists_are_read_with_their_intro():
    (found,) = read_lists([(3, ATTENDEES, ATTENDEE_LIST)])
    assert found.intro == "Attendees of the call:" and len(found.items) == 5


@pytest.mark.parametrize(
    ("cell", "value", "currency"),
    [
        ("€150", 150.0, "EUR"),
        ("£220", 220.0, "GBP"),
        ("US$320", 320.0, "USD"),
        ("3,000", 3000.0, ""),
        ("1.500 EUR", 1500.0, "EUR"),
        ("2.5", 2.5, ""),
        ("60 per minute per site", 60.0, ""),
    ],
)
def test_amounts(cell, value, currency):
    found = amount(cell)
    assert found is not None and (found.value, found.currency) == (value, currency)


@pytest.mark.parametrize("cell", ["1.14.0", "Unlimited (fair use)", "Dell 9010", "v2"])
def test_no_amount(cell):
    assert amount(cell) is None


def test_the_offline_answerer_replies_with_the_composition():
    evidence = make_evidence(1, hotel_table(), "Travel Policy", "Hotel and meal limits")
    llm = ExtractiveLLM()
    question = "Which cities have a hotel limit above 150 euros?"
    replies = llm.complete(build_messages(question, [evidence]), n=3, temperature=1.0)
    assert len(set(replies)) == 1 and replies[0].startswith("Munich (€180) and Hamburg (€160)")
    assert split_answer(replies[0]).related == []
    (plain,) = llm.complete(build_messages("What is the hotel limit in Berlin?", [evidence]))
    assert plain == "The hotel limit in Berlin is €150 [1]."


@pytest.fixture
def sample_assistant(sample_product):
    return sample_product


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which cities have a hotel limit above 150 euros?",
            "Munich (€180), Hamburg (€160) and Amsterdam (€190); in another currency",
        ),
        ("Is the hotel limit in Munich higher than in Berlin?", "Yes: Munich €180 vs Berlin €150"),
        ("Is the hotel limit in London higher than in Berlin?", "London £220 vs Berlin €150"),
        ("Which city has the highest hotel limit?", "Amsterdam: €190; London: £220; New York"),
        (
            "How many teams are in Bristol?",
            "4 teams: Payments, Site Reliability (SRE), Customer Success and IT Helpdesk",
        ),
        ("How many teams are in Berlin?", "5 teams: Fleet Platform, Robot Firmware"),
        ("Wie viele Teams sind in Berlin?", "5 Teams: Fleet Platform"),
        (
            "What is the Slack channel of the Payments team and who leads it?",
            "For Payments, Slack channel is #team-payments and Lead is Chloe Whitfield",
        ),
    ],
)
def test_sample_wiki_questions_answered_by_composition(sample_assistant, question, expected):
    from core.conversation import ConversationKey

    key = ConversationKey("terminal", "test", "compose", question)
    turn = sample_assistant.ask(key, question, suggest=False)
    assert turn.answer.startswith(expected)
    assert "[" in turn.answer.split("\n")[0]


# An attendee list pasted as lines, without list marks.
LINES_HEADER = "Community Call - July 23 2015 — Attendees"
ATTENDEE_LINES = "Phil White - AIS\nKyle Temkin - AIS\nEarl Wong - BAH\nKevin Pearson - AFRL"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "How many people attended the community call?",
            "4 people: Phil White, Kyle Temkin, Earl Wong and Kevin Pearson [3]",
        ),
        ("How many people from the AIS team attended the call?", "2 people: Phil White and"),
        ("How many people from the BAH team attended the call?", "1 person: Earl Wong [3]"),
        # "Bürgertelefonat" is in no evidence: it cannot tell lines apart; AIS-Team is AIS
        ("Wie viele Personen aus dem AIS-Team nahmen am Bürgertelefonat 2015 teil?", "2 Personen:"),
        ("Wie viele Personen aus dem BAH-Team nahmen am Call teil?", "1 Person: Earl Wong"),
    ],
)
def test_people_counted_on_a_list_of_lines(question, expected):
    text = answer(question, [(3, LINES_HEADER, ATTENDEE_LINES)], GERMAN)
    assert text.startswith(expected) and text.endswith("[3]")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a follow-up's words are not in the heading, but the heading names people
        ("How many people were there? (context: Community, Call)", "4 people: Phil White"),
        ("How many people from AIS? (context: Community, Call)", "2 people: Phil White and"),
        ("Wie viele Personen nahmen teil? (context: Community, Call)", "4 Personen: Phil White"),
        ("Wie viele Personen aus dem AIS-Team?", "2 Personen: Phil White und Kyle Temkin"),
        # a count that names nothing counts the persons of a list headed by people
        ("How many were from the BAH team? (context: Community, Call)", "1 person: Earl Wong"),
        ("Wie viele waren aus dem AIS-Team?", "2 Personen: Phil White und Kyle Temkin"),
    ],
)
def test_people_counted_on_a_list_headed_by_people_whatever_the_verb(question, expected):
    text = answer(question, [(3, LINES_HEADER, ATTENDEE_LINES)])
    assert text.startswith(expected) and text.endswith("[3]")


def test_names_under_a_heading_naming_no_people_and_no_asked_word_are_not_counted():
    header = "Community Call - July 23 2015 — Release Managers"
    assert answer("Wie viele Personen nahmen teil?", [(3, header, ATTENDEE_LINES)]) is None
    assert answer("How many people were there?", [(3, header, ATTENDEE_LINES)]) is None
    assert answer("How many were from AIS?", [(3, header, ATTENDEE_LINES)]) is None
    # a condition no line holds selects none
    assert answer("How many were rejected?", [(3, LINES_HEADER, ATTENDEE_LINES)]) is None


def test_lines_that_are_sentences_make_no_list():
    lines = "Phil White joined late.\nKyle Temkin chaired.\nEarl Wong took notes."
    assert (
        answer("How many people attended the community call?", [(3, LINES_HEADER, lines)]) is None
    )


PR_PROCESS = "Process — Pull Request Process"
PR_STEPS = (
    "- Monitor all new and existing PRs.\n"
    "- Some PRs can get rejected right up front. These are ones with obvious issues.\n"
    "  - The PR is a large feature change and should have had an RFC first.\n"
    "  - The PR does not have a ticket; all PRs need one.\n"
    "- Determine how to test the PR. The basic approaches are:\n"
    "  - A full build on the build server with the PR changes in it.\n"
    "  - A partial build of the changed modules in an existing build.\n"
    "- Merge the PR."
)


def listed(question: str, whole: str, answer_text: str = "") -> str | None:
    from core.compose import listed_under

    found = listed_under(question, [(4, PR_PROCESS, PR_STEPS)], 4, answer_text or whole, whole)
    return found.text if found else None


@pytest.mark.parametrize(
    ("question", "whole", "expected"),
    [
        # the best line has items under it: they are the answer
        (
            "When can PRs get rejected right up front?",
            "Some PRs can get rejected right up front. These are ones with obvious issues.",
            "Some PRs can get rejected right up front. These are ones with obvious issues:"
            " (1) The PR is a large feature change and should have had an RFC first;"
            " (2) The PR does not have a ticket; all PRs need one. [4]",
        ),
        # the best line is one item of a list whose intro names what is asked
        (
            "What are the basic approaches to test a PR?",
            "A full build on the build server with the PR changes in it.",
            "The basic approaches are: (1) A full build on the build server with the PR"
            " changes in it; (2) A partial build of the changed modules in an existing"
            " build. [4]",
        ),
        (
            "Was sind die grundlegenden Ansätze, um einen PR zu testen?",
            "Determine how to test the PR. The basic approaches are:",
            "The basic approaches are: (1) A full build",
        ),
    ],
)
def test_the_items_under_a_list_intro(question, whole, expected):
    assert listed(question, whole).startswith(expected)


@pytest.mark.parametrize(
    ("question", "whole", "answer_text"),
    [
        # one item answers: a singular ask, a yes/no, a value cut from the line
        (
            "What is a full build on the build server?",
            "A full build on the build server with the PR changes in it.",
            "",
        ),
        (
            "Can PRs get rejected right up front?",
            "Some PRs can get rejected right up front. These are ones with obvious issues.",
            "",
        ),
        (
            "Where is the full build done?",
            "A full build on the build server with the PR changes in it.",
            "the build server",
        ),
        # an item without items under it
        ("What is monitored?", "Monitor all new and existing PRs.", ""),
    ],
)
def test_an_item_that_answers_alone_is_not_expanded(question, whole, answer_text):
    assert listed(question, whole, answer_text) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "What was the BIOS version of the Dell Optiplex 7050 and what was the EFI result?",
            "For Dell Optiplex 7050, BIOS is 1.12.2 and EFI is Pass [2].",
        ),
        (
            "Welche BIOS Version hatte der Dell Optiplex 7040 und welches Legacy Ergebnis?",
            "Für Dell Optiplex 7040 gilt: BIOS ist 1.14.0 und Legacy ist Pass [2].",
        ),
    ],
)
def test_two_asks_name_a_bare_number_by_its_column_and_row(question, expected):
    # "1.12.2, and Pass" would not say which of the two is the BIOS, nor of which machine
    assert answer(question, [(2, MACHINES, MACHINE_TABLE)]) == expected


CALL = "Community Call - 15th December 2016"
MINUTES = [
    (1, f"{CALL} — icbinn", "Provides a filesystem over a socket.\nACTION: Rich to document it."),
    (2, f"{CALL} — tboot", "Ross: think so.\nACTION: Ross and James to write a doc for Rich."),
    (3, f"{CALL} — Xen", "ACTION: Rich to talk to upstream Xen.\nJames: TPM 2.0 specs are hard."),
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "What were the action items for Rich Persaud in the call on 15th December 2016?",
            "Action items: (1) Rich to document it [1]; (2) Rich to talk to upstream Xen [3]",
        ),
        (
            "Was waren die Aktionspunkte für Rich Persaud im Call am 15. Dezember 2016?",
            "Aktionspunkte: (1) Rich to document it [1]; (2) Rich to talk to upstream Xen [3]",
        ),
        (
            # no person asked: every action of the call
            "What were the action items of the community call in December 2016?",
            "Action items: (1) Rich to document it [1]; (2) Ross and James to write a doc for"
            " Rich [2]; (3) Rich to talk to upstream Xen [3]",
        ),
    ],
)
def test_action_items_of_minutes_for_the_asked_person(question, expected):
    assert answer(question, MINUTES) == expected


def test_action_items_under_their_heading():
    sources = [(4, f"{CALL} — Action items", "- [ ] Eric to rebase the PR\n- [ ] Jed to test")]
    assert answer("What are the action items from the call on 15th December 2016?", sources) == (
        "Action items: (1) Eric to rebase the PR [4]; (2) Jed to test [4]"
    )


def test_no_action_items_of_another_person():
    # the question names Kevin: Rich's actions do not answer it
    question = "What were the action items for Kevin Pearson in the call on 15th December 2016?"
    assert answer(question, MINUTES) is None


RFC = "Customization RFC — Background"
RFC_TEXT = (
    "OpenXT has served as an open-source base. The build supports modular components."
    " Derivative projects often fork the repositories.\n"
    "Another line."
)


@pytest.mark.parametrize(
    "question",
    [
        "Could you tell me a bit about the background of the customization RFC?",
        "Könnten Sie mir etwas über den Hintergrund des Customization RFC erzählen?",
    ],
)
def test_a_question_about_a_section_gets_its_paragraph(question):
    from core.compose import about_section

    found = about_section(
        question,
        [(1, RFC, RFC_TEXT)],
        1,
        "OpenXT has served as an open-source base.",
        (("hintergrund", ("background",)),),
    )
    assert found == Composed(RFC_TEXT.split("\n")[0] + " [1]", (1,))


@pytest.mark.parametrize(
    ("question", "header"),
    [
        # a question for one fact
        ("What has OpenXT served as?", RFC),
        # the section is not about what is asked
        ("Tell me about the background of the RFC", "Customization RFC — Proposal"),
    ],
)
def test_one_fact_or_another_section_keeps_the_sentence(question, header):
    from core.compose import about_section

    whole = "OpenXT has served as an open-source base."
    assert about_section(question, [(1, header, RFC_TEXT)], 1, whole) is None


def split_tables(version: str, kind: str, table: int, platforms: list[str]) -> tuple[str, str]:
    """One results table of a kind (Legacy, EFI) under a version's heading."""
    header = f"Measurement Test — Test table > OpenXT {version} > {kind}:"
    rows = [
        f"Row {n} in Table {table}: Platform is {p}, TPM is 2.0, and Install is Pass"
        for n, p in enumerate(platforms, start=1)
    ]
    return header, f"Table {table}: Platform, TPM, Install\n" + "\n".join(rows)


SPLIT = [
    (n, *split_tables(*args))
    for n, args in enumerate(
        [
            ("9.0.2", "Legacy", 4, ["Dell Optiplex 9010", "Dell Latitude 7470", "Dell 7050"]),
            ("9.0.2", "EFI", 5, ["Dell Optiplex 7060", "Dell 7050", "Dell Latitude 7470"]),
            ("9.0.1", "EFI", 3, ["Dell Optiplex 9010", "Dell Latitude 7450", "Dell 7060"]),
        ],
        start=1,
    )
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which machines were tested with both legacy and EFI for OpenXT 9.0.2?",
            "Dell Latitude 7470 and Dell 7050 [1][2]",
        ),
        (
            "Welche Maschinen wurden für OpenXT 9.0.2 sowohl in Bezug auf legacy, als auch auf"
            " EFI getestet?",
            "Dell Latitude 7470 und Dell 7050 [1][2]",
        ),
    ],
)
def test_rows_named_in_both_tables_of_a_heading(question, expected):
    assert answer(question, SPLIT, GERMAN) == expected


def test_both_needs_a_table_of_each_kind():
    question = "Which machines were tested with both legacy and EFI for OpenXT 9.0.1?"
    assert answer(question, SPLIT[2:]) is None


# A table whose last row states its limits in words, not as numbers.
PLANS = "Public API — Limits per plan"


def plan_table() -> str:
    rows = [("Starter", "20", "2"), ("Professional", "100", "10"), ("Enterprise", "500", "50")]
    lines = ["Table 1: Plan, Burst, Concurrent streams"]
    for number, (plan, burst, streams) in enumerate(rows, start=1):
        lines.append(
            f"Row {number} in Table 1: Plan is {plan}, Burst is {burst}, and Concurrent streams"
            f" is {streams}"
        )
    lines.append(
        "Row 4 in Table 1: Plan is Internal, Burst is Not rate-limited at the gateway, and"
        " Concurrent streams is Not rate-limited at the gateway"
    )
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which plan has the highest burst?", "Enterprise has the highest Burst (500)"),
        (
            "Which plan has the fewest concurrent streams?",
            "Starter has the lowest Concurrent streams (2)",
        ),
        (
            "Which plan allows the most concurrent streams?",
            "Enterprise has the highest Concurrent streams (50)",
        ),
        (
            "Welcher Plan hat den höchsten Burst?",
            "Den höchsten Wert bei Burst hat Enterprise (500)",
        ),
        (
            "Welcher Plan hat die wenigsten Concurrent Streams?",
            "Den niedrigsten Wert bei Concurrent streams hat Starter (2)",
        ),
    ],
)
def test_extremes_over_a_column_with_a_row_in_words(question, expected):
    composed = compose(question, [(1, PLANS, plan_table())])
    assert composed is not None and composed.text.startswith(expected)
    # the row in words is named as not compared, never taken for the extreme
    assert "Internal" in composed.text.split(";", 1)[1]


def test_a_column_mostly_in_words_is_not_compared():
    table = (
        plan_table()
        .replace("Burst is 20", "Burst is On request")
        .replace("Burst is 100", "Burst is On request")
    )
    assert compose("Which plan has the highest burst?", [(1, PLANS, table)]) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which plan has the highest burst?", "Enterprise has the highest Burst (Unlimited)"),
        ("Which plan has the lowest burst?", "Starter has the lowest Burst (20)"),
        ("Welcher Plan hat den höchsten Burst?", "Den höchsten Wert bei Burst hat Enterprise"),
    ],
)
def test_unlimited_is_above_every_amount(question, expected):
    table = plan_table().replace("Burst is 500", "Burst is Unlimited")
    composed = compose(question, [(1, PLANS, table)])
    assert composed is not None and composed.text.startswith(expected)


def test_rows_of_a_table_found_in_part_counted_as_a_lower_bound():
    # rows 1, 2 and 4 of the hotel table, from three row evidences
    sources = [(n, HOTELS, row_of(n)) for n in (1, 2, 4)]
    composed = compose("How many cities in Germany are listed?", sources)
    assert composed is not None
    assert composed.text.startswith("At least 2 cities: Berlin and Munich")
    assert "(from rows 1–2 and 4 of the table found)" in composed.text
    german = compose("Wie viele Städte in Germany gibt es?", sources, GERMAN)
    assert german is not None and german.text.startswith("Mindestens 2 Städte: Berlin und Munich")
    assert "Zeilen 1–2 und 4" in german.text


RELEASE = "Release Process — Steps"
RELEASE_STEPS = (
    "1. Cut the release branch on the day of code freeze.\n"
    "2. Deploy the release candidate to staging.\n"
    "  1. The candidate must soak on staging for at least 48 hours.\n"
    "  2. Exit criteria for staging:\n"
    "    1. HTTP 5xx rate below 0.5% over the soak period;\n"
    "    2. p95 latency below 300 ms;\n"
    "    3. no open SEV1 incident tagged with the release.\n"
    "3. Get sign-off on the release ticket from the release manager."
)


EXIT_CRITERIA = (
    "Exit criteria for staging: (1) HTTP 5xx rate below 0.5% over the soak period;"
    " (2) p95 latency below 300 ms; (3) no open SEV1 incident tagged with the release."
)


def test_a_nested_intro_that_echoes_the_question_answers_with_its_sub_items():
    question = "What are the exit criteria for staging?"
    reply = ExtractiveLLM().complete(
        build_messages(question, [make_evidence(1, RELEASE_STEPS, "Release Process", "Steps")])
    )[0]
    assert reply.startswith(EXIT_CRITERIA), reply
    assert "sign-off" not in reply  # the next step is no criterion


def test_a_nested_intro_answers_a_german_question_with_its_sub_items():
    from core.compose import listed_under

    intro = "Exit criteria for staging:"
    found = listed_under(
        "Was sind die Exit-Kriterien für Staging?",
        [(1, RELEASE, RELEASE_STEPS)],
        1,
        intro,
        intro,
        (("kriterien", ("criteria",)),),
    )
    assert found is not None and found.text.startswith(EXIT_CRITERIA), found


LIMITS = "Public API — Endpoint-specific limits"
ENDPOINT_ROWS = (
    ("POST /v2/missions", "60 per minute per site"),
    ("POST /v2/maps/import", "5 per hour per site"),
    ("POST /v2/auth/token", "30 per minute per client ID"),
)


def endpoint_sources() -> list[tuple[int, str, str]]:
    intro = "Some endpoints have tighter limits that apply on top of the plan limit:"
    rows = [
        f"Row {n} in Table 2: Endpoint is {e}, and Limit is {limit}"
        for n, (e, limit) in enumerate(ENDPOINT_ROWS, start=1)
    ]
    return [(1, LIMITS, intro)] + [(n, LIMITS, row) for n, row in enumerate(rows, start=2)]


@pytest.mark.parametrize(
    "question", ["Which endpoints have tighter limits?", "Welche Endpunkte haben strengere Limits?"]
)
def test_an_intro_closing_its_source_answers_with_the_rows_of_its_heading(question):
    from core.compose import listed_under

    intro = endpoint_sources()[0][2]
    found = listed_under(question, endpoint_sources(), 1, intro, intro)
    assert found is not None
    assert found.text.startswith(
        "Some endpoints have tighter limits that apply on top of the plan limit:"
        " POST /v2/missions (60 per minute per site); POST /v2/maps/import (5 per hour per"
        " site); POST /v2/auth/token (30 per minute per client ID)"
    ), found.text
    assert found.sources == (2, 3, 4)


def test_an_intro_with_no_table_under_its_heading_lists_nothing():
    from core.compose import listed_under

    intro = endpoint_sources()[0][2]
    other = [(1, LIMITS, intro), (2, "Public API — Plans", endpoint_sources()[1][2])]
    assert listed_under("Which endpoints have tighter limits?", other, 1, intro, intro) is None


ONBOARDING = "Onboarding Checklist"
DAY_ONE = (
    "- [ ] Arrive at 09:30 at reception.\n- [ ] Collect your laptop from IT.\n"
    "- [ ] Lunch with your team."
)
WEEK_ONE = "- [ ] Complete the security training.\n- [ ] Read the architecture overview."


def onboarding_sources() -> list[tuple[int, str, str]]:
    return [(1, f"{ONBOARDING} — Week 1", WEEK_ONE), (2, f"{ONBOARDING} — Day 1", DAY_ONE)]


@pytest.mark.parametrize(
    ("question", "translations"),
    [
        ("What should I do on my first day?", ()),
        ("What happens on day 1?", ()),
        ("Was muss ich an meinem ersten Tag tun?", (("tag", ("day",)),)),
    ],
)
def test_an_ordinal_names_the_numbered_section_and_its_items_answer(question, translations):
    composed = compose(question, onboarding_sources(), translations)
    assert composed is not None
    assert composed.text == (
        "Day 1: (1) Arrive at 09:30 at reception; (2) Collect your laptop from IT;"
        " (3) Lunch with your team. [2]"
    )


@pytest.mark.parametrize(
    "sources",
    [
        [(1, f"{ONBOARDING} — Week 1", WEEK_ONE)],  # another noun
        [(1, f"{ONBOARDING} — Day 2", DAY_ONE)],  # another number
        [(1, f"{ONBOARDING} — Day 1", "Arrive at 09:30 at reception. Lunch with your team.")],
    ],
)
def test_no_numbered_section_of_another_noun_number_or_without_a_list(sources):
    assert compose("What should I do on my first day?", sources) is None


def test_a_lower_bound_count_needs_the_table_to_name_every_word_of_the_noun():
    # rows 1, 2 and 4 of the hotel table: "cities" is named, "Stadt-Standorte" is not
    sources = [(n, HOTELS, row_of(n)) for n in (1, 2, 4)]
    assert compose("How many city sites in Germany are listed?", sources) is None
    assert compose("Wie viele Stadt-Standorte in Germany gibt es?", sources, GERMAN) is None


VPN_ENDPOINTS = "- Berlin: vpn-ber.example, UDP port 51820\n- Bristol: vpn-brs.example, UDP 51820"
VPN_HELP = "If UDP is blocked on hotel Wi-Fi, switch to the TCP 443 fallback."


@pytest.mark.parametrize(
    "question",
    [
        "Which port does the VPN use, and what do I do if UDP is blocked on hotel Wi-Fi?",
        "Which UDP port does the VPN use, and what do I do if UDP is blocked on hotel Wi-Fi?",
    ],
)
def test_a_second_ask_that_names_its_own_subject_is_answered_from_another_section(question):
    sources = [
        (1, "VPN and Laptop Setup — VPN endpoints", VPN_ENDPOINTS),
        (2, "VPN and Laptop Setup — Troubleshooting", VPN_HELP),
    ]
    composed = compose(question, sources, glossary_translations(question))
    assert composed is not None and composed.sources == (1, 2)
    assert "51820 [1]" in composed.text and "443" in composed.text


@pytest.mark.parametrize(
    "question",
    [
        # the second ask leans on the first one's subject: only the first's section answers it
        "Which port does the VPN use, and what do I do if it is blocked on hotel Wi-Fi?",
        # not set off by a comma: one ask for two values, not two clauses
        "Which port does the VPN use and what do I do if UDP is blocked on hotel Wi-Fi?",
    ],
)
def test_a_second_ask_that_leans_on_the_first_is_not_answered_from_elsewhere(question):
    sources = [
        (1, "VPN and Laptop Setup — VPN endpoints", VPN_ENDPOINTS),
        (2, "VPN and Laptop Setup — Troubleshooting", VPN_HELP),
    ]
    assert compose(question, sources) is None


HOLIDAYS = "Offices and Public Holidays — Public holidays"
HOLIDAY_ROWS = (
    "Table 1: Date, Holiday, Berlin, Bristol\n"
    "Row 1 in Table 1: Date is Sat 3 Oct 2026, Holiday is German Unity Day, Berlin is Public"
    " holiday, and Bristol is Normal day\n"
    "Row 2 in Table 1: Date is Thu 24 Dec 2026, Holiday is Christmas Eve, Berlin is Company"
    " day off, and Bristol is Company day off\n"
    "Row 3 in Table 1: Date is Fri 25 Dec 2026, Holiday is Christmas Day, Berlin is Public"
    " holiday, and Bristol is Bank holiday"
)
LEAVE_HEADER = "Offices and Public Holidays — Annual leave"
LEAVE = "Germany: 28 days of annual leave per year. United Kingdom: 25 days of annual leave."


@pytest.mark.parametrize(
    "question",
    [
        "Wie viele Urlaubstage gibt es in Deutschland?",
        "How many days of annual leave do we get in Germany?",
        "How many leave days do we get in Germany?",
    ],
)
def test_a_count_the_evidence_states_is_read_not_counted_from_rows(question):
    # the leave days are a number on the page ("28 days"): counting the holiday rows that
    # name Germany ("German Unity Day") answers another question
    sources = [(1, HOLIDAYS, HOLIDAY_ROWS), (2, LEAVE_HEADER, LEAVE)]
    assert compose(question, sources, glossary_translations(question)) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many holidays are there?", "3 holidays: German Unity Day, Christmas Eve"),
        ("Wie viele Feiertage gibt es?", "3 Feiertage: German Unity Day, Christmas Eve"),
    ],
)
def test_rows_are_still_counted_when_no_number_states_the_count(question, expected):
    # "28 days" states a count of days, not of holidays
    sources = [(1, HOLIDAYS, HOLIDAY_ROWS), (2, LEAVE_HEADER, LEAVE)]
    composed = compose(question, sources, glossary_translations(question))
    assert composed is not None and composed.text.startswith(expected)


SUBMISSION = "How to submit — Proposal format"
# A passage that ends with the list's intro and its first items, and the list itself in a
# source of its own (a list split from its passage by the index), then an optional list.
SUBMISSION_PASSAGE = (
    "Proposals are posted to the mailing list as plain text.\n"
    "A proposal should contain the following elements:\n"
    "- Title: a single line saying what the proposal is.\n"
    "- Date: the month and year of"
)
SUBMISSION_LIST = (
    "- Title: a single line saying what the proposal is.\n"
    "- Date: the month and year of the submission.\n"
    "- Summary: an overview of the whole proposal.\n"
    "- Body: where the bulk of the information resides."
)
SUBMISSION_OPTIONAL = (
    "Some other elements an author may want to include:\n"
    "- Copyrights: copyright lines.\n"
    "- Authors: names and emails."
)


@pytest.mark.parametrize(
    "question",
    [
        "How many compulsory fields should a proposal have?",
        "How many parts should a proposal contain?",
        "Wie viele Pflichtfelder sollte ein Proposal haben?",
    ],
)
def test_parts_counted_on_a_list_introduced_as_parts_in_another_source(question):
    sources = [(1, SUBMISSION, SUBMISSION_PASSAGE), (2, SUBMISSION, SUBMISSION_LIST)]
    text = answer(question, sources)
    assert text is not None and text.startswith("4 ")
    # the items' labels are named, not their descriptions
    assert text.endswith(("Title, Date, Summary and Body [2]", "Title, Date, Summary und Body [2]"))


def test_a_list_opening_its_source_takes_the_intro_shown_before_it_elsewhere():
    sources = [
        (1, SUBMISSION, SUBMISSION_PASSAGE),
        (2, SUBMISSION, SUBMISSION_LIST),
        (3, SUBMISSION, SUBMISSION_OPTIONAL),
    ]
    intros = {found.source: found.intro for found in read_lists(sources)}
    assert intros[2] == "A proposal should contain the following elements:"
    assert intros[3] == "Some other elements an author may want to include:"


def test_a_list_not_introduced_as_parts_is_not_counted_as_fields():
    # the intro line says nothing of parts: the count of fields is not this list's size
    sources = [(2, SUBMISSION, "Things to keep in mind:\n" + SUBMISSION_LIST)]
    assert answer("How many compulsory fields should a proposal have?", sources) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many compulsory elements should a proposal have?", "4 compulsory elements: Title"),
        ("How many optional elements can a proposal have?", "2 optional elements: Copyrights"),
        ("Wie viele optionale Elemente kann ein Proposal haben?", "2 optionale Elemente: Copy"),
        # where the answer is written is no condition on the items
        (
            "How many compulsory elements should a proposal have, as per the submission guide?",
            "4 compulsory elements: Title",
        ),
    ],
)
def test_parts_that_must_or_may_be_there_are_counted_on_their_own_list(question, expected):
    sources = [
        (1, SUBMISSION, SUBMISSION_PASSAGE),
        (2, SUBMISSION, SUBMISSION_LIST),
        (3, SUBMISSION, SUBMISSION_OPTIONAL),
    ]
    assert answer(question, sources).startswith(expected)


def test_rows_whose_labels_repeat_are_not_counted_as_things():
    # the only column the question names repeats one value: the rows are no count of it
    table = (
        "Table 1: Test, Boot\n"
        "Row 1 in Table 1: Test is Launch A, and Boot is UEFI\n"
        "Row 2 in Table 1: Test is Launch B, and Boot is UEFI\n"
        "Row 3 in Table 1: Test is Launch C, and Boot is UEFI"
    )
    assert answer("How many boots were used?", [(1, "Launch tests", table)]) is None


MEMORY = "TBOOT Tests — Test Results"
MEMORY_ROWS = [
    ("Dell", "E6430", "Ivy Bridge", "8G"),
    ("Dell", "Optiplex XE2", "Haswell", "16G"),
    ("Dell", "E7440", "Haswell", "8 GB"),
    ("Lenovo", "T440", "Haswell", "4G"),
    ("Dell", "E6540", "Haswell", "8G"),
]


def memory_table(rows=MEMORY_ROWS) -> str:
    lines = ["Table 1: Vendor, Model, CPU Arch., Memory"]
    for number, (vendor, model, arch, memory) in enumerate(rows, start=1):
        lines.append(
            f"Row {number} in Table 1: Vendor is {vendor}, Model is {model},"
            f" CPU Arch. is {arch}, and Memory is {memory}"
        )
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Was the memory always 8G in Dell Haswell configurations?",
            "No: in the 3 rows for Dell and Haswell in Test Results, Memory is 16G (Optiplex XE2)"
            " [1] and 8 GB (E7440 and E6540) [1].",
        ),
        (
            "Was the memory always 8 GB in Dell configurations?",
            "No: in the 4 rows for Dell",
        ),
        (
            "War der Speicher in Dell Haswell Konfigurationen immer 8G?",
            "Nein: in den 3 Zeilen für Dell und Haswell in Test Results ist Memory 16G",
        ),
    ],
)
def test_a_value_asked_for_every_row_is_checked_on_each(question, expected):
    german = (("speicher", ("memory",)), ("konfigurationen", ("configurations",)))
    text = answer(question, [(1, MEMORY, memory_table())], german)
    assert text is not None and text.startswith(expected)


def test_every_row_with_the_asked_value_says_yes_only_over_the_whole_table():
    rows = [MEMORY_ROWS[2], MEMORY_ROWS[4]]
    question = "Was the memory always 8G in Dell Haswell configurations?"
    assert answer(question, [(1, MEMORY, memory_table(rows))]) == (
        "Yes: in the 2 rows for Dell and Haswell in Test Results, Memory is always"
        " 8 GB (E7440 and E6540) [1]."
    )
    # two rows of a longer table, both 8G: the rows not found may say otherwise
    found = "\n".join(memory_table().split("\n")[i] for i in (0, 3, 5))
    assert answer(question, [(1, MEMORY, found)]) is None


EVENTS = "Input Protocol — Events > Type 0x2 REL: Relative"


def event_table(names: tuple[str, ...], table: int) -> str:
    lines = [f"Table {table}: Code, Name"]
    for number, name in enumerate(names, start=1):
        lines.append(f"Row {number} in Table {table}: Code is 0x{number}, and Name is {name}")
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many events are in the Type 0x2 REL category?", "3 events: REL_X, REL_Y"),
        ("Wie viele Events gibt es in der Kategorie Type 0x2 REL?", "3 Events: REL_X, REL_Y"),
    ],
)
def test_rows_under_the_heading_of_the_category_a_question_names_are_counted(question, expected):
    # "category" names where the rows are (the heading), not a condition every row must hold
    sources = [
        (1, "Input Protocol — Events > Type 0x1 KEY: Keys", event_table(("KEY_A", "KEY_B"), 1)),
        (2, EVENTS, event_table(("REL_X", "REL_Y", "REL_WHEEL"), 2)),
    ]
    composed = compose(question, sources, GERMAN if question.startswith("Wie") else ())
    assert composed is not None and composed.text.startswith(expected), composed


PROPOSAL = "Virtio on Argo — Background"
SUPPORTERS = (
    "The design was reviewed in March. Dana Kim proposed this idea, which has been supported"
    " in discussions by Omar Haddad and Lena Vogt of Acme, and Priya Rao of Initech."
)


def test_people_named_in_the_sentence_that_says_the_asked_relation_are_counted():
    question = "How many people supported Dana Kim in this idea? Who were they?"
    composed = compose(question, [(1, PROPOSAL, SUPPORTERS)])
    assert composed is not None
    assert composed.text.startswith("3 people: Omar Haddad, Lena Vogt and Priya Rao [1]")


def test_names_in_a_sentence_that_does_not_say_the_asked_relation_are_not_counted():
    question = "How many people attended the review? Who were they?"
    assert compose(question, [(1, PROPOSAL, SUPPORTERS)]) is None


MATRIX = "Hardware Testing — Results"
LEGEND = "GEN - CPU architecture generation: SNB (Sandy Bridge), IVB (Ivy Bridge), SKL (Skylake)"


def matrix_table(rows: tuple[tuple[str, str, str], ...]) -> str:
    lines = ["Table 1: Vendor, Model, GEN"]
    for number, (vendor, model, gen) in enumerate(rows, start=1):
        lines.append(
            f"Row {number} in Table 1: Vendor is {vendor}, Model is {model}, and GEN is {gen}"
        )
    return "\n".join(lines)


MATRIX_ROWS = (
    ("Dell", "Optiplex 7040", "SKL"),
    ("Dell", "Optiplex 9020", "IVB"),
    ("HP", "Elitebook 840", "SKL"),
    ("Lenovo", "T440", "SNB"),
)


def test_distinct_values_of_the_column_a_legend_names_are_counted():
    sources = [(1, MATRIX, matrix_table(MATRIX_ROWS)), (2, MATRIX, LEGEND)]
    composed = compose("How many CPU architecture generations were tested?", sources)
    assert composed is not None
    assert composed.text.startswith("3 CPU architecture generations: SKL, IVB and SNB [1]")
    # the column named as asked, its values repeating: counted once each
    vendors = compose("How many vendors were tested?", sources)
    assert vendors is not None and vendors.text.startswith("3 vendors: Dell, HP and Lenovo")


def test_a_column_no_legend_explains_is_not_counted_for_the_long_words():
    sources = [(1, MATRIX, matrix_table(MATRIX_ROWS))]
    assert compose("How many CPU architecture generations were tested?", sources) is None


ML_LEGEND = "ML - measured launch. Indicate whether hardware is using TPM 1.2 or TPM 2.0."


def ml_table(values: tuple[str, ...]) -> str:
    lines = ["Table 1: Vendor, Model, ML"]
    for number, value in enumerate(values, start=1):
        lines.append(
            f"Row {number} in Table 1: Vendor is Dell, Model is M{number}, and ML is {value}"
        )
    return "\n".join(lines)


def test_versions_of_a_column_a_legend_names_are_its_distinct_values():
    sources = [(1, MATRIX, ml_table(("TPM 2.0", "TPM 1.2", "TPM 2.0"))), (2, MATRIX, ML_LEGEND)]
    question = "How many unique measured launch versions were used in the hardware tests?"
    composed = compose(question, sources)
    assert composed is not None
    assert composed.text.startswith("2 measured launch versions: TPM 2.0 and TPM 1.2 [1]")
    # a kind of value alone names no column
    assert compose("How many versions were used in the hardware tests?", sources) is None


def test_the_legends_words_describe_the_counted_column_and_select_no_rows():
    legend = "GEN - Intel CPU architecture generation: SNB (Sandy Bridge), IVB (Ivy Bridge)"
    sources = [(1, MATRIX, matrix_table(MATRIX_ROWS)), (2, MATRIX, legend)]
    composed = compose("How many generations of the Intel CPU architecture were tested?", sources)
    assert composed is not None
    assert composed.text.startswith("3 generations: SKL, IVB and SNB [1]")


BUILDS = "OpenXT 7.x Builds — Build Locations"
BUILD_CONFIG = "OpenXT 7.x Builds — Build Configuration"


def test_a_whole_table_of_one_row_named_for_the_counted_things_is_counted():
    location = (
        "Table 2: Version, Download\n"
        "Row 1 in Table 2: Version is 7.0.0 nightly, and Download is http://example.org/7/"
    )
    config = (
        "Table 1: Component, Default\n"
        "Row 1 in Table 1: Component is Ocaml db, and Default is Yes\n"
        "Row 2 in Table 1: Component is OpenSSL, and Default is Yes\n"
        "Row 3 in Table 1: Component is Container build, and Default is Yes"
    )
    question = "How many build locations were used for OpenXT 7.x builds?"
    composed = compose(question, [(1, BUILD_CONFIG, config), (2, BUILDS, location)])
    assert composed is not None
    assert composed.text.startswith("1 build location: 7.0.0 nightly [2]")
    # a build table that names no locations is not what is counted
    assert compose(question, [(1, BUILD_CONFIG, config)]) is None


GUEST = "How to Install Guest VMs — Windows 7 guest > Fixing Windows Update"
OLD_LIST = (
    "After some testing, the following ones seem to do the trick:\n"
    "1. KB3102810 (Make Windows Update faster)\n2. KB3020369 (Dependency)\n"
    "3. KB3161608 (Fixes hangs)\n4. KB3161664 (May not be needed)"
)
NEW_LIST = "More up to date list 10/13/2016:\n1. KB3102810\n2. KB3020369\n3. KB3172605"


@pytest.mark.parametrize(
    "question, expected",
    [
        (
            "As per the updated list prepared in October 2016, how many windows update"
            " patches are needed for a Guest VM?",
            "3 windows update patches: KB3102810, KB3020369 and KB3172605 [2]",
        ),
        (
            "Wie viele Windows-Update-Patches müssen gemäß der aktualisierten Liste vom"
            " Oktober 2016 installiert werden?",
            "3 Windows-Update-Patches: KB3102810, KB3020369 und KB3172605 [2]",
        ),
    ],
)
def test_the_list_a_count_names_by_its_date_is_counted(question, expected):
    composed = compose(question, [(1, GUEST, OLD_LIST), (2, GUEST, NEW_LIST)])
    assert composed is not None
    assert composed.text.startswith(expected)
    # another month names no list of these
    other = question.replace("October", "November").replace("Oktober", "November")
    assert compose(other, [(1, GUEST, OLD_LIST), (2, GUEST, NEW_LIST)]) is None


@pytest.mark.parametrize(
    "noun, language, expected",
    [
        ("build locations", "en", "build location"),
        ("entries", "en", "entry"),
        ("patches", "en", "patch"),
        ("statuses", "en", "statuses"),
        ("people", "en", "person"),
        ("Build-Standorte", "de", "Build-Standorte"),
    ],
)
def test_a_count_of_one_names_the_thing_in_the_singular(noun, language, expected):
    assert _counted(noun, 1, language) == expected
    assert _counted(noun, 2, language) == noun
