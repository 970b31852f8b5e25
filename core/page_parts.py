"""The parts of a page a question needs that retrieval left out, read from the store.

Retrieval returns the evidences that look most like the question; some questions need a
part of the page that does not: the rest of a table whose rows are counted or compared
(`core.whole_tables`), the page's byline for a question about the page itself
(`core.page_byline`), the list of the things a count counts (`core.counted_list`) and the
page's comments for a question on who commented (`core.page_comments`). The assistant and
the evaluation add them the same way, after the retrieved evidences.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.counted_list import counted_list
from core.page_byline import page_byline
from core.page_comments import page_comments
from core.pages import Evidence
from core.whole_tables import PageEvidences, table_parts


def page_parts(
    question: str, evidences: Sequence[Evidence], store: PageEvidences
) -> list[Evidence]:
    """The evidences to add after `evidences` for `question` (see the module docstring)."""
    return [
        *table_parts(question, evidences, store),
        *page_byline(question, evidences, store),
        *counted_list(question, evidences, store),
        *page_comments(question, evidences, store),
    ]
