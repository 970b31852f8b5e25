"""A question about the page itself gets the page's byline (`core.page_byline`): retrieval
finds the page's passages on its topic, and the byline, which shares no word with "who
created this doc?", is read from the store and answers it."""

from __future__ import annotations

from core.answer import generate
from core.extractive import ExtractiveLLM
from core.page_byline import page_byline
from core.pages import Evidence
from tests.fakes.page_store import PageStore, page_evidence

TITLE = "How to contribute"
BYLINE = "Owned by Danielle Cummings Last updated: Oct 20, 2015 by Ross Philipson"
TICKETS = (
    "- Anyone may create new tickets. If generating bug reports, please be specific on "
    "environment and document steps used to reproduce.\n"
    "- Open: This ticket is likely awaiting for someone to take ownership. The ticket owner "
    "moves it to In Progress."
)


def _evidence(position: int, text: str, page: str = "p1", title: str = TITLE) -> Evidence:
    return page_evidence(position, text, page, title, "" if position == 0 else "Workflow")


PAGE = [_evidence(0, BYLINE), _evidence(1, TICKETS)]
OTHER = [_evidence(0, "Owned by Eric Chanudet", "p2", "Other page"), _evidence(1, "x", "p2")]


def _store() -> PageStore:
    """The page evidences of the two pages."""
    return PageStore(*PAGE, *OTHER)


def test_the_byline_of_the_first_page_is_added_for_a_question_about_the_page():
    retrieved = [PAGE[1], OTHER[1]]
    assert page_byline("who created the doc “How to contribute”?", retrieved, _store()) == [PAGE[0]]
    assert page_byline("Wann wurde die Seite zuletzt aktualisiert?", retrieved, _store()) == [
        PAGE[0]
    ]


def test_no_byline_for_another_question_or_when_it_is_given():
    store = _store()
    assert page_byline("Who may create new tickets?", [PAGE[1]], store) == []
    assert store.reads == 0  # not a question about the page: nothing read
    assert page_byline("Who owns this page?", [PAGE[1], PAGE[0]], store) == []
    assert page_byline("Who owns this page?", [], store) == []


def test_the_byline_answers_who_created_the_page_not_a_passage_on_creating_things():
    question = "who created the doc “How to contribute”?"
    evidences = [PAGE[1], *page_byline(question, [PAGE[1]], _store())]
    (answer,) = generate(ExtractiveLLM(), question, evidences)
    assert answer.text.split("\n")[0] == "Danielle Cummings [2]"
    (answer,) = generate(ExtractiveLLM(), "Wer hat dieses Dokument erstellt?", evidences)
    assert answer.text.split("\n")[0] == "Danielle Cummings [2]"


def test_when_and_by_whom_the_page_was_last_updated():
    evidences = [PAGE[1], PAGE[0]]
    (answer,) = generate(ExtractiveLLM(), "When was this page last updated?", evidences)
    assert answer.text.startswith("Oct 20, 2015 [2]")
    (answer,) = generate(ExtractiveLLM(), "Who last updated this page?", evidences)
    assert answer.text.startswith("Ross Philipson [2]")
