"""A value derived from changing data, recomputed by one thread at a time.

The index derives things from its store that every search needs (the page catalog, the
query translator) and the retriever derives things from the catalog (near-duplicate groups,
the title field). A sync changes the store with every write. Were every search to recompute
them when it noticed the change, all of them would wait for, and repeat, the same work; so
one thread recomputes and the others go on with the previous value meanwhile. Only the
first value, when there is none to go on with, is waited for.

A caller that need not see the change at once (a process following another process's
writes) asks with `wait=False`: the value is then recomputed by a refresher thread, one at
a time, and even the search that noticed the change goes on with the previous value
(stale-while-revalidate). A separate sync commits a batch every second or so; each reload
paid in an answer's own time was that answer's tail latency (docs/benchmarks.md).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
T = TypeVar("T")

log = logging.getLogger(__name__)

RETRY_S = 1.0
"""After a refresher thread failed, the next one starts no sooner than this."""


class Refreshed(Generic[K, T]):
    """The latest value computed for a key (a store generation, a catalog): `get` returns
    it while the key is current, recomputes it when the key changed, and returns the
    previous one when another thread is recomputing it. `lock` is held while computing."""

    def __init__(self, current: Callable[[K, K], bool], name: str = "a derived value"):
        """`current(stored key, asked key)`: whether a value computed for the first still
        stands for the second; `name` says what it is in the log."""
        self._current = current
        self._state: tuple[K, T] | None = None
        self.lock = threading.Lock()
        self.name = name
        self.retry_s = RETRY_S
        self._retry_at = float("-inf")  # time.monotonic() before which no refresher starts

    @property
    def key(self) -> K | None:
        """The key of the value held (None before the first)."""
        state = self._state
        return state[0] if state is not None else None

    def get(self, key: K, compute: Callable[[T | None], T], wait: bool = True) -> T:
        """The value for `key`; `compute(previous value or None)` makes a new one. With
        `wait=False` and a previous value, a refresher thread computes it (unless one is at
        work already) and the previous value is returned meanwhile."""
        state = self._state
        if state is not None and self._current(state[0], key):
            return state[1]
        if state is not None and not wait:
            self._refresh_in_background(key, compute)
            return state[1]
        if not self.lock.acquire(blocking=state is None):
            return state[1]  # being recomputed by another thread
        try:
            state = self._state
            if state is None or not self._current(state[0], key):
                state = (key, compute(state[1] if state is not None else None))
                self._state = state
            return state[1]
        finally:
            self.lock.release()

    def _refresh_in_background(self, key: K, compute: Callable[[T | None], T]) -> None:
        """Start the refresher thread for `key`, unless one is at work (single flight) or
        the last one failed less than `retry_s` ago."""
        if time.monotonic() < self._retry_at or not self.lock.acquire(blocking=False):
            return
        try:
            threading.Thread(
                target=self._refresh, args=(key, compute), name="refresh", daemon=True
            ).start()
        except BaseException:
            self.lock.release()
            raise

    def _refresh(self, key: K, compute: Callable[[T | None], T]) -> None:
        """Compute the value for `key` and keep it (runs with `lock` held, released here). A
        failure is logged and the previous value kept; a later `get` tries again."""
        try:
            state = self._state
            if state is None or not self._current(state[0], key):
                self._state = (key, compute(state[1] if state is not None else None))
            self._retry_at = float("-inf")
        except Exception:
            self._retry_at = time.monotonic() + self.retry_s
            log.exception("refreshing %s failed; tried again in %.0f s", self.name, self.retry_s)
        finally:
            self.lock.release()

    def clear(self) -> None:
        """Forget the value: the next `get` computes it (and waits for it)."""
        self._state = None
