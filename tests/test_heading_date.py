"""A when question dated by the heading of the section that holds what it asks about."""

from __future__ import annotations

from core.answer import OUT_OF_SCOPE, build_messages
from core.extractive import ExtractiveLLM
from core.heading_date import heading_date
from tests.fakes.evidence import make_evidence

NOTES = "Notes from Argo planning meeting, July 2020"
PLANS = [
    make_evidence(1, "- an early basic transport over Argo as a proof", "Argo", f"{NOTES} > Plan:"),
    make_evidence(
        2, "- Christopher to produce a draft plan", "Argo", f"{NOTES} > Call on Friday 17th July"
    ),
]


def sources(evidences):
    return [(n, f"{e.title} — {e.heading}", e.text) for n, e in enumerate(evidences, start=1)]


def ask(question: str, evidences) -> str:
    (text,) = ExtractiveLLM({"en": 0.0, "de": 0.0}).complete(build_messages(question, evidences))
    return text


def test_a_meeting_is_dated_by_its_heading_and_sub_heading():
    question = "When was the planning meeting for Argo?"
    expected = f"Call on Friday 17th July — “{NOTES}” [2]."
    assert heading_date(question, sources(PLANS)) == expected
    assert ask(question, PLANS) == expected
    # without the dated sub-heading, the heading's own date
    assert heading_date(question, sources(PLANS[:1])) == f"July 2020 — “{NOTES}” [1]."


def test_a_german_question_quotes_the_heading_in_german():
    translations = (("planungstreffen", ("planning", "meeting")),)
    reply = heading_date("Wann war das Planungstreffen zu Argo?", sources(PLANS), translations)
    assert reply == f"Call on Friday 17th July — „{NOTES}“ [2]."


def test_no_heading_date_for_other_questions_or_headings_about_something_else():
    assert heading_date("Who was at the planning meeting for Argo?", sources(PLANS)) is None
    # the heading names another meeting: too little of the question
    assert heading_date("When was the budget review of the summit?", sources(PLANS)) is None
    # a date the question already gives answers nothing
    asked = "When in July 2020 was the planning meeting for Argo?"
    assert heading_date(asked, sources(PLANS[:1])) is None


def test_a_span_with_a_date_still_answers_before_any_heading():
    held = "The planning meeting for Argo was held on 3 June 2020."
    dated = [make_evidence(1, held, "Argo", NOTES)]
    assert "3 June 2020" in ask("When was the planning meeting for Argo?", dated)
    undated = [make_evidence(1, "Budget figures are kept in a spreadsheet.", "Budget", "Costs")]
    assert ask("When was the budget approved?", undated) == OUT_OF_SCOPE
