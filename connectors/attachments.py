"""Attachments of synced pages: listed, downloaded, read and indexed as evidence of their own.

Each attachment is indexed as one or more pages of the index (`attachment_key`: one per part
of a long file, see `core.documents`) titled "FILE (attached to PAGE)", linked to the file,
in its page's space and below its page in the tree. So an answer cites the file itself, and
a space or page-tree scope that covers the page covers its attachments.

What is read: the kinds of `attachment_types` up to `attachment_max_mb`. Other files (images,
archives) are recorded as ignored; a file too large, broken, password-protected or a scan
without a text layer is recorded as skipped with the reason, logged, and counted in the sync
report (never silently empty). A download that fails is retried on the next run.

When: the attachments of a page are listed when the page is (re-)indexed, when the source
reports attachment changes in its space since the cursor (Confluence: a CQL search for
`type = attachment`), and, for every page that has or had attachments, when the space is
listed (`sync_listing_interval`), which is how an attachment deleted alone is seen. A
version already read is not downloaded again. A page removed from the index (deleted,
restricted, out of scope) takes its attachments with it.

Sources:
- Confluence Cloud: `GET api/v2/pages/{id}/attachments` (paged by `_links.next`; a 404
  means a blog post: `GET api/v2/blogposts/{id}/attachments`);
- Confluence Data Center: `GET rest/api/content/{id}/child/attachment?expand=version`
  (paged by `start`/`limit`);
- both: `GET rest/api/content/search?cql=space = "X" and type = attachment ...` for changes,
  and the file from its `download` link, streamed through the library's signed-in session;
- files source: `attachments/<page id>/<file>` folders anywhere under the folder (the layout
  of a Confluence HTML export).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin

from sqlalchemy import select

from connectors.state import SyncAttachment, utcnow
from core.contextualize import ContextOptions
from core.documents import KINDS, DocumentError, document_kind, read_document
from core.index import EvidenceIndex
from core.pages import Page
from core.settings import Settings, SettingsError

log = logging.getLogger(__name__)

KEY_PREFIX = "attachment:"
ATTACHMENT_PAGE_SIZE = 50
DOWNLOAD_CHUNK = 1 << 16
WRITE_PARTS = 32
"""Parts of a page's files read before they are indexed in one write (more costs memory:
a part holds up to about 150 evidences)."""


def attachment_key(attachment_id: str, part: int = 1) -> str:
    """The index page id of part `part` (from 1) of an attachment."""
    return f"{KEY_PREFIX}{attachment_id}" + (f"/p{part}" if part > 1 else "")


def is_attachment_key(page_id: str) -> bool:
    """Whether an index page id is an attachment's (not a wiki page's)."""
    return page_id.startswith(KEY_PREFIX)


@dataclass(frozen=True)
class Attachment:
    """One attachment as a source lists it. `version` changes with every new upload;
    `url` is the link to the file that citations show; `download` what is fetched."""

    id: str
    page_id: str
    title: str
    media_type: str = ""
    size: int = 0
    version: str = "1"
    url: str = ""
    download: str = ""
    updated_at: str = ""
    author: str = ""


class TooLarge(Exception):
    """A download that passed the size limit."""


# ---------------------------------------------------------------------- Confluence
def attachment_from_v2(item: dict[str, Any], page_id: str, base: str) -> Attachment:
    """An `Attachment` from a REST v2 attachment (`GET api/v2/pages/{id}/attachments`)."""
    version = item.get("version") or {}
    link = item.get("downloadLink") or (item.get("_links") or {}).get("download", "")
    return Attachment(
        id=str(item["id"]),
        page_id=str(item.get("pageId") or page_id),
        title=item["title"],
        media_type=item.get("mediaType") or "",
        size=int(item.get("fileSize") or 0),
        version=str(version.get("number", 1)),
        url=_absolute(base, link),
        download=_absolute(base, link),
        updated_at=version.get("createdAt") or item.get("createdAt") or "",
        author=version.get("authorId") or "",
    )


def attachment_from_v1(item: dict[str, Any], page_id: str, base: str) -> Attachment:
    """An `Attachment` from a REST v1 attachment content object (`child/attachment`)."""
    version = item.get("version") or {}
    by = version.get("by") or {}
    extensions = item.get("extensions") or {}
    metadata = item.get("metadata") or {}
    link = (item.get("_links") or {}).get("download", "")
    return Attachment(
        id=str(item["id"]),
        page_id=page_id,
        title=item["title"],
        media_type=extensions.get("mediaType") or metadata.get("mediaType") or "",
        size=int(extensions.get("fileSize") or 0),
        version=str(version.get("number", 1)),
        url=_absolute(base, link),
        download=_absolute(base, link),
        updated_at=version.get("when", ""),
        author=by.get("displayName") or by.get("username") or by.get("accountId") or "",
    )


def _absolute(base: str, link: str) -> str:
    """A `_links` path (relative to the site's base URL, context included) made absolute."""
    if not link or re.match(r"^https?://", link):
        return link
    return base.rstrip("/") + "/" + link.lstrip("/")


def attachments_cql(space: str, since: datetime | None) -> str:
    """CQL for the attachments of `space` changed at or after `since` (all when None)."""
    from connectors.confluence import cql_date, cql_string

    cql = f"space = {cql_string(space)} and type = attachment"
    if since is not None:
        cql += f" and lastmodified >= {cql_string(cql_date(since))}"
    return cql + " order by lastmodified asc"


class ConfluenceAttachments:
    """Attachments through a `connectors.confluence.ConfluenceClient`: REST v2 on Cloud,
    v1 on Data Center."""

    def __init__(self, client, overlap: timedelta):
        self.client = client
        self.overlap = overlap

    def attachments(self, page_id: str) -> list[Attachment]:
        """Every current attachment of a page."""
        return self._v2(page_id) if self.client.cloud else self._v1(page_id)

    def _v2(self, page_id: str) -> list[Attachment]:
        path: str = f"api/v2/pages/{page_id}/attachments"
        params: dict[str, Any] | None = {"limit": ATTACHMENT_PAGE_SIZE}
        out: list[Attachment] = []
        while True:
            data = self.client.get_json(path, params)
            if data is None and path.startswith("api/v2/pages/"):  # 404: a blog post
                path = f"api/v2/blogposts/{page_id}/attachments"
                data = self.client.get_json(path, params)
            data = data or {}
            links = data.get("_links") or {}
            base = links.get("base") or self.client.url
            out.extend(attachment_from_v2(i, page_id, base) for i in data.get("results") or [])
            if not links.get("next") or not data.get("results"):
                return out
            path, params = self.client._relative(links["next"], ""), None

    def _v1(self, page_id: str) -> list[Attachment]:
        path = f"rest/api/content/{page_id}/child/attachment"
        out: list[Attachment] = []
        start = 0
        while True:
            params = {"expand": "version", "start": start, "limit": ATTACHMENT_PAGE_SIZE}
            data = self.client.get_json(path, params) or {}
            results = data.get("results") or []
            base = (data.get("_links") or {}).get("base") or self.client.url
            out.extend(attachment_from_v1(i, page_id, base) for i in results)
            if len(results) < int(data.get("limit") or ATTACHMENT_PAGE_SIZE):
                return out
            start += len(results)

    def attachment_pages(self, space: str, since: datetime | None) -> set[str]:
        """Ids of the pages of `space` with attachments changed since `since` (minus the
        sync's overlap window), or with any attachment when `since` is None."""
        cql = attachments_cql(space, since - self.overlap if since is not None else None)
        return self.client.container_ids(cql)

    def fetch(self, attachment: Attachment, max_bytes: int) -> bytes:
        """The file's bytes, streamed through the library's signed-in session; `TooLarge`
        past `max_bytes`."""
        session = self.client.api.session
        url = urljoin(self.client.url + "/", attachment.download)
        with session.get(url, stream=True, timeout=self.client.api.timeout) as response:
            if response.status_code >= 400:
                raise OSError(f"GET {attachment.download}: HTTP {response.status_code}")
            return _read_bounded(response.iter_content(DOWNLOAD_CHUNK), max_bytes)


def _read_bounded(chunks: Iterator[bytes], max_bytes: int) -> bytes:
    data = bytearray()
    for chunk in chunks:
        data.extend(chunk)
        if len(data) > max_bytes:
            raise TooLarge(f"larger than {max_bytes} bytes")
    return bytes(data)


# ---------------------------------------------------------------------- files source
class FolderAttachments:
    """Attachments in a folder of pages: the files of every `attachments/<page id>/`
    folder under it. An attachment's id is `<page id>/<file name>`; its version its size and
    modification time."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _files(self) -> dict[str, list[Path]]:
        found: dict[str, list[Path]] = {}
        for path in sorted(self.folder.rglob("attachments/*/*")):
            if path.is_file():
                found.setdefault(path.parent.name, []).append(path)
        return found

    def attachments(self, page_id: str) -> list[Attachment]:
        """The files in the page's attachment folders."""
        out = []
        for path in self._files().get(page_id, []):
            stat = path.stat()
            modified = datetime.fromtimestamp(stat.st_mtime, UTC)
            out.append(
                Attachment(
                    id=f"{page_id}/{path.name}",
                    page_id=page_id,
                    title=path.name,
                    size=stat.st_size,
                    version=f"{stat.st_size}-{stat.st_mtime_ns}",
                    url=path.resolve().as_uri(),
                    download=str(path),
                    updated_at=modified.isoformat(),
                )
            )
        return out

    def attachment_pages(self, space: str, since: datetime | None) -> set[str]:
        """Every page id that has an attachment folder (listing them costs next to nothing)."""
        return set(self._files())

    def fetch(self, attachment: Attachment, max_bytes: int) -> bytes:
        """The file's bytes; `TooLarge` past `max_bytes`."""
        path = Path(attachment.download)
        if path.stat().st_size > max_bytes:
            raise TooLarge(f"larger than {max_bytes} bytes")
        return path.read_bytes()


def attachment_reader(source) -> ConfluenceAttachments | FolderAttachments | None:
    """What lists and fetches the attachments of a page source; None for sources without
    attachments."""
    from connectors.confluence import ConfluenceSource
    from connectors.files import FilesSource

    if isinstance(source, ConfluenceSource):
        return ConfluenceAttachments(source.client, source.overlap)
    if isinstance(source, FilesSource):
        return FolderAttachments(source.folder)
    return None


# ---------------------------------------------------------------------- sync
@dataclass
class AttachmentCounts:
    """What one run did to attachments; `problems` are (file, reason) of skipped or failed
    ones, for the report."""

    indexed: int = 0
    unchanged: int = 0
    deleted: int = 0
    skipped: int = 0
    ignored: int = 0
    failed: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"attachments: {self.indexed} indexed, {self.deleted} deleted, {self.skipped}"
            f" skipped, {self.failed} failed ({self.unchanged} unchanged, {self.ignored}"
            " of types not read)"
        )


class AttachmentSync:
    """Keeps the index's attachments in step with the pages of one sync run."""

    def __init__(
        self,
        settings: Settings,
        index: EvidenceIndex,
        reader: ConfluenceAttachments | FolderAttachments,
        sessions,
        options: ContextOptions,
    ):
        unknown = sorted(set(settings.attachment_types) - set(KINDS))
        if unknown:
            raise SettingsError(
                f"CONFBOT_ATTACHMENT_TYPES: unknown kind(s) {', '.join(unknown)}; choose from:"
                f" {', '.join(KINDS)}"
            )
        self.kinds = set(settings.attachment_types)
        self.max_bytes = int(settings.attachment_max_mb * 1024 * 1024)
        self.index = index
        self.reader = reader
        self.sessions = sessions
        self.options = options
        self.done: set[str] = set()
        """Pages whose attachments this run has synced."""

    def sync_pages(self, pages: Sequence[Page], counts: AttachmentCounts, full: bool) -> None:
        """Sync the attachments of pages just (re-)indexed; `full` reads every file again."""
        for page in pages:
            self._sync_page(page, counts, full)

    def sync_changed(
        self,
        space: str,
        since: datetime | None,
        indexed: Collection[str],
        counts: AttachmentCounts,
        full: bool,
    ) -> None:
        """Sync the attachments of indexed pages whose attachments the source reports
        changed since `since`; with `since` None (a listing), also of every page with
        recorded attachments, and drop those of pages no longer indexed."""
        pages = self.reader.attachment_pages(space, since)
        if since is None:
            with self.sessions() as db:
                recorded = set(
                    db.scalars(select(SyncAttachment.page_id).where(SyncAttachment.space == space))
                )
            self.remove_pages(sorted(recorded - set(indexed)), counts)
            pages |= recorded
        for page_id in sorted(pages):
            if page_id in self.done or page_id not in indexed:
                continue
            page = self.index.page(page_id)
            if page is not None:
                self._sync_page(page, counts, full)

    def remove_pages(self, page_ids: Sequence[str], counts: AttachmentCounts) -> None:
        """Remove the attachments of pages from the index and the state."""
        if not page_ids:
            return
        with self.sessions() as db:
            rows = list(
                db.scalars(select(SyncAttachment).where(SyncAttachment.page_id.in_(page_ids)))
            )
            for row in rows:
                self._drop_parts(row.attachment_id, row.parts, keep=0)
                db.delete(row)
                counts.deleted += row.status == "indexed"
            db.commit()

    def _sync_page(self, page: Page, counts: AttachmentCounts, full: bool) -> None:
        self.done.add(page.id)
        try:
            listed = self.reader.attachments(page.id)
        except Exception as exc:  # one page's listing never stops the sync
            log.warning("attachments of page %s not listed: %r", page.id, exc)
            counts.failed += 1
            counts.problems.append((f"attachments of page {page.id}", repr(exc)))
            return
        with self.sessions() as db:
            rows = {
                r.attachment_id: r
                for r in db.scalars(select(SyncAttachment).where(SyncAttachment.page_id == page.id))
            }
            for gone in sorted(set(rows) - {a.id for a in listed}):
                row = rows.pop(gone)
                self._drop_parts(row.attachment_id, row.parts, keep=0)
                counts.deleted += row.status == "indexed"
                db.delete(row)
            read: list[tuple[Attachment, SyncAttachment, list[Page]]] = []
            for attachment in listed:
                row = rows.get(attachment.id)
                if row is None:
                    row = SyncAttachment(attachment_id=attachment.id, parts=0)
                    db.add(row)
                same = (row.version, row.title, row.page_title) == (
                    attachment.version,
                    attachment.title,
                    page.title,
                )
                if same and not full and row.status != "failed":
                    counts.unchanged += 1
                    continue
                parts = self._read(attachment, page, row, counts)
                if parts is not None:
                    read.append((attachment, row, parts))
                if sum(len(p) for _, _, p in read) >= WRITE_PARTS:
                    self._index(read, counts)
                    db.commit()  # the files' state as soon as their evidences are written
                    read = []
            self._index(read, counts)
            db.commit()

    def _read(
        self, attachment: Attachment, page: Page, row: SyncAttachment, counts: AttachmentCounts
    ) -> list[Page] | None:
        """Download and read one attachment: its parts as index pages, or None when it is
        not to be indexed (recorded in `row` as ignored, skipped or failed)."""
        row.page_id, row.space, row.title = page.id, page.space, attachment.title
        row.page_title, row.size, row.synced_at = page.title, attachment.size, utcnow()
        row.version, row.note = attachment.version, None
        kind = document_kind(attachment.title, attachment.media_type)
        if kind is None or kind not in self.kinds:
            row.status = "ignored"
            self._drop_parts(attachment.id, row.parts, keep=0)
            row.parts = 0
            counts.ignored += 1
            return None
        try:
            if attachment.size > self.max_bytes:
                raise TooLarge(f"{attachment.size} bytes")
            data = self.reader.fetch(attachment, self.max_bytes)
            document = read_document(attachment.title, data, attachment.media_type)
        except (TooLarge, DocumentError) as exc:
            reason = (
                f"larger than attachment_max_mb ({exc})" if isinstance(exc, TooLarge) else str(exc)
            )
            self._skip(attachment, page, row, reason, counts)
            return None
        except Exception as exc:  # a failed download: read again next run
            log.warning(
                "attachment %s of page %s: %r; retried next run", attachment.title, page.id, exc
            )
            self._fail(attachment, row, repr(exc), counts)
            return None
        for warning in document.warnings:
            log.warning("attachment %s of page %s: %s", attachment.title, page.id, warning)
        return [_part_page(attachment, page, n, body) for n, body in enumerate(document.parts, 1)]

    def _index(
        self, read: list[tuple[Attachment, SyncAttachment, list[Page]]], counts: AttachmentCounts
    ) -> None:
        """Index the parts of the files read in one write (one embedding batch, one vector
        write: 100 files written one by one cost 100 of each); a file with a part that
        failed is recorded failed (read again next run), the others indexed."""
        pages = [part for _, _, parts in read for part in parts]
        report = self.index.index_pages(pages, self.options) if pages else None
        failed = dict(report.failed) if report else {}
        for attachment, row, parts in read:
            reasons = [failed[p.id] for p in parts if p.id in failed]
            if reasons:
                row.parts = max(row.parts or 0, len(parts))  # the parts written go next time
                self._fail(attachment, row, "; ".join(reasons), counts)
                continue
            self._drop_parts(attachment.id, row.parts, keep=len(parts))
            row.status, row.parts = "indexed", len(parts)
            counts.indexed += 1
            if not parts:
                row.note = "the file has no text"

    @staticmethod
    def _fail(
        attachment: Attachment, row: SyncAttachment, reason: str, counts: AttachmentCounts
    ) -> None:
        """Record a file that failed for now: read again next run."""
        row.status, row.note, row.version = "failed", reason[:2000], None
        counts.failed += 1
        counts.problems.append((attachment.title, reason))

    def _skip(
        self,
        attachment: Attachment,
        page: Page,
        row: SyncAttachment,
        reason: str,
        counts: AttachmentCounts,
    ) -> None:
        """Record a file that cannot be read (this version is not read again)."""
        log.warning("attachment %s of page %s skipped: %s", attachment.title, page.id, reason)
        self._drop_parts(attachment.id, row.parts, keep=0)
        row.status, row.note, row.parts = "skipped", reason[:2000], 0
        counts.skipped += 1
        counts.problems.append((attachment.title, reason))

    def _drop_parts(self, attachment_id: str, parts: int, keep: int) -> None:
        """Remove parts `keep + 1` to `parts` of an attachment from the index."""
        for part in range(keep + 1, (parts or 0) + 1):
            self.index.delete_page(attachment_key(attachment_id, part))


def _part_page(attachment: Attachment, page: Page, part: int, body: str) -> Page:
    """Part `part` of an attachment as an index page: cited as the file, attached to its
    page, in the page's space and below it in the page tree."""
    version = int(attachment.version) if attachment.version.isdigit() else 1
    return Page(
        id=attachment_key(attachment.id, part),
        space=page.space,
        title=f"{attachment.title} (attached to {page.title})",
        url=attachment.url or quote(attachment.title),
        body=body,
        body_format="view",
        version=version,
        updated_at=attachment.updated_at,
        author=attachment.author,
        ancestors=(*page.ancestors, page.id),
        labels=("attachment",),
    )


def attachment_sync(
    settings: Settings, index: EvidenceIndex, source, sessions, options: ContextOptions
) -> AttachmentSync | None:
    """The attachment sync of a run, or None when `sync_attachments` is off or the source
    has no attachments."""
    if not settings.sync_attachments:
        return None
    reader = attachment_reader(source)
    if reader is None:
        return None
    return AttachmentSync(settings, index, reader, sessions, options)
