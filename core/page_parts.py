"""The parts of a page a question needs that retrieval left out, read from the store.

Retrieval returns the evidences that look most like the question; some questions need a
part of the page that does not: the rest of a table whose rows are counted or compared
(`core.whole_tables`), the page's byline for a question about the page itself
(`core.page_byline`), the list of the things a count counts (`core.counted_list`) and the
page's comments for a question on who commented (`core.page_comments`) and the first
passage of each of the page's sections for a count of its sections (`core.page_sections`).
The assistant and the evaluation add them the same way, after the retrieved evidences.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.counted_list import counted_list
from core.page_byline import page_byline
from core.page_comments import page_comments
from core.page_sections import section_parts
from core.pages import Evidence
from core.whole_tables import PageEvidences, table_parts


class _ReadOnce:
    """A store that reads each page's evidence ids and each evidence once, for the parts of
    one question: "How many people commented? Who?" asks for the page's list of people and
    its comments, and both read the same page."""

    def __init__(self, store: PageEvidences) -> None:
        self.store = store
        self.ids: dict[str, list[str]] = {}
        self.evidences: dict[str, Evidence] = {}

    def page_evidence_ids(self, page_id: str) -> list[str]:
        if page_id not in self.ids:
            self.ids[page_id] = self.store.page_evidence_ids(page_id)
        return self.ids[page_id]

    def get(self, ids: Sequence[str]) -> list[Evidence]:
        missing = [i for i in ids if i not in self.evidences]
        if missing:
            self.evidences.update((e.id, e) for e in self.store.get(missing))
        return [self.evidences[i] for i in ids if i in self.evidences]


def page_parts(
    question: str, evidences: Sequence[Evidence], store: PageEvidences
) -> list[Evidence]:
    """The evidences to add after `evidences` for `question` (see the module docstring),
    each page read from `store` at most once."""
    once = _ReadOnce(store)
    return [
        *table_parts(question, evidences, once),
        *page_byline(question, evidences, once),
        *counted_list(question, evidences, once),
        *page_comments(question, evidences, once),
        *section_parts(question, evidences, once),
    ]
