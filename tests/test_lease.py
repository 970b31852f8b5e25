"""Sync leases (connectors.lease): one holder per space, renewal, expiry after a crash, and a
sync run that finds its space leased leaves it alone. On SQLite and, when
CONFBOT_TEST_POSTGRES_URL is set, PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import timedelta

import pytest

from connectors.lease import LeaseLost, SpaceLeases
from core.db import upgrade


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def state_url(request, tmp_path):
    """A migrated state database."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    else:
        url = request.getfixturevalue("postgres_url")
    upgrade(url)
    return url


def test_one_holder_at_a_time_until_released(state_url):
    first = SpaceLeases(state_url, timedelta(minutes=5), holder="host-a:1:x")
    second = SpaceLeases(state_url, timedelta(minutes=5), holder="host-b:2:y")
    assert first.acquire("ENG")
    assert not second.acquire("ENG")
    assert second.acquire("HR")  # leases are per space
    assert first.acquire("ENG")  # taking one's own lease again renews it
    assert second.holder_of("ENG") == "host-a:1:x"
    first.release("ENG")
    assert second.acquire("ENG")
    assert first.holder_of("ENG") == "host-b:2:y"


def test_a_crashed_holders_lease_expires_and_it_cannot_renew_after(state_url):
    crashed = SpaceLeases(state_url, timedelta(seconds=0.5), holder="host-a:1:x")
    other = SpaceLeases(state_url, timedelta(minutes=5), holder="host-b:2:y")
    lease = crashed.acquire("ENG")
    assert lease
    assert not other.acquire("ENG")
    time.sleep(0.6)  # the crashed holder renews no more
    assert crashed.holder_of("ENG") is None
    taken = other.acquire("ENG")
    assert taken.token == lease.token + 1  # the fencing token grows
    with pytest.raises(LeaseLost, match="host-b:2:y"):
        lease.renew()


def test_renewing_keeps_the_lease(state_url):
    holder = SpaceLeases(state_url, timedelta(seconds=2), holder="host-a:1:x")
    other = SpaceLeases(state_url, timedelta(minutes=5), holder="host-b:2:y")
    lease = holder.acquire("ENG")
    for _ in range(3):  # each sleep past half the lease, with room for a loaded machine
        time.sleep(1.2)
        lease.renew()
        assert not other.acquire("ENG")


def test_a_dead_process_of_this_host_is_taken_over_at_once(state_url):
    import socket

    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = SpaceLeases(
        state_url,
        timedelta(minutes=5),
        holder=f"{socket.gethostname()}:{finished.stdout.strip()}:x",
    )
    assert dead.acquire("ENG")
    assert SpaceLeases(state_url, timedelta(minutes=5)).acquire("ENG")


def test_a_positive_duration_is_required(state_url):
    with pytest.raises(ValueError, match="CONFBOT_SYNC_LEASE"):
        SpaceLeases(state_url, timedelta(0))


def test_a_failed_release_logs_when_the_lease_lapses_not_that_it_was_given_back(
    state_url, caplog, monkeypatch
):
    leases = SpaceLeases(state_url, timedelta(minutes=5), holder="host-a:1:x")
    lease = leases.acquire("ENG")

    def database_down():
        raise ConnectionError("database is restarting")

    monkeypatch.setattr(leases, "_sessions", database_down)
    with caplog.at_level("DEBUG", logger="connectors.lease"):
        lease.release()
    said = caplog.text
    assert "given back" not in said
    assert "could not give back the lease on space ENG" in said
    assert "lease on space ENG left to lapse by host-a:1:x" in said
    monkeypatch.undo()
    other = SpaceLeases(state_url, timedelta(minutes=5), holder="host-b:2:y")
    assert not other.acquire("ENG")  # not given back: it is held until it lapses
