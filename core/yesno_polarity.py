"""Clauses that answer a yes/no question No without a negation in them.

A clause that holds a yes/no question's words reads as Yes unless it negates them
(`core.spans`). Two kinds of clause say No in the affirmative:
- another agent for the asked verb: "Did Christopher Clark propose these ideas?" over
  "Daniel Smith proposed this idea, which has been supported by Christopher Clark" (the
  clause names who proposed it, and it is someone else);
- a closed list that leaves the asked thing out: "Are variable names allowed to have
  hyphens?" over "Names may contain only letters, numbers, and underscores (_)."
Both are read from the question's and the clause's words alone, for any wiki."""

from __future__ import annotations

import re

from core.questions import QuestionProfile, terms

# "Did Christopher Clark (also) propose ...", "Hat Christopher Clark ... vorgeschlagen?":
# the asked agent (a run of capitalized words) after the auxiliary that opens the question.
_ASKED_AGENT = re.compile(
    r"^\s*(?i:did|does|do|has|have|had|hat|haben|hatte|hatten)\s+"
    r"(?P<agent>(?:[A-ZÄÖÜ][\w'-]+\s+){0,2}[A-ZÄÖÜ][\w'-]+)\s+(?P<rest>.+)$"
)
# A clause boundary: the agent of a verb is named after the last one before it.
_BOUNDARY = re.compile(r"[.;:,()]|\b(?:and|but|which|who|that|und|aber|die|der)\b")
_NAME_WORD = re.compile(r"^[A-ZÄÖÜ][a-zäöüß'-]+$")
# Words that open a question's rest without being its verb ("also", "ever").
_ADVERBS = frozenset(("also", "ever", "really", "actually", "auch", "jemals", "wirklich"))
# "only", "nur": what follows is all there is ("read-only" is no such word).
_ONLY = re.compile(r"(?<![\w-])(?:only|nur|ausschließlich|exclusively)\b(?!-)", re.I)


def other_agent(profile: QuestionProfile, clause: str) -> str:
    """The name that a clause gives as the agent of the question's verb when the question
    asks whether someone else did it ("Daniel Smith" for "Did Christopher Clark propose
    these ideas?" over "Daniel Smith proposed this idea, ..."): two or more capitalized
    words right before the verb, with no word of the asked agent; "" otherwise, also
    when the clause names the asked agent as the verb's agent too."""
    asked = _ASKED_AGENT.match(profile.text)
    if asked is None:
        return ""
    agent = set(asked.group("agent").lower().split())
    verbs = _verb_stems(profile, asked.group("rest"))
    if not verbs:
        return ""
    for match in re.finditer(r"[\w'-]+", clause):
        if not set(terms(match.group(0))) & verbs:
            continue
        before = _BOUNDARY.split(clause[: match.start()])[-1].split()
        names = []
        for word in reversed(before):
            if word.lower() in ("has", "have", "had", "hat", "haben", "originally", "first"):
                continue
            if not _NAME_WORD.match(word):
                break
            names.insert(0, word)
        if len(names) < 2:
            continue
        if agent & {n.lower() for n in names}:
            return ""
        return " ".join(names)
    return ""


def _verb_stems(profile: QuestionProfile, rest: str) -> set[str]:
    """The stems of the question's verb, its first plain word after the agent (English)
    or its last word (German: the participle ends the question), with the wiki's words
    that translate it."""
    words = [w.strip("?,.!") for w in rest.split()]
    words = [w for w in words if w and w.lower() not in _ADVERBS]
    if not words:
        return set()
    verb = words[-1] if profile.language == "de" else words[0]
    stems = set(terms(verb))
    stems |= {alias for alias, term in profile.aliases.items() if term in stems}
    return stems


def excluded(profile: QuestionProfile, clause: str) -> bool:
    """Whether a clause closes a list that leaves out what the question asks about:
    "Names may contain only letters, numbers, and underscores" for "Are variable names
    allowed to have hyphens?". It holds an asked term before "only" (the subject), none
    after it, and an asked term is nowhere in the clause (the thing left out)."""
    only = _ONLY.search(clause)
    if only is None:
        return False
    before = profile.asked_in(frozenset(terms(clause[: only.start()])))
    after = profile.asked_in(frozenset(terms(clause[only.end() :])))
    missing = set(profile.terms) - before - after
    return bool(before) and not after and bool(missing)
