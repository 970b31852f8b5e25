"""People counted in the one sentence that names them, for "How many people X ...? Who were
they?" when no list of them is on the evidence.

"Daniel Smith proposed this idea, which has been supported in discussions by Christopher
Clark and Rich Persaud of MBO/BAE Systems, and Eric Chanudet and Nick Krasnoff of AIS."
answers "How many people supported Daniel Smith in these ideas? Who were they?" with its
four names; replying with the sentence leaves the counting to the reader. A sentence is
the answer when it says what the question asks of the people (a question word the section
heading does not hold: "supported"), names at least `MIN_NAMES` persons the question does
not name, and holds more such words than any other sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from core.questions import STOPWORDS, QuestionProfile, terms
from core.spans import _NAME

# Persons a sentence names at least to be counted (set by design: one name is a span
# "who" reads, not a count).
MIN_NAMES = 2
# Nouns that count people (English and German).
PEOPLE = frozenset(
    terms("people persons participants attendees members personen leute teilnehmer", STOPWORDS)
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


def _persons(sentence: str, named: Callable[[str], set[str]]) -> list[str]:
    """The persons' names in `sentence` the question does not name: capitalized word runs
    not opening with a stopword ("The Board"), each once."""
    found = []
    for name in _NAME.findall(sentence):
        if name.split()[0].lower() in STOPWORDS or named(name):
            continue
        found.append(name)
    return list(dict.fromkeys(found))


def named_in_sentence(
    profile: QuestionProfile,
    found: Callable[[str], set[str]],
    relation: set[str],
    sources: Sequence[tuple[int, str, str]],
) -> tuple[int, list[str]] | None:
    """The source number and the persons' names of the sentence that answers a count of
    people (see the module docstring), or None. `found` gives the question's terms a text
    holds; `relation` the question's terms that say what is asked of the people (not the
    counted noun nor the wording of a count)."""
    if not set(terms(profile.text, STOPWORDS)) & PEOPLE:
        return None
    best: tuple[int, int, list[str]] | None = None
    for number, header, text in sources:
        for sentence in _SENTENCE_END.split(text):
            names = _persons(sentence, found)
            if len(names) < MIN_NAMES:
                continue
            every_name = " ".join(_NAME.findall(sentence))
            said = (relation & found(sentence)) - found(header) - found(every_name)
            if said and (best is None or len(said) > best[0]):
                best = (len(said), number, names)
    return None if best is None else (best[1], best[2])
