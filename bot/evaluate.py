"""`confbot eval`: run the ConfQuestions benchmark and print its tables."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from connectors.files import FilesSource
from core.evaluation.ablations import RETRIEVERS, ablation_rows
from core.evaluation.benchmark import (
    METRICS,
    benchmark_index,
    duplicate_groups,
    load_conversations,
    questions,
    report,
    run_retrieval,
)
from core.retrieve import Retriever
from core.settings import Settings

LANGS = {"en": ("en",), "de": ("de",), "both": ("en", "de")}
HEADERS = ("P@1", "P@1 dup", "R@10", "MRR", "AnsR@10")


def format_table(title: str, rows: list[tuple[str, dict]]) -> str:
    """A fixed-width table: one row per label, one column per metric."""
    lines = [title, f"{'':<28}" + "".join(f"{h:>10}" for h in HEADERS) + f"{'n':>6}"]
    for label, figures in rows:
        cells = "".join(f"{figures[m]:>10.3f}" for m in METRICS)
        lines.append(f"{label:<28}{cells}{figures['n']:>6}")
    return "\n".join(lines)


def _retrieval_run(settings, pages, items, groups, retrievers=("lexical", "dense")):
    index, embedder, build_s = benchmark_index(settings, pages)
    retriever = Retriever.from_settings(index, embedder, settings)
    records = run_retrieval(retriever, items, groups, retrievers)
    return records, build_s


def _by_language(records: list[dict], langs) -> list[tuple[str, dict]]:
    rows = []
    for lang in langs:
        subset = [r for r in records if r["lang"] == lang]
        rows.append((lang, report(subset)))
    return rows


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Run the benchmark the arguments describe; print tables and optionally write JSON."""
    data = Path(args.data)
    pages = list(FilesSource(data / "documents").pages.values())
    conversations = load_conversations(Path(args.conversations or data / "conversations.json"))
    langs = LANGS[args.lang]
    groups = duplicate_groups(pages)
    output: dict = {"pages": len(pages), "questions": args.questions, "lang": args.lang}

    if args.ablation:
        tables = {}
        items = questions(conversations, args.questions, langs)
        for label, overrides in ablation_rows(args.ablation):
            retrievers = RETRIEVERS[label] if args.ablation == "retriever" else RETRIEVERS["hybrid"]
            records, _ = _retrieval_run(
                settings.replace(**overrides), pages, items, groups, retrievers
            )
            for lang, figures in _by_language(records, langs):
                tables.setdefault(lang, []).append((label, figures))
        for lang, rows in tables.items():
            print(
                format_table(
                    f"\nAblation: {args.ablation} ({args.questions} questions, {lang})", rows
                )
            )
        output["ablation"] = {
            lang: {label: {k: v for k, v in f.items() if k != "slices"} for label, f in rows}
            for lang, rows in tables.items()
        }
    elif getattr(args, "attribution", None):
        from bot.attribution_eval import run_attribution_eval

        output.update(
            run_attribution_eval(settings, pages, conversations, langs, groups, args.attribution)
        )
    elif args.questions == "conversational":
        from bot.conversational_eval import run_conversational_eval

        output.update(run_conversational_eval(settings, pages, conversations, langs, groups))
    else:
        items = questions(conversations, args.questions, langs)
        start = time.perf_counter()
        records, build_s = _retrieval_run(settings, pages, items, groups)
        elapsed = time.perf_counter() - start
        overall = report(records)
        print(format_table(f"ConfQuestions: {args.questions} questions", [("all", overall)]))
        for key in ("lang", "a_source", "q_type", "turn"):
            rows = [(f"{key}={v}", f) for v, f in overall["slices"][key].items()]
            print(format_table(f"\nby {key}", rows))
        latencies = [r["latency_ms"] for r in records]
        print(
            f"\nindex build {build_s:.1f} s (0 = reused); {len(records)} questions in "
            f"{elapsed:.1f} s; retrieval latency median "
            f"{statistics.median(latencies):.1f} ms"
        )
        output.update({k: v for k, v in overall.items()})
        output["records"] = records
    if args.json:
        Path(args.json).write_text(json.dumps(output, indent=1, ensure_ascii=False))
    return 0
