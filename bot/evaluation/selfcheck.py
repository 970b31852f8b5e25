"""`confbot eval --answers --self-check`: answer F1 and citation precision with the evidence
self-check off and on (`core.evaluation.selfcheck`).

With `--folds K` the self-check ratio is chosen by K-fold cross-validation over
conversations and the "on" row is held-out; each fold's choice is printed. Without it, the
configured `self_check_min_ratio` is used.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from bot.evaluation.answers import answer_setup
from bot.evaluation.tables import format_table
from core.evaluation.answers import retrieve_all, summarize_answers
from core.evaluation.selfcheck import (
    GRID,
    answer_f1,
    answer_with_self_check,
    choose,
    citation_precision,
)
from core.settings import Settings

COLUMNS = (
    ("CitP", "citation_precision"),
    ("F1", "f1"),
    ("Contain", "contained"),
    ("Declined", "declined"),
    ("DeclRec", "decline_recall"),
    ("Kept", "kept"),
)


def figures(records: list[dict]) -> dict:
    """The row of one set of records: citation precision, answer figures, mean kept."""
    return {
        **summarize_answers(records),
        "citation_precision": round(citation_precision(records), 4),
        "f1": round(answer_f1(records), 4),
        "kept": round(sum(r["kept"] for r in records) / max(len(records), 1), 2),
    }


def run_self_check_eval(
    settings: Settings, pages, conversations, langs, folds: int, out_of_scope: Path
) -> dict:
    """Answer every completed and out-of-scope question with the self-check off and on,
    print the table, return the figures and the per-question records for `--json`."""
    items, retriever, llm = answer_setup(settings, pages, conversations, langs, out_of_scope)
    start = time.perf_counter()
    retrieved = retrieve_all(retriever, items)
    off = answer_with_self_check(llm, items, retrieved, None)
    output: dict = {"answerer": llm.name}
    if folds:
        outcomes = {c: answer_with_self_check(llm, items, retrieved, c) for c in GRID}
        choice = choose(outcomes, folds)
        on = choice.records
        output["chosen"] = choice.chosen
        output["default"] = Counter(choice.chosen).most_common(1)[0][0]
        note = f"min_ratio chosen by {folds}-fold cross-validation, held-out figures"
    else:
        configured = settings.self_check_min_ratio
        on = answer_with_self_check(llm, items, retrieved, configured)
        output["min_ratio"] = configured
        note = f"configured min_ratio = {configured}"
    elapsed = time.perf_counter() - start
    rows = [("self-check off", figures(off)), ("self-check on", figures(on))]
    for lang in langs:
        rows.append((f"off, lang={lang}", figures([r for r in off if r["lang"] == lang])))
        rows.append((f"on, lang={lang}", figures([r for r in on if r["lang"] == lang])))
    print(format_table(f"Evidence self-check ({llm.name}; {note})", rows, COLUMNS, 20))
    if folds:
        print(f"\nmin_ratio per fold: {output['chosen']}")
        print(f"most frequent: {output['default']}")
    print(f"\n{len(items)} questions in {elapsed:.1f} s")
    return {**output, "self_check": dict(rows), "records_off": off, "records_on": on}
