"""Searches made known to the other processes of one data folder.

A sync makes way for searches (small write batches, a pause after each; see
`EvidenceIndex._give_way`) when it sees them, but a process sees only its own: the separate
`confbot sync` or `confbot worker` of a single-node install wrote in whole batches at full
speed beside a web process answering, and in SQLite and embedded Chroma the answers waited
(p95 2.3-2.5x idle during a full re-sync; docs/benchmarks.md). So a searching process
touches a file in the index folder (at most once every `MARK_EVERY_S`), and a writer reads
its modification time: one `stat` per check, no lock, no database round trip.
"""

from __future__ import annotations

import time
from pathlib import Path

MARK_EVERY_S = 0.5
"""The least time between two touches of the file by one process."""


class SearchBeacon:
    """The file `path`: touched by searches, read by writers."""

    def __init__(self, path: Path):
        self.path = path
        self._marked = float("-inf")  # time.monotonic() of this process's last touch

    def mark(self) -> None:
        """A search runs now (a data folder that cannot be written is left alone: a
        read-only process's searches then go unseen)."""
        now = time.monotonic()
        if now - self._marked < MARK_EVERY_S:
            return
        self._marked = now
        try:
            self.path.touch()
        except OSError:
            pass

    def seen_within(self, seconds: float) -> bool:
        """Whether any process marked a search in the last `seconds`."""
        try:
            return time.time() - self.path.stat().st_mtime < seconds
        except OSError:  # never marked
            return False
