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

    def _mark_pending(self, page_ids):
        known = super()._mark_pending(page_ids)
        if self.step == "pending marked":
            raise Crash
        return known

    def _delete_vectors(self, page_ids):
        super()._delete_vectors(page_ids)
        if self.step == "vectors deleted":
            raise Crash

    def _add_vectors(self, evidences, vectors):
        super()._add_vectors(evidences, vectors)
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
