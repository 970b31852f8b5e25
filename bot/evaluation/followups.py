"""`confbot eval --questions conversational --answers`: the offline answerer's declines in
conversations (see core/evaluation/followups.py).

Prints, per language, the declines on the benchmark's answerable turns and the decline
recall on the out-of-scope turns, all turns and follow-ups apart: "before" (follow-ups
judged like questions, on their own terms' support), the configured rule (the settings'
follow-up thresholds and topic weight), and with `--folds K` the topic weight and follow-up
thresholds chosen by K-fold cross-validation over conversations, every figure held out.
"""

from __future__ import annotations

import time
from pathlib import Path

from bot.evaluation.conversational import evaluation_assistant
from bot.evaluation.tables import format_table
from core.db import upgrade
from core.evaluation.benchmark import benchmark_index
from core.evaluation.followups import (
    DeclineRule,
    benchmark_conversations,
    calibrate_followups,
    decide,
    load_followups,
    replay,
    summarize_declines,
)
from core.extractive import ExtractiveLLM
from core.settings import Settings, SettingsError

COLUMNS = (
    ("Declined", "declined"),
    ("Decl fu", "declined_followups"),
    ("DeclRec", "decline_recall"),
    ("Rec fu", "decline_recall_followups"),
    ("n fu", "n_followups"),
    ("n oos", "n_out_of_scope"),
    ("n oos fu", "n_out_of_scope_followups"),
)


def run_followups_eval(
    settings: Settings, pages, conversations, langs, folds: int, followups: Path
) -> dict:
    """Replay both sets of conversations, print the decline tables, return the figures and
    records for `--json`."""
    if not followups.is_file():
        raise SystemExit(f"confbot eval: no out-of-scope follow-up file at {followups}")
    index, embedder, _ = benchmark_index(settings, pages)
    upgrade(settings.sqlalchemy_url)
    assistant = evaluation_assistant(settings, index, embedder)
    if not isinstance(assistant.llm, ExtractiveLLM):
        raise SettingsError("declines in conversations are measured for the offline answerer")
    start = time.perf_counter()
    items = benchmark_conversations(conversations, langs) + load_followups(followups, langs)
    records = replay(assistant, items)
    elapsed = time.perf_counter() - start
    questions = {"en": settings.answer_min_support, "de": settings.answer_min_support_de}
    configured = DeclineRule(
        questions,
        {"en": settings.answer_min_support_followup, "de": settings.answer_min_support_followup_de},
        settings.answer_topic_weight,
    )
    variants = {
        "before": decide(records, DeclineRule(questions)),
        "configured": decide(records, configured),
    }
    output: dict = {"answerer": assistant.llm.name}
    if folds:
        calibration = calibrate_followups(records, questions, folds)
        variants["cross-validated"] = calibration.records
        output["cross_validation"] = {
            "chosen": calibration.chosen,
            "default_topic_weight": calibration.default_topic_weight,
            "default_thresholds": calibration.default_thresholds,
        }
    figures = {}
    rows = []
    for name, decided in variants.items():
        for lang in langs:
            summary = summarize_declines([r for r in decided if r["lang"] == lang])
            figures.setdefault(name, {})[lang] = summary
            rows.append((f"{name} {lang}", summary))
    title = (
        "Declines in conversations (offline answerer; answerable: ConfQuestions turns,"
        f" out of scope: {followups.name}; fu = follow-ups)"
    )
    print(format_table(title, rows, COLUMNS, 22))
    if "cross_validation" in output:
        cv = output["cross_validation"]
        for lang, chosen in cv["chosen"].items():
            shown = ", ".join(f"({w:g}, {t:g})" for w, t in chosen)
            print(f"follow-up (topic weight, threshold) ({lang}): folds chose {shown}")
        print(
            f"defaults: topic weight {cv['default_topic_weight']:g},"
            f" thresholds {cv['default_thresholds']}"
        )
    print(f"\n{len(records)} turns replayed in {elapsed:.1f} s")
    shown = variants.get("cross-validated", variants["configured"])
    return {**output, "declines": figures, "records": shown}
