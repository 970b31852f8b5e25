"""Answers of a real model, checked and combined, beside the offline answerer's, for judging.

Runs `confbot eval --answers` once per answerer against any OpenAI-compatible endpoint (a
llama.cpp, vLLM or Ollama server, or a hosted API): `offline` (no model), and the model
with each answer check (`CONFBOT_LLM_ANSWER_CHECK`: `off` = the model's raw replies,
`grounded`, `combined`). Each run writes `OUT/<answerer>.json` (figures and per-question
records) and `OUT/<answerer>.unjudged.jsonl` (the replies that need a verdict by reading,
`../shared/JUDGING.md`; keep OUT outside the repository, it holds gold answers), then one
table compares them. Judge the JSONL files, merge them with `confbot eval --verdicts-in`,
and the next run prints the judged figures per answerer.

    CONFBOT_DATA_DIR=/tmp/confbot-llm .venv/bin/python benchmarks/llm_endpoint_eval.py \\
        --data ../shared/confquestions --base-url http://127.0.0.1:8081/v1 \\
        --model qwen2.5-1.5b --limit 8 --lang en --out /tmp/llm-replies \\
        --concurrency 1 --first-token-timeout 120 --timeout 600

A CPU server wants one request at a time and long timeouts (README, "A model on a CPU
server"). With `--replies FILE` the model's replies are kept by request (the prompt as the
model read it, its reply and the seconds it took): the answer checks then read the same
generation the raw run got (one model call per question for `off`, `grounded` and
`combined`, all at temperature 0), a rerun after a fix re-checks without asking the model
again, and the file shows the sources each citation points at for judging (keep it outside
the repository too). `--judging DIR` writes the offline, raw model and combined replies of
each question, the combined reply's cited source texts and a mechanical check of its
sentences for judges to read (`benchmarks/_llm_judging.py`). `--scripted` starts the tests'
scripted chat server instead of naming one (it answers with source 1's first line), to
check the harness itself.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._llm_judging import CheckRecorder, write_judging  # noqa: E402
from bot.cli import main  # noqa: E402

ANSWERERS = ("offline", "off", "grounded", "combined")
FIGURES = ("n", "declined", "decline_recall", "f1", "contained")


def keep_replies(path: Path) -> Callable[[], None]:
    """Answer the model's requests from `path` when it holds them, else ask the endpoint and
    add the reply there unless it is empty (module docstring), by patching
    `core.llm.OpenAILLM`; returns what undoes the patch."""
    from core.llm import OpenAILLM

    kept = json.loads(path.read_text()) if path.exists() else {}
    ask = OpenAILLM._request

    def request(self, messages, n, temperature, max_tokens, on_text=None, seen=None):
        wanted = [self.name, messages, n, temperature, max_tokens]
        key = hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest()
        if key not in kept:
            start = time.perf_counter()
            texts = ask(self, messages, n, temperature, max_tokens, on_text, seen)
            seconds = round(time.perf_counter() - start, 2)
            if not any(t.strip() for t in texts):
                # Not kept: a llama.cpp server that ended a queued request's stream early
                # sent no text (two clients on a one-request server); the next run asks again.
                return texts
            kept[key] = {"messages": messages, "replies": texts, "seconds": seconds}
            path.write_text(json.dumps(kept, indent=1, ensure_ascii=False))
        elif on_text is not None:
            on_text(kept[key]["replies"][0])
        return list(kept[key]["replies"])

    OpenAILLM._request = request
    return lambda: setattr(OpenAILLM, "_request", ask)


def run_one(answerer: str, args: argparse.Namespace, base_url: str) -> dict:
    """`confbot eval --answers` with one answerer (its settings in the environment for the
    run, restored after); its figures and wall time."""
    env = {
        "CONFBOT_LLM_BASE_URL": "" if answerer == "offline" else base_url,
        "CONFBOT_LLM_MODEL": args.model,
        "CONFBOT_LLM_ANSWER_CHECK": "combined" if answerer == "offline" else answerer,
        "CONFBOT_LLM_TIMEOUT": str(args.timeout),
        "CONFBOT_LLM_FIRST_TOKEN_TIMEOUT": str(args.first_token_timeout),
        "CONFBOT_LLM_CONCURRENCY": str(args.concurrency),
        "CONFBOT_LLM_MAX_RETRIES": "1",
    }
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        return _eval(answerer, args)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _eval(answerer: str, args: argparse.Namespace) -> dict:
    out = args.out / f"{answerer}.json"
    argv = ["eval", "--data", str(args.data), "--answers", "--lang", args.lang]
    argv += ["--json", str(out), "--unjudged", str(args.out / f"{answerer}.unjudged.jsonl")]
    if args.limit:
        argv += ["--conversations-limit", str(args.limit)]
    if args.conversations:
        argv += ["--conversations", str(args.conversations)]
    if args.out_of_scope:
        argv += ["--out-of-scope", str(args.out_of_scope)]
    if args.verdicts:
        argv += ["--verdicts", str(args.verdicts)]
    start = time.perf_counter()
    status = main(argv)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"confbot eval failed for {answerer} (exit {status})")
    figures = json.loads(out.read_text())
    return {"answerer": answerer, "seconds": seconds, **(figures.get("answers") or {})}


def judging(args: argparse.Namespace, recorder: CheckRecorder) -> dict:
    """The replies of this run written for judging (`benchmarks/_llm_judging.py`)."""
    from connectors.files import FilesSource
    from core.evaluation.benchmark import load_conversations
    from core.evaluation.metrics import page_id_of
    from core.evaluation.verdicts import choose_conversations

    conversations = load_conversations(args.conversations or args.data / "conversations.json")
    conversations = choose_conversations(conversations, args.limit)
    pages = FilesSource(args.data / "documents").pages.values()
    titles = {page_id_of(p.url): p.title for p in pages}
    records = {
        a: json.loads((args.out / f"{a}.json").read_text())["records"] for a in args.answerers
    }
    return write_judging(args.judging, records, recorder.checks, conversations, titles)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="ConfQuestions folder")
    parser.add_argument("--base-url", default="", help="OpenAI-compatible endpoint (…/v1)")
    parser.add_argument("--model", default="local", help="model name sent to the endpoint")
    parser.add_argument("--scripted", action="store_true", help="use a scripted local server")
    parser.add_argument("--limit", type=int, default=0, help="conversations drawn (0: all)")
    parser.add_argument("--conversations", type=Path, help="conversations file")
    parser.add_argument("--out-of-scope", type=Path, help="out-of-scope questions file")
    parser.add_argument("--verdicts", type=Path, help="verdicts store (default: eval's)")
    parser.add_argument("--lang", choices=("en", "de", "both"), default="en")
    parser.add_argument("--answerers", default=",".join(ANSWERERS), help="comma-separated")
    parser.add_argument("--out", type=Path, required=True, help="folder for replies")
    parser.add_argument("--replies", type=Path, help="model replies kept by request (JSON)")
    parser.add_argument("--judging", type=Path, help="folder for the replies to judge")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--first-token-timeout", type=float, default=120.0)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args(argv)
    args.answerers = [a.strip() for a in args.answerers.split(",") if a.strip()]
    unknown = sorted(set(args.answerers) - set(ANSWERERS))
    if unknown:
        parser.error(f"unknown answerers {unknown}; choose from {', '.join(ANSWERERS)}")
    if not args.base_url and not args.scripted and args.answerers != ["offline"]:
        parser.error("name the endpoint with --base-url (or --scripted)")
    return args


def run(argv: list[str]) -> list[dict]:
    """Every answerer of `argv` in turn; prints and returns their figures."""
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in ("httpx", "openai"):  # one INFO line per request otherwise
        logging.getLogger(name).setLevel(logging.WARNING)
    undo = keep_replies(args.replies) if args.replies else None
    recorder = CheckRecorder().start() if args.judging else None
    server = None
    if args.scripted:
        from tests.fakes.openai_server import FakeOpenAI
        from tests.fakes.scripted_answers import answer_with_follow_ups

        server = FakeOpenAI(answer_with_follow_ups, model=args.model).start()
        args.base_url = server.base_url
    try:
        rows = [run_one(answerer, args, args.base_url) for answerer in args.answerers]
    finally:
        if server is not None:
            server.stop()
        if undo is not None:
            undo()
        if recorder is not None:
            recorder.stop()
    if recorder is not None:
        summary = judging(args, recorder)
        print(f"\nreplies to judge in {args.judging}; mechanical check (string matching only):")
        print(json.dumps(summary, indent=1))
    print("\n" + "answerer".ljust(10) + "".join(f.rjust(20) for f in (*FIGURES, "seconds")))
    for row in rows:
        cells = [row.get(f) for f in (*FIGURES, "seconds")]
        shown = [
            "-" if c is None else f"{c:.3f}" if isinstance(c, float) else str(c) for c in cells
        ]
        print(row["answerer"].ljust(10) + "".join(c.rjust(20) for c in shown))
    (args.out / "summary.json").write_text(json.dumps(rows, indent=2))
    return rows


if __name__ == "__main__":
    run(sys.argv[1:])
