"""Pages from a folder: ConfQuestions JSON files or a Confluence HTML export.

For demos, benchmarks and air-gapped use. Every `*.json` and `*.html` file under the folder
is read (recursively):
- JSON in the ConfQuestions format: keys `id`, `title`, `url`, `space`, `date`, `content`
  (the page body, storage-format markup), optionally `body_format`, `version`, `author`.
  The page id is the number in the url's `/pages/<id>/` when present, else the file's `id`.
- Confluence HTML export pages (body_format `view`): the title from `#title-text` (else
  `<title>`) without its "Space name : " prefix, the body from `#main-content`, the page id
  from the file name (`Title_12345.html` or `12345.html`), the space from the folder name,
  the ancestors from the breadcrumb links. The export's `index.html` is a generated page
  list, not a page, and is skipped.

Each file is isolated like a Confluence page: one that cannot be read (not UTF-8, JSON
nested 100,000 deep, `"version": Infinity`, a version past `MAX_VERSION`, a file over
`MAX_FILE_BYTES`) is skipped with one short line in the log and the report (its error cut
to `MAX_ERROR_CHARS`, never the file's content), and the run goes on: the other files are
indexed and pages whose files are gone are deleted. The folder is read again on every sync
run, so edits, new files and deletions are seen without a restart.
A file without a version is version 1; either way the sync tells edits apart by a digest
of the content.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from lxml import etree, html

from connectors.source import Batch, Fetched, Listed
from core.bounds import ascii_int
from core.pages import Page

log = logging.getLogger(__name__)

_PAGE_ID_IN_URL = re.compile(r"/pages/(\d+)(?:/|$)")
_PAGE_ID_IN_NAME = re.compile(r"(?:^|_)(\d+)$")
MAX_VERSION = 2**31 - 1
"""Largest page version (the sync state's `version` column is a 32-bit integer; Confluence
versions count edits)."""
MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest file read: far above any real page (the hostile-page benchmark indexes 5 MB
pages), small enough that one file cannot exhaust memory."""
MAX_ERROR_CHARS = 300
"""Characters of a file's error kept for the log and the report."""


class UnreadableFile(ValueError):
    """A file that is no page: its message says why in a short line."""


def _version(value) -> int:
    """A page version: an integer (or integral number, or ASCII digits) 1..`MAX_VERSION`."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return ascii_int(value, 1, MAX_VERSION, "version")


def json_page(path: Path) -> Page:
    """A page from one ConfQuestions JSON file (raises ValueError or KeyError when malformed)."""
    record = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    url = str(record.get("url") or "")
    match = _PAGE_ID_IN_URL.search(url)
    page_id = match.group(1) if match else str(record["id"])
    return Page(
        id=page_id,
        space=str(record["space"]),
        title=str(record["title"]),
        url=url,
        body=str(record["content"]),
        body_format=record.get("body_format") or "storage",
        version=_version(record.get("version") or 1),
        updated_at=str(record.get("date") or ""),
        author=str(record.get("author") or ""),
    )


def html_export_page(path: Path) -> Page:
    """A page from one Confluence HTML export file (raises ValueError when it has no body)."""
    document = html.fromstring(path.read_bytes())
    main = document.get_element_by_id("main-content", None)
    if main is None:
        raise ValueError("no #main-content element")
    crumbs = document.xpath('//*[@id="breadcrumbs"]//a')
    space_name = crumbs[0].text_content().strip() if crumbs else ""
    heading = document.get_element_by_id("title-text", None)
    title_el = heading if heading is not None else document.find(".//title")
    title = " ".join((title_el.text_content() if title_el is not None else "").split())
    if space_name and title.startswith(f"{space_name} : "):
        title = title[len(space_name) + 3 :]
    ancestors = []
    for link in crumbs[1:]:
        match = _PAGE_ID_IN_NAME.search(Path(link.get("href", "")).stem)
        if match:
            ancestors.append(match.group(1))
    match = _PAGE_ID_IN_NAME.search(path.stem)
    return Page(
        id=match.group(1) if match else path.stem,
        space=path.parent.name,
        title=title or path.stem,
        url=path.resolve().as_uri(),
        body=etree.tostring(main, encoding="unicode", method="html"),
        body_format="view",
        ancestors=tuple(ancestors),
    )


def read_page(path: Path) -> Page:
    """A page from a JSON or HTML file, by extension; `UnreadableFile` with a short reason
    when it is none (whatever went wrong, the file's content is never in the message)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise UnreadableFile(f"{size} bytes, over the {MAX_FILE_BYTES} a page file may have")
        if path.suffix.lower() == ".json":
            return json_page(path)
        return html_export_page(path)
    except UnreadableFile:
        raise
    except Exception as exc:  # one file never stops the others (RecursionError included)
        raise UnreadableFile(_short(exc)) from None


def _short(exc: BaseException) -> str:
    """An error in one short line: its type and the start of its message (`repr` of a
    decoding error holds the whole file)."""
    if isinstance(exc, UnicodeDecodeError):
        return f"UnicodeDecodeError: not {exc.encoding} at byte {exc.start}"
    message = " ".join(str(exc).split())
    if len(message) > MAX_ERROR_CHARS:
        message = message[:MAX_ERROR_CHARS] + "…"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


BATCH_PAGES = 10
"""Pages per batch of a files source: each batch is indexed and recorded in one go, so a
sync of a large folder shows progress (and keeps its work) every few pages."""


class FilesSource:
    """Every page in a folder. The folder is read again at the start of each run's changes,
    so a long-lived source (the worker's) sees files edited, added and deleted since, and a
    page fetched by id is read again from its file."""

    cheap_listing = True  # the folder is read anyway: drop deleted pages on every run

    def __init__(self, folder: str | Path):
        self.folder = Path(folder).expanduser()
        if not self.folder.is_dir():
            raise FileNotFoundError(f"no such folder: {self.folder}")
        self.pages: dict[str, Page] = {}
        self.failures: list[tuple[str, str]] = []
        """(file name, error) for files that could not be read."""
        self._paths: dict[str, Path] = {}
        self._warned: set[tuple[str, str]] = set()
        """(path, problem) pairs warned of: each scan reads the folder again, each problem
        is logged once."""
        self.scan()

    def scan(self) -> None:
        """Read every page file of the folder (again)."""
        pages: dict[str, Page] = {}
        paths: dict[str, Path] = {}
        failures: list[tuple[str, str]] = []
        files = [
            p
            for p in sorted(self.folder.rglob("*"))
            if p.suffix.lower() in (".json", ".html", ".htm")
            and p.name.lower() != "index.html"
            and "attachments" not in p.relative_to(self.folder).parts[:-1]  # attached files
        ]
        for path in files:
            try:
                page = read_page(path)
            except UnreadableFile as exc:
                failures.append((path.name, str(exc)))
                self._warn(path, str(exc))
                continue
            if page.id in pages:
                failures.append((path.name, f"duplicate page id {page.id}"))
                self._warn(path, f"page id {page.id} also in another file")
                continue
            pages[page.id] = page
            paths[page.id] = path
        self.pages, self._paths, self.failures = pages, paths, failures

    def _warn(self, path: Path, problem: str) -> None:
        if (str(path), problem) not in self._warned:
            self._warned.add((str(path), problem))
            log.warning("%s skipped: %s", path, problem)

    def spaces(self) -> list[str]:
        """The spaces that have pages, sorted."""
        return sorted({p.space for p in self.pages.values()})

    def changes(self, space: str, since: datetime | None) -> Iterator[Batch]:
        """Every page of `space` as the folder holds it now (files carry no reliable
        modification time), in batches of `BATCH_PAGES` (a progress display moves with
        each), each with the space's total."""
        self.scan()
        pages = [Fetched(p) for p in self.pages.values() if p.space == space]
        for start in range(0, len(pages), BATCH_PAGES):
            yield Batch(pages=pages[start : start + BATCH_PAGES], total=len(pages))

    def count(self, space: str, since: datetime | None) -> int | None:
        """How many pages `changes` will yield: every page of `space` the folder held when
        it was last read."""
        return sum(1 for p in self.pages.values() if p.space == space)

    def fetch(self, page_id: str) -> Fetched | None:
        """One page by id, read again from its file; None when no file holds it now."""
        path = self._paths.get(page_id)
        if path is None or not path.is_file():
            return None
        page = read_page(path)
        return Fetched(page) if page.id == page_id else None

    def listing(self, space: str) -> dict[str, Listed]:
        """Every page of `space` as of the last read of the folder, by id."""
        return {
            p.id: Listed(id=p.id, version=p.version, title=p.title, ancestors=p.ancestors)
            for p in self.pages.values()
            if p.space == space
        }
