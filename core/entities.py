"""Dates and version tags as entities: one normalized form however they are written.

Wiki titles tell copies apart by a date or a version ("Community Call - Auguest 18 2016",
"Stable-9 rc1 Test Matrix", "OpenXT 8.0 Measurement test"), and questions name them in
other spellings ("August 18, 2016", "18. August 2016", "2016-08-18"). `entities` maps them
all to one form, by kind:

- `date`: `2016-08-18`, `2016-08` (month and year) or `2016` (a year standing alone);
  month names in English or German, abbreviated or not, with one typo allowed in names of
  six letters or more (edit distance 1, Damerau 1964), ordinals (`15th`); numeric dates in
  the order their separator says: dots day first (`18.08.2016`, `18.8.16`, German),
  slashes month first (`8/18/2016`, `08/18/16`, as the wiki's English pages write them;
  day first when the first number cannot be a month, `18/8/2016`); a two-digit year is
  read as POSIX `strptime` reads `%y` (00-68: 2000-2068, 69-99: 1969-1999);
- `rc`: release candidates `rc0`, `rc 1`, `RC2`;
- `version`: dotted numbers `9.0`, `4.3.4`, and series `7.x` (a version is matched by its
  leading parts, so `9.0` matches `9.0.0` and `7.x` matches `7.1`).

The retriever compares a question's entities with each page title's (core.retrieve), and
the tokenizer indexes dates in their normalized form (core.lexical).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

_MONTHS = {
    1: ("january", "jan", "januar", "jänner"),
    2: ("february", "feb", "februar"),
    3: ("march", "mar", "märz", "maerz"),
    4: ("april", "apr"),
    5: ("may", "mai"),
    6: ("june", "jun", "juni"),
    7: ("july", "jul", "juli"),
    8: ("august", "aug"),
    9: ("september", "sep", "sept"),
    10: ("october", "oct", "oktober", "okt"),
    11: ("november", "nov"),
    12: ("december", "dec", "dezember", "dez"),
}
_EXACT = {name: number for number, names in _MONTHS.items() for name in names}
_FUZZY = {name: number for name, number in _EXACT.items() if len(name) >= 6}

_WORD = r"[^\W\d_]+"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?\.?"
_YEAR = r"((?:19|20)\d{2})"
_DATE_PATTERNS = (
    # 2016-08-18
    (re.compile(r"\b((?:19|20)\d{2})-(\d{1,2})-(\d{1,2})\b"), ("y", "m", "d")),
    # 18.08.2016
    (re.compile(r"\b(\d{1,2})\.(\d{1,2})\.((?:19|20)\d{2})\b"), ("d", "m", "y")),
    # 8/18/2016 (18/8/2016 when 18 cannot be the month, `_date`)
    (re.compile(r"(?<![\d/.])(\d{1,2})/(\d{1,2})/((?:19|20)\d{2})(?![\d/])"), ("m", "d", "y")),
    # August 18, 2016 / Auguest 18 2016 / Aug 18th 2016
    (re.compile(rf"\b({_WORD})\.?\s+{_DAY},?\s+{_YEAR}\b"), ("month", "d", "y")),
    # 18 August 2016 / 15th December 2016 / 18. August 2016
    (re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_WORD})\.?,?\s+{_YEAR}\b"), ("d", "month", "y")),
    # August 2017 / Dezember 2016
    (re.compile(rf"\b({_WORD})\.?,?\s+{_YEAR}\b"), ("month", "y")),
)
# Two-digit years: 18.8.16 and 8/18/16. A dotted one reads as a version too ("kernel
# 4.4.15"), so it does not hide the version reading (`entities`).
_SHORT_DATES = (
    (re.compile(r"(?<![\w.])(\d{1,2})\.(\d{1,2})\.(\d{2})(?![\w]|\.\d)"), ("d", "m", "yy")),
    (re.compile(r"(?<![\d/.])(\d{1,2})/(\d{1,2})/(\d{2})(?![\d/])"), ("m", "d", "yy")),
)
_ANY_YEAR = re.compile(r"(?:19|20)\d{2}")
_ANY_DIGIT = re.compile(r"\d")
_YEAR_ALONE = re.compile(r"(?<![\d.\-/])((?:19|20)\d{2})(?![\d.\-/])")
_RC = re.compile(r"\brc\s?(\d{1,2})\b", re.IGNORECASE)
_VERSION = re.compile(r"(?<![\w.])v?(\d{1,3}(?:\.\d{1,3}){1,3})(?![\w]|\.\d)")
_SERIES = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d{1,3}){0,2})\.x\b")


@dataclass(frozen=True)
class Entity:
    """A normalized date or version tag: `kind` is date, rc or version."""

    kind: str
    value: str

    def matches(self, other: Entity) -> bool:
        """Same kind, and one value is the other or starts it (`2016-08` ~ `2016-08-18`,
        `9.0` ~ `9.0.0`)."""
        if self.kind != other.kind:
            return False
        short, long = sorted((self.value, other.value), key=len)
        sep = "-" if self.kind == "date" else "."
        return long == short or long.startswith(short + sep)


def month_number(word: str) -> int | None:
    """The month a word names (English or German, abbreviations, one typo in long names)."""
    word = word.lower().rstrip(".")
    if word in _EXACT:
        return _EXACT[word]
    if len(word) >= 5:
        for name, number in _FUZZY.items():
            if _within_one_edit(word, name):
                return number
    return None


def entities(text: str) -> set[Entity]:
    """The dates, release candidates and dotted versions in `text`, normalized."""
    return {entity for entity, _ in entity_spans(text)}


def entity_spans(text: str) -> list[tuple[Entity, tuple[int, int]]]:
    """Each entity of `text` (see `entities`) with the span of text that names it."""
    found: list[tuple[Entity, tuple[int, int]]] = []
    if not _ANY_DIGIT.search(text):
        return found  # every kind has digits
    taken: list[tuple[int, int]] = []
    # Each date pattern has a year: most texts have none and skip the slow word patterns.
    date_patterns = _DATE_PATTERNS if _ANY_YEAR.search(text) else ()
    for pattern, roles in (*date_patterns, *_SHORT_DATES):
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            date = _date(dict(zip(roles, match.groups(), strict=True)))
            if date:
                found.append((Entity("date", date), match.span()))
                # a dotted two-digit-year date may be a version too ("kernel 4.4.15")
                if roles[-1] != "yy" or "/" in match.group():
                    taken.append(match.span())
    for match in _YEAR_ALONE.finditer(text):
        if not any(start <= match.start() < end for start, end in taken):
            found.append((Entity("date", match.group(1)), match.span(1)))
    found.extend((Entity("rc", f"rc{int(m.group(1))}"), m.span()) for m in _RC.finditer(text))
    for match in _VERSION.finditer(text):
        if not any(start <= match.start() < end for start, end in taken):
            found.append((Entity("version", match.group(1)), match.span(1)))
    found.extend((Entity("version", m.group(1)), m.span()) for m in _SERIES.finditer(text))
    return found


def without_entities(text: str, kinds: Collection[str]) -> str:
    """`text` without the entities of the given kinds ("Stable-9 rc2 Test Matrix" without
    its release candidate is "Stable-9 Test Matrix"), spaces tidied."""
    spans = sorted(span for entity, span in entity_spans(text) if entity.kind in kinds)
    out, position = [], 0
    for start, end in spans:
        if start >= position:
            out.append(text[position:start])
            position = end
    out.append(text[position:])
    return " ".join("".join(out).split())


def date_tokens(text: str) -> list[str]:
    """Index tokens for the dates in `text`: `date:2016-08-18` and `date:2016-08` for a
    full date, `date:2016-08` for a month; so every spelling of a date matches."""
    tokens: list[str] = []
    for entity in entities(text):
        if entity.kind == "date" and len(entity.value) > 4:
            tokens.append(f"date:{entity.value}")
            if len(entity.value) == 10:
                tokens.append(f"date:{entity.value[:7]}")
    return sorted(set(tokens))


def title_agreement(query: set[Entity], title: set[Entity]) -> int:
    """+1 for each kind of entity the query and the title share a value of, -1 for each
    kind both name but with no value in common (the title is another date or version of
    the same thing), 0 when either names none."""
    score = 0
    for kind in {e.kind for e in query} & {e.kind for e in title}:
        mine = [e for e in query if e.kind == kind]
        theirs = [e for e in title if e.kind == kind]
        score += 1 if any(a.matches(b) for a in mine for b in theirs) else -1
    return score


def _date(parts: dict[str, str]) -> str | None:
    if "yy" in parts:
        short = int(parts["yy"])
        parts = {**parts, "y": str(2000 + short if short <= 68 else 1900 + short)}
    month = month_number(parts["month"]) if "month" in parts else int(parts["m"])
    if list(parts)[0] == "m" and month > 12 and int(parts["d"]) <= 12:
        # a month-first date whose first number cannot be a month is day first (18/8/2016)
        month, parts = int(parts["d"]), {**parts, "d": parts["m"]}
    if not month or not 1 <= month <= 12:
        return None
    if "d" not in parts:
        return f"{parts['y']}-{month:02d}"
    day = int(parts["d"])
    if not 1 <= day <= 31:
        return None
    return f"{parts['y']}-{month:02d}-{day:02d}"


def _within_one_edit(a: str, b: str) -> bool:
    """True when a and b differ by at most one insertion, deletion, substitution or swap of
    neighbours."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        return (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and a[diffs[0]] == b[diffs[1]]
            and a[diffs[1]] == b[diffs[0]]
        )
    short, long = sorted((a, b), key=len)
    for i in range(len(long)):
        if long[:i] + long[i + 1 :] == short:
            return True
    return False
