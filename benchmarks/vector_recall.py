"""How much of the true nearest-neighbour list the vector index returns, and how fast.

The dense retriever asks Chroma's HNSW graph for the `candidates_k` (100) nearest evidences.
The graph search is approximate: `ef_search` (the `dense_search_ef` setting) is how many
candidates it explores. This benchmark takes the vectors of the ConfQuestions evidences (the
evaluation index `confbot eval` builds) and, to see a larger wiki, adds copies of them moved
by Gaussian noise and re-normalized, so the neighbourhoods stay as crowded as real
sentence embeddings are. For each `ef_search` it opens the collection afresh (Chroma reads
`ef_search` when it loads the index) and reports recall@100 against exact cosine search
(mean and worst query over the benchmark's completed English and German questions) and the query
median and p95.

    .venv/bin/python benchmarks/vector_recall.py --vectors 100000 --ef 100 200 400 800
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import chromadb
import numpy as np
from chromadb.config import Settings as ChromaSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import benchmark_pages, benchmark_questions  # noqa: E402
from core.embeddings import make_embedder  # noqa: E402
from core.evaluation.benchmark import benchmark_index  # noqa: E402
from core.index import HNSW_BUILD_EF, HNSW_NEIGHBORS  # noqa: E402
from core.settings import Settings  # noqa: E402


def corpus_vectors(settings: Settings) -> np.ndarray:
    """The embeddings of every ConfQuestions evidence, from its evaluation index (built,
    or reused from the data folder, as `confbot eval` does)."""
    index, _, _ = benchmark_index(settings, benchmark_pages())
    vectors = index._collection.get(include=["embeddings"])["embeddings"]
    index.close()
    return np.asarray(vectors, dtype=np.float32)


def grown(vectors: np.ndarray, total: int, noise: float, seed: int = 0) -> np.ndarray:
    """`vectors` followed by noisy normalized copies of them, `total` rows in all."""
    rng = np.random.default_rng(seed)
    extra = vectors[rng.integers(0, len(vectors), total - len(vectors))]
    extra = extra + rng.normal(0.0, noise / np.sqrt(vectors.shape[1]), extra.shape)
    extra /= np.linalg.norm(extra, axis=1, keepdims=True)
    return np.concatenate([vectors, extra.astype(np.float32)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=int, default=100000)
    parser.add_argument("--ef", type=int, nargs="+", default=[100, 200, 400, 800])
    parser.add_argument("--noise", type=float, default=0.3, help="norm of the added noise")
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument(
        "--max-neighbors", type=int, default=HNSW_NEIGHBORS, help="HNSW M (Chroma's default: 16)"
    )
    parser.add_argument(
        "--ef-construction",
        type=int,
        default=HNSW_BUILD_EF,
        help="HNSW build effort (Chroma's default: 100)",
    )
    args = parser.parse_args()
    settings = Settings.load()
    base = corpus_vectors(settings)
    vectors = grown(base, max(args.vectors, len(base)), args.noise)
    questions = benchmark_questions()
    queries = np.asarray(make_embedder(settings).embed_queries(questions), dtype=np.float32)
    exact = np.argpartition(-(queries @ vectors.T), args.k, axis=1)[:, : args.k]
    folder = tempfile.mkdtemp(prefix="confbot-vectors-")
    client = chromadb.PersistentClient(folder, ChromaSettings(anonymized_telemetry=False))
    collection = client.create_collection(
        "recall",
        metadata={
            "hnsw:space": "cosine",
            "hnsw:M": args.max_neighbors,
            "hnsw:construction_ef": args.ef_construction,
        },
        embedding_function=None,
    )
    start = time.perf_counter()
    step = client.get_max_batch_size()
    for first in range(0, len(vectors), step):
        rows = vectors[first : first + step]
        collection.add(ids=[str(i) for i in range(first, first + len(rows))], embeddings=rows)
    print(
        f"{len(vectors)} vectors ({len(base)} evidences + noisy copies) added in "
        f"{time.perf_counter() - start:.1f} s; {len(queries)} questions"
    )
    print(f"{'ef_search':>10}{'recall@k':>10}{'worst':>8}{'median ms':>11}{'p95 ms':>8}")
    for ef in args.ef:
        client.get_collection("recall").modify(configuration={"hnsw": {"ef_search": ef}})
        client.clear_system_cache()  # the next client loads the index with this ef_search
        client = chromadb.PersistentClient(folder, ChromaSettings(anonymized_telemetry=False))
        collection = client.get_collection("recall")
        recalls, times = [], []
        for query, truth in zip(queries, exact, strict=True):
            start = time.perf_counter()
            found = collection.query(query_embeddings=[query], n_results=args.k, include=[])
            times.append((time.perf_counter() - start) * 1000)
            recalls.append(len(set(map(int, found["ids"][0])) & set(truth.tolist())) / args.k)
        p95 = statistics.quantiles(times, n=20)[-1]
        print(
            f"{ef:>10}{np.mean(recalls):>10.3f}{min(recalls):>8.2f}"
            f"{statistics.median(times):>11.2f}{p95:>8.2f}"
        )


if __name__ == "__main__":
    main()
