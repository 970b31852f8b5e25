"""Pages' evidences for tests of what is read from the store after retrieval
(`core.page_parts`): a builder of a page's evidence and a store that gives a page's
evidences in page order, as `core.index.EvidenceIndex` does, counting its reads."""

from __future__ import annotations

from collections.abc import Sequence

from core.pages import Evidence, EvidenceKind


def page_evidence(
    position: int,
    text: str,
    page: str = "p1",
    title: str = "Page",
    heading: str = "",
    kind: EvidenceKind = "passage",
) -> Evidence:
    """An evidence (a passage unless `kind` says otherwise) at `position` on `page`."""
    return Evidence(
        id=f"{page}#{position:04d}",
        page_id=page,
        space="S",
        url=f"https://wiki.example/{page}",
        title=title,
        heading=heading,
        kind=kind,
        position=position,
        text=text,
    )


class PageStore:
    """The evidences given, by page; `reads` counts the pages read."""

    def __init__(self, *evidences: Evidence) -> None:
        self.by_id = {e.id: e for e in evidences}
        self.reads = 0

    def page_evidence_ids(self, page_id: str) -> list[str]:
        """Ids of one page's evidences, in page order."""
        self.reads += 1
        return sorted(i for i, e in self.by_id.items() if e.page_id == page_id)

    def get(self, ids: Sequence[str]) -> list[Evidence]:
        """The evidences of `ids`."""
        return [self.by_id[i] for i in ids]
