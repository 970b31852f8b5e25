"""Cross-lingual query terms: German question words mapped onto the wiki's English vocabulary.

BM25 cannot match "Vorstand" to "board". A multilingual sentence encoder puts both in one
space, so each German query word that the corpus does not contain is embedded and replaced
by its nearest corpus words (cosine ≥ `min_similarity`), which BM25 then matches. The
corpus vocabulary's vectors are computed on the first translation after the index changed
(each word's vector is cached with every other embedding, so only new words cost time).
This is word-level translation by nearest neighbours in a shared embedding space (in the
spirit of Conneau et al., "Word Translation Without Parallel Data", 2018), restricted to the
words the index can actually match.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from core.embeddings import Embedder

_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
# Translated words remembered per translator before the memory starts over.
CACHE_WORDS = 50_000


def vocabulary(texts: Iterable[str]) -> list[str]:
    """Distinct lower-cased alphabetic words (3+ letters) of the texts, sorted."""
    words: set[str] = set()
    for text in texts:
        words.update(w.lower() for w in _WORD.findall(text))
    return sorted(words)


class TermTranslator:
    """Maps query words that are not in the corpus vocabulary to their nearest corpus words.

    The vocabulary's vectors are computed on the first translation (English-only use never
    pays for them) and saved to `folder` when one is given.
    """

    def __init__(
        self,
        words: Sequence[str],
        embedder: Embedder,
        vectors: np.ndarray | None = None,
        folder: Path | None = None,
    ):
        self.words = list(words)
        self._known = set(self.words)
        self._embedder = embedder
        self._vectors = vectors
        self._folder = folder
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, int, float], list[str]] = {}

    def _vocabulary_vectors(self) -> np.ndarray:
        with self._lock:
            if self._vectors is None:
                self._vectors = self._embedder.embed(self.words)
                if self._folder is not None:
                    np.save(self._vectors_file(self._folder), self._vectors)
            return self._vectors

    def _vectors_file(self, folder: Path) -> Path:
        """Where this vocabulary's vectors are saved: named by a digest of the words, so
        vectors computed late can never be paired with a newer vocabulary."""
        digest = hashlib.sha256("\n".join(self.words).encode("utf-8")).hexdigest()[:16]
        return folder / f"vocabulary-{digest}.npy"

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
            similarity = self._embedder.embed(new) @ self._vocabulary_vectors().T
            for word, row in zip(new, similarity, strict=True):
                best = np.argsort(-row)[:per_word]
                found[word] = [self.words[i] for i in best if row[i] >= min_similarity]
            with self._lock:
                if len(self._cache) > CACHE_WORDS:
                    self._cache.clear()
                for word in new:
                    self._cache[(word, per_word, min_similarity)] = found[word]
        out = {word: neighbours for word, neighbours in found.items() if neighbours}
        return out

    def save(self, folder: Path) -> None:
        """Persist the vocabulary under `folder` (its vectors follow once computed)."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "vocabulary.txt").write_text("\n".join(self.words), encoding="utf-8")
        for old in folder.glob("vocabulary-*.npy"):
            if old != self._vectors_file(folder):
                old.unlink(missing_ok=True)
        if self._vectors is not None:
            np.save(self._vectors_file(folder), self._vectors)
        self._folder = folder

    @classmethod
    def load(cls, folder: Path, embedder: Embedder) -> TermTranslator:
        """Load a translator saved by `save` (with its vectors when they were computed)."""
        text = (folder / "vocabulary.txt").read_text(encoding="utf-8")
        translator = cls(text.split("\n") if text else [], embedder, None, folder)
        vectors_file = translator._vectors_file(folder)
        if vectors_file.exists():
            translator._vectors = np.load(vectors_file)
        return translator


def query_words(text: str) -> list[str]:
    """The alphabetic words of a query that translation considers."""
    return [w.lower() for w in _WORD.findall(text)]
