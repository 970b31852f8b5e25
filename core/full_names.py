"""A person a table names by first name only, named in full where the page says who that is.

Tables in wikis often write a person's first name ("Reporter: Ross"), which tells a reader
on another team nothing; the same page usually names the person in full elsewhere (its
byline "Owned by Ross Philipson", a sentence, another row). When the answer to a *who*
question is one first name and the sources from the same page name exactly one person with
that first name and a surname, the answer names that person in full.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from core.questions import question_type
from core.spans import Span

# A first name alone: one capitalized word of letters.
_FIRST_NAME = re.compile(r"[A-ZÄÖÜ][a-zäöüß]{2,}")
# Words after a first name that are not a surname (a byline's and a sentence's words).
_NOT_SURNAMES = frozenset("Last Team Owned Created The To And Or".split())


def full_name(first: str, texts: Sequence[str]) -> str:
    """The one "First Surname" the texts write for `first` (the surname capitalized, not a
    byline's or sentence's word); "" when they write none or several."""
    pattern = re.compile(rf"\b{re.escape(first)}\s+([A-ZÄÖÜ][a-zäöüß]+(?:-[A-ZÄÖÜ][a-zäöüß]+)?)\b")
    surnames = {
        match.group(1)
        for text in texts
        for match in pattern.finditer(text)
        if match.group(1) not in _NOT_SURNAMES
    }
    return f"{first} {surnames.pop()}" if len(surnames) == 1 else ""


def with_full_name(
    question: str,
    spans: list[tuple[int, Span]],
    sources: Sequence[tuple[int, str, str]],
) -> list[tuple[int, Span]]:
    """`spans` with the first span's answer named in full (`full_name`) when the question
    asks who and the answer is a first name alone, from the texts of the sources with the
    first span's page title (a source's header is "Title — heading")."""
    if not spans or question_type(question) != "who":
        return spans
    number, span = spans[0]
    prefix = f"{span.label}: " if span.label and span.answer.startswith(f"{span.label}: ") else ""
    first = span.answer[len(prefix) :].strip()
    if not _FIRST_NAME.fullmatch(first):
        return spans
    headers = {n: header.split(" — ")[0] for n, header, _ in sources}
    title = headers.get(number)
    named = full_name(first, [text for n, _, text in sources if headers[n] == title])
    if not named:
        return spans
    return [(number, replace(span, answer=prefix + named)), *spans[1:]]
