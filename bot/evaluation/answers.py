"""`confbot eval --answers`: answer quality beside the top-1-evidence baseline, and declining.

With the offline answerer and `--folds K`, the span weights (`core.spans.SpanWeights`) and
the decline thresholds are chosen by K-fold cross-validation over conversations and every
figure printed is a held-out one; each fold's choices are printed, with the most frequent
ones to ship as the defaults (`SpanWeights`' defaults, `answer_min_support`,
`answer_min_support_de`). Without `--folds`, the configured thresholds are used. With an
LLM endpoint (`CONFBOT_LLM_BASE_URL`) the model decides when to decline and nothing is
tuned.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

from bot.evaluation.tables import format_table
from core.assistant import make_llm
from core.evaluation.answers import (
    WEIGHT_GRID,
    answer_all,
    apply_thresholds,
    calibrate,
    load_out_of_scope,
    retrieve_all,
    summarize_answers,
)
from core.evaluation.benchmark import Question, benchmark_index, questions
from core.extractive import ExtractiveLLM
from core.llm import LLM
from core.retrieve import Retriever
from core.settings import Settings

COLUMNS = (
    ("F1", "f1"),
    ("F1≥0.5", "f1_half"),
    ("F1 top1", "base_f1"),
    ("TokR", "recall"),
    ("TokR top1", "base_recall"),
    ("Contain", "contained"),
    ("Cont top1", "base_contained"),
    ("Cont any", "any_contained"),
    ("Reply F1", "reply_f1"),
    ("New F1", "new_f1"),
    ("Words", "words"),
    ("Reply w", "reply_words"),
    ("Declined", "declined"),
    ("DeclRec", "decline_recall"),
    ("Byline", "byline"),
)
SLICES = ("a_source", "q_type", "asked")


def answer_setup(
    settings: Settings, pages, conversations, langs, out_of_scope: Path
) -> tuple[list[Question], Retriever, LLM]:
    """The questions of an answer evaluation (the completed ones and the out-of-scope ones
    of `out_of_scope`, in `langs`), the retriever over the benchmark's index, and the
    configured answerer."""
    if not out_of_scope.is_file():
        raise SystemExit(f"confbot eval: no out-of-scope question file at {out_of_scope}")
    items = questions(conversations, "completed", langs)
    items += [q for q in load_out_of_scope(out_of_scope) if q.lang in langs]
    index, embedder, _ = benchmark_index(settings, pages)
    retriever = Retriever.from_settings(index, embedder, settings)
    return items, retriever, make_llm(settings, index)


def run_answers_eval(
    settings: Settings, pages, conversations, langs, folds: int, out_of_scope: Path
) -> dict:
    """Answer every completed question and every out-of-scope question, print the tables,
    return the figures and per-question records for `--json`."""
    items, retriever, llm = answer_setup(settings, pages, conversations, langs, out_of_scope)
    start = time.perf_counter()
    retrieved = retrieve_all(retriever, items)
    output: dict = {"answerer": llm.name}
    if isinstance(llm, ExtractiveLLM) and folds:
        outcomes = {
            weights: answer_all(llm.unthresholded(weights), items, retrieved)
            for weights in WEIGHT_GRID
        }
        calibration = calibrate(outcomes, folds)
        records = calibration.records
        output["cross_validation"] = {
            "weights": [asdict(w) for w in calibration.weights],
            "thresholds": calibration.thresholds,
            "default_weights": asdict(calibration.default_weights),
            "default_thresholds": calibration.default_thresholds,
        }
        note = f"span weights and decline thresholds chosen by {folds}-fold cross-validation"
    elif isinstance(llm, ExtractiveLLM):
        records = apply_thresholds(answer_all(llm, items, retrieved), llm.min_support)
        output["thresholds"] = llm.min_support
        note = f"configured decline thresholds {llm.min_support} (not cross-validated)"
    else:
        records = answer_all(llm, items, retrieved)
        note = "the model decides when to decline"
    elapsed = time.perf_counter() - start
    rows = [
        (f"lang={lang}", summarize_answers([r for r in records if r["lang"] == lang]))
        for lang in langs
    ]
    overall = summarize_answers(records)
    print(format_table(f"Answers ({llm.name}; {note})", [("all", overall), *rows], COLUMNS, 18))
    for key in SLICES:
        for lang in langs:
            subset = [r for r in records if r["lang"] == lang and r["answerable"]]
            values = sorted({str(r[key]) for r in subset})
            slice_rows = [
                (f"{key}={value}", summarize_answers([r for r in subset if str(r[key]) == value]))
                for value in values
            ]
            print(format_table(f"\nby {key} ({lang})", slice_rows, COLUMNS, 18))
    if "cross_validation" in output:
        cv = output["cross_validation"]
        print("\nspan weights per fold:")
        for weights in cv["weights"]:
            print(f"  {weights}")
        print(f"default weights: {cv['default_weights']}")
        for lang, chosen in cv["thresholds"].items():
            default = cv["default_thresholds"][lang]
            print(f"decline threshold ({lang}): folds chose {chosen}; default {default}")
    print(f"\n{len(records)} questions answered in {elapsed:.1f} s")
    return {**output, "answers": overall, "by_lang": dict(rows), "records": records}
