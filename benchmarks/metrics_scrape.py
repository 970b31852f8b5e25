"""Time of one Prometheus scrape with a million questions recorded in the state database.

Fills an SQLite state database (migrated) with `--turns` recorded questions (default one
million, 100 per conversation) and the sync state of `--pages` pages in 10 spaces (1% of
them failed), then scrapes `/metrics` `--scrapes` times over real HTTP on 127.0.0.1: the web
app's route (`confbot serve`, behind the admin token) and the token-less metrics server of
`metrics_address`. Prints the median and p95 of each, to hold against the target of at most
50 ms, and for contrast the time of one `SELECT count(*) FROM turns` (what a scrape that
counted the turns would cost at least). The database is kept in `--data-dir` between runs.

    .venv/bin/python benchmarks/metrics_scrape.py [--turns 1000000] [--data-dir /tmp/metrics-bench]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402

from benchmarks._common import summary_ms  # noqa: E402
from core.db import upgrade  # noqa: E402
from core.settings import Settings  # noqa: E402

TOKEN = "benchmark-token"
SPACES = [f"S{n}" for n in range(10)]


def fill(path: Path, turns: int, pages: int) -> None:
    """Record `turns` questions and the sync state of `pages` pages (once per folder)."""
    db = sqlite3.connect(path)
    have = db.execute("SELECT count(*) FROM turns").fetchone()[0]
    if have >= turns:
        return
    per_conversation = 100
    now = time.strftime("%Y-%m-%d %H:%M:%S.000000")
    conversations = [
        (n, "web", "S0", "", f"bench-{n}", now) for n in range(1, turns // per_conversation + 1)
    ]
    db.executemany("INSERT INTO conversations VALUES (?, ?, ?, ?, ?, ?)", conversations)
    timings = json.dumps({"retrieve_ms": 6.0, "answer_ms": 40.0, "total_ms": 50.0})
    rows = (
        (
            n,
            n // per_conversation + 1 if n % per_conversation else n // per_conversation,
            n % per_conversation + 1,
            f"Question number {n}?",
            f"Question number {n}?",
            "[]",
            "{}",
            "An answer.",
            "[]",
            n % 10 == 0,
            "extractive",
            timings,
            False,
            now,
        )
        for n in range(1, turns + 1)
    )
    db.executemany(
        "INSERT INTO turns (id, conversation_id, position, question, completed_question,"
        " evidences, messages, answer, citations, out_of_scope, model, timings, archived,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.executemany(
        "INSERT INTO sync_pages (page_id, space, title, version, digest, ancestors, updated_at,"
        " restricted, error, attempts, synced_at) VALUES (?, ?, ?, ?, ?, '[]', '', 0, ?, ?, ?)",
        (
            (
                str(n),
                SPACES[n % len(SPACES)],
                f"Page {n}",
                None if n % 100 == 0 else 1,
                None,
                "HTTP 500" if n % 100 == 0 else None,
                1 if n % 100 == 0 else 0,
                now,
            )
            for n in range(pages)
        ),
    )
    db.executemany(
        "INSERT INTO sync_spaces (space, last_run_at) VALUES (?, ?)", ((s, now) for s in SPACES)
    )
    db.commit()
    db.close()


def scrape_times(url: str, scrapes: int, headers: dict) -> list[float]:
    times = []
    with httpx.Client() as client:
        for _ in range(scrapes + 1):
            started = time.perf_counter()
            response = client.get(url, headers=headers)
            elapsed = (time.perf_counter() - started) * 1000
            response.raise_for_status()
            times.append(elapsed)
    return times[1:]  # the first scrape opens the connection and the database


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=1_000_000)
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--scrapes", type=int, default=50)
    parser.add_argument("--data-dir", default="/tmp/confbot-metrics-bench")
    args = parser.parse_args()

    settings = Settings.load(
        environ={
            "CONFBOT_DATA_DIR": args.data_dir,
            "CONFBOT_ADMIN_TOKEN": TOKEN,
            "CONFBOT_METRICS_ADDRESS": "127.0.0.1:0",
        }
    )
    upgrade(settings.sqlalchemy_url)
    database = settings.data_path / "confbot.sqlite"
    started = time.perf_counter()
    fill(database, args.turns, args.pages)
    size = os.path.getsize(database) / 2**20
    print(
        f"state database: {args.turns:,} turns, {args.pages:,} pages ({size:.0f} MiB),"
        f" filled in {time.perf_counter() - started:.0f} s"
    )

    from bot.metrics import serve_metrics
    from bot.serve import BackgroundServer
    from bot.web import create_app
    from core.assistant import Assistant
    from core.metrics import observe_feedback, observe_turn

    for step in range(100):  # some live series, as a serving process has
        observe_turn(
            "web", {"retrieve_ms": 5.0 + step, "answer_ms": 40.0, "total_ms": 50.0}, step % 10 == 0
        )
        observe_feedback("up" if step % 3 else "down")

    assistant = Assistant.from_settings(settings)
    server = serve_metrics(settings)
    try:
        with BackgroundServer(create_app(assistant)) as web:
            times = scrape_times(
                f"{web.url}/metrics", args.scrapes, {"Authorization": f"Bearer {TOKEN}"}
            )
            print(f"web app /metrics (admin token): {summary_ms(times)} over {len(times)} scrapes")
        host, port = server.server_address[:2]
        times = scrape_times(f"http://{host}:{port}/metrics", args.scrapes, {})
        print(f"metrics_address /metrics: {summary_ms(times)} over {len(times)} scrapes")
    finally:
        server.shutdown()
        assistant.close()
    db = sqlite3.connect(database)
    started = time.perf_counter()
    count = db.execute("SELECT count(*) FROM turns").fetchone()[0]
    print(
        f"for contrast, SELECT count(*) FROM turns ({count:,}):"
        f" {(time.perf_counter() - started) * 1000:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
