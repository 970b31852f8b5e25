"""A sync process's CPU priority: below the processes that answer.

A full re-sync is background work that can wait; an answer has someone waiting for it. On
cores a sync shares with a web process (a single-node install, a small server), the kernel
gives the CPU to the lower niceness first, so the separate `confbot worker` or `confbot
sync` lowers its own (`sync_nice`), as background indexers do (`nice`, systemd's `Nice=`).
"""

from __future__ import annotations

import logging
import os

from core.settings import Settings, SettingsError

log = logging.getLogger(__name__)


def lower_priority(settings: Settings) -> None:
    """Add `sync_nice` to this process's niceness (where the system has one)."""
    nice = settings.sync_nice
    if not 0 <= nice <= 19:
        raise SettingsError(f"CONFBOT_SYNC_NICE: {nice} is not a niceness from 0 to 19")
    if nice == 0 or not hasattr(os, "nice"):
        return
    try:
        os.nice(nice)
    except OSError as exc:  # a sandbox that forbids it: run at the priority given
        log.warning("could not lower the sync's CPU priority (CONFBOT_SYNC_NICE): %s", exc)
