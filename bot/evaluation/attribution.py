"""`confbot eval --attribution METHOD`: attribution accuracy and citation quality tables."""

from __future__ import annotations

import statistics
import time

from bot.evaluation.tables import format_table
from core.assistant import make_llm
from core.attribution import METHODS
from core.evaluation.attribution import report, run_attribution
from core.evaluation.benchmark import SLICE_KEYS, benchmark_index, questions
from core.retrieve import Retriever
from core.settings import Settings

COMMON = (("CitP", "citation_precision"), ("CitR", "citation_recall"), ("Gold@10", "gold_in_top10"))


def _columns(methods) -> list[tuple[str, str]]:
    cols = []
    for method in methods:
        short = {"counterfactual": "CF", "naive": "Naive", "citation": "Cite"}[method]
        cols += [(f"{short} acc", f"{method}_accuracy"), (f"{short} dup", f"{method}_accuracy_dup")]
    return cols + list(COMMON)


def table(title: str, rows: list[tuple[str, dict]], methods) -> str:
    """A fixed-width table: one row per label; attribution accuracy (strict and
    duplicate-aware) per method, citation precision and recall, gold page in the top 10, and
    the number of questions attributed (gold page in the top 10)."""
    columns = [*_columns(methods), ("n attr", f"{methods[0]}_n")]
    return format_table(title, rows, columns, label_width=22)


def run_attribution_eval(
    settings: Settings, pages, conversations, langs, groups, method: str
) -> dict:
    """Answer and attribute every completed question; print the tables; return the figures
    and per-question records for `--json`."""
    methods = METHODS if method == "all" else (method,)
    items = questions(conversations, "completed", langs)
    index, embedder, _ = benchmark_index(settings, pages)
    retriever = Retriever.from_settings(index, embedder, settings)
    llm = make_llm(settings, index)
    start = time.perf_counter()
    records = run_attribution(retriever, llm, embedder, settings, items, groups, methods)
    elapsed = time.perf_counter() - start
    overall = report(records, methods)
    rows = [("all", overall)]
    for lang in langs:
        subset = [r for r in records if r["lang"] == lang]
        rows.append((f"lang={lang}", report(subset, methods)))
    print(table(f"Attribution ({', '.join(methods)}; answerer {llm.name})", rows, methods))
    for key in SLICE_KEYS:
        if key == "lang":
            continue
        slice_rows = []
        for value in overall["slices"][key]:
            subset = [r for r in records if str(r[key]) == value]
            slice_rows.append((f"{key}={value}", report(subset, methods)))
        print(table(f"\nby {key}", slice_rows, methods))
    for m in methods:
        times = [r[f"{m}_ms"] for r in records]
        print(f"{m}: median {statistics.median(times):.1f} ms per explanation")
    print(f"{len(records)} questions in {elapsed:.1f} s")
    return {
        "attribution": list(methods),
        "llm": llm.name,
        **{k: v for k, v in overall.items()},
        "records": records,
    }
