"""A follow-up that asks the same count of another kind of the counted things: "How many
compulsory fields should an RFC have?" then "and how many optional ones?" (German "und
wie viele optionale?") asks "How many optional fields should an RFC have?". The new word
replaces the counted noun's modifiers (a German compound's front that says whether the
things must or may be there: "Pflichtfelder" → "optionale Felder"); the rest of the
question is kept."""

from __future__ import annotations

import re

from core.list_counts import counted_noun

# "and how many optional ones?", "und wie viele optionale?", "what about optional ones?"
_RECOUNT = re.compile(
    r"^\W*(?:and|und|what about|und was ist mit)?\s*(?:how many|wie viele|wieviele)\s+"
    r"(?P<kind>[^\W\d_][\w-]*)\s*(?P<ones>ones?)?\s*\?*\s*$",
    re.IGNORECASE,
)
# A German compound's front that says whether the things must or may be there.
_OBLIGATION_FRONT = re.compile(r"^(?:pflicht|zusatz|wahl)(?=\w{3,})", re.IGNORECASE)


def recounted(question: str, anchor: str, language: str) -> str | None:
    """`anchor` (a "how many X ...?" question) asking for the kind of X the elliptical
    `question` names, or None when the question is no such follow-up (English says "ones"
    for the noun), or the anchor counts nothing or no kind of its things (a modifier, or a
    German compound's front saying must or may, for the new word to replace)."""
    asked = _RECOUNT.match(question)
    noun = counted_noun(anchor, language)
    if not asked or not noun or noun not in anchor:
        return None
    kind = asked.group("kind")
    if language != "de" and not asked.group("ones"):
        return None  # "and how many failed?" asks of the verb, not of a kind of the noun
    *modifiers, head = noun.split()
    front = _OBLIGATION_FRONT.sub("", head) if language == "de" else head
    if front != head:
        head = front[:1].upper() + front[1:]
    elif not modifiers:
        return None  # the anchor counts no kind of its things for the new word to replace
    return anchor.replace(noun, f"{kind} {head}", 1)
