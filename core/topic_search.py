"""Search a follow-up within the pages of its topic.

A short follow-up ("Action item for Rich?", "who was the assigned reporter?") is searched
with the topic's earlier questions carried along (`core.rephrase`), so that what it leaves
out comes back. Those carried words also pull: to the part of the topic's page the earlier
turns asked about, or to another page that shares them. This module searches the
follow-up's own words once more and keeps what that search finds on the topic's pages (the
pages its answers cited; the one the open search ranks first, when it ranks one of them
first). Those evidences go first when they hold more of the follow-up's words than the open
search's best evidence does. A follow-up whose words the topic's pages hold no more of (it
names a subject elsewhere, or the open search's best evidence already holds them) keeps the
open search's ranking.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from core.lexical import tokenize
from core.pages import Evidence
from core.retrieve import ScoredEvidence

# How many of the focus search's results are looked through for the topic's pages.
FOCUS_DEPTH = 30
# How many of the topic's evidences go first.
FOCUS_FIRST = 3


@dataclass(frozen=True)
class Focus:
    """What a follow-up searches within its topic: its own words (`query`) and the pages the
    topic's answers cited (`pages`)."""

    query: str
    pages: tuple[str, ...]


def held_words(tokens: Collection[str], evidence: Evidence, language: str) -> int:
    """How many of the query `tokens` (BM25 tokens, stemmed) the evidence holds, in the
    text the index searches (`contextualized`: a table row's cells come with its header)."""
    own = set(tokenize(evidence.contextualized or evidence.text, language))
    return sum(1 for t in set(tokens) if t in own)


def within_topic(
    focus: Focus,
    results: Sequence[ScoredEvidence],
    search: Callable[[str, int], tuple[Sequence[ScoredEvidence], list[str], str]],
) -> tuple[list[ScoredEvidence], dict]:
    """`results` (the open search's, best first) with the focus search's evidences of the
    topic's pages put first where they hold more of its words (see the module docstring);
    and a note of what was done. `search(query, k)` gives the results, the query's BM25
    tokens and its language."""
    if not focus.pages or not focus.query.strip() or not results:
        return list(results), {}
    found, tokens, language = search(focus.query, FOCUS_DEPTH)
    pages = set(focus.pages)
    if results[0].evidence.page_id in pages:
        # the open search already chose one of the topic's pages: search within that one
        pages = {results[0].evidence.page_id}
    inside = [r for r in found if r.evidence.page_id in pages][:FOCUS_FIRST]
    if not inside or not tokens:
        return list(results), {"focus": "none"}
    best_inside = max(held_words(tokens, r.evidence, language) for r in inside)
    best_open = held_words(tokens, results[0].evidence, language)
    # on a tie the open search's choice stands: its carried words decide between evidences
    # that hold the follow-up's own words alike (and a near-copy of the topic's page holds
    # as many)
    if best_inside <= best_open:
        return list(results), {"focus": "open", "held": [best_inside, best_open]}
    first = {r.evidence.id for r in inside}
    merged = [*inside, *(r for r in results if r.evidence.id not in first)][: len(results)]
    for position, r in enumerate(merged, start=1):
        r.rank = position
    return merged, {"focus": "topic", "held": [best_inside, best_open]}
