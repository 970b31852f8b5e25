"""Per-space sync leases in the state database: two sync workers (or a worker and a manual
`confbot sync`) never sync the same space at once, and a crashed worker's spaces come free.

A lease is a row of `sync_leases` (space, holder, expiry, generation). Taking it is one
conditional write that succeeds only when the row is missing, expired, or already the
taker's; the database's primary key settles two takers racing for a missing row. Every
acquisition raises the generation: the fencing token that the run's index writes carry
(`core.ownership`), so a write of an earlier acquisition, even by the same holder, is
refused once a later one exists. Releasing expires the row and keeps its generation.

A held lease is renewed by time, not by the run's progress: a thread renews it every
`RENEW_FRACTION` of its duration (`Lease.kept_renewed`), and every index write checks it
(`Lease.check`, which renews it first when that is due). A lease that lapsed is never renewed
again: its run stops with LeaseLost at its next write, and crash repair may treat its marks
as a dead writer's. A worker that died stops renewing and its lease lapses after the
`sync_lease` interval; a holder on the same host whose process is gone (a worker killed and
restarted) is taken over at once. The holder name is one per process (host, pid, a random
suffix), so a run that could not give its lease back (a database blip) does not lock the
next run of the same worker out. Expiry uses the workers' clocks (UTC): hosts must agree to
well within the interval, as NTP keeps them.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError

from connectors.state import SyncLease, utcnow
from core.db import session_factory
from core.ownership import LeaseLost, PendingOwner

__all__ = ["Lease", "LeaseLost", "SpaceLeases", "holder_name"]

log = logging.getLogger(__name__)

RENEW_FRACTION = 1 / 3
"""A lease is renewed once this fraction of its duration has passed since the last renewal:
two renewals can fail (a database blip) before it lapses."""

_holder: tuple[int, str] | None = None


def holder_name() -> str:
    """This process's holder name, the same for all its runs and shared with no other
    process: host, pid, a random suffix (a pid a later process reuses gets another)."""
    global _holder
    if _holder is None or _holder[0] != os.getpid():  # a forked child is another holder
        name = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        _holder = (os.getpid(), name)
    return _holder[1]


class SpaceLeases:
    """Takes, renews and gives back leases on spaces for one holder."""

    def __init__(self, url: str, duration: timedelta, holder: str | None = None):
        if duration <= timedelta(0):
            raise ValueError("a lease must last a positive time (CONFBOT_SYNC_LEASE)")
        self.duration = duration
        self.holder = holder or holder_name()
        self._sessions = session_factory(url)

    def acquire(self, space: str) -> Lease | None:
        """Take the space's lease if it is free, expired, ours, or held by a process of
        this host that is gone: the held Lease, with a generation above every earlier one
        of the space; None when another holder has it."""
        now = utcnow()
        with self._sessions() as db:
            current = db.execute(select(SyncLease.holder).where(SyncLease.space == space)).scalar()
            takeable = [SyncLease.holder == self.holder, SyncLease.expires_at < now]
            if current is not None and _gone(current):
                takeable.append(SyncLease.holder == current)
            taken = db.execute(
                update(SyncLease)
                .where(SyncLease.space == space, or_(*takeable))
                .values(
                    holder=self.holder,
                    expires_at=now + self.duration,
                    generation=SyncLease.generation + 1,
                )
            ).rowcount
            if taken:
                token = db.execute(
                    select(SyncLease.generation).where(SyncLease.space == space)
                ).scalar_one()
                db.commit()
            else:
                token = 1
                db.add(
                    SyncLease(
                        space=space,
                        holder=self.holder,
                        expires_at=now + self.duration,
                        generation=1,
                    )
                )
                try:
                    db.commit()
                except IntegrityError:  # another holder has it
                    db.rollback()
                    return None
        log.debug(  # `confbot -v`: the lease log (tests/test_chaos_cluster.py reads it)
            "lease on space %s taken by %s (generation %d) at %s",
            space,
            self.holder,
            token,
            utcnow().isoformat(),
        )
        return Lease(self, space, token)

    def _extend(self, space: str, token: int) -> bool:
        """Push the expiry of our lease of generation `token` one duration ahead, if it has
        not lapsed; whether it was."""
        now = utcnow()
        where = [SyncLease.space == space, SyncLease.holder == self.holder]
        where += [SyncLease.generation == token, SyncLease.expires_at > now]
        with self._sessions() as db:
            renewed = db.execute(
                update(SyncLease).where(*where).values(expires_at=now + self.duration)
            ).rowcount
            db.commit()
        return bool(renewed)

    def _lost_message(self, space: str) -> str:
        holder = self.holder_of(space)
        if holder is None or holder == self.holder:
            return f"the lease of {self.holder} on space {space} lapsed"
        return f"the lease on space {space} was taken by {holder}"

    def release(self, space: str, token: int | None = None) -> bool:
        """Give the lease back (if we still hold it, of generation `token` when given): it
        expires now and keeps its generation. A failure is logged, not raised, and answers
        False: the lease then lapses by itself, and this holder may take it again meanwhile."""
        where = [SyncLease.space == space, SyncLease.holder == self.holder]
        if token is not None:
            where.append(SyncLease.generation == token)
        try:
            with self._sessions() as db:
                db.execute(update(SyncLease).where(*where).values(expires_at=utcnow()))
                db.commit()
        except Exception as exc:
            log.warning("could not give back the lease on space %s: %r", space, exc)
            return False
        return True

    def holder_of(self, space: str) -> str | None:
        """Who holds the space's lease now (None when it is free or expired)."""
        row = self._row(space)
        return row.holder if row is not None and _aware(row.expires_at) > utcnow() else None

    def alive(self, mark: PendingOwner) -> bool:
        """Whether the lease a pending mark was written under is still held (for
        `EvidenceIndex.repair_pending`)."""
        if mark.space is None:
            return False
        row = self._row(mark.space)
        return (
            row is not None
            and row.holder == mark.holder
            and row.generation == mark.token
            and _aware(row.expires_at) > utcnow()
        )

    def _row(self, space: str):
        with self._sessions() as db:
            return db.execute(
                select(SyncLease.holder, SyncLease.expires_at, SyncLease.generation).where(
                    SyncLease.space == space
                )
            ).first()


class Lease:
    """A held lease on one space: the fence its run's index writes carry
    (`core.ownership.WriteFence`)."""

    def __init__(self, leases: SpaceLeases, space: str, token: int):
        self.leases = leases
        self.holder = leases.holder
        self.space = space
        self.token = token
        self._renewed = time.monotonic()
        self._lost: str | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Lease({self.space!r}, {self.holder!r}, generation {self.token})"

    def check(self) -> None:
        """Raise LeaseLost unless the lease is still ours and unexpired; renew it first when
        `RENEW_FRACTION` of its duration has passed since the last renewal."""
        with self._lock:
            if self._lost is None:
                due = self.leases.duration.total_seconds() * RENEW_FRACTION
                if time.monotonic() - self._renewed >= due:
                    self._renew()
                elif not self.leases.alive(
                    PendingOwner("", None, self.holder, self.space, self.token)
                ):
                    self._lose()
            if self._lost is not None:
                raise LeaseLost(self._lost)

    def renew(self) -> None:
        """Extend the lease now; raises LeaseLost when it lapsed or was taken."""
        with self._lock:
            if self._lost is None:
                self._renew()
            if self._lost is not None:
                raise LeaseLost(self._lost)

    def _renew(self) -> None:
        started = time.monotonic()
        if self.leases._extend(self.space, self.token):
            self._renewed = started
        else:
            self._lose()

    def _lose(self) -> None:
        self._lost = self.leases._lost_message(self.space)
        log.warning(
            "lease on space %s lost by %s (generation %d) at %s: %s",
            self.space,
            self.holder,
            self.token,
            utcnow().isoformat(),
            self._lost,
        )

    @property
    def lost(self) -> bool:
        """Whether the lease is known to be lost."""
        return self._lost is not None

    @contextlib.contextmanager
    def kept_renewed(self) -> Iterator[Lease]:
        """Renew the lease from a thread every `RENEW_FRACTION` of its duration while the
        block runs (however long a batch takes), then stop. A renewal that fails for a
        database error is tried again at the next tick; a lapsed lease stays lost."""
        stop = threading.Event()
        every = self.leases.duration.total_seconds() * RENEW_FRACTION

        def renew_until_stopped() -> None:
            while not stop.wait(every):
                try:
                    self.renew()
                except LeaseLost:
                    return
                except Exception as exc:
                    log.warning("renewing the lease on space %s failed: %r", self.space, exc)

        renewer = threading.Thread(
            target=renew_until_stopped, name=f"lease-{self.space}", daemon=True
        )
        renewer.start()
        try:
            yield self
        finally:
            stop.set()
            renewer.join()

    def release(self) -> None:
        """Give the lease back unless it was lost. When that fails (logged, not raised) the
        log says when the lease lapses instead, so a reader of the lease log (the chaos
        test) sees the window as long as it really was."""
        if self._lost is None:
            if self.leases.release(self.space, self.token):
                log.debug(
                    "lease on space %s given back by %s (generation %d) at %s",
                    self.space,
                    self.holder,
                    self.token,
                    utcnow().isoformat(),
                )
                return
            left = self.leases.duration.total_seconds() - (time.monotonic() - self._renewed)
            log.warning(
                "lease on space %s left to lapse by %s (generation %d) at %s",
                self.space,
                self.holder,
                self.token,
                (utcnow() + timedelta(seconds=max(left, 0.0))).isoformat(),
            )


def _aware(moment: datetime) -> datetime:
    """SQLite drops the offset; the stored value is UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


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
