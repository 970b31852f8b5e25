"""Web answer latency with the embedded default, over HTTP against a real `confbot serve`.

Starts `confbot serve --port 0 --no-worker` in a subprocess on a fresh data folder (so it
indexes the packaged sample wiki first: offline USE embedder, extractive answerer, SQLite,
embedded Chroma), then posts every sample question (`bot/sample_wiki/questions.json`, 20
questions in English and German) to `POST /api/ask`, each as the first turn of its own
conversation, `--repeat` times over. Prints the median and p95 of the client-side latency
(request sent to JSON parsed, keep-alive connection), of all answers and of the first pass
alone (repeats find their query embeddings in the embedder's cache, as a repeated question
in production does), the server's own time per step, the time to start, and the server's
peak memory. The page then asks for the answer's suggested follow-ups
(`GET /api/turns/{id}/suggestions`, computed after the answer so it never waits for them);
their latency is printed on its own line. Target (issue 7): median <= 150 ms.

    .venv/bin/python benchmarks/web_latency.py [--repeat 5] [--space ACME] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import percentile, summary_ms  # noqa: E402

QUESTIONS = ROOT / "bot" / "sample_wiki" / "questions.json"
READY = re.compile(r"confbot is ready: (http://\S+)/ask")
TARGET_MS = 150.0


def start_server(data_dir: Path) -> tuple[subprocess.Popen, str, float]:
    """`confbot serve` on a free port with only the data folder configured; (process, base
    URL, seconds until it printed its URL)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", str(data_dir)),
        "CONFBOT_DATA_DIR": str(data_dir),
        "PYTHONUNBUFFERED": "1",
    }
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve", "--port", "0", "--no-worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    for line in process.stdout:
        match = READY.search(line)
        if match:
            return process, match.group(1), time.perf_counter() - started
    raise SystemExit(f"confbot serve exited ({process.wait()}) before printing its URL")


def peak_rss_mib(pid: int) -> float:
    """Peak resident memory of a process (VmHWM), in MiB; 0 where /proc is unavailable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="passes over the questions")
    parser.add_argument("--space", help="ask within this space (default: every space)")
    parser.add_argument("--data-dir", help="data folder to use (default: a new temporary one)")
    args = parser.parse_args()

    questions = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))]
    with tempfile.TemporaryDirectory() as scratch:
        data_dir = Path(args.data_dir or scratch)
        process, url, startup_s = start_server(data_dir)
        try:
            client_ms: list[float] = []
            first_pass: list[float] = []
            server: dict[str, list[float]] = {}
            suggestions_ms: list[float] = []
            with httpx.Client(base_url=url, timeout=60) as http:
                for question in questions[:3]:  # warm-up, not counted
                    http.post("/api/ask", json={"question": question, "conversation": "warm-up-1"})
                for repeat in range(args.repeat):
                    for question in questions:
                        body = {
                            "question": question,
                            "conversation": uuid.uuid4().hex,
                            "space": args.space,
                        }
                        start = time.perf_counter()
                        response = http.post("/api/ask", json=body)
                        turn = response.json()
                        client_ms.append((time.perf_counter() - start) * 1000)
                        response.raise_for_status()
                        if repeat == 0:
                            first_pass.append(client_ms[-1])
                        for step, ms in turn["timings"].items():
                            server.setdefault(step, []).append(ms)
                        if turn.get("suggestions_pending"):  # as the page does next
                            start = time.perf_counter()
                            found = http.get(
                                f"/api/turns/{turn['turn']}/suggestions",
                                params={"conversation": body["conversation"]}
                                | ({"space": args.space} if args.space else {}),
                            )
                            found.raise_for_status()
                            suggestions_ms.append((time.perf_counter() - start) * 1000)
            rss = peak_rss_mib(process.pid)
        finally:
            process.terminate()
            process.wait(60)

    median = statistics.median(client_ms)
    print(f"confbot serve ready in {startup_s:.1f} s (fresh data folder: indexes the sample wiki)")
    print(f"{len(client_ms)} answers ({len(questions)} questions x {args.repeat}) over HTTP")
    print(
        f"web answer latency (client): {summary_ms(client_ms)},"
        f" mean {statistics.mean(client_ms):.1f} ms"
    )
    print(
        f"server total_ms: {summary_ms(server['total_ms'])}; HTTP and JSON overhead (median):"
        f" {median - statistics.median(server['total_ms']):.1f} ms"
    )
    steps = [s for s in server if s.endswith("_ms") and s != "total_ms" and "." not in s]
    print(
        "server steps (median ms): "
        + ", ".join(f"{s[:-3]} {statistics.median(server[s]):.1f}" for s in steps)
    )
    print(
        f"first pass only (query embeddings not yet cached): {summary_ms(first_pass)};"
        f" p99 of all {percentile(client_ms, 99):.1f} ms, max {max(client_ms):.1f} ms"
    )
    if suggestions_ms:
        print(
            f"suggested follow-ups, requested after each answer ({len(suggestions_ms)}):"
            f" {summary_ms(suggestions_ms)}"
        )
    print(f"server peak memory: {rss:.0f} MiB")
    for label, values in (("all answers", client_ms), ("first pass", first_pass)):
        verdict = "met" if statistics.median(values) <= TARGET_MS else "MISSED"
        print(f"target median <= {TARGET_MS:.0f} ms ({label}): {verdict}")


if __name__ == "__main__":
    main()
