"""Who commented on a page, and how many people did: the authors of its comments, counted.

A page's comments reach the index as part of the page, each comment opened by who wrote it
and when: a heading "Comment by Eric Chanudet on 2018-07-31" (`connectors.comments`) or, in
an export that flattens them, a line "Author: Eric Chanudet Date: 2018-07-31T15:44Z Comment:
...". Asked "How many people commented on X? Who?", the best single span is one comment
shown as its raw fields ("Author: ... Date: ... Comment: ..."), which neither counts nor
names the others. The answer is the distinct authors of the comments of the page the
question names, counted and named in one sentence, cited with the sources that hold them.
Pure functions of strings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.questions import profile_question, terms

# Commenting, English and German: "commented", "comments", "kommentiert", and the German
# reflexive "sich (zu X) geäußert / äußern" ("Wie viele Personen haben sich zu diesen
# Ergebnissen geäußert?"); "geäußert" alone is not commenting ("Wer hat Bedenken geäußert?").
_COMMENTING = (
    r"(?:comment(?:ed|s)?|kommentiert|kommentare?n?"
    r"|sich\b[^?]*?\b(?:geäußert|äußerten|äußern|geaeussert))"
)
# A question about who commented, or how many did.
_ASKS_COMMENTERS = re.compile(
    rf"\b(?:who|how many|wer|wie viele)\b.*\b{_COMMENTING}\b"
    rf"|\b{_COMMENTING}\b.*\b(?:who|wer)\b",
    re.IGNORECASE | re.DOTALL,
)
# A comment's author as the page text gives it: a comment heading (a line of its own or the
# last of a heading path, "Comments > Comment by ...") or an exported line.
_AUTHOR = re.compile(
    r"(?:^|— |> )(?:(?:Comment|Reply|Inline comment) by (?P<heading>[^\n]+?) on \d{4}-\d\d-\d\d"
    r"|Author: (?P<line>[^\n]+?) Date: \d{4}-\d\d-\d\d)",
    re.MULTILINE,
)


def asks_commenters(question: str) -> bool:
    """Whether a question asks who commented on a page, or how many people did."""
    return _ASKS_COMMENTERS.search(question) is not None


def holds_comment(header: str, text: str) -> bool:
    """Whether a source (its `Title — heading` header and its text) holds a comment with
    its author."""
    return _AUTHOR.search(f"{header}\n{text}") is not None


def commenters(question: str, sources: Sequence[tuple[int, str, str]]) -> str | None:
    """The reply naming and counting who commented on the page the question names ("2
    people commented on OpenXT 8.0 Measurement test: Rich Persaud and Eric Chanudet [6].",
    German "2 Personen haben ... kommentiert: ..."), or None when the question does not ask
    who commented or no source holds a comment. Of several pages with comments, the one
    whose title holds most of the question's terms (the first on a tie)."""
    if not asks_commenters(question):
        return None
    profile = profile_question(question)
    pages: dict[str, dict[str, list[int]]] = {}
    for number, header, text in sources:
        title = header.split(" — ")[0].strip()
        for match in _AUTHOR.finditer(f"{header}\n{text}"):
            author = (match.group("heading") or match.group("line")).strip()
            pages.setdefault(title, {}).setdefault(author, []).append(number)
    if not pages:
        return None
    title = max(pages, key=lambda t: len(profile.asked_in(frozenset(terms(t)))))
    authors = pages[title]
    numbers = sorted({n for found in authors.values() for n in found})
    cites = "".join(f"[{n}]" for n in numbers)
    names = list(authors)
    german = profile.language == "de"
    joined = ", ".join(names[:-1]) + (" und " if german else " and ") + names[-1]
    named = joined if len(names) > 1 else names[0]
    if german:
        people = "1 Person hat" if len(names) == 1 else f"{len(names)} Personen haben"
        return f"{people} {title} kommentiert: {named} {cites}."
    people = "1 person" if len(names) == 1 else f"{len(names)} people"
    return f"{people} commented on {title}: {named} {cites}."
