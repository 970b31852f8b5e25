"""The rest of a table whose rows a question compares: "Were more Latitudes compared or
EliteDesks?" is answered by counting the rows of each kind (`core.compose.more_rows`), and
retrieval returns the rows that look most like the question, often one of each kind. The
answer needs every row of the table, so the page's parts of that table (its `table`
evidences: the header line and the rows, cut where a part is full) are added to the
evidences the answer is given, after the retrieved ones; `core.compose.read_tables` then
knows the table whole.

Only questions that compare counts of rows (`core.compose.compares_counts`), count
things a table's rows may be ("How many RPCs are available?", `counts_rows`) or ask a
yes/no about every row ("Was the memory always 8G?", `over_rows`) or ask for the values
of several rows ("What were the processors used with Dell Haswell?", `asks_several_rows`)
ask for this,
and only the tables of which retrieval found at least `MIN_FOUND_ROWS` rows (or, for a
count, one row under a heading that names the counted things), at most
`MAX_TABLES` of them, best ranked first, each of at most `MAX_PARTS` parts: a few short
evidences more, read from the store.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from core.compose import compares_counts
from core.deciding_clause import asks_every
from core.list_counts import counted_noun
from core.pages import Evidence
from core.questions import STOPWORDS, profile_question, question_language, terms
from core.spans import counts_items

# Retrieved rows of one table before its other rows are read (set by design: one row may
# be a table that only shares a word with the question).
MIN_FOUND_ROWS = 2
# The most parts a table read whole may have (set by design: a table of a few hundred words;
# a longer one would crowd the prompt, and its rows are rarely counted by their names).
MAX_PARTS = 3
# The most parts of a table read whole for a yes/no about every row (set by design: a Yes
# needs each row, so a longer table is read than for a count; one of about 40 rows).
MAX_EVERY_PARTS = 6
# Tables read whole for one question (set by design: the asked kinds' table is among the
# first retrieval finds; more would lengthen the prompt of every such question).
MAX_TABLES = 2

_ROW = re.compile(r"^Row \d+ in Table (\d+):", re.M)
_PART = re.compile(r"^Table (\d+):")


class PageEvidences(Protocol):
    """What the table parts are read from (`core.index.EvidenceIndex`)."""

    def page_evidence_ids(self, page_id: str) -> list[str]: ...

    def get(self, ids: Sequence[str]) -> list[Evidence]: ...


def counts_rows(question: str) -> bool:
    """Whether a question counts things that a table's rows may be ("How many RPCs are
    available in total?"): it counts items and names what it counts."""
    return counts_items(question, "") and bool(counted_noun(question, question_language(question)))


def over_rows(question: str) -> bool:
    """Whether a yes/no question asks about every row ("Was the memory always 8G in Dell
    configurations?", `core.deciding_clause.asks_every`): a Yes needs each row asked about,
    a No one of them."""
    return asks_every(question) and profile_question(question).qtype == "yesno"


def asks_several_rows(question: str) -> bool:
    """Whether a question asks for the values of several rows ("What were the processors
    used with Dell Haswell?": a plural which or what): the rows that hold them are often
    not all among the retrieved ones, and a value from one of them is part of the list."""
    profile = profile_question(question)
    return profile.plural and profile.qtype in ("what", "version")


def _tables_found(
    evidences: Sequence[Evidence], counted: frozenset[str] = frozenset()
) -> list[tuple[str, int]]:
    """(page id, table number) of the tables with at least `MIN_FOUND_ROWS` retrieved rows,
    or with one under a heading that names every term of the `counted` noun (a "Build
    Locations" table of one row, for "How many build locations ...?"), in the order of
    their best ranked row, at most `MAX_TABLES`."""
    rows: dict[tuple[str, int], int] = {}
    headed: set[tuple[str, int]] = set()
    for evidence in evidences:
        for table in _ROW.findall(evidence.text):
            key = (evidence.page_id, int(table))
            rows[key] = rows.get(key, 0) + 1
            if counted and counted <= set(terms(evidence.heading, STOPWORDS)):
                headed.add(key)
    found = [key for key, count in rows.items() if count >= MIN_FOUND_ROWS or key in headed]
    return found[:MAX_TABLES]


def table_parts(
    question: str, evidences: Sequence[Evidence], store: PageEvidences
) -> list[Evidence]:
    """The table evidences to add to `evidences` for `question`: the parts of each table
    found (`_tables_found`) that are not among them already; none when the question neither
    compares counts of rows, counts things (`counts_rows`), asks a yes/no of every row
    (`over_rows`) nor asks for the values of several rows (`asks_several_rows`)."""
    every = over_rows(question) or asks_several_rows(question)
    counts = counts_rows(question)
    if not (compares_counts(question) or counts or every):
        return []
    noun = counted_noun(question, question_language(question)) if counts else ""
    counted = frozenset(terms(noun, STOPWORDS))
    given = {evidence.id for evidence in evidences}
    added: list[Evidence] = []
    pages: dict[str, list[Evidence]] = {}
    for page_id, table in _tables_found(evidences, counted):
        if page_id not in pages:
            pages[page_id] = store.get(store.page_evidence_ids(page_id))
        parts = [
            evidence
            for evidence in pages[page_id]
            if evidence.kind == "table" and _number(evidence.text) == table
        ]
        if len(parts) <= (MAX_EVERY_PARTS if every else MAX_PARTS):
            added.extend(part for part in parts if part.id not in given)
    return added


def _number(text: str) -> int | None:
    """The number of the table a table part belongs to (its `Table N:` line)."""
    part = _PART.match(text)
    return int(part.group(1)) if part else None
