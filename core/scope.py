"""What one question may search when the place it is asked from narrows it: spaces, labels
(a page with any of them) and page trees (a root page and its descendants).

This is the query-time counterpart of the sync-time scopes (`connectors.scope`): a web
link-out (`/ask?space=ENG&label=runbook&root=12345`) or a Slack channel
(`slack_channel_scopes`) asks within it, over what the sync indexed. Permissions are not
part of it (`core.access.Scope` is): a page out of this scope is simply not searched, never
counted as withheld from the asker.

Labels and roots are matched against the page catalog (`core.store.PageEntry`: its labels
and ancestors), as a collection of the pages outside the scope that the retriever drops
from each retriever's list before fusion (`core.retrieve._readable`), so the top k is
filled from in-scope pages. A lookup is one dict probe and a set test per candidate.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from core.store import PageEntry

MAX_ITEMS = 20
"""At most this many spaces, labels or roots in one scope (a link or a setting)."""

SPACE = re.compile(r"[A-Za-z0-9_~.-]{1,255}")
LABEL = re.compile(r"[\w.:~+-]{1,255}")
"""Confluence labels: no spaces or commas; stored lower-case by Confluence."""
ROOT = re.compile(r"[A-Za-z0-9_~.-]{1,255}")
"""Page ids: numbers on Confluence, file stems for the files source."""

KINDS = {"space": "spaces", "label": "labels", "root": "roots"}
"""The prefixes of a scope's text form and the fields they fill."""


def _items(kind: str, values: Iterable[str], pattern: re.Pattern) -> frozenset[str]:
    found = [v.strip() for v in values if v and v.strip()]
    for value in found:
        if not pattern.fullmatch(value):
            raise ValueError(f"{kind} {value!r:.80} is not valid (letters, digits, _ ~ . -)")
    if len(set(found)) > MAX_ITEMS:
        raise ValueError(f"at most {MAX_ITEMS} of {kind} are allowed, got {len(set(found))}")
    return frozenset(found)


def split(values: str | Iterable[str] | None) -> list[str]:
    """Values given repeated, comma-separated, or both (`a,b` and `["a", "b,c"]`)."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for value in values:
        if not isinstance(value, str):
            raise ValueError(f"expected text, got {value!r:.80}")
        out.extend(v.strip() for v in value.split(",") if v.strip())
    return out


@dataclass(frozen=True)
class QueryScope:
    """The spaces, labels (any of; lower-case) and page-tree roots a question searches;
    an empty field does not narrow. `QueryScope()` searches everything."""

    spaces: frozenset[str] = frozenset()
    labels: frozenset[str] = frozenset()
    roots: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        spaces: Iterable[str] = (),
        labels: Iterable[str] = (),
        roots: Iterable[str] = (),
    ) -> QueryScope:
        """A validated scope (a `ValueError` saying what is wrong otherwise), labels
        lower-cased as Confluence stores them."""
        return cls(
            _items("space", spaces, SPACE),
            _items("label", (v.lower() for v in labels), LABEL),
            _items("root", roots, ROOT),
        )

    @classmethod
    def parse(cls, text: str) -> QueryScope:
        """The scope of `space:ENG,label:runbook,root:12345` (each prefix may repeat)."""
        found: dict[str, list[str]] = {"spaces": [], "labels": [], "roots": []}
        for item in split(text):
            kind, colon, value = item.partition(":")
            if not colon or kind.strip().lower() not in KINDS or not value.strip():
                raise ValueError(
                    f"{item!r:.80} is not space:KEY, label:NAME or root:PAGEID"
                    " (for example space:ENG,label:runbook,root:12345)"
                )
            found[KINDS[kind.strip().lower()]].append(value)
        return cls.of(**found)

    def __bool__(self) -> bool:
        return bool(self.spaces or self.labels or self.roots)

    def searchable(self, spaces: Collection[str] | None) -> Collection[str] | None:
        """The spaces to search: those asked (`None`: all) within this scope's."""
        if not self.spaces:
            return spaces
        return set(self.spaces) if spaces is None else set(spaces) & self.spaces

    def admits(self, entry: PageEntry) -> bool:
        """Whether an indexed page is in the scope (its space, a label, its tree)."""
        if self.spaces and entry.space not in self.spaces:
            return False
        if self.labels and self.labels.isdisjoint(label.lower() for label in entry.labels):
            return False
        if self.roots and entry.page_id not in self.roots:
            return not self.roots.isdisjoint(entry.ancestors)
        return True

    def outside(self, catalog: Mapping[str, PageEntry]) -> Collection[str]:
        """The pages of `catalog` out of the scope by label or tree (spaces are narrowed
        in the searches themselves); empty when neither narrows."""
        if not (self.labels or self.roots):
            return ()
        return OutsidePages(self, catalog)

    def to_json(self) -> dict[str, list[str]]:
        return {
            "spaces": sorted(self.spaces),
            "labels": sorted(self.labels),
            "roots": sorted(self.roots),
        }

    @classmethod
    def from_json(cls, value: Mapping | None) -> QueryScope:
        value = value or {}
        return cls.of(value.get("spaces", ()), value.get("labels", ()), value.get("roots", ()))


class OutsidePages(Collection[str]):
    """The pages of a catalog a `QueryScope` leaves out, as a set without building one; a
    page the catalog does not know (deleted since it was found) is out too."""

    def __init__(self, scope: QueryScope, catalog: Mapping[str, PageEntry]):
        self._scope = scope
        self._catalog = catalog

    def __contains__(self, page_id: object) -> bool:
        entry = self._catalog.get(page_id)  # type: ignore[call-overload]
        return entry is None or not self._scope.admits(entry)

    def __iter__(self):
        return (p for p, e in self._catalog.items() if not self._scope.admits(e))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return True  # it narrows, whatever it holds: `_readable` filters
