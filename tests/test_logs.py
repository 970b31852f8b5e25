"""Quiet logs by default: a command run as an operator runs it prints its own lines, not
Alembic's plugin and migration lines; `-v` shows them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def confbot(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CONFBOT_", "SLACK_"))}
    environ.update(CONFBOT_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        capture_output=True,
        text=True,
        env=environ,
        cwd=ROOT,
        timeout=120,
    )


def test_migrations_are_silent_unless_asked(tmp_path):
    quiet = confbot(tmp_path / "a", "init")
    assert quiet.returncode == 0, quiet.stderr
    assert "alembic" not in quiet.stderr and "Running upgrade" not in quiet.stderr
    assert quiet.stdout.startswith("database ready:")
    loud = confbot(tmp_path / "b", "-v", "init")
    assert "Running upgrade" in loud.stderr
