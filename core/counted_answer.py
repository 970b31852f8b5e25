"""Whether a span answers a "how many X" question with a count of X, not with another number.

A count question's best span may hold a number about something else: "How many people work
at Northwind?" is not answered by "Berlin: vpn-ber..., UDP port 51820", nor "Wie viele
Schreibtische hat das Büro in Bristol?" by a public-holiday row. A span counts X when X, a
word for it (people ↔ attendees, members, employees, staff, names) or, for a German question,
the glossary's English word for it (Urlaubstage → days, leave) stands in its answer, its
unit, its column or its other values; a question that names no counted noun ("Wenn ja, wie
viele?") or a German noun the glossary does not know cannot be told, and passes. English and
German."""

from __future__ import annotations

import re

from core.glossary import glossary_words
from core.list_counts import NOUN_WORDS, PEOPLE, counted_noun
from core.questions import STOPWORDS, terms

# "How many" and its German forms ask to count things (not "how much" or "how long").
_COUNTS = re.compile(r"\b(how many|number of|wie viele|wieviele|anzahl)\b", re.IGNORECASE)
_NOUN = re.compile(r"\b(?:how many|number of)\s+(?P<noun>[^?,;:()]+)", re.IGNORECASE)
# Verbs an English counted noun phrase runs into ("How many people work at ...").
_VERBS = frozenset(
    "work works live attend attended join joined use get need take sit report belong run"
    " exist remain apply stay receive left".split()
)
# Words that count people: any of them in the span counts a question's people (the nouns a
# count of people is asked with, `core.list_counts.PEOPLE`, and words a page counts them by).
_PEOPLE = PEOPLE | frozenset(
    terms("person employees staff headcount colleagues names mitarbeiter mitglieder", STOPWORDS)
)


def _english_noun(question: str) -> str:
    """The words after "how many" up to a stopword or punctuation, at most `NOUN_WORDS`
    ("unique measured launch versions"; `counted_noun` stops at a participle)."""
    asked = _NOUN.search(question)
    words: list[str] = []
    for word in asked.group("noun").split() if asked else ():
        if word.lower() in STOPWORDS or len(words) >= NOUN_WORDS:
            break
        words.append(word)
    return " ".join(words)


def _asked_terms(question: str, language: str) -> set[str]:
    """The terms of the counted noun and of its glossary translations; empty when the
    question names none or a German noun has no English word in the glossary."""
    noun = counted_noun(question, language) if language == "de" else _english_noun(question)
    words = [w for w in noun.split() if w.lower() not in _VERBS]
    found: set[str] = set()
    for word in words:
        found.update(terms(word, STOPWORDS))
        if language == "de":
            english = glossary_words(word.lower())
            if not english:
                return set()  # a German noun we cannot read: no judgement
            for each in english:
                found.update(terms(each, STOPWORDS))
    if found & _PEOPLE:
        found |= _PEOPLE
    return found


def counts_asked(question: str, language: str, texts: list[str]) -> bool:
    """Whether `texts` (a span's answer, unit, column and other values) name what a "how
    many" `question` counts; always True for other questions and for a counted noun that
    cannot be read (see the module docstring)."""
    if not _COUNTS.search(question):
        return True
    asked = _asked_terms(question, language)
    if not asked:
        return True
    return bool(asked & set(terms(" ".join(texts), STOPWORDS)))
