"""The index keeps its three stores in step whatever fails: a page that fails anywhere is
isolated and reported while the rest is indexed; a crash at each write step leaves no vector
without its evidence once the pending marks are repaired; a search never loses a result to
an id the store no longer holds."""

from __future__ import annotations

import pytest

from core.index import EvidenceIndex
from core.pages import Page
from core.retrieve import Retriever
from core.settings import Settings
from tests.fakes.hash_embedder import HashEmbedder, PoisonEmbedder
from tests.sync_helpers import assert_in_step


def page(number: int, text: str = "", version: int = 1) -> Page:
    body = f"<h2>Section {number}</h2><p>{text or f'Page {number} talks about topic{number}.'}</p>"
    body += "".join(
        f"<p>Paragraph {i} of page {number}.</p><ul><li>x{i}</li></ul>" for i in range(3)
    )
    return Page(
        id=str(number), space="S", title=f"Page {number}", url=f"u{number}", body=body,
        version=version,
    )  # fmt: skip


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path / "data")})


@pytest.mark.parametrize(
    "error", [MemoryError("cannot allocate"), RecursionError("too deep"), ValueError("bad")]
)
def test_a_page_failing_at_embedding_is_reported_and_the_rest_indexed(settings, error):
    index = EvidenceIndex(settings, PoisonEmbedder(error=error))
    pages = [page(n, "POISON here" if n == 3 else "") for n in range(1, 7)]
    report = index.index_pages(pages)
    assert [page_id for page_id, _ in report.failed] == ["3"]
    assert report.failed[0][1].startswith(type(error).__name__)
    assert report.pages == 5 and index.page_ids() == {"1", "2", "4", "5", "6"}
    assert_in_step(index)


def test_a_page_failing_to_extract_is_reported_and_the_rest_indexed(settings):
    index = EvidenceIndex(settings, HashEmbedder())
    bad = Page(id="9", space="S", title="t", url="u", body="<p>x</p>", body_format="wiki")
    report = index.index_pages([page(1), bad, page(2)])
    assert [page_id for page_id, _ in report.failed] == ["9"]
    assert "unknown body format" in report.failed[0][1]
    assert index.page_ids() == {"1", "2"}


def test_progress_is_told_of_each_page_as_it_is_embedded(settings, monkeypatch):
    """`on_page` is called once per page, failed ones included, and pages are embedded a
    group at a time as they come, not all at once before the first write."""
    import core.index

    monkeypatch.setattr(core.index, "EMBED_GROUP", 10)
    embedder = PoisonEmbedder()
    calls = []
    embed = embedder.embed
    embedder.embed = lambda texts: (calls.append(len(texts)), embed(texts))[1]
    index = EvidenceIndex(settings, embedder)
    bad = Page(id="9", space="S", title="t", url="u", body="<p>x</p>", body_format="wiki")
    pages = [page(1), bad, page(2, "POISON here"), *[page(n) for n in range(3, 9)]]
    done = []
    report = index.index_pages(pages, on_page=lambda: done.append(len(calls)))
    assert len(done) == len(pages) and sorted(i for i, _ in report.failed) == ["2", "9"]
    assert len([n for n in calls if n]) > 2 and done == sorted(done) and done[0] < done[-1]
    assert index.page_ids() == {"1", *map(str, range(3, 9))}
    assert_in_step(index)


def test_a_failed_rewrite_keeps_the_old_version_in_step(settings):
    index = EvidenceIndex(settings, PoisonEmbedder())
    index.index_pages([page(1), page(2)])
    before = index.get(index.page_evidence_ids("2"))
    report = index.index_pages([page(2, "POISON now", version=2)])
    assert len(report.failed) == 1
    assert index.get(index.page_evidence_ids("2")) == before
    assert_in_step(index)


class Crash(BaseException):
    """Stands in for the process dying (not an Exception, so nothing catches it)."""


class CrashingIndex(EvidenceIndex):
    """An index whose process 'dies' right after one of its write steps."""

    def __init__(self, *args, step: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.step = step

    def _mark_pending(self, page_ids, owner=None):
        known = super()._mark_pending(page_ids, owner)
        if self.step == "pending marked":
            raise Crash
        return known

    def _delete_vectors(self, page_ids, unfinished=None, kept=()):
        super()._delete_vectors(page_ids, unfinished, kept)
        if self.step == "vectors deleted":
            raise Crash

    def _add_vectors(self, evidences, vectors, held=()):
        super()._add_vectors(evidences, vectors, held)
        if self.step == "vectors added":
            raise Crash


WRITES = {
    "new page": lambda index: index.index_pages([page(3)]),
    "new version": lambda index: index.index_pages([page(2, "Rewritten entirely.", version=2)]),
    "deletion": lambda index: index.delete_page("2"),
}
# Every write step each kind of write goes through (a new page has no vectors to delete,
# a deletion adds none).
CRASHES = [
    ("new page", "pending marked"),
    ("new page", "vectors added"),
    ("new version", "pending marked"),
    ("new version", "vectors deleted"),
    ("new version", "vectors added"),
    ("deletion", "pending marked"),
    ("deletion", "vectors deleted"),
]


@pytest.mark.parametrize(("write", "step"), CRASHES)
def test_a_crash_at_each_write_step_leaves_no_orphan_vector_after_repair(settings, write, step):
    embedder = HashEmbedder()
    EvidenceIndex(settings, embedder).index_pages([page(1), page(2)])
    crashing = CrashingIndex(settings, embedder, step=step)
    with pytest.raises(Crash):
        WRITES[write](crashing)
    crashing.close()

    restarted = EvidenceIndex(settings, embedder)  # a new process on the same data
    assert restarted.consistency()["pending"] == 1
    assert restarted.repair_pending() == 1
    assert_in_step(restarted)
    assert restarted.page_ids() >= {"1"}
    WRITES[write](restarted)  # the sync runs again and completes the write
    assert_in_step(restarted)


def test_rewriting_a_page_deletes_its_vectors_by_id_unless_its_last_write_stopped(settings):
    """A settled page's old vectors are deleted by id (no scan of the collection); a page
    whose write stopped after Chroma was written, with more evidences than the store knows,
    is rewritten (without a repair first) and keeps none of the vectors the store never
    recorded."""
    embedder = HashEmbedder()
    index = EvidenceIndex(settings, embedder)
    index.index_pages([page(1), page(2)])
    deletes = []
    delete = index._collection.delete
    index._collection.delete = lambda **kwargs: (deletes.append(kwargs), delete(**kwargs))[1]
    index.index_pages([page(2, "Rewritten.", version=2)])  # as many evidences as before
    assert deletes == []  # the upsert overwrites every vector
    shorter = Page(id="2", space="S", title="Page 2", url="u2", body="<p>Short.</p>", version=3)
    index.index_pages([shorter])
    assert deletes and all("where" not in d for d in deletes)  # by id: no collection scan
    assert_in_step(index)

    sections = "".join(f"<h2>Part {i}</h2><p>Paragraph {i} on topic {i}.</p>" for i in range(12))
    longer = Page(id="2", space="S", title="Page 2", url="u2", body=sections, version=3)
    crashing = CrashingIndex(settings, embedder, step="vectors added")
    with pytest.raises(Crash):
        crashing.index_pages([longer])
    crashing.close()
    restarted = EvidenceIndex(settings, embedder)
    assert restarted.dense_count() > restarted.count()  # vectors the store does not know
    restarted.index_pages([page(2, "Short again.", version=4)])
    assert restarted.consistency()["pending"] == 0
    assert_in_step(restarted)


def test_a_write_gives_way_while_searches_run(settings, monkeypatch):
    """Embedded Chroma stops every thread while it writes: with no search around, a batch
    is one write and the sync never pauses; after a search, vectors go in writes of
    `FOREGROUND_CHUNK`, so a search never waits for a whole batch, and each write batch is
    followed by a pause as long as it took; the index ends up the same."""
    import core.index

    monkeypatch.setattr(core.index, "FOREGROUND_CHUNK", 4)
    monkeypatch.setattr(core.index, "SEARCHES_RECENT_S", 3600.0)  # however slow the machine
    index = EvidenceIndex(settings, HashEmbedder())
    sizes, pauses = [], []
    upsert = index._collection.upsert
    index._collection.upsert = lambda **kw: (sizes.append(len(kw["ids"])), upsert(**kw))[1]
    monkeypatch.setattr(core.index.time, "sleep", pauses.append)
    many = [page(n, " ".join(["words"] * 300)) for n in range(1, 60)]  # over one batch
    index.index_pages(many[:2])
    assert len(sizes) == 1 and sizes[0] > 8 and pauses == []

    sizes.clear()
    index.lexical_search("topic1", k=3)
    index.index_pages(many[2:])
    written = sum(len(index.page_evidence_ids(p.id)) for p in many[2:])
    assert sum(sizes) == written > 256 and max(sizes) == 4
    assert pauses and all(p > 0 for p in pauses)
    assert_in_step(index)


def test_writes_are_larger_while_no_search_runs(settings, monkeypatch):
    """A sync with no search around writes `BULK_WRITE_BATCH` evidences per transaction
    (fewer SQLite commits); once searches run, batches shrink to `WRITE_BATCH`."""
    import core.index

    monkeypatch.setattr(core.index, "WRITE_BATCH", 10)
    monkeypatch.setattr(core.index, "BULK_WRITE_BATCH", 40)
    monkeypatch.setattr(core.index, "SEARCHES_RECENT_S", 3600.0)
    monkeypatch.setattr(core.index.time, "sleep", lambda _: None)
    index = EvidenceIndex(settings, HashEmbedder())
    batches: list[int] = []
    replace = index.store.replace_pages
    monkeypatch.setattr(
        index.store,
        "replace_pages",
        lambda items, *a, **kw: (
            batches.append(sum(len(e) for _, e in items)),
            replace(items, *a, **kw),
        )[1],
    )
    many = [page(n, f"Alpha {n}. Beta {n}. Gamma {n}.") for n in range(1, 41)]
    index.index_pages(many[:20])
    assert max(batches) >= 40 and len(batches) <= 3

    batches.clear()
    index.lexical_search("alpha", k=3)
    index.index_pages(many[20:])
    assert len(batches) >= 3 and max(batches) < 40
    assert_in_step(index)


def test_search_skips_ids_the_store_no_longer_holds_before_cutting_the_top_k(settings):
    embedder = HashEmbedder()
    index = EvidenceIndex(settings, embedder)
    index.index_pages([page(n, f"Shared words about deployment {n}.") for n in range(1, 9)])
    retriever = Retriever(index, embedder, settings.replace(top_k=10))
    before = retriever.search("deployment", k=10)
    assert len(before.results) == 10 and before.stale == 0
    doomed = before.results[0].evidence.page_id
    index.delete_page(doomed)
    index._collection.upsert(  # and a vector a crash left behind
        ids=["ghost#0000"],
        embeddings=embedder.embed(["deployment"]),
        metadatas=[{"page_id": "ghost", "space": "S"}],
    )
    after = retriever.search("deployment", k=10)
    assert len(after.results) == 10
    assert doomed not in {r.evidence.page_id for r in after.results}
    assert after.stale > 0
    assert [r.rank for r in after.results] == list(range(1, 11))
