"""The labels and page trees a web link-out narrows its questions to
(`/ask?space=ENG&label=runbook&root=12345`): read from the link or a request body, checked,
and described for the page's header.

Labels and roots may repeat or be comma-separated (`label=a,b&label=c`); labels are
lower-cased as Confluence stores them; a root must be an indexed page, else the request is
refused with a message naming it (a scope that matches nothing would answer nothing)."""

from __future__ import annotations

from collections.abc import Iterable

from core.index import EvidenceIndex
from core.pages import Page
from core.scope import QueryScope, split


def link_scope(
    labels: str | Iterable[str] | None, roots: str | Iterable[str] | None, index: EvidenceIndex
) -> tuple[QueryScope, list[Page]]:
    """The scope of a link's `label` and `root` values and the root pages, or a
    `ValueError` saying what is wrong."""
    within = QueryScope.of(labels=split(labels), roots=split(roots))
    pages = []
    for root in sorted(within.roots):
        found = index.page(root)
        if found is None:
            raise ValueError(
                f"root={root} is not an indexed page: give the id of a synced page"
                " (the number in its URL, /pages/<id>/), or leave root out"
            )
        pages.append(found)
    return within, pages


def scope_words(within: QueryScope, roots: list[Page]) -> str:
    """The scope in words for the page's header (plain text: the caller escapes it)."""
    parts = []
    if within.labels:
        parts.append("labelled " + " or ".join(sorted(within.labels)))
    if roots:
        parts.append("under " + " or ".join(p.title or p.id for p in roots))
    return ", ".join(parts)
