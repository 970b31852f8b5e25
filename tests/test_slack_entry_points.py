"""The Slack entry points besides mentions and DMs, in HTTP mode: the `/confbot` slash
command, Share to channel, the "Ask confbot about this thread" shortcut, the App Home tab
and auto-answer channels. Signed requests go into the real slack-bolt App; its real
WebClient (and the real response_url client) talk to the fake Slack Web API; assertions are
on the calls the fake recorded and on the database. Socket Mode: tests/test_socket_mode.py."""

from __future__ import annotations

import asyncio
import json
import os
import time
from urllib.parse import urlencode

import httpx
import pytest
import yaml

from bot.blocks import EXPLAIN_ACTION, FEEDBACK_UP_ACTION, SHARE_ACTION
from bot.doctor import MANIFEST
from bot.slack_commands import (
    ALREADY_SHARED,
    CANNOT_SHARE,
    COMMAND,
    COMMAND_HELP,
    THREAD_SHORTCUT,
    thread_question,
)
from bot.web import create_app
from core.assistant import ConversationKey
from core.confidence import is_low_confidence
from core.extractive import ExtractiveLLM
from tests.fakes.slack_api_server import BOT_ID, BOT_USER_ID, TEAM_ID, FakeSlack
from tests.fakes.tiny_wiki import Wiki, build_wiki
from tests.test_slack import (
    SECRET,
    USER,
    Bot,
    button_payload,
    make_bot,
    mention,
    message,
    section_texts,
    signed_request,
)

FORM = "application/x-www-form-urlencoded"
QUESTION = "What does BATS stand for?"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    """No Slack or confbot variables from the real environment (slack-bolt reads some)."""
    for name in list(os.environ):
        if name.startswith(("SLACK_", "CONFBOT_")) or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def wiki(tmp_path_factory) -> Wiki:
    return build_wiki(tmp_path_factory.mktemp("wiki"))


@pytest.fixture
def slack():
    with FakeSlack() as server:
        yield server


@pytest.fixture
def bot(wiki, tmp_path, slack):
    made = make_bot(wiki, tmp_path, slack)
    yield made
    made.finish()


# --------------------------------------------------------------------------- payloads
def command_body(slack: FakeSlack, text: str, channel: str = "C1", trigger: str = "t1") -> dict:
    """The fields of a `/confbot` invocation, as Slack sends them."""
    return {
        "token": "unused",
        "team_id": TEAM_ID,
        "team_domain": "test",
        "channel_id": channel,
        "channel_name": "general",
        "user_id": USER,
        "user_name": "alice",
        "command": COMMAND,
        "text": text,
        "api_app_id": "A0APP",
        "response_url": slack.response_url("command"),
        "trigger_id": trigger,
    }


def run_command(bot: Bot, text: str, **where):
    body = urlencode(command_body(bot.slack, text, **where))
    response = bot.app.dispatch(signed_request(body, FORM))
    assert response.status == 200, response.body
    return response


def interact(bot: Bot, payload: dict):
    body = urlencode({"payload": json.dumps(payload)})
    response = bot.app.dispatch(signed_request(body, FORM))
    assert response.status == 200, response.body
    return response


def share_payload(slack: FakeSlack, value: str, channel: str = "C1", user: str = USER) -> dict:
    """A click on Share of a private (ephemeral) answer: Slack sends no `message` for one."""
    return {
        "type": "block_actions",
        "team": {"id": TEAM_ID, "domain": "test"},
        "user": {"id": user, "username": "alice", "team_id": TEAM_ID},
        "api_app_id": "A0APP",
        "token": "unused",
        "trigger_id": "9.9.9",
        "container": {
            "type": "message",
            "message_ts": "1800000099.000001",
            "channel_id": channel,
            "is_ephemeral": True,
        },
        "channel": {"id": channel, "name": "general"},
        "response_url": slack.response_url("share"),
        "actions": [
            {
                "type": "button",
                "action_id": SHARE_ACTION,
                "block_id": "actions",
                "value": value,
                "action_ts": str(time.time()),
            }
        ],
    }


def shortcut_payload(slack: FakeSlack, clicked: dict, channel: str = "C1") -> dict:
    """ "Ask confbot about this thread" used on the message `clicked`."""
    return {
        "type": "message_action",
        "callback_id": THREAD_SHORTCUT,
        "trigger_id": "7.7.7",
        "team": {"id": TEAM_ID, "domain": "test"},
        "user": {"id": USER, "name": "alice"},
        "channel": {"id": channel, "name": "general"},
        "message": clicked,
        "message_ts": clicked["ts"],
        "response_url": slack.response_url("shortcut"),
        "token": "unused",
    }


def buttons(blocks: list[dict]) -> list[dict]:
    return [e for b in blocks if b["type"] == "actions" for e in b["elements"]]


def private_turns(bot: Bot, channel: str = "C1") -> list:
    """Every turn asked in `channel` (private conversations included), oldest first."""
    records = []
    for turn_id in range(1, 50):
        key = bot.assistant.store.turn_key(turn_id)
        if key is not None and key.channel == channel:
            records.append(bot.assistant.turn_record(turn_id))
    return records


# --------------------------------------------------------------------------- /confbot
def test_slash_command_answers_privately_with_a_share_button(bot, slack):
    started = time.perf_counter()
    response = run_command(bot, QUESTION)
    assert time.perf_counter() - started < 3  # acknowledged before the answer is worked on
    assert response.body == ""

    (private,) = slack.wait_for("response_url")
    params = private.params
    assert params["url_name"] == "command" and params["response_type"] == "ephemeral"
    assert "Bash Automated Testing System" in section_texts(params["blocks"])
    assert "Only you can see this answer" in json.dumps(params["blocks"])
    (record,) = private_turns(bot)
    assert record.question == QUESTION
    assert [b["action_id"] for b in buttons(params["blocks"])] == [
        SHARE_ACTION,
        FEEDBACK_UP_ACTION,
        "confbot_feedback_down",
    ]  # Explain comes with the shared answer: it posts for everyone
    assert buttons(params["blocks"])[0]["value"] == f"{record.id}:"
    bot.finish()
    assert slack.calls_to("chat.postMessage") == []  # nothing visible to the channel


def test_slash_command_through_the_web_apps_slack_endpoint(bot, slack):
    """HTTP mode's front door: the signed form Slack posts to /slack/events on `confbot
    serve`'s web app reaches the command listener."""
    body = urlencode(command_body(slack, QUESTION))
    request = signed_request(body, FORM)
    headers = {name: values[0] for name, values in request.headers.items()}
    bot.assistant.settings = bot.assistant.settings.replace(slack_signing_secret=SECRET)
    web = create_app(bot.assistant, slack_app=bot.app)

    async def post():
        transport = httpx.ASGITransport(app=web)
        async with httpx.AsyncClient(transport=transport, base_url="http://confbot") as client:
            return await client.post("/slack/events", content=body, headers=headers)

    assert asyncio.run(post()).status_code == 200
    (private,) = slack.wait_for("response_url")
    assert "Bash Automated Testing System" in section_texts(private.params["blocks"])


def test_slash_command_searches_within_the_channels_scope(wiki, tmp_path, slack):
    bot = make_bot(wiki, tmp_path, slack, slack_channel_scopes="C1=root:102")
    run_command(bot, QUESTION)
    (private,) = slack.wait_for("response_url")
    bot.finish()
    (record,) = private_turns(bot)
    assert record.evidences and {e["page_id"] for e in record.evidences} == {"102"}
    assert "Bash Automated Testing System" not in section_texts(private.params["blocks"])


def test_empty_slash_command_gets_the_help_in_its_acknowledgement(bot, slack):
    response = run_command(bot, "   ")
    assert response.body == COMMAND_HELP  # Slack shows a plain-text acknowledgement privately
    bot.finish()
    assert slack.calls_to("response_url") == [] and slack.calls_to("chat.postMessage") == []


def test_sharing_posts_the_answer_once_and_explain_works_on_it(bot, slack):
    run_command(bot, QUESTION)
    slack.wait_for("response_url")
    (record,) = private_turns(bot)

    interact(bot, share_payload(slack, f"{record.id}:"))
    (shared,) = slack.wait_for("chat.postMessage")
    assert shared.params["channel"] == "C1" and "thread_ts" not in shared.params
    blocks = shared.params["blocks"]
    assert blocks[0]["elements"][0]["text"] == f"<@{USER}> asked: {QUESTION}"
    assert "Bash Automated Testing System" in section_texts(blocks)
    assert EXPLAIN_ACTION in [b["action_id"] for b in buttons(blocks)]
    removed = slack.wait_for("response_url", 2)[1]
    assert removed.params["delete_original"] is True  # the private copy is gone

    interact(bot, share_payload(slack, f"{record.id}:"))  # delivered again, or clicked twice
    again = slack.wait_for("response_url", 3)[2]
    assert again.params["text"] == ALREADY_SHARED

    answer = {"channel": "C1", "thread_ts": shared.response["ts"], "ts": shared.response["ts"]}
    interact(bot, button_payload(EXPLAIN_ACTION, record.id, answer))
    explanation = slack.wait_for("chat.postMessage", 2)[1]
    assert explanation.params["thread_ts"] == shared.response["ts"]
    assert "%" in section_texts(explanation.params["blocks"])
    bot.finish()
    assert len(slack.calls_to("chat.postMessage")) == 2


def test_sharing_where_the_bot_cannot_post_says_so_and_can_be_retried(bot, slack):
    run_command(bot, QUESTION, channel="CNOTIN")
    slack.wait_for("response_url")
    (record,) = private_turns(bot, "CNOTIN")
    slack.fail("chat.postMessage", "not_in_channel")
    interact(bot, share_payload(slack, f"{record.id}:", channel="CNOTIN"))
    note = slack.wait_for("response_url", 2)[1]
    assert note.params["text"] == CANNOT_SHARE

    slack.failures.clear()  # invited: Share works now
    interact(bot, share_payload(slack, f"{record.id}:", channel="CNOTIN"))
    (call,) = [c for c in slack.wait_for("chat.postMessage", 2) if c.response["ok"]]
    assert call.params["channel"] == "CNOTIN"
    bot.finish()


def test_share_never_reaches_a_turn_of_another_channel(bot, slack):
    run_command(bot, QUESTION, channel="C2")
    slack.wait_for("response_url")
    (record,) = private_turns(bot, "C2")
    interact(bot, share_payload(slack, f"{record.id}:", channel="C1"))
    note = slack.wait_for("response_url", 2)[1]
    assert "can't find that answer" in note.params["text"]
    bot.finish()
    assert slack.calls_to("chat.postMessage") == []


def test_feedback_on_a_private_answer_is_thanked_through_its_response_url(bot, slack):
    run_command(bot, QUESTION)
    slack.wait_for("response_url")
    (record,) = private_turns(bot)
    payload = share_payload(slack, str(record.id))
    payload["actions"][0]["action_id"] = FEEDBACK_UP_ACTION
    interact(bot, payload)
    thanks = slack.wait_for("response_url", 2)[1]
    assert thanks.params["response_type"] == "ephemeral" and "👍" in thanks.params["text"]
    assert [f.value for f in bot.assistant.store.feedback(record.id)] == ["up"]
    bot.finish()
    assert slack.calls_to("chat.postEphemeral") == []


# --------------------------------------------------------------------------- the shortcut
ROOT = "1700000000.000100"


@pytest.mark.parametrize(
    ("messages", "clicked", "expected"),
    [
        ([("1.1", "U1", "What does BATS stand for?")], "1.1", "What does BATS stand for?"),
        (
            [("1.1", "U1", "Our CI runs BATS."), ("1.2", "U2", "What does it stand for?")],
            "1.2",
            "What does it stand for? (context: Our CI runs BATS.)",
        ),
        (  # used on a statement: the thread's latest question up to it
            [("1.1", "U1", "How is BATS enabled?"), ("1.2", "U2", "No idea, sorry.")],
            "1.2",
            "How is BATS enabled?",
        ),
        (  # messages after the clicked one and the bot's own are not read
            [("1.1", "U1", "BATS (tests) rock"), ("1.3", "U2", "Which TPM does it use?")],
            "1.1",
            "BATS (tests) rock",
        ),
        ([("1.1", "U0BOT", "What is BATS?")], "1.1", ""),
    ],
)
def test_thread_question(messages, clicked, expected):
    thread = [{"ts": ts, "user": user, "text": text} for ts, user, text in messages]
    assert thread_question(thread, clicked, "U0BOT") == expected


def test_thread_shortcut_reads_the_thread_and_answers_privately_in_it(bot, slack):
    root = {"type": "message", "user": "U0BOB", "text": "Our test suite uses BATS.", "ts": ROOT}
    reply = {
        "type": "message",
        "user": "U0CAROL",
        "text": "What does BATS stand for?",
        "ts": "1700000000.000200",
        "thread_ts": ROOT,
    }
    mine = {"type": "message", "bot_id": BOT_ID, "text": "Ignore me", "ts": "1700000000.000150"}
    slack.threads[("C1", ROOT)] = [{**root, "thread_ts": ROOT}, mine, reply]

    started = time.perf_counter()
    interact(bot, shortcut_payload(slack, reply))
    assert time.perf_counter() - started < 3
    (private,) = slack.wait_for("chat.postEphemeral")
    (read,) = slack.calls_to("conversations.replies")
    assert (read.params["channel"], read.params["ts"]) == ("C1", ROOT)
    params = private.params
    assert (params["channel"], params["user"], params["thread_ts"]) == ("C1", USER, ROOT)
    assert "Bash Automated Testing System" in section_texts(params["blocks"])
    (record,) = private_turns(bot)
    assert record.question == "What does BATS stand for? (context: Our test suite uses BATS.)"
    assert buttons(params["blocks"])[0]["value"] == f"{record.id}:{ROOT}"

    interact(bot, share_payload(slack, f"{record.id}:{ROOT}"))  # shared into the thread
    (shared,) = slack.wait_for("chat.postMessage")
    assert shared.params["thread_ts"] == ROOT
    bot.finish()
    # the private conversation does not make the bot part of the thread
    assert not bot.assistant.store.turns(ConversationKey("slack", TEAM_ID, "C1", ROOT))


# --------------------------------------------------------------------------- App Home
def test_app_home_lists_spaces_recent_questions_and_settings(wiki, tmp_path, slack):
    bot = make_bot(
        wiki,
        tmp_path,
        slack,
        slack_auto_answer_channels=["CHELP"],
        slack_channel_spaces={"C1": "TEST"},
    )
    run_command(bot, QUESTION)
    slack.wait_for("response_url")
    opened = {"type": "app_home_opened", "user": USER, "channel": "D1", "tab": "home"}
    bot.deliver({**opened, "tab": "messages"}, "EvMessages")  # the Messages tab: nothing
    bot.deliver(opened, "EvHome")
    (published,) = slack.wait_for("views.publish")
    bot.finish()
    assert published.params["user_id"] == USER
    view = published.params["view"]
    assert view["type"] == "home"
    text = json.dumps(view["blocks"])
    pages = {}
    for entry in bot.assistant.index.page_catalog().values():
        pages[entry.space] = pages.get(entry.space, 0) + 1
    assert pages == {"TEST": 2, "DEV": 1}
    assert "*DEV*: 1 page" in text and "*TEST*: 2 pages" in text
    assert QUESTION in text
    assert "<#CHELP>" in text and "<#C1>: TEST" in text
    assert len(slack.calls_to("views.publish")) == 1


# --------------------------------------------------------------------------- auto-answers
@pytest.fixture
def helper_bot(wiki, tmp_path, slack):
    made = make_bot(wiki, tmp_path, slack, slack_auto_answer_channels=["CHELP"])
    yield made
    made.finish()


def test_auto_answer_channel_answers_confident_questions(helper_bot, slack):
    ts = "1700000000.000100"
    event = message(ts, QUESTION, channel="CHELP")
    helper_bot.deliver(event, "Ev1")
    helper_bot.deliver(event, "Ev1", {"X-Slack-Retry-Num": "1"})  # a retry: answered once
    (answer,) = helper_bot.answers(1)
    assert answer["channel"] == "CHELP" and answer["thread_ts"] == ts
    assert "Bash Automated Testing System" in section_texts(answer["blocks"])

    # a follow-up in the answered thread needs no mention, as in any thread it answered
    follow = message("1700000000.000200", "Is it TAP compliant?", "CHELP", thread_ts=ts)
    helper_bot.deliver(follow, "Ev2")
    assert helper_bot.answers(2)[1]["thread_ts"] == ts
    helper_bot.finish()
    # unasked: no 👀 on the question (the follow-up, asked of the bot, gets one)
    assert [c.params["timestamp"] for c in slack.calls_to("reactions.add")] == [follow["ts"]]
    assert len(slack.calls_to("chat.postMessage")) == 2


def test_auto_answer_stays_silent_when_not_confident(helper_bot, slack):
    ts = "1700000000.000300"
    helper_bot.deliver(message(ts, "Who won the football world cup in 1954?", "CHELP"), "Ev1")
    reply = message("1700000000.000400", "Does anyone know?", "CHELP", thread_ts=ts)
    helper_bot.deliver(reply, "Ev2")
    helper_bot.finish()
    assert slack.calls_to("chat.postMessage") == [] and slack.calls_to("reactions.add") == []
    (turn,) = helper_bot.assistant.store.turns(ConversationKey("slack", TEAM_ID, "CHELP", ts))
    assert turn.out_of_scope  # asked and declined: kept for the gaps report, never posted


def test_auto_answer_stays_silent_on_a_low_confidence_answer(wiki, tmp_path, slack):
    """With a decline threshold of 0.6, "Which BIOS is used?" passes it with a support of
    0.67 (one of its three terms unmatched), inside the low-confidence margin: a mention
    gets that answer, an unasked question gets silence; 1.0 support is answered unasked."""
    llm = ExtractiveLLM(min_support={"en": 0.6})
    bot = make_bot(wiki, tmp_path, slack, llm, slack_auto_answer_channels=["CHELP"])
    unsure = "Which BIOS is used?"
    bot.deliver(message("1700000000.000100", unsure, "CHELP"), "Ev1")
    bot.deliver(message("1700000000.000200", "How is BATS enabled?", "CHELP"), "Ev2")
    bot.deliver(mention("1700000000.000300", unsure, channel="CHELP"), "Ev3")
    answers = bot.answers(2)
    bot.finish()
    assert sorted(a["thread_ts"] for a in answers) == ["1700000000.000200", "1700000000.000300"]
    assert len(slack.calls_to("chat.postMessage")) == 2
    key = ConversationKey("slack", TEAM_ID, "CHELP", "1700000000.000100")
    (silent,) = bot.assistant.store.turns(key)
    assert not silent.out_of_scope and is_low_confidence(silent.messages["confidence"])


def test_auto_answer_after_silence_a_mention_still_answers(helper_bot, slack):
    ts = "1700000000.000300"
    helper_bot.deliver(message(ts, "Who won the football world cup in 1954?", "CHELP"), "Ev1")
    ask = message("1700000000.000500", f"<@{BOT_USER_ID}> {QUESTION}", "CHELP", thread_ts=ts)
    helper_bot.deliver(ask, "Ev2")
    (answer,) = helper_bot.answers(1)
    assert answer["thread_ts"] == ts
    slack.wait_for("reactions.remove")  # the answer is done
    later = message("1700000000.000600", "Is it TAP compliant?", "CHELP", thread_ts=ts)
    helper_bot.deliver(later, "Ev3")  # the thread is the bot's now
    helper_bot.answers(2)
    helper_bot.finish()


@pytest.mark.parametrize(
    "event",
    [
        message("1.1", QUESTION, "CHELP", bot_id="B0OTHER"),  # a bot
        message("1.2", QUESTION, "CHELP", subtype="bot_message"),
        message("1.3", QUESTION, "CHELP", subtype="message_changed"),  # an edit
        message("1.4", QUESTION, "CHELP", thread_ts="1.0"),  # a reply in a thread
        message("1.5", "BATS is great, thanks all", "CHELP"),  # no question
        message("1.6", QUESTION, "COTHER"),  # not an auto-answer channel
    ],
    ids=["bot", "bot-message", "edit", "reply", "statement", "other-channel"],
)
def test_auto_answer_ignores(helper_bot, slack, event):
    helper_bot.deliver(event, "Ev1")
    helper_bot.finish()
    assert slack.calls_to("chat.postMessage") == []


# --------------------------------------------------------------------------- manifest
def test_the_manifest_declares_every_entry_point():
    manifest = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    features, settings = manifest["features"], manifest["settings"]
    assert [c["command"] for c in features["slash_commands"]] == [COMMAND]
    assert [(s["type"], s["callback_id"]) for s in features["shortcuts"]] == [
        ("message", THREAD_SHORTCUT)
    ]
    assert features["app_home"]["home_tab_enabled"] is True
    assert "app_home_opened" in settings["event_subscriptions"]["bot_events"]
    assert "commands" in manifest["oauth_config"]["scopes"]["bot"]
    assert settings["interactivity"]["is_enabled"] is True
