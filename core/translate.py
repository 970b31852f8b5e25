"""Cross-lingual query terms: German question words mapped onto the wiki's English vocabulary.

BM25 cannot match "Vorstand" to "board". A multilingual sentence encoder puts both in one
space, so each German query word that the corpus does not contain is embedded and replaced
by its nearest corpus words (cosine ≥ `min_similarity`), which BM25 then matches. The
corpus vocabulary's vectors are computed once per index generation and cached with every
other embedding. This is word-level translation by nearest neighbours in a shared
embedding space (in the spirit of Conneau et al., "Word Translation Without Parallel Data",
2018), restricted to the words the index can actually match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from core.embeddings import Embedder

_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)


def vocabulary(texts: Iterable[str]) -> list[str]:
    """Distinct lower-cased alphabetic words (3+ letters) of the texts, sorted."""
    words: set[str] = set()
    for text in texts:
        words.update(w.lower() for w in _WORD.findall(text))
    return sorted(words)


class TermTranslator:
    """Maps query words that are not in the corpus vocabulary to their nearest corpus words."""

    def __init__(self, words: Sequence[str], vectors: np.ndarray, embedder: Embedder):
        self.words = list(words)
        self._known = set(self.words)
        self._vectors = vectors
        self._embedder = embedder

    @classmethod
    def build(cls, words: Sequence[str], embedder: Embedder) -> TermTranslator:
        """Embed the vocabulary (cached by the embedder) and make a translator."""
        vectors = embedder.embed(list(words)) if words else np.zeros((0, 1), np.float32)
        return cls(words, vectors, embedder)

    def translate(
        self, words: Sequence[str], per_word: int = 2, min_similarity: float = 0.6
    ) -> dict[str, list[str]]:
        """For each unknown word, its nearest corpus words above the similarity floor."""
        unknown = sorted({w.lower() for w in words if w.lower() not in self._known})
        if not unknown or not self.words:
            return {}
        queries = self._embedder.embed(unknown)
        similarity = queries @ self._vectors.T
        out = {}
        for word, row in zip(unknown, similarity, strict=True):
            best = np.argsort(-row)[:per_word]
            neighbours = [self.words[i] for i in best if row[i] >= min_similarity]
            if neighbours:
                out[word] = neighbours
        return out

    def save(self, folder: Path) -> None:
        """Persist the vocabulary and its vectors under `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "vocabulary.txt").write_text("\n".join(self.words), encoding="utf-8")
        np.save(folder / "vocabulary.npy", self._vectors)

    @classmethod
    def load(cls, folder: Path, embedder: Embedder) -> TermTranslator:
        """Load a translator saved by `save`."""
        text = (folder / "vocabulary.txt").read_text(encoding="utf-8")
        return cls(text.split("\n") if text else [], np.load(folder / "vocabulary.npy"), embedder)


def query_words(text: str) -> list[str]:
    """The alphabetic words of a query that translation considers."""
    return [w.lower() for w in _WORD.findall(text)]
