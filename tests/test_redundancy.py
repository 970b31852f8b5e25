"""Redundant evidences (core.redundancy): what a better-ranked evidence of its page says."""

from __future__ import annotations

import dataclasses
import math

import pytest

from core.index import EvidenceIndex
from core.lexical import tokenize
from core.redundancy import NoveltyFilter
from core.retrieve import Retriever
from tests.fakes.evidence import make_evidence
from tests.fakes.hash_embedder import HashEmbedder
from tests.test_retrieval import PAGES

TABLE = "Machine BIOS TPM Dell Optiplex 7040 1.14.0 2.0 HP 8300 2.1 1.2"
ROW = "Row 1 in Table 1: Machine is Dell Optiplex 7040, BIOS is 1.14.0, and TPM is 2.0"


def on_page(number: int, text: str, page_id: str):
    return dataclasses.replace(make_evidence(number, text), page_id=page_id)


def test_a_row_after_its_table_is_redundant_and_the_first_evidence_always_stays():
    novelty = NoveltyFilter(0.4, {})
    assert novelty.admit(on_page(1, TABLE, "p"))
    assert not novelty.admit(on_page(2, ROW, "p"))
    assert novelty.admit(on_page(3, "Hotels are booked by the office", "p"))


def test_the_same_words_on_another_page_are_kept_unless_it_is_a_near_duplicate():
    novelty = NoveltyFilter(0.4, {"copy": "p", "p": "p"})
    assert novelty.admit(on_page(1, TABLE, "p"))
    assert novelty.admit(on_page(2, TABLE, "other"))
    assert not novelty.admit(on_page(3, TABLE, "copy"))


def test_the_share_of_words_must_exceed_the_threshold():
    first = "alpha beta gamma delta"
    second = "alpha beta epsilon zeta"  # half of its words are in the first
    assert NoveltyFilter(0.4, {}).admit(on_page(1, first, "p"))
    novelty = NoveltyFilter(0.4, {})
    novelty.admit(on_page(1, first, "p"))
    assert not novelty.admit(on_page(2, second, "p"))
    novelty = NoveltyFilter(0.5, {})
    novelty.admit(on_page(1, first, "p"))
    assert novelty.admit(on_page(2, second, "p"))
    assert len(set(tokenize(second)) & set(tokenize(first))) == 2


def test_a_threshold_of_one_keeps_every_evidence():
    novelty = NoveltyFilter(1.0, {})
    assert all(novelty.admit(on_page(n, TABLE, "p")) for n in range(3))


def test_an_evidence_without_words_is_kept():
    novelty = NoveltyFilter(0.4, {})
    assert novelty.admit(on_page(1, TABLE, "p"))
    assert novelty.admit(on_page(2, "", "p"))


# The test matrix page of the retrieval tests, with two passages that repeat its first row.
MATRIX = dataclasses.replace(
    PAGES[1],
    body=PAGES[1].body
    + "<p>The Dell Optiplex 7040 was flashed to BIOS 1.14.0 before the TPM tests.</p>"
    "<p>Measured launch was checked on every machine with the TPM enabled.</p>",
)


@pytest.fixture
def index(settings):
    index = EvidenceIndex(settings, HashEmbedder())
    index.index_pages([MATRIX])
    yield index
    index.close()


def words(result) -> list[tuple[str, set[str]]]:
    return [(r.evidence.page_id, set(tokenize(r.evidence.text))) for r in result.results]


def test_search_leaves_out_evidences_that_repeat_a_better_ranked_one(index, settings):
    query = "Which TPM and BIOS does the Dell Optiplex 7040 have?"
    everything = Retriever(index, index.embedder, settings.replace(redundancy_threshold=1.0))
    distinct = Retriever(index, index.embedder, settings.replace(redundancy_threshold=0.4))
    all_results = everything.search(query, k=10)
    kept = distinct.search(query, k=10)

    assert kept.results[0].evidence.id == all_results.results[0].evidence.id
    assert len(kept.results) < len(all_results.results)
    seen: list[set[str]] = []
    texts: list[str] = []
    for result, (_, tokens) in zip(kept.results, words(kept), strict=True):
        if result.evidence.kind == "row":  # a row repeats only a table part holding it
            assert not any(result.evidence.text in text for text in texts)
        else:
            assert not any(len(tokens & other) > 0.4 * len(tokens) for other in seen)
        seen.append(tokens)
        texts.append(result.evidence.text)
    # What is left keeps its order from the full ranking, ranks renumbered.
    order = [r.evidence.id for r in all_results.results]
    ids = [r.evidence.id for r in kept.results]
    assert ids == sorted(ids, key=order.index)
    assert [r.rank for r in kept.results] == list(range(1, len(ids) + 1))


def test_search_fills_k_with_the_next_distinct_evidences(index, settings):
    query = "Which TPM and BIOS does the Dell Optiplex 7040 have?"
    everything = Retriever(index, index.embedder, settings.replace(redundancy_threshold=1.0))
    distinct = Retriever(index, index.embedder, settings.replace(redundancy_threshold=0.4))
    ten = distinct.search(query, k=10).results
    assert len(ten) >= 2
    two = distinct.search(query, k=2).results
    assert len(two) == 2
    assert [r.evidence.id for r in two] == [r.evidence.id for r in ten[:2]]
    assert len(everything.search(query, k=10).results) > len(ten)


def test_copies_ahead_in_the_ranking_cost_few_store_reads(settings):
    """Forty copies of one page rank their repeated evidences ahead of anything new; the
    store is read in growing slices, not once per refused copy."""
    copies = [dataclasses.replace(MATRIX, id=f"copy{n}", url=f"u-copy{n}") for n in range(40)]
    index = EvidenceIndex(settings, HashEmbedder())
    index.index_pages([*copies, *PAGES])
    reads: list[int] = []
    get = index.get
    index.get = lambda ids: reads.append(len(ids)) or get(ids)
    retriever = Retriever(index, index.embedder, settings.replace(redundancy_threshold=0.4))
    results = retriever.search("Which TPM and BIOS does the Dell Optiplex 7040 have?", k=10)
    index.close()

    read = sum(reads)
    assert read - len(results.results) > 40  # most of what was read repeated a copy...
    assert len(reads) < 2 + math.log2(read / 10)  # ...yet each read doubled what was read
    assert results.stale == 0 and len(results.results) >= 2


def test_a_row_repeats_only_a_table_part_that_holds_it():
    """Rows of one table share most of their words; a row is redundant with a table part
    ranked above it that holds that very row, or once three rows of its table are in."""

    def row(number: int, week: int, person: str):
        text = f"Row {number} in Table 1: Week is Week {week}, Team is Payments, Who is {person}"
        evidence = make_evidence(number, text, "On-call")
        return dataclasses.replace(evidence, kind="row", page_id="p", metadata={"table": 1})

    week_two, week_three = row(5, 2, "Sophie Brandt"), row(8, 3, "Chloe Whitfield")
    part = dataclasses.replace(
        make_evidence(9, f"Table 1: Week, Team, Secondary\n{week_two.text}", "On-call"),
        kind="table",
        page_id="p",
    )
    novelty = NoveltyFilter(0.4, {})
    assert novelty.admit(part)
    assert not novelty.admit(week_two)  # the part holds it
    assert novelty.admit(week_three)  # the same words, another week
    more = [row(10 + n, 4 + n, "Chloe Whitfield") for n in range(3)]
    assert [novelty.admit(r) for r in more] == [True, True, False]  # three rows let in
