"""Answer latency while a full re-sync runs, against idle, in the mode the environment names.

Syncs the ConfQuestions pages (files source) into the index the settings name, then times
the answers of ASKERS threads asking the benchmark's English questions through the Assistant
(the offline answerer; each follow-up suggestion computed after its answer, as the surfaces
do; every question is asked once before, so that no first-time cost is timed):
for IDLE_S seconds with nothing else running, then while a separate process, as a worker
would be, runs `confbot sync --full` (every page re-indexed; the embedding cache spares the
embedder). Where the machine has more than 2 CPUs, the sync process gets a quarter of them
(at least one) and this process the others, as a deployment gives the worker its own
cores. Prints median and p95 of both, their ratio, the re-sync's time, the CPUs and load,
how many answers read again, in their own time, what the index derives from the store
(`core.refresh.Refreshed`: query translator, spelling corrector, page catalog) and for how
long, and how often the answering process opened the vectors again after the sync's writes
(single node; only when this run did not write the index itself, so run it twice on one
data folder: the first run builds the index).

Single node (SQLite store, embedded Chroma):
    CONFBOT_DATA_DIR=/tmp/bench-resync .venv/bin/python benchmarks/resync_latency.py
Server mode (PostgreSQL store, a Chroma server):
    CONFBOT_DATA_DIR=/tmp/bench-resync-server \\
    CONFBOT_DATABASE_URL=postgresql+psycopg2://... CONFBOT_CHROMA_URL=http://127.0.0.1:8000 \\
        .venv/bin/python benchmarks/resync_latency.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import DATA, percentile, summary_ms  # noqa: E402
from connectors.files import FilesSource  # noqa: E402
from connectors.sync import SpaceSync  # noqa: E402
from core.assistant import Assistant, ConversationKey  # noqa: E402
from core.evaluation.benchmark import load_conversations  # noqa: E402
from core.evaluation.benchmark import questions as benchmark_questions  # noqa: E402
from core.index import EvidenceIndex  # noqa: E402
from core.refresh import Refreshed  # noqa: E402
from core.settings import Settings  # noqa: E402

ASKERS = 2
IDLE_S = 30.0


RELOADS = threading.local()  # `ms`: time this thread spent computing derived values


def time_reloads() -> None:
    """Count the time each thread spends computing a `Refreshed` value in `RELOADS.ms`."""
    get = Refreshed.get

    def timed_get(self, key, compute, *args, **kwargs):
        def timed(previous):
            began = time.perf_counter()
            try:
                return compute(previous)
            finally:
                RELOADS.ms = getattr(RELOADS, "ms", 0.0) + (time.perf_counter() - began) * 1000

        return get(self, key, timed, *args, **kwargs)

    Refreshed.get = timed_get


REOPENED: list[float] = []  # seconds each opening of the vectors took (`count_reopens`)


def count_reopens() -> None:
    """Record each time the answering process opens the vectors again after the sync
    process wrote (`EvidenceIndex._reopen`, embedded mode only)."""
    reopen = EvidenceIndex._reopen

    def counted(self, generation):
        began = time.perf_counter()
        try:
            return reopen(self, generation)
        finally:
            REOPENED.append(time.perf_counter() - began)

    EvidenceIndex._reopen = counted


def questions_of(conversations: list[dict]) -> list:
    """The completed English questions of the benchmark."""
    return benchmark_questions(conversations, "completed", ("en",))


def cpu_split() -> tuple[set[int], set[int]]:
    """(the sync's CPUs, the askers' CPUs): a quarter of them (at least one) for the sync
    where there are more than 2, else all for both."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) <= 2:
        return set(cpus), set(cpus)
    share = max(1, len(cpus) // 4)
    return set(cpus[-share:]), set(cpus[:-share])


def ask_loop(assistant: Assistant, questions: list[str], stop: threading.Event, out: list):
    """Ask in new conversations until `stop`, appending each answer's (start, end, ms it
    spent reloading derived values)."""
    n = 0
    while not stop.is_set():
        key = ConversationKey("bench", "w", "c", uuid.uuid4().hex)
        RELOADS.ms = 0.0
        begin = time.perf_counter()
        turn = assistant.ask(key, questions[n % len(questions)], suggest=False)
        out.append((begin, time.perf_counter(), RELOADS.ms))
        assistant.suggest(turn.id)
        n += 1


def latencies(assistant: Assistant, questions: list[str], during=None) -> tuple[list, float]:
    """(answer latency, its reloading) in ms of ASKERS threads for IDLE_S, or while
    `during()` runs, and the seconds it took."""
    stop = threading.Event()
    results: list[list] = [[] for _ in range(ASKERS)]
    threads = [
        threading.Thread(target=ask_loop, args=(assistant, questions[i::ASKERS], stop, results[i]))
        for i in range(ASKERS)
    ]
    for thread in threads:
        thread.start()
    time.sleep(1.0)  # every asker is busy
    began = time.perf_counter()
    if during is None:
        time.sleep(IDLE_S)
    else:
        during()
    ended = time.perf_counter()
    stop.set()
    for thread in threads:
        thread.join()
    times = [((e - s) * 1000, ms) for r in results for s, e, ms in r if s >= began and e <= ended]
    return times, ended - began


def report(name: str, answers: list[tuple[float, float]]) -> list[float]:
    """Print the answers' reloading; their latencies."""
    reloading = [ms for _, ms in answers if ms > 0]
    spent = f": {summary_ms(reloading)} of reloading" if reloading else ""
    print(f"  {name}: {len(reloading)} of {len(answers)} answers reloaded derived values{spent}")
    return [total for total, _ in answers]


def search_path() -> str:
    """The project root first, then the caller's own PYTHONPATH (where a deployment keeps
    its packages outside a virtual environment), so the re-sync process imports what this
    one does."""
    return os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))


def main() -> None:
    settings = Settings.load().replace(llm_base_url="")
    folder = DATA / "documents"
    if not folder.is_dir():
        raise SystemExit(f"ConfQuestions not found at {DATA}; set CONFBOT_BENCHMARK_DIR")
    mode = "server" if settings.chroma_url else "single node"
    assistant = Assistant.from_settings(settings)
    source = FilesSource(folder)
    for space in source.spaces():  # the first build, not timed
        print(SpaceSync(settings, assistant.index, source).run(space).summary(), flush=True)
    assistant.warm_up()
    questions = [q.text for q in questions_of(load_conversations(DATA / "conversations.json"))]
    for text in questions:  # caches warm: query vectors, translations, units
        assistant.ask(ConversationKey("bench", "w", "c", uuid.uuid4().hex), text, suggest=False)
    sync_cpus, ask_cpus = cpu_split()
    os.sched_setaffinity(0, ask_cpus)
    time_reloads()
    count_reopens()

    idle_answers, _ = latencies(assistant, questions)

    def resync() -> None:
        command = [sys.executable, "-m", "bot.cli", "sync", "--full", "--source", "files"]
        process = subprocess.Popen(
            [*command, "--path", str(folder)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": search_path(), "CONFBOT_LLM_BASE_URL": ""},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: os.sched_setaffinity(0, sync_cpus),
        )
        _, err = process.communicate()
        if process.returncode:
            raise SystemExit(f"the re-sync failed:\n{err}")

    during_answers, seconds = latencies(assistant, questions, resync)
    idle, during = report("idle", idle_answers), report("re-sync", during_answers)
    if REOPENED:
        took = ", ".join(f"{s:.1f}" for s in REOPENED)
        print(f"  the answering process opened the vectors again {len(REOPENED)} times ({took} s)")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"mode: {mode}; {assistant.index.count()} evidences; {ASKERS} askers")
    print(f"CPUs: sync {sorted(sync_cpus)}, askers {sorted(ask_cpus)}; load average {load}")
    print(f"answers idle ({len(idle)} in {IDLE_S:.0f} s): {summary_ms(idle)}")
    print(f"answers during a full re-sync ({len(during)} in {seconds:.1f} s): {summary_ms(during)}")
    ratio = percentile(during, 95) / percentile(idle, 95)
    print(f"p95 during / idle: {ratio:.2f}x (target <= 1.5x)")
    assistant.close()


if __name__ == "__main__":
    main()
