"""The sections of a page, for "How many (major) headings / sections does the page have?".

A page's sections are its headings at the top level that has more than one: a page
wrapped in one heading ("DRAFT > Project Charter", "DRAFT > Layers", ...) has its
sections one level down. Retrieval returns the passages most like the question, a few
sections at most, so the page ranked first is read from the store and the first evidence
of each section is added after the retrieved ones (`section_parts`, through
`core.page_parts`); the composer counts the sections its sources show
(`top_sections`). English and German.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.list_counts import counted_noun
from core.pages import Evidence
from core.questions import question_language
from core.spans import counts_items

if TYPE_CHECKING:  # core.whole_tables imports core.compose, which imports this module
    from core.whole_tables import PageEvidences

# A word of a counted noun that counts a page's sections, a German compound by its last
# part ("Hauptthemenüberschriften").
_SECTION_NOUN = re.compile(
    r"^(?:(?:sub)?headings?|sections?|chapters?|\w*(?:überschriften|überschrift|abschnitte?|kapitel))$",
    re.IGNORECASE,
)
# How a heading path's levels are joined (`core.answer.source_header`).
LEVELS = " > "


def sections_noun(question: str) -> str:
    """The noun by which `question` counts a page's sections, up to its section word
    ("major topical headings", "Hauptthemenüberschriften"); "" when it counts other things."""
    words = counted_noun(question, question_language(question)).split()
    for at, word in enumerate(words):
        if _SECTION_NOUN.match(word):
            return " ".join(words[: at + 1])
    return ""


def counts_sections(question: str) -> bool:
    """Whether `question` counts a page's sections ("How many major topical headings ...?",
    "Wie viele Abschnitte hat ...?")."""
    return bool(sections_noun(question))


def top_sections(headings: Sequence[str]) -> list[str]:
    """The distinct section names at the top level of `headings` (heading paths, one per
    evidence, in page order) that has more than one, in page order; [] when none has."""
    paths = [[part.strip() for part in h.split(LEVELS)] for h in headings if h.strip()]
    for depth in range(max((len(p) for p in paths), default=0)):
        names = list(dict.fromkeys(LEVELS.join(p[: depth + 1]) for p in paths if len(p) > depth))
        if len(names) > 1:
            return names
    return []


def section_parts(
    question: str, evidences: Sequence[Evidence], store: PageEvidences
) -> list[Evidence]:
    """The first evidence of each section of the page ranked first that `evidences` lack,
    when `question` counts sections; none otherwise."""
    if not evidences or not counts_items(question, "") or not counts_sections(question):
        return []
    page = store.get(store.page_evidence_ids(evidences[0].page_id))
    sections = top_sections([e.heading for e in page])
    shown = {e.id for e in evidences}
    added: list[Evidence] = []
    for section in sections:
        first = [e for e in page if e.heading == section or e.heading.startswith(section + LEVELS)]
        if first and not any(e.id in shown for e in first):
            added.append(first[0])
    return added
