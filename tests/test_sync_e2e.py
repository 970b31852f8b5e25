"""End to end: the worker syncs the 215 ConfQuestions pages from the fake Confluence on
its schedule; an edit is searchable and a deleted page gone after the next runs, and
only the edited page is embedded again."""

from __future__ import annotations

import time

import pytest

from connectors.schedule import Worker
from core.index import EvidenceIndex
from core.retrieve import Retriever
from tests.fakes.confluence_server import FakeConfluence, pages_from_folder
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import snapshot, sync_settings

pytestmark = pytest.mark.benchmark_data


def wait_for(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_scheduled_sync_of_the_benchmark_pages(tmp_path, benchmark_dir):
    with FakeConfluence(pages_from_folder(benchmark_dir)) as fake:
        spaces = sorted({p.space for p in fake.pages.values()})
        edited = next(p for p in fake.pages.values() if p.space == "DC")
        deleted = next(p for p in fake.pages.values() if p.space == "TEST")
        settings = sync_settings(
            tmp_path, fake, CONFBOT_SYNC_SPACES=",".join(spaces), CONFBOT_SYNC_SCHEDULE="1s"
        )
        embedder = HashEmbedder()
        index = EvidenceIndex(settings, embedder)
        worker = Worker(settings, index)
        worker.start()
        try:
            wait_for(lambda: all(worker.runs[s] for s in spaces), timeout=120)
            assert len(index.page_ids()) == 215
            assert deleted.id in index.page_ids()
            evidences = snapshot(index)["evidences"]

            fake.edit(
                edited.id, body=edited.body + "<p>The quokka lantern rollout is on Thursday.</p>"
            )
            fake.delete(deleted.id)
            calls, runs = embedder.calls, dict(worker.runs)
            # two more runs: the second surely started after the change
            wait_for(lambda: all(worker.runs[s] >= runs[s] + 2 for s in ("DC", "TEST")), 60)
        finally:
            worker.shutdown()
    reembedded = embedder.calls - calls

    assert reembedded == len(index.page_evidence_ids(edited.id))
    after = snapshot(index)["evidences"]
    unchanged = {k: v for k, v in evidences.items() if v[1] not in (edited.id, deleted.id)}
    assert {k: after[k] for k in unchanged} == unchanged
    assert deleted.id not in index.page_ids()
    assert len(index.page_ids()) == 214

    retriever = Retriever(index, embedder, settings)
    top = retriever.search("When is the quokka lantern rollout?").results[0]
    assert top.evidence.page_id == edited.id
    assert "quokka lantern" in top.evidence.text
    hits = retriever.search(deleted.title, k=50).results
    assert hits and all(r.evidence.page_id != deleted.id for r in hits)
