"""The sync worker: schedules from settings, jobs kept in the SQL job store across restarts,
no overlapping runs of a space, and a graceful stop on shutdown and on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import func, select

from connectors.schedule import DISCOVERY_JOB, Worker, parse_schedule
from connectors.state import SyncPage, SyncSpace
from core.db import session_factory
from core.index import EvidenceIndex
from tests.fakes.confluence_server import FakeConfluence, generated_pages
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import sync_settings

ROOT = Path(__file__).resolve().parents[1]


def wait_for(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def pages_folder(tmp_path: Path) -> Path:
    """Two spaces of two pages each, as ConfQuestions JSON files."""
    folder = tmp_path / "pages"
    folder.mkdir()
    for n, space in enumerate("AABB"):
        record = {
            "id": f"p{n}",
            "title": f"Page {n}",
            "url": "",
            "space": space,
            "date": "2024-11-15",
            "content": f"<p>Text of page {n}.</p>",
        }
        (folder / f"{n}.json").write_text(json.dumps(record), encoding="utf-8")
    return folder


def files_environ(folder: Path) -> dict[str, str]:
    return {"CONFBOT_SYNC_SOURCE": "files", "CONFBOT_SYNC_FILES_PATH": str(folder)}


@pytest.mark.parametrize(
    ("spec", "kind", "text"),
    [
        ("15m", IntervalTrigger, "interval[0:15:00]"),
        ("30s", IntervalTrigger, "interval[0:00:30]"),
        ("0 3 * * *", CronTrigger, "hour='3', minute='0'"),
        ("*/5 * * * 1-5", CronTrigger, "day_of_week='mon,tue,wed,thu,fri'"),
        ("0 9 * * mon", CronTrigger, "day_of_week='mon'"),
    ],
)
def test_parse_schedule(spec, kind, text):
    trigger = parse_schedule(spec)
    assert isinstance(trigger, kind)
    assert text in str(trigger)


@pytest.mark.parametrize(
    ("weekdays", "expected"),
    [
        ("1", {"Monday"}),
        ("0", {"Sunday"}),
        ("7", {"Sunday"}),
        ("1-5", {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}),
        ("0,6", {"Saturday", "Sunday"}),
        ("*/3", {"Sunday", "Wednesday", "Saturday"}),
        ("sat", {"Saturday"}),
    ],
)
def test_cron_weekdays_are_numbered_as_in_cron(weekdays, expected):
    """`0 9 * * 1` runs on Mondays, as cron(5) says, not on Tuesdays."""
    trigger = parse_schedule(f"0 9 * * {weekdays}")
    start = datetime(2026, 11, 22, tzinfo=UTC)  # a Sunday
    fired, previous = set(), None
    for _ in range(14):
        previous = trigger.get_next_fire_time(previous, previous or start)
        fired.add(previous.strftime("%A"))
        previous += timedelta(seconds=1)
    assert fired == expected


@pytest.mark.parametrize("spec", ["soon", "0", "0 3 * *", "-5m", "0 3 * * 8", "0 3 * * 5-2"])
def test_parse_schedule_rejects(spec):
    with pytest.raises(ValueError):
        parse_schedule(spec)


def test_jobs_survive_a_restart_and_follow_the_settings(tmp_path, pages_folder):
    settings = sync_settings(
        tmp_path / "data", **files_environ(pages_folder), CONFBOT_SYNC_SCHEDULE="1h"
    )
    index = EvidenceIndex(settings, HashEmbedder())
    first = Worker(settings, index)
    first.start()
    wait_for(lambda: first.runs["A"] and first.runs["B"])
    jobs = {job.id: job for job in first.scheduler.get_jobs()}
    first.shutdown()
    assert set(jobs) == {"sync:A", "sync:B", DISCOVERY_JOB}
    assert all(j.max_instances == 1 and j.coalesce for j in jobs.values())
    assert index.page_ids() == {"p0", "p1", "p2", "p3"}

    again = Worker(settings, index)  # same schedule: the stored next run times stay
    again.start()
    kept = {job.id: job.next_run_time for job in again.scheduler.get_jobs()}
    again.shutdown()
    assert kept == {job_id: job.next_run_time for job_id, job in jobs.items()}
    assert not again.runs

    changed = settings.replace(sync_spaces="A", sync_schedules="A=0 3 * * *")
    third = Worker(changed, index)
    third.start()
    (job,) = [j for j in third.scheduler.get_jobs() if j.id != DISCOVERY_JOB]
    third.shutdown()
    assert job.id == "sync:A"
    assert isinstance(job.trigger, CronTrigger)


def test_a_space_found_or_configured_later_is_synced_without_a_restart(
    tmp_path, pages_folder, monkeypatch
):
    """A space whose pages appear in the files folder, then a space list changed in the
    settings file (CONFBOT_CONFIG), reach the running worker at its next discovery."""
    settings = sync_settings(
        tmp_path / "data",
        **files_environ(pages_folder),
        CONFBOT_SYNC_SCHEDULE="1h",
        CONFBOT_SYNC_DISCOVERY_INTERVAL="0.2s",
    )
    index = EvidenceIndex(settings, HashEmbedder())
    worker = Worker(settings, index)
    worker.start()
    try:
        wait_for(lambda: worker.runs["A"] and worker.runs["B"])
        record = {"id": "c0", "title": "New", "url": "", "space": "C", "date": "2024-11-15"}
        record["content"] = "<p>A page of a new space.</p>"
        (pages_folder / "c.json").write_text(json.dumps(record), encoding="utf-8")
        wait_for(lambda: worker.runs["C"] and "c0" in index.page_ids())

        config = tmp_path / "confbot.toml"
        config.write_text('sync_spaces = "A,C"\n', encoding="utf-8")
        monkeypatch.setenv("CONFBOT_CONFIG", str(config))
        wait_for(lambda: worker.scheduler.get_job("sync:B") is None)
        assert worker.scheduler.get_job("sync:C") is not None
    finally:
        worker.shutdown()


def test_runs_of_a_space_never_overlap(tmp_path, pages_folder):
    settings = sync_settings(
        tmp_path / "data", **files_environ(pages_folder), CONFBOT_SYNC_SCHEDULE="0.1s"
    )
    spans: list[tuple[str, float, float]] = []

    class SlowWorker(Worker):
        def sync(self, space):
            started = time.monotonic()
            time.sleep(0.4)
            spans.append((space, started, time.monotonic()))
            self.runs[space] += 1

    worker = SlowWorker(settings, EvidenceIndex(settings, HashEmbedder()))
    worker.start()
    time.sleep(2.0)
    worker.shutdown()
    for space in "AB":
        mine = sorted((s, e) for name, s, e in spans if name == space)
        assert len(mine) >= 2
        assert all(end <= next_start for (_, end), (next_start, _) in pairwise(mine))
    assert len(spans) <= 2.0 / 0.4 + 1  # due runs were skipped or coalesced, not queued up


def test_shutdown_stops_a_running_sync_at_a_batch_boundary(tmp_path):
    with FakeConfluence(generated_pages(40)) as fake:
        fake.delay = 0.1
        settings = sync_settings(
            tmp_path, fake, CONFBOT_CONFLUENCE_PAGE_SIZE="5", CONFBOT_SYNC_SPACES="GEN"
        )
        worker = Worker(settings, EvidenceIndex(settings, HashEmbedder()))
        sessions = session_factory(settings.sqlalchemy_url)

        def recorded() -> int:
            with sessions() as db:
                return db.scalar(select(func.count()).select_from(SyncPage))

        worker.start()
        wait_for(lambda: recorded() >= 5)
        worker.shutdown()
    report = worker.reports["GEN"]
    assert report.error == "stopped"
    assert recorded() % 5 == 0 and recorded() < 40
    assert len(worker.index.page_ids()) == recorded()


def test_confbot_worker_stops_gracefully_on_sigterm(tmp_path, pages_folder):
    """`confbot worker` (the real command, offline embedder) syncs, then exits 0 on SIGTERM."""
    settings = sync_settings(tmp_path / "data", **files_environ(pages_folder))
    environ = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "CONFBOT_DATA_DIR": settings.data_dir,
        **files_environ(pages_folder),
    }
    child = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "worker"],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(child.stdout), daemon=True)
    reader.start()
    sessions = session_factory(settings.sqlalchemy_url)

    def synced() -> bool:
        with sessions() as db:
            return db.scalar(select(func.count()).where(SyncSpace.last_run_at.is_not(None))) == 2

    try:
        wait_for(synced, timeout=60)
        child.send_signal(signal.SIGTERM)
        assert child.wait(20) == 0
    finally:
        child.kill()
    reader.join(5)
    text = "".join(output)
    assert "sync A: 2 added" in text
    assert "SIGTERM received: stopping" in text
