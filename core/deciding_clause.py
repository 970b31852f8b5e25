"""Whether a quoted clause decides a yes/no question, and what to say when none does.

A Yes or No is only as good as the clause shown with it: "Yes: Additional detail is
available in the OpenXT Platform Properties document." for "Is the architecture document
finalized?" shares the question's names but says nothing about being finalized, and reads as
a guess. A clause decides when it holds most of what the question asks about its subject:
the question's plain words (its predicate: "finalized", "built", "allowed to create"),
or its names when it has no plain word ("Were there further community calls in 2016?").
Without such a clause the answer says what the wiki says, without a Yes or No."""

from __future__ import annotations

import re

from core.met_bounds import met_terms
from core.questions import (
    CONTEXT,
    ENTITY_WEIGHT,
    SOURCE_PHRASE,
    Translations,
    profile_question,
    terms,
)


def decides(question: str, clause: str, translations: Translations = (), before: str = "") -> bool:
    """Whether `clause` decides the yes/no `question`: it holds more than half of the
    question's plain (non-name) terms, directly or through a `translations` word; a German
    word the wiki's words do not translate is left out (nothing can show it). A question
    with no plain term counts its names instead; a quantity meeting a bound the clause
    states counts as held (`core.met_bounds`); exactly half is enough when the clause
    holds the question's first name (its subject), or the question names nothing, and an
    English clause holds the last plain term of the question's predicate
    (`_predicate_part`: "hyphens" in "Are variable names allowed to have hyphens, as per
    the policy?"; a German predicate's verb ends the question and often has no
    translation). A clause that opens with a pronoun ("It is mandatory, ...") is about what
    the heading and sentences `before` it name: their terms count as held. True when
    nothing is left to count."""
    asked_text = SOURCE_PHRASE.sub("?", CONTEXT.sub(" ", question)).strip()
    profile = profile_question(asked_text or question, translations)
    said = frozenset(terms(clause))
    if _PRONOUN.match(clause):
        said |= frozenset(terms(before))  # "It is mandatory": it is what was just named
    # A quantity that meets a bound the clause states is held ("23:00", "after 22:00").
    held = profile.asked_in(said) | met_terms(asked_text or question, clause)
    readable = set(profile.aliases.values()) | said
    plain = {
        term
        for term, weight in profile.terms.items()
        if weight < ENTITY_WEIGHT and (profile.language == "en" or term in readable)
    }
    names = [term for term, weight in profile.terms.items() if weight >= ENTITY_WEIGHT]
    asked = plain or set(names)
    if not asked:
        return True
    shared = 2 * len(held & asked)
    # Half of them: enough when the clause is about the question's subject, its first name
    # ("Ist BATS ... kompatibel?" and "Bats is a TAP-compliant testing framework"), and
    # says what is asked of it, the last plain term.
    last = [term for term in terms(_predicate_part(asked_text or question)) if term in plain][-1:]
    return shared > len(asked) or (
        shared == len(asked)
        and (not names or names[0] in held)
        and (profile.language != "en" or set(last) <= held)
    )


# Where a question's predicate ends and its qualifiers begin: a comma, a preposition that
# sets the scope ("in the context of", "as per", "during", "for", "laut", "während"), or a
# time ("this winter", "next year").
_QUALIFIER = re.compile(
    r",|\s(?:in|for|during|with|as per|according to|on|at|im|in der|für|während|bei|laut"
    r"|gemäß)\s|\s(?:this|next|last)\s+(?:winter|summer|spring|autumn|fall|year|quarter"
    r"|month|week)\b",
    re.I,
)


def _predicate_part(question: str) -> str:
    """A question up to its first qualifier (`_QUALIFIER`): its subject and what is asked of
    it ("Are variable names allowed to have hyphens", "Is input to user VMs isolated from
    other VMs"), whose last plain term a deciding clause must hold."""
    cut = _QUALIFIER.search(question)
    return question[: cut.start()] if cut else question


# A clause about what the sentence before it named: "It is mandatory, ...", "Dies ist ...".
_PRONOUN = re.compile(r"^\W*(?:it|this|that|they|these|es|dies|das|sie)\b", re.I)


def undecided(clause: str, language: str) -> str:
    """What the wiki says when it gives no Yes or No to the question: the clause, said as
    such ("The wiki does not say yes or no to this; it says: ...")."""
    if language == "de":
        return f"Das Wiki sagt dazu weder ja noch nein; dort steht: {clause}"
    return f"The wiki does not say yes or no to this; it says: {clause}"


# "Were all four generations tested ...?", "Was the memory always 8G?", "Wurden alle ...?":
# a yes/no about every row or item at once.
_EVERY = re.compile(
    r"\b(all|every|each|always|alle[nmrs]?|jede[nmrs]?|sämtliche[nmrs]?|immer|stets)\b", re.I
)


def asks_every(question: str) -> bool:
    """Whether a yes/no question asks about every row or item ("all", "every", "always",
    "alle", "immer"): one row's Yes does not decide it (a No needs one row, a Yes all)."""
    return _EVERY.search(question) is not None
