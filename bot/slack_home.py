"""The App Home tab: what confbot can answer (the indexed spaces and their page counts), the
user's recent questions, and the settings that shape its answers (answerer, channel
scopes, auto-answer channels, the explain reaction). Published with `views.publish` each
time a user opens the tab (`app_home_opened`), so it is always current; `home_view` builds
it from plain values and is tested on its own.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from slack_bolt import BoltContext
from slack_sdk import WebClient

from bot.blocks import MAX_QUESTION_CHARS, MAX_SECTION_TEXT, clip, escape
from bot.slack_requests import workspace_of
from bot.slack_state import SlackStore
from core.assistant import Assistant
from core.settings import Settings

log = logging.getLogger(__name__)

RECENT_QUESTIONS = 5
MAX_HOME_BLOCKS = 100  # Slack's limit for a Home tab view
_CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{1,30}$")

INTRO = (
    "I answer questions about the wiki, with the pages I used. Mention @confbot in a"
    " channel, send me a direct message, type `/confbot your question` (only you see the"
    " answer, and you can share it), or use *Ask confbot about this thread* on a message."
)
NOTHING_INDEXED = "Nothing is indexed yet: an admin runs `confbot sync` to add the wiki."
NO_QUESTIONS = "You haven't asked me anything yet."


@dataclass(frozen=True)
class Asked:
    """One of the user's questions: its text, the day it was asked, whether I declined."""

    question: str
    day: str
    declined: bool


def channel(channel_id: str) -> str:
    """A channel id as a Slack channel link (`<#C123>`), anything else escaped."""
    return f"<#{channel_id}>" if _CHANNEL_ID.match(channel_id) else escape(channel_id)


def settings_lines(settings: Settings) -> list[str]:
    """The settings that apply to a user's answers, one mrkdwn line each."""
    if settings.llm_base_url:
        host = urlsplit(settings.llm_base_url).hostname or "the configured endpoint"
        answerer = f"the language model {escape(settings.llm_model)} at {escape(host)}"
    else:
        answerer = "the offline answerer (it quotes the wiki; no language model)"
    lines = [f"*Answers* are written by {answerer}."]
    table = settings.slack_channel_spaces
    if table:
        scopes = ", ".join(
            f"{'every other channel' if name == '*' else channel(name)}: {escape(str(spaces))}"
            for name, spaces in table.items()
        )
        lines.append(f"*Spaces searched* per channel: {scopes}.")
    else:
        lines.append("*Spaces searched*: every indexed space, in every channel.")
    if narrowed := settings.slack_channel_scopes:
        scopes = ", ".join(
            f"{'every other channel' if name == '*' else channel(name)}: {escape(str(scope))}"
            for name, scope in narrowed.items()
        )
        lines.append(f"*Labels and page trees searched* per channel: {scopes}.")
    auto = settings.slack_auto_answer_channels
    if auto:
        listed = ", ".join(channel(c) for c in auto)
        lines.append(
            f"*Auto-answers* in {listed}: top-level questions get an answer when I'm"
            " confident; otherwise I stay silent."
        )
    else:
        lines.append("*Auto-answers*: off; I answer only when asked.")
    reaction = escape(settings.slack_explain_reaction)
    lines.append(
        f"*Explain*: the Explain button on an answer, or the :{reaction}: reaction on it,"
        " shows how much each source shaped the answer."
    )
    return lines


def home_view(spaces: Mapping[str, int], recent: Sequence[Asked], settings: list[str]) -> dict:
    """The Home tab view: intro, spaces with page counts, recent questions, settings."""
    blocks: list[dict] = [
        {"type": "header", "text": {"type": "plain_text", "text": "confbot"}},
        _section(INTRO),
        {"type": "divider"},
        _header("What I can answer"),
    ]
    if spaces:
        total = sum(spaces.values())
        lines = [f"• *{escape(name)}*: {_pages(count)}" for name, count in sorted(spaces.items())]
        blocks += _sections([f"{_pages(total)} in {len(spaces)} spaces:", *lines])
    else:
        blocks.append(_section(NOTHING_INDEXED))
    blocks.append(_header("Your recent questions"))
    if recent:
        blocks += _sections(
            [
                f"• {escape(clip(asked.question, MAX_QUESTION_CHARS))} _({asked.day}"
                + (", not found in the wiki" if asked.declined else "")
                + ")_"
                for asked in recent
            ]
        )
    else:
        blocks.append(_section(NO_QUESTIONS))
    blocks.append(_header("Settings that apply"))
    blocks += _sections(settings)
    return {"type": "home", "blocks": blocks[:MAX_HOME_BLOCKS]}


def _pages(count: int) -> str:
    return f"{count} page" if count == 1 else f"{count} pages"


def _header(text: str) -> dict:
    return {"type": "header", "text": {"type": "plain_text", "text": text}}


def _section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text, "verbatim": True}}


def _sections(lines: Sequence[str]) -> list[dict]:
    """Lines packed into as few sections as Slack's 3,000 characters allow."""
    texts: list[str] = []
    for line in lines:
        line = clip(line, MAX_SECTION_TEXT)
        if texts and len(texts[-1]) + 1 + len(line) <= MAX_SECTION_TEXT:
            texts[-1] += "\n" + line
        else:
            texts.append(line)
    return [_section(text) for text in texts]


class AppHome:
    """The `app_home_opened` listener."""

    def __init__(self, settings: Settings, assistant: Assistant, state: SlackStore):
        self.settings = settings
        self.assistant = assistant
        self.state = state

    def spaces(self) -> dict[str, int]:
        """Indexed pages per space."""
        return dict(Counter(entry.space for entry in self.assistant.index.page_catalog().values()))

    def recent(self, team: str, user: str) -> list[Asked]:
        """The user's last questions, newest first."""
        out = []
        for turn_id in self.state.asked_by(team, user, RECENT_QUESTIONS):
            record = self.assistant.turn_record(turn_id)
            if record is not None:
                day = record.created_at.strftime("%Y-%m-%d") if record.created_at else ""
                out.append(Asked(record.question, day, bool(record.out_of_scope)))
        return out

    def on_home_opened(
        self, body: dict, event: dict, client: WebClient, context: BoltContext
    ) -> None:
        """Publish the user's Home tab (the Messages tab needs nothing)."""
        if event.get("tab", "home") != "home" or not event.get("user"):
            return
        user = event["user"]
        view = home_view(
            self.spaces(),
            self.recent(workspace_of(body, context), user),
            settings_lines(self.settings),
        )
        client.views_publish(user_id=user, view=view)
