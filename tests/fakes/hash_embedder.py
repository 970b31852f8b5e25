"""A small deterministic embedder for fast tests: words hashed into a vector."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence

import numpy as np

from core.embeddings import normalize


class HashEmbedder:
    """Bag of hashed lower-cased words in `dim` dimensions, unit length.

    `calls` counts texts embedded, so tests can assert what was (re-)embedded.
    """

    name = "hash-test"

    def __init__(self, dim: int = 128):
        self.dim = dim
        self.calls = 0
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of the texts."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self.dim] += 1.0
        with self._lock:
            self.calls += len(texts)
        return normalize(out) if len(texts) else out

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Queries are embedded like any text."""
        return self.embed(texts)


class PoisonEmbedder(HashEmbedder):
    """Raises `error` when asked to embed a text containing `marker`."""

    def __init__(self, marker: str = "POISON", error: BaseException | None = None):
        super().__init__()
        self.marker = marker
        self.error = error or MemoryError("cannot allocate 40 GiB")

    def embed(self, texts):
        if any(self.marker in text for text in texts):
            raise self.error
        return super().embed(texts)
