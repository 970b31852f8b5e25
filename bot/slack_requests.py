"""What every Slack listener reads off a request, shared by the bot's entry points
(`bot.slack`, `bot.slack_commands`, `bot.slack_home`): the workspace it came from, the
Confluence spaces its channel may search, and the apology a failure gets."""

from __future__ import annotations

from slack_bolt import BoltContext

from core.llm import LLMError
from core.settings import Settings

LLM_FAILED = (
    ":warning: Sorry, I couldn't reach the language model to answer this just now."
    " Please try again in a few minutes."
)
ANSWER_FAILED = (
    ":warning: Sorry, something went wrong while I was answering. Please try again;"
    " if it keeps happening, let the confbot admins know."
)


def channel_spaces(settings: Settings, channel: str) -> set[str] | None:
    """The Confluence spaces a channel may search (`slack_channel_spaces`: the channel's
    entry, else the `*` entry); None means every synced space."""
    table = settings.slack_channel_spaces
    value = table.get(channel, table.get("*"))
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    return {str(item).strip() for item in items if str(item).strip()}


def workspace_of(body: dict, context: BoltContext) -> str:
    """The team id of a request (events and interactivity payloads alike)."""
    return (
        context.team_id
        or body.get("team_id")
        or (body.get("team") or {}).get("id")
        or context.enterprise_id
        or ""
    )


def apology(exc: BaseException) -> str:
    """What the user is told when answering failed: the LLM's failure (anywhere in the
    exception chain) gets its own note, anything else the general one."""
    while exc is not None:
        if isinstance(exc, LLMError):
            return LLM_FAILED
        exc = exc.__cause__ or exc.__context__
    return ANSWER_FAILED
