"""What a table's short column names stand for, as the page's legend says it.

Test matrices name columns by abbreviations and explain them in a legend line:
"GEN - Intel CPU architecture generation: SNB (Sandy Bridge), IVB (Ivy Bridge), ...". A
question asks by the long words ("How many Intel CPU architecture generations were
tested?"), which the column name does not hold; the legend line ties the two.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# "GEN - description", "FF: description", "ML = description", at the start of a line
# (list markers dropped): the name, then the description up to a colon or the line's end.
_LEGEND = re.compile(
    r"^\s*(?:[-*•]\s+)?(?P<name>[A-Za-z][\w/()]{0,15})\s+[-–=:]\s+(?P<text>[^:\n]+)", re.M
)


def legends(texts: Iterable[str], columns: Iterable[str]) -> dict[str, str]:
    """The description each of `columns` gets in a legend line of `texts` (the first one),
    for the columns that get one."""
    wanted = set(columns)
    found: dict[str, str] = {}
    for text in texts:
        for match in _LEGEND.finditer(text):
            name = match.group("name")
            if name in wanted and name not in found:
                found[name] = match.group("text").strip()
    return found
