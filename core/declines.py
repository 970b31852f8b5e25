"""Declines in other words: a model's way of saying the sources lack the answer.

The answer prompt asks for one fixed sentence (`core.answer.OUT_OF_SCOPE`) when the sources
lack the answer, but models paraphrase it: a 1.5B model wrote "The Wi-Fi password is not
mentioned in the provided sources." and German questions get "Diese Information ist in den
Quellen nicht enthalten." (issue 35, a real model run offline). A paraphrase shown as an
answer is worse than a decline: the user reads a non-answer and gets no closest pages.

`is_decline_sentence` tells whether one sentence says the sources (context, documents,
wiki, information) do not hold something, or that the writer cannot find or answer it;
`is_decline` whether a whole reply is one (every sentence with words in it is). The
patterns are the phrasings seen in that run and their common variants, English and German;
they ask for a negation near a word for "the sources" or "find/know/answer", so an answer
that merely contains "not" ("Badges are not required on Fridays [2]") is not one.
"""

from __future__ import annotations

import re

from core.answer import CITATION, is_out_of_scope

_SOURCES_EN = (
    r"(?:provided |given |available |retrieved |above |numbered )?(?:sources?|context|"
    r"information|documents?|documentation|wiki|evidence|texts?|pages?|excerpts?|data)"
)
_NOT_THERE_EN = (
    r"(?:not|never|nowhere) (?:\w+ ){0,2}(?:mentioned|found|contained|included|provided|stated|"
    r"specified|listed|given|available|present|covered|described|addressed|indicated|"
    r"documented|defined|named|explicitly)"
)
_DECLINE_EN = re.compile(
    r"|".join(
        [
            _NOT_THERE_EN
            + r"\b.{0,40}\b(?:in|by|from|within) (?:the |any of the |these )?"
            + _SOURCES_EN,
            r"\b(?:the |these )?" + _SOURCES_EN + r" (?:do|does|did) not (?:\w+ ){0,2}"
            r"(?:contain|mention|say|specify|provide|include|state|list|give|cover|tell)",
            r"\b(?:the |these )?" + _SOURCES_EN + r" (?:don't|doesn't|didn't|lack|contain no|"
            r"provide no|give no|mention no|say nothing|have no)",
            r"\bno (?:relevant |specific |such |further )?(?:information|mention|details?|data)"
            r" (?:about|on|regarding|is|was|can|could|of|for|in)\b",
            r"\bthere is no (?:relevant |specific )?(?:information|mention)",
            r"\bI (?:could not|couldn't|cannot|can't|can not|don't|do not|did not|didn't|am "
            r"unable to|was unable to) (?:\w+ ){0,2}(?:find|know|answer|determine|locate|see|tell"
            r"|provide)",
            r"\b(?:cannot|can't|can not|could not|couldn't) be (?:found|determined|answered|"
            r"inferred|derived)",
            r"\b(?:unable|not possible|impossible) to (?:find|determine|answer|tell)",
        ]
    ),
    re.IGNORECASE,
)
_SOURCES_DE = (
    r"(?:Quellen?|Kontext|Informationen|Dokumenten?|Unterlagen|Wiki|Texten?|Seiten?|Daten|Angaben)"
)
_DECLINE_DE = re.compile(
    r"|".join(
        [
            r"\bnicht (?:\w+ ){0,2}(?:erwähnt|enthalten|angegeben|gefunden|aufgeführt|genannt|"
            r"beschrieben|vorhanden|verfügbar|ersichtlich|spezifiziert|festgelegt|zu finden|"
            r"zu entnehmen|beantwortet werden|beantworten|bestimmen|finden)",
            r"\bkeine (?:\w+ ){0,2}(?:Informationen|Angaben|Hinweise|Erwähnung|Daten|Antwort)",
            r"\b" + _SOURCES_DE + r" (?:\w+ ){0,3}(?:enthalten|nennen|erwähnen|sagen) (?:\w+ ){0,3}"
            r"(?:nicht|keine|nichts)",
            r"\b(?:steht|stehen|findet sich|finden sich|gibt es) (?:\w+ ){0,3}(?:nichts|keine\w*|"
            r"nicht)\b.{0,40}\b(?:in|aus) (?:den |der |dem |diesen )?(?:\w+ )?" + _SOURCES_DE,
            r"\b(?:kann|konnte|könnte) (?:ich )?(?:\w+ ){0,3}nichts? (?:\w+ ){0,2}"
            r"(?:finden|beantworten|sagen|bestimmen|entnehmen)",
        ]
    ),
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"(?<=[.!?。])\s+|\n+")
_WORD = re.compile(r"[^\W\d_]{2,}")


def is_decline_sentence(sentence: str) -> bool:
    """Whether `sentence` says the sources lack something or that it cannot be answered
    (English or German), or is the fixed out-of-scope sentence."""
    text = " ".join(CITATION.sub(" ", sentence).split())
    return bool(is_out_of_scope(text) or _DECLINE_EN.search(text) or _DECLINE_DE.search(text))


def is_decline(reply: str) -> bool:
    """Whether a whole reply declines: it has words, and every sentence with words in it is
    a decline (`is_decline_sentence`)."""
    sentences = [s for s in _SENTENCES.split(reply.strip()) if _WORD.search(s)]
    return bool(sentences) and all(is_decline_sentence(s) for s in sentences)
