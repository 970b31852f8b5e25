"""Many writers, one index, as real processes in server mode (PostgreSQL and a Chroma server
of CONFBOT_TEST_POSTGRES_URL and CONFBOT_TEST_CHROMA_URL; CI starts both): two `confbot
worker` processes sync three spaces every second under short leases while pages are edited,
added and deleted, searches run, and one worker is killed with SIGKILL and started again.
At the end the store and the collection equal a clean build of the same pages (evidence
ids, vector ids, digests of the embedded text, page content digests), no page is left
pending, searches never failed, and the lease log shows no space held by two holders at
once."""

from __future__ import annotations

import json
import random
import re
import signal
import threading
import time
import uuid
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from connectors.files import FilesSource
from connectors.state import SyncPage
from connectors.sync import SpaceSync
from core.db import session_factory, upgrade
from core.embeddings import make_embedder
from core.index import EvidenceIndex
from core.settings import Settings
from tests.fakes.openai_server import FakeOpenAI
from tests.processes import Confbot

pytestmark = [pytest.mark.postgres, pytest.mark.chroma_server]

SPACES = {"DC": 14, "WEL": 8, "HR": 6}
LEASE_S = 6
TAKEN = re.compile(
    r"lease on space (\S+) (taken|given back|lost) by (\S+)"
    r" \(generation (\d+)\) at ([0-9T:.+-]+)"
)


def write_page(folder: Path, space: str, number: int, text: str) -> None:
    """A ConfQuestions JSON page, written whole (renamed into place) so a sync never reads
    half a file."""
    record = {
        "id": f"{space}-{number}",
        "title": f"{space} page {number}",
        "url": "",
        "space": space,
        "date": "2024-11-15",
        "content": "".join(
            f"<h2>Part {i}</h2><p>{text} {space} part {i} of page {number}.</p>" for i in range(3)
        ),
    }
    partial = folder / f"{space}-{number}.partial"
    partial.write_text(json.dumps(record), encoding="utf-8")
    partial.rename(folder / f"{space}-{number}.json")


def picture(index: EvidenceIndex) -> dict:
    """What the index holds: vector id → (page, space, digest of the embedded text) in
    Chroma, the same for the stored evidences, and the pages marked pending."""
    got = index._collection.get(include=["metadatas"])
    vectors = {
        i: (m["page_id"], m["space"], m["digest"])
        for i, m in zip(got["ids"], got["metadatas"], strict=True)
    }
    ids = [i for p in sorted(index.page_ids()) for i in index.page_evidence_ids(p)]
    stored = {e.id: (e.page_id, e.space, index._digest(e)) for e in index.get(ids)}
    return {"vectors": vectors, "evidences": stored, "pending": index.consistency()["pending"]}


def page_digests(url: str) -> dict[str, str | None]:
    with session_factory(url)() as db:
        return dict(db.execute(select(SyncPage.page_id, SyncPage.digest)).all())


def lease_windows(logs: list[str], killed: dict[str, float]) -> dict[str, list[tuple]]:
    """Per space, (start, end, holder, generation, how it ended) of each lease, from the
    workers' logs; a killed holder's open lease ends at its kill."""
    opened: dict[tuple[str, int], tuple[float, str]] = {}
    windows: dict[str, list[tuple]] = defaultdict(list)
    for line in (line for log in logs for line in log.splitlines()):
        match = TAKEN.search(line)
        if not match:
            continue
        space, what, holder, generation, at = match.groups()
        moment = datetime.fromisoformat(at).timestamp()
        if what == "taken":
            opened[(space, int(generation))] = (moment, holder)
        elif (space, int(generation)) in opened:
            start, _ = opened.pop((space, int(generation)))
            windows[space].append((start, moment, holder, int(generation), what))
    for (space, generation), (start, holder) in opened.items():
        pid = holder.split(":")[1]
        windows[space].append((start, killed.get(pid, float("inf")), holder, generation, "open"))
    return windows


def test_two_workers_with_edits_and_a_kill_end_as_a_clean_build(tmp_path, postgres_url):
    import os

    folder = tmp_path / "pages"
    folder.mkdir()
    rng = random.Random(33)
    live: dict[str, set[int]] = {s: set(range(n)) for s, n in SPACES.items()}
    for space, numbers in live.items():
        for number in numbers:
            write_page(folder, space, number, "first")
    with FakeOpenAI() as openai:
        environ = {
            "HOME": str(tmp_path),
            "CONFBOT_DATABASE_URL": postgres_url,
            "CONFBOT_CHROMA_URL": os.environ["CONFBOT_TEST_CHROMA_URL"],
            "CONFBOT_COLLECTION": f"writers-{uuid.uuid4().hex[:8]}",
            "CONFBOT_EMBEDDER": "openai",
            "CONFBOT_EMBEDDINGS_BASE_URL": openai.base_url,
            "OPENAI_API_KEY": "sk-test",
            "CONFBOT_SYNC_SOURCE": "files",
            "CONFBOT_SYNC_FILES_PATH": str(folder),
            "CONFBOT_SYNC_SCHEDULE": "1s",
            "CONFBOT_SYNC_LEASE": f"{LEASE_S}s",
            "CONFBOT_CONFLUENCE_PAGE_SIZE": "4",
        }
        upgrade(postgres_url)
        settings = Settings.load(environ={**environ, "CONFBOT_DATA_DIR": str(tmp_path / "t")})
        index = EvidenceIndex(settings, make_embedder(settings))

        def worker(n: int) -> Confbot:
            # -v: the lease log (taken, given back) is at debug level
            return Confbot(
                ["-v", "worker"], {**environ, "CONFBOT_DATA_DIR": str(tmp_path / f"w{n}")}
            )

        workers = [worker(1), worker(2)]
        logs: list[str] = []
        killed: dict[str, float] = {}
        search_errors: list[BaseException] = []
        searches = 0
        stop_asking = threading.Event()

        def ask() -> None:
            nonlocal searches
            vector = index.embedder.embed_queries(["first part of page"])[0]
            while not stop_asking.is_set():
                try:
                    hits = index.dense_search(vector, k=10)
                    index.get([i for i, _ in hits])
                    index.lexical_search("part page", k=10)
                    searches += 1
                except Exception as exc:  # counted: no search may fail
                    search_errors.append(exc)
                time.sleep(0.05)

        asker = threading.Thread(target=ask)
        try:
            deadline = time.monotonic() + 90
            while len(index.page_ids()) < sum(SPACES.values()):
                assert time.monotonic() < deadline, workers[0].output + workers[1].output
                time.sleep(0.5)
            asker.start()
            for step in range(14):
                space = rng.choice(sorted(SPACES))
                for number in rng.sample(sorted(live[space]), 3):
                    write_page(folder, space, number, f"edit {step}")
                gone = rng.choice(sorted(live[space]))
                (folder / f"{space}-{gone}.json").unlink()
                live[space].discard(gone)
                new = max(live[space], default=0) + 100 + step
                write_page(folder, space, new, f"new {step}")
                live[space].add(new)
                if step == 6:  # a worker dies mid-run, with no chance to give anything back
                    victim = workers[0]
                    time.sleep(rng.uniform(0.0, 1.0))
                    victim.stop(signal.SIGKILL)
                    killed[str(victim.process.pid)] = time.time()
                    logs.append(victim.output)
                    workers[0] = worker(3)
                time.sleep(1.0)

            expected = {f"{s}-{n}" for s, numbers in live.items() for n in numbers}
            clean_settings = Settings.load(
                environ={"CONFBOT_DATA_DIR": str(tmp_path / "clean"), **_embedding(environ)}
            )
            upgrade(clean_settings.sqlalchemy_url)
            clean = EvidenceIndex(clean_settings, make_embedder(clean_settings))
            for space in SPACES:
                SpaceSync(clean_settings, clean, FilesSource(folder)).run(space)
            assert clean.page_ids() == expected
            wanted = picture(clean)
            deadline = time.monotonic() + 40
            while picture(index) != wanted:  # the workers' next runs catch up
                assert time.monotonic() < deadline, "the workers did not converge"
                time.sleep(1.0)
        finally:
            stop_asking.set()
            if asker.is_alive():
                asker.join()
            for process in workers:
                if process.process.poll() is None:
                    process.stop(signal.SIGTERM)
                logs.append(process.output)

        final = picture(index)
        assert final["vectors"] == final["evidences"] == wanted["evidences"]
        assert final["pending"] == 0
        assert page_digests(postgres_url) == page_digests(clean_settings.sqlalchemy_url)
        assert searches > 0 and search_errors == []
        for process in workers:
            assert process.process.returncode == 0, process.output
            assert "Traceback" not in process.output, process.output

        # No live writer's page was taken over by another worker's repair.
        assert not [line for log in logs for line in log.splitlines() if "taken over" in line]
        windows = lease_windows(logs, killed)
        assert set(windows) == set(SPACES)
        for space, held in windows.items():
            held.sort(key=lambda w: w[3])  # by generation
            starts = [w[0] for w in held]
            assert starts == sorted(starts), space
            for before, after in zip(held, held[1:], strict=False):
                assert after[0] >= before[1] - 0.05, (space, before, after)
        assert sum(len(w) for w in windows.values()) > 3 * len(SPACES)
        index.close()


def _embedding(environ: dict[str, str]) -> dict[str, str]:
    """The embedding settings of `environ`: the clean build embeds as the workers do."""
    keys = ("CONFBOT_EMBEDDER", "CONFBOT_EMBEDDINGS_BASE_URL", "OPENAI_API_KEY", "HOME")
    return {key: environ[key] for key in keys}
