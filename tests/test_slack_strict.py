"""Slack buttons and ratings read strictly (issue 34): a button value with Unicode digits
gets the same clear reply as any value that names no turn, and a rating delivered or
clicked twice is stored once. Through the real App, as tests/test_slack.py does."""

from __future__ import annotations

import os

import pytest

from bot.blocks import EXPLAIN_ACTION, FEEDBACK_DOWN_ACTION, FEEDBACK_UP_ACTION, SUGGEST_ACTION
from bot.slack import TURN_GONE
from tests.fakes.slack_api_server import FakeSlack
from tests.fakes.tiny_wiki import build_wiki
from tests.test_slack import USER, make_bot, mention, turn_ids

MESSAGE = {"channel": "C1", "thread_ts": "1700000000.000100", "ts": "1800000000.000001"}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in list(os.environ):
        if name.startswith(("SLACK_", "CONFBOT_")):
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def wiki(tmp_path_factory):
    return build_wiki(tmp_path_factory.mktemp("wiki"))


@pytest.fixture
def bot(wiki, tmp_path):
    with FakeSlack() as slack:
        made = make_bot(wiki, tmp_path, slack)
        yield made
        made.finish()


@pytest.mark.parametrize("value", ["²", "¹²", "1²", "٣", "9" * 19, "0"])
@pytest.mark.parametrize(
    "action", [EXPLAIN_ACTION, FEEDBACK_UP_ACTION, f"{SUGGEST_ACTION}_0"], ids=str
)
def test_buttons_with_unicode_digits_get_a_clear_reply(bot, action, value):
    if action.startswith(SUGGEST_ACTION):
        value = f"{value}:0"
    bot.click(action, value, MESSAGE)
    (note,) = bot.slack.wait_for("chat.postEphemeral")
    assert note.params["text"] == TURN_GONE
    bot.finish()
    assert bot.slack.calls_to("chat.postMessage") == []


def test_a_suggestion_index_in_unicode_digits_is_no_suggestion(bot):
    thread = "1700000000.000100"
    bot.deliver(mention(thread, "What does BATS stand for?"), "Ev1")
    (answer,) = bot.answers(1)
    (turn_id,) = turn_ids(bot, "C1", thread)
    bot.assistant.store.set_suggestions(turn_id, ["What is Xen?"])
    bot.click(f"{SUGGEST_ACTION}_0", f"{turn_id}:²", answer)
    (note,) = bot.slack.wait_for("chat.postEphemeral")
    assert note.params["text"] == TURN_GONE


def test_a_repeated_rating_is_stored_once(bot):
    thread = "1700000000.000100"
    bot.deliver(mention(thread, "What does BATS stand for?"), "Ev1")
    (answer,) = bot.answers(1)
    (turn_id,) = turn_ids(bot, "C1", thread)
    for action in (FEEDBACK_DOWN_ACTION, FEEDBACK_DOWN_ACTION, FEEDBACK_UP_ACTION):
        bot.click(action, turn_id, answer)
    bot.click(FEEDBACK_DOWN_ACTION, turn_id, answer, user="U0BOB")
    bot.slack.wait_for("chat.postEphemeral", 4)  # each click is thanked
    bot.finish()  # the lazy listeners run concurrently: compare without order
    ratings = sorted((f.value, f.user) for f in bot.assistant.store.feedback(turn_id))
    assert ratings == sorted([("down", USER), ("up", USER), ("down", "U0BOB")])
