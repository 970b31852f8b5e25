"""First visible text of a streamed answer, after retrieval, against a fast scripted model.

The product as `confbot serve` wires it over the bundled sample wiki (offline embedder,
index, completer), with `CONFBOT_LLM_BASE_URL` pointing at the tests' scripted chat server,
which streams `scripted_answers.answer_with_follow_ups` (source 1's first sentence, cited,
and follow-ups) a word every `--word-delay` seconds (0.02 s: 50 words a second, a fast GPU
server). For every question of `tests/data/sample_wiki_questions.json` it times, from the
moment the sources are known (`Assistant.ask(on_sources=...)`, what a surface shows first):
the first checked sentence handed to the surface (`on_text`), and the finished turn (the
check, the offline answerer behind it, storing). Prints medians and the 90th percentile,
and the machine load beside them.

    CONFBOT_DATA_DIR=/tmp/confbot-stream .venv/bin/python benchmarks/stream_latency.py
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.serve import sync_sample_wiki  # noqa: E402
from core.assistant import Assistant, ConversationKey  # noqa: E402
from core.settings import Settings  # noqa: E402
from tests.fakes.openai_server import FakeOpenAI  # noqa: E402
from tests.fakes.scripted_answers import answer_with_follow_ups  # noqa: E402

QUESTIONS = Path(__file__).resolve().parents[1] / "tests" / "data" / "sample_wiki_questions.json"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--word-delay", type=float, default=0.02, help="seconds per word")
    args = parser.parse_args(argv)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    questions = [q["question"] for q in json.loads(QUESTIONS.read_text())["questions"]]
    folder = os.environ.get("CONFBOT_DATA_DIR") or tempfile.mkdtemp(prefix="confbot-stream-")
    with FakeOpenAI(answer_with_follow_ups, chunk_delay_s=args.word_delay) as server:
        settings = Settings.load(
            environ={
                "CONFBOT_DATA_DIR": folder,
                "CONFBOT_LLM_BASE_URL": server.base_url,
                "CONFBOT_LLM_MODEL": "scripted",
            }
        )
        assistant = Assistant.from_settings(settings)
        sync_sample_wiki(settings, assistant.index)
        assistant.warm_up()
        first, done, shown = [], [], 0
        for number, question in enumerate(questions):
            marks: dict[str, float] = {}

            def on_sources(found, marks=marks) -> None:
                marks["sources"] = time.perf_counter()

            def on_text(text: str, marks=marks) -> None:
                marks.setdefault("text", time.perf_counter())

            key = ConversationKey("bench", "w", "c", f"t{number}")
            assistant.ask(key, question, suggest=False, on_sources=on_sources, on_text=on_text)
            end = time.perf_counter()
            if "sources" not in marks:
                continue  # chit-chat: nothing retrieved
            done.append((end - marks["sources"]) * 1000)
            if "text" in marks:
                shown += 1
                first.append((marks["text"] - marks["sources"]) * 1000)
        assistant.close()
    print(f"{len(done)} questions, a word every {args.word_delay:g} s; load {os.getloadavg()}")
    print(f"first visible text after retrieval: {shown} of {len(done)} answers showed text")
    if first:
        print(
            f"  median {statistics.median(first):.0f} ms, p90 {percentile(first, 0.9):.0f} ms,"
            f" max {max(first):.0f} ms"
        )
    print(
        f"finished turn after retrieval: median {statistics.median(done):.0f} ms,"
        f" p90 {percentile(done, 0.9):.0f} ms"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
