"""A sync survives faults and crashes: 429s and 500s on 10% of requests, an exception in
the middle of a batch, and the process killed with SIGKILL; each ends with exactly the
evidences of the current page versions, the same as a clean run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from connectors.state import SyncPage
from core.db import session_factory
from core.index import EvidenceIndex
from tests.fakes.confluence_server import FakeConfluence, generated_pages
from tests.fakes.hash_embedder import HashEmbedder
from tests.sync_helpers import run_sync, snapshot, sync_settings

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def embedder():
    return HashEmbedder()


def test_faults_do_not_change_the_result(tmp_path, embedder):
    """10% of requests answered 429 (Retry-After) or 500: same index as a clean run."""
    with FakeConfluence(generated_pages(40)) as fake:
        runs = []
        for name in ("clean", "faulty"):
            settings = sync_settings(tmp_path / name, fake, CONFBOT_CONFLUENCE_PAGE_SIZE="2")
            runs.append(
                (settings, EvidenceIndex(settings, embedder), 0.1 if name == "faulty" else 0)
            )
        reports = []
        faulty_requests = 0
        for step in range(2):
            if step:
                fake.edit("100031", body="<p>Second version</p>")
                fake.delete("100032")
            for settings, index, rate in runs:
                fake.fail_randomly(rate, seed=3 + step)
                before = len(fake.requests)
                reports.append(run_sync(settings, index, "GEN"))
                faulty_requests += (len(fake.requests) - before) if rate else 0
        faults = [r.status for r in fake.requests if r.status in (429, 500)]
    assert [(r.error, r.failed) for r in reports] == [(None, 0)] * 4
    assert {429, 500} <= set(faults)
    assert len(faults) >= 0.05 * faulty_requests
    clean, faulty = (snapshot(index) for _, index, _ in runs)
    assert faulty == clean
    assert len(clean["pages"]) == 39


def resume_matches_clean_run(settings, clean_settings, embedder) -> EvidenceIndex:
    """Resume the interrupted sync, check it ends exactly like a clean run of the same
    pages, and return the resumed index."""
    index = EvidenceIndex(settings, embedder)
    resumed = run_sync(settings, index, "GEN")
    clean = EvidenceIndex(clean_settings, embedder)
    run_sync(clean_settings, clean, "GEN")
    assert (resumed.error, resumed.failed) == (None, 0)
    assert snapshot(index) == snapshot(clean)
    return index


class Crash(BaseException):
    """Stands in for the process dying (not an Exception, so nothing catches it)."""


class CrashingIndex(EvidenceIndex):
    """An index whose process 'dies' after `after` page writes."""

    def __init__(self, *args, after: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.after = after

    def upsert_pages(self, items, vectors=None, fence=None):
        survive = items[: self.after]
        if survive:
            super().upsert_pages(
                survive,
                None if vectors is None else vectors[: sum(len(e) for _, e in survive)],
                fence,
            )
        self.after -= len(survive)
        if len(survive) < len(items):
            raise Crash


def test_crash_mid_batch_then_resume_ends_with_the_current_versions(tmp_path, embedder):
    with FakeConfluence(generated_pages(30)) as fake:
        clean_settings = sync_settings(tmp_path / "clean", fake, CONFBOT_CONFLUENCE_PAGE_SIZE="10")
        settings = sync_settings(tmp_path / "crash", fake, CONFBOT_CONFLUENCE_PAGE_SIZE="10")
        crashing = CrashingIndex(settings, embedder, after=14)  # inside the second batch
        with pytest.raises(Crash):
            run_sync(settings, crashing, "GEN")
        crashing.close()
        with session_factory(settings.sqlalchemy_url)() as db:
            recorded = set(db.scalars(select(SyncPage.page_id)))
        assert len(recorded) == 10  # the first batch; pages 11-14 are indexed, not recorded
        fake.edit("100003", body="<p>Edited while the sync was down</p>")
        fake.edit("100012", body="<p>Edited after its unrecorded write</p>")
        fake.delete("100025")

        index = resume_matches_clean_run(settings, clean_settings, embedder)
    assert "Edited while" in index.get(index.page_evidence_ids("100003"))[0].text


CHILD = """
from connectors.confluence import ConfluenceSource
from connectors.sync import SpaceSync
from core.index import EvidenceIndex
from core.settings import Settings
from tests.fakes.hash_embedder import HashEmbedder

settings = Settings.load()
index = EvidenceIndex(settings, HashEmbedder())
SpaceSync(settings, index, ConfluenceSource(settings)).run("GEN")
print("finished")
"""


def test_sigkill_mid_run_then_resume_ends_with_the_current_versions(tmp_path, embedder):
    with FakeConfluence(generated_pages(60)) as fake:
        fake.delay = 0.05  # slow enough to be killed mid-run
        extra = {"CONFBOT_CONFLUENCE_PAGE_SIZE": "5"}
        settings = sync_settings(tmp_path / "killed", fake, **extra)
        clean_settings = sync_settings(tmp_path / "clean", fake, **extra)
        environ = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(ROOT),
            "CONFBOT_DATA_DIR": settings.data_dir,
            **fake.settings_environ(),
            **extra,
        }
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD], cwd=ROOT, env=environ, stdout=subprocess.PIPE
        )
        sessions = session_factory(settings.sqlalchemy_url)
        deadline = time.monotonic() + 60
        recorded = 0
        while recorded < 15 and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            with sessions() as db:
                recorded = db.scalar(select(func.count()).select_from(SyncPage))
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        assert child.returncode == -signal.SIGKILL
        assert b"finished" not in child.stdout.read()
        assert 15 <= recorded < 60
        fake.delay = 0
        fake.edit("100002", body="<p>Edited while the sync was down</p>")
        fake.edit("100040", body="<p>A page the killed run never reached</p>")
        fake.delete("100001")

        index = resume_matches_clean_run(settings, clean_settings, embedder)
    assert len(index.page_ids()) == 59
