"""A value derived from changing data, recomputed by one thread at a time.

The index derives things from its store that every search needs (the page catalog, the
query translator) and the retriever derives things from the catalog (near-duplicate groups,
the title field). A sync changes the store with every write. Were every search to recompute
them when it noticed the change, all of them would wait for, and repeat, the same work; so
one thread recomputes and the others go on with the previous value meanwhile. Only the
first value, when there is none to go on with, is waited for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
T = TypeVar("T")


class Refreshed(Generic[K, T]):
    """The latest value computed for a key (a store generation, a catalog): `get` returns
    it while the key is current, recomputes it when the key changed, and returns the
    previous one when another thread is recomputing it. `lock` is held while computing."""

    def __init__(self, current: Callable[[K, K], bool]):
        """`current(stored key, asked key)`: whether a value computed for the first still
        stands for the second."""
        self._current = current
        self._state: tuple[K, T] | None = None
        self.lock = threading.Lock()

    def get(self, key: K, compute: Callable[[T | None], T]) -> T:
        """The value for `key`; `compute(previous value or None)` makes a new one."""
        state = self._state
        if state is not None and self._current(state[0], key):
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

    def clear(self) -> None:
        """Forget the value: the next `get` computes it (and waits for it)."""
        self._state = None
