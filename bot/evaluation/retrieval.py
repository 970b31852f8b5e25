"""`confbot eval --questions completed|raw` and `--ablation NAME`: retrieval tables."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

from bot.evaluation.tables import format_table
from core.evaluation.ablations import RETRIEVERS, ablation_rows
from core.evaluation.benchmark import benchmark_index, report, run_retrieval
from core.retrieve import Retriever
from core.settings import Settings


def retrieval_records(settings: Settings, pages, items, groups, retrievers=RETRIEVERS["hybrid"]):
    """Index the pages (or reuse the cached index) and score every question:
    (per-question records, seconds spent building the index)."""
    index, embedder, build_s = benchmark_index(settings, pages)
    retriever = Retriever.from_settings(index, embedder, settings)
    return run_retrieval(retriever, items, groups, retrievers), build_s


def tuning_runner(settings: Settings, pages, items, groups):
    """A function (label, overrides) → per-question records, for `--folds`: the grid's
    candidates change fusion and ranking only, so every question is searched once and each
    candidate ranks the same retriever results."""
    index, embedder, _ = benchmark_index(settings, pages)
    found = Retriever.from_settings(index, embedder, settings)
    candidates = {q.text: found.candidates(q.text) for q in items}

    def run(label: str, overrides: dict) -> list[dict]:
        retriever = Retriever.from_settings(index, embedder, settings.replace(**overrides))
        return run_retrieval(retriever, items, groups, found=candidates)

    return run


def ablation_runner(settings: Settings, pages, items, groups, name: str):
    """A function (label, overrides) → per-question records of one ablation row (each row
    builds or reuses its own index), for `--ablation NAME --folds K`."""

    def run(label: str, overrides: dict) -> list[dict]:
        retrievers = RETRIEVERS[label] if name == "retriever" else RETRIEVERS["hybrid"]
        records, _ = retrieval_records(
            settings.replace(**overrides), pages, items, groups, retrievers
        )
        return records

    return run


def by_language(records: Sequence[dict], langs: Sequence[str]) -> list[tuple[str, dict]]:
    """One (language, report) row per language."""
    return [(lang, report([r for r in records if r["lang"] == lang])) for lang in langs]


def run_retrieval_eval(settings: Settings, pages, items, groups, mode: str) -> dict:
    """Score every question; print the overall table and one table per slice."""
    start = time.perf_counter()
    records, build_s = retrieval_records(settings, pages, items, groups)
    elapsed = time.perf_counter() - start
    overall = report(records)
    print(format_table(f"ConfQuestions: {mode} questions", [("all", overall)]))
    for key in ("lang", "a_source", "q_type", "turn"):
        rows = [(f"{key}={v}", f) for v, f in overall["slices"][key].items()]
        print(format_table(f"\nby {key}", rows))
    latencies = [r["latency_ms"] for r in records]
    print(
        f"\nindex build {build_s:.1f} s (0 = reused); {len(records)} questions in "
        f"{elapsed:.1f} s; retrieval latency median {statistics.median(latencies):.1f} ms"
    )
    return {**overall, "records": records}


def run_ablation_eval(settings: Settings, pages, items, groups, name: str, langs, mode: str):
    """One row per ablation setting (each rebuilds the index), one table per language."""
    tables: dict[str, list[tuple[str, dict]]] = {}
    run = ablation_runner(settings, pages, items, groups, name)
    for label, overrides in ablation_rows(name):
        records = run(label, overrides)
        for lang, figures in by_language(records, langs):
            tables.setdefault(lang, []).append((label, figures))
    for lang, rows in tables.items():
        print(format_table(f"\nAblation: {name} ({mode} questions, {lang})", rows))
    return {
        "ablation": {
            lang: {label: {k: v for k, v in f.items() if k != "slices"} for label, f in rows}
            for lang, rows in tables.items()
        }
    }
