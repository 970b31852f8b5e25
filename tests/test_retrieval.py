"""Tokenization, BM25, fusion and hybrid retrieval on a small index built in the test."""

from __future__ import annotations

import dataclasses
import re
import time

import pytest

import core.index
from core.index import HNSW_NEIGHBORS, EvidenceIndex, when_unlocked
from core.lexical import detect_language, tokenize
from core.pages import Page
from core.retrieve import Retriever, rrf, zscore_fusion
from core.translate import split_compound
from tests.fakes.hash_embedder import HashEmbedder

PAGES = [
    Page(
        id="1",
        space="ENG",
        title="Release notes 9.0.2",
        url="https://wiki.example/spaces/ENG/pages/1/Release+notes",
        body="<h1>Fixes</h1><p>Version 9.0.2 fixes OXT-1654 in the USB passthrough.</p>"
        "<p>Upgrade from 8.0.1 is supported.</p>",
    ),
    Page(
        id="2",
        space="ENG",
        title="Test matrix",
        url="https://wiki.example/spaces/ENG/pages/2/Test+matrix",
        body="<table><tr><th>Machine</th><th>BIOS</th><th>TPM</th></tr>"
        "<tr><td>Dell Optiplex 7040</td><td>1.14.0</td><td>2.0</td></tr>"
        "<tr><td>HP 8300</td><td>2.1</td><td>1.2</td></tr></table>",
    ),
    Page(
        id="3",
        space="HR",
        title="Travel policy",
        url="https://wiki.example/spaces/HR/pages/3/Travel+policy",
        body="<p>The board approves travel above 2000 euros. Hotels are booked by the office.</p>",
    ),
]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "Version 9.0.2 fixes OXT-1654",
            ["version", "9.0.2", "9", "0", "2", "fix", "oxt-1654", "oxt", "1654"],
        ),
        ("upgrade from 8.0.1", ["upgrad", "8.0.1", "8", "0", "1"]),
        ("The Tests, and the test!", ["test", "test"]),
        ("", []),
    ],
)
def test_tokenize_keeps_version_numbers_and_issue_keys(text, expected):
    assert tokenize(text) == expected


@pytest.mark.parametrize(
    "text, language",
    [
        ("Which BIOS version was used for the Dell 7040?", "en"),
        ("Welche BIOS Version wurde für den Dell 7040 verwendet?", "de"),
        ("Was ist mit TPM?", "de"),
        ("OXT-1654", "en"),
        ("Kompatibilitätseigenschaften?", "de"),  # no stopword: its umlaut tells
        ("Wofür steht HMX?", "de"),
        ("Who is Jürgen?", "en"),  # English stopwords outweigh a name's umlaut
    ],
)
def test_detect_language(text, language):
    assert detect_language(text) == language


def test_german_query_drops_german_stopwords():
    assert tokenize("Welche Version hat der Dell?", "de") == ["version", "dell"]


def test_rrf_sums_reciprocal_ranks():
    fused = rrf({"a": ["x", "y"], "b": ["y", "z"]}, {"a": 1.0, "b": 1.0}, k=60)
    assert fused["y"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["x"] == pytest.approx(1 / 61)
    assert max(fused, key=fused.get) == "y"


def test_zscore_fusion_gives_missing_documents_the_list_minimum():
    fused = zscore_fusion(
        {"lexical": [("x", 10.0), ("y", 0.0)], "dense": [("y", 0.9), ("z", 0.1)]},
        {"lexical": 1.0, "dense": 0.5},
    )
    # z-scores are +1/-1 in both lists; z is missing from lexical, x from dense.
    assert fused == pytest.approx({"x": 1.0 - 0.5, "y": -1.0 + 0.5, "z": -1.0 - 0.5})


@pytest.fixture
def index(settings):
    index = EvidenceIndex(settings, HashEmbedder())
    index.index_pages(PAGES)
    yield index
    index.close()


@pytest.mark.parametrize(
    "word, expected",
    [
        ("Testmatrix", ["test", "matrix"]),
        ("Reisekosten", []),  # "reise" is no corpus word
        ("Boardsmatrix", ["board", "matrix"]),  # a linking s
        ("matrix", []),
    ],
)
def test_split_compound(word, expected):
    assert split_compound(word, {"test", "matrix", "board", "travel"}) == expected


def test_german_compounds_become_corpus_words_only_when_decompounding_is_on(index, settings):
    query = "Welche Version steht in der Testmatrix?"
    off = EvidenceIndex(settings.replace(decompound_queries="false"), HashEmbedder())
    assert "matrix" not in off.query_tokens(query, "de")
    off.close()
    assert {"test", "matrix"} <= set(index.query_tokens(query, "de"))  # on by default


def test_page_catalog_has_titles_and_duplicate_signatures(index):
    catalog = index.page_catalog()
    assert set(catalog) == {"1", "2", "3"}
    assert catalog["2"].title == "Test matrix" and catalog["2"].space == "ENG"
    assert len(catalog["1"].signature) == 64
    assert index.page_catalog() is catalog  # read once per index generation
    index.delete_page("3")
    assert set(index.page_catalog()) == {"1", "2"}
    assert index.page("1") == dataclasses.replace(PAGES[0], body="")  # no signature in Page
    renamed = dataclasses.replace(PAGES[1], title="Test matrix 2024", version=2)
    index.index_pages([renamed])  # the unchanged records are reused, the changed one read
    catalog = index.page_catalog()
    assert catalog["2"].title == "Test matrix 2024" and catalog["1"].title == PAGES[0].title


def test_searches_go_on_with_the_previous_catalog_while_one_reads_the_new(index, settings):
    """After a write one search reads the page catalog and regroups the pages again; a
    search that comes meanwhile uses the previous ones instead of waiting (or repeating
    the work), and the next search after it sees the write."""
    folding = dataclasses.replace(settings, prefer_canonical=True)
    retriever = Retriever(index, index.embedder, folding)
    retriever.search("Dell Optiplex 7040 TPM")
    before = index.page_catalog()
    copy = dataclasses.replace(PAGES[1], id="9", title="Copy of Test matrix", url="u9")
    index.index_pages([copy])
    with index._catalog.lock, retriever._fields.lock:  # another search is at work
        assert index.page_catalog() is before
        stale = retriever.search("Dell Optiplex 7040 TPM").results
        assert not any(r.also_in for r in stale)  # the copy is not known as one yet
    fresh = retriever.search("Dell Optiplex 7040 TPM").results
    assert "9" in index.page_catalog() and index.page_catalog() is not before
    assert fresh[0].evidence.page_id == "2"
    assert [p.title for p in fresh[0].also_in] == ["Copy of Test matrix"]


def test_the_query_translator_is_reloaded_by_one_search_at_a_time(index):
    """After a write the translator is reloaded with the new vocabulary; a search that
    comes while another reloads it uses the previous one instead of waiting."""
    before = index.translator()
    extra = Page(id="8", space="ENG", title="Zebra", url="u8", body="<p>quagga okapi</p>")
    index.index_pages([extra])
    with index._translator.lock:  # another search is reloading it
        assert index.translator() is before
    after = index.translator()
    assert after is not before and "quagga" in after.known and "quagga" not in before.known


def test_a_reader_follows_another_writer_in_the_background_and_a_writer_sees_its_own(
    index, settings
):
    """Another index on the same store (a web process beside a separate sync): after the
    writer's write the reader's searches go on with the previous translator, catalog and
    speller while a refresher thread reads the new ones, and pick them up once read; the
    writer itself sees its write in its next search (read-your-writes)."""
    reader = EvidenceIndex(settings, HashEmbedder())
    try:
        before = (reader.translator(), reader.page_catalog(), reader.speller())
        extra = Page(id="8", space="ENG", title="Zebra", url="u8", body="<p>quagga okapi</p>")
        index.index_pages([extra])
        assert "quagga" in index.translator().known and "8" in index.page_catalog()
        # The first search after it goes on with the previous ones; a refresher reads them.
        assert reader.translator() is before[0] and reader.page_catalog() is before[1]
        assert reader.speller() is before[2]

        def followed():
            return (
                "quagga" in reader.translator().known
                and "8" in reader.page_catalog()
                and reader.speller() is not before[2]
            )

        deadline = time.monotonic() + 10
        while not followed() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert followed()
    finally:
        reader.close()


def test_index_counts_are_consistent(index):
    assert index.count() == index.dense_count() > 0
    assert index.page_ids() == {"1", "2", "3"}
    assert index.spaces() == {"ENG", "HR"}


def test_lexical_search_finds_issue_key(index):
    hits = index.lexical_search("What does OXT-1654 fix?", k=3)
    top = index.get([hits[0][0]])[0]
    assert top.page_id == "1"


def test_hybrid_search_returns_row_with_ranks(index, settings):
    retriever = Retriever(index, index.embedder, settings)
    result = retriever.search("Which TPM version does the Dell Optiplex 7040 have?", k=5)
    top = result.results[0]
    assert top.evidence.kind == "row"
    assert "Dell Optiplex 7040" in top.evidence.text
    assert top.rank == 1
    assert set(top.ranks) == {"lexical", "dense"} and top.ranks["lexical"] is not None
    assert [r.rank for r in result.results] == list(range(1, len(result.results) + 1))
    assert {"lexical_ms", "embed_ms", "dense_ms", "fusion_ms", "total_ms"} <= set(result.timings)


def test_search_respects_allowed_spaces(index, settings):
    retriever = Retriever(index, index.embedder, settings)
    result = retriever.search("travel board hotels", spaces={"ENG"})
    assert result.results and all(r.evidence.space == "ENG" for r in result.results)
    assert retriever.search("travel board hotels", spaces=set()).results == []


def test_upsert_replaces_page_and_delete_removes_it(index, settings):
    edited = Page(
        id="3",
        space="HR",
        title="Travel policy",
        url=PAGES[2].url,
        body="<p>Trains are preferred over flights below 600 km.</p>",
        version=2,
    )
    index.index_pages([edited])
    retriever = Retriever(index, index.embedder, settings)
    top = retriever.search("trains flights 600 km").results[0]
    assert top.evidence.page_id == "3" and "Trains" in top.evidence.text
    assert not index.lexical_search("board approves hotels", k=5)
    index.delete_page("3")
    assert "3" not in index.page_ids()
    assert all(r.evidence.page_id != "3" for r in retriever.search("trains flights").results)
    assert index.count() == index.dense_count()


def test_a_write_is_searchable_at_once_and_statistics_follow_it(index):
    extra = Page(id="7", space="ENG", title="Zebra", url="u7", body="<p>quagga okapi</p>")
    index.index_pages([extra])
    (hit,) = index.lexical_search("quagga okapi", k=5)
    assert index.get([hit[0]])[0].page_id == "7"
    before = index.lexical_search("OXT-1654", k=1)[0][1]
    index.delete_page("7")
    assert index.lexical_search("quagga okapi", k=5) == []
    # One evidence fewer: the idf of every term, and so the score, changes with the store.
    assert index.lexical_search("OXT-1654", k=1)[0][1] != before


def test_index_persists_across_instances(settings):
    first = EvidenceIndex(settings, HashEmbedder())
    first.index_pages(PAGES)
    first.close()
    second = EvidenceIndex(settings, HashEmbedder())
    assert second.page_ids() == {"1", "2", "3"}
    assert second.lexical_search("OXT-1654", k=1)
    second.close()


def ef_search(index: EvidenceIndex) -> int:
    return index._collection.configuration_json["hnsw"]["ef_search"]


def test_the_vector_index_explores_the_configured_candidates(settings):
    """`dense_search_ef` is Chroma's `ef_search`, on a new collection and on one made with
    another value; never fewer than the candidates asked for."""
    first = EvidenceIndex(settings.replace(dense_search_ef=300), HashEmbedder())
    first.index_pages(PAGES)
    assert ef_search(first) == 300
    assert first._collection.configuration_json["hnsw"]["max_neighbors"] == HNSW_NEIGHBORS
    first.close()
    second = EvidenceIndex(settings.replace(dense_search_ef=500), HashEmbedder())
    assert ef_search(second) == 500 and second.page_ids() == {"1", "2", "3"}
    assert second.dense_count() == second.count()
    second.close()
    third = EvidenceIndex(settings.replace(dense_search_ef=10, candidates_k=150), HashEmbedder())
    assert ef_search(third) == 150
    third.close()


LOCKED = "Database error: error returned from database: (code: 5) database is locked"


@pytest.mark.parametrize(
    ("failures", "error", "calls"),
    [
        ([], None, 1),
        ([LOCKED, LOCKED], None, 3),  # another writer finished meanwhile
        ([LOCKED] * 6, LOCKED, 6),  # the lock outlasts every pause
        (["no such collection"], "no such collection", 1),  # not a lock: at once
    ],
)
def test_opening_the_vectors_waits_for_another_writer(monkeypatch, failures, error, calls):
    monkeypatch.setattr(core.index, "CHROMA_BUSY_PAUSES", (0.0,) * 5)
    seen = []

    def open_vectors():
        seen.append(1)
        if len(seen) <= len(failures):
            raise RuntimeError(failures[len(seen) - 1])
        return "collection"

    if error is None:
        assert when_unlocked(open_vectors) == "collection"
    else:
        with pytest.raises(RuntimeError, match=re.escape(error)):
            when_unlocked(open_vectors)
    assert len(seen) == calls


def test_malformed_page_is_indexed_as_far_as_readable(index):
    broken = Page(id="9", space="ENG", title="Broken", url="u9", body="<p>unclosed <b>bold & stray")
    report = index.index_pages([broken])
    assert report.pages == 1 and not report.failed
    assert index.lexical_search("unclosed bold stray", k=1)


@pytest.mark.chroma_server
@pytest.mark.postgres
def test_index_in_server_mode(tmp_path, server_settings):
    """The same index operations with the vectors in a real Chroma server (`HttpClient`)
    and the evidence store in PostgreSQL."""
    settings = server_settings
    index = EvidenceIndex(settings, HashEmbedder())
    assert index.store.engine.dialect.name == "postgresql"
    index.index_pages(PAGES)
    assert index.dense_count() == index.count() > 0
    assert not (tmp_path / settings.collection / "index.sqlite").exists()
    retriever = Retriever(index, index.embedder, settings)
    top = retriever.search("Which TPM version does the Dell Optiplex 7040 have?").results[0]
    assert "Dell Optiplex 7040" in top.evidence.text
    index.delete_page("2")
    assert index.dense_count() == index.count()
    assert not index.lexical_search("Dell Optiplex", k=5)
    index.close()


def test_records_of_the_previous_store_format_are_imported_once(settings):
    """An index written before the SQL evidence store (evidence.sqlite and bm25s files
    beside the vectors) is taken over without re-embedding."""
    import dataclasses
    import json
    import sqlite3

    from core.contextualize import ContextOptions, page_evidences
    from core.store import page_record

    folder = settings.data_path / settings.collection
    folder.mkdir(parents=True)
    (folder / "bm25").mkdir()
    old = sqlite3.connect(str(folder / "evidence.sqlite"))
    old.executescript(
        "CREATE TABLE evidences (id TEXT PRIMARY KEY, page_id TEXT NOT NULL,"
        " space TEXT NOT NULL, record TEXT NOT NULL, tokens TEXT NOT NULL);"
        "CREATE TABLE pages (page_id TEXT PRIMARY KEY, space TEXT NOT NULL,"
        " record TEXT NOT NULL);"
    )
    for page in PAGES:
        evidences, _ = page_evidences(page, ContextOptions.from_settings(settings))
        old.execute("INSERT INTO pages VALUES (?, ?, ?)", (page.id, page.space, page_record(page)))
        old.executemany(
            "INSERT INTO evidences VALUES (?, ?, ?, ?, '[]')",
            [(e.id, e.page_id, e.space, json.dumps(dataclasses.asdict(e))) for e in evidences],
        )
    old.commit()
    old.close()
    embedder = HashEmbedder()
    index = EvidenceIndex(settings, embedder)
    assert index.page_ids() == {"1", "2", "3"} and embedder.calls == 0
    assert index.get([index.lexical_search("OXT-1654", k=1)[0][0]])[0].page_id == "1"
    assert not (folder / "evidence.sqlite").exists() and not (folder / "bm25").exists()
    assert (folder / "evidence.sqlite.imported").exists()
    index.close()
