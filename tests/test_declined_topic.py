"""Follow-ups of a declined topic are declined (`core.declined_topic`), in English and
German; a follow-up that says what it asks, or one of an answered topic, is not."""

from __future__ import annotations

import pytest

from core.answer import OUT_OF_SCOPE
from core.conversation import ConversationKey
from core.declined_topic import follows_declined_topic
from core.rephrase import Exchange, current_topic
from tests.fakes.tiny_wiki import build_wiki, make_assistant

DECLINED = Exchange(
    "When are the annual performance reviews?",
    "When are the annual performance reviews?",
    OUT_OF_SCOPE,
    True,
)
ANSWERED = Exchange("What does BATS stand for?", "What does BATS stand for?", "Bash [1]", True)
FOLLOW_UP = {"topic_start": False}


@pytest.mark.parametrize("question", ["Who signs it off?", "Wer gibt ihn frei?", "And when?"])
def test_a_follow_up_that_needs_a_declined_topic_is_declined(question):
    assert follows_declined_topic(question, [DECLINED], FOLLOW_UP)


@pytest.mark.parametrize(
    ("question", "history", "notes"),
    [
        ("Who signs it off?", [ANSWERED], FOLLOW_UP),  # the topic was answered
        ("Who signs it off?", [DECLINED, ANSWERED], {"topic_start": True}),  # a new topic
        ("Who signs it off?", [DECLINED], {}),  # a completer that does not say
        ("Which TPM version does the Dell Optiplex 7040 have?", [DECLINED], FOLLOW_UP),
        ("Welche TPM-Version hat der Dell Optiplex 7040?", [DECLINED], FOLLOW_UP),
        ("Who signs it off?", [], FOLLOW_UP),
    ],
)
def test_other_follow_ups_are_judged_on_their_own(question, history, notes):
    assert not follows_declined_topic(question, history, notes)


def test_a_topic_answered_later_is_no_declined_topic():
    follow = Exchange("And what does it test?", "And what does it test?", "Bash [1]", False)
    assert current_topic([ANSWERED, DECLINED, follow]) == [DECLINED, follow]
    assert not follows_declined_topic("Who wrote it?", [DECLINED, follow], FOLLOW_UP)


@pytest.fixture()
def assistant(tmp_path):
    return make_assistant(build_wiki(tmp_path), tmp_path)


def test_the_assistant_declines_the_follow_up_of_a_declined_question(assistant):
    key = ConversationKey("cli", "local", "t1", "")
    first = assistant.ask(key, "Who won the football world cup in 1954?", suggest=False)
    assert first.out_of_scope
    follow = assistant.ask(key, "What does it stand for?", suggest=False)
    assert follow.out_of_scope and follow.completion_notes.get("declined_topic")
    assert follow.messages["answer"]  # the prompt it would have sent is kept in the trace
    # A question that names its subject is answered in the same conversation.
    named = assistant.ask(key, "What does BATS stand for?", suggest=False)
    assert not named.out_of_scope and "Bash Automated Testing System" in named.answer


def test_the_same_follow_up_of_an_answered_question_is_answered(assistant):
    key = ConversationKey("cli", "local", "t2", "")
    assert not assistant.ask(key, "What is BATS used for?", suggest=False).out_of_scope
    follow = assistant.ask(key, "What does it stand for?", suggest=False)
    assert not follow.out_of_scope and not follow.completion_notes.get("declined_topic")
