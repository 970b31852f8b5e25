"""One sync run per space: pull changes, extract, contextualize, index, record the state.

A run has three steps:
1. pages that failed on an earlier run are fetched again by id;
2. pages changed since the space's cursor are read oldest first, batch by batch; a page
   whose content digest is unchanged is not re-indexed (a new version with the same
   content, or a move, only updates the page record); with `sync_skip_restricted`,
   read-restricted pages are skipped and removed from the index if they were in it;
3. when due (`sync_listing_interval`, `--full`, or every run for a source whose listing
   costs nothing, the files source), every current page id of the space is listed: pages
   that vanished are removed (each confirmed by a fetch first, so a listing that raced an
   edit never deletes a live page), pages whose version or ancestors differ
   from the state are fetched again (a move does not change `lastmodified`, and offset
   paging can skip a page edited mid-run), and so are skipped restricted pages once
   `sync_skip_restricted` is off (`--full` re-reads every page and removes the space's
   orphan vectors).

Permissions (`core.access`, a source that knows them: Confluence): each page's access (its
own and its ancestors' read restrictions) is recorded before its evidences are written, so
no restricted page is ever searchable without it; a listing records the access of every
page of the space again (restrictions added or lifted without a new version); and every
run records the space's view permission and the members of every group the space's
permissions name (`_record_permissions`).

Idempotent and resumable: after each batch the evidences are written first, then in one
transaction the batch's page rows and the cursor (the newest `updated_at` of the batch).
A run killed at any point leaves rows only for pages whose evidences are in the index, so
the next run re-indexes whatever was written but not recorded (an upsert replaces the
page's evidences) and nothing is duplicated or lost. A page that fails is recorded with
its error, does not hold the cursor back, and is retried in step 1 of the next run.

Before its digest is taken, a page gets its comments and the current text of the pages it
includes (connectors.comments, connectors.includes); after a batch, the attachments of its
re-indexed pages are synced (connectors.attachments), and at the end of the changes the
pages whose comments or attachments changed alone, or that include a re-indexed page, are
read again. `run_pages` reads pages queued by webhooks (connectors.webhooks) at once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from connectors.attachments import AttachmentCounts, attachment_sync, is_attachment_key
from connectors.comments import comment_reader
from connectors.includes import include_resolver
from connectors.lease import Lease, LeaseLost, SpaceLeases
from connectors.source import Fetched, PageSource
from connectors.state import SyncPage, SyncSpace, utcnow
from connectors.times import parse_interval, parse_time
from core.access_store import AccessStore
from core.contextualize import ContextOptions
from core.db import session_factory
from core.index import EvidenceIndex, IndexReport
from core.pages import Page
from core.redact import redact_text
from core.settings import Settings, SettingsError

log = logging.getLogger(__name__)


def content_digest(page: Page) -> str:
    """SHA-256 of what a page's evidences are built from (id, space, title, url, body).

    Version, author, ancestors and labels are not in it: a change of those alone updates the
    page record without re-extracting or re-embedding.
    """
    parts = [page.id, page.space, page.title, page.url, page.body_format, page.body]
    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()


@dataclass
class SyncReport:
    """What one run did to one space.

    `added`/`updated`: pages (re-)indexed; `moved`: page records updated without
    re-indexing (a move, or a new version with the same content); `skipped`: read-restricted
    pages left out (`sync_skip_restricted`); `failed`: pages to retry next run; `error`: why
    the run stopped early, if it did.
    """

    space: str
    added: int = 0
    updated: int = 0
    moved: int = 0
    unchanged: int = 0
    deleted: int = 0
    skipped: int = 0
    failed: int = 0
    listed: bool = False
    seconds: float = 0.0
    failures: list[tuple[str, str]] = field(default_factory=list)
    error: str | None = None
    attachments: AttachmentCounts = field(default_factory=AttachmentCounts)

    def __post_init__(self) -> None:
        if isinstance(self.attachments, dict):  # a report read back from its JSON
            self.attachments = AttachmentCounts(**self.attachments)

    def summary(self) -> str:
        """One line for people."""
        line = (
            f"{self.space}: {self.added} added, {self.updated} updated, {self.deleted} deleted,"
            f" {self.skipped} skipped, {self.failed} failed"
            f" ({self.moved} moved, {self.unchanged} unchanged; {self.seconds:.1f} s)"
        )
        files = self.attachments
        if files.indexed or files.deleted or files.skipped or files.failed or files.unchanged:
            line += f"; {files.summary()}"
        return line + (f"; stopped early: {self.error}" if self.error else "")


class _Progress:
    """A pages-done/total bar on a terminal (tqdm), nothing otherwise."""

    def __init__(self, space: str, enabled: bool):
        self._bar = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(desc=space, unit="page", total=None, dynamic_ncols=True)

    def update(self, done: int, total: int | None = None) -> None:
        if self._bar is None:
            return
        if total is not None and total != self._bar.total:
            self._bar.total = total
            self._bar.refresh()
        self._bar.update(done)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class _Ticks:
    """Moves a progress display one page at a time and counts the pages it moved."""

    def __init__(self, bar: _Progress):
        self.bar = bar
        self.count = 0

    def __call__(self) -> None:
        self.count += 1
        self.bar.update(1)


@dataclass(frozen=True)
class _Plan:
    """What a run of a space reads: every page (`full`) or the changes `since` the cursor,
    after the pages that failed before (`retry`); `reformatted`: a full run forced because
    the space was indexed with another index format, embedder or context options."""

    full: bool
    since: datetime | None
    retry: list[str]
    reformatted: bool
    fingerprint: str
    """The index's fingerprint now (recorded once a full run has listed the space)."""


class SpaceSync:
    """Runs syncs of spaces from one source into one index (one instance per run)."""

    def __init__(
        self,
        settings: Settings,
        index: EvidenceIndex,
        source: PageSource,
        stop: threading.Event | None = None,
    ):
        self.settings = settings
        self.index = index
        self.source = source
        self.options = ContextOptions.from_settings(settings)
        self.listing_every = parse_interval(settings.sync_listing_interval)
        self.sessions = session_factory(settings.sqlalchemy_url)
        self.stop = stop or threading.Event()
        self.leases = SpaceLeases(settings.sqlalchemy_url, parse_interval(settings.sync_lease))
        self.access = AccessStore(settings.sqlalchemy_url)
        self.fence: Lease | None = None
        """The lease of the running sync, which every index write carries."""
        self.attachments = attachment_sync(settings, index, source, self.sessions, self.options)
        self.comments = comment_reader(settings, source)
        self.includes = include_resolver(settings, source, self.sessions)
        self._including: set[str] = set()
        """Pages that include a page re-indexed in the current run (read again at its end)."""
        self._seen: set[str] = set()
        """Pages applied in the current run (comment changes re-read only the others)."""

    def run(self, space: str, full: bool = False, progress=False) -> SyncReport:
        """Sync one space; `full` re-reads and re-indexes every page and lists the space.
        `progress`: True for a tqdm bar, or an object with `update(done, total)` and
        `close()` (the display of `confbot sync`).

        Errors of the source (Confluence unreachable, retries exhausted) end the run early
        with `report.error` set; what was recorded before stays and the next run goes on.
        A space whose lease another worker holds is not synced (`report.error` says so).
        The lease is renewed by time while the run goes on; a run that loses it anyway (a
        stalled process) stops at its next write, which is refused, with LeaseLost.
        """
        started = time.monotonic()
        report = SyncReport(space)
        lease = self.leases.acquire(space)
        if lease is None:
            holder = self.leases.holder_of(space) or "another worker"
            report.error = f"not synced: {holder} is syncing space {space}"
            log.info("%s", report.error)
            return report
        self.fence = lease
        bar = _Progress(space, progress) if isinstance(progress, bool) else progress
        try:
            with lease.kept_renewed():
                self._repair()  # what a crashed writer left half written, first
                self._run(space, full, report, bar)
        except LeaseLost as exc:  # another worker syncs the space now: leave it to it
            log.warning("sync of space %s stopped: %s", space, exc)
            report.error = f"LeaseLost: {exc}"
        except Exception as exc:  # the source failed: keep what is recorded, report why
            log.exception("sync of space %s stopped", space)
            report.error = redact_text(f"{type(exc).__name__}: {exc}")
        finally:
            bar.close()
            lease.release()
        report.seconds = time.monotonic() - started
        with self.sessions() as db:
            state = db.get(SyncSpace, space)
            if state is not None:
                state.last_run_at = utcnow()
                state.last_report = json.dumps(dataclasses.asdict(report))
                db.commit()
        return report

    def _repair(self) -> None:
        """Repair the pages that writers which are gone left half written: this run's lease's
        earlier holders, crashed writers, writers whose lease lapsed; never the pages other
        live writers are writing."""
        self.index.repair_pending(fence=self.fence, alive=self.leases.alive)

    def run_pages(self, space: str, page_ids: Sequence[str]) -> SyncReport:
        """Read pages of `space` again by id now (queued by webhooks): an edit, a comment or
        an attachment is indexed, a page removed or moved to another space is dropped, and
        the pages that include an edited one are read again. Not run while another worker
        holds the space (`report.error` says so)."""
        started = time.monotonic()
        report = SyncReport(space)
        lease = self.leases.acquire(space)
        if lease is None:
            holder = self.leases.holder_of(space) or "another worker"
            report.error = f"not synced: {holder} is syncing space {space}"
            return report
        self.fence = lease
        try:
            with lease.kept_renewed():
                self._begin()
                self._repair()
                indexed = {i for i in self.index.page_ids(space) if not is_attachment_key(i)}
                self._refetch(space, list(page_ids), report, indexed, full=False)
                if self.attachments is not None:  # an upload leaves the page as it was
                    pages = [self.index.page(i) for i in page_ids if i in indexed]
                    due = [p for p in pages if p is not None and p.id not in self.attachments.done]
                    self.attachments.sync_pages(due, report.attachments, full=False)
                including = sorted((self._including & indexed) - self._seen)
                self._refetch(space, including, report, indexed, full=False)
        except LeaseLost as exc:  # another worker syncs the space now: the pages stay queued
            log.warning("sync of pages of space %s stopped: %s", space, exc)
            report.error = f"LeaseLost: {exc}"
        except Exception as exc:  # the source failed: the pages stay queued
            log.exception("sync of pages %s of space %s stopped", ", ".join(page_ids), space)
            report.error = redact_text(f"{type(exc).__name__}: {exc}")
        finally:
            lease.release()
        report.seconds = time.monotonic() - started
        return report

    def _begin(self) -> None:
        """Forget what the previous run of this instance saw."""
        self._seen.clear()
        self._including.clear()
        if self.attachments is not None:
            self.attachments.done.clear()
        if self.includes is not None:
            self.includes.clear()

    def pending(self, space: str, full: bool = False) -> int | None:
        """How many pages a run of `space` (`full` as for `run`) will read from the source:
        the pages that failed before and the changes since the cursor (every page on a
        full run), asked before it starts so a progress display has its total; None when
        the source cannot count them."""
        with self.sessions() as db:
            plan = self._plan(db, space, full)
        changes = self.source.count(space, plan.since)
        return None if changes is None else changes + len(plan.retry)

    def _plan(self, db: Session, space: str, full: bool) -> _Plan:
        """What a run of `space` reads, from its recorded state."""
        state = db.get(SyncSpace, space)
        cursor = state.cursor if state is not None else None
        fingerprint = self.index.fingerprint(self.options)
        reformatted = (state is None or state.fingerprint != fingerprint) and not full
        full = full or reformatted
        retry = db.scalars(
            select(SyncPage.page_id).where(SyncPage.space == space, SyncPage.error.is_not(None))
        )
        since = None if full else parse_time(cursor)
        return _Plan(full, since, list(retry), reformatted and cursor is not None, fingerprint)

    def _run(self, space: str, full: bool, report: SyncReport, bar: _Progress) -> None:
        self._begin()
        with self.sessions() as db:
            state = db.get(SyncSpace, space)
            if state is None:
                state = SyncSpace(space=space)
                db.add(state)
                db.commit()
            listed_at = state.listed_at
            plan = self._plan(db, space, full)
        if plan.reformatted:
            log.info(
                "space %s was indexed with another index format, embedder or context"
                " options; re-indexing every page",
                space,
            )
        full, since, retry = plan.full, plan.since, plan.retry
        indexed = {i for i in self.index.page_ids(space) if not is_attachment_key(i)}
        if retry:
            log.info("space %s: retrying %d page(s) that failed before", space, len(retry))
            self._refetch(space, retry, report, indexed, full)
            bar.update(len(retry))

        for batch in self.source.changes(space, since):
            if self.stop.is_set():
                report.error = "stopped"
                return
            total = batch.total + len(retry) if batch.total is not None else None
            bar.update(0, total)
            ticks = _Ticks(bar)  # page by page as each is embedded
            self._apply(space, batch.pages, batch.failures, report, indexed, full, True, ticks)
            bar.update(max(0, len(batch.pages) + len(batch.failures) - ticks.count))
        if self._including and not self.stop.is_set():
            self._refetch(
                space, sorted((self._including & indexed) - self._seen), report, indexed, full
            )
        if self.comments is not None and since is not None and not self.stop.is_set():
            commented = self.comments.changed_pages(space, since) & indexed
            self._refetch(space, sorted(commented - self._seen), report, indexed, full)
        if self.attachments is not None and since is not None and not self.stop.is_set():
            self.attachments.sync_changed(space, since, indexed, report.attachments, full)

        if listed_at is not None and listed_at.tzinfo is None:
            listed_at = listed_at.replace(tzinfo=UTC)  # SQLite drops the offset
        due = (
            self.source.cheap_listing
            or listed_at is None
            or utcnow() - listed_at >= self.listing_every
        )
        if (full or due) and not self.stop.is_set():
            self._reconcile(space, report, indexed, full)
        if not self.stop.is_set():
            self._record_permissions(space)
        if full and report.listed and report.error is None:
            self.index.remove_orphans(space, self.fence)
            with self.sessions() as db:
                db.get(SyncSpace, space).fingerprint = plan.fingerprint
                db.commit()

    def _apply(
        self,
        space: str,
        fetched: Sequence[Fetched],
        failures: Sequence[tuple[str, str]],
        report: SyncReport,
        indexed: set[str],
        full: bool,
        cursor: bool = False,
        tick: Callable[[], None] | None = None,
    ) -> None:
        """Index one batch, then record its pages (and the cursor) in one transaction.
        `tick` is called once per page of `fetched` as its work is done (unchanged,
        skipped, or embedded for the index), for a progress display."""
        tick = tick or (lambda: None)
        self.fence.check()  # raises LeaseLost, which stops the run, if it lapsed
        if self.comments is not None:
            fetched, unread = self.comments.with_comments(fetched)
            failures = [*failures, *unread]
        uses: dict[str, set[str]] = {}
        if self.includes is not None:
            fetched, uses = self.includes.with_includes(fetched)
        ids = [f.page.id for f in fetched] + [page_id for page_id, _ in failures]
        self._seen.update(ids)
        with self.sessions() as db:
            rows = {
                r.page_id: r for r in db.scalars(select(SyncPage).where(SyncPage.page_id.in_(ids)))
            }

            def row_for(page_id: str) -> SyncPage:
                if page_id not in rows:
                    rows[page_id] = SyncPage(page_id=page_id, space=space, attempts=0)
                    db.add(rows[page_id])
                return rows[page_id]

            # who may read them, before their evidences can be found
            self.access.save_pages(
                space, {f.page.id: f.access for f in fetched if f.access is not None}
            )
            to_index: list[tuple[Page, str]] = []
            restricted: list[str] = []
            for item in fetched:
                page, row = item.page, row_for(item.page.id)
                if item.restricted:
                    restricted.append(page.id)
                    if page.id in indexed:
                        self.index.delete_page(page.id, fence=self.fence)
                        indexed.discard(page.id)
                    _record(row, page, digest=None, restricted=True)
                    report.skipped += 1
                    tick()
                    continue
                digest = content_digest(page)
                if not full and row.error is None and row.digest == digest and page.id in indexed:
                    if (row.version, row.ancestor_ids, row.updated_at) != (
                        page.version,
                        page.ancestors,
                        page.updated_at,
                    ):
                        self.index.update_page_record(page, fence=self.fence)
                        report.moved += 1
                    else:
                        report.unchanged += 1
                    _record(row, page, digest=digest)
                    tick()
                    continue
                to_index.append((page, digest))

            result = (
                self.index.index_pages([p for p, _ in to_index], self.options, self.fence, tick)
                if to_index
                else IndexReport()
            )
            errors = dict(result.failed)
            written = [page for page, _ in to_index if page.id not in errors]
            for page, digest in to_index:
                row = rows[page.id]
                if page.id in errors:
                    _fail(row, errors[page.id], report)
                    continue
                if page.id in indexed:
                    report.updated += 1
                else:
                    report.added += 1
                    indexed.add(page.id)
                _record(row, page, digest=digest)
            for page_id, error in failures:
                _fail(row_for(page_id), error, report)

            if cursor:
                state = db.get(SyncSpace, space)
                times = [parse_time(f.page.updated_at) for f in fetched]
                newest = max((t for t in times if t is not None), default=None)
                if newest is not None:
                    current = parse_time(state.cursor)
                    if current is None or newest > current:
                        state.cursor = newest.isoformat()
            db.commit()
        if self.includes is not None:
            self.includes.record({i: used for i, used in uses.items() if i not in errors})
            self._including |= self.includes.including([page.id for page in written])
        if self.attachments is not None:
            # A page with read restrictions keeps its files out of the index: an attachment
            # is searched as a page of its own, which carries no restrictions (core.access).
            closed = {f.page.id for f in fetched if f.access is not None and f.access.restrictions}
            self.attachments.remove_pages([*restricted, *closed], report.attachments)
            open_pages = [page for page in written if page.id not in closed]
            self.attachments.sync_pages(open_pages, report.attachments, full)

    def _refetch(
        self, space: str, page_ids: Sequence[str], report: SyncReport, indexed: set[str], full: bool
    ) -> None:
        """Fetch pages by id and apply them; pages gone from the space are removed."""
        batch_size = max(1, self.settings.confluence_page_size)
        for start in range(0, len(page_ids), batch_size):
            if self.stop.is_set():
                return
            fetched, failures, gone = [], [], []
            for page_id in page_ids[start : start + batch_size]:
                try:
                    item = self.source.fetch(page_id)
                except Exception as exc:  # one page's failure never stops the sync
                    log.warning("page %s: fetch failed: %r; retried next run", page_id, exc)
                    failures.append((page_id, repr(exc)))
                    continue
                if item is None or item.page.space != space:
                    gone.append(page_id)  # deleted, or moved to a space whose sync adds it
                else:
                    fetched.append(item)
            self._remove(gone, report, indexed)
            self._apply(space, fetched, failures, report, indexed, full)

    def _remove(self, page_ids: Sequence[str], report: SyncReport, indexed: set[str]) -> None:
        """Remove pages from the index, then from the state."""
        if not page_ids:
            return
        for page_id in page_ids:
            self.index.delete_page(page_id, fence=self.fence)
            indexed.discard(page_id)
        if self.attachments is not None:
            self.attachments.remove_pages(page_ids, report.attachments)
        if self.includes is not None:
            self.includes.forget(page_ids)
        with self.sessions() as db:
            for row in db.scalars(select(SyncPage).where(SyncPage.page_id.in_(page_ids))):
                db.delete(row)
            db.commit()
        self.access.forget_pages(page_ids)
        report.deleted += len(page_ids)
        log.info("removed %d page(s): %s", len(page_ids), ", ".join(page_ids[:10]))

    def _reconcile(self, space: str, report: SyncReport, indexed: set[str], full: bool) -> None:
        """List the space: confirm and remove vanished pages, re-fetch edited or moved ones
        (after repairing pages a failed write left pending, so none outlives its deletion)."""
        self._repair()
        listed = self.source.listing(space)
        if hasattr(self.source, "listing_access"):
            accesses = self.source.listing_access(listed)
            changed = self.access.save_pages(space, accesses)
            if changed:
                log.info("space %s: the access of %d page(s) changed", space, changed)
            if self.attachments is not None:  # restricted since: their files go (see _apply)
                closed = [page_id for page_id, access in accesses.items() if access.restrictions]
                self.attachments.remove_pages(closed, report.attachments)
        with self.sessions() as db:
            rows = {
                r.page_id: r for r in db.scalars(select(SyncPage).where(SyncPage.space == space))
            }
        vanished = sorted((set(rows) | indexed) - set(listed))
        keep_restricted = self.settings.sync_skip_restricted

        def is_stale(row: SyncPage | None, item) -> bool:
            if row is None:
                return True
            if row.error is not None:
                return False  # retried at the start of each run
            return (
                row.version != item.version
                or row.ancestor_ids != item.ancestors
                or (row.restricted and not keep_restricted)
            )

        stale = sorted(i for i, item in listed.items() if is_stale(rows.get(i), item))
        if vanished or stale:
            log.info(
                "space %s listing: %d vanished, %d to re-fetch", space, len(vanished), len(stale)
            )
        self._refetch(space, vanished + stale, report, indexed, full)
        if self.attachments is not None and not self.stop.is_set():
            self.attachments.sync_changed(space, None, indexed, report.attachments, full)
        if self.stop.is_set():
            return
        with self.sessions() as db:
            db.get(SyncSpace, space).listed_at = utcnow()
            db.commit()
        report.listed = True

    def _record_permissions(self, space: str) -> None:
        """Record the space's view permission and the members of every group it or a page
        restriction of the space names (a source that knows permissions only). When they
        cannot be read, a space never recorded is recorded as readable by nobody (fail
        closed) and the run reports why; one recorded before keeps what it had."""
        if not hasattr(self.source, "space_access"):
            return
        ids = self.access.page_ids(space)
        groups = {
            p[len("group:") :]
            for page_id, access in self.access.table().pages.items()
            if page_id in ids
            for r in access.restrictions
            for p in r
            if p.startswith("group:")
        }
        try:
            readers, members, people = self.source.space_access(space, groups)
        except Exception:
            if space not in self.access.table().spaces:  # fail closed: nobody reads it yet
                self.access.save_space(space, ())
            raise
        self.access.save_space(space, readers)
        for name, users in members.items():
            self.access.save_members(name, users)
        self.access.save_accounts(people)


def _record(row: SyncPage, page: Page, digest: str | None, restricted: bool = False) -> None:
    """Write a processed page's state into its row."""
    row.space = page.space
    row.title = page.title
    row.version = page.version
    row.digest = digest
    row.ancestors = json.dumps(list(page.ancestors))
    row.updated_at = page.updated_at
    row.restricted = restricted
    row.error = None
    row.attempts = 0
    row.synced_at = utcnow()


def _fail(row: SyncPage, error: str, report: SyncReport) -> None:
    """Mark a page failed: it keeps whatever it had in the index and is retried next run.
    The error is stored and reported without credentials (`redact_text`)."""
    error = redact_text(error[:2000])
    row.error = error
    row.attempts = (row.attempts or 0) + 1
    row.synced_at = utcnow()
    report.failed += 1
    report.failures.append((row.page_id, error))


def make_source(settings: Settings, kind: str | None = None, path: str | None = None):
    """The page source the settings (or the arguments) name: confluence or files."""
    kind = kind or settings.sync_source
    if kind == "confluence":
        from connectors.confluence import ConfluenceSource

        return ConfluenceSource(settings)
    if kind == "files":
        from connectors.files import FilesSource
        from connectors.scope import scoped

        if scoped(settings):
            raise SettingsError(
                "CONFBOT_SYNC_LABELS, _EXCLUDE_LABELS, _ROOTS and _CQL apply to the confluence"
                f" source only (set for: {', '.join(scoped(settings))})"
            )
        return FilesSource(path or settings.require("sync_files_path"))
    raise SettingsError(f"CONFBOT_SYNC_SOURCE={kind!r} is not one of: confluence, files")


def spaces_to_sync(
    settings: Settings, source: PageSource, requested: Sequence[str] = ()
) -> list[str]:
    """The spaces asked for, else `sync_spaces`, else (files source) every space found."""
    spaces = list(requested) or list(settings.sync_spaces)
    if not spaces and hasattr(source, "spaces"):
        spaces = source.spaces()
    if not spaces:
        raise SettingsError("no spaces to sync: pass --space KEY or set CONFBOT_SYNC_SPACES")
    return spaces
