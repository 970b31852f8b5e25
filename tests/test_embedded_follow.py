"""Embedded mode with a web process and a separate worker: Chroma's embedded client loads a
collection's vectors once per process, so the web process opens them again once the store
says another process wrote, and its searches find the worker's new vectors."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import core.index
from core.index import EvidenceIndex
from core.pages import Page
from core.settings import Settings
from tests.fakes.hash_embedder import HashEmbedder

ROOT = Path(__file__).resolve().parents[1]

WRITER = textwrap.dedent(
    """
    import sys
    from core.index import EvidenceIndex
    from core.pages import Page
    from core.settings import Settings
    from tests.fakes.hash_embedder import HashEmbedder

    settings = Settings.load(environ={"CONFBOT_DATA_DIR": sys.argv[1]})
    index = EvidenceIndex(settings, HashEmbedder())
    body = "<p>The walrus protocol governs the night shift handover.</p>"
    index.index_pages([Page(id="w1", space="S", title="Walrus", url="u", body=body)])
    """
)


def nearest_pages(index: EvidenceIndex, text: str) -> set[str]:
    hits = index.dense_search(index.embedder.embed([text])[0], k=5)
    return {e.page_id for e in index.get([i for i, _ in hits])}


def eventually(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_web_process_follows_the_vectors_a_worker_process_writes(tmp_path, monkeypatch):
    """The reopening runs in a thread (searches go on meanwhile) and at most every
    `VECTOR_REOPEN_S` once the writes paused `VECTOR_SETTLE_S`, all 0 here."""
    monkeypatch.setattr(core.index, "VECTOR_FOLLOW_S", 0.0)
    monkeypatch.setattr(core.index, "VECTOR_REOPEN_S", 0.0)
    monkeypatch.setattr(core.index, "VECTOR_SETTLE_S", 0.0)
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path / "data")})
    web = EvidenceIndex(settings, HashEmbedder())
    body = "<p>Lunch is served at noon in the atrium.</p>"
    web_writer = EvidenceIndex(settings, HashEmbedder())  # stands for the first sync
    web_writer.index_pages([Page(id="l1", space="S", title="Lunch", url="u", body=body)])
    assert nearest_pages(web, "walrus protocol night shift") == {"l1"}

    environ = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, "-c", WRITER, str(tmp_path / "data")], env=environ, check=True, cwd=ROOT
    )
    assert web.count() == web.dense_count() == 2  # records were always seen...
    eventually(lambda: "w1" in nearest_pages(web, "walrus protocol night shift"))  # vectors too


def test_a_process_that_writes_keeps_its_own_vectors_open(tmp_path, monkeypatch):
    monkeypatch.setattr(core.index, "VECTOR_FOLLOW_S", 0.0)
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path / "data")})
    index = EvidenceIndex(settings, HashEmbedder())
    index.index_pages([Page(id="a", space="S", title="A", url="u", body="<p>Alpha text.</p>")])
    collection = index._collection
    assert nearest_pages(index, "alpha") == {"a"}
    assert index._collection is collection  # its own writes are in what it has open


def test_vectors_are_opened_again_once_writes_pause_or_when_too_far_behind(tmp_path, monkeypatch):
    """A sync writing batch after batch does not have the vectors reloaded after every
    batch (each reload costs the answers of the moment): they wait for a pause, or for
    `VECTOR_BEHIND_MAX_S` behind."""
    monkeypatch.setattr(core.index, "VECTOR_FOLLOW_S", 0.0)
    clock = [1000.0]
    monkeypatch.setattr(core.index.time, "monotonic", lambda: clock[0])
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path / "data")})
    web = EvidenceIndex(settings, HashEmbedder())
    generation = [web.store.generation()]
    monkeypatch.setattr(web.store, "generation", lambda: generation[0])
    reopened: list[int] = []

    def reopen(seen: int) -> None:
        reopened.append(seen)
        web._vectors_generation = seen
        web._behind_since = None
        web._follow_lock.release()

    monkeypatch.setattr(web, "_reopen", reopen)

    class AtOnce:  # the reopening thread, run in the caller's so the test reads no race
        def __init__(self, target, args, **_):
            self.run = lambda: target(*args)

        def start(self):
            self.run()

    monkeypatch.setattr(core.index, "threading", SimpleNamespace(Thread=AtOnce))

    def ask_while_another_process_writes(seconds: float) -> None:
        generation[0] += 1
        clock[0] += seconds
        web._searched()

    for _ in range(10):  # a write every second: never settled, not yet too far behind
        ask_while_another_process_writes(1.0)
    assert reopened == []
    clock[0] += core.index.VECTOR_SETTLE_S  # the writes pause
    web._searched()
    assert reopened == [generation[0]]
    for _ in range(int(core.index.VECTOR_BEHIND_MAX_S) + 1):  # writes that never pause
        ask_while_another_process_writes(1.0)
    assert len(reopened) == 2  # reopened once, behind for VECTOR_BEHIND_MAX_S
