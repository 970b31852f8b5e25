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
# Words that ask to count each thing once ("unique measured launch versions"): a count
# does that anyway, and the pages name the things without them.
_DISTINCT = frozenset(
    "unique distinct different separate individual einzigartig einzigartige einzigartigen"
    " verschiedene verschiedenen unterschiedliche unterschiedlichen eindeutige".split()
)
# Nouns that count people: a list of persons' names is what they count.
PEOPLE = frozenset(
    terms("people persons participants attendees members personen leute teilnehmer", STOPWORDS)
)
_PERSON = re.compile(r"^[A-ZÄÖÜ][a-zäöüß'\-]+\s+(?:[A-Z]\.\s*)?[A-ZÄÖÜ][a-zäöüß'\-]+\b")


def counted_noun(question: str, language: str) -> str:
    """The noun phrase a "how many" question counts: its words up to a stopword, an English
    past participle or adverb after the first word ("statuses defined"; "measured launch
    versions" opens with one as an adjective), or in German a word in lower case after
    the noun (nouns are capitalized: "optionale Elemente sollte"); words that ask for
    distinct things ("unique", `_DISTINCT`) are left out; "" when it names none ("Wenn ja,
    wie viele?")."""
    asked = _COUNTED.search(question)
    words: list[str] = []
    raws = asked.group("noun").split() if asked else []
    for at, raw in enumerate(raws):
        word = raw.strip(".:!\"'")
        lower = word.lower()
        if not words and lower in _DISTINCT:
            continue
        # German adjectives before the noun are in lower case too ("optionale Elemente").
        noun_seen = any(w[:1].isupper() for w in words)
        # an English participle opening the noun is its adjective when a noun follows
        before_noun = not words and at + 1 < len(raws) and raws[at + 1].lower() not in STOPWORDS
        verb = lower.endswith(("ed", "ly")) and not before_noun
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
_NAMES_PARTS = re.compile(rf"\b(?:\w+\s+)?(?:{PART_NOUNS})s?\b[^:]*:\s*$", re.IGNORECASE)
# Whether parts must or may be there, as a counted noun's modifier says it ("compulsory
# fields", "optionale Elemente") and as a list's intro does ("should contain the following
# elements:", "Some other elements an author may or may not want to include:").
_MUST_NOUN = re.compile(
    r"\b(?:compulsory|mandatory|required|obligatory|pflicht\w*|erforderlich\w*|notwendig\w*)",
    re.IGNORECASE,
)
_MAY_NOUN = re.compile(r"\b(?:optional\w*|additional|extra|freiwillig\w*|zusätzlich\w*)", re.I)
_MUST_INTRO = re.compile(
    r"\b(?:must|should|shall|required|needs? to|muss|müssen|soll|sollte|sollen)\b", re.I
)
_MAY_INTRO = re.compile(r"\b(?:may|can|could|optional\w*|other|kann|können|darf)\b", re.I)


def _obligation(text: str, must: re.Pattern, may: re.Pattern) -> str | None:
    """ "must" or "may" when `text` says only one of them, else None."""
    said = {name for name, pattern in (("must", must), ("may", may)) if pattern.search(text)}
    return said.pop() if len(said) == 1 else None


def lists_parts(noun: str, intro: str) -> bool:
    """Whether a list whose intro line is `intro` holds the parts a count of `noun` asks
    for: the noun ends in a part noun ("compulsory fields", "Pflichtfelder": the head of the
    compound), the intro names parts and ends in a colon ("The RFC should contain the
    following elements:"), and when both say whether the parts must or may be there, they
    say the same ("optional elements" are not those the RFC "should contain")."""
    head = noun.split()[-1] if noun.split() else ""
    if not (_PART_HEAD.search(head) and _NAMES_PARTS.search(intro)):
        return False
    wanted = _obligation(noun, _MUST_NOUN, _MAY_NOUN)
    said = _obligation(intro, _MUST_INTRO, _MAY_INTRO)
    return wanted is None or said is None or wanted == said


def counts_list(profile: QuestionProfile, named: frozenset[str], items: Sequence[str]) -> bool:
    """Whether the list of `items`, under a heading and intro whose terms are `named`,
    holds the things `profile`'s question counts (see the module docstring)."""
    noun = set(terms(counted_noun(profile.text, profile.language), STOPWORDS))
    if not noun:
        return False
    if noun & PEOPLE and all(_PERSON.match(item) for item in items):
        return True
    return bool(profile.asked_in(named) & noun)
