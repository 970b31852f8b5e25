"""Who owns an index write: the fence a writer carries and the marks it leaves.

Several processes write one index (sync workers, a manual `confbot sync`), each under a
lease on the space it syncs (`connectors.lease`). A write marks its pages pending with its
owner: the lease's holder, the leased space and the lease's generation (a fencing token
that grows with every acquisition). The index checks the fence before it writes Chroma and
inside the store transaction that commits, so a writer whose lease lapsed or was taken
cannot write; and crash repair (`EvidenceIndex.repair_pending`) touches only marks whose
owner is gone, never the half-finished write of a live writer. Core knows leases only
through this protocol: the lease table belongs to `connectors`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


class LeaseLost(RuntimeError):
    """The writer's lease lapsed or another writer took it (or took over its pages): stop
    writing."""


class WriteFence(Protocol):
    """A lease a writer holds while it writes: `check()` raises LeaseLost once it is no
    longer held (and may renew it when due)."""

    holder: str
    space: str
    token: int

    def check(self) -> None: ...


@dataclass(frozen=True)
class PendingOwner:
    """A pending mark: the page, the write that set it (`writer`, unique per write), and the
    lease it was written under (`holder`, `space`, `token`; None for a write without one)."""

    page_id: str
    writer: str | None
    holder: str | None
    space: str | None
    token: int | None


Alive = Callable[[PendingOwner], bool]
"""Whether the lease a pending mark was written under is still held (the writer is live)."""


def fence_stamp(fence: WriteFence) -> str:
    """The writer stamp of writes under `fence`: one per lease generation."""
    return f"{fence.holder}|{fence.space}|{fence.token}"
