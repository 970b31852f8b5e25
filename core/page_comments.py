"""The comments of the page a "who commented" question is about.

"How many people commented on these results? Who?" asks for the authors of the page's
comments (`core.commenters`), which reach the index as an evidence of their own at the end
of the page ("Author: Rich Persaud Date: 2018-07-31 Comment: ..."). Their text is about
whatever each comment says, not about commenting, and a follow-up carries the words of the
topic's earlier turns ("Latitude, black screen"): retrieval finds the page by those words
and returns its table rows, not the comments. So when a question asks who commented
(`core.commenters.asks_commenters`) and no retrieved evidence of the page ranked first
holds a comment, that page's comment evidences are read from the store and added after the
retrieved evidences (as `core.page_byline` adds the byline), for the answerer to name their
authors.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.answer import source_header
from core.commenters import asks_commenters, holds_comment
from core.pages import Evidence
from core.whole_tables import PageEvidences

# The most comment evidences added for one question (set by design: a page's comments are
# one or two evidences; a long discussion's first few name most of its authors, and more
# would crowd the prompt).
MAX_COMMENT_EVIDENCES = 3


def _is_comment(evidence: Evidence) -> bool:
    return holds_comment(source_header(evidence), evidence.text)


def page_comments(
    question: str, evidences: Sequence[Evidence], store: PageEvidences
) -> list[Evidence]:
    """The comment evidences to add to `evidences` for `question`: those of the page ranked
    first, when the question asks who commented and no evidence of that page given holds a
    comment; none otherwise (or when the page has no comments)."""
    if not evidences or not asks_commenters(question):
        return []
    page_id = evidences[0].page_id
    if any(e.page_id == page_id and _is_comment(e) for e in evidences):
        return []
    page = store.get(store.page_evidence_ids(page_id))
    return [e for e in page if _is_comment(e)][:MAX_COMMENT_EVIDENCES]
