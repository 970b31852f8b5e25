"""A "how many" question gets the list it counts from the page ranked first
(`core.counted_list`): retrieval finds a call page by its carried words and returns its
dial-in passage, and the attendee list, which shares no word with "How many people
attended?", is read from the store and counted."""

from __future__ import annotations

import pytest

from core.answer import generate
from core.counted_list import counted_list, list_items
from core.extractive import ExtractiveLLM
from core.list_counts import counted_noun
from core.pages import Evidence
from tests.fakes.page_store import PageStore, page_evidence

TITLE = "Community Call - July 23 2015"
ATTENDEES = "Phil White - AIS\nKyle Temkin - AIS\nEarl Wong - BAH"
MILESTONES = "- Alpha in March\n- Beta in May\n- Release in July"


def _evidence(position: int, heading: str, text: str, page: str = "p1") -> Evidence:
    title = TITLE if page == "p1" else "Roadmap"
    return page_evidence(position, text, page, title, heading)


DIAL_IN = _evidence(
    1, "Dial-In Information", "July 23, 2015 at 1:00PM (EDT)\nDial-in number: 857-216-2410"
)
AGENDA = _evidence(2, "Agenda", "Introductions\nEric: Update on Linux 3.18 upgrade.")
LIST = _evidence(3, "Attendees", ATTENDEES)
PAGE = [DIAL_IN, AGENDA, LIST]
ROADMAP = [_evidence(0, "Milestones", MILESTONES, "p2")]


def _store() -> PageStore:
    """The page evidences of the two pages."""
    return PageStore(*PAGE, *ROADMAP)


def test_the_list_of_people_on_the_first_page_is_added_for_a_count_of_people():
    question = "How many people attended? (context: Community, Call, July, 23, 2015)"
    assert counted_list(question, [DIAL_IN, AGENDA], _store()) == [LIST]
    assert counted_list("Wie viele Personen nahmen teil?", [DIAL_IN], _store()) == [LIST]


def test_a_list_whose_heading_names_the_counted_things_is_added():
    assert counted_list("How many milestones are planned?", [], _store()) == []
    store = _store()
    first = _evidence(9, "Overview", "The roadmap has three phases.", "p2")
    store.by_id[first.id] = first
    assert counted_list("How many milestones are planned?", [first], store) == ROADMAP


def test_nothing_is_added_for_other_questions_or_when_the_list_is_given():
    store = _store()
    assert counted_list("What was the dial-in number?", [DIAL_IN], store) == []
    assert counted_list("Wenn ja, wie viele?", [DIAL_IN], store) == []  # counts nothing named
    assert store.reads == 0
    assert counted_list("How many people attended?", [LIST, DIAL_IN], store) == []
    # a list of other things is not what a count of people counts
    assert counted_list("How many people attended?", ROADMAP, store) == []


def test_list_items_drop_markers_and_blank_lines():
    assert list_items("1. Boot\n\n2) Install\n- Reboot\n* Done") == [
        "Boot",
        "Install",
        "Reboot",
        "Done",
    ]


def test_the_added_list_is_counted_by_the_offline_answerer():
    question = "How many people attended? (context: Community, Call, July, 23, 2015)"
    (answer,) = generate(ExtractiveLLM(), question, [DIAL_IN, AGENDA])
    assert "people" not in answer.text  # the retrieved evidences alone count nobody
    evidences = [DIAL_IN, AGENDA, *counted_list(question, [DIAL_IN, AGENDA], _store())]
    (answer,) = generate(ExtractiveLLM(), question, evidences)
    assert answer.text.split("\n")[0] == ("3 people: Phil White, Kyle Temkin and Earl Wong [3]")


@pytest.mark.parametrize(
    "question, language, noun",
    [
        ("How many unique measured launch versions were used?", "en", "measured launch versions"),
        ("How many distinct statuses can a ticket have?", "en", "statuses"),
        ("How many failed tests were there?", "en", "failed tests"),
        ("How many statuses defined in the guide?", "en", "statuses"),
        ("How many attended the call?", "en", ""),
        ("Wie viele verschiedene Status kann ein Ticket haben?", "de", "Status"),
        ("Wie viele optionale Elemente sollte ein RFC haben?", "de", "optionale Elemente"),
    ],
)
def test_the_counted_noun_leaves_out_words_asking_for_distinct_things(question, language, noun):
    assert counted_noun(question, language) == noun
