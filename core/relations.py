"""The relation a what or how question asks about its subject, and whether a unit of an
evidence states it.

"What does the board vote on?" asks for the object of "vote" with "the board" as its
subject; "How are actions initiated?" asks for the means of "initiated" with "actions" as
its subject. A sentence that holds the question's words but not that relation ("Voting can
commence when a majority of the board agrees", "Action will only be invoked when ...")
restates the topic and answers something else; one that attaches the verb to its subject
("The board votes to accept or reject a change", "Action is initiated by creating a
ticket") answers it. A question for the action items of a meeting ("the action items for
Rich") asks for the lines the minutes mark as actions ("* action: Rich to file a ticket").

Pure functions of strings, English and German, used by the span scorer (`core.spans`) to
rank units that state the asked relation above those that only share its words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from core.questions import CONTEXT, STOPWORDS, TOKEN, QuestionProfile, terms

# A verb and one of its subject's words at most this many words apart state the relation
# ("the board votes", "action is initiated", "closes the ticket").
WINDOW = 3

# "What does/did/will X (adverb) <verb> (on|for|...)?" (a how-question's last word after
# "do" is often the verb's object: "How do I request leave?") and "How is/are X <participle>?";
# German "Was/Wie wird/werden/wurde(n) X <Partizip>?" (the verb ends a German clause).
_DO_QUESTION = re.compile(
    r"^\W*(?:what|which\s+\w+)\s+(?:does|do|did|will|would|can|could|should|shall|must)"
    r"\s+(?P<rest>[^,;?]+)",
    re.IGNORECASE,
)
_PASSIVE_QUESTION = re.compile(
    r"^\W*(?:what|which\s+\w+|how)\s+(?:is|are|was|were|will be|can be|should be)"
    r"\s+(?P<rest>[^,;?]+)",
    re.IGNORECASE,
)
_GERMAN_PASSIVE = re.compile(
    r"^\W*(?:was|wie|wodurch|womit|worüber)\s+(?:wird|werden|wurde|wurden)\s+(?P<rest>[^,;?]+)",
    re.IGNORECASE,
)
# German "Was <Verb> <Subjekt> ...?" (the finite verb stands second: "Was beschreiben
# Ereignisse wie DEV_SET?", "Was definiert der HID descriptor?"), as English "What do events
# describe?"; an auxiliary there ("Was ist", "Was wird") opens another form.
_GERMAN_ACTIVE = re.compile(r"^\W*(?i:was)\s+(?P<verb>[a-zäöüß]+)\s+(?P<rest>[^,;?]+)")
# A German verb's particle that ends the clause ("Was stellen die Bits dar?" asks
# "darstellen", not "stellen").
_SEPARATED = frozenset(
    "ab an auf aus bei dar ein fest fort her hin los mit nach vor weg zu zurück".split()
)
# The particle or preposition a phrasal question ends with ("vote on", "used for").
_TRAILING = frozenset("on for by with to about of in at from into".split())
# Verbs that ask what something is or holds, which a definition answers without repeating
# them ("What does closed indicate?", "What does the report contain?").
_LIGHT_VERBS = frozenset(
    "do does did be have has had mean means indicate indicates stand stands contain contains"
    " include includes say says look looks refer refers need needs get gets make makes"
    " bedeutet bedeuten gemacht getan enthält enthalten beinhaltet beinhalten umfasst umfassen"
    " macht machen tut tun braucht brauchen heißt sagt sagen meint meinen".split()
)
_DETERMINERS = frozenset(
    "a an the this that these those its their our your my his her each every any some"
    " der die das den dem des ein eine einen einem einer eines".split()
)
_RELATIVE = frozenset("that which who whom whose where der die das welche welcher".split())

# "the action items for Rich", "Aktionspunkte für Rich", "to-dos": the question asks for the
# lines the minutes mark as actions, of the person it names after "for" / "für".
_ASKS_ACTIONS = re.compile(
    r"\b(?i:action(?:\s+items?|s?\s+(?=for\b|of\b|assigned\b))|to-?dos?|\w*aktionspunkte?\w*"
    r"|aufgaben?(?=\s+(?:für|von)\b))"
    r"(?:.*?\b(?i:for|für|of|von|assigned to)\s+(?P<who>[A-ZÄÖÜ][\w\-]+(?:\s+[A-ZÄÖÜ][\w\-]+)*))?",
)
_ACTION_LINE = re.compile(
    r"^\W*(?:action(?:\s+items?)?|ai|todo|to-do|aktion(?:spunkt)?|aufgabe)\b\s*[:\-–]"
    r"|^\W*action\s+\w+\s+to\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Relation:
    """What a question asks about its subject: the stems of its predicate verb (`verb`,
    with the wiki's words for it) and of its subject (`subject`), or, for a question for
    action items, `actions` (and the stems of whom they are for as `subject`)."""

    verb: frozenset[str] = frozenset()
    subject: frozenset[str] = frozenset()
    actions: bool = False


NONE = Relation()


def asked_relation(profile: QuestionProfile) -> Relation:
    """The relation a what or how question asks (`Relation`); `NONE` for other questions
    and for those whose predicate is no content verb found by its form."""
    if profile.qtype not in ("what", "howto"):
        return NONE
    return _relation(profile.text, tuple(profile.terms), tuple(sorted(profile.aliases.items())))


@lru_cache(maxsize=4096)
def _relation(
    text: str, asked_terms: tuple[str, ...], aliases: tuple[tuple[str, str], ...]
) -> Relation:
    asked = CONTEXT.sub(" ", text).strip()
    actions = _ASKS_ACTIONS.search(asked)
    if actions:
        who = frozenset(terms(actions.group("who") or "", STOPWORDS))
        return Relation(subject=who, actions=True)
    verb = _predicate(asked)
    if not verb:
        return NONE
    own = terms(verb, STOPWORDS)
    if not own or own[0] not in asked_terms:
        return NONE
    stem = own[0]
    verbs = {stem} | {alias for alias, term in aliases if term == stem}
    adverbs = {s for w in asked.split() if w.lower().endswith("ly") for s in terms(w)}
    subject_terms = set(asked_terms) - {stem} - adverbs
    subject = subject_terms | {a for a, t in aliases if t in subject_terms}
    if not subject:
        return NONE
    return Relation(frozenset(verbs), frozenset(subject))


def _predicate(asked: str) -> str:
    """The predicate verb of a question of the forms `_DO_QUESTION`, `_PASSIVE_QUESTION` and
    `_GERMAN_PASSIVE`, "" when none is found by its form: a passive question's last word
    (past a trailing particle: "used for") when it has a participle's ending (-ed, -en;
    German -t, -en); a do-question's word before its first preposition, or its last word
    ("What does the board primarily vote on?"), when no determiner stands before it (which
    makes it a noun: "the head of ..."); a German active question's second word
    (`_GERMAN_ACTIVE`), a lower-case verb form that is no stopword."""
    german = _GERMAN_ACTIVE.match(asked)
    if german:
        verb = german.group("verb")
        if (
            verb not in STOPWORDS
            and verb not in _LIGHT_VERBS
            and verb.endswith(("t", "en"))
            and terms(german.group("rest"), STOPWORDS)
            and german.group("rest").split()[-1].lower() not in _SEPARATED
        ):
            return verb
    for pattern in (_DO_QUESTION, _PASSIVE_QUESTION, _GERMAN_PASSIVE):
        match = pattern.match(asked)
        if match:
            break
    else:
        return ""
    words = [w.strip(".:!\"'()„“”") for w in match.group("rest").split()]
    words = [w for w in words if w]
    while words and words[-1].lower() in _TRAILING:
        words.pop()
    if pattern is _DO_QUESTION:
        inner = next((i for i, w in enumerate(words) if w.lower() in _TRAILING), len(words))
        words = words[:inner]
    if len(words) < 2 or any(w.lower() in _RELATIVE for w in words[:-1]):
        return ""
    verb, before = words[-1], words[-2]
    if not verb.isalpha() or not verb.islower() or verb in _LIGHT_VERBS:
        return ""
    if before.lower() in _DETERMINERS:
        return ""
    if pattern is _PASSIVE_QUESTION and not verb.endswith(("ed", "en")):
        return ""
    if pattern is _GERMAN_PASSIVE and not verb.endswith(("t", "en")):
        return ""
    return verb


@lru_cache(maxsize=8192)
def _token_stems(text: str) -> tuple[frozenset[str], ...]:
    """The stems of each word of `text`, in order (a compound's parts with it)."""
    return tuple(frozenset(terms(token)) for token in TOKEN.findall(text))


def states_relation(relation: Relation, text: str, held: frozenset[str] | None = None) -> bool:
    """Whether a unit's `text` states the asked relation: its verb within `WINDOW` words of
    a word of its subject, or, for action items, a line marked as an action that names whom
    the question asks about. Always true when the question asks no such relation. `held`,
    the unit's terms when known, saves reading a unit that lacks the verb or the person
    word by word."""
    if relation.actions:
        if held is not None and relation.subject and not held & relation.subject:
            return False
        named = not relation.subject or any(s & relation.subject for s in _token_stems(text))
        return named and bool(_ACTION_LINE.search(text))
    if not relation.verb:
        return True
    if held is not None and not held & relation.verb:
        return False
    stems = _token_stems(text)
    verbs = [i for i, s in enumerate(stems) if s & relation.verb]
    subject = [i for i, s in enumerate(stems) if s & relation.subject]
    return any(abs(i - j) <= WINDOW for i in verbs for j in subject if i != j)
