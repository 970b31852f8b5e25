"""Questions that ask two things in one sentence ("Which port does the VPN use, and what do I
do if UDP is blocked?"): the offline answerer picks one span per question, so such a question
got half an answer. `separate_asks` cuts it into its asks, each answered on its own from the
same sources (`core.extractive.ExtractiveLLM`), and `joined_reply` puts the answers together.

Only a comma-joined second question that opens with its own question word is cut off, and only
when it can stand alone: it names no earlier subject by a pronoun ("…, and who runs it?"
stays one question, answered as before). Two questions written as two sentences are left
whole: in ConfQuestions the second one leans on the first ("How many…? Who were they?") and
the count's reply already lists the names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_ENGLISH_OPENERS = (
    r"what|which|who|whom|when|where|why|how|is|are|was|were|do|does|did|can|could|should"
    r"|will|would|has|have"
)
_GERMAN_OPENERS = (
    r"was|welche[rsnm]?|wer|wen|wem|wann|wo|wohin|woher|warum|wieso|weshalb|wie|ist|sind|war"
    r"|waren|gibt|muss|müssen|kann|können|soll|sollte|wird|werden|hat|haben"
)
_SECOND_ASK = re.compile(
    rf",\s*(?:and|und)\s+(?=(?:{_ENGLISH_OPENERS}|{_GERMAN_OPENERS})\b)", re.IGNORECASE
)
# Words that point back to the first ask's subject: the second ask cannot stand alone.
_POINTS_BACK = re.compile(
    r"\b(?:this|that|these|those|it|its|they|them|their|there|then|dies|diese[rsnm]?|das"
    r"|dem|den|der|es|sie|ihr|ihre[rnms]?|dort|dann|dessen|deren)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")
MIN_WORDS = 4
"""The fewest words each ask must have to be answered on its own ("…, and who?" is not)."""


def separate_asks(question: str) -> list[str]:
    """The question's asks, each ending in "?" (the question alone when it asks one thing,
    or when its second ask leans on the first)."""
    cut = _SECOND_ASK.search(question)
    if cut is None:
        return [question]
    first, second = question[: cut.start()].strip(), question[cut.end() :].strip()
    if _POINTS_BACK.search(_without_leading_article(second)):
        return [question]
    if min(len(_WORD.findall(first)), len(_WORD.findall(second))) < MIN_WORDS:
        return [question]
    second = second[0].upper() + second[1:]
    return [first.rstrip("?.! ") + "?", second.rstrip("?.! ") + "?"]


def _without_leading_article(ask: str) -> str:
    """The ask without German articles before a noun: "das VPN" names a thing, where "das"
    alone ("ist das erlaubt?") points back."""
    return re.sub(r"\b(?:der|die|das|den|dem|des)\s+(?=[A-ZÄÖÜ])", "", ask)


def joined_reply(replies: Sequence[str]) -> str:
    """One reply from the asks' answers, in the order asked, one per line."""
    return "\n".join(reply.strip() for reply in replies if reply.strip())
