"""Which of a question's quantities meet a bound that a clause states.

"Can I take a taxi at 23:00?" is decided by "Taxis are fine late at night (after 22:00)"
although the clause never says 23:00: the asked time lies past the bound the clause gives.
Counting such a quantity as held lets a yes/no answer rest on a rule the wiki states as a
bound ("over 6 hours", "up to 5 days", "ab 18 Uhr", "bis 500 €"), the way a colleague
reads it. Only quantities of the same kind are compared (a time of day with a time of day,
a number with a number), and only when the bound is written next to its comparison word.
"""

from __future__ import annotations

import re

from core.questions import terms

_TIME = r"\d{1,2}[:.]\d{2}(?!\d)"
_NUMBER = r"\d+(?:[.,]\d+)?"
_QUANTITY = re.compile(rf"(?<![\w.:,])({_TIME}|{_NUMBER})(?![\w:])")

# Comparison words that put the bound's value below (lower bound) or above (upper bound)
# the values the rule allows; each is read right before the bound's value.
_LOWER = (
    r"after|over|above|more than|greater than|later than|at least|beyond|from|"
    r"nach|über|ueber|mehr als|später als|mindestens|ab"
)
_UPPER = (
    r"before|under|below|less than|fewer than|earlier than|at most|up to|no more than|"
    r"until|vor|unter|weniger als|früher als|höchstens|bis zu|bis"
)
_BOUND = re.compile(
    rf"\b(?:(?P<lower>{_LOWER})|(?P<upper>{_UPPER}))\s+(?:[€$£]\s?)?(?P<value>{_TIME}|{_NUMBER})"
    r"(?![\w:])",
    re.IGNORECASE,
)


def _value(text: str) -> tuple[str, float]:
    """The kind ("time" or "number") and comparable value of a quantity as written."""
    if re.fullmatch(_TIME, text) and ":" in text:
        hours, minutes = re.split(r"[:.]", text)
        return "time", int(hours) * 60 + int(minutes)
    return "number", float(text.replace(",", "."))


def met_terms(question: str, clause: str) -> set[str]:
    """The terms of the question's quantities that meet every bound of their kind written
    in `clause` ("23:00" against "after 22:00", "8 hours" against "over 6 hours"); empty
    when the clause states no bound of the quantity's kind or the quantity misses one."""
    bounds = [
        (match.group("lower") is not None, *_value(match.group("value")))
        for match in _BOUND.finditer(clause)
    ]
    if not bounds:
        return set()
    met: set[str] = set()
    for match in _QUANTITY.finditer(question):
        kind, value = _value(match.group(1))
        # Every bound of the quantity's kind must hold: "from 08:00 until 18:00" is a range.
        of_kind = [(lower, bound) for lower, bound_kind, bound in bounds if bound_kind == kind]
        if of_kind and all(value > bound if lower else value < bound for lower, bound in of_kind):
            met.update(terms(match.group(1)))
    return met
