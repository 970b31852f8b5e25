"""Index the ConfQuestions corpus replicated to N pages and measure cost and query latency.

Each replica rewrites page ids (and the ids in URLs), so every replica is a distinct set of
pages and evidences; identical text still hits the embedding cache, so this measures the
index (Chroma HNSW, the evidence store, BM25) rather than the embedder.

    .venv/bin/python benchmarks/scale.py --pages 20000 [--folder DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (  # noqa: E402
    benchmark_pages,
    benchmark_questions,
    disk_mib,
    peak_rss_mib,
    summary_ms,
)
from core.embeddings import make_embedder  # noqa: E402
from core.index import EvidenceIndex  # noqa: E402
from core.pages import Page  # noqa: E402
from core.retrieve import Retriever  # noqa: E402
from core.settings import Settings  # noqa: E402


def replicas(pages: list[Page], total: int):
    """`total` pages: the corpus repeated with ids rewritten per replica."""
    count = 0
    for replica in range(math.ceil(total / len(pages))):
        for page in pages:
            if count == total:
                return
            new_id = f"{page.id}{replica:04d}"
            yield dataclasses.replace(
                page, id=new_id, url=page.url.replace(f"/pages/{page.id}", f"/pages/{new_id}")
            )
            count += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=20000)
    parser.add_argument("--folder", help="data folder to use (default: a temporary one)")
    args = parser.parse_args()
    folder = Path(args.folder or tempfile.mkdtemp(prefix="confbot-scale-"))
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(folder)})
    pages = benchmark_pages()
    texts = benchmark_questions()
    embedder = make_embedder(settings)
    index = EvidenceIndex(settings, embedder)

    start = time.perf_counter()
    done = evidences = 0
    chunk: list[Page] = []
    for page in replicas(pages, args.pages):
        chunk.append(page)
        if len(chunk) == 500:
            evidences += index.index_pages(chunk).evidences
            done += len(chunk)
            chunk = []
            print(
                f"  {done} pages, {evidences} evidences, {time.perf_counter() - start:.0f} s",
                flush=True,
            )
    evidences += index.index_pages(chunk).evidences
    done += len(chunk)
    write_s = time.perf_counter() - start
    start = time.perf_counter()
    index.warm_up()
    lexical_s = time.perf_counter() - start
    print(
        f"indexed {done} pages, {evidences} evidences: writes {write_s:.0f} s, "
        f"BM25 + vocabulary build {lexical_s:.0f} s, total {write_s + lexical_s:.0f} s"
    )
    print(f"disk {disk_mib(folder):.0f} MiB in {folder}")

    retriever = Retriever.from_settings(index, embedder, settings)
    for text in texts[:20]:
        retriever.search(text)
    latencies = []
    for text in texts:
        begin = time.perf_counter()
        retriever.search(text)
        latencies.append((time.perf_counter() - begin) * 1000)
    print(f"query latency over {len(texts)} questions: {summary_ms(latencies)}")
    print(f"peak resident memory {peak_rss_mib():.0f} MiB")
    if not args.folder:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
