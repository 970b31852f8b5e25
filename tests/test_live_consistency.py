"""Consistency while syncs run: one scheduler syncing every second (the worker `confbot serve`
runs, never restarted) and askers asking without pause, while pages are edited, added and
deleted, from a folder and from Confluence.

Every change must be visible within one sync interval plus the run that picks it up; no
answer may cite a deleted page once the sync that saw the deletion has finished; every
answer must have as many sources as the index can give (top_k); and at the end the vectors
and the stored evidences must agree exactly."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest

from connectors.schedule import Worker
from core.assistant import Assistant, ConversationKey
from core.conversation import ConversationStore
from core.extractive import ExtractiveLLM
from core.index import EvidenceIndex
from core.rephrase import OfflineCompleter
from core.retrieve import Retriever
from tests.fakes.confluence_server import FakeConfluence, FakePage, generated_pages
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import assert_in_step, sync_settings

INTERVAL = 1.0  # seconds between two syncs of the space
TOP_K = 10
QUESTIONS = ["deploy kernel", "backup restore policy", "budget invoice vendor", "incident"]


@dataclass
class Asked:
    started: float
    pages: set[str]
    sources: int


@dataclass
class Live:
    """A worker syncing every INTERVAL and two askers, over one index."""

    assistant: Assistant
    worker: Worker
    space: str
    asked: list[Asked] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    run_seconds: list[float] = field(default_factory=list)

    def start(self) -> None:
        self.worker.start()
        self.wait_for_runs(1)
        self.threads = [threading.Thread(target=self.ask_forever, args=(i,)) for i in range(2)]
        for thread in self.threads:
            thread.start()

    def ask_forever(self, number: int) -> None:
        n = 0
        while not self.stop.is_set():
            n += 1
            started = time.monotonic()
            key = ConversationKey("web", "", "", f"asker-{number}-{n}")
            turn = self.assistant.ask(key, QUESTIONS[n % len(QUESTIONS)])
            pages = {r.evidence.page_id for r in turn.evidences}
            self.asked.append(Asked(started, pages, len(turn.evidences)))

    def ask(self, question: str) -> list:
        key = ConversationKey("web", "", "", f"probe-{time.monotonic()}")
        return self.assistant.ask(key, question).evidences

    def wait_for_runs(self, count: int, since: int | None = None) -> float:
        """Wait until `count` more runs finished than `since` (default: now); when."""
        base = self.worker.runs[self.space] if since is None else since
        deadline = time.monotonic() + 60
        while self.worker.runs[self.space] < base + count:
            assert time.monotonic() < deadline, "the worker stopped syncing"
            time.sleep(0.02)
        report = self.worker.reports[self.space]
        assert report.error is None, report.error
        self.run_seconds.append(report.seconds)
        return time.monotonic()

    def visible(self, word: str, page_id: str) -> float:
        """Seconds until a search for `word` finds it on `page_id`."""
        started = time.monotonic()
        while not self.found(word, page_id):
            assert time.monotonic() - started < 30, f"{word} never became visible"
            time.sleep(0.05)
        return time.monotonic() - started

    def found(self, word: str, page_id: str) -> bool:
        return any(
            r.evidence.page_id == page_id and word in r.evidence.text for r in self.ask(word)
        )

    def deleted(self, page_id: str, runs_before: int) -> float:
        """When the first run that started after the deletion finished."""
        return self.wait_for_runs(2, since=runs_before)  # the run in progress may predate it

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(30)
        self.worker.shutdown()


def live(settings, space: str) -> Live:
    embedder = HashEmbedder()
    index = EvidenceIndex(settings, embedder)
    retriever = Retriever(index, embedder, settings.replace(top_k=TOP_K))
    assistant = Assistant(
        settings.replace(top_k=TOP_K),
        index,
        retriever,
        ExtractiveLLM(),
        OfflineCompleter(),
        ConversationStore(settings.sqlalchemy_url),
    )
    return Live(assistant, Worker(settings, index), space)


def exercise(run: Live, edit, add, delete) -> None:
    """Edit, add and delete a page while the askers ask; check every rule of the module."""
    run.start()
    try:
        latencies = [
            run.visible("zebraquartz", edit("zebraquartz")),
            run.visible("ocelotmarble", add("ocelotmarble")),
        ]
        runs = run.worker.runs[run.space]
        gone = delete()
        synced = run.deleted(gone, runs)
        time.sleep(3 * INTERVAL)  # asks go on after the deletion's sync
    finally:
        run.finish()
    slowest_run = max(run.run_seconds)
    assert max(latencies) <= INTERVAL + slowest_run + 1.0, (latencies, slowest_run)
    after = [a for a in run.asked if a.started > synced]
    assert len(after) > 10, "the askers kept asking after the deletion"
    assert not [a for a in after if gone in a.pages], "a deleted page was served"
    assert all(a.sources == TOP_K for a in run.asked), {a.sources for a in run.asked}
    assert len(run.asked) > 50
    assert_in_step(run.assistant.index)


def write_page(folder: Path, page: FakePage) -> None:
    record = {"id": page.id, "title": page.title, "space": page.space, "content": page.body}
    (folder / f"{page.id}.json").write_text(json.dumps(record), encoding="utf-8")


@pytest.fixture
def pages() -> list[FakePage]:
    return generated_pages(30, space="LIVE")


def test_a_folder_synced_while_asks_run(tmp_path, pages):
    folder = tmp_path / "pages"
    folder.mkdir()
    for page in pages:
        write_page(folder, page)
    settings = sync_settings(
        tmp_path / "data",
        CONFBOT_SYNC_SOURCE="files",
        CONFBOT_SYNC_FILES_PATH=str(folder),
        CONFBOT_SYNC_SCHEDULE=f"{INTERVAL:g}s",
        CONFBOT_SYNC_LISTING_INTERVAL="1h",  # the folder source lists on every run anyway
    )

    def edit(word: str) -> str:
        pages[3].body = f"<p>Now about {word} only.</p>"
        write_page(folder, pages[3])
        return pages[3].id

    def add(word: str) -> str:
        new = FakePage(id="999001", space="LIVE", title="New page", body=f"<p>{word} here</p>")
        write_page(folder, new)
        return new.id

    def delete() -> str:
        (folder / f"{pages[5].id}.json").unlink()
        return pages[5].id

    exercise(live(settings, "LIVE"), edit, add, delete)


def test_confluence_synced_while_asks_run(tmp_path, pages):
    with FakeConfluence(pages) as fake:
        settings = sync_settings(
            tmp_path / "data",
            fake,
            CONFBOT_SYNC_SPACES="LIVE",
            CONFBOT_SYNC_SCHEDULE=f"{INTERVAL:g}s",
        )  # listing every run (sync_helpers), as the deletion rule needs

        def edit(word: str) -> str:
            fake.edit(pages[3].id, body=f"<p>Now about {word} only.</p>")
            return pages[3].id

        def add(word: str) -> str:
            now = datetime.now(UTC)
            new = FakePage("999001", "LIVE", "New", f"<p>{word}</p>", created=now, modified=now)
            with fake.lock:
                fake.pages[new.id] = new
            return new.id

        def delete() -> str:
            fake.delete(pages[5].id)
            return pages[5].id

        exercise(live(settings, "LIVE"), edit, add, delete)
