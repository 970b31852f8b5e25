"""The Slack bot: a slack-bolt `App` that answers wiki questions in Slack threads.

Where it answers: every `app_mention`, every direct message, and every message in a thread
the bot has been asked in before (no need to mention it again). It always replies in the
thread (`thread_ts`, or the message's own `ts` for a new thread), and one thread is one
conversation (`ConversationKey("slack", team, channel, thread ts)`), so follow-ups are
completed from the thread's earlier turns. Messages from bots, its own included, and edits
and other message subtypes are ignored. In the channels of `slack_auto_answer_channels` it
also answers top-level questions nobody asked it, only when confident (`bot.slack_auto`).
The `/confbot` command, the "Ask confbot about this thread" shortcut and Share to channel
are in `bot.slack_commands`, the Home tab in `bot.slack_home`; `build_app` registers them.

Exactly once: Slack redelivers an event it thinks was not acknowledged (same `event_id`,
with an `X-Slack-Retry-Num` header), and a mention in a channel arrives twice, as
`app_mention` and as `message`, with different event ids. A global middleware claims each
event id and the answer claims the message (team, channel, ts) in the database
(`bot.slack_state`); a claim is a row insert that fails when the row exists, so the second
delivery does nothing, in this process or any other replica sharing the database.

Ack at once, work lazily: every listener acknowledges immediately and answers, explains or
records feedback in a lazy listener (`lazy=[...]`, run on `slack_workers` threads). The
App runs with `process_before_response=True`, so acknowledgements run on the request's own
thread and never queue behind answers being worked on. While it works the bot puts 👀 on the
message; when anything fails the thread gets a short apology instead of silence. The
suggested follow-up buttons are added to the posted answer afterwards (`chat.update`): they
cost searches, and the answer does not wait for them. A model's answer is posted as soon as
its sources are known and edited while it is written (`bot.slack_stream.LiveAnswer`, at most
one edit a second); the offline answer, ready at once, is posted once.

Socket Mode (`confbot bot`, `run_socket_mode`, and `confbot serve`) needs `SLACK_APP_TOKEN`
and `SLACK_BOT_TOKEN`; `socket_mode_handler` makes its one connection. HTTP mode is served by
the web app (`bot/web.py` dispatches `SLACK_EVENTS_PATH`, the Event Subscriptions and
Interactivity request URL, to the App from `build_app`), which verifies each request's
signature with `SLACK_SIGNING_SECRET`.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import secrets
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from prometheus_client import Counter
from slack_bolt import App, BoltContext, BoltRequest, BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.signature import SignatureVerifier

from bot.askers import SlackAskers
from bot.blocks import (
    EXPLAIN_ACTION,
    FEEDBACK_DOWN_ACTION,
    FEEDBACK_UP_ACTION,
    SUGGEST_ACTION,
    answer_blocks,
    answer_text,
    explanation_blocks,
    explanation_text,
    mentions,
    plain_text,
)
from bot.slack_auto import auto_answered, confident
from bot.slack_commands import add_entry_points
from bot.slack_requests import apology, channel_scope, channel_spaces, workspace_of
from bot.slack_state import SlackStore
from bot.slack_stream import LiveAnswer
from core.assistant import Assistant, ConversationKey, Turn
from core.bounds import MAX_ID, ascii_int
from core.combine import CheckedLLM
from core.present import Named, language_of, named_sources
from core.settings import Settings, SettingsError

log = logging.getLogger(__name__)

EVENTS_RECEIVED = Counter("confbot_slack_events_received", "Slack Events API deliveries received.")
EVENTS_DEDUPLICATED = Counter(
    "confbot_slack_events_deduplicated", "Slack event deliveries dropped as seen before."
)

SLACK_EVENTS_PATH = "/slack/events"
WORKING_REACTION = "eyes"
ANSWERED_SUBTYPES = (None, "file_share", "thread_broadcast")
CHANNEL_TYPES = ("channel", "group", "im", "mpim")
"""Slack's kinds of channel: public channel, private channel, DM, group DM."""
CHANNEL_FLAGS = (("im", "is_im"), ("mpim", "is_mpim"), ("group", "is_private"))
"""`conversations.info` flags naming a private kind, most specific first."""

EMPTY_QUESTION = "Ask me anything about the wiki, and I'll answer here with the sources."
EXPLAIN_FAILED = (
    ":warning: Sorry, I couldn't work out the explanation of this answer. Please try again later."
)
ALREADY_EXPLAINED = "The explanation of this answer is already in the thread (or on its way)."
THANKS = {
    "up": "Thanks for the 👍, noted!",
    "down": "Thanks for the 👎, noted; it helps us improve.",
}
TURN_GONE = "Sorry, I can't find that answer any more."
MAX_SLACK_TIMESTAMP = 10**12
"""Largest request timestamp read (Unix seconds; year 33658): Slack's are ten digits."""


def from_a_person(event: dict, bot_user_id: str | None) -> bool:
    """Whether a message event was written by a person (not a bot, not this bot)."""
    return (
        bool(event.get("user"))
        and not event.get("bot_id")
        and event.get("subtype") != "bot_message"
        and event.get("user") != bot_user_id
    )


def acknowledge(ack) -> None:
    """The ack function of every listener: acknowledge at once, the work is lazy."""
    ack()


class SlackBot:
    """The listeners, each a thin layer over `core.assistant.Assistant`."""

    def __init__(self, settings: Settings, assistant: Assistant, state: SlackStore):
        self.settings = settings
        self.assistant = assistant
        self.state = state
        self._channel_types: dict[str, str] = {}
        self.askers = SlackAskers(assistant.access)

    # ------------------------------------------------------------------ middleware
    def deduplicate(self, body: dict, request: BoltRequest, next, logger: logging.Logger):
        """Let each Events API event id through once; later deliveries are acknowledged and
        dropped (the claim is a database row, so this holds across processes)."""
        event_id = body.get("event_id")
        if request.lazy_only or body.get("type") != "event_callback" or not event_id:
            return next()
        EVENTS_RECEIVED.inc()
        if self.state.claim("event", event_id):
            return next()
        EVENTS_DEDUPLICATED.inc()
        retry = (request.headers.get("x-slack-retry-num") or ["-"])[0]
        logger.info("Slack event %s delivered again (retry %s): skipped", event_id, retry)
        return BoltResponse(status=200, body="")

    # ------------------------------------------------------------------ events
    def on_mention(self, body: dict, event: dict, client: WebClient, context: BoltContext):
        """`app_mention`: answer in the thread."""
        if from_a_person(event, context.bot_user_id):
            self.answer(client, workspace_of(body, context), event, context.bot_user_id)

    def on_message(self, body: dict, event: dict, client: WebClient, context: BoltContext):
        """`message`: answer direct messages, messages that mention the bot (whichever of
        this and `app_mention` comes first) and follow-ups in the bot's threads."""
        if event.get("subtype") not in ANSWERED_SUBTYPES:
            return
        if not from_a_person(event, context.bot_user_id):
            return
        team = workspace_of(body, context)
        thread = event.get("thread_ts")
        if (
            event.get("channel_type") == "im"
            or mentions(event.get("text") or "", context.bot_user_id)
            or (
                thread
                and thread != event.get("ts")
                and self.state.in_thread(ConversationKey("slack", team, event["channel"], thread))
                and not self.state.claimed("quiet", f"{team}:{event['channel']}:{thread}")
            )
        ):
            self.answer(client, team, event, context.bot_user_id)
        elif auto_answered(self.settings, event, plain_text(event.get("text") or "")):
            self.answer(client, team, event, context.bot_user_id, quiet=True)

    def on_reaction(self, body: dict, event: dict, client: WebClient, context: BoltContext):
        """`reaction_added`: the explain reaction on an answer posts its explanation."""
        item = event.get("item") or {}
        if event.get("reaction") != self.settings.slack_explain_reaction:
            return
        if item.get("type") != "message":
            return
        team = workspace_of(body, context)
        found = self.state.answer_at(team, item.get("channel", ""), item.get("ts", ""))
        if found is not None:
            turn_id, thread = found
            self.explain(
                client, team, item["channel"], thread, turn_id, event.get("user"), item["ts"]
            )

    # ------------------------------------------------------------------ buttons
    def on_explain_button(self, body: dict, client: WebClient, context: BoltContext):
        """The Explain button: post the explanation in the thread."""
        channel, thread, answer_ts = _message_place(body)
        team = workspace_of(body, context)
        user = (body.get("user") or {}).get("id")
        turn_id = self.turn_here(body, team, channel)
        if turn_id is None:
            if user:
                client.chat_postEphemeral(
                    channel=channel, user=user, thread_ts=thread, text=TURN_GONE
                )
            return
        self.explain(client, team, channel, thread, turn_id, user, answer_ts)

    def on_feedback(self, body: dict, client: WebClient, context: BoltContext, respond):
        """👍 / 👎: store the rating on the turn, thank the user privately (on a private
        answer, through its `response_url`: it is in no thread)."""
        action = body["actions"][0]
        value = "up" if action["action_id"] == FEEDBACK_UP_ACTION else "down"
        user = (body.get("user") or {}).get("id", "")
        channel, thread, _ = _message_place(body)
        turn_id = self.turn_here(body, workspace_of(body, context), channel)
        text = TURN_GONE
        if turn_id is not None:
            self.assistant.feedback(turn_id, value, user=user)
            text = THANKS[value]
        if (body.get("container") or {}).get("is_ephemeral"):
            respond(text=text, response_type="ephemeral", replace_original=False)
            return
        client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread, text=text)

    def on_suggestion(self, body: dict, client: WebClient, context: BoltContext):
        """A suggested follow-up button: ask that question in the thread, once per answer
        and suggestion however often the click is delivered, credited to the user."""
        channel, thread, _ = _message_place(body)
        team = workspace_of(body, context)
        user = (body.get("user") or {}).get("id", "")
        turn_id = self.turn_here(body, team, channel)
        record = self.assistant.turn_record(turn_id) if turn_id is not None else None
        _, _, index = str(body["actions"][0].get("value") or "").partition(":")
        suggestions = record.messages.get("suggestions") or [] if record else []
        if not suggestions or not _index_below(index, len(suggestions)):
            if user:
                client.chat_postEphemeral(
                    channel=channel, user=user, thread_ts=thread, text=TURN_GONE
                )
            return
        if not self.state.claim("suggest", f"{team}:{channel}:{turn_id}:{index}"):
            return
        question = suggestions[int(index)]
        asked = client.chat_postMessage(
            channel=channel, thread_ts=thread, text=f"<@{user}> asked: {question}"
        )
        event = {"channel": channel, "ts": asked["ts"], "thread_ts": thread, "text": question}
        event["user"] = user  # the audience is the clicker's (a DM) or the channel's
        self.answer(client, team, event, None)

    def turn_here(self, body: dict, team: str, channel: str) -> int | None:
        """The turn a button names, if it is a turn answered in Slack in this workspace and
        channel: a button value (a turn id, for suggestions "<turn id>:<index>") never
        reaches another surface's turns."""
        value = str((body.get("actions") or [{}])[0].get("value") or "").partition(":")[0]
        try:
            turn_id = ascii_int(value, 1, MAX_ID, "turn")
        except ValueError:  # not a turn id this bot wrote: answered as a turn gone
            return None
        key = self.assistant.store.turn_key(turn_id)
        if key is None or (key.surface, key.workspace, key.channel) != ("slack", team, channel):
            return None
        return turn_id

    # ------------------------------------------------------------------ the work
    def answer(
        self,
        client: WebClient,
        team: str,
        event: dict,
        bot_user_id: str | None,
        quiet: bool = False,
    ) -> None:
        """Answer one message in its thread, once. `quiet` is an auto-answer nobody asked
        for (`bot.slack_auto`): no 👀 and no apology, and the answer is posted only when
        confident; the thread is quiet (its replies not answered) until then, and stays so
        when it is not."""
        channel, ts = event["channel"], event["ts"]
        thread = event.get("thread_ts") or ts
        if not self.state.claim("message", f"{team}:{channel}:{ts}"):
            return
        question = plain_text(event.get("text") or "", bot_user_id)
        if not question:
            if not quiet:
                self._post(client, channel, thread, EMPTY_QUESTION)
            return
        key = ConversationKey("slack", team, channel, thread)
        if quiet:  # quiet until answered: a reply that comes meanwhile is not answered either
            self.state.claim("quiet", f"{team}:{channel}:{thread}")
        else:
            self._react(client, "add", channel, ts)
        # A model's answer is shown while it is written (post, then edit: bot.slack_stream);
        # an auto-answer is posted only once it is known to be confident.
        live = LiveAnswer(client, channel, thread)
        streams = isinstance(self.assistant.llm, CheckedLLM) and not quiet
        try:
            # the bot is now part of the thread; where it is decides who may see the question
            self.assistant.store.conversation_id(key, self._channel_type(client, event))
            self.askers.bot_user_id = self.askers.bot_user_id or bot_user_id
            readers = self.askers.audience(
                client, channel, event.get("user") or "", event.get("channel_type")
            )
            turn = self.assistant.ask(
                key,
                question,
                spaces=channel_spaces(self.settings, channel),
                suggest=False,
                within=channel_scope(self.settings, channel),
                readers=readers,
                on_sources=(lambda found: live.sources([r.evidence.title for r in found]))
                if streams
                else None,
                on_text=live.text if streams else None,
            )
            if quiet and not confident(self.assistant, turn):
                log.info("auto-answer of %s in %s: not confident, stayed silent", ts, channel)
                return
            # answered here now (an unasked question, or one asked after a silence)
            self.state.release("quiet", f"{team}:{channel}:{thread}")
            self.state.remember_asker(team, event.get("user") or "", turn.id)
            posted_ts = live.finish(
                text=answer_text(turn),
                blocks=answer_blocks(turn, self.pages(turn)),
                unfurl_links=False,
                unfurl_media=False,
            )
        except Exception as exc:
            log.exception("answering message %s in %s failed", ts, channel)
            if not quiet:
                if live.ts is None:
                    self._post(client, channel, thread, apology(exc))
                else:  # the half-written answer becomes the apology
                    self._update(client, channel, live.ts, apology(exc))
                self._react(client, "remove", channel, ts)
            return
        try:  # recorded before the 👀 goes, so an explain reaction always finds the turn
            self.state.remember_answer(team, channel, posted_ts, thread, turn.id)
        except Exception:
            log.exception("could not record the answer message of turn %d", turn.id)
        if not quiet:
            self._react(client, "remove", channel, ts)
        self._add_suggestions(client, channel, posted_ts, turn)

    def _channel_type(self, client: WebClient, event: dict) -> str | None:
        """The kind of channel a message was posted in (`channel`, `group`, `im`, `mpim`):
        the event's `channel_type` (message events have it), else `conversations.info`
        (`app_mention` events lack it), else None, which reports treat as private."""
        kind = event.get("channel_type")
        if kind in CHANNEL_TYPES:
            return kind
        channel = event.get("channel", "")
        if channel in self._channel_types:
            return self._channel_types[channel]
        try:
            info = client.conversations_info(channel=channel).get("channel") or {}
        except SlackApiError as exc:
            log.info("conversations.info on %s failed: %s", channel, exc.response.get("error"))
            return None
        found = next((k for k, flag in CHANNEL_FLAGS if info.get(flag)), None)
        if found is None and info.get("is_channel") and info.get("is_private") is False:
            found = "channel"
        if found is not None and len(self._channel_types) < 10_000:
            self._channel_types[channel] = found
        return found

    def _add_suggestions(self, client: WebClient, channel: str, ts: str, turn: Turn) -> None:
        """Add the suggested follow-up buttons to a posted answer: they are computed after
        it is posted (each costs a search), so the answer never waits for them."""
        if not turn.suggestions_pending:
            return
        try:
            suggestions = self.assistant.suggest(turn.id)
            if not suggestions:
                return
            shown = dataclasses.replace(turn, suggestions=suggestions, suggestions_pending=False)
            client.chat_update(
                channel=channel,
                ts=ts,
                text=answer_text(shown),
                blocks=answer_blocks(shown, self.pages(shown)),
            )
        except Exception:
            log.exception("could not add the suggested follow-ups of turn %d", turn.id)

    def explain(
        self,
        client: WebClient,
        team: str,
        channel: str,
        thread: str,
        turn_id: int,
        user: str | None,
        answer_ts: str,
    ) -> None:
        """Post the explanation of a turn's answer in its thread, once per answer."""
        claim = f"{team}:{channel}:{turn_id}"
        if not self.state.claim("explain", claim):
            if user:
                client.chat_postEphemeral(
                    channel=channel, user=user, thread_ts=thread, text=ALREADY_EXPLAINED
                )
            return
        self._react(client, "add", channel, answer_ts)
        try:
            explanation = self.assistant.explain(turn_id)
            sources, language = self._named_sources(turn_id)
            client.chat_postMessage(
                channel=channel,
                thread_ts=thread,
                text=explanation_text(explanation, sources, language),
                blocks=explanation_blocks(explanation, sources, language),
                unfurl_links=False,
                unfurl_media=False,
            )
        except Exception:
            log.exception("explaining turn %d failed", turn_id)
            self.state.release("explain", claim)
            self._post(client, channel, thread, EXPLAIN_FAILED)
        finally:
            self._react(client, "remove", channel, answer_ts)

    def _named_sources(self, turn_id: int) -> tuple[list[Named], str]:
        """The turn's prompt sources as its explanation names them (numbered as its answer
        shows them, with their sections read from the index), and the reply's language."""
        record = self.assistant.turn_record(turn_id)
        if record is None:
            return [], "en"
        evidences = record.evidences or []
        found = self.assistant.index.get([str(item.get("id", "")) for item in evidences])
        headings = {e.id: e.heading for e in found}
        return named_sources(record.answer, evidences, headings), language_of(record.question)

    def pages(self, turn: Turn) -> dict:
        """The indexed records of the cited pages (for their spaces and dates)."""
        pages = {}
        for citation in turn.citations:
            if citation.page_id not in pages:
                try:
                    page = self.assistant.index.page(citation.page_id)
                except Exception:
                    log.exception("could not read page %s from the index", citation.page_id)
                    page = None
                if page is not None:
                    pages[citation.page_id] = page
        return pages

    @staticmethod
    def _post(client: WebClient, channel: str, thread: str, text: str) -> None:
        try:
            client.chat_postMessage(channel=channel, thread_ts=thread, text=text)
        except Exception:
            log.exception("could not post to %s", channel)

    @staticmethod
    def _update(client: WebClient, channel: str, ts: str, text: str) -> None:
        try:
            client.chat_update(channel=channel, ts=ts, text=text, blocks=[])
        except Exception:
            log.exception("could not edit message %s in %s", ts, channel)

    @staticmethod
    def _react(client: WebClient, how: str, channel: str, ts: str) -> None:
        """Add or remove the 👀 reaction; a reaction that fails is not worth an error."""
        try:
            if how == "add":
                client.reactions_add(channel=channel, timestamp=ts, name=WORKING_REACTION)
            else:
                client.reactions_remove(channel=channel, timestamp=ts, name=WORKING_REACTION)
        except SlackApiError as exc:
            log.debug("reactions.%s on %s failed: %s", how, ts, exc.response.get("error"))


def _message_place(body: dict) -> tuple[str, str, str]:
    """(channel, thread ts, message ts) of the message whose button was clicked."""
    container = body.get("container") or {}
    message = body.get("message") or {}
    channel = (body.get("channel") or {}).get("id") or container.get("channel_id", "")
    message_ts = message.get("ts") or container.get("message_ts", "")
    thread = message.get("thread_ts") or container.get("thread_ts") or message_ts
    return channel, thread, message_ts


def _index_below(text: str, count: int) -> bool:
    """Whether `text` is an index (ASCII digits) below `count`."""
    try:
        ascii_int(text, 0, count - 1, "index")
    except ValueError:
        return False
    return True


def signed_by_slack(secret: str, headers: Mapping[str, str], body: bytes) -> bool:
    """Whether a request carries a valid Slack signature made in the last five minutes
    (Slack's "Verifying requests from Slack"): checked before anything parses or logs the
    body, so an unsigned request costs nothing and leaves no trace of its content."""
    timestamp = headers.get("x-slack-request-timestamp", "")
    signature = headers.get("x-slack-signature", "")
    if not secret or not signature.startswith("v0=") or len(signature) > 100:
        return False
    try:  # ASCII digits only ("²".isdigit() is true), and a time that can be now
        ascii_int(timestamp, 0, MAX_SLACK_TIMESTAMP, "X-Slack-Request-Timestamp")
    except ValueError:
        return False
    return SignatureVerifier(secret).is_valid(body, timestamp, signature)


def build_app(settings: Settings, assistant: Assistant, client: WebClient | None = None) -> App:
    """The slack-bolt App with every listener, for Socket Mode or HTTP mode.

    `client` defaults to a `WebClient` with `slack_bot_token` (tests pass one pointed at a
    fake Slack). The token is checked with `auth.test` now. HTTP requests are verified with
    `slack_signing_secret`; without one, a random secret makes every HTTP request fail
    verification, so an App meant for Socket Mode can never be driven over HTTP unsigned.
    """
    if client is None:
        client = WebClient(
            token=settings.require("slack_bot_token"), base_url=settings.slack_api_url
        )
    bot = SlackBot(settings, assistant, SlackStore(settings.sqlalchemy_url))
    app = App(
        client=client,
        signing_secret=settings.slack_signing_secret or secrets.token_hex(32),
        process_before_response=True,
        listener_executor=ThreadPoolExecutor(
            max_workers=max(1, settings.slack_workers), thread_name_prefix="confbot-slack"
        ),
        name="confbot",
    )
    app.use(bot.deduplicate)
    app.event("app_mention")(ack=acknowledge, lazy=[bot.on_mention])
    app.event("message")(ack=acknowledge, lazy=[bot.on_message])
    app.event("reaction_added")(ack=acknowledge, lazy=[bot.on_reaction])
    app.action(EXPLAIN_ACTION)(ack=acknowledge, lazy=[bot.on_explain_button])
    feedback = re.compile(f"^(?:{FEEDBACK_UP_ACTION}|{FEEDBACK_DOWN_ACTION})$")
    app.action(feedback)(ack=acknowledge, lazy=[bot.on_feedback])
    app.action(re.compile(f"^{SUGGEST_ACTION}_\\d+$"))(ack=acknowledge, lazy=[bot.on_suggestion])
    add_entry_points(app, bot)
    return app


def socket_mode_handler(app: App, app_token: str):
    """The Socket Mode connection of `app`, not connected yet: it asks
    `apps.connections.open` with `app_token` through the app's own `WebClient`, acknowledges
    each envelope as the listeners ack, and reconnects by itself when the connection drops
    or Slack asks it to (a `disconnect` message).

    slack-bolt's adapter on the `websocket-client` package: it sees a connection that died
    without a close frame at once and reconnects in about 0.5 s, where the adapter on
    slack-sdk's built-in client only notices after five failed pings (50 s with its default
    10 s interval; measured in docs/benchmarks.md, `benchmarks/socket_mode_reconnect.py`)."""
    from slack_bolt.adapter.socket_mode.websocket_client import SocketModeHandler

    return SocketModeHandler(app, app_token)


def run_socket_mode(settings: Settings) -> int:
    """Answer in Slack over Socket Mode until interrupted (`confbot bot`)."""
    app_token = settings.require("slack_app_token")
    settings.require("slack_bot_token")
    assistant = Assistant.from_settings(settings)
    try:
        assistant.warm_up()  # before Slack sends the first question
        try:
            app = build_app(settings, assistant)
            log.info("confbot is connecting to Slack over Socket Mode")
            handler = socket_mode_handler(app, app_token)
            handler.connect()
        except Exception as exc:
            raise SettingsError(
                f"Slack could not be started ({type(exc).__name__}: {exc}); check"
                " SLACK_BOT_TOKEN, SLACK_APP_TOKEN and that Slack can be reached"
            ) from None
        threading.Event().wait()  # the connection runs in its own threads until Ctrl-C
    except KeyboardInterrupt:
        pass
    finally:
        assistant.close()
    return 0
