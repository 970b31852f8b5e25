"""Cross-lingual query terms: German question words mapped onto the wiki's English vocabulary.

BM25 cannot match "Vorstand" to "board". A multilingual sentence encoder puts both in one
space, so each German query word that the corpus does not contain is embedded and replaced
by its nearest corpus words (cosine ≥ `min_similarity`), which BM25 then matches. The
corpus vocabulary is kept by the evidence store as pages are written (`core.store`), and
each word's vector is stored there once computed, so only new words cost time, in any
process.
This is word-level translation by nearest neighbours in a shared embedding space (in the
spirit of Conneau et al., "Word Translation Without Parallel Data", 2018), restricted to the
words the index can actually match.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Iterable, Sequence

import numpy as np

from core.embeddings import Embedder

_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
# Translated words remembered per translator before the memory starts over.
CACHE_WORDS = 50_000
# Digits a word similarity keeps before the floor and the ranking of neighbours.
SIMILARITY_DIGITS = 6


def vocabulary(texts: Iterable[str]) -> list[str]:
    """Distinct lower-cased alphabetic words (3+ letters) of the texts, sorted."""
    words: set[str] = set()
    for text in texts:
        words.update(w.lower() for w in _WORD.findall(text))
    return sorted(words)


class TermTranslator:
    """Maps query words that are not in the corpus vocabulary to their nearest corpus words.

    `vectors_of(words)` supplies the vocabulary's vectors (the index reads them from its
    store and embeds those not stored yet). It is called on the first translation, so
    English-only use never pays for them.
    """

    def __init__(
        self,
        words: Sequence[str],
        embedder: Embedder,
        vectors_of: Callable[[Sequence[str]], np.ndarray],
    ):
        self.words = list(words)
        self._known = set(self.words)
        self._embedder = embedder
        self._vectors_of = vectors_of
        self._vectors: np.ndarray | None = None
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, int, float], list[str]] = {}

    def _vocabulary_vectors(self) -> np.ndarray:
        with self._lock:
            if self._vectors is None:
                self._vectors = self._vectors_of(self.words)
            return self._vectors

    def computed_vectors(self) -> dict[str, np.ndarray]:
        """The vocabulary's vectors by word, if they were computed (else empty)."""
        with self._lock:
            if self._vectors is None:
                return {}
            return dict(zip(self.words, self._vectors, strict=True))

    @property
    def known(self) -> Collection[str]:
        """The corpus vocabulary (lower-cased words)."""
        return self._known

    def translate(
        self, words: Sequence[str], per_word: int = 2, min_similarity: float = 0.6
    ) -> dict[str, list[str]]:
        """For each unknown word, its nearest corpus words above the similarity floor.
        Each word's neighbours are remembered (up to `CACHE_WORDS` words), so the words a
        question shares with earlier ones, or the same question asked again by the
        answerer after retrieval, cost nothing."""
        unknown = sorted({w.lower() for w in words if w.lower() not in self._known})
        if not unknown or not self.words:
            return {}
        with self._lock:
            found = {w: self._cache.get((w, per_word, min_similarity)) for w in unknown}
        new = [w for w, neighbours in found.items() if neighbours is None]
        if new:
            # One word per call and rounded similarities: a word's neighbours must not
            # depend on which other words (those of earlier questions are cached) shared
            # its batch, nor ties on float noise; equal similarities keep corpus order.
            vectors = np.vstack([self._embedder.embed([word]) for word in new])
            similarity = np.round(vectors @ self._vocabulary_vectors().T, SIMILARITY_DIGITS)
            for word, row in zip(new, similarity, strict=True):
                best = np.argsort(-row, kind="stable")[:per_word]
                found[word] = [self.words[i] for i in best if row[i] >= min_similarity]
            with self._lock:
                if len(self._cache) > CACHE_WORDS:
                    self._cache.clear()
                for word in new:
                    self._cache[(word, per_word, min_similarity)] = found[word]
        out = {word: neighbours for word, neighbours in found.items() if neighbours}
        return out


def split_compound(word: str, known: Collection[str], shortest: int = 3) -> list[str]:
    """A German compound cut into two words the corpus knows ("testmatrix" → test, matrix;
    "sicherheitsarchitektur" → sicherheit, architektur when both are known), allowing a
    linking s, es, n or en after the first part; [] when no cut gives known parts.

    Of several cuts the one with the longest known head (the last part) wins, as German
    compounds take their meaning from the head (the splitting of Koehn and Knight,
    "Empirical Methods for Compound Splitting", EACL 2003, restricted to two parts).
    """
    word = word.lower()
    for cut in range(shortest, len(word) - shortest + 1):
        left, head = word[:cut], word[cut:]
        if head not in known:
            continue
        for link in ("", "s", "es", "n", "en"):
            stem = left[: len(left) - len(link)] if link and left.endswith(link) else left
            if (not link or left.endswith(link)) and len(stem) >= shortest and stem in known:
                return [stem, head]
    return []


def query_words(text: str) -> list[str]:
    """The alphabetic words of a query that translation considers."""
    return [w.lower() for w in _WORD.findall(text)]
