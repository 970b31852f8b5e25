"""Whether the index's word translation of a German word can stand for it.

The index translates a German word the wiki lacks to its nearest wiki words by the
encoder's word vectors (`core.translate.TermTranslator`). Its candidates are the wiki's
words only, so every German word lands somewhere, however far: "Kantine" on "cee",
"Verhaltenskodex" on "noxs", "Azure" on "apertus". A common German word has a common
English one for it ("Verhalten" → behaviour, "Speiseplan" → plan), so a translation that is
no English word at all (an identifier, a name, a code token of the wiki) says the wiki has
no word for the German one (`english_translation`).

A German word spelt as a wiki word but with German k or z for its c is that word's cognate
("Kontext" → context, "Konfiguration" → configuration), known whatever its translation
(`cognate_of_known`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from difflib import SequenceMatcher

from core.spelling import language_word

# British spellings the general English dictionary (American) lacks: behaviour, colour.
_BRITISH = (("our", "or"), ("ise", "ize"), ("isation", "ization"), ("tre", "ter"))


def english_translation(translations: Sequence[str]) -> bool:
    """Whether one of a German word's translations is a word of the general English
    dictionary (in American or British spelling): then it can stand for a German word."""
    return any(_english(word) for word in translations)


def cognate_of_known(word: str, known: Collection[str]) -> bool:
    """Whether a lower-case German word with a k or z is a wiki word written with c there
    ("kontext" → context)."""
    variants = {word.replace("k", "c"), word.replace("z", "c")}
    variants.add(word.replace("k", "c").replace("z", "c"))
    variants.discard(word)
    return any(variant in known for variant in variants)


# Spelling similarity (difflib's ratio) from which a translation is read as the word's
# cognate ("kandidaten", "candidates" 0.8; "zertifikat", "certificate" 0.76; "vertrag",
# "delay" 0.33).
COGNATE_SIMILARITY = 0.7


def spelled_like(word: str, other: str) -> bool:
    """Whether a German word and an English one are spelled alike enough to be cognates
    (`COGNATE_SIMILARITY`): a word translation landing on such a word stands for it."""
    return SequenceMatcher(None, word.lower(), other.lower()).ratio() >= COGNATE_SIMILARITY


def _english(word: str) -> bool:
    """Whether a lower-case word is in the general English dictionary, or is once its
    British spelling is made American."""
    if language_word(word, "en"):
        return True
    return any(
        british in word and language_word(word.replace(british, american), "en")
        for british, american in _BRITISH
    )
