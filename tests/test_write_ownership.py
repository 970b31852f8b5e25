"""Many writers, one index (core.ownership, connectors.lease): a repair never touches the
pages a live writer is writing, a writer whose lease was taken cannot commit, and two spaces
synced at once by two writers end as a clean build of the same pages."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from connectors.files import FilesSource
from connectors.lease import SpaceLeases
from connectors.state import SyncLease
from connectors.sync import SpaceSync
from core.db import session_factory, upgrade
from core.index import EvidenceIndex
from core.ownership import LeaseLost
from core.pages import Page
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import assert_in_step, state, sync_settings


def page(number: int, text: str, space: str = "DC") -> Page:
    body = "".join(f"<h2>Part {i}</h2><p>{text} part {i} of page {number}.</p>" for i in range(3))
    return Page(id=f"{space}-{number}", space=space, title=f"Page {number}", url="u", body=body)


class PausingIndex(EvidenceIndex):
    """An index whose writes stop after Chroma is written, before the store commits, until
    `resume` is set (a slow or stalled writer)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.paused = threading.Event()
        self.resume = threading.Event()

    def _add_vectors(self, evidences, vectors, held=()):
        super()._add_vectors(evidences, vectors, held)
        self.paused.set()
        assert self.resume.wait(30)


@pytest.fixture(
    params=[
        "embedded",
        pytest.param("server", marks=[pytest.mark.postgres, pytest.mark.chroma_server]),
    ]
)
def settings(request, tmp_path):
    """Embedded (SQLite, embedded Chroma) or, when CI provides the servers, server mode."""
    if request.param == "embedded":
        return sync_settings(tmp_path / "data")
    settings = request.getfixturevalue("server_settings")
    upgrade(settings.sqlalchemy_url)
    return settings


def leases(settings, holder: str, seconds: float = 300) -> SpaceLeases:
    return SpaceLeases(settings.sqlalchemy_url, timedelta(seconds=seconds), holder=holder)


def expire(settings, space: str) -> None:
    """As if the holder had stalled past its lease."""
    with session_factory(settings.sqlalchemy_url)() as db:
        db.get(SyncLease, space).expires_at = datetime.now(UTC) - timedelta(seconds=1)
        db.commit()


def write_in_thread(index: EvidenceIndex, pages, fence) -> tuple[threading.Thread, list]:
    errors: list[BaseException] = []

    def write() -> None:
        try:
            report = index.index_pages(pages, fence=fence)
            assert not report.failed, report.failed
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    assert index.paused.wait(30)
    return thread, errors


def test_a_repair_leaves_the_pages_a_live_writer_is_writing(settings):
    embedder = HashEmbedder()
    EvidenceIndex(settings, embedder).index_pages([page(n, "old") for n in range(4)])
    writer = PausingIndex(settings, embedder)
    lease = leases(settings, "host-a:1:x").acquire("DC")
    thread, errors = write_in_thread(writer, [page(n, "new") for n in range(4)], lease)

    other = leases(settings, "host-b:2:y")  # another worker starts a sync of another space
    other_lease = other.acquire("WEL")
    repairer = EvidenceIndex(settings, embedder)
    assert repairer.consistency()["pending"] == 4
    assert repairer.repair_pending(fence=other_lease, alive=other.alive) == 0
    writer.resume.set()
    thread.join()
    assert errors == []
    assert_in_step(repairer)
    assert "new part 0" in repairer.get(repairer.page_evidence_ids("DC-1"))[0].text


def test_a_writer_whose_lease_was_taken_cannot_commit(settings):
    """The writer stalls after writing Chroma; its lease lapses and another worker takes the
    space and repairs the page; the stalled writer's commit is refused (LeaseLost), it
    leaves the page marked, and the next repair leaves the index as the store says."""
    embedder = HashEmbedder()
    EvidenceIndex(settings, embedder).index_pages([page(n, "old") for n in range(3)])
    writer = PausingIndex(settings, embedder)
    lease = leases(settings, "host-a:1:x").acquire("DC")
    thread, errors = write_in_thread(writer, [page(1, "stale edit")], lease)

    expire(settings, "DC")
    taker = leases(settings, "host-b:2:y")
    taken = taker.acquire("DC")
    assert taken.token == lease.token + 1
    index = EvidenceIndex(settings, embedder)
    assert index.repair_pending(fence=taken, alive=taker.alive) == 1
    writer.resume.set()
    thread.join()
    assert len(errors) == 1 and isinstance(errors[0], LeaseLost)
    assert "old part 0" in index.get(index.page_evidence_ids("DC-1"))[0].text
    assert index.repair_pending(fence=taken, alive=taker.alive) == 1
    assert_in_step(index)
    with pytest.raises(LeaseLost, match="host-b:2:y"):  # and it writes nothing more
        writer.index_pages([page(2, "later")], fence=lease)
    assert index.consistency()["pending"] == 0


def test_a_lapsed_lease_is_not_renewed_and_its_writes_are_refused(settings):
    embedder = HashEmbedder()
    index = EvidenceIndex(settings, embedder)
    lease = leases(settings, "host-a:1:x").acquire("DC")
    index.index_pages([page(1, "first")], fence=lease)
    expire(settings, "DC")  # nobody took it, but it lapsed: repairs may treat it as gone
    with pytest.raises(LeaseLost, match="lapsed"):
        lease.renew()
    with pytest.raises(LeaseLost):
        index.delete_page("DC-1", fence=lease)
    assert index.page_ids() == {"DC-1"}
    assert_in_step(index)


def test_a_lease_is_renewed_by_time_while_a_batch_runs(settings):
    holder = leases(settings, "host-a:1:x", seconds=0.6)
    lease = holder.acquire("DC")
    with lease.kept_renewed():
        time.sleep(1.5)  # one long batch: more than twice the lease
        assert not leases(settings, "host-b:2:y").acquire("DC")
        lease.check()
    lease.release()
    assert leases(settings, "host-b:2:y").acquire("DC")


def test_a_failed_release_does_not_lock_the_worker_out(settings, monkeypatch):
    holder = leases(settings, "host-a:1:x")
    first = holder.acquire("DC")

    def blip(*args, **kwargs):
        raise OSError("connection refused")

    monkeypatch.setattr(holder, "_sessions", blip)
    first.release()  # logged, not raised
    monkeypatch.undo()
    again = holder.acquire("DC")  # the worker's next run
    assert again is not None and again.token == first.token + 1
    with pytest.raises(LeaseLost):  # the earlier run's writes are fenced off
        first.renew()


def write_space(folder, space: str, count: int, text: str) -> None:
    for n in range(count):
        record = {
            "id": f"{space}-{n}",
            "title": f"{space} page {n}",
            "url": "",
            "space": space,
            "date": "2024-11-15",
            "content": "".join(
                f"<h2>Part {i}</h2><p>{text} {space} part {i} of page {n}.</p>" for i in range(4)
            ),
        }
        (folder / f"{space}-{n}.json").write_text(json.dumps(record), encoding="utf-8")


class SlowIndex(EvidenceIndex):
    """Writes that take a while between Chroma and the store, as on a loaded machine."""

    def _add_vectors(self, evidences, vectors, held=()):
        super()._add_vectors(evidences, vectors, held)
        time.sleep(0.02)


def test_two_spaces_synced_at_once_end_as_a_clean_build(tmp_path):
    """The issue's reproduction: `sync --space DC` (edited each run) while `sync --space
    WEL` loops in another process; each WEL run repairs at its start and at its listing."""
    folder = tmp_path / "pages"
    folder.mkdir()
    write_space(folder, "DC", 12, "version 0")
    write_space(folder, "WEL", 4, "welcome")
    settings = sync_settings(tmp_path / "data", CONFBOT_CONFLUENCE_PAGE_SIZE="3")
    embedder = HashEmbedder()
    done = threading.Event()
    errors: list[str] = []

    indexes = {holder: SlowIndex(settings, embedder) for holder in ("host-a:1:x", "host-b:2:y")}

    def syncer(holder: str):  # a writer each, as two processes would be
        sync = SpaceSync(settings, indexes[holder], FilesSource(folder))
        sync.leases = leases(settings, holder)
        return sync

    def loop_wel() -> None:
        while not done.is_set():
            report = syncer("host-b:2:y").run("WEL", full=True)
            if report.error:
                errors.append(report.error)

    assert syncer("host-a:1:x").run("DC").added == 12
    looper = threading.Thread(target=loop_wel)
    looper.start()
    try:
        for version in range(1, 4):
            write_space(folder, "DC", 12 - version, f"version {version}")
            (folder / f"DC-{12 - version}.json").unlink()  # and a deletion
            report = syncer("host-a:1:x").run("DC")
            assert (report.error, report.updated, report.deleted) == (None, 12 - version, 1)
    finally:
        done.set()
        looper.join()
    assert errors == []
    index = EvidenceIndex(settings, embedder)
    assert_in_step(index)  # no stale, orphan or missing vector, no mark left

    clean_settings = sync_settings(tmp_path / "clean")
    clean = EvidenceIndex(clean_settings, embedder)
    for space in ("DC", "WEL"):
        SpaceSync(clean_settings, clean, FilesSource(folder)).run(space)
    assert state(index) == state(clean)
    digests = [
        dict(zip(got["ids"], got["metadatas"], strict=True))
        for got in (i._collection.get(include=["metadatas"]) for i in (index, clean))
    ]
    assert digests[0] == digests[1]


def test_a_full_sync_removes_the_orphan_vectors_of_its_space(tmp_path):
    """Vectors no stored evidence accounts for (left by an earlier version's race) are
    removed by `sync --full` of their space; other spaces' vectors stay."""
    folder = tmp_path / "pages"
    folder.mkdir()
    write_space(folder, "DC", 3, "text")
    write_space(folder, "WEL", 2, "welcome")
    settings = sync_settings(tmp_path / "data")
    index = EvidenceIndex(settings, HashEmbedder())
    for space in ("DC", "WEL"):
        assert SpaceSync(settings, index, FilesSource(folder)).run(space).error is None
    vector = index.embedder.embed(["ghost"])
    for space in ("DC", "WEL"):
        index._collection.upsert(
            ids=[f"{space}-gone#0000"],
            embeddings=vector,
            metadatas=[{"page_id": f"{space}-gone", "space": space}],
        )
    assert SpaceSync(settings, index, FilesSource(folder)).run("DC").error is None
    assert index.dense_count() == index.count() + 2  # an incremental run leaves them
    assert SpaceSync(settings, index, FilesSource(folder)).run("DC", full=True).error is None
    assert index.dense_count() == index.count() + 1
    assert "WEL-gone#0000" in index._collection.get(ids=["WEL-gone#0000"])["ids"]
