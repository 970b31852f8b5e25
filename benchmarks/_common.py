"""Helpers shared by the benchmark scripts: the benchmark folder, pages, questions, timing."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import threading
import time
from pathlib import Path

from connectors.files import FilesSource
from core.evaluation.benchmark import load_conversations, questions
from core.pages import Page

DATA = Path(
    os.environ.get(
        "CONFBOT_BENCHMARK_DIR", Path(__file__).resolve().parents[2] / "shared" / "confquestions"
    )
)


def benchmark_pages() -> list[Page]:
    """The ConfQuestions pages (exits with a message when the folder is absent)."""
    if not (DATA / "documents").is_dir():
        raise SystemExit(f"ConfQuestions not found at {DATA}; set CONFBOT_BENCHMARK_DIR")
    return list(FilesSource(DATA / "documents").pages.values())


def benchmark_questions(mode: str = "completed") -> list[str]:
    """Every question text of the benchmark in both languages."""
    return [
        q.text
        for q in questions(load_conversations(DATA / "conversations.json"), mode, ("en", "de"))
    ]


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary_ms(values: list[float]) -> str:
    """'median X ms, p95 Y ms' of millisecond values."""
    return f"median {statistics.median(values):.1f} ms, p95 {percentile(values, 95):.1f} ms"


def peak_rss_mib() -> float:
    """Peak resident memory of this process, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def disk_mib(path: Path) -> float:
    """Disk use of a folder, in MiB."""
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1024


class TimedEmbedder:
    """Wraps an embedder (the one behind the embedding cache, so that only new text counts)
    and adds up the texts it embeds and the seconds it takes, from any thread."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.texts = 0
        self.seconds = 0.0
        self._lock = threading.Lock()

    def embed(self, texts):
        begin = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            with self._lock:
                self.texts += len(texts)
                self.seconds += time.perf_counter() - begin

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)
