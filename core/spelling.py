"""Spelling correction of questions against the wiki's own vocabulary.

A word of the question that no indexed evidence contains ("anual", "Paymnets") is replaced
by the closest vocabulary word: within Damerau-Levenshtein distance 1 for words of 4 to 7
letters and 2 for longer ones, the nearest first and among equally near ones the word in
the most evidences. That is the choice rule of Norvig's corrector ("How to Write a
Spelling Corrector", 2007: known words within two edits, the most frequent) and of SymSpell
(Garbe, 2012: the smallest distance, then the highest count). The candidates are found as
Norvig does, by generating the word's edits and looking them up, and two edits away by
meeting the vocabulary's one-letter deletions halfway (SymSpell's symmetric delete): the
word's edits and its two-letter deletions against the vocabulary and its one-letter
deletions. That finds every two-edit typo but two substitutions, at about a thousand set
look-ups a word (well under a millisecond), not a scan of the vocabulary.

The wiki's vocabulary is no dictionary: a real word it lacks ("attended", "laut") has wiki
words near it. So a correction must keep the word's first letter (or swap the first two),
since misspellings rarely change it (Pollock and Zamora, "Collection and characterization
of spelling errors in scientific and scholarly text", JASIS 1983), and a word of under 6
letters, which has many real words one edit away, is corrected only by a letter added or
two letters swapped. Left alone: words of 3 letters or fewer, words with digits or joiners
(`OXT-1654`, `9.0.2`), all-capital words (acronyms), stopwords, German words of the
glossary (`core.glossary`), vocabulary words, and words with the stem of a vocabulary word
("headings" beside "heading", "attended" beside "attendance": real words, and BM25 matches
them by that stem anyway). Nor is a word of a general dictionary corrected, in English or in
the question's language (`dictionary_word`: pyspellchecker's word lists, built from film
subtitles, each word seen at least 50 times): "contract" is no typo of the wiki's "contact",
nor "dental" of "denial", and turning one into the other answers another question than the
one asked (a question about a support contract would be answered about contacts). The wiki
is English (the lexical
index stems English, `core.lexical`): in a question of another language most words are
missing from the vocabulary because they are German, not misspelt, and the index
translates them (`core.translate`), so there only a swap of two adjacent letters of a
vocabulary word ("Paymnets") counts as a typo.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from spellchecker import SpellChecker

from core.glossary import glossary_words
from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS, tokenize

WIKI_LANGUAGE = "en"
MIN_LENGTH = 4
LONG_WORD = 8
"""Words of this many letters or more may be corrected two edits away."""
SHORT_WORD = 6
"""Words under this many letters are corrected only by an added letter or a swap."""
MAX_DELETE_WORDS = 50_000
"""The most frequent vocabulary words whose deletions are kept for two-edit corrections
(each costs one set entry per letter), which bounds memory on a very large wiki."""
_ALPHABET = "abcdefghijklmnopqrstuvwxyzäöüß"
# A word with its joiners and digits, as the lexical tokenizer reads it (`core.lexical`).
_TOKEN = re.compile(r"[^\W_]+(?:[.\-_/+'’][^\W_]+)*", re.UNICODE)
_STOP = ENGLISH_STOPWORDS | GERMAN_STOPWORDS


@lru_cache(maxsize=4)
def _dictionary(language: str) -> SpellChecker | None:
    """pyspellchecker's word list of `language` (loaded on first use, about half a second),
    or None for a language it has none of."""
    try:
        return SpellChecker(language=language, distance=1)
    except ValueError:
        return None


def dictionary_word(word: str, language: str = WIKI_LANGUAGE) -> bool:
    """Whether a lower-case word is a word of the general dictionary of English or of
    `language`: a real word, which is not corrected into another."""
    return any(language_word(word, lang) for lang in dict.fromkeys((WIKI_LANGUAGE, language)))


def language_word(word: str, language: str) -> bool:
    """Whether a lower-case word is in the general dictionary of `language` alone (a German
    word, not an English one glued onto a German compound)."""
    checker = _dictionary(language)
    return checker is not None and word in checker.word_frequency


def max_distance(word: str) -> int:
    """Edits allowed to correct `word`: 0 under 4 letters, 1 up to 7, 2 from 8 on."""
    if len(word) < MIN_LENGTH:
        return 0
    return 1 if len(word) < LONG_WORD else 2


def osa_distance(a: str, b: str) -> int:
    """The optimal string alignment distance (Damerau-Levenshtein with adjacent
    transpositions, no substring edited twice; Boytsov, "Indexing methods for approximate
    dictionary searching", 2011)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def deletes(word: str) -> set[str]:
    """The word with one letter deleted, every way."""
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def edits1(word: str) -> set[str]:
    """Every string one edit away: a deletion, an adjacent swap, a substitution or an
    insertion of a letter (Norvig's `edits1`)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaces = {a + c + b[1:] for a, b in splits if b for c in _ALPHABET}
    inserts = {a + c + b for a, b in splits for c in _ALPHABET}
    return deletes(word) | swaps | replaces | inserts


def swaps(word: str) -> set[str]:
    """The word with two adjacent letters swapped, every way."""
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}


def is_swap(word: str, candidate: str) -> bool:
    """Whether `candidate` is `word` with two adjacent letters swapped."""
    if len(word) != len(candidate):
        return False
    diff = [i for i, (a, b) in enumerate(zip(word, candidate, strict=True)) if a != b]
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and word[diff[0]] == candidate[diff[1]]
        and word[diff[1]] == candidate[diff[0]]
    )


@dataclass(frozen=True)
class Correction:
    """A question with its misspelt words replaced; `changes` maps each replaced word (as
    written) to its replacement, empty when nothing changed."""

    text: str
    changes: dict[str, str] = field(default_factory=dict)


class Speller:
    """Corrects words against a vocabulary: word (lower case) → number of evidences that
    contain it (`core.store.EvidenceStore.word_counts`); `known(word, language)` tells the
    real words left alone (`dictionary_word`)."""

    def __init__(
        self,
        counts: Mapping[str, int],
        known: Callable[[str, str], bool] = dictionary_word,
    ):
        self.counts = counts
        self.known = known
        self._deletes: dict[str, list[str]] | None = None
        self._stems: set[str] | None = None

    def _stem_set(self) -> set[str]:
        """The stems of the vocabulary (computed on first use)."""
        if self._stems is None:
            self._stems = {stem for word in self.counts for stem in tokenize(word)}
        return self._stems

    def _delete_index(self) -> dict[str, list[str]]:
        """One-letter deletions of the most frequent vocabulary words that are long enough
        to be two edits from a long word, each to the words it comes from (built on first
        use)."""
        if self._deletes is None:
            long = [w for w in self.counts if len(w) >= LONG_WORD - 2]
            long.sort(key=lambda w: -self.counts[w])
            index: dict[str, list[str]] = {}
            for word in long[:MAX_DELETE_WORDS]:
                for short in deletes(word):
                    index.setdefault(short, []).append(word)
            self._deletes = index
        return self._deletes

    def candidates(self, word: str) -> set[str]:
        """Vocabulary words within `max_distance(word)` edits of `word` (lower case), found
        as the module docstring says (so not those two substitutions away)."""
        limit = max_distance(word)
        if limit == 0:
            return set()
        near = edits1(word)
        found = {w for w in near if w in self.counts}
        if limit == 2:
            index = self._delete_index()
            for edited in near | {word}:
                found.update(index.get(edited, ()))
            for short in {d for once in deletes(word) for d in deletes(once)}:
                if short in self.counts:
                    found.add(short)
                found.update(index.get(short, ()))
        return {w for w in found if osa_distance(word, w) <= limit}

    def best(self, word: str) -> str | None:
        """The correction of a lower-case word not in the vocabulary: of the candidates that
        keep its first letter (or swap the first two), and for a short word only those with
        a letter added or swapped, the nearest, then the one in most evidences, then the
        first alphabetically."""
        found = {
            w
            for w in self.candidates(word)
            if (w[0] == word[0] or w[:2] == word[1::-1])
            and (len(word) >= SHORT_WORD or len(w) == len(word) + 1 or is_swap(word, w))
        }
        if not found:
            return None
        return min(found, key=lambda w: (osa_distance(word, w), -self.counts[w], w))

    def correct_word(
        self, word: str, strict: bool = False, language: str = WIKI_LANGUAGE
    ) -> str | None:
        """The replacement of `word` as written (its case kept), or None to leave it;
        `strict` accepts only a swap of two adjacent letters; a real word of `language` or
        English (`known`) is left."""
        lower = word.lower()
        if (
            len(lower) < MIN_LENGTH
            or not lower.isalpha()
            or (word.isupper() and len(word) > 1)
            or lower in _STOP
            or lower in self.counts
            or glossary_words(lower)
            or set(tokenize(lower)) <= self._stem_set()
            or self.known(lower, language)
        ):
            return None
        if strict:
            found = sorted(w for w in swaps(lower) if w in self.counts)
            best = max(found, key=self.counts.__getitem__) if found else None
        else:
            best = self.best(lower)
        if best is None:
            return None
        return _same_case(word, best)

    def correct(self, text: str, language: str = WIKI_LANGUAGE) -> Correction:
        """`text` with its misspelt words replaced; in a question not in the wiki's
        language only adjacent-letter swaps are corrected (see the module docstring)."""
        strict = language != WIKI_LANGUAGE
        changes: dict[str, str] = {}
        pieces: list[str] = []
        end = 0
        for match in _TOKEN.finditer(text):
            word = match.group()
            fixed = self.correct_word(word, strict, language)
            if fixed is None:
                continue
            changes[word] = fixed
            pieces += [text[end : match.start()], fixed]
            end = match.end()
        if not changes:
            return Correction(text)
        return Correction("".join(pieces) + text[end:], changes)


def describe(changes: Mapping[str, str]) -> str:
    """The corrections as shown to the user: `anual → annual, Paymnets → Payments`."""
    return ", ".join(f"{word} → {fixed}" for word, fixed in changes.items())


def _same_case(written: str, word: str) -> str:
    """`word` in the case of `written`: capitalized or lower case."""
    return word[:1].upper() + word[1:] if written[:1].isupper() else word
