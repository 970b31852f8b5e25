"""Suggested follow-ups through the Assistant on the sample wiki: real questions about the
cited page that the answerer answers from that page, in the question's language, and new
ones on every turn."""

from __future__ import annotations

import pytest

from bot.serve import SAMPLE_PAGES
from connectors.files import json_page
from core.assistant import Assistant, ConversationKey
from core.questions import question_language
from tests.fakes.tiny_wiki import build_wiki, make_assistant

ONCALL = "On-Call Rotation and Escalation"
README_QUESTION = "Who is the secondary on-call for the Payments team in week 2?"


@pytest.fixture(scope="module")
def sample_wiki(tmp_path_factory):
    pages = [json_page(path) for path in sorted(SAMPLE_PAGES.glob("*.json"))]
    return build_wiki(tmp_path_factory.mktemp("sample"), pages)


@pytest.fixture
def assistant(sample_wiki, tmp_path) -> Assistant:
    return make_assistant(sample_wiki, tmp_path)


def _key(name: str) -> ConversationKey:
    return ConversationKey("web", "", "", name)


def _answered_from(assistant: Assistant, question: str, title: str, thread: str) -> bool:
    """Whether `question`, asked on its own, is answered (not declined) citing `title`."""
    turn = assistant.ask(_key(thread), question, suggest=False)
    return not turn.out_of_scope and turn.citations[0].title == title


def test_suggestions_after_the_readme_question_are_answered_from_its_page(assistant):
    turn = assistant.ask(_key("readme"), README_QUESTION)
    assert turn.citations[0].title == ONCALL
    assert len(turn.suggestions) >= 2
    for n, suggestion in enumerate(turn.suggestions):
        assert suggestion.endswith("?") and suggestion != README_QUESTION
        assert question_language(suggestion) == "en"
        assert "say about" not in suggestion  # no template naming the page's structure
        assert _answered_from(assistant, suggestion, ONCALL, f"check-{n}")
    # A row or column of the table the question asked about is among them.
    assert any("Payments" in s or "primary" in s for s in turn.suggestions)


def test_suggestions_change_from_turn_to_turn(assistant):
    key = _key("turns")
    seen = {README_QUESTION}
    question = README_QUESTION
    for _ in range(3):
        turn = assistant.ask(key, question)
        assert turn.suggestions and not seen & set(turn.suggestions)
        seen.update(turn.suggestions)
        question = turn.suggestions[0]  # the user clicks the first one
        seen.add(question)


def test_german_questions_get_german_suggestions(assistant):
    turn = assistant.ask(_key("de"), "Wie hoch ist das Hotellimit in Amsterdam?")
    assert turn.suggestions
    for n, suggestion in enumerate(turn.suggestions):
        assert not suggestion.startswith(("What", "Who", "When", "How"))
        assert _answered_from(assistant, suggestion, "Travel and Expense Policy", f"de-{n}")
