"""The byline of the page a question about a page itself is about.

"Who created this doc?" or "When was it last updated?" asks for the page's byline ("Owned
by A Last updated: May 06, 2016 by B", `core.spans.byline_facts`), which is the page's first
evidence and shares almost no word with the question: retrieval finds the page by the
words of its topic and returns the passages about that topic, not the byline. So when a
question asks a page fact (`core.questions.page_fact`) and no retrieved evidence is the
byline of the page ranked first, that byline is read from the store and added after the
retrieved evidences (as `core.whole_tables` adds the rest of a table), for the answerer to
pick (`core.spans`).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.pages import Evidence
from core.questions import page_fact
from core.spans import byline_facts
from core.whole_tables import PageEvidences

# The page's first evidences looked through for its byline (set by design: a byline opens
# the page; the page title's evidence or a macro leftover may come first).
BYLINE_DEPTH = 2


def is_byline(evidence: Evidence) -> bool:
    """Whether an evidence opens with a page byline."""
    first_line = evidence.text.strip().split("\n", 1)[0]
    return bool(byline_facts(first_line))


def page_byline(
    question: str, evidences: Sequence[Evidence], store: PageEvidences
) -> list[Evidence]:
    """The byline evidence to add to `evidences` for `question` (at most one): that of the
    page ranked first, when the question asks a page fact and no evidence of that page
    given is its byline; none otherwise."""
    if not evidences or not page_fact(question):
        return []
    page_id = evidences[0].page_id
    if any(e.page_id == page_id and is_byline(e) for e in evidences):
        return []
    ids = store.page_evidence_ids(page_id)[:BYLINE_DEPTH]
    return [e for e in store.get(ids) if is_byline(e)][:1]
