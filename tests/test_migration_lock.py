"""Processes started together on one new database (a web replica and a worker from one
Procfile) all migrate it without "table already exists": `core.db.migration_lock`
serializes them, on SQLite and (when CONFBOT_TEST_POSTGRES_URL is set) on PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import create_engine, inspect

ROOT = Path(__file__).resolve().parents[1]
PROCESSES = 4

# Each process imports everything first, then waits for the start file, so all of them
# reach `upgrade` at the same moment.
MIGRATE = """
import sys, time
from pathlib import Path
from core.db import upgrade
start = Path(sys.argv[2])
while not start.exists():
    time.sleep(0.005)
upgrade(sys.argv[1])
"""


def migrate_together(url: str, start: Path) -> list[subprocess.CompletedProcess]:
    """Run `upgrade(url)` in `PROCESSES` processes released at once; their results."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", MIGRATE, url, str(start)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    time.sleep(2.0)  # let every process finish its imports
    start.touch()
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        results.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return results


def assert_all_migrated(url: str, results: list[subprocess.CompletedProcess]) -> None:
    failures = [r.stderr.strip().splitlines()[-1] for r in results if r.returncode != 0]
    assert failures == []
    engine = create_engine(url)
    try:
        tables = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert {"alembic_version", "conversations", "turns", "slack_events"} <= tables


def test_concurrent_migrations_on_sqlite(tmp_path):
    for round_ in range(3):  # unlocked, most rounds of 4 racing processes failed
        url = f"sqlite:///{tmp_path / f'state{round_}.db'}"
        results = migrate_together(url, tmp_path / f"start{round_}")
        assert_all_migrated(url, results)


def test_concurrent_migrations_on_postgres(postgres_url, tmp_path):
    results = migrate_together(postgres_url, tmp_path / "start")
    assert_all_migrated(postgres_url, results)


def test_database_opens_when_its_lock_file_cannot_be_created(tmp_path):
    """In a read-only folder the SQLite lock file cannot be created; a database that is
    already current still opens. (A directory in the lock file's place stands in for the
    read-only folder, which root, as CI runs, could write anyway.)"""
    from core.db import upgrade

    url = f"sqlite:///{tmp_path / 'state.db'}"
    upgrade(url)
    (tmp_path / "state.db.migrate-lock").unlink()
    (tmp_path / "state.db.migrate-lock").mkdir()
    upgrade(url)
    assert (tmp_path / "state.db.migrate-lock").is_dir()
