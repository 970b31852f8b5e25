"""`confbot eval --answers`: answer quality beside the top-1-evidence baseline, and declining.

With the offline answerer and `--folds K`, the decline thresholds are chosen by K-fold
cross-validation over conversations and every figure printed is a held-out one; the
thresholds each fold chose are printed, with the most frequent one to ship as the default
(`answer_min_support`, `answer_min_support_de`). Without `--folds`, the configured
thresholds are used. With an LLM endpoint (`CONFBOT_LLM_BASE_URL`) the model decides when
to decline and nothing is tuned.
"""

from __future__ import annotations

import time
from pathlib import Path

from bot.evaluation.tables import format_table
from core.assistant import make_llm
from core.evaluation.answers import (
    apply_thresholds,
    calibrate,
    load_out_of_scope,
    run_answers,
    summarize_answers,
)
from core.evaluation.benchmark import benchmark_index, questions
from core.extractive import ExtractiveLLM
from core.retrieve import Retriever
from core.settings import Settings

COLUMNS = (
    ("F1", "f1"),
    ("F1 top1", "base_f1"),
    ("TokR", "recall"),
    ("TokR top1", "base_recall"),
    ("Contain", "contained"),
    ("Cont top1", "base_contained"),
    ("Reply F1", "reply_f1"),
    ("Words", "words"),
    ("Reply w", "reply_words"),
    ("Declined", "declined"),
    ("DeclRec", "decline_recall"),
    ("Byline", "byline"),
)
SLICES = ("a_source", "q_type", "asked")


def run_answers_eval(
    settings: Settings, pages, conversations, langs, folds: int, out_of_scope: Path
) -> dict:
    """Answer every completed question and every out-of-scope question, print the tables,
    return the figures and per-question records for `--json`."""
    if not out_of_scope.is_file():
        raise SystemExit(f"confbot eval: no out-of-scope question file at {out_of_scope}")
    items = questions(conversations, "completed", langs)
    items += [q for q in load_out_of_scope(out_of_scope) if q.lang in langs]
    index, embedder, _ = benchmark_index(settings, pages)
    retriever = Retriever.from_settings(index, embedder, settings)
    llm = make_llm(settings, index)
    start = time.perf_counter()
    records = run_answers(retriever, llm, items)
    elapsed = time.perf_counter() - start
    output: dict = {"answerer": llm.name}
    if isinstance(llm, ExtractiveLLM):
        if folds:
            calibration = calibrate(records, folds)
            records = calibration.records
            output["thresholds"] = {"chosen": calibration.chosen, "default": calibration.default}
            note = f"{folds}-fold cross-validated decline thresholds (held-out figures)"
        else:
            records = apply_thresholds(records, llm.min_support)
            output["thresholds"] = {"configured": llm.min_support}
            note = f"configured decline thresholds {llm.min_support} (not cross-validated)"
    else:
        note = "the model decides when to decline"
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
    if "chosen" in output.get("thresholds", {}):
        for lang, chosen in output["thresholds"]["chosen"].items():
            default = output["thresholds"]["default"][lang]
            print(f"\ndecline threshold ({lang}): folds chose {chosen}; default {default}")
    print(f"\n{len(records)} questions answered in {elapsed:.1f} s")
    return {**output, "answers": overall, "by_lang": dict(rows), "records": records}
