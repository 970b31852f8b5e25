"""`core.refresh.Refreshed`: recomputed when its key changes, by one thread at a time, in
the caller's time or by a refresher thread."""

from __future__ import annotations

import logging
import operator
import threading
import time

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


def settled(value: Refreshed) -> None:
    """Wait (at most 5 s) until no refresher thread holds the value's lock."""
    assert value.lock.acquire(timeout=5)
    value.lock.release()


def test_without_waiting_the_previous_value_is_returned_while_a_refresher_computes():
    value: Refreshed[int, str] = Refreshed(operator.eq)
    value.get(1, lambda _: "old", wait=False)  # none yet: computed in the caller's time
    assert value.key == 1
    started, release = threading.Event(), threading.Event()
    computing = []

    def slow(previous):
        computing.append(threading.current_thread().name)
        started.set()
        assert release.wait(5)
        return f"new after {previous}"

    assert value.get(2, slow, wait=False) == "old"  # the caller does not wait
    assert started.wait(5)
    assert value.get(2, slow, wait=False) == "old"  # still computing: previous value
    release.set()
    settled(value)
    assert value.get(2, slow, wait=False) == "new after old" and value.key == 2
    assert computing == ["refresh"]  # one refresher thread, not the callers


def test_one_refresher_at_a_time_however_many_callers_notice_the_change():
    value: Refreshed[int, str] = Refreshed(operator.eq)
    value.get(1, lambda _: "old")
    release = threading.Event()
    calls = []

    def slow(_previous):
        calls.append(1)
        assert release.wait(5)
        return "new"

    callers = [threading.Thread(target=lambda: value.get(2, slow, wait=False)) for _ in range(8)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    release.set()
    settled(value)
    assert len(calls) == 1 and value.get(2, slow, wait=False) == "new"


def test_a_failing_refresher_is_logged_keeps_the_previous_value_and_is_tried_again(caplog):
    value: Refreshed[int, str] = Refreshed(operator.eq, "the test value")
    value.retry_s = 0.2
    value.get(1, lambda _: "old")
    attempts = []

    def flaky(_previous):
        attempts.append(time.monotonic())
        if len(attempts) == 1:
            raise OSError("database is locked")
        return "new"

    with caplog.at_level(logging.ERROR, logger="core.refresh"):
        assert value.get(2, flaky, wait=False) == "old"
        settled(value)
    assert "refreshing the test value failed" in caplog.text and "database is locked" in caplog.text
    assert value.get(2, flaky, wait=False) == "old" and len(attempts) == 1  # held back
    deadline = time.monotonic() + 5
    while value.get(2, flaky, wait=False) != "new" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert value.get(2, flaky) == "new" and len(attempts) == 2
    assert attempts[1] - attempts[0] >= 0.2


def test_waiting_callers_still_compute_in_their_own_time():
    value: Refreshed[int, str] = Refreshed(operator.eq)
    value.get(1, lambda _: "old")
    assert value.get(2, lambda previous: f"new after {previous}") == "new after old"
