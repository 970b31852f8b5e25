"""Privacy of questions: a Slack conversation records the kind of channel it is in, and the
report of what the wiki is missing quotes questions asked in DMs, group DMs, private
channels (or channels of unknown kind) only to admins, never in the weekly channel post."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.gaps import WeeklyPoster, gap_reports, report_html, report_lines, report_slack
from core.conversation import ConversationKey, ConversationRecord, ConversationStore, is_private
from core.db import session_factory, upgrade
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.slack_api_server import TEAM_ID, FakeSlack
from tests.fakes.tiny_wiki import build_wiki
from tests.test_slack import make_bot, mention, message

PUBLIC = "How do I book parental leave in the public channel?"
PRIVATE = "How do I book parental leave for my secret surgery?"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in list(os.environ):
        if name.startswith(("SLACK_", "CONFBOT_")) and not name.startswith("CONFBOT_TEST_"):
            monkeypatch.delenv(name)


@pytest.mark.parametrize(
    ("surface", "channel_type", "private"),
    [
        ("web", None, False),
        ("slack", "channel", False),
        ("slack", "group", True),
        ("slack", "im", True),
        ("slack", "mpim", True),
        ("slack", None, True),  # unknown: fail closed
        ("terminal", None, True),
    ],
)
def test_is_private(surface, channel_type, private):
    assert is_private(surface, channel_type) is private


def test_slack_conversations_record_their_channel_type(tmp_path):
    wiki = build_wiki(tmp_path / "wiki")
    with FakeSlack() as slack:
        slack.channels = {
            "CPUB": {"is_channel": True, "is_private": False},
            "CPRIV": {"is_channel": True, "is_private": True},
            "GMP": {"is_mpim": True, "is_private": True},
        }
        bot = make_bot(wiki, tmp_path, slack)
        try:
            bot.deliver(mention("1700000000.000100", "What is BATS?", channel="CPUB"), "Ev1")
            bot.deliver(mention("1700000000.000200", "What is BATS?", channel="CPRIV"), "Ev2")
            bot.deliver(mention("1700000000.000300", "What is BATS?", channel="GMP"), "Ev3")
            bot.deliver(mention("1700000000.000400", "What is BATS?", channel="CGONE"), "Ev4")
            dm = message("1700000000.000500", "What is BATS?", channel="D1", channel_type="im")
            bot.deliver(dm, "Ev5")
            bot.answers(5)
        finally:
            bot.finish()
        # the DM's type came with its event: conversations.info was not asked about it
        asked = {call.params["channel"] for call in slack.calls_to("conversations.info")}
    assert asked == {"CPUB", "CPRIV", "GMP", "CGONE"}
    url = bot.assistant.store.url
    with session_factory(url)() as db:
        rows = db.execute(select(ConversationRecord.channel, ConversationRecord.channel_type))
        kinds = {channel: kind for channel, kind in rows}
    assert kinds == {"CPUB": "channel", "CPRIV": "group", "GMP": "mpim", "CGONE": None, "D1": "im"}


def declined(store: ConversationStore, channel: str, channel_type: str | None, text: str) -> None:
    key = ConversationKey("slack", TEAM_ID, channel, f"17000000{len(channel)}.{abs(hash(text))}")
    store.conversation_id(key, channel_type)
    store.add_turn(
        key,
        question=text,
        completed_question=text,
        evidences=[{"page_id": "101", "title": "Bats", "url": "javascript:alert(1)"}],
        messages={},
        answer="...",
        citations=[],
        out_of_scope=True,
        model="m",
        timings={},
    )


def test_private_questions_are_counted_not_quoted_outside_admin_views(tmp_path):
    settings, index, _ = build_wiki(tmp_path / "wiki")
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    store = ConversationStore(url)
    declined(store, "CPUB", "channel", PUBLIC)
    declined(store, "D1", "im", PRIVATE)
    declined(store, "CPRIV", "group", PRIVATE + " (channel)")
    declined(store, "COLD", None, PRIVATE + " (unknown)")
    settings = settings.replace(database_url=url)

    (report,) = gap_reports(settings, index, HashEmbedder(), "TEST", timedelta(days=7))
    assert report.questions == 4
    text, blocks = report_slack(report)
    posted = text + str(blocks)
    assert PUBLIC in posted
    assert "secret surgery" not in posted
    assert "3 " in posted and "private" in posted  # counted

    admin = report_html(report)  # admins see every question, the private ones marked
    assert admin.count("secret surgery") == 3
    assert admin.count("(asked privately)") == 3
    assert "javascript:" not in admin  # a page link is never a script
    assert sum("(asked privately)" in line for line in report_lines(report)) == 3

    with FakeSlack() as slack:
        settings = settings.replace(
            slack_bot_token="xoxb-test", slack_api_url=slack.base_url, gaps_channel="*=CGAPS"
        )
        assert WeeklyPoster(settings, index).post("TEST")
        (post,) = slack.calls_to("chat.postMessage")
    assert PUBLIC in str(post.params["blocks"])
    assert "secret surgery" not in str(post.params)


def test_a_report_of_private_questions_only_quotes_none(tmp_path):
    settings, index, _ = build_wiki(tmp_path / "wiki")
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    store = ConversationStore(url)
    declined(store, "D1", "im", PRIVATE)
    (report,) = gap_reports(
        settings.replace(database_url=url), index, HashEmbedder(), "TEST", timedelta(days=7)
    )
    text, blocks = report_slack(report)
    assert "secret surgery" not in text + str(blocks)
    assert "Bats" not in str(blocks)  # not even the pages its question came closest to
    assert "1 more question(s) were asked in direct messages" in str(blocks)
