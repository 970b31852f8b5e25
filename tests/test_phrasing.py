"""The headline as a sentence: copular questions turned into statements, values labelled,
Yes/No with its clause, a table row said by its name and the asked cells, in English and
German."""

from __future__ import annotations

import pytest

from core.phrasing import (
    answering_cell,
    asked_item,
    counted_list,
    opened,
    row_line,
    statement,
    verdict,
)
from core.questions import profile_question, terms
from core.spans import typed_values


@pytest.mark.parametrize(
    ("question", "value", "language", "expected"),
    [
        (
            "Who is the secondary on-call for the Payments team in week 2?",
            "Sophie Brandt [1]",
            "en",
            "The secondary on-call for the Payments team in week 2 is Sophie Brandt [1].",
        ),
        (
            "What is the hotel limit per night in London?",
            "£220 [1]",
            "en",
            "The hotel limit per night in London is £220 [1].",
        ),
        (
            "How much is the weekly on-call allowance for a primary in the UK?",
            "£215 [2]",
            "en",
            "The weekly on-call allowance for a primary in the UK is £215 [2].",
        ),
        (
            "When is the code freeze?",
            "2026-10-08 [1]",
            "en",
            "The code freeze is on 2026-10-08 [1].",
        ),
        (
            "Where is the XT shield?",
            "the bottom right [1]",
            "en",
            "The XT shield is at the bottom right [1].",
        ),
        # a participle goes with the verb, its place after "in"
        (
            "Where is the Payments team based?",
            "Bristol [1]",
            "en",
            "The Payments team is based in Bristol [1].",
        ),
        (
            "Wer ist der Secondary für Payments in Woche 2?",
            "Sophie Brandt [1]",
            "de",
            "Der Secondary für Payments in Woche 2 ist Sophie Brandt [1].",
        ),
        # Not a copular question about a noun phrase: no statement.
        ("Who is working on the Windows builds?", "Dickon Reed [1]", "en", ""),
        ("What does the board vote on?", "changes [1]", "en", ""),
        ("Who covers on-call for Robot Firmware in week 3?", "SRE [1]", "en", ""),
        ("What is the page that lists the steps which matter?", "Steps [1]", "en", ""),
        ("Wie viele Urlaubstage haben Mitarbeitende?", "28 [1]", "de", ""),
    ],
)
def test_statement(question, value, language, expected):
    assert statement(question, value, language) == expected


@pytest.mark.parametrize(
    ("yes", "clause", "language", "expected"),
    [
        (True, "It is compliant with TAP.", "en", "Yes: It is compliant with TAP."),
        (False, "the office is closed.", "de", "Nein: the office is closed."),
        (True, "", "en", "Yes."),
    ],
)
def test_verdict(yes, clause, language, expected):
    assert verdict(yes, clause, language) == expected


HARDWARE_ROW = (
    "Vendor: Dell; Model: E7450; GEN: BDW; FF: L; FW: A13; VER: RC1; INST: Y; ML: Y;"
    " Notes: OXT-704. Sleep issue happens after resume"
)


@pytest.mark.parametrize(
    ("question", "yes", "expected"),
    [
        # a yes/no on a row: the cells that decide it, said of the cells that name it
        (
            "Did the system with Dell E7450 work well?",
            True,
            "Yes: for Dell E7450, INST and ML are both Y.",
        ),
        (
            "Funktionierte das System mit Dell E7450 gut?",
            True,
            "Ja: für Dell E7450 gilt: INST und ML sind beide Y.",
        ),
        # a row dump: the cells the question asks about, said of its name
        (
            "Which case involved a sleep issue?",
            None,
            "For Dell E7450, Notes is OXT-704. Sleep issue happens after resume.",
        ),
        ("Which system was tested?", None, "Dell E7450"),
    ],
)
def test_a_row_said_by_its_name_and_the_asked_cells(question, yes, expected):
    language = "de" if yes and question.startswith("Funk") else "en"
    assert row_line(profile_question(question), HARDWARE_ROW, language, yes) == expected


@pytest.mark.parametrize(
    "row",
    [
        "OS: Debian jessie x64 from PXE and a long name; Stubdom: w/; Tools: installation OK",
        "Result: Pass; Notes: none",
        "a sentence, not cells; Notes: x",
    ],
)
def test_a_row_without_a_short_naming_cell_is_not_summarised(row):
    assert row_line(profile_question("Which test passed?"), row, "en") == ""


def test_a_flag_does_not_join_the_name():
    row = "OS: Debian jessie x64; Stubdom: w/; Tools: installation OK; Notes: none"
    said = row_line(profile_question("Was the installation OK?"), row, "en")
    assert said == "For Debian jessie x64, Tools is installation OK."


TOKEN_ROW = (
    "Endpoint: POST /v2/auth/token; Limit: 30 per minute per client ID;"
    " Why: Tokens are valid for 60 minutes; cache them"
)


def answer_cell(question: str, row: str) -> str:
    profile = profile_question(question)
    return answering_cell(
        row,
        lambda text: profile.asked_in(frozenset(terms(text))),
        lambda text: bool(typed_values(profile.qtype, text, profile)),
    )


@pytest.mark.parametrize(
    "question", ["How long are API tokens valid?", "Wie lange sind die API-Tokens gültig?"]
)
def test_the_cell_of_a_row_dump_that_answers_as_a_sentence_with_its_subject(question):
    assert answer_cell(question, TOKEN_ROW) == (
        "Tokens are valid for 60 minutes; cache them (POST /v2/auth/token)."
    )


@pytest.mark.parametrize(
    ("question", "row"),
    [
        # no cell is a sentence: a title is a name
        ("How many builds were tested?", "Build: 7.0.0 nightly; Page: OpenXT 7.0 Hardware Testing"),
        # the sentence holds no value of the asked kind
        ("How long are API tokens valid?", "Endpoint: POST /v2/auth/token; Why: Cache the tokens"),
        # two sentences answer: neither is chosen
        (
            "How long are API tokens valid?",
            TOKEN_ROW + "; Note: Refresh tokens are valid for 30 days in the console",
        ),
    ],
)
def test_no_answering_cell(question, row):
    assert answer_cell(question, row) == ""


def _asked(question: str):
    profile = profile_question(question)
    return lambda text: profile.asked_in(frozenset(terms(text)))


NOTES = (
    "Duplicate VHDs after installing guest tools OXT-1576 Issues shutting down guest after"
    " tools install OXT-1580 Issues with switcher keys OXT-1569"
)


@pytest.mark.parametrize(
    ("question", "value", "expected"),
    [
        (
            "What was the issue number for switcher keys?",
            NOTES,
            "Issues with switcher keys OXT-1569",
        ),
        (
            "Welche Nummer hatte das Problem mit den switcher keys?",
            NOTES,
            "Issues with switcher keys OXT-1569",
        ),
        # sentences of a notes cell
        (
            "Why did the suspend test fail?",
            "Installed fine. Suspend test failed because the fan kept spinning. Reboot OK.",
            "Suspend test failed because the fan kept spinning.",
        ),
        # one item, or no item standing out: the cell is said whole
        ("What was the issue number for switcher keys?", "Issues with switcher keys OXT-1569", ""),
        ("What was the issue number for the mouse?", NOTES, ""),
    ],
)
def test_the_asked_item_of_a_cell_listing_several(question, value, expected):
    assert asked_item(value, _asked(question)) == expected


@pytest.mark.parametrize(
    ("answer", "language", "expected"),
    [
        ("3: Open; In Progress; Done", "en", "3 items are listed: Open; In Progress; Done"),
        ("3: Open; In Progress; Done", "de", "Aufgeführt sind 3 Einträge: Open; In Progress; Done"),
        ("1: Open", "en", "1 item is listed: Open"),
        ("Status: Open", "en", ""),
    ],
)
def test_a_counted_list_reads_as_a_count_not_a_key(answer, language, expected):
    assert counted_list(answer, language) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            "user unplugs a monitor. Display Handler notifies the driver. [1]",
            "User unplugs a monitor. Display Handler notifies the driver. [1]",
        ),
        (
            "der Nutzer zieht den Monitor ab und der Treiber merkt es nicht [1]",
            "Der Nutzer zieht den Monitor ab und der Treiber merkt es nicht [1]",
        ),
        # a command, a name used again, a value: as written
        ("git clone https://github.com/x/y.git into the folder [1]", None),
        ("usbback could be changed so that usbback needs no device [1]", None),
        ("iOS devices are not supported here at all [1]", None),
        ("v4.2 [1]", None),
    ],
)
def test_prose_opening_in_lower_case_is_capitalized_and_code_is_not(reply, expected):
    assert opened(reply) == (expected or reply)
