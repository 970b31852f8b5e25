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

A German compound means its last word, narrowed by the ones before it: a translation that
spells only its front ("Supportvertrag" → support) says nothing of its head (Vertrag, a
contract), so it stands for the compound only when the head is known too
(`front_only`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from os.path import commonprefix

from core.glossary import glossary_words
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


FRONT_LENGTH = 4
"""Letters a compound's front and head have at least for `front_only` to read them."""


def front_only(noun: str, translations: Sequence[str], known: Collection[str]) -> bool:
    """Whether the translations of a lower-case German compound all spell its front only
    ("supportvertrag" → support) and its head (after a linking s) is a word neither the
    wiki nor the glossary knows ("vertrag")."""
    if not translations:
        return False
    for word in translations:
        shared = len(commonprefix([noun, word]))
        if shared < FRONT_LENGTH or shared < len(word) - 1:
            return False
        head = noun[shared:]
        if len(head) < FRONT_LENGTH or _known_head(head, known):
            return False
        if head.startswith("s") and _known_head(head[1:], known):  # a linking s
            return False
    return True


def _known_head(head: str, known: Collection[str]) -> bool:
    return head in known or bool(glossary_words(head)) or cognate_of_known(head, known)


def _english(word: str) -> bool:
    if language_word(word, "en"):
        return True
    return any(
        british in word and language_word(word.replace(british, american), "en")
        for british, american in _BRITISH
    )
