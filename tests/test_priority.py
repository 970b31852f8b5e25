"""A sync process lowers its CPU priority below the processes that answer
(connectors.priority); in a process of its own, since niceness cannot be taken back."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from connectors.priority import lower_priority
from core.settings import Settings, SettingsError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = (
    "import os; from connectors.priority import lower_priority;"
    " from core.settings import Settings;"
    " before = os.nice(0); lower_priority(Settings.load(environ={'CONFBOT_SYNC_NICE': '%s'}));"
    " print(before, os.nice(0))"
)


@pytest.mark.parametrize(("nice", "added"), [("7", 7), ("0", 0)])
def test_a_sync_process_adds_the_configured_niceness(nice, added):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT % nice],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT},
        capture_output=True,
        text=True,
        check=True,
    )
    before, after = map(int, done.stdout.split())
    assert after == min(19, before + added)


def test_a_niceness_out_of_range_names_the_setting():
    with pytest.raises(SettingsError, match="CONFBOT_SYNC_NICE"):
        lower_priority(Settings.load(environ={"CONFBOT_SYNC_NICE": "25"}))
