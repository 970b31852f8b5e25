"""Private answers: the `/confbot` slash command, the "Ask confbot about this thread"
message shortcut, and the Share to channel button on what they answer.

Both answer privately (an ephemeral message only the asker sees): a slash command is typed
where anyone may be reading, and a shortcut on a colleague's thread is the asker's own
look-up; a private answer costs the channel nothing when it is wrong. Share to channel
posts the answer for everyone (with Explain, 👍 and 👎, as a mention's answer has) and
removes the private copy.

- `/confbot question`: acknowledged at once (an empty one with the help text, in the ack
  itself), answered through the command's `response_url`, which works in any channel or
  DM, the bot a member or not. Each command is a conversation of its own.
- The shortcut reads the thread (`conversations.replies`): the question is the message it
  was used on when that reads as one, else the thread's latest question, else its first
  message; the first message is carried as context ("(context: ...)", which the completer
  and the offline answerer read as a follow-up's topic). The answer is an ephemeral
  message in the thread; asking again in the same thread continues the conversation.
- Share posts in the channel (the command) or the thread (the shortcut), once, however often
  the click is delivered; the bot must be in the channel to post, and says so otherwise.

Private conversations are keyed by channel and `private:...` threads, so they never make
the bot part of a real thread, and every button finds its turn in the channel it is in.
"""

from __future__ import annotations

import logging
import uuid
from typing import TYPE_CHECKING

from slack_bolt import App, BoltContext
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.blocks import (
    SHARE_ACTION,
    answer_text,
    clip,
    plain_text,
    private_answer_blocks,
    shared_answer_blocks,
)
from bot.slack_auto import looks_like_question
from bot.slack_home import AppHome
from bot.slack_requests import apology, channel_scope, channel_spaces, workspace_of
from core.answer import Citation
from core.assistant import ConversationKey, Turn
from core.retrieve import ScoredEvidence

if TYPE_CHECKING:
    from bot.slack import SlackBot

log = logging.getLogger(__name__)

COMMAND = "/confbot"
THREAD_SHORTCUT = "confbot_ask_thread"
MAX_THREAD_MESSAGES = 100
MAX_CONTEXT_CHARS = 300

COMMAND_HELP = (
    "Ask me about the wiki: `/confbot How do I get VPN access?`. Only you see the answer;"
    " *Share to channel* posts it for everyone. You can also mention @confbot in a thread,"
    " send me a direct message, or use *Ask confbot about this thread* on any message."
)
THREAD_EMPTY = (
    "I couldn't find a question in this thread. If it is in a channel I'm not in, invite me"
    " (/invite @confbot) and try again."
)
ALREADY_SHARED = "This answer has already been shared."
CANNOT_SHARE = (
    "I can't post in this conversation. Invite me (/invite @confbot) and press Share again."
)
ANSWER_GONE = "Sorry, I can't find that answer any more (the wiki changed); please ask again."


def add_entry_points(app: App, bot: SlackBot) -> None:
    """Register the slash command, the message shortcut, Share and the App Home on `app`,
    each acknowledged at once and worked on lazily like the bot's other listeners."""
    private = PrivateAnswers(bot)
    home = AppHome(bot.settings, bot.assistant, bot.state)
    app.command(COMMAND)(ack=acknowledge_command, lazy=[private.on_command])
    app.shortcut(THREAD_SHORTCUT)(ack=_acknowledge, lazy=[private.on_thread_shortcut])
    app.action(SHARE_ACTION)(ack=_acknowledge, lazy=[private.on_share])
    app.event("app_home_opened")(ack=_acknowledge, lazy=[home.on_home_opened])


def _acknowledge(ack) -> None:
    ack()


def acknowledge_command(ack, body: dict) -> None:
    """Acknowledge `/confbot`; an empty one gets the help text as the acknowledgement."""
    if plain_text(body.get("text") or ""):
        ack()
    else:
        ack(text=COMMAND_HELP)


def ts_order(ts: str) -> tuple[int, ...]:
    """A Slack timestamp ("1700000000.000100") as a sortable tuple."""
    parts = (ts or "0").split(".")
    return tuple(int(p) if p.isascii() and p.isdigit() and len(p) <= 12 else 0 for p in parts)


def thread_question(messages: list[dict], clicked_ts: str, bot_user_id: str | None) -> str:
    """The question a thread asks, as the shortcut sends it: the people's messages up to
    the one clicked; that one if it reads as a question, else the latest that does, else
    the first; with the first message as context when it is not the question."""
    said = [
        (message.get("ts", ""), plain_text(message.get("text") or "", bot_user_id))
        for message in sorted(messages, key=lambda m: ts_order(m.get("ts", "")))
        if message.get("user")
        and not message.get("bot_id")
        and message.get("user") != bot_user_id
        and ts_order(message.get("ts", "")) <= ts_order(clicked_ts)
    ]
    said = [(ts, text) for ts, text in said if text]
    if not said:
        return ""
    clicked = [text for ts, text in said if ts == clicked_ts]
    asking = [text for _, text in said if looks_like_question(text)]
    if clicked and looks_like_question(clicked[0]):
        question = clicked[0]
    elif asking:
        question = asking[-1]
    else:
        question = clicked[0] if clicked else said[0][1]
    first = said[0][1]
    if first == question:
        return question
    topic = clip(" ".join(first.replace("(", " ").replace(")", " ").split()), MAX_CONTEXT_CHARS)
    return f"{question} (context: {topic})"


def stored_turn(bot: SlackBot, turn_id: int) -> Turn | None:
    """A stored turn as it was answered, for Share: its evidences read back from the index
    (None when one is gone: the answer's citations would point at the wrong sources), less
    the near-duplicate pages each stood for (the trace keeps no catalog entry of them)."""
    record = bot.assistant.turn_record(turn_id)
    key = bot.assistant.store.turn_key(turn_id)
    if record is None or key is None:
        return None
    traced = record.evidences or []
    found = {e.id: e for e in bot.assistant.index.get([str(t.get("id", "")) for t in traced])}
    if any(str(t.get("id", "")) not in found for t in traced):
        return None
    messages = record.messages or {}
    return Turn(
        id=record.id,
        key=key,
        question=record.question,
        completed_question=record.completed_question,
        query=messages.get("query") or record.completed_question,
        answer=record.answer,
        citations=[Citation(**c) for c in record.citations or []],
        evidences=[
            ScoredEvidence(found[str(t["id"])], float(t.get("score", 0.0)), int(t.get("rank", n)))
            for n, t in enumerate(traced, 1)
        ],
        timings={},
        model=record.model,
        out_of_scope=record.out_of_scope,
        corrections=messages.get("spelling") or {},
    )


class PrivateAnswers:
    """The listeners of the slash command, the thread shortcut and Share, over the
    `SlackBot`'s assistant and state."""

    def __init__(self, bot: SlackBot):
        self.bot = bot

    def ask(self, team: str, channel: str, thread: str, user: str, question: str) -> Turn:
        """Answer `question` in the private conversation `thread` of `channel`."""
        key = ConversationKey("slack", team, channel, thread)
        spaces = channel_spaces(self.bot.settings, channel)
        within = channel_scope(self.bot.settings, channel)
        turn = self.bot.assistant.ask(key, question, spaces=spaces, suggest=False, within=within)
        self.bot.state.remember_asker(team, user, turn.id)
        return turn

    def on_command(self, body: dict, respond, context: BoltContext) -> None:
        """`/confbot question`: answer privately through the command's response URL."""
        question = plain_text(body.get("text") or "")
        if not question:
            return  # the acknowledgement carried the help text
        team = workspace_of(body, context)
        channel, user = body.get("channel_id", ""), body.get("user_id", "")
        if not self.bot.state.claim("command", body.get("trigger_id") or uuid.uuid4().hex):
            return
        try:
            turn = self.ask(team, channel, f"private:{uuid.uuid4().hex}", user, question)
            respond(
                response_type="ephemeral",
                replace_original=False,
                text=answer_text(turn),
                blocks=private_answer_blocks(turn, self.bot.pages(turn)),
            )
        except Exception as exc:
            log.exception("answering /confbot in %s failed", channel)
            respond(response_type="ephemeral", replace_original=False, text=apology(exc))

    def on_thread_shortcut(
        self, body: dict, client: WebClient, respond, context: BoltContext
    ) -> None:
        """ "Ask confbot about this thread": read the thread, answer privately in it."""
        team = workspace_of(body, context)
        channel = (body.get("channel") or {}).get("id", "")
        user = (body.get("user") or {}).get("id", "")
        message = body.get("message") or {}
        root = message.get("thread_ts") or message.get("ts", "")
        if not self.bot.state.claim("shortcut", body.get("trigger_id") or uuid.uuid4().hex):
            return
        try:
            replies = client.conversations_replies(
                channel=channel, ts=root, limit=MAX_THREAD_MESSAGES
            ).get("messages")
        except SlackApiError as exc:  # not in the channel: the clicked message is all we have
            log.info("conversations.replies in %s failed: %s", channel, exc.response.get("error"))
            replies = [message]
        question = thread_question(replies or [message], message.get("ts", ""), context.bot_user_id)
        try:
            if not question:
                client.chat_postEphemeral(
                    channel=channel, user=user, thread_ts=root, text=THREAD_EMPTY
                )
                return
            turn = self.ask(team, channel, f"private:{user}:{root}", user, question)
            client.chat_postEphemeral(
                channel=channel,
                user=user,
                thread_ts=root,
                text=answer_text(turn),
                blocks=private_answer_blocks(turn, self.bot.pages(turn), thread=root),
            )
        except Exception as exc:  # the bot may not be in the channel: answer via the URL
            log.exception("answering the thread shortcut in %s failed", channel)
            respond(response_type="ephemeral", replace_original=False, text=apology(exc))

    def on_share(self, body: dict, client: WebClient, respond, context: BoltContext) -> None:
        """Share to channel: post the private answer for everyone (in its thread, when it
        answered one), once; remove the private copy."""
        team = workspace_of(body, context)
        container = body.get("container") or {}
        channel = (body.get("channel") or {}).get("id") or container.get("channel_id", "")
        user = (body.get("user") or {}).get("id", "")
        _, _, thread = str((body.get("actions") or [{}])[0].get("value") or "").partition(":")
        turn_id = self.bot.turn_here(body, team, channel)
        turn = stored_turn(self.bot, turn_id) if turn_id is not None else None
        if turn is None:
            respond(response_type="ephemeral", replace_original=False, text=ANSWER_GONE)
            return
        claim = f"{team}:{channel}:{turn_id}"
        if not self.bot.state.claim("share", claim):
            respond(response_type="ephemeral", replace_original=False, text=ALREADY_SHARED)
            return
        try:
            posted = client.chat_postMessage(
                channel=channel,
                thread_ts=thread or None,
                text=answer_text(turn),
                blocks=shared_answer_blocks(turn, user, self.bot.pages(turn)),
                unfurl_links=False,
                unfurl_media=False,
            )
        except SlackApiError as exc:
            error = exc.response.get("error")
            log.info("sharing turn %d in %s failed: %s", turn_id, channel, error)
            self.bot.state.release("share", claim)
            respond(response_type="ephemeral", replace_original=False, text=CANNOT_SHARE)
            return
        # the shared message is an answer like any: the explain reaction finds its turn
        self.bot.state.remember_answer(team, channel, posted["ts"], thread or posted["ts"], turn_id)
        respond(delete_original=True)
