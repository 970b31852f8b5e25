"""Sync state in the SQL database: a cursor per space and what is indexed per page.

The tables are created by migration `0002_sync_state`. A page's row is written only after
its evidences are in the index, and a space's cursor only moves together with the rows of
the pages up to it, so a sync killed at any point resumes without gaps or duplicates.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import BigInteger, Boolean, DateTime, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from core.db import Base


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class SyncSpace(Base):
    """One synced space: the change cursor and when its pages were last listed."""

    __tablename__ = "sync_spaces"

    space: Mapped[str] = mapped_column(String(255), primary_key=True)
    cursor: Mapped[str | None] = mapped_column(String(64), default=None)
    """ISO 8601 last-modified time of the newest page whose change is recorded."""
    listed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    """When the space's page ids were last listed (deletions, moves)."""
    last_run_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    last_report: Mapped[str | None] = mapped_column(Text, default=None)
    """The summary of the last finished run, as JSON."""
    fingerprint: Mapped[str | None] = mapped_column(String(64), default=None)
    """`EvidenceIndex.fingerprint` of the last complete run: another one re-indexes all."""


class SyncPage(Base):
    """One page seen by the sync: the version and content digest in the index, or why not."""

    __tablename__ = "sync_pages"
    __table_args__ = (  # partial indexes for counting per space (migration 0005)
        Index(
            "ix_sync_pages_indexed",
            "space",
            sqlite_where=text("version IS NOT NULL"),
            postgresql_where=text("version IS NOT NULL"),
        ),
        Index(
            "ix_sync_pages_failed",
            "space",
            sqlite_where=text("error IS NOT NULL"),
            postgresql_where=text("error IS NOT NULL"),
        ),
    )

    page_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    space: Mapped[str] = mapped_column(String(255), index=True)
    title: Mapped[str] = mapped_column(Text, default="")
    version: Mapped[int | None] = mapped_column(Integer, default=None)
    """The Confluence version in the index; None when the page is not indexed."""
    digest: Mapped[str | None] = mapped_column(String(64), default=None)
    """SHA-256 of what the page's evidences were built from; None when not indexed."""
    ancestors: Mapped[str] = mapped_column(Text, default="[]")
    """JSON list of ancestor page ids, root first."""
    updated_at: Mapped[str] = mapped_column(String(64), default="")
    restricted: Mapped[bool] = mapped_column(Boolean, default=False)
    """The page (or an ancestor) has read restrictions, so it is skipped."""
    error: Mapped[str | None] = mapped_column(Text, default=None)
    """Why the last attempt failed; set means the page is retried on the next run."""
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    """Failed attempts since the page was last indexed."""
    synced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)

    @property
    def ancestor_ids(self) -> tuple[str, ...]:
        """`ancestors` decoded."""
        return tuple(json.loads(self.ancestors or "[]"))


class SyncLease(Base):
    """A worker's lease on a space: only `holder` syncs it until `expires_at` (renewed by
    time while it syncs). Created by migration `0005_sync_leases`; a released lease keeps
    its row (expired), so `generation` never goes back."""

    __tablename__ = "sync_leases"

    space: Mapped[str] = mapped_column(String(255), primary_key=True)
    holder: Mapped[str] = mapped_column(String(255))
    """Who holds it: host, process id and a random suffix."""
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    generation: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    """Grows with every acquisition (migration `0007_write_ownership`): the fencing token."""


class SyncAttachment(Base):
    """One attachment of a synced page (connectors.attachments): the version read, how many
    index parts it has, or why it is not indexed. Created by migration `0010_attachments`."""

    __tablename__ = "sync_attachments"

    attachment_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    page_id: Mapped[str] = mapped_column(String(255), index=True)
    space: Mapped[str] = mapped_column(String(255), index=True)
    title: Mapped[str] = mapped_column(Text, default="")
    """The file name."""
    page_title: Mapped[str] = mapped_column(Text, default="")
    """The title of the page it is attached to, as its citation names it."""
    version: Mapped[str | None] = mapped_column(String(64), default=None)
    """The version read; None when the last read failed (read again next run)."""
    size: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="indexed")
    """indexed, skipped (too large, broken, encrypted, no text), ignored (a type not read)
    or failed (download failed; retried)."""
    note: Mapped[str | None] = mapped_column(Text, default=None)
    """Why it is skipped or failed."""
    parts: Mapped[int] = mapped_column(Integer, default=0)
    """Index pages it was written as (`attachment_key`)."""
    synced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class SyncInclude(Base):
    """A page that includes another (`include`/`excerpt-include`, connectors.includes): when
    the included page changes, the including page is read again. Created by migration
    `0010_attachments`."""

    __tablename__ = "sync_includes"

    page_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    included_id: Mapped[str] = mapped_column(String(255), primary_key=True, index=True)


class SyncRequest(Base):
    """A page a webhook asked to sync now (connectors.webhooks). Created by migration
    `0010_attachments`."""

    __tablename__ = "sync_requests"

    page_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    space: Mapped[str] = mapped_column(String(255), default="")
    """The space key the event named ("" when it named none)."""
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    serial: Mapped[int] = mapped_column(Integer, default=0)
    """Bumped by every event for the page: the worker takes a page off the queue only if no
    event came while it was being read."""
