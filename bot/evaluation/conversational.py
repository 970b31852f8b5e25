"""`confbot eval --questions conversational`: replay every benchmark conversation through a
real Assistant (raw questions, our own completion, our own answers as history)."""

from __future__ import annotations

import statistics
import time

from bot.evaluation.tables import format_table
from core.assistant import Assistant, make_llm
from core.conversation import ConversationStore
from core.db import upgrade
from core.evaluation.benchmark import METRICS, benchmark_index, report
from core.evaluation.conversational import run_conversational, summarize_conversational
from core.rephrase import make_completer
from core.retrieve import Retriever
from core.settings import Settings


def conversational_runner(settings: Settings, pages, langs, groups):
    """A function (overrides, conversations) → replay records, for `--folds`: one index,
    one Assistant per call with those retrieval settings."""
    index, embedder, _ = benchmark_index(settings, pages)
    upgrade(settings.sqlalchemy_url)

    def run(overrides: dict, conversations) -> list[dict]:
        assistant = evaluation_assistant(settings.replace(**overrides), index, embedder)
        return run_conversational(assistant, conversations, langs, groups)

    return run


def evaluation_assistant(settings: Settings, index, embedder) -> Assistant:
    """An Assistant over an evaluation index, with the settings' LLM (or the offline
    answerer) and completer, and its turns in the settings' state database."""
    llm = make_llm(settings, index)
    return Assistant(
        settings,
        index,
        Retriever.from_settings(index, embedder, settings),
        llm,
        make_completer(settings, llm),
        ConversationStore(settings.sqlalchemy_url),
    )


def run_conversational_eval(settings: Settings, pages, conversations, langs, groups) -> dict:
    """Run the replay, print retrieval and answer figures per language, return them."""
    index, embedder, _ = benchmark_index(settings, pages)
    upgrade(settings.sqlalchemy_url)
    assistant = evaluation_assistant(settings, index, embedder)
    start = time.perf_counter()
    records = run_conversational(assistant, conversations, langs, groups)
    elapsed = time.perf_counter() - start
    rows = [(lang, report([r for r in records if r["lang"] == lang])) for lang in langs]
    print(format_table("ConfQuestions: conversational (raw questions, our completion)", rows))
    answers = summarize_conversational(records)
    print(f"\n{'':<28}{'AnsTokR':>10}{'OutScope':>10}{'n':>6}")
    for lang, figures in answers.items():
        print(
            f"{lang:<28}{figures['answer_token_recall']:>10.3f}"
            f"{figures['out_of_scope_rate']:>10.3f}{figures['n']:>6}"
        )
    turns = [r["timings"].get("total_ms", 0.0) for r in records if r.get("timings")]
    if turns:
        median = statistics.median(turns)
        print(f"\n{len(records)} turns in {elapsed:.1f} s; median turn {median:.1f} ms")
    return {**report(records), "answers": answers, "metrics": list(METRICS), "records": records}
