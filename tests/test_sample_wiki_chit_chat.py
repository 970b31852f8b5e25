"""Chit-chat and typos end to end through the Assistant on the bundled sample wiki, and the
sample wiki's off-topic questions (tests/data/sample_wiki_off_topic.json) as the chit-chat
classifier sees them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.serve import SAMPLE_PAGES, example_questions, sample_questions
from connectors.files import FilesSource
from core.assistant import Assistant, ConversationKey
from core.smalltalk import small_talk
from tests.fakes.tiny_wiki import Wiki, build_wiki, make_assistant

OFF_TOPIC = json.loads(
    (Path(__file__).parent / "data" / "sample_wiki_off_topic.json").read_text(encoding="utf-8")
)["questions"]
KEY = ConversationKey("terminal", "me", "cli", "t1")


@pytest.fixture(scope="module")
def sample_wiki(tmp_path_factory) -> Wiki:
    pages = list(FilesSource(SAMPLE_PAGES).pages.values())
    return build_wiki(tmp_path_factory.mktemp("sample"), pages)


@pytest.fixture
def assistant(sample_wiki, tmp_path) -> Assistant:
    assistant = make_assistant(sample_wiki, tmp_path)
    assistant.examples = example_questions(assistant.index)
    return assistant


@pytest.mark.parametrize("item", OFF_TOPIC, ids=lambda item: item["id"])
def test_only_the_chit_chat_of_the_off_topic_set_skips_the_search(item):
    assert (small_talk(item["question"]) is not None) == (item["kind"] == "chit-chat")


def test_the_sample_wiki_is_what_the_help_text_quotes(assistant):
    assert assistant.examples == sample_questions()
    english = assistant.ask(KEY, "hi")
    assert f"“{sample_questions()[0]}”" in english.answer
    german = assistant.ask(KEY, "Erzähl mir einen Witz")
    assert german.answer.startswith("Witze kenne ich leider keine.")
    assert "„Ist das Berliner Büro am 24. Dezember geöffnet?“" in german.answer
    for turn in (english, german):
        assert turn.evidences == [] and turn.citations == [] and turn.small_talk


def test_a_misspelt_question_is_corrected_and_answered(assistant):
    turn = assistant.ask(KEY, "What is the anual leave in Germany?")
    assert turn.corrections == {"anual": "annual"}
    assert turn.completed_question == "What is the annual leave in Germany?"
    assert not turn.out_of_scope and "28 days" in turn.answer
    assert turn.citations[0].title == "Offices and Public Holidays"


def test_a_greeting_before_a_question_does_not_stop_the_answer(assistant):
    turn = assistant.ask(KEY, "Hi, who leads the Paymnets team?")
    assert turn.small_talk is None and turn.corrections == {"Paymnets": "Payments"}
    assert not turn.out_of_scope and "Chloe Whitfield" in turn.answer
