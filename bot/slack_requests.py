"""What every Slack listener reads off a request, shared by the bot's entry points
(`bot.slack`, `bot.slack_commands`, `bot.slack_home`): the workspace it came from, the
Confluence spaces its channel may search and the labels and page trees it narrows its
questions to, and the apology a failure gets."""

from __future__ import annotations

from slack_bolt import BoltContext

from core.llm import LLMError
from core.scope import QueryScope
from core.settings import Settings, SettingsError

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


def channel_scope(settings: Settings, channel: str) -> QueryScope | None:
    """The labels, page trees and spaces a channel's questions search
    (`slack_channel_scopes`: the channel's entry, else the `*` entry); None: no narrowing.
    A bad entry is a `SettingsError` naming the variable and the channel."""
    table = settings.slack_channel_scopes
    name = channel if channel in table else "*"
    if name not in table:
        return None
    try:
        return QueryScope.parse(table[name]) or None
    except ValueError as exc:
        raise SettingsError(f"CONFBOT_SLACK_CHANNEL_SCOPES: {name}={table[name]}: {exc}") from None


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
