"""Latency of the offline answerer: the answer step alone, on real prompts.

Retrieves the top 10 evidences of every completed ConfQuestions question (English and
German) once, builds the answer prompt, and times `ExtractiveLLM.complete` on it: a first
pass with empty caches (every evidence text is cut into units for the first time) and a
second pass over the same prompts (units cached, as for a repeated question or the
counterfactual prompts of Explain). The answerer is built as `confbot serve` builds it
(settings thresholds, German questions matched through the index's word translations),
so the translation of German words is timed too; a question comparing counts of rows is
given the rest of their tables as the assistant gives it (`core.whole_tables`), timed too.
Then the confidence the assistant stores with each answer (`core.confidence`: the
answerer's spans again, units cached). Prints the machine load beside the figures, since
other processes skew them.

    CONFBOT_DATA_DIR=/tmp/bench .venv/bin/python benchmarks/answer_latency.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import DATA, benchmark_pages, summary_ms  # noqa: E402
from core.answer import build_messages  # noqa: E402
from core.assistant import make_llm  # noqa: E402
from core.compose import compares_counts  # noqa: E402
from core.confidence import answer_confidence  # noqa: E402
from core.evaluation.benchmark import benchmark_index, load_conversations, questions  # noqa: E402
from core.retrieve import Retriever  # noqa: E402
from core.settings import Settings  # noqa: E402
from core.whole_tables import table_parts  # noqa: E402


def main() -> None:
    settings = Settings.load().replace(llm_base_url="")
    index, embedder, _ = benchmark_index(settings, benchmark_pages())
    retriever = Retriever.from_settings(index, embedder, settings)
    llm = make_llm(settings, index)
    items = questions(load_conversations(DATA / "conversations.json"), "completed", ("en", "de"))
    prompts = []
    read_whole: list[float] = []  # the rest of a table, for questions comparing counts
    for item in items:
        evidences = [r.evidence for r in retriever.search(item.text, k=10).results]
        start = time.perf_counter()
        parts = table_parts(item.text, evidences, index)
        if compares_counts(item.text):
            read_whole.append((time.perf_counter() - start) * 1000)
        prompts.append((item.lang, build_messages(item.text, [*evidences, *parts])))
    llm.complete(build_messages("warm up the translator", []))
    for label in ("first pass (cold caches)", "second pass (units cached)"):
        times: dict[str, list[float]] = {"en": [], "de": []}
        for lang, messages in prompts:
            start = time.perf_counter()
            llm.complete(messages)
            times[lang].append((time.perf_counter() - start) * 1000)
        every = times["en"] + times["de"]
        print(f"{label}: all {summary_ms(every)}", end="")
        print(f"; en {summary_ms(times['en'])}; de {summary_ms(times['de'])}")
    confidence = []
    for _, messages in prompts:
        start = time.perf_counter()
        answer_confidence(llm, messages)
        confidence.append((time.perf_counter() - start) * 1000)
    print(f"confidence stored with each answer (core.confidence): {summary_ms(confidence)}")
    if read_whole:
        said = summary_ms(read_whole)
        print(f"tables read whole for {len(read_whole)} count comparisons: {said}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{len(prompts)} prompts of 10 evidences; load average {load} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
