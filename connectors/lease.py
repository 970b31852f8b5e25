"""Per-space sync leases in the state database: two sync workers (or a worker and a manual
`confbot sync`) never sync the same space at once, and a crashed worker's spaces come free.

A lease is a row of `sync_leases` (space, holder, expiry). Taking it is one conditional
write that succeeds only when the row is missing, expired, or already the taker's; the
database's primary key settles two takers racing for a missing row. The holder renews the
lease at every batch, so a worker that died stops renewing and its lease lapses after the
`sync_lease` interval; a holder on the same host whose process is gone (a worker killed
and restarted) is taken over at once. Expiry uses the workers' clocks (UTC): hosts must
agree to well within the interval, as NTP keeps them.
"""

from __future__ import annotations

import os
import socket
import uuid
from datetime import UTC, timedelta

from sqlalchemy import delete, or_, select, update
from sqlalchemy.exc import IntegrityError

from connectors.state import SyncLease, utcnow
from core.db import session_factory


class LeaseLost(RuntimeError):
    """The lease expired and another worker took the space: stop syncing it."""


def holder_name() -> str:
    """A name for this process that no other process shares: host, pid, random suffix."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class SpaceLeases:
    """Takes, renews and gives back leases on spaces for one holder."""

    def __init__(self, url: str, duration: timedelta, holder: str | None = None):
        if duration <= timedelta(0):
            raise ValueError("a lease must last a positive time (CONFBOT_SYNC_LEASE)")
        self.duration = duration
        self.holder = holder or holder_name()
        self._sessions = session_factory(url)

    def acquire(self, space: str) -> bool:
        """Take the space's lease if it is free, expired, ours, or held by a process of
        this host that is gone; True when we hold it."""
        now = utcnow()
        with self._sessions() as db:
            current = db.execute(select(SyncLease.holder).where(SyncLease.space == space)).scalar()
            takeable = [SyncLease.holder == self.holder, SyncLease.expires_at < now]
            if current is not None and _gone(current):
                takeable.append(SyncLease.holder == current)
            taken = db.execute(
                update(SyncLease)
                .where(SyncLease.space == space, or_(*takeable))
                .values(holder=self.holder, expires_at=now + self.duration)
            ).rowcount
            if taken:
                db.commit()
                return True
            db.add(SyncLease(space=space, holder=self.holder, expires_at=now + self.duration))
            try:
                db.commit()
                return True
            except IntegrityError:  # another holder has it
                db.rollback()
                return False

    def renew(self, space: str) -> None:
        """Extend our lease; raises LeaseLost when it lapsed and another holder took it."""
        with self._sessions() as db:
            renewed = db.execute(
                update(SyncLease)
                .where(SyncLease.space == space, SyncLease.holder == self.holder)
                .values(expires_at=utcnow() + self.duration)
            ).rowcount
            db.commit()
        if not renewed:
            raise LeaseLost(f"the lease on space {space} was taken by {self.holder_of(space)}")

    def release(self, space: str) -> None:
        """Give the lease back (if we still hold it)."""
        with self._sessions() as db:
            db.execute(
                delete(SyncLease).where(SyncLease.space == space, SyncLease.holder == self.holder)
            )
            db.commit()

    def holder_of(self, space: str) -> str | None:
        """Who holds the space's lease now (None when it is free or expired)."""
        with self._sessions() as db:
            row = db.execute(
                select(SyncLease.holder, SyncLease.expires_at).where(SyncLease.space == space)
            ).first()
        if row is None:
            return None
        expires = row.expires_at
        if expires.tzinfo is None:  # SQLite drops the offset; the value is UTC
            expires = expires.replace(tzinfo=UTC)
        return row.holder if expires >= utcnow() else None


def _gone(holder: str) -> bool:
    """Whether a holder named by `holder_name` is a process of this host that has ended."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, owned by another user
        return False
    return False
