"""What the offline completer costs per follow-up, apart from the search it asks for.

Replays ConfQuestions conversations (raw questions, English and German) through a real
`Assistant` (offline completer, hybrid retrieval, extractive answerer) as
`benchmarks/assistant_overhead.py` does, with the completer's `search` timed: the
completer's own cost is its time less the time inside `search` (one retrieval of the
follow-up alone, k=5, for the topic check and the table rows kinds are learned from).
Prints the median and p95 of its own cost, of the search, and of the whole step.

    .venv/bin/python benchmarks/completion_cost.py [--lang en|de|both] [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import DATA, benchmark_pages, summary_ms  # noqa: E402
from core.assistant import Assistant  # noqa: E402
from core.conversation import ConversationStore  # noqa: E402
from core.db import upgrade  # noqa: E402
from core.evaluation.benchmark import benchmark_index, load_conversations  # noqa: E402
from core.evaluation.conversational import run_conversational  # noqa: E402
from core.extractive import ExtractiveLLM  # noqa: E402
from core.rephrase import OfflineCompleter  # noqa: E402
from core.retrieve import Retriever  # noqa: E402
from core.settings import Settings  # noqa: E402


class TimedCompleter(OfflineCompleter):
    """The offline completer, recording per call its whole time and the time in `search`."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[float, float]] = []

    def complete(self, question, history, search=None):
        spent = [0.0]

        def timed(query):
            start = time.perf_counter()
            try:
                return search(query)
            finally:
                spent[0] += time.perf_counter() - start

        start = time.perf_counter()
        completion = super().complete(question, history, timed if search else None)
        self.calls.append(((time.perf_counter() - start) * 1000, spent[0] * 1000))
        return completion


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", choices=("en", "de", "both"), default="both")
    parser.add_argument("--limit", type=int, help="replay only the first N conversations")
    args = parser.parse_args()
    langs = ("en", "de") if args.lang == "both" else (args.lang,)

    settings = Settings.load().replace(llm_base_url="", explain_in_background=False)
    pages = benchmark_pages()
    conversations = load_conversations(DATA / "conversations.json")[: args.limit]
    index, embedder, _ = benchmark_index(settings, pages)
    retriever = Retriever.from_settings(index, embedder, settings)
    completer = TimedCompleter()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'state.sqlite'}"
        upgrade(url)
        assistant = Assistant(
            settings, index, retriever, ExtractiveLLM(), completer, ConversationStore(url)
        )
        run_conversational(assistant, conversations, langs)

    follow_ups = [(total, search) for total, search in completer.calls if search > 0]
    own = [total - search for total, search in follow_ups]
    print(f"{len(completer.calls)} turns, {len(follow_ups)} with a topic to follow")
    print(f"completer's own cost per follow-up: {summary_ms(own)}")
    print(f"its search (k=5):                   {summary_ms([s for _, s in follow_ups])}")
    print(f"the whole step:                     {summary_ms([t for t, _ in follow_ups])}")
    print(f"median own cost {statistics.median(own):.2f} ms (target <= 5 ms)")


if __name__ == "__main__":
    main()
