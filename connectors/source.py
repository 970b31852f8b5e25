"""What a page source hands to the sync, and the protocol both sources meet.

Two sources exist: `connectors.confluence.ConfluenceSource` (the REST API) and
`connectors.files.FilesSource` (a folder of exported pages).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from core.access import PageAccess
from core.pages import Page


@dataclass(frozen=True)
class Fetched:
    """A page with its body; whether the sync skips it for its read restrictions
    (`sync_skip_restricted`), and who may read it (`access`; None: the source knows no
    permissions, as the files source)."""

    page: Page
    restricted: bool = False
    access: PageAccess | None = None


@dataclass(frozen=True)
class Listed:
    """A page as a listing sees it: no body, enough to spot edits and moves."""

    id: str
    version: int
    title: str = ""
    ancestors: tuple[str, ...] = ()
    restriction: frozenset[str] | None = None
    """The page's own read restriction (principals), when the listing carries it."""


@dataclass
class Batch:
    """One response's worth of changed pages, oldest change first.

    `failures` are (page id, error) pairs for results that could not be turned into a
    `Page`; `total` is the source's estimate of all changes in this run, when it knows.
    """

    pages: list[Fetched]
    failures: list[tuple[str, str]] = field(default_factory=list)
    total: int | None = None


class PageSource(Protocol):
    """Where the sync reads pages from."""

    cheap_listing: bool
    """Whether `listing` costs next to nothing, so the sync lists (and drops deleted pages)
    on every run instead of every `sync_listing_interval`."""

    def changes(self, space: str, since: datetime | None) -> Iterator[Batch]:
        """Pages of `space` modified at or after `since` (all when None), oldest first."""
        ...

    def count(self, space: str, since: datetime | None) -> int | None:
        """How many pages `changes(space, since)` will yield, before it starts (for a
        progress display's total); None when the source cannot tell."""
        ...

    def fetch(self, page_id: str) -> Fetched | None:
        """One page by id, or None when it no longer exists."""
        ...

    def listing(self, space: str) -> dict[str, Listed]:
        """Every current page of `space`, by id."""
        ...
