"""Durations and timestamps as the settings and the Confluence API write them."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_interval(text: str) -> timedelta:
    """A duration like `30s`, `15m`, `2h`, `1d` (or `0`) as a timedelta."""
    if text.strip() == "0":
        return timedelta(0)
    match = _INTERVAL.match(text)
    if not match:
        raise ValueError(f"{text!r} is not an interval: a number and s, m, h or d (like 15m)")
    return timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2)])


def parse_time(text: str | None) -> datetime | None:
    """An ISO 8601 time as an aware datetime (UTC when it has no offset); None if unreadable."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
