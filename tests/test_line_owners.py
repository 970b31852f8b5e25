"""Who a line is said of (`core.line_owners`) and a sentence's persons read against it, on
the July 23 community call of issue 35 (a model gave Phil the agenda item under "Rich:")."""

from __future__ import annotations

import pytest

from core.grounding import ground
from core.line_owners import Line, labels, owned_lines, persons, said_of

ITEMS = (
    "Rich: (1) RFC for code contributions, (2) Confluence page for all RFCs\n"
    "Chris: RFC for requesting version bumps / branching\n"
    "Phil: Change future call times to 8 AM Pacific / 11 AM Eastern"
)
AGENDA = (
    "Introductions\n"
    "Kevin: RFC and PR Ratification, when and how are topics approved?\n"
    "Rich:\n"
    "- Change future call times to 8 AM Pacific / 11 AM Eastern / 4 PM UK to accomodate"
    " UK/European attendees.\n"
    "- Policy on copyright attribution for new files\n"
    "Future topics?"
)
HEADERS = ["Community Call - July 23 2015 — Action Items", "Community Call - July 23 2015 — Agenda"]


def test_a_line_is_said_of_its_label_or_the_label_line_it_sits_under():
    lines = owned_lines(AGENDA)
    assert [(line.owner, line.inline) for line in lines] == [
        (None, False),
        ("Kevin", True),
        ("Rich", True),
        ("Rich", False),
        ("Rich", False),
        (None, False),
    ]
    # a row's lead, a URL and a lowercase word before the colon are no labels
    assert owned_lines("Row 3 in Table 1: Owner is Phil")[0].owner is None
    assert owned_lines("See https://example.org")[0].owner is None
    assert owned_lines("Dial-in number: 857-216-2410")[0].owner is None
    assert labels([ITEMS, AGENDA]) == {"Rich", "Chris", "Phil", "Kevin"}


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The action item for Phil was to change call times.", {"Phil"}),
        ("Phil's action item was to change call times.", {"Phil"}),
        ("Phils Aufgabe war, die Anrufzeiten zu ändern.", {"Phil"}),
        ("Die Aufgabe von Rich war ein RFC.", {"Rich"}),
        ("The call times change to 8 AM Pacific.", set()),
    ],
)
def test_the_persons_a_sentence_attributes_something_to(sentence, expected):
    assert persons(sentence, {"Rich", "Chris", "Phil", "Kevin"}) == expected


def test_a_line_says_it_of_its_label_or_of_a_person_it_names_without_one():
    sentence = "Phil's action item was to change call times."
    assert said_of({"Phil"}, sentence, Line("Phil: Change call times", "Phil", True))
    assert said_of({"Phil"}, sentence, Line("- Change call times", "Phil White"))
    assert said_of({"Phil"}, sentence, Line("Row 2 in Table 1: Task is call times, Owner is Phil"))
    assert not said_of({"Phil"}, sentence, Line("- Change call times", "Rich"))
    assert not said_of({"Phil"}, sentence, Line("Change call times"))
    # named in someone else's line: Rich's item, unless the sentence names Rich too
    rich = Line("Rich: ask Phil to change call times", "Rich", True)
    assert not said_of({"Phil"}, sentence, rich)
    assert said_of({"Phil", "Rich"}, "Rich asked Phil to change call times.", rich)


@pytest.mark.parametrize(
    ("question", "reply", "supported_by"),
    [
        # the agenda line under "Rich:" holds the words, not the person (issue 35)
        (
            "What was the action item for Phil in the community call on July 23, 2015?",
            "The action item for Phil was to change future call times to 8 AM Pacific / 11 AM"
            " Eastern / 4 PM UK to accommodate UK/European attendees.",
            [],
        ),
        (
            "What was the action item for Phil in the community call on July 23, 2015?",
            "The action item for Phil was to change future call times to 8 AM Pacific / 11 AM"
            " Eastern [2].",
            [1],
        ),
        (
            "Was war Phils Aufgabe im Community Call am 23. Juli 2015?",
            "Phils Aufgabe war, die Anrufzeiten auf 8 AM Pacific / 11 AM Eastern / 4 PM UK zu"
            " ändern.",
            [],
        ),
        (
            "Was war Phils Aufgabe im Community Call am 23. Juli 2015?",
            "Phils Aufgabe war, die Anrufzeiten auf 8 AM Pacific / 11 AM Eastern zu ändern.",
            [1],
        ),
        # said of the right person, the agenda line supports it
        (
            "What did Rich put on the agenda of the July 23, 2015 call?",
            "Rich's agenda item was to change future call times to 8 AM Pacific / 11 AM Eastern"
            " / 4 PM UK.",
            [2],
        ),
    ],
)
def test_a_sentence_about_a_person_is_supported_by_a_line_said_of_them(
    question, reply, supported_by
):
    grounding = ground(reply, question, [ITEMS, AGENDA], HEADERS)
    assert grounding.sentences[0].supported_by == supported_by
