"""The shape a Slack request body must have before the bolt App sees it.

A body that carries a valid signature came from Slack, or from someone holding the
signing secret; either way a field of the wrong type (an `event` that is a string, an
`event_id` that is an object, a 400-digit `ts`) must be a 400, not an error deep in a
listener or the database. `problem` checks the fields the listeners read, with Slack's
documented shapes: ids are short ASCII words, timestamps are `seconds.micros` in ASCII
digits, texts are strings of bounded length.
"""

from __future__ import annotations

import re
from typing import Any

_TS = re.compile(r"[0-9]{1,12}\.[0-9]{1,9}")
_ID = re.compile(r"[A-Za-z0-9_.:-]{1,255}")
MAX_TEXT = 40_000
"""Characters of a message text (Slack truncates messages at 40,000)."""

_EVENT_IDS = ("channel", "user", "team", "bot_id", "subtype", "channel_type", "reaction")
_TIMESTAMPS = ("ts", "thread_ts", "event_ts", "message_ts")


def _fields(item: Any, where: str) -> str | None:
    """What is wrong with the ids and timestamps of one object of a payload, if anything."""
    if not isinstance(item, dict):
        return f"{where} must be an object"
    for name in _TIMESTAMPS:
        value = item.get(name)
        if value is not None and not (isinstance(value, str) and _TS.fullmatch(value)):
            return f"{where}.{name} is not a Slack timestamp"
    for name in (*_EVENT_IDS, "id", "channel_id", "type", "action_id", "block_id"):
        value = item.get(name)
        if value is not None and not (isinstance(value, str) and _ID.fullmatch(value)):
            return f"{where}.{name} is not a Slack id"
    for name in ("text", "value"):
        value = item.get(name)
        if value is not None and not (isinstance(value, str) and len(value) <= MAX_TEXT):
            return f"{where}.{name} must be a string of at most {MAX_TEXT} characters"
    return None


def problem(body: Any) -> str | None:
    """Why a Slack body cannot be dispatched, or None when its fields have Slack's shapes."""
    if not isinstance(body, dict):
        return "the body is not a Slack payload"
    kind = body.get("type")
    if kind is not None and not isinstance(kind, str):
        return "type must be a string"
    for name in ("event_id", "team_id", "api_app_id", "enterprise_id"):
        value = body.get(name)
        if value is not None and not (isinstance(value, str) and _ID.fullmatch(value)):
            return f"{name} is not a Slack id"
    if kind == "event_callback":
        event = body.get("event")
        found = _fields(event, "event")
        if found is None and event.get("item") is not None:
            found = _fields(event["item"], "event.item")
        return found
    if kind == "block_actions":
        actions = body.get("actions")
        if not isinstance(actions, list) or not actions or len(actions) > 100:
            return "actions must be a list of 1 to 100 actions"
        for number, action in enumerate(actions):
            if found := _fields(action, f"actions[{number}]"):
                return found
        for name in ("user", "team", "channel", "container", "message"):
            if body.get(name) is not None and (found := _fields(body[name], name)):
                return found
    return None
