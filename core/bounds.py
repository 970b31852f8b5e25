"""Strict, bounded reading of the numbers and spans that come from outside (HTTP headers,
Slack payloads, query strings, command lines).

Python's `str.isdigit()` and `int()` accept far more than ASCII digits (`"²".isdigit()` is
true, `int("٣")` is 3) and `int()` of 400 digits is a number no timestamp or id can be;
`timedelta(days=99999999999)` raises `OverflowError`. Everything here accepts only ASCII
digits, at most a known number of them, within a range, and raises `ValueError` with a
message fit for a user otherwise, before anything else uses the value.
"""

from __future__ import annotations

import re
from datetime import timedelta

MAX_ID = 2**63 - 1
"""Largest database id (a signed 64-bit integer, SQL's BIGINT)."""
MAX_LOOKBACK_DAYS = 3660
"""Longest look-back of a report (`--since`, `?since=`, `--days`): ten years."""

_DIGITS = re.compile(r"[0-9]{1,19}")
_SPAN = re.compile(r"([0-9]{1,12})([hdw])")
_HOURS = {"h": 1, "d": 24, "w": 24 * 7}


def ascii_int(text: object, low: int, high: int, what: str) -> int:
    """`text` as an integer when it is 1 to 19 ASCII digits between `low` and `high`
    (inclusive); else `ValueError` naming `what`."""
    if isinstance(text, bool) or not isinstance(text, (int, str)):
        raise ValueError(f"{what} must be a whole number from {low} to {high}")
    if isinstance(text, str):
        if not _DIGITS.fullmatch(text):
            raise ValueError(f"{what} must be a whole number from {low} to {high}")
        number = int(text)
    else:
        number = text
    if not low <= number <= high:
        raise ValueError(f"{what} must be a whole number from {low} to {high}")
    return number


def lookback(text: str, what: str = "since") -> timedelta:
    """A look-back like `30d`, `12h` or `2w` (ASCII digits, at most `MAX_LOOKBACK_DAYS`) as a
    positive timedelta."""
    match = _SPAN.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"{what}: {str(text)[:40]!r} is not a span like 30d, 12h or 2w")
    hours = int(match.group(1)) * _HOURS[match.group(2)]
    if not 1 <= hours <= MAX_LOOKBACK_DAYS * 24:
        raise ValueError(
            f"{what}: {text.strip()!r} must be a positive span of at most {MAX_LOOKBACK_DAYS}d"
        )
    return timedelta(hours=hours)


def days(text: str, what: str = "days") -> int:
    """A number of days from 1 to `MAX_LOOKBACK_DAYS` (for argparse: `type=days`)."""
    return ascii_int(text, 1, MAX_LOOKBACK_DAYS, what)
