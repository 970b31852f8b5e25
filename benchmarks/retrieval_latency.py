"""Index the 215 ConfQuestions pages from scratch and time retrieval of every question.

Prints the cold indexing time (extraction, contextualization, embeddings, Chroma, BM25 and
the translation vocabulary, with an empty embedding cache) and the retrieval latency
(query embedding + both searches + fusion) over all completed questions, EN and DE.

    .venv/bin/python benchmarks/retrieval_latency.py [--embedder e5|use]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import benchmark_pages, benchmark_questions, peak_rss_mib, summary_ms  # noqa: E402
from core.embeddings import make_embedder  # noqa: E402
from core.index import EvidenceIndex  # noqa: E402
from core.retrieve import Retriever  # noqa: E402
from core.settings import Settings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedder", help="embedder setting (default: the default embedder)")
    args = parser.parse_args()
    pages = benchmark_pages()
    texts = benchmark_questions()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder:
        environ = {"CONFBOT_DATA_DIR": folder}
        if args.embedder:
            environ["CONFBOT_EMBEDDER"] = args.embedder
        settings = Settings.load(environ=environ)
        print(f"embedder {settings.embedder}")
        start = time.perf_counter()
        embedder = make_embedder(settings)
        index = EvidenceIndex(settings, embedder)
        report = index.index_pages(pages)
        build = time.perf_counter() - start
        print(
            f"indexed {report.pages} pages, {report.evidences} evidences in {build:.1f} s "
            f"(cold embedding cache, model load included)"
        )
        retriever = Retriever.from_settings(index, embedder, settings)
        for text in texts[:20]:
            retriever.search(text)
        latencies, steps = [], {}
        for text in texts:
            start = time.perf_counter()
            result = retriever.search(text)
            latencies.append((time.perf_counter() - start) * 1000)
            for name, value in result.timings.items():
                steps.setdefault(name, []).append(value)
        print(f"retrieval over {len(texts)} questions: {summary_ms(latencies)}")
        for name, values in sorted(steps.items()):
            print(f"  {name:<12} {summary_ms(values)}")
        print(f"peak resident memory {peak_rss_mib():.0f} MiB")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
