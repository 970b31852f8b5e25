"""`confbot eval --attribution METHOD`: attribution accuracy and citation quality beside the
"evidence #1" and "uniform" baselines, and the sensitivity and bias test (CAS, CAB)."""

from __future__ import annotations

import statistics
import time

from bot.evaluation.tables import format_table
from core.assistant import make_llm
from core.attribution import METHODS
from core.evaluation.attribution import BASELINES, report, run_attribution
from core.evaluation.benchmark import SLICE_KEYS, benchmark_index, questions
from core.evaluation.sensitivity import run_sensitivity, summarize_sensitivity
from core.retrieve import Retriever
from core.settings import Settings

COMMON = (("CitP", "citation_precision"), ("CitR", "citation_recall"), ("Gold@10", "gold_in_top10"))


SHORT = {
    "counterfactual": "CF",
    "naive": "Naive",
    "citation": "Cite",
    "first": "#1",
    "uniform": "Unif",
}
SENSITIVITY = (
    ("CAS", "cas"),
    ("CAS@1", "cas_at_1"),
    ("CAB pos", "cab_position"),
    ("CAB len", "cab_length"),
    ("tried", "tried"),
)


def _columns(methods) -> list[tuple[str, str]]:
    cols = []
    for method in [*methods, *BASELINES]:
        short = SHORT[method]
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
    trials = run_sensitivity(retriever, llm, embedder, settings, items, methods)
    sensitivity = {}
    for lang in ("all", *langs):
        subset = [t for t in trials if lang == "all" or t["lang"] == lang]
        figures = summarize_sensitivity(subset, methods)
        sensitivity[lang] = figures
        rows = [(method, figures[method]) for method in figures]
        title = (
            f"\nSensitivity ({lang}): the answer's source moved to a random position and its"
            " answer words counterfeited; share of attribution on that evidence"
        )
        print(format_table(title, rows, SENSITIVITY, label_width=22))
    return {
        "attribution": list(methods),
        "llm": llm.name,
        **{k: v for k, v in overall.items()},
        "sensitivity": sensitivity,
        "records": records,
        "sensitivity_records": trials,
    }
