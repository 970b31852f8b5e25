"""Per-turn overhead of the Assistant with the embedded default (no LLM endpoint).

Replays every ConfQuestions conversation, in English and German, through a real `Assistant`
(offline completer, hybrid retrieval, extractive answerer, SQLite state) and prints the
median and p95 of the per-turn overhead: everything but the answer step (the LLM call), that
is loading the history, completing the question (with its topic-change retrieval), retrieving
and storing the turn. Also prints each step, the extractive answer step, page-level P@1 per
language (strict and duplicate-aware), and peak memory.

The benchmark index is built once under the data folder (`CONFBOT_DATA_DIR`) and reused; the
conversation state goes to a temporary SQLite file.

    .venv/bin/python benchmarks/assistant_overhead.py [--lang en|de|both] [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import DATA, benchmark_pages, peak_rss_mib, summary_ms  # noqa: E402
from core.assistant import Assistant, ConversationKey  # noqa: E402
from core.conversation import ConversationStore  # noqa: E402
from core.db import upgrade  # noqa: E402
from core.evaluation.benchmark import (  # noqa: E402
    benchmark_index,
    duplicate_groups,
    load_conversations,
)
from core.evaluation.conversational import (  # noqa: E402
    run_conversational,
    summarize_conversational,
)
from core.extractive import ExtractiveLLM  # noqa: E402
from core.rephrase import OfflineCompleter  # noqa: E402
from core.retrieve import Retriever  # noqa: E402
from core.settings import Settings  # noqa: E402

STEPS = ("history_ms", "complete_ms", "retrieve_ms", "store_ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", choices=("en", "de", "both"), default="both")
    parser.add_argument("--limit", type=int, help="replay only the first N conversations")
    args = parser.parse_args()
    langs = ("en", "de") if args.lang == "both" else (args.lang,)

    settings = Settings.load().replace(llm_base_url="", explain_in_background=False)
    pages = benchmark_pages()
    conversations = load_conversations(DATA / "conversations.json")[: args.limit]
    start = time.perf_counter()
    index, embedder, build_s = benchmark_index(settings, pages)
    print(
        f"index: {index.count()} evidences, ready in {time.perf_counter() - start:.1f} s "
        f"({'built' if build_s else 'reused'})"
    )
    retriever = Retriever.from_settings(index, embedder, settings)

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'state.sqlite'}"
        upgrade(url)
        assistant = Assistant(
            settings, index, retriever, ExtractiveLLM(), OfflineCompleter(), ConversationStore(url)
        )
        warm = ConversationKey("bench", "warm-up", "", "")
        for turn in conversations[0]["turns"][:3]:
            assistant.ask(warm, turn["q_en"])

        start = time.perf_counter()
        records = run_conversational(assistant, conversations, langs, duplicate_groups(pages))
        elapsed = time.perf_counter() - start

    timings = [r["timings"] for r in records]
    overhead = [t["total_ms"] - t["answer_ms"] for t in timings]
    print(f"{len(records)} turns in {elapsed:.1f} s")
    print(f"assistant overhead per turn (all but the answer step): {summary_ms(overhead)}")
    for step in STEPS:
        print(f"  {step[:-3]:<10} {summary_ms([t[step] for t in timings])}")
    print(f"  {'(answer)':<10} {summary_ms([t['answer_ms'] for t in timings])} (extractive)")
    print(f"  {'(total)':<10} {summary_ms([t['total_ms'] for t in timings])}")
    summary = summarize_conversational(records)
    for lang, figures in summary.items():
        print(
            f"{lang}: P@1 {figures['p_at_1']:.3f} (duplicate-aware {figures['p_at_1_dup']:.3f}),"
            f" answer token recall {figures['answer_token_recall']:.3f},"
            f" out of scope {figures['out_of_scope_rate']:.3f}, n={figures['n']}"
        )
    print(f"median overhead {statistics.median(overhead):.1f} ms (target <= 50 ms)")
    print(f"peak resident memory {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
