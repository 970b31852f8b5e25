"""The evidence store (core.store): BM25 scored by the database against a reference computed
here, incremental writes, impact-ordered truncation, and two processes writing one SQLite
store at once. The same tests run on PostgreSQL when CONFBOT_TEST_POSTGRES_URL is set."""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import uuid
from collections import Counter

import pytest
from sqlalchemy import text

from core.lexical import evidence_tokens, idf, term_weight, tokenize
from core.pages import Evidence, Page
from core.store import EvidenceStore
from tests.fakes.evidence import make_evidence

TEXTS = [
    "OXT-1654 fixes the TPM measurement of the Dell Optiplex 7040",
    "The board approves hotels above the travel budget",
    "Trains are preferred over flights below 600 km",
    "The TPM of the Dell Optiplex 7040 is version 2.0, the TPM of the 9020 is 1.2",
    "Hotels are booked by the travel office; the board sets the budget",
    "Release 9.0.2 of OpenXT ships the TPM fix OXT-1654",
]


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request, tmp_path):
    """An empty store database: an SQLite file, or a fresh schema on the test PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'index.sqlite'}"
    return request.getfixturevalue("postgres_url")


def evidence(number: int, text: str, space: str = "S") -> Evidence:
    """Evidence `number` on its own page, its text searched as it is."""
    made = make_evidence(number, text)
    return dataclasses.replace(made, space=space, contextualized=text)


def page_of(evidence: Evidence) -> Page:
    return Page(
        id=evidence.page_id,
        space=evidence.space,
        title=evidence.title,
        url=evidence.url,
        body="",
    )


def write(store: EvidenceStore, evidences: list[Evidence]) -> None:
    store.mark_pending([e.page_id for e in evidences])
    store.replace_pages([(page_of(e), [e]) for e in evidences])


def reference_bm25(evidences: list[Evidence], query: str) -> dict[str, float]:
    """BM25 computed here, term by term, over every evidence (no truncation)."""
    docs = {e.id: Counter(evidence_tokens(e)) for e in evidences}
    average = sum(sum(tf.values()) for tf in docs.values()) / len(docs)
    query_counts = Counter(tokenize(query))
    scores = {}
    for evidence_id, tf in docs.items():
        length = sum(tf.values())
        score = sum(
            n
            * idf(sum(term in d for d in docs.values()), len(docs))
            * term_weight(tf[term], length, average)
            for term, n in query_counts.items()
            if tf[term]
        )
        if score > 0:
            scores[evidence_id] = score
    return scores


@pytest.mark.parametrize(
    "query", ["TPM Dell Optiplex 7040", "board hotels travel budget", "OXT-1654", "TPM TPM fix"]
)
def test_database_scores_equal_reference_bm25(store_url, query):
    store = EvidenceStore(store_url, "test", postings_per_term=1000)
    evidences = [evidence(n, text) for n, text in enumerate(TEXTS)]
    write(store, evidences)
    expected = reference_bm25(evidences, query)
    found = dict(store.lexical_search(tokenize(query), k=10))
    assert found.keys() == expected.keys()
    for evidence_id, score in expected.items():
        assert found[evidence_id] == pytest.approx(score, rel=1e-9)


def test_replacing_and_deleting_pages_keeps_statistics_exact(store_url):
    store = EvidenceStore(store_url, "test", postings_per_term=1000)
    evidences = [evidence(n, text) for n, text in enumerate(TEXTS)]
    write(store, evidences)
    edited = evidence(1, "Zebras approve nothing")
    write(store, [edited])
    store.delete_page(evidences[2].page_id)
    current = [edited if e.id == edited.id else e for e in evidences if e is not evidences[2]]
    assert store.count() == len(current)
    for query in ("board hotels budget", "zebras approve", "trains flights"):
        expected = reference_bm25(current, query)
        found = dict(store.lexical_search(tokenize(query), k=10))
        assert found.keys() == expected.keys()
        assert all(found[i] == pytest.approx(s, rel=1e-9) for i, s in expected.items())


def test_postings_are_read_best_first_up_to_the_limit(store_url):
    # "tpm" is in four evidences; read one posting per term, only the best one counts.
    store = EvidenceStore(store_url, "test", postings_per_term=1)
    evidences = [evidence(n, text) for n, text in enumerate(TEXTS)]
    write(store, evidences)
    (hit,) = store.lexical_search(["tpm"], k=10)
    best = max(
        (e for e in evidences if "tpm" in evidence_tokens(e)),
        key=lambda e: reference_bm25(evidences, "TPM").get(e.id, 0),
    )
    assert hit[0] == best.id


def test_spaces_restrict_lexical_search(store_url):
    store = EvidenceStore(store_url, "test", postings_per_term=1000)
    evidences = [evidence(n, text, space="ENG" if n % 2 else "HR") for n, text in enumerate(TEXTS)]
    write(store, evidences)
    hits = store.lexical_search(tokenize("TPM board hotels"), k=10, allowed={"HR"})
    assert hits and all(store.get([i])[0].space == "HR" for i, _ in hits)
    assert store.lexical_search(tokenize("TPM"), k=10, allowed={"NONE"}) == []


def test_collections_are_separate(store_url):
    first = EvidenceStore(store_url, "first", postings_per_term=1000)
    second = EvidenceStore(store_url, "second", postings_per_term=1000)
    write(first, [evidence(1, "quagga okapi")])
    assert second.lexical_search(["quagga"], k=5) == [] and second.count() == 0
    assert first.lexical_search(["quagga"], k=5)[0][0] == "e1"


def test_vocabulary_follows_writes_and_keeps_vectors(store_url):
    import numpy as np

    store = EvidenceStore(store_url, "test", postings_per_term=1000)
    write(store, [evidence(1, "quagga okapi"), evidence(2, "okapi zebra")])
    assert {"quagga", "okapi", "zebra"} <= set(store.vocabulary())
    store.save_word_vectors({"okapi": np.ones(4, dtype=np.float32)})
    store.delete_page("101")
    assert "quagga" not in store.vocabulary() and "okapi" in store.vocabulary()
    assert store.word_vectors(["okapi", "zebra"]).keys() == {"okapi"}


def test_word_counts_are_the_evidences_holding_each_word(store_url):
    store = EvidenceStore(store_url, "test", postings_per_term=1000)
    write(store, [evidence(1, "quagga okapi okapi"), evidence(2, "okapi zebra")])
    counts = store.word_counts()
    assert (counts["okapi"], counts["quagga"], counts["zebra"]) == (2, 1, 1)
    store.delete_page("101")
    assert "quagga" not in store.word_counts() and store.word_counts()["okapi"] == 1


@pytest.mark.postgres
def test_a_read_whose_pooled_connection_the_server_dropped_runs_again(postgres_url):
    from sqlalchemy import text

    store = EvidenceStore(postgres_url, "test", postings_per_term=1000)
    write(store, [evidence(1, "quagga okapi"), evidence(2, "okapi zebra")])
    with store.reader.connect() as db:  # the reader's only pooled connection
        backend = db.execute(text("SELECT pg_backend_pid()")).scalar_one()
    with store.engine.connect() as db:  # as a server restart or an idle timeout would
        assert db.execute(text("SELECT pg_terminate_backend(:p)"), {"p": backend}).scalar()
    # The reader lends connections without a ping, so the first read meets the dropped one.
    assert store.count() == 2
    assert store.lexical_search(["quagga"], k=5)[0][0] == "e1"


def _write_pages(url: str, first: int, count: int) -> None:
    """Write `count` one-evidence pages from number `first` (run in a child process)."""
    store = EvidenceStore(url, "shared", postings_per_term=1000)
    for n in range(first, first + count):
        write(store, [evidence(n, f"shared words {n} and a unique token u{n}x")])


def test_a_page_record_update_grows_the_generation_other_processes_follow(store_url):
    """A page that moved or was renamed with its content unchanged gets only a new record.
    Every process reads its page catalog again when the generation grows (a web replica
    beside the worker that wrote), so that write must grow it too."""
    writer = EvidenceStore(store_url, "c", postings_per_term=1000)
    replica = EvidenceStore(store_url, "c", postings_per_term=1000)
    first = evidence(1, TEXTS[0])
    write(writer, [first])
    seen = replica.generation()
    moved = dataclasses.replace(page_of(first), title="Renamed", space="T")
    writer.update_page_record(moved)
    assert replica.generation() > seen
    entry = replica.page_entries()[first.page_id]
    assert (entry.title, entry.space) == ("Renamed", "T")


def test_the_page_catalog_follows_another_processs_writes(store_url):
    """A replica's catalog, read again after each write of the worker (another store on the
    database), is the catalog a fresh read gives: after adds, edits, record updates and
    deletions, and a read that finds nothing new keeps what it had."""
    worker = EvidenceStore(store_url, "c", postings_per_term=1000)
    replica = EvidenceStore(store_url, "c", postings_per_term=1000)
    first, second, third = (evidence(n, TEXTS[n]) for n in range(3))

    def fresh() -> dict:
        return EvidenceStore(store_url, "c", postings_per_term=1000).page_entries()

    write(worker, [first, second])
    assert replica.page_entries() == fresh() and len(fresh()) == 2
    write(worker, [dataclasses.replace(second, title="Second, edited"), third])
    assert replica.page_entries() == fresh()
    assert replica.page_entries()[second.page_id].title == "Second, edited"
    worker.update_page_record(dataclasses.replace(page_of(third), title="Third, moved"))
    assert replica.page_entries() == fresh()
    worker.delete_page(first.page_id)
    assert replica.page_entries() == fresh() and first.page_id not in fresh()
    write(worker, [first])
    assert replica.page_entries() == fresh() and len(fresh()) == 3


def test_a_store_made_before_the_catalog_columns_gets_them(tmp_path):
    """A store written by a version without `index_pages.generation` and
    `index_collections.deleted_generation` gets them when it is opened, by processes that
    open it at once too, its pages kept."""
    url = f"sqlite:///{tmp_path / 'index.sqlite'}"
    old = EvidenceStore(url, "c", postings_per_term=1000)
    write(old, [evidence(1, TEXTS[1])])
    with old.engine.begin() as db:
        db.execute(text("DROP INDEX ix_index_pages_generation"))
        db.execute(text("ALTER TABLE index_pages DROP COLUMN generation"))
        db.execute(text("ALTER TABLE index_collections DROP COLUMN deleted_generation"))
    context = multiprocessing.get_context("spawn")  # a web process and a worker, say
    together = context.Barrier(3)
    openers = [context.Process(target=_open_store, args=(url, together)) for _ in range(3)]
    for opener in openers:
        opener.start()
    for opener in openers:
        opener.join()
        assert opener.exitcode == 0  # each waited for the one that added the columns
    upgraded = EvidenceStore(url, "c", postings_per_term=1000)
    assert set(upgraded.page_entries()) == {evidence(1, TEXTS[1]).page_id}
    write(upgraded, [evidence(2, TEXTS[2])])
    upgraded.delete_page(evidence(1, TEXTS[1]).page_id)
    assert set(upgraded.page_entries()) == {evidence(2, TEXTS[2]).page_id}


def _open_store(url: str, together) -> None:
    together.wait()
    EvidenceStore(url, "c", postings_per_term=1000)


def test_two_processes_write_one_sqlite_store_and_readers_see_every_commit(tmp_path):
    url = f"sqlite:///{tmp_path / 'index.sqlite'}"
    reader = EvidenceStore(url, "shared", postings_per_term=1000)
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_write_pages, args=(url, n * 100, 40)) for n in (1, 2)]
    seen = []
    for writer in writers:
        writer.start()
    while any(w.is_alive() for w in writers):
        seen.append(reader.count())  # reads go on while the writers take turns
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    assert seen == sorted(seen)  # a reader never sees a write undone
    assert reader.count() == 80 and len(reader.page_ids()) == 80
    # Every page's postings and statistics are there: each unique token is found, and
    # the shared word's df counts every evidence (its idf is the one of 80 documents).
    for n in (100, 139, 200, 239):
        assert reader.lexical_search([f"u{n}x"], k=2)[0][0] == f"e{n}"
    hits = reader.lexical_search(["share"], k=100)
    assert len(hits) == 80
    assert math.isclose(hits[0][1], idf(80, 80) * term_weight(1, 6, 6.0), rel_tol=0.2)


def test_unknown_database_is_refused():
    with pytest.raises(ValueError, match="sqlite or postgresql"):
        EvidenceStore(f"mysql+pymysql://u@127.0.0.1/{uuid.uuid4().hex}", "x", 10)
