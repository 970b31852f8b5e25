"""The cluster under chaos, as real processes in server mode on a PostgreSQL cluster and a
Chroma server of the test's own (tests/servers.py), so it can restart them: two `confbot
worker` processes sync three spaces every second under short leases and two web replicas
(`confbot serve --no-worker --no-socket-mode`) answer askers on `/api/ask`, while pages are
edited, added and deleted, a worker and a replica are killed with SIGKILL at seeded random
moments and started again, PostgreSQL is restarted and then the Chroma server.

At the end the store and the collection equal a clean build of the same pages (evidence
ids, vector ids, digests of the embedded text, page content digests) with no orphan, stale
or missing vector and no page left pending; the lease log shows no space written by two
holders in overlapping windows; no ask got a 5xx outside the outages (and during them only
503, a dependency down)."""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import threading
import time
import uuid
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import httpx
from sqlalchemy import select

from connectors.files import FilesSource
from connectors.state import SyncPage
from connectors.sync import SpaceSync
from core.db import session_factory, upgrade
from core.embeddings import make_embedder
from core.index import EvidenceIndex
from core.settings import Settings
from tests.fakes.openai_server import FakeOpenAI
from tests.processes import READY, Confbot
from tests.servers import ChromaServer, PostgresCluster

SEED = 33  # the kill moments and the edits follow from it
SPACES = {"DC": 10, "WEL": 6, "HR": 4}
LEASE_S = 6
STEPS = 11  # rounds of edits, one every 1.5 s or so
GRACE_S = 3.0  # after a server is back, the seconds an ask may still fail with a 503
RUNNING = re.compile(r"connectors\.schedule: sync ")  # a worker's first run ended
TAKEN = re.compile(
    r"lease on space (\S+) (taken|given back|left to lapse|lost) by (\S+)"
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


def vector_faults(view: dict) -> dict[str, int]:
    """Orphan vectors (no stored evidence), missing ones (a stored evidence without its
    vector) and stale ones (embedded from other text than the stored evidence's)."""
    vectors, stored = view["vectors"], view["evidences"]
    return {
        "orphan": len(vectors.keys() - stored.keys()),
        "missing": len(stored.keys() - vectors.keys()),
        "stale": sum(1 for i in vectors.keys() & stored.keys() if vectors[i] != stored[i]),
    }


def difference(view: dict, wanted: dict, workers: list[Confbot]) -> str:
    """What keeps the index from the clean build, for a failure's message: its vector
    faults, pending pages, evidences it lacks or has in excess, and the workers' warnings."""
    have, want = view["evidences"], wanted["evidences"]
    warnings = [
        line
        for process in workers
        for line in process.drain().splitlines(keepends=True)
        if " WARNING " in line or " ERROR " in line
    ]
    return (
        f"not converged: {vector_faults(view)}, {view['pending']} pending, lacking"
        f" {sorted(want.keys() - have.keys())[:10]}, in excess"
        f" {sorted(have.keys() - want.keys())[:10]}, changed"
        f" {sorted(i for i in have.keys() & want.keys() if have[i] != want[i])[:10]};"
        " the workers' last warnings:\n" + "".join(warnings[-15:])
    )


class Askers:
    """Threads asking the live replicas in turn on `/api/ask`, each ask recorded as
    (start, end, HTTP status or None when the replica could not be reached)."""

    def __init__(self, threads: int = 2):
        self.urls: list[str] = []
        self.asks: list[tuple[float, float, int | None]] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._ask, args=(n,)) for n in range(threads)]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            if thread.is_alive():
                thread.join()

    def _ask(self, n: int) -> None:
        with httpx.Client(timeout=30) as client:
            turn = 0
            while not self._stop.is_set():
                turn += 1
                urls = list(self.urls)
                url = urls[(turn + n) % len(urls)]
                question = f"What does part {turn % 3} of DC page {turn % 10} say?"
                started = time.time()
                try:
                    reply = client.post(
                        f"{url}/api/ask",
                        json={"question": question, "conversation": f"asker-{n}-{turn}"},
                    )
                    status: int | None = reply.status_code
                except httpx.TransportError:  # a replica killed or not started yet
                    status = None
                self.asks.append((started, time.time(), status))
                time.sleep(0.1)


def test_a_cluster_under_chaos_ends_as_a_clean_build(tmp_path):
    postgres = PostgresCluster()
    chroma = ChromaServer()
    try:
        postgres.start()
        chroma.start()
        with FakeOpenAI() as openai:
            _run_chaos(tmp_path, postgres, chroma, openai)
    finally:
        chroma.close()
        postgres.close()


def _run_chaos(tmp_path: Path, postgres: PostgresCluster, chroma: ChromaServer, openai) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    rng = random.Random(SEED)
    live: dict[str, set[int]] = {s: set(range(n)) for s, n in SPACES.items()}
    for space, numbers in live.items():
        for number in numbers:
            write_page(folder, space, number, "first")
    environ = {
        "HOME": str(tmp_path),
        "CONFBOT_DATABASE_URL": postgres.url,
        "CONFBOT_CHROMA_URL": chroma.url,
        "CONFBOT_COLLECTION": f"chaos-{uuid.uuid4().hex[:8]}",
        "CONFBOT_EMBEDDER": "openai",
        "CONFBOT_EMBEDDINGS_BASE_URL": openai.base_url,
        "OPENAI_API_KEY": "sk-test",
        "CONFBOT_SYNC_SOURCE": "files",
        "CONFBOT_SYNC_FILES_PATH": str(folder),
        "CONFBOT_SYNC_SCHEDULE": "1s",
        "CONFBOT_SYNC_LEASE": f"{LEASE_S}s",
        "CONFBOT_CONFLUENCE_PAGE_SIZE": "4",
    }
    upgrade(postgres.url)  # `confbot init`, once, before the processes start
    settings = Settings.load(environ={**environ, "CONFBOT_DATA_DIR": str(tmp_path / "t")})
    index = EvidenceIndex(settings, make_embedder(settings))
    started = 0

    def confbot(*args: str) -> Confbot:
        nonlocal started
        started += 1
        return Confbot(list(args), {**environ, "CONFBOT_DATA_DIR": str(tmp_path / f"p{started}")})

    def worker() -> Confbot:
        return confbot("-v", "worker")  # -v: the lease log is at debug level

    def replica() -> Confbot:
        return confbot("serve", "--no-worker", "--no-socket-mode", "--port", "0")

    workers = [worker(), worker()]
    replicas = [replica(), replica()]
    askers = Askers()
    logs: list[str] = []
    killed: dict[str, float] = {}
    outages: list[tuple[float, float]] = []  # a server stopped .. back, plus GRACE_S
    # The seeded moments: the step each event comes at (and, below, how far into it). A
    # worker or a replica started while a server is down exits (a configuration error, for
    # its supervisor to start it again), so the killed ones' successors start after both
    # restarts, the worker's after a pause, as a supervisor's back-off would.
    kill_worker_at = rng.randint(0, 3)
    postgres_at, chroma_at = 4, 6
    restart_worker_at, kill_replica_at = 7, rng.randint(7, 9)
    try:
        askers.urls = [r.wait_for(READY, timeout=120).group(1) for r in replicas]
        deadline = time.monotonic() + 90
        while len(index.page_ids()) < sum(SPACES.values()):
            assert time.monotonic() < deadline, workers[0].output + workers[1].output
            time.sleep(0.5)
        askers.start()
        for step in range(STEPS):
            space = rng.choice(sorted(SPACES))
            for number in rng.sample(sorted(live[space]), 2):
                write_page(folder, space, number, f"edit {step}")
            gone = rng.choice(sorted(live[space]))
            (folder / f"{space}-{gone}.json").unlink()
            live[space].discard(gone)
            new = max(live[space], default=0) + 100 + step
            write_page(folder, space, new, f"new {step}")
            live[space].add(new)
            time.sleep(rng.uniform(0.0, 1.0))
            if step == kill_worker_at:  # no chance to give anything back
                workers[0].stop(signal.SIGKILL)
                killed[str(workers[0].process.pid)] = time.time()
                logs.append(workers[0].output)
            if step == postgres_at:
                down = time.time()
                postgres.stop()
                time.sleep(2.0)
                postgres.start()
                outages.append((down, time.time() + GRACE_S))
            if step == chroma_at:
                down = time.time()
                chroma.stop()
                time.sleep(2.0)
                chroma.start()
                outages.append((down, time.time() + GRACE_S))
            if step == restart_worker_at:
                workers[0] = worker()
            if step == kill_replica_at:
                askers.urls = askers.urls[1:]
                replicas[0].stop(signal.SIGKILL)
                replicas[0] = replica()
            time.sleep(1.0)
        # The killed replica's successor answers too.
        askers.urls = [replicas[0].wait_for(READY, timeout=120).group(1), *askers.urls]

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
        deadline = time.monotonic() + 45
        while (now := picture(index)) != wanted:  # the workers' next runs catch up
            assert time.monotonic() < deadline, difference(now, wanted, workers)
            time.sleep(1.0)
        time.sleep(1.0)  # a few asks of the restarted replica
    finally:
        askers.stop()
        for process in [*workers, *replicas]:  # all at once: they stop side by side
            process.process.send_signal(signal.SIGTERM)
        for process in [*workers, *replicas]:
            try:
                process.finish()  # also collects the output of one that exited
            except subprocess.TimeoutExpired:  # killed: its exit code fails the test below
                process.process.wait()
        for process in workers:
            logs.append(process.output)

    final = picture(index)
    assert vector_faults(final) == {"orphan": 0, "missing": 0, "stale": 0}
    assert final["vectors"] == final["evidences"] == wanted["evidences"]
    assert final["pending"] == 0
    assert page_digests(postgres.url) == page_digests(clean_settings.sqlalchemy_url)
    for process in [*workers, *replicas]:
        assert process.process.returncode == 0, process.output[-4000:]

    # No ask got a 5xx outside the outages; during them only 503s (a dependency down).
    def in_outage(start: float, end: float) -> bool:
        return any(start <= until and end >= down for down, until in outages)

    statuses = [status for _, _, status in askers.asks]
    assert statuses.count(200) > 20, statuses
    outside = [a for a in askers.asks if a[2] and a[2] >= 500 and not in_outage(a[0], a[1])]
    assert outside == []
    assert {s for s in statuses if s and s >= 400} <= {503}, statuses
    last_outage = max(until for _, until in outages)
    assert [s for start, _, s in askers.asks if start > last_outage].count(200) > 0

    # No live writer's page was taken over by another worker's repair, and no space was
    # written by two holders at once.
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
    clean.close()


def _embedding(environ: dict[str, str]) -> dict[str, str]:
    """The embedding settings of `environ`: the clean build embeds as the workers do."""
    keys = ("CONFBOT_EMBEDDER", "CONFBOT_EMBEDDINGS_BASE_URL", "OPENAI_API_KEY", "HOME")
    return {key: environ[key] for key in keys}
