"""`confbot eval` against a scripted OpenAI-compatible model, for the LLM path of an evaluation.

Starts the fake chat-completions server of the tests (`tests/fakes/openai_server.py`) with
the deterministic responder `tests/fakes/scripted_answers.answer_with_follow_ups` (it
answers with source 1's first sentence cited `[1]` and proposes follow-ups about the
prompt's other sources, in the question's language), points `CONFBOT_LLM_BASE_URL` at it
(model name `scripted`) and runs `confbot eval` with the arguments given. The server cannot
think: with `--suggestions` the figure measures the plumbing (the follow-ups block parsed
off the answer, each proposal checked against retrieval, the page-structure fallback), not
a model's follow-ups.

    CONFBOT_DATA_DIR=/tmp/confbot-eval .venv/bin/python benchmarks/scripted_llm_eval.py \\
        --data ../shared/confquestions --suggestions
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import main  # noqa: E402
from tests.fakes.openai_server import FakeOpenAI  # noqa: E402
from tests.fakes.scripted_answers import answer_with_follow_ups  # noqa: E402


def run(argv: list[str]) -> int:
    """`confbot eval ARGV` with the scripted model; returns its exit status."""
    for name in ("httpx", "httpx2"):  # one INFO line per request otherwise
        logging.getLogger(name).setLevel(logging.WARNING)
    with FakeOpenAI(answer_with_follow_ups, model="scripted") as server:
        os.environ["CONFBOT_LLM_BASE_URL"] = server.base_url
        os.environ["CONFBOT_LLM_MODEL"] = "scripted"
        status = main(["eval", *argv])
        print(f"{len(server.chat_requests)} chat requests to the scripted model")
        return status


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
