"""The Slack bot end to end: signed Events API and interactivity requests into the real
slack-bolt App (HTTP mode), its real WebClient pointed at a fake Slack Web API server, an
Assistant over the tiny wiki. Nothing is patched; assertions are on the API calls the fake
server recorded and on the database."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
from slack_bolt import App, BoltRequest, BoltResponse
from slack_sdk import WebClient
from slack_sdk.signature import SignatureVerifier
from sqlalchemy import inspect

from bot.blocks import EXPLAIN_ACTION, FEEDBACK_DOWN_ACTION, FEEDBACK_UP_ACTION, SUGGEST_ACTION
from bot.setting_checks import setting_errors
from bot.slack import ALREADY_EXPLAINED, EXPLAIN_FAILED, TURN_GONE, build_app
from bot.slack_requests import ANSWER_FAILED, LLM_FAILED, channel_scope, channel_spaces
from bot.slack_state import TABLES, Base, SlackStore
from core.assistant import Assistant, ConversationKey
from core.db import engine_for, upgrade
from core.llm import OpenAILLM
from core.scope import QueryScope
from core.settings import Settings
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.slack_api_server import BOT_ID, BOT_USER_ID, TEAM_ID, FakeSlack
from tests.fakes.tiny_wiki import Wiki, build_wiki, make_assistant

SECRET = "test-signing-secret"
USER = "U0ALICE"
BATS_URL = "https://wiki.example/spaces/TEST/pages/101/Bats"
XEN_URL = "https://wiki.example/spaces/DEV/pages/103/Xen"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    """No Slack or confbot variables from the real environment (slack-bolt reads some)."""
    for name in list(os.environ):
        if name.startswith(("SLACK_", "CONFBOT_")):
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def wiki(tmp_path_factory) -> Wiki:
    return build_wiki(tmp_path_factory.mktemp("wiki"))


@pytest.fixture
def slack():
    with FakeSlack() as server:
        yield server


# --------------------------------------------------------------------------- harness
def signed_request(body: str, content_type: str, headers: dict | None = None) -> BoltRequest:
    """A request as Slack sends it: v0 signature of `v0:timestamp:body` with the secret."""
    timestamp = str(int(time.time()))
    signature = SignatureVerifier(SECRET).generate_signature(timestamp=timestamp, body=body)
    all_headers = {
        "content-type": [content_type],
        "x-slack-request-timestamp": [timestamp],
        "x-slack-signature": [signature],
    }
    all_headers.update({k.lower(): [v] for k, v in (headers or {}).items()})
    return BoltRequest(body=body, headers=all_headers)


def event_request(event: dict, event_id: str, headers: dict | None = None) -> BoltRequest:
    return signed_request(json.dumps(event_body(event, event_id)), "application/json", headers)


def event_body(event: dict, event_id: str) -> dict:
    """An Events API `event_callback` body, as HTTP mode and Socket Mode both carry it."""
    return {
        "token": "unused",
        "team_id": TEAM_ID,
        "api_app_id": "A0APP",
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [
            {
                "team_id": TEAM_ID,
                "user_id": BOT_USER_ID,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
    }


def mention(ts: str, text: str, channel: str = "C1", thread_ts: str | None = None) -> dict:
    event = {
        "type": "app_mention",
        "user": USER,
        "text": f"<@{BOT_USER_ID}> {text}",
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def message(
    ts: str,
    text: str,
    channel: str = "C1",
    channel_type: str = "channel",
    thread_ts: str | None = None,
    **extra,
) -> dict:
    event = {
        "type": "message",
        "user": USER,
        "text": text,
        "ts": ts,
        "channel": channel,
        "channel_type": channel_type,
        "event_ts": ts,
        **extra,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


@dataclass
class Bot:
    """An HTTP-mode App over an Assistant, talking to the fake Slack."""

    app: App
    assistant: Assistant
    slack: FakeSlack

    def deliver(self, event: dict, event_id: str, headers: dict | None = None) -> BoltResponse:
        response = self.app.dispatch(event_request(event, event_id, headers))
        assert response.status == 200, response.body
        return response

    def click(
        self, action_id: str, turn_id: int | str, answer: dict, user: str = USER
    ) -> BoltResponse:
        """Press a button of the answer message `answer` (a recorded chat.postMessage)."""
        payload = button_payload(action_id, turn_id, answer, user)
        body = urlencode({"payload": json.dumps(payload)})
        response = self.app.dispatch(signed_request(body, "application/x-www-form-urlencoded"))
        assert response.status == 200, response.body
        return response

    def answers(self, count: int = 1) -> list[dict]:
        """The chat.postMessage calls once there are `count`, each with its message ts."""
        calls = self.slack.wait_for("chat.postMessage", count)
        return [{**call.params, "ts": call.response["ts"]} for call in calls]

    def finish(self) -> None:
        """Wait for every lazy listener to end (the App takes no new work after this)."""
        self.app.listener_runner.listener_executor.shutdown(wait=True)


def button_payload(action_id: str, turn_id: int, answer: dict, user: str = USER) -> dict:
    """The `block_actions` payload of a click on a button of the answer message `answer` (a
    recorded chat.postMessage with its ts)."""
    channel, thread = answer["channel"], answer["thread_ts"]
    return {
        "type": "block_actions",
        "team": {"id": TEAM_ID, "domain": "test"},
        "user": {"id": user, "username": "alice", "team_id": TEAM_ID},
        "api_app_id": "A0APP",
        "token": "unused",
        "trigger_id": "1.2.3",
        "container": {
            "type": "message",
            "message_ts": answer["ts"],
            "channel_id": channel,
            "is_ephemeral": False,
            "thread_ts": thread,
        },
        "channel": {"id": channel, "name": "general"},
        "message": {
            "type": "message",
            "ts": answer["ts"],
            "thread_ts": thread,
            "bot_id": BOT_ID,
            "text": "answer",
        },
        "actions": [
            {
                "type": "button",
                "action_id": action_id,
                "block_id": "actions",
                "value": str(turn_id),
                "action_ts": str(time.time()),
            }
        ],
    }


def make_bot(wiki: Wiki, folder: Path, slack: FakeSlack, llm=None, **changes) -> Bot:
    settings, _, _ = wiki
    url = f"sqlite:///{folder / 'state.sqlite'}"
    settings = settings.replace(**{"slack_signing_secret": SECRET, "database_url": url, **changes})
    assistant = make_assistant(wiki, folder, llm)
    client = WebClient(token="xoxb-test", base_url=slack.base_url)
    return Bot(build_app(settings, assistant, client), assistant, slack)


@pytest.fixture
def bot(wiki, tmp_path, slack):
    made = make_bot(wiki, tmp_path, slack)
    yield made
    made.finish()


def section_texts(blocks: list[dict]) -> str:
    return "\n".join(b["text"]["text"] for b in blocks if b["type"] == "section" and "text" in b)


def turn_ids(bot: Bot, channel: str, thread: str) -> list[int]:
    key = ConversationKey("slack", TEAM_ID, channel, thread)
    return [t.id for t in bot.assistant.store.turns(key)]


# --------------------------------------------------------------------------- answering
def test_mention_gets_a_threaded_answer_with_sources(bot, slack):
    started = time.perf_counter()
    bot.deliver(mention("1700000000.000100", "What does BATS stand for?"), "Ev1")
    assert time.perf_counter() - started < 3  # acknowledged long before the answer is ready

    (answer,) = bot.answers(1)
    assert answer["channel"] == "C1" and answer["thread_ts"] == "1700000000.000100"
    blocks = answer["blocks"]
    assert "Answering" not in str(blocks)  # the question was not completed: no context line
    text = section_texts(blocks)
    assert "Bash Automated Testing System" in text
    assert f"<{BATS_URL}|[1]>" in text  # the citation is a link to the page
    assert "*Sources*" in text
    assert f"<{BATS_URL}|Bats: Bash Automated Testing System> · TEST" in text
    assert "\n>BATS stands for Bash Automated Testing System. …" in text  # its sentence
    (turn_id,) = turn_ids(bot, "C1", "1700000000.000100")
    buttons = blocks[-1]["elements"]
    assert [b["action_id"] for b in buttons] == [
        EXPLAIN_ACTION,
        FEEDBACK_UP_ACTION,
        FEEDBACK_DOWN_ACTION,
    ]
    assert {b["value"] for b in buttons} == {str(turn_id)}
    assert answer["unfurl_links"] is False

    # 👀 while working, removed when done
    slack.wait_for("reactions.remove")
    (added,) = slack.calls_to("reactions.add")
    (removed,) = slack.calls_to("reactions.remove")
    for call in (added, removed):
        where = (call.params["channel"], call.params["timestamp"], call.params["name"])
        assert where == ("C1", "1700000000.000100", "eyes")
    assert added.at <= slack.calls_to("chat.postMessage")[0].at <= removed.at


def test_follow_up_in_the_thread_needs_no_mention(bot, slack):
    thread = "1700000000.000100"
    bot.deliver(mention(thread, "What does BATS stand for?"), "Ev1")
    bot.answers(1)
    slack.wait_for("reactions.remove", 1)

    bot.deliver(
        message(
            "1700000000.000200",
            "Is it compliant with the Test Anything Protocol?",
            thread_ts=thread,
        ),
        "Ev2",
    )
    second = bot.answers(2)[1]
    assert second["thread_ts"] == thread
    assert f"<{BATS_URL}|" in section_texts(second["blocks"])
    record = bot.assistant.turn_record(turn_ids(bot, "C1", thread)[1])
    assert "BATS" in record.completed_question  # completed from the thread's first turn

    # not answered: a top-level message without a mention, a reply in another thread
    bot.deliver(message("1700000000.000300", "What does BATS stand for?"), "Ev3")
    bot.deliver(message("1700000000.000400", "And the BIOS?", thread_ts="1700000000.000399"), "Ev4")
    bot.finish()
    assert len(slack.calls_to("chat.postMessage")) == 2


def test_direct_messages_are_always_answered(bot, slack):
    bot.deliver(
        message(
            "1700000000.000500",
            "Which TPM version did the Dell Optiplex 7040 have?",
            channel="D1",
            channel_type="im",
        ),
        "Ev1",
    )
    (answer,) = bot.answers(1)
    assert answer["channel"] == "D1" and answer["thread_ts"] == "1700000000.000500"
    assert "2.0" in section_texts(answer["blocks"])


def test_redelivered_event_is_answered_once(bot, slack):
    event = mention("1700000000.000100", "What does BATS stand for?")
    bot.deliver(event, "Ev1")
    bot.deliver(event, "Ev1")
    bot.deliver(event, "Ev1", {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    bot.answers(1)
    bot.finish()
    assert len(slack.calls_to("chat.postMessage")) == 1
    assert len(slack.calls_to("reactions.add")) == 1
    assert len(turn_ids(bot, "C1", "1700000000.000100")) == 1


def test_redelivery_to_another_process_is_answered_once(wiki, tmp_path, slack):
    """Two Apps (as two replicas) on one database get the same event at the same time."""
    first = make_bot(wiki, tmp_path, slack)
    second = make_bot(wiki, tmp_path, slack)
    event = mention("1700000000.000100", "What does BATS stand for?")
    barrier = threading.Barrier(2)

    def deliver(bot: Bot, headers: dict | None) -> None:
        barrier.wait()
        bot.deliver(event, "Ev1", headers)

    threads = [
        threading.Thread(target=deliver, args=(first, None)),
        threading.Thread(target=deliver, args=(second, {"X-Slack-Retry-Num": "1"})),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first.answers(1)
    first.finish()
    second.finish()
    assert len(slack.calls_to("chat.postMessage")) == 1
    assert len(turn_ids(first, "C1", "1700000000.000100")) == 1


@pytest.mark.parametrize(
    ("channel", "channel_type"), [("C1", "channel"), ("D1", "im")], ids=["channel", "dm"]
)
def test_message_and_app_mention_of_one_message_answered_once(bot, slack, channel, channel_type):
    ts = "1700000000.000100"
    text = f"<@{BOT_USER_ID}> What does BATS stand for?"
    bot.deliver(message(ts, text, channel=channel, channel_type=channel_type), "EvMessage")
    bot.deliver(mention(ts, "What does BATS stand for?", channel=channel), "EvMention")
    bot.answers(1)
    bot.finish()
    assert len(slack.calls_to("chat.postMessage")) == 1
    assert len(turn_ids(bot, channel, ts)) == 1


def test_bot_messages_are_ignored(bot, slack):
    dm = {"channel": "D1", "channel_type": "im"}
    bot.deliver(message("1.1", "What is BATS?", bot_id="B0OTHER", **dm), "Ev1")
    bot.deliver(message("1.2", "What is BATS?", subtype="bot_message", **dm), "Ev2")
    bot.deliver(message("1.3", "What is BATS?", **{**dm, "user": BOT_USER_ID}), "Ev3")
    bot.deliver({**mention("1.4", "What is BATS?"), "bot_id": "B0OTHER"}, "Ev4")
    bot.deliver(message("1.5", "What is BATS?", subtype="message_changed", **dm), "Ev5")
    bot.finish()
    assert slack.calls_to("chat.postMessage") == []
    assert slack.calls_to("reactions.add") == []


def test_unsigned_requests_are_rejected(bot, slack):
    request = event_request(mention("1.1", "What is BATS?"), "Ev1")
    request.headers["x-slack-signature"] = ["v0=" + "0" * 64]
    assert bot.app.dispatch(request).status == 401
    bot.finish()
    assert slack.calls_to("chat.postMessage") == []


# --------------------------------------------------------------------------- explain, feedback
def test_explain_button_posts_the_breakdown_once(bot, slack):
    thread = "1700000000.000100"
    bot.deliver(mention(thread, "What does BATS stand for?"), "Ev1")
    (answer,) = bot.answers(1)
    (turn_id,) = turn_ids(bot, "C1", thread)

    bot.click(EXPLAIN_ACTION, turn_id, answer)
    explanation = bot.answers(2)[1]
    assert explanation["thread_ts"] == thread
    text = section_texts(explanation["blocks"])
    # the answer is the name the page's title spells out, from one source
    assert text.startswith(
        "*Why this answer*\nThis answer came from one source: "
        f"<{BATS_URL}|Bats: Bash Automated Testing System>"
    )
    assert explanation["text"].startswith("Why this answer: This answer came from one source")
    bars = re.findall(r"^`([▇░]{10})` (\d+\.\d)%", text, re.MULTILINE)
    assert bars and bars[0][0].startswith("▇")
    assert f"<{BATS_URL}|Bats: Bash Automated Testing System>" in text
    stored = bot.assistant.store.explanation(turn_id)
    assert stored is not None  # computed once, kept for the next request

    # a second click does not post it again; the user is told privately
    slack.wait_for("reactions.remove", 2)
    bot.click(EXPLAIN_ACTION, turn_id, answer, user="U0BOB")
    (note,) = slack.wait_for("chat.postEphemeral")
    assert note.params["user"] == "U0BOB" and note.params["text"] == ALREADY_EXPLAINED
    bot.finish()
    assert len(slack.calls_to("chat.postMessage")) == 2


def test_explain_reaction_on_the_answer_posts_the_breakdown(bot, slack):
    thread = "1700000000.000100"
    bot.deliver(mention(thread, "What does BATS stand for?"), "Ev1")
    (answer,) = bot.answers(1)
    slack.wait_for("reactions.remove")  # the answer message is recorded by now

    reaction = {
        "type": "reaction_added",
        "user": USER,
        "reaction": "explain",
        "item": {"type": "message", "channel": "C1", "ts": answer["ts"]},
        "item_user": BOT_USER_ID,
        "event_ts": "1700000000.000300",
    }
    bot.deliver({**reaction, "reaction": "tada"}, "Ev2")  # other reactions do nothing
    bot.deliver(reaction, "Ev3")
    explanation = bot.answers(2)[1]
    assert explanation["thread_ts"] == thread
    assert "%" in section_texts(explanation["blocks"])
    bot.finish()
    assert len(slack.calls_to("chat.postMessage")) == 2


@pytest.mark.parametrize(
    ("action", "value"), [(FEEDBACK_UP_ACTION, "up"), (FEEDBACK_DOWN_ACTION, "down")]
)
def test_feedback_is_stored_and_acknowledged_privately(bot, slack, action, value):
    thread = "1700000000.000100"
    bot.deliver(mention(thread, "What does BATS stand for?"), "Ev1")
    (answer,) = bot.answers(1)
    (turn_id,) = turn_ids(bot, "C1", thread)

    bot.click(action, turn_id, answer)
    (note,) = slack.wait_for("chat.postEphemeral")
    assert note.params["channel"] == "C1" and note.params["user"] == USER
    assert note.params["thread_ts"] == thread
    assert [(f.value, f.user) for f in bot.assistant.store.feedback(turn_id)] == [(value, USER)]


MESSAGE = {"channel": "C1", "thread_ts": "1700000000.000100", "ts": "1800000000.000001"}


@pytest.mark.parametrize("value", ["abc", "-1", "1e3", "", "9" * 40, "12 ", "١٢"])
@pytest.mark.parametrize("action", [EXPLAIN_ACTION, FEEDBACK_UP_ACTION])
def test_buttons_whose_value_is_no_turn_say_so_privately(bot, slack, action, value):
    bot.click(action, value, MESSAGE)
    (note,) = slack.wait_for("chat.postEphemeral")
    assert note.params["text"] == TURN_GONE
    bot.finish()
    assert slack.calls_to("chat.postMessage") == []


@pytest.mark.parametrize("action", [EXPLAIN_ACTION, FEEDBACK_UP_ACTION])
def test_buttons_never_reach_turns_of_another_surface_or_channel(bot, slack, action):
    web = bot.assistant.ask(ConversationKey("web", "", "", "tab-0123456789"), "What is BATS?")
    other = bot.assistant.ask(ConversationKey("slack", TEAM_ID, "C2", "1.2"), "What is BATS?")
    for turn in (web, other):
        bot.click(action, turn.id, MESSAGE)
    notes = slack.wait_for("chat.postEphemeral", 2)
    assert [n.params["text"] for n in notes] == [TURN_GONE, TURN_GONE]
    bot.finish()
    assert slack.calls_to("chat.postMessage") == []
    for turn in (web, other):
        assert bot.assistant.store.explanation(turn.id) is None
        assert bot.assistant.store.feedback(turn.id) == []


# --------------------------------------------------------------------------- failures
class BrokenLLM:
    name = "broken"

    def complete(self, messages, *, n=1, temperature=0.0, max_tokens=None):
        raise RuntimeError("the model fell over")


def test_failing_llm_endpoint_gets_an_apology_in_the_thread(wiki, tmp_path, slack):
    with FakeOpenAI(responder=lambda request: Reply.error(500)) as server:
        llm = OpenAILLM(server.base_url, "fake-model", "sk-test", max_retries=0)
        bot = make_bot(wiki, tmp_path, slack, llm)
        bot.deliver(mention("1700000000.000100", "What does BATS stand for?"), "Ev1")
        (reply,) = bot.answers(1)
        bot.finish()
    assert reply["thread_ts"] == "1700000000.000100"
    assert reply["text"] == LLM_FAILED and "blocks" not in reply
    assert len(slack.calls_to("reactions.remove")) == 1  # 👀 cleared
    assert server.chat_requests  # the endpoint was tried


def test_any_failure_gets_an_apology_in_the_thread(wiki, tmp_path, slack):
    bot = make_bot(wiki, tmp_path, slack, BrokenLLM())
    bot.deliver(
        message("1700000000.000100", "What is BATS?", channel="D1", channel_type="im"), "Ev1"
    )
    (reply,) = bot.answers(1)
    bot.finish()
    assert reply["channel"] == "D1" and reply["text"] == ANSWER_FAILED


# --------------------------------------------------------------------------- scope, escaping
def test_a_channel_never_sees_a_forbidden_space(wiki, tmp_path, slack):
    bot = make_bot(wiki, tmp_path, slack, slack_channel_spaces="C1=TEST;CDEV=DEV")
    question = "Which Xen versions were used with Ubuntu?"
    bot.deliver(mention("1700000000.000100", question, channel="C1"), "Ev1")
    bot.deliver(mention("1700000000.000200", question, channel="COPEN"), "Ev2")
    answers = {a["channel"]: a for a in bot.answers(2)}
    bot.finish()

    assert "/pages/103/" not in json.dumps(answers["C1"]["blocks"])
    (turn_id,) = turn_ids(bot, "C1", "1700000000.000100")
    record = bot.assistant.turn_record(turn_id)
    assert record.evidences and {e["page_id"] for e in record.evidences} <= {"101", "102"}

    assert f"<{XEN_URL}|" in section_texts(answers["COPEN"]["blocks"])  # all spaces


@pytest.mark.parametrize(
    ("table", "channel", "expected"),
    [
        ("", "C1", None),
        ("C1=ENG,HR", "C1", {"ENG", "HR"}),
        ("C1=ENG,HR;C2=OPS", "C2", {"OPS"}),
        ("C1=ENG", "C9", None),
        ("C1=ENG;*=PUBLIC", "D1", {"PUBLIC"}),
        ("C1=", "C1", set()),
    ],
)
def test_channel_spaces(table, channel, expected):
    settings = Settings.load(environ={"CONFBOT_SLACK_CHANNEL_SPACES": table})
    assert channel_spaces(settings, channel) == expected


def test_a_channel_scope_narrows_its_answers_to_a_page_tree(wiki, tmp_path, slack):
    bot = make_bot(wiki, tmp_path, slack, slack_channel_scopes="C1=root:102,space:TEST")
    question = "What does BATS stand for?"
    bot.deliver(mention("1700000000.000100", question, channel="C1"), "Ev1")
    bot.deliver(mention("1700000000.000200", question, channel="COPEN"), "Ev2")
    answers = {a["channel"]: a for a in bot.answers(2)}
    bot.finish()

    assert "/pages/101/" not in json.dumps(answers["C1"]["blocks"])
    (turn_id,) = turn_ids(bot, "C1", "1700000000.000100")
    record = bot.assistant.turn_record(turn_id)
    assert record.evidences and {e["page_id"] for e in record.evidences} == {"102"}
    assert "Bash Automated Testing System" in section_texts(answers["COPEN"]["blocks"])


@pytest.mark.parametrize(
    ("table", "channel", "expected"),
    [
        ("", "C1", None),
        ("C1=label:Runbook,root:12", "C1", QueryScope.of(labels=["runbook"], roots=["12"])),
        ("C1=label:a;*=space:ENG", "D1", QueryScope.of(spaces=["ENG"])),
        ("C1=label:a", "C9", None),
        ("C1=", "C1", None),
    ],
)
def test_channel_scope(table, channel, expected):
    settings = Settings.load(environ={"CONFBOT_SLACK_CHANNEL_SCOPES": table})
    assert channel_scope(settings, channel) == expected


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("C1=runbook", "C1=runbook: 'runbook' is not space:KEY, label:NAME or root:PAGEID"),
        ("C2=label:a;*=root:1 2", "*=root:1 2: root '1 2' is not valid"),
    ],
)
def test_a_bad_channel_scope_names_the_variable_and_the_channel(table, message):
    settings = Settings.load(environ={"CONFBOT_SLACK_CHANNEL_SCOPES": table})
    (error,) = [str(e) for e in setting_errors(settings)]
    assert error.startswith(f"CONFBOT_SLACK_CHANNEL_SCOPES: {message}")


def test_page_and_llm_text_cannot_inject_mentions_or_formatting(wiki, tmp_path, slack):
    injected = "Ping <!channel> and <@U0EVE>: *now* & <https://evil.example|click> [1]"
    with FakeOpenAI(responder=lambda request: injected) as server:
        llm = OpenAILLM(server.base_url, "fake-model", "sk-test", max_retries=0)
        bot = make_bot(wiki, tmp_path, slack, llm)
        bot.deliver(mention("1700000000.000100", "What does BATS stand for?"), "Ev1")
        (answer,) = bot.answers(1)
        bot.finish()
    text = section_texts(answer["blocks"])
    assert "<!channel>" not in text and "<@U0EVE>" not in text and "<https://evil" not in text
    assert "&lt;!channel&gt;" in text and "&amp;" in text
    assert "\u200b*now*\u200b" in text  # the bold markers cannot pair up
    assert f"<{BATS_URL}|[1]>" in text
    assert "<!channel>" not in answer["text"]


# --------------------------------------------------------------------------- state
def test_slack_tables_match_the_models(tmp_path):
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from core.db import alembic_config

    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    with engine_for(url).connect() as connection:
        assert set(TABLES) <= set(inspect(connection).get_table_names())
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    ours = [d for d in diff if any(t in repr(d) for t in TABLES)]
    assert ours == []

    command.downgrade(alembic_config(url), "0002_sync_state")
    with engine_for(url).connect() as connection:
        assert not set(TABLES) & set(inspect(connection).get_table_names())


def test_claims_hold_once_and_old_ones_are_pruned(tmp_path):
    from datetime import timedelta

    from core.conversation import utcnow

    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    store = SlackStore(url)
    assert store.claim("event", "Ev1") and not store.claim("event", "Ev1")
    assert store.claim("explain", "T:C:1")
    store.release("explain", "T:C:1")
    assert store.claim("explain", "T:C:1")
    assert store.prune(utcnow() + timedelta(days=2)) == 1  # the event; explain claims stay
    assert store.claim("event", "Ev1") and not store.claim("explain", "T:C:1")


def test_askers_are_remembered_per_workspace_and_user(tmp_path):
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    store = SlackStore(url)
    for turn_id in (3, 9, 10, 11):
        store.remember_asker("T1", "U1", turn_id)
    store.remember_asker("T1", "U2", 12)
    store.remember_asker("T2", "U1", 13)
    store.remember_asker("T1", "", 14)  # no user: nothing to remember
    assert store.asked_by("T1", "U1", limit=3) == [11, 10, 9]
    assert store.asked_by("T1", "U2") == [12] and store.asked_by("T2", "U1") == [13]
    assert store.asked_by("T1", "U%") == []  # the user id is no pattern
    assert not store.claimed("quiet", "T1:C1:1.1")
    store.claim("quiet", "T1:C1:1.1")
    assert store.claimed("quiet", "T1:C1:1.1")


def test_failed_explanation_is_apologised_for_and_can_be_retried(wiki, tmp_path, slack):
    with FakeOpenAI(responder=lambda request: Reply.error(500)) as server:
        server.push("BATS stands for Bash Automated Testing System [1].")
        llm = OpenAILLM(server.base_url, "fake-model", "sk-test", max_retries=0)
        bot = make_bot(wiki, tmp_path, slack, llm)
        thread = "1700000000.000100"
        bot.deliver(mention(thread, "What does BATS stand for?"), "Ev1")
        (answer,) = bot.answers(1)
        (turn_id,) = turn_ids(bot, "C1", thread)

        bot.click(EXPLAIN_ACTION, turn_id, answer)
        apology = bot.answers(2)[1]
        assert apology["thread_ts"] == thread and apology["text"] == EXPLAIN_FAILED
        slack.wait_for("reactions.remove", 2)

        server.responder = lambda request: "BATS is a test system."
        bot.click(EXPLAIN_ACTION, turn_id, answer)  # the failed attempt left no claim
        explanation = bot.answers(3)[2]
        bot.finish()
    assert "%" in section_texts(explanation["blocks"])
    assert slack.calls_to("chat.postEphemeral") == []


def test_socket_mode_requests_need_no_signature(wiki, tmp_path, slack):
    """Socket Mode delivers events over the app's own WebSocket: no signing secret is
    needed, and an App without one refuses every HTTP request."""
    bot = make_bot(wiki, tmp_path, slack, slack_signing_secret="")
    body = json.loads(event_request(mention("1.1", "What does BATS stand for?"), "Ev1").raw_body)
    assert bot.app.dispatch(BoltRequest(body=body, mode="socket_mode")).status == 200
    assert bot.answers(1)[0]["thread_ts"] == "1.1"

    unsigned = event_request(mention("1.2", "What does BATS stand for?"), "Ev2")
    assert bot.app.dispatch(unsigned).status == 401  # signed with a secret it does not have
    bot.finish()
    assert len(slack.calls_to("chat.postMessage")) == 1


def test_bot_command_without_tokens_is_a_configuration_error(tmp_path, monkeypatch, capsys):
    from bot.cli import main

    monkeypatch.setenv("CONFBOT_DATA_DIR", str(tmp_path / "data"))
    assert main(["bot"]) == 2
    assert "SLACK_APP_TOKEN is not set" in capsys.readouterr().err


def test_suggestion_button_asks_it_in_the_thread_once(bot, slack):
    thread = "1700000000.000100"
    bot.deliver(mention(thread, "What does BATS stand for?"), "Ev1")
    (answer,) = bot.answers(1)
    posted = [e for b in answer["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert not any(b["action_id"].startswith(SUGGEST_ACTION) for b in posted)  # not waited for
    (update,) = slack.wait_for("chat.update")  # the buttons come once they are computed
    assert (update.params["channel"], update.params["ts"]) == ("C1", answer["ts"])
    (turn_id,) = turn_ids(bot, "C1", thread)
    suggestions = bot.assistant.turn_record(turn_id).messages["suggestions"]
    assert suggestions
    blocks = update.params["blocks"]
    assert section_texts(blocks) == section_texts(answer["blocks"])  # the same answer
    buttons = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
    asked = next(b for b in buttons if b["action_id"] == f"{SUGGEST_ACTION}_0")
    assert asked["value"] == f"{turn_id}:0" and asked["text"]["text"] == suggestions[0]

    bot.click(f"{SUGGEST_ACTION}_0", f"{turn_id}:0", answer)
    bot.click(f"{SUGGEST_ACTION}_0", f"{turn_id}:0", answer)  # Slack delivers it again
    bot.finish()
    posts = slack.calls_to("chat.postMessage")
    assert posts[1].params["text"] == f"<@{USER}> asked: {suggestions[0]}"
    assert all(p.params["thread_ts"] == thread for p in posts)
    assert len(posts) == 3  # the answer, the asked question, its answer: once
    first, second = bot.assistant.store.turns(ConversationKey("slack", TEAM_ID, "C1", thread))
    assert second.question == suggestions[0]
