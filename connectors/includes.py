"""`include` and `excerpt-include` macros replaced by the included page's current text.

In storage format an include macro names a page (`ri:page ri:content-title`, with
`ri:space-key` when it is in another space) and holds none of its text: Confluence inserts
it when the page is viewed. Before a page is indexed, each include is replaced by the
included page's current storage body (for `excerpt-include`, the body of its `excerpt`
macro; nothing when it has none), resolved again inside what was included down to
`MAX_INCLUDE_DEPTH` levels; a page that includes itself, directly or through others, is
not included again (the macro keeps the page title, as before). An include that cannot be
resolved (no such page, or a restricted one) also keeps the title.

The including page's content digest covers the included text. Which pages include which is
recorded (`sync_includes`), and when an included page changes, the pages of the same space
that include it are read again in the same run, so they are re-indexed with its new text.
An include of a page in another space is resolved when the including page is read (an
edit, `confbot sync --full`).

Lookups: Confluence, a CQL search `space = "X" and title = "T"` (type page or blog post)
with the storage body; a folder of pages, its pages by space and title. Lookups are cached
for one run.
"""

from __future__ import annotations

import dataclasses
import html
import logging
import re
from collections.abc import Sequence

from sqlalchemy import delete, select

from connectors.source import Fetched
from connectors.state import SyncInclude
from core.settings import Settings

log = logging.getLogger(__name__)

MAX_INCLUDE_DEPTH = 3
"""Levels of includes resolved inside included text (Confluence renders about as deep)."""

_MACRO = re.compile(
    r"<ac:(?P<kind>structured-macro|macro)\b[^>]*?\bac:name=\"(?P<name>include|excerpt-include)\""
    r"[^>]*?(?:/>|>(?P<inner>.*?)</ac:(?P=kind)>)",
    re.S | re.I,
)
_PAGE_REF = re.compile(r"<ri:page\b([^>]*)/?>", re.S)
_ATTR = re.compile(r"(ri:[\w-]+)=\"([^\"]*)\"")
_EXCERPT = re.compile(r"<ac:structured-macro\b[^>]*?\bac:name=\"excerpt\"[^>]*>", re.S | re.I)
_BODY_TAG = re.compile(r"<(/?)ac:rich-text-body\b[^>]*>", re.S)


def included_pages(body: str, space: str) -> list[tuple[str, str, str]]:
    """The (macro name, space key, title) of each include macro of a storage body, the space
    defaulting to the page's own."""
    out = []
    for match in _MACRO.finditer(body):
        ref = _PAGE_REF.search(match.group("inner") or "")
        if ref is None:
            continue
        attrs = dict(_ATTR.findall(ref.group(1)))
        title = html.unescape(attrs.get("ri:content-title", ""))
        if title:
            key = html.unescape(attrs.get("ri:space-key", "")) or space
            out.append((match.group("name").lower(), key, title))
    return out


def excerpt(body: str) -> str:
    """The rich body of the first `excerpt` macro of a storage body ("" when none)."""
    start = _EXCERPT.search(body)
    if start is None:
        return ""
    depth, begin = 0, None
    for tag in _BODY_TAG.finditer(body, start.end()):
        if not tag.group(1):
            depth += 1
            if begin is None:
                begin = tag.end()
        else:
            depth -= 1
            if depth == 0 and begin is not None:
                return body[begin : tag.start()]
    return ""


class IncludeResolver:
    """Resolves the includes of pages for one run, with a lookup cache."""

    def __init__(self, lookup, sessions):
        self.lookup = lookup
        self.sessions = sessions
        self._cache: dict[tuple[str, str], tuple[str, str] | None] = {}

    def clear(self) -> None:
        """Forget the lookups (a new run reads included pages again)."""
        self._cache.clear()

    def _find(self, space: str, title: str) -> tuple[str, str] | None:
        """(page id, storage body) of a page by space and title, cached for the run."""
        key = (space, title)
        if key not in self._cache:
            try:
                self._cache[key] = self.lookup(space, title)
            except Exception as exc:  # an include that cannot be read keeps its title
                log.warning("included page %s/%s not read: %r", space, title, exc)
                self._cache[key] = None
        return self._cache[key]

    def resolve(self, body: str, space: str, chain: tuple[str, ...], used: set[str]) -> str:
        """`body` with its includes replaced (see the module docstring); `chain` is the ids
        of the pages being resolved, `used` collects the ids of the pages included."""

        def replace(match: re.Match) -> str:
            found = included_pages(match.group(0), space)
            if not found:
                return match.group(0)
            name, key, title = found[0]
            target = self._find(key, title)
            if target is None or target[0] in chain or len(chain) > MAX_INCLUDE_DEPTH:
                return match.group(0)
            page_id, text = target
            used.add(page_id)
            if name == "excerpt-include":
                text = excerpt(text)
            return self.resolve(text, key, (*chain, page_id), used)

        return _MACRO.sub(replace, body)

    def with_includes(self, fetched: Sequence[Fetched]) -> tuple[list[Fetched], dict]:
        """The pages with their includes resolved, and page id → ids of the pages it
        includes (for every storage-format page given)."""
        out: list[Fetched] = []
        uses: dict[str, set[str]] = {}
        for item in fetched:
            page = item.page
            if item.restricted or page.body_format != "storage":
                out.append(item)
                continue
            used: set[str] = set()
            if _MACRO.search(page.body):
                body = self.resolve(page.body, page.space, (page.id,), used)
                if body != page.body:
                    item = dataclasses.replace(item, page=dataclasses.replace(page, body=body))
            uses[page.id] = used
            out.append(item)
        return out, uses

    def record(self, uses: dict[str, set[str]]) -> None:
        """Replace the recorded includes of these pages."""
        if not uses:
            return
        with self.sessions() as db:
            db.execute(delete(SyncInclude).where(SyncInclude.page_id.in_(list(uses))))
            for page_id, included in uses.items():
                for included_id in sorted(included):
                    db.add(SyncInclude(page_id=page_id, included_id=included_id))
            db.commit()

    def including(self, page_ids: Sequence[str]) -> set[str]:
        """Ids of the pages that include any of these pages."""
        if not page_ids:
            return set()
        with self.sessions() as db:
            return set(
                db.scalars(
                    select(SyncInclude.page_id).where(SyncInclude.included_id.in_(list(page_ids)))
                )
            )

    def forget(self, page_ids: Sequence[str]) -> None:
        """Drop the recorded includes of pages removed from the index."""
        if page_ids:
            with self.sessions() as db:
                db.execute(delete(SyncInclude).where(SyncInclude.page_id.in_(list(page_ids))))
                db.commit()


def confluence_lookup(source):
    """Find a page by space and title through a `ConfluenceSource` (CQL search with the
    storage body). A page with read restrictions is not found: its text would be shown to
    the readers of the page that includes it (`core.access`), who may not read it."""
    from connectors.confluence import CONTENT_EXPAND, cql_string, types_cql
    from connectors.permissions import content_restriction

    def lookup(space: str, title: str) -> tuple[str, str] | None:
        kinds = types_cql(source.types)
        cql = f"space = {cql_string(space)} and {kinds} and title = {cql_string(title)}"
        for data in source.client.search(cql, CONTENT_EXPAND, 5):
            for item in data.get("results") or []:
                if content_restriction(item):
                    return None
                return str(item["id"]), item["body"]["storage"]["value"]
            return None
        return None

    return lookup


def folder_lookup(source):
    """Find a page by space and title among a `FilesSource`'s pages."""

    def lookup(space: str, title: str) -> tuple[str, str] | None:
        for page in source.pages.values():
            if page.space == space and page.title == title and page.body_format == "storage":
                return page.id, page.body
        return None

    return lookup


def include_resolver(settings: Settings, source, sessions) -> IncludeResolver | None:
    """The include resolver of a run; None when `sync_includes` is off or the source is
    neither Confluence nor a folder."""
    from connectors.confluence import ConfluenceSource
    from connectors.files import FilesSource

    if not settings.sync_includes:
        return None
    if isinstance(source, ConfluenceSource):
        return IncludeResolver(confluence_lookup(source), sessions)
    if isinstance(source, FilesSource):
        return IncludeResolver(folder_lookup(source), sessions)
    return None
