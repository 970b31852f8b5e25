"""Who a line of a source is said of, and whether it says what a sentence attributes.

Meeting notes, agendas and action-item lists say who a line is about with a label: "Phil:
Change future call times …", or a label line with the items under it ("Rich:" then "-
Change future call times … / 4 PM UK …"). A real model (issue 35) wrote "The action item
for Phil … was to change future call times to … 4 PM UK …" from the agenda item under
"Rich:": the words were the line's, the person was not. `said_of` reads a sentence's
persons against a line's label: a sentence that attributes something to a person or team
(a label of the sources it names, "Phil", "Phils"; or an English possessive, "Phil's") is
supported only by a line said of that person (its label), or by an unlabelled line naming
them; a line labelled with someone else does not say it of them, even when it names them
("Rich: ask Phil to …" is Rich's item), unless the sentence names that label too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_LABEL = re.compile(
    r"^\s*(?:[-*•]\s+)?([A-ZÄÖÜ][\w.'’\-]*(?:\s+[A-ZÄÖÜ][\w.'’\-]*){0,2})\s*:(?!//)(.*)$"
)
"""A line's label: one to three capitalized words before a colon at its start ("Phil:",
"Rich Persaud:", "- Eric: …"); not "Row 3 in Table 1:" (a number breaks it) nor a URL."""
_POSSESSIVE = re.compile(r"(?<![\w\-])([A-ZÄÖÜ][\w\-]*[a-zäöüß][\w\-]*)['’]s\b")
"""An English possessive name: "Phil's", "Rich’s"."""


@dataclass(frozen=True)
class Line:
    """One line of a source: its `text`, the label it is said of (`owner`, None when it has
    none) and whether the label stands on the line itself (`inline`: "Phil: …") or on the
    line the item sits under ("Rich:" above "- Change …")."""

    text: str
    owner: str | None = None
    inline: bool = False


def owned_lines(source: str) -> list[Line]:
    """The lines of `source`, each with the label it is said of: its own ("Phil: …"), or,
    for a list item, that of the label line it sits under ("Rich:" then "- …"), until a
    line that is neither."""
    out: list[Line] = []
    heading: str | None = None
    for line in source.split("\n"):
        label = _LABEL.match(line)
        if label and label.group(2).strip():
            out.append(Line(line, label.group(1), inline=True))
            if not _BULLET.match(line):
                heading = None
        elif label:
            heading = label.group(1)
            out.append(Line(line, heading, inline=True))
        elif heading and _BULLET.match(line):
            out.append(Line(line, heading))
        else:
            heading = None
            out.append(Line(line))
    return out


def labels(sources: Iterable[str]) -> set[str]:
    """Every label the `sources` say lines of (`owned_lines`)."""
    return {line.owner for source in sources for line in owned_lines(source) if line.owner}


def persons(sentence: str, known: Iterable[str]) -> set[str]:
    """The persons or teams `sentence` attributes something to: the `known` labels it names
    as written (a German genitive "Phils" too), and English possessives ("Phil's")."""
    found = {
        label
        for label in known
        if re.search(rf"(?<![\w\-]){re.escape(label)}(?:['’]?s)?(?![\w\-])", sentence)
    }
    return found | set(_POSSESSIVE.findall(sentence))


def _same(a: str, b: str) -> bool:
    """Whether two names share a word ("Phil" and "Phil White")."""
    return bool({w.casefold() for w in a.split()} & {w.casefold() for w in b.split()})


def _names(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w\-]){re.escape(name)}(?![\w\-])", text, re.IGNORECASE) is not None


def said_of(named: Sequence[str] | set[str], sentence: str, line: Line) -> bool:
    """Whether `line` says what `sentence` attributes to the persons `named`
    (`persons`): each is the line's label, or is named in a line without one, or in a line
    whose inline label the sentence names as well ("Rich asked Phil to …" read from "Rich:
    ask Phil to …"). A line labelled with another person does not say it of them."""
    for person in named:
        if line.owner and _same(line.owner, person):
            continue
        if not _names(line.text, person):
            return False
        if line.owner and line.inline and not _names(sentence, line.owner):
            return False  # named in someone else's line: said of its label, not of them
    return True
