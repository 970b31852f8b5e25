"""`core.refresh.Refreshed`: recomputed when its key changes, by one thread at a time."""

from __future__ import annotations

import operator

from core.refresh import Refreshed


def test_a_value_is_computed_once_per_key_from_the_previous_one():
    value: Refreshed[int, str] = Refreshed(operator.eq)
    calls = []

    def compute(previous):
        calls.append(previous)
        return f"v{len(calls)}"

    assert value.get(1, compute) == "v1" and value.get(1, compute) == "v1"
    assert value.get(2, compute) == "v2"
    assert calls == [None, "v1"]


def test_while_another_thread_computes_the_previous_value_is_returned():
    value: Refreshed[int, str] = Refreshed(operator.eq)
    value.get(1, lambda _: "old")
    with value.lock:  # another thread is computing
        assert value.get(2, lambda _: "new") == "old"
    assert value.get(2, lambda _: "new") == "new"


def test_cleared_it_is_computed_again():
    value: Refreshed[int, str] = Refreshed(operator.eq)
    value.get(1, lambda _: "a")
    value.clear()
    assert value.get(1, lambda previous: f"b after {previous}") == "b after None"
