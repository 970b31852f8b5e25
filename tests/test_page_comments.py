"""A "who commented" question gets the comments of the page ranked first
(`core.page_comments`): retrieval finds a test page's rows by the follow-up's carried words,
and the comments, read from the store, are counted and named, English and German."""

from __future__ import annotations

import pytest

from core.answer import generate
from core.commenters import asks_commenters
from core.extractive import ExtractiveLLM
from core.page_comments import MAX_COMMENT_EVIDENCES, page_comments
from core.pages import Evidence
from tests.fakes.page_store import PageStore, page_evidence

TITLE = "OpenXT 8.0 Measurement test"
ROW = (
    "Row 5 in Table 1: Build is 1607, Platform is Dell Latitude E7490, and Legacy / OTA"
    " upgrade is Black screen"
)
COMMENTS = (
    "Author: Rich Persaud Date: 2018-07-31T00:54:53.585Z Comment: Could this page be moved?\n"
    "Author: Eric Chanudet Date: 2018-07-31T15:44:03.579Z Comment: OK, amends can be made."
)


def _evidence(position: int, text: str, page: str = "p1", heading: str = "Test table") -> Evidence:
    title = TITLE if page == "p1" else "Other page"
    return page_evidence(position, text, page, title, heading)


RESULTS = _evidence(1, ROW)
COMMENTED = _evidence(2, COMMENTS)
OTHER = _evidence(0, "Author: Ana Lima Date: 2020-01-02T10:00Z Comment: Fine.", "p2")


def _store(*extra: Evidence) -> PageStore:
    """The page evidences of the two pages, with `extra` ones."""
    return PageStore(RESULTS, COMMENTED, OTHER, *extra)


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("How many people commented on these results? Who?", True),
        ("Wie viele Personen haben sich zu diesen Ergebnissen geäußert? Wer?", True),
        ("Wer hat sich dazu geäußert?", True),
        ("Wer hat die Seite kommentiert?", True),
        ("Wer hat Bedenken geäußert?", False),  # voicing a concern is not commenting
        ("How many people attended?", False),
    ],
)
def test_questions_that_ask_who_commented(question, asks):
    assert asks_commenters(question) is asks


def test_the_comments_of_the_first_page_are_added():
    question = "How many people commented on these results? Who?"
    assert page_comments(question, [RESULTS, OTHER], _store()) == [COMMENTED]


def test_nothing_is_added_for_other_questions_or_when_a_comment_is_given():
    store = _store()
    assert page_comments("Which Latitude model led to a black screen?", [RESULTS], store) == []
    assert store.reads == 0
    assert page_comments("Who commented?", [RESULTS, COMMENTED], store) == []
    assert page_comments("Who commented?", [], store) == []
    # the other page's comment given does not stand for the first page's
    assert page_comments("Who commented?", [RESULTS, OTHER], store) == [COMMENTED]


def test_at_most_a_few_comment_evidences_are_added():
    more = [_evidence(3 + n, COMMENTS, heading=f"Comments {n}") for n in range(5)]
    added = page_comments("Who commented?", [RESULTS], _store(*more))
    assert len(added) == MAX_COMMENT_EVIDENCES and added[0] == COMMENTED


def test_the_added_comments_answer_in_english_and_german():
    english = "How many people commented on these results? Who?"
    (answer,) = generate(ExtractiveLLM(), english, [RESULTS])
    assert "Rich Persaud" not in answer.text
    evidences = [RESULTS, *page_comments(english, [RESULTS], _store())]
    (answer,) = generate(ExtractiveLLM(), english, evidences)
    assert answer.text == (
        "2 people commented on OpenXT 8.0 Measurement test: Rich Persaud and Eric Chanudet [2]."
    )
    # as the assistant asks a follow-up: with its topic's words
    german = (
        "Wie viele Personen haben sich zu diesen Ergebnissen geäußert? Wer?"
        " (context: Latitude-Modellen, schwarzer, Bildschirm, OpenXT, 8.0, Measurement, test)"
    )
    (answer,) = generate(ExtractiveLLM(), german, evidences)
    assert answer.text == (
        "2 Personen haben OpenXT 8.0 Measurement test kommentiert: Rich Persaud und Eric"
        " Chanudet [2]."
    )
