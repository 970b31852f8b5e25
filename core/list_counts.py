"""Whether a short list's items are the things a "how many X" question counts, so that
their number answers it ("How many statuses ...?" over a list introduced as the statuses).

A list counts X when its heading or intro line names X, or, for a count of people, when
every item opens with a person's name; any other list is not a count answer, however
many items it has ("How many people attended?" is not answered by "3: The Board member
expresses ..."). English and German."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.questions import STOPWORDS, QuestionProfile, terms

_COUNTED = re.compile(
    r"\b(?:how many|number of|wie viele|wieviele|anzahl(?: der| an)?)\s+(?P<noun>[^?,;()]+)",
    re.IGNORECASE,
)
# The counted noun is at most this many words ("distinct statuses", "optionale Elemente").
NOUN_WORDS = 4
# Nouns that count people: a list of persons' names is what they count.
PEOPLE = frozenset(
    terms("people persons participants attendees members personen leute teilnehmer", STOPWORDS)
)
_PERSON = re.compile(r"^[A-ZÄÖÜ][a-zäöüß'\-]+\s+(?:[A-Z]\.\s*)?[A-ZÄÖÜ][a-zäöüß'\-]+\b")


def counted_noun(question: str, language: str) -> str:
    """The noun phrase a "how many" question counts: its words up to a stopword, an English
    past participle or adverb ("statuses defined"), or in German a word in lower case after
    the noun (nouns are capitalized: "optionale Elemente sollte"); "" when it names none
    ("Wenn ja, wie viele?")."""
    asked = _COUNTED.search(question)
    words: list[str] = []
    for raw in asked.group("noun").split() if asked else ():
        word = raw.strip(".:!\"'")
        lower = word.lower()
        # German adjectives before the noun are in lower case too ("optionale Elemente").
        noun_seen = any(w[:1].isupper() for w in words)
        verb = lower.endswith(("ed", "ly"))
        if language == "de":
            verb = word[:1].islower() and noun_seen
        if lower in STOPWORDS or (verb and len(lower) > 4) or len(words) >= NOUN_WORDS:
            break
        words.append(word)
    return " ".join(words)


# Nouns for the parts a thing is made of: a "how many fields / elements / Pflichtfelder"
# question counts a list introduced as "the following elements:" whichever of them each side
# uses, the words being interchangeable there.
PART_NOUNS = (
    "element|field|item|part|section|component|entry|entries|point|"
    "feld|felder|elemente?|punkte?|teile?|abschnitte?|bestandteile?|komponenten?|einträge?"
)
_PART_HEAD = re.compile(rf"(?:{PART_NOUNS})s?$", re.IGNORECASE)
_INTRODUCED_PARTS = re.compile(
    rf"\b(?:following|folgenden?)\s+(?:\w+\s+)?(?:{PART_NOUNS})s?\b", re.IGNORECASE
)


def lists_parts(noun: str, intro: str) -> bool:
    """Whether a list whose intro line is `intro` holds the parts a count of `noun` asks
    for: the noun ends in a part noun ("compulsory fields", "Pflichtfelder": the head of the
    compound) and the intro introduces the list as parts ("The RFC should contain the
    following elements:")."""
    head = noun.split()[-1] if noun.split() else ""
    return bool(_PART_HEAD.search(head)) and bool(_INTRODUCED_PARTS.search(intro))


def counts_list(profile: QuestionProfile, named: frozenset[str], items: Sequence[str]) -> bool:
    """Whether the list of `items`, under a heading and intro whose terms are `named`,
    holds the things `profile`'s question counts (see the module docstring)."""
    noun = set(terms(counted_noun(profile.text, profile.language), STOPWORDS))
    if not noun:
        return False
    if noun & PEOPLE and all(_PERSON.match(item) for item in items):
        return True
    return bool(profile.asked_in(named) & noun)
