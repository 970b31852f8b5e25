"""Redundant evidences: what a better-ranked evidence of the same page already says.

A page's table and each of its rows are separate evidences, and a near-duplicate page
("Copy of X", a draft) repeats X's passages; both often rank next to each other, so a few
facts fill several of the top-k slots that the answer and its sources are drawn from.
An evidence is redundant when more than `threshold` of its distinct words are inside one
evidence ranked above it from the same page or the same near-duplicate group (a table row
when a table part ranked above holds that very row, or when `ROWS_PER_TABLE` rows of its
table are in already: rows of one table share most of their words and differ in the one
cell that matters); dropping it lets the next distinct evidence in. This is maximal
marginal relevance with a hard novelty floor instead of a weighted trade-off (Carbonell
and Goldstein, "The Use of MMR, Diversity-Based Reranking for Reordering Documents and
Producing Summaries", SIGIR 1998), and it never drops the best-ranked evidence, nor
anything from another page.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.lexical import tokenize
from core.pages import Evidence

# Rows of one table admitted although most of their words were seen (see `admit`).
ROWS_PER_TABLE = 3


class NoveltyFilter:
    """Admits evidences in rank order, refusing those redundant with one admitted before.

    `groups` maps a page id to its near-duplicate group (pages missing from it are groups
    of their own); a `threshold` of 1 or more admits everything.
    """

    def __init__(self, threshold: float, groups: Mapping[str, str]):
        self.threshold = threshold
        self.groups = groups
        self._admitted: dict[str, list[tuple[frozenset[str], str]]] = {}
        self._rows: dict[tuple[str, object], int] = {}

    def admit(self, evidence: Evidence) -> bool:
        """True (and remembered) when `evidence` says something the admitted ones of its
        page or group do not."""
        if self.threshold >= 1.0:
            return True
        words = frozenset(tokenize(evidence.text))
        group = self.groups.get(evidence.page_id, evidence.page_id)
        seen = self._admitted.setdefault(group, [])
        repeats = bool(words) and any(
            len(words & other) > self.threshold * len(words) for other, _ in seen
        )
        if evidence.kind == "row":
            # A row's words are mostly its table's and its neighbours' ("Week 3, Payments,
            # Sophie Brandt" beside "Week 2, Payments, Sophie Brandt"): it repeats a table
            # part that holds it, and says something of its own otherwise; but at most
            # `ROWS_PER_TABLE` rows of a table are let in on that ground, so one table does
            # not fill every slot.
            if any(evidence.text in text for _, text in seen):
                return False
            table = (group, evidence.metadata.get("table"))
            if repeats and self._rows.get(table, 0) >= ROWS_PER_TABLE:
                return False
            self._rows[table] = self._rows.get(table, 0) + 1
        elif repeats:
            return False
        seen.append((words, evidence.text))
        return True
