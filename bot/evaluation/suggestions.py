"""`confbot eval --suggestions`: how often a suggested follow-up retrieves the page of the
user's actual next question (`core.evaluation.suggestions`), on the completed questions,
per language. Nothing is tuned: suggestions use the configured decline thresholds."""

from __future__ import annotations

import time

from bot.evaluation.tables import format_table
from core.assistant import make_llm
from core.evaluation.benchmark import benchmark_index, questions
from core.evaluation.suggestions import evaluate_suggestions, summarize_suggestions
from core.retrieve import Retriever
from core.settings import Settings

COLUMNS = (
    ("Hit", "hit"),
    ("Suggested", "suggested"),
    ("By model", "from_model"),
    ("Per turn", "per_turn"),
    ("Median ms", "suggest_ms"),
)


def run_suggestions_eval(settings: Settings, pages, conversations, langs) -> dict:
    """Suggest after every turn that has a next turn, print the table, return the figures
    and per-turn records for `--json`."""
    items = questions(conversations, "completed", langs)
    index, embedder, _ = benchmark_index(settings, pages)
    retriever = Retriever.from_settings(index, embedder, settings)
    llm = make_llm(settings, index)
    thresholds = {"en": settings.answer_min_support, "de": settings.answer_min_support_de}
    start = time.perf_counter()
    records = evaluate_suggestions(items, index, retriever, llm, thresholds)
    elapsed = time.perf_counter() - start
    rows = [
        (f"lang={lang}", summarize_suggestions([r for r in records if r["lang"] == lang]))
        for lang in langs
    ]
    overall = summarize_suggestions(records)
    title = f"Suggested follow-ups ({llm.name}): a suggestion retrieves the next question's page"
    print(format_table(title, [("all", overall), *rows], COLUMNS, 18))
    print(f"\n{len(records)} turns in {elapsed:.1f} s")
    return {"answerer": llm.name, "suggestions": overall, "by_lang": dict(rows), "records": records}
