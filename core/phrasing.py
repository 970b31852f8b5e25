"""The answer's headline as a sentence: the question turned into a statement that names its
subject ("Who is the secondary on-call for the Payments team in week 2?" + "Sophie Brandt" →
"The secondary on-call for the Payments team in week 2 is Sophie Brandt."), and Yes/No with
the clause that decides it, in the question's language (English or German).

A statement is made only from the question's own words, by the copular patterns every
reader can check ("Who/What/How much is X?" → "X is A."; "Wer/Was ist X?" → "X ist A."),
and only when X is a noun phrase (it opens with a determiner or a possessive), so the
sentence is grammatical without a parser; any other question gets its value labelled with
what the value is (the table column and the row it is in), or the sentence the value came
from. Pure functions of strings.
"""

from __future__ import annotations

import re

# "Who is the X?", "What are our X?", "How much is the X?", "When was the X?": the verb and X.
_STATEMENT_EN = re.compile(
    r"^\W*(?:who|what|how (?:much|many|long|often|big|large|high)|when|where)\s+"
    r"(?P<verb>is|are|was|were)\s+"
    r"(?P<subject>(?:the|a|an|our|my|your|their|its|this|that|these|those)\s+[^?]{2,}?)"
    r"\s*\?*\s*$",
    re.IGNORECASE,
)
_STATEMENT_DE = re.compile(
    r"^\W*(?:wer|was|wie (?:viel|viele|lange|oft|hoch|groß)|wann|wo)\s+"
    r"(?P<verb>ist|sind|war|waren)\s+"
    r"(?P<subject>(?:der|die|das|den|dem|des|ein|eine|einer|unser|unsere|mein|meine|dein"
    r"|deine|ihr|ihre)\s+[^?]{2,}?)\s*\?*\s*$",
    re.IGNORECASE,
)
# A subject that still holds a verb or a clause reads wrong as a sentence subject.
_CLAUSE_WORDS = re.compile(
    r"\b(?:do|does|did|can|could|should|would|will|if|when|that|which|who|used|called"
    r"|wenn|dass|welche[rsmn]?|wird|werden|kann|können)\b",
    re.IGNORECASE,
)
_WHERE = re.compile(r"^\W*(?:where|wo)\b", re.IGNORECASE)
_WHEN = re.compile(r"^\W*(?:when|wann)\b", re.IGNORECASE)
_ON_DATE = re.compile(
    r"^\d|^(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep"
    r"|oct|nov|dec)",
    re.IGNORECASE,
)

YES = {"en": "Yes", "de": "Ja"}
NO = {"en": "No", "de": "Nein"}
_FOR = {"en": "for", "de": "für"}


def statement(question: str, value: str, language: str) -> str:
    """The question as a statement with `value` as its answer ("The X is value."), or ""
    when the question is not a copular question about a noun phrase (see the module
    docstring)."""
    pattern = _STATEMENT_DE if language == "de" else _STATEMENT_EN
    match = pattern.match(question.strip())
    if not match:
        return ""
    subject = " ".join(match.group("subject").split())
    if _CLAUSE_WORDS.search(subject) or len(subject.split()) > 16:
        return ""
    verb = match.group("verb").lower()
    if language != "de" and _WHERE.match(question):
        value = value if value.lower().startswith(("in ", "at ", "on ")) else f"at {value}"
    elif language != "de" and _WHEN.match(question) and _ON_DATE.match(value):
        value = f"on {value}"
    return f"{subject[0].upper()}{subject[1:]} {verb} {value.rstrip('.')}."


def labelled(value: str, label: str, row_key: str, language: str) -> str:
    """A value with what it is: "value (label for row_key)"; just the value without a
    label."""
    if not label:
        return value
    where = f" {_FOR.get(language, 'for')} {row_key}" if row_key else ""
    return f"{value} ({label}{where})"


def verdict(yes: bool, clause: str, language: str) -> str:
    """Yes or No in the question's language, followed by the clause that decides it."""
    word = (YES if yes else NO).get(language, YES["en"] if yes else NO["en"])
    clause = clause.strip()
    return f"{word}: {clause}" if clause else f"{word}."
