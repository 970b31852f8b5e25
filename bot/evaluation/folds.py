"""`confbot eval --folds K`: cross-validated figures, so no tuned figure is scored on the
questions it was tuned on.

The candidates are the tuning grid (core.evaluation.tuning) or, with `--ablation NAME`, the
rows of that ablation. Every candidate is run on every question once; then, for each fold
of conversations, the candidate with the best P@1 on the other folds is scored on that
fold (core.evaluation.folds). Printed: each candidate's in-sample figures, the default's,
the cross-validated ones and the choice of every fold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.evaluation.tables import format_table
from core.evaluation.benchmark import report
from core.evaluation.folds import assign_folds, cross_validate
from core.evaluation.tuning import objective


def run_folds_eval(
    k: int,
    candidates: Sequence[tuple[str, dict]],
    run_candidate: Callable[[str, dict], list[dict]],
    langs: Sequence[str],
    title: str,
    seed: int = 0,
    first: str = "default",
    metric: str = "p_at_1",
) -> dict:
    """Run every candidate (`run_candidate(label, overrides)` gives per-question records),
    cross-validate the choice among them over `k` folds of conversations by `metric`, print
    the tables and return the figures (`cross_validated`, `default`, `chosen`,
    `candidates`). `first` names the first candidate in the summary (the default settings,
    or an ablation's first row)."""
    outcomes = {label: run_candidate(label, overrides) for label, overrides in candidates}
    default = candidates[0][0]
    folds = assign_folds([r["conv_id"] for r in outcomes[default]], k, seed)
    result = cross_validate(outcomes, lambda records: objective(records, metric), folds)

    figures = {label: _by_language(records, langs) for label, records in outcomes.items()}
    validated = _by_language(result.records, langs)
    rows = [(f"{label} ({lang})", f) for label, by in figures.items() for lang, f in by.items()]
    print(format_table(f"{title}: every candidate, in-sample", rows, label_width=48))
    summary = [(f"{first}, in-sample ({lang})", f) for lang, f in figures[default].items()]
    summary += [(f"cross-validated ({lang})", f) for lang, f in validated.items()]
    print(
        format_table(
            f"\n{title}: {k} folds by conversation ({len(folds)} conversations; each fold"
            f" scored with the candidate chosen on the other {k - 1})",
            summary,
            label_width=48,
        )
    )
    for fold, label in enumerate(result.chosen):
        size = sum(f == fold for f in folds.values())
        print(f"fold {fold} ({size} conversations): {label}")
    return {
        "folds": k,
        "default": default,
        "chosen": list(result.chosen),
        "cross_validated": validated,
        "candidates": figures,
        "records": result.records,
    }


def run_conversational_folds(
    k: int,
    candidates: Sequence[tuple[str, dict]],
    tune: Callable[[str, dict], list[dict]],
    replay: Callable[[dict, Sequence[dict]], list[dict]],
    conversations: Sequence[dict],
    langs: Sequence[str],
    seed: int = 0,
) -> dict:
    """Cross-validated conversational figures: for each fold, the candidate with the best
    P@1 on the completed questions of the other folds (`tune`) replays that fold's
    conversations (`replay(overrides, conversations)`), so each conversation is replayed
    once, with settings chosen without it."""
    outcomes = {label: tune(label, overrides) for label, overrides in candidates}
    overrides_of = dict(candidates)
    folds = assign_folds([str(c["conv_id"]) for c in conversations], k, seed)
    chosen = cross_validate(outcomes, objective, folds).chosen
    records = []
    for fold, label in enumerate(chosen):
        held_out = [c for c in conversations if folds[str(c["conv_id"])] == fold]
        replayed = replay(overrides_of[label], held_out)
        records += [{**r, "fold": fold, "param": label} for r in replayed]
    validated = _by_language(records, langs)
    rows = [(f"cross-validated ({lang})", f) for lang, f in validated.items()]
    print(
        format_table(
            f"ConfQuestions conversational: {k} folds by conversation (settings chosen on the"
            f" completed questions of the other {k - 1} folds)",
            rows,
            label_width=48,
        )
    )
    for fold, label in enumerate(chosen):
        size = sum(f == fold for f in folds.values())
        print(f"fold {fold} ({size} conversations): {label}")
    return {"folds": k, "chosen": list(chosen), "cross_validated": validated, "records": records}


def _by_language(records: Sequence[dict], langs: Sequence[str]) -> dict[str, dict]:
    """Language → overall figures (without slices) of the records in that language."""
    out = {}
    for lang in langs:
        figures = report([r for r in records if r["lang"] == lang])
        out[lang] = {key: value for key, value in figures.items() if key != "slices"}
    return out
