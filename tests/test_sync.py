"""Sync runs against the fake Confluence: incremental changes, deletions, moves,
restrictions, failures, time zones and both pagination styles; and from a folder."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from connectors.confluence import ConfluenceSource
from connectors.files import FilesSource
from connectors.lease import SpaceLeases
from connectors.state import SyncLease, SyncPage, SyncSpace
from connectors.sync import SpaceSync, content_digest
from connectors.times import parse_interval, parse_time
from core.db import session_factory
from core.index import EvidenceIndex
from core.pages import Page
from tests.fakes.confluence_server import FakeConfluence, generated_pages
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import run_sync, snapshot, sync_settings


@pytest.fixture
def fake():
    with FakeConfluence(generated_pages(30)) as server:
        yield server


@pytest.fixture
def embedder():
    return HashEmbedder()


def test_parse_interval_table():
    assert parse_interval("0") == timedelta(0)
    assert parse_interval("30s") == timedelta(seconds=30)
    assert parse_interval("15m") == timedelta(minutes=15)
    assert parse_interval("1.5h") == timedelta(minutes=90)
    assert parse_interval("2d") == timedelta(days=2)
    with pytest.raises(ValueError, match="not an interval"):
        parse_interval("soon")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-01T10:15:30.000Z", datetime(2024, 3, 1, 10, 15, 30, tzinfo=UTC)),
        ("2024-03-01T12:15:30+02:00", datetime(2024, 3, 1, 10, 15, 30, tzinfo=UTC)),
        ("2024-11-15", datetime(2024, 11, 15, tzinfo=UTC)),
        ("", None),
        ("yesterday", None),
    ],
)
def test_parse_time(text, expected):
    assert parse_time(text) == expected


def test_digest_ignores_metadata():
    page = Page(id="1", space="S", title="T", url="u", body="<p>x</p>", version=1)
    moved = Page(
        id="1", space="S", title="T", url="u", body="<p>x</p>", version=2, ancestors=("9",)
    )
    edited = Page(id="1", space="S", title="T", url="u", body="<p>y</p>", version=2)
    assert content_digest(page) == content_digest(moved) != content_digest(edited)


def test_edit_reembeds_only_the_changed_page(tmp_path, fake, embedder):
    settings = sync_settings(tmp_path, fake)
    index = EvidenceIndex(settings, embedder)
    first = run_sync(settings, index, "GEN")
    assert (first.added, first.failed, first.error) == (30, 0, None)
    assert embedder.calls == index.count()

    fake.edit("100005", body="<p>The zanzibar procedure replaced the old one.</p>")
    calls, searches = embedder.calls, len(fake.searches())
    second = run_sync(settings, index, "GEN")

    assert (second.added, second.updated, second.deleted) == (0, 1, 0)
    assert embedder.calls - calls == len(index.page_evidence_ids("100005")) == 1
    new_searches = fake.searches()[searches:]
    assert "lastmodified >=" in new_searches[0].params["cql"]
    assert index.lexical_search("zanzibar", 1)[0][0].startswith("100005#")


def test_deleted_page_is_removed_when_the_space_is_listed(tmp_path, fake, embedder):
    settings = sync_settings(tmp_path, fake, CONFBOT_SYNC_LISTING_INTERVAL="1h")
    index = EvidenceIndex(settings, embedder)
    assert run_sync(settings, index, "GEN").listed
    fake.delete("100007")

    not_due = run_sync(settings, index, "GEN")
    assert (not_due.listed, not_due.deleted) == (False, 0)
    assert "100007" in index.page_ids()

    listed = run_sync(settings.replace(sync_listing_interval="0"), index, "GEN")
    assert (listed.listed, listed.deleted) == (True, 1)
    assert "100007" not in index.page_ids("GEN")
    assert not any(e.startswith("100007#") for e, _ in index.lexical_search("GEN-00007", 50))
    with session_factory(settings.sqlalchemy_url)() as db:
        assert db.get(SyncPage, "100007") is None


def test_move_updates_the_record_without_reembedding(tmp_path, fake, embedder):
    settings = sync_settings(tmp_path, fake)
    index = EvidenceIndex(settings, embedder)
    run_sync(settings, index, "GEN")
    before = snapshot(index)
    fake.move("100013", "100020")
    calls = embedder.calls

    report = run_sync(settings, index, "GEN")

    assert (report.moved, report.updated, report.added) == (1, 0, 0)
    assert embedder.calls == calls
    after = snapshot(index)
    assert after["evidences"] == before["evidences"]
    assert after["pages"]["100013"][1] == ("100020",)
    with session_factory(settings.sqlalchemy_url)() as db:
        assert db.get(SyncPage, "100013").ancestor_ids == ("100020",)


def test_restricted_pages_are_skipped_and_counted(tmp_path, fake, embedder):
    fake.restrict("100002")  # a page of its own
    fake.restrict("100010")  # a parent: 100011..100019 inherit it
    settings = sync_settings(tmp_path, fake).replace(sync_skip_restricted="true")
    index = EvidenceIndex(settings, embedder)
    report = run_sync(settings, index, "GEN")

    assert (report.added, report.skipped) == (30 - 11, 11)
    assert not index.page_ids() & {"100002", "100010", "100015"}
    with session_factory(settings.sqlalchemy_url)() as db:
        assert db.get(SyncPage, "100015").restricted

    # a page restricted after it was indexed leaves the index on the next full sync
    fake.restrict("100020")
    report = run_sync(settings, index, "GEN", full=True)
    assert report.skipped == 21
    assert "100025" not in index.page_ids()

    everything = settings.replace(sync_skip_restricted="false")
    assert run_sync(everything, index, "GEN").added == 21
    assert len(index.page_ids()) == 30


def test_a_page_that_fails_is_retried_next_run(tmp_path, fake, embedder):
    fake.pages["100004"].body = None  # the API returns a page without text
    settings = sync_settings(tmp_path, fake)
    index = EvidenceIndex(settings, embedder)
    first = run_sync(settings, index, "GEN")
    assert (first.added, first.failed, first.error) == (29, 1, None)
    assert first.failures[0][0] == "100004"
    with session_factory(settings.sqlalchemy_url)() as db:
        newest = max(p.modified for p in fake.pages.values())
        assert parse_time(db.get(SyncSpace, "GEN").cursor) == newest  # not held back

    fake.pages["100004"].body = "<p>Fixed body</p>"  # same version: fetched again by id
    second = run_sync(settings, index, "GEN")
    assert (second.added, second.failed) == (1, 0)
    assert any(r.path.endswith("/api/v2/pages/100004") for r in fake.requests)  # Cloud: v2
    assert "100004" in index.page_ids()


def test_overlap_covers_the_api_users_time_zone(tmp_path, embedder):
    pages = generated_pages(5)
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    pages[-1].modified = now - timedelta(hours=1)  # the cursor after the first run
    with FakeConfluence(pages, user_tz=timezone(timedelta(hours=-10))) as fake:
        hourly = {"CONFBOT_SYNC_LISTING_INTERVAL": "1h"}  # so the listing does not repair it
        no_overlap = sync_settings(tmp_path / "a", fake, CONFBOT_SYNC_OVERLAP_MINUTES="0", **hourly)
        default = sync_settings(tmp_path / "b", fake, **hourly)
        runs = [(s, EvidenceIndex(s, embedder)) for s in (no_overlap, default)]
        for settings, index in runs:
            run_sync(settings, index, "GEN")
        fake.edit("100001", body="<p>Edited after the cursor</p>")
        missed, found = (run_sync(s, i, "GEN").updated for s, i in runs)
    # the UTC cursor read as UTC-10 lies 10 hours ahead: only the overlap finds the edit
    assert (missed, found) == (0, 1)


def test_server_pages_by_start_and_limit(tmp_path, embedder):
    with FakeConfluence(generated_pages(23), cloud=False) as fake:
        settings = sync_settings(tmp_path, fake, CONFBOT_CONFLUENCE_PAGE_SIZE="7")
        index = EvidenceIndex(settings, embedder)
        assert run_sync(settings, index, "GEN").added == 23
        changes = [
            r for r in fake.searches() if "blogpost) order by lastmodified" in r.params["cql"]
        ]
        starts = [r.params.get("start", "0") for r in changes]
        assert all(r.headers["Authorization"] == "Bearer fake-token" for r in fake.requests)
        assert index.pages()[0].url.startswith(fake.url + "/pages/viewpage.action?pageId=")
    assert starts == ["0", "7", "14", "21"]


def test_cloud_follows_cursor_links(tmp_path, fake, embedder):
    settings = sync_settings(tmp_path, fake, CONFBOT_CONFLUENCE_PAGE_SIZE="8")
    index = EvidenceIndex(settings, embedder)
    assert run_sync(settings, index, "GEN").added == 30
    changes = [r for r in fake.searches() if "blogpost) order by lastmodified" in r.params["cql"]]
    assert len(changes) == 4
    assert "cursor" not in changes[0].params
    assert all("cursor" in r.params for r in changes[1:])
    assert all(r.status == 200 for r in fake.requests)


def test_files_source_sync(tmp_path, embedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(3):
        record = {
            "id": f"doc-{n}",
            "title": f"Doc {n}",
            "url": "",
            "space": "DOCS",
            "date": "2024-11-15",
            "content": f"<p>Document number {n}.</p>",
        }
        (folder / f"{n}.json").write_text(json.dumps(record), encoding="utf-8")
    settings = sync_settings(tmp_path / "data")
    index = EvidenceIndex(settings, embedder)

    def run():
        return SpaceSync(settings, index, FilesSource(folder)).run("DOCS")

    assert run().added == 3
    assert (run().unchanged, embedder.calls) == (3, 3)
    (folder / "1.json").write_text(
        (folder / "1.json").read_text().replace("number 1", "one, edited"), encoding="utf-8"
    )
    (folder / "2.json").unlink()
    report = run()
    assert (report.updated, report.deleted, report.unchanged) == (1, 1, 1)
    assert index.page_ids() == {"doc-0", "doc-1"}


def test_a_space_leased_by_another_worker_is_left_alone(tmp_path, fake, embedder):
    settings = sync_settings(tmp_path, fake)
    index = EvidenceIndex(settings, embedder)
    other = SpaceLeases(settings.sqlalchemy_url, timedelta(minutes=5), holder="elsewhere:1:x")
    assert other.acquire("GEN")
    report = run_sync(settings, index, "GEN")
    assert report.error == "not synced: elsewhere:1:x is syncing space GEN"
    assert report.added == 0 and index.count() == 0 and not fake.searches()
    other.release("GEN")
    assert run_sync(settings, index, "GEN").added == 30


def test_a_sync_that_lost_its_lease_stops_at_the_next_batch(tmp_path, fake, embedder):
    settings = sync_settings(tmp_path, fake, CONFBOT_CONFLUENCE_PAGE_SIZE="10")
    index = EvidenceIndex(settings, embedder)
    sync = SpaceSync(settings, index, ConfluenceSource(settings))
    thief = SpaceLeases(settings.sqlalchemy_url, timedelta(minutes=5), holder="thief:1:x")
    original = sync._apply

    def apply_then_lose_the_lease(*args, **kwargs):
        original(*args, **kwargs)
        with session_factory(settings.sqlalchemy_url)() as db:  # as if it had lapsed
            db.get(SyncLease, "GEN").expires_at = datetime.now(UTC) - timedelta(seconds=1)
            db.commit()
        assert thief.acquire("GEN")

    sync._apply = apply_then_lose_the_lease
    report = sync.run("GEN")
    assert report.error.startswith("LeaseLost") and "thief:1:x" in report.error
    assert report.added == 10  # the first batch, recorded; nothing after it
    assert thief.holder_of("GEN") == "thief:1:x"  # the stopped run did not release it


def assert_incremental(report) -> None:
    """A run that re-indexed nothing (it may re-read the pages of its overlap window)."""
    assert (report.added, report.updated, report.error) == (0, 0, None)


class RenamedEmbedder(HashEmbedder):
    """Another embedder, as far as the index can tell."""

    name = "hash-test-other"


def test_a_new_index_format_or_embedder_reindexes_every_page(tmp_path, fake, embedder, monkeypatch):
    """An upgrade that changes how evidences are made, or a new embedder, reaches every page
    on the next ordinary run, not only the pages edited after it; then runs are incremental
    again."""
    settings = sync_settings(tmp_path, fake)
    first = run_sync(settings, EvidenceIndex(settings, embedder), "GEN")
    assert first.added == 30
    assert_incremental(run_sync(settings, EvidenceIndex(settings, embedder), "GEN"))

    monkeypatch.setattr("core.index.INDEX_FORMAT", 999)
    upgraded = run_sync(settings, EvidenceIndex(settings, embedder), "GEN")
    assert (upgraded.updated, upgraded.unchanged, upgraded.error) == (30, 0, None)
    assert_incremental(run_sync(settings, EvidenceIndex(settings, embedder), "GEN"))

    other = RenamedEmbedder()
    index = EvidenceIndex(settings, other)
    switched = run_sync(settings, index, "GEN")
    assert switched.updated == 30 and index.dense_count() == index.count() > 0
    assert_incremental(run_sync(settings, index, "GEN"))


def test_an_interrupted_full_run_is_full_again(tmp_path, fake, embedder, monkeypatch):
    """The fingerprint is recorded only by a run that finished: a re-index cut short by an
    outage is taken up again whole by the next run."""
    settings = sync_settings(tmp_path, fake)
    run_sync(settings, EvidenceIndex(settings, embedder), "GEN")
    monkeypatch.setattr("core.index.INDEX_FORMAT", 999)
    fake.fail_next(9, status=500)  # every attempt of the first request (8 retries)
    broken = run_sync(settings, EvidenceIndex(settings, embedder), "GEN")
    assert broken.error is not None
    again = run_sync(settings, EvidenceIndex(settings, embedder), "GEN")
    assert (again.updated, again.error) == (30, None)
