"""Index the ConfQuestions corpus replicated to N pages, then measure what running it costs.

Each replica rewrites page ids (and the ids in URLs), so every replica is a distinct set of
pages and evidences; identical text still hits the embedding cache, so this measures the
index (Chroma, the evidence store and its BM25 postings) rather than the embedder.

    .venv/bin/python benchmarks/scale.py --pages 100000 [--folder DIR]
    CONFBOT_DATABASE_URL=postgresql+psycopg2://... CONFBOT_CHROMA_URL=http://...:8000 \\
        .venv/bin/python benchmarks/scale.py --pages 100000 --server \\
        --watch-pid CHROMA_PID --watch-pid POSTMASTER_PID --chroma-path DIR

Embedded mode (default): an SQLite evidence store and embedded Chroma in the data folder.
`--server`: the evidence store in the PostgreSQL database and the vectors in the Chroma
server that the environment names (the benchmark uses a fresh collection name).

It prints, in order: the full index time; the disk used; query latency (420 questions) with
the machine otherwise idle; the time of one page's store write (records, postings, term
statistics) and of its whole upsert; the time to re-index 1% of the pages after editing
them (as a sync does for changed pages), with the part spent embedding their new text, as a
share of a full sync that embeds every page (the build finds every replica's text but the
first one's in the embedding cache, so its own time leaves most embedding out); the answer
latency of 8 threads asking questions through the Assistant, idle and while the edited
pages are re-indexed again in this process (as `confbot serve` runs its worker); and the
peak resident memory of this process and of each watched server process (and its
children).

`--reuse` (with `--folder`; in server mode the collection is then `scale<pages>`, not a fresh
one) keeps the index an earlier run left in the folder:
one of that many pages is measured as it is; a build that was stopped (with its session,
say) is resumed where it stopped, and the full index time adds up the runs' build times
(recorded after every 500 pages in `scale-progress.json`; the pages written after the last
record are kept, their seconds are not). With `--collection scale100000 --pages 70000` it
measures the first 70,000 pages of a 100,000-page build that was stopped after them.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import os
import shutil
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (  # noqa: E402
    TimedEmbedder,
    benchmark_pages,
    benchmark_questions,
    disk_mib,
    peak_rss_mib,
    percentile,
    summary_ms,
)
from core.assistant import Assistant, ConversationKey, make_llm  # noqa: E402
from core.contextualize import page_evidences  # noqa: E402
from core.conversation import ConversationStore  # noqa: E402
from core.db import engine_for, upgrade  # noqa: E402
from core.embeddings import make_embedder  # noqa: E402
from core.index import EvidenceIndex  # noqa: E402
from core.pages import Page  # noqa: E402
from core.rephrase import make_completer  # noqa: E402
from core.retrieve import Retriever  # noqa: E402
from core.settings import Settings  # noqa: E402

ASKERS = 8
IDLE_S = 60.0  # the idle asks: long enough for a stable p95 (20 s gave about 100 asks)


def replicas(pages: list[Page], total: int):
    """`total` pages: the corpus repeated with ids rewritten per replica."""
    count = 0
    for replica in range(math.ceil(total / len(pages))):
        for page in pages:
            if count == total:
                return
            new_id = f"{page.id}{replica:04d}"
            yield dataclasses.replace(
                page, id=new_id, url=page.url.replace(f"/pages/{page.id}", f"/pages/{new_id}")
            )
            count += 1


class MemoryWatch:
    """Samples the resident memory of some processes and their children every second and
    keeps each one's peak (VmRSS; a server's children are its workers or backends)."""

    def __init__(self, pids: list[int]):
        self.pids = pids
        self.peaks: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            for root in self.pids:
                for pid in [root, *_children(root)]:
                    rss = _rss_mib(pid)
                    name = f"{_name(pid)} (pid {pid})"
                    if rss is not None and rss > self.peaks.get(name, 0.0):
                        self.peaks[name] = rss


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


def store_disk_mib(index: EvidenceIndex) -> float:
    """Disk used by the evidence store's tables in PostgreSQL (tables and indexes)."""
    from sqlalchemy import text

    with index.store.engine.connect() as db:
        total = db.execute(
            text(
                "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c"
                " WHERE c.relkind = 'r' AND (c.relname LIKE 'index\\_%'"
                " OR c.relname LIKE 'lexical\\_%')"
                " AND c.relnamespace = to_regnamespace(current_schema())::oid"
            )
        ).scalar()
    return (total or 0) / 2**20


@dataclasses.dataclass
class Progress:
    """How far a build got, kept in the data folder after every chunk so that a build
    stopped with its session can be resumed (`--reuse`) and its time added up."""

    pages: int = 0
    evidences: int = 0
    seconds: float = 0.0
    runs: int = 0
    embedded_texts: int = 0  # texts the build embedded (not found in the embedding cache)
    embedding_seconds: float = 0.0  # and the part of `seconds` that took

    @classmethod
    def load(cls, path: Path) -> Progress:
        """The progress recorded at `path`, or none yet."""
        if not path.exists():
            return cls()
        return cls(**json.loads(path.read_text()))

    def save(self, path: Path) -> None:
        """Record the progress (written aside, then renamed: a stop never leaves half)."""
        aside = path.with_suffix(".tmp")
        aside.write_text(json.dumps(dataclasses.asdict(self)))
        aside.replace(path)


def build(
    index: EvidenceIndex,
    pages,
    progress: Progress,
    path: Path,
    clock: TimedEmbedder,
    chunk_size: int = 500,
) -> Progress:
    """Index pages in chunks, printing progress every 5,000 pages and recording it after
    every chunk at `path`. `pages` are those still to index; `progress` is what earlier
    runs did (their seconds and embedding are added to this run's, measured by `clock`)."""
    start = time.perf_counter() - progress.seconds
    texts = progress.embedded_texts - clock.texts
    embedding = progress.embedding_seconds - clock.seconds
    progress.runs += 1
    chunk: list[Page] = []

    def write() -> None:
        before = progress.pages
        progress.evidences += index.index_pages(chunk).evidences
        progress.pages += len(chunk)
        progress.seconds = time.perf_counter() - start
        progress.embedded_texts = texts + clock.texts
        progress.embedding_seconds = embedding + clock.seconds
        progress.save(path)
        if progress.pages // 5000 > before // 5000:
            print(
                f"  {progress.pages} pages, {progress.evidences} evidences,"
                f" {progress.seconds:.0f} s, peak RSS of this run {peak_rss_mib():.0f} MiB,"
                f" data folder {disk_mib(index.folder.parent):.0f} MiB",
                flush=True,
            )
        chunk.clear()

    for page in pages:
        chunk.append(page)
        if len(chunk) == chunk_size:
            write()
    if chunk:
        write()
    return progress


def ask_loop(assistant: Assistant, questions: list[str], stop: threading.Event, out: list):
    """Ask questions in new conversations until `stop`, appending the (start, end) times of
    each answer. As in Slack and on the web page, the suggested follow-ups are computed
    after the answer is shown: they load the machine but are not part of the answer's time."""
    n = 0
    while not stop.is_set():
        key = ConversationKey("bench", "w", "c", uuid.uuid4().hex)
        begin = time.perf_counter()
        turn = assistant.ask(key, questions[n % len(questions)], suggest=False)
        out.append((begin, time.perf_counter()))
        assistant.suggest(turn.id)
        n += 1


def asks_during(assistant: Assistant, questions: list[str], work=None, seconds: float = 20.0):
    """Latencies (ms) of the asks of ASKERS threads: while `work()` runs, or for `seconds`."""
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
    if work is None:
        time.sleep(seconds)
        spent = seconds
    else:
        work()
        spent = time.perf_counter() - began
    ended = time.perf_counter()
    stop.set()
    for thread in threads:
        thread.join()
    latencies = [
        (end - start) * 1000
        for times in results
        for start, end in times
        if start >= began and end <= ended
    ]
    return latencies, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=20000)
    parser.add_argument("--folder", help="data folder to use (default: a temporary one)")
    parser.add_argument("--server", action="store_true", help="PostgreSQL + Chroma server")
    parser.add_argument("--watch-pid", type=int, action="append", default=[])
    parser.add_argument("--chroma-path", help="the Chroma server's folder (for its disk use)")
    parser.add_argument("--edited", type=float, default=0.01, help="share of pages edited")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the index an earlier run left in --folder (resuming a stopped build)",
    )
    parser.add_argument(
        "--collection",
        help="collection name (default scale<pages>); with --reuse, measure the index of a run"
        " that was stopped before it reached its page count",
    )
    args = parser.parse_args()
    folder = Path(args.folder or tempfile.mkdtemp(prefix="confbot-scale-"))
    collection = args.collection or f"scale{args.pages}"
    environ = {"CONFBOT_DATA_DIR": str(folder), "CONFBOT_COLLECTION": collection}
    if args.server:
        for name in ("CONFBOT_DATABASE_URL", "CONFBOT_CHROMA_URL"):
            if not os.environ.get(name):
                raise SystemExit(f"--server needs {name}")
            environ[name] = os.environ[name]
        if not args.reuse:  # a fresh collection in the shared servers
            environ["CONFBOT_COLLECTION"] = f"{collection}-{uuid.uuid4().hex[:6]}"
    settings = Settings.load(environ=environ)
    upgrade(settings.sqlalchemy_url)
    pages = benchmark_pages()
    questions = benchmark_questions()
    embedder = make_embedder(settings)
    clock = embedder.inner = TimedEmbedder(embedder.inner)
    index = EvidenceIndex(settings, embedder)
    print(f"load average before: {os.getloadavg()}", flush=True)

    with MemoryWatch(args.watch_pid) as watch:
        index_s: float | None = None
        progress_path = index.folder / "scale-progress.json"
        progress = Progress.load(progress_path) if args.reuse else Progress()
        indexed = len(index.page_ids()) if args.reuse else 0
        if indexed >= args.pages:
            done, evidences = indexed, index.count()
            print(f"reused the index of {done} pages, {evidences} evidences", flush=True)
            if progress.pages >= done:  # built in this folder: its time is known
                index_s = progress.seconds
        else:
            if indexed:  # resume: pages are written in replica order, so these come first
                index.repair_pending()
                progress.pages, progress.evidences = indexed, index.count()
                print(f"resuming after {indexed} pages ({progress.seconds:.0f} s)", flush=True)
            rest = itertools.islice(replicas(pages, args.pages), indexed, None)
            progress = build(index, rest, progress, progress_path, clock)
            done, evidences, index_s = progress.pages, progress.evidences, progress.seconds
            print(
                f"indexed {done} pages, {evidences} evidences in {index_s:.0f} s"
                f" ({progress.runs} run(s))",
                flush=True,
            )
        disk = disk_mib(folder)
        line = f"disk: data folder {disk:.0f} MiB"
        if args.server:
            line += f", PostgreSQL evidence store {store_disk_mib(index):.0f} MiB"
            if args.chroma_path:
                line += f", Chroma server folder {disk_mib(Path(args.chroma_path)):.0f} MiB"
        print(line, flush=True)

        retriever = Retriever.from_settings(index, embedder, settings)
        for text in questions[:20]:
            retriever.search(text)
        latencies = []
        for text in questions:
            begin = time.perf_counter()
            retriever.search(text)
            latencies.append((time.perf_counter() - begin) * 1000)
        print(f"query latency over {len(questions)} questions: {summary_ms(latencies)}")

        # One page's lexical update: the store write of a page (records, postings, stats).
        page = next(replicas(pages, 1))
        edited = dataclasses.replace(page, body=page.body + "<p>Edited once more.</p>")
        items = [(edited, page_evidences(edited, index.options)[0])]
        store_ms, upsert_ms = [], []
        for _ in range(5):
            begin = time.perf_counter()
            index.store.mark_pending([edited.id])
            index.store.replace_pages(items)
            store_ms.append((time.perf_counter() - begin) * 1000)
            begin = time.perf_counter()
            index.upsert_pages(items)
            upsert_ms.append((time.perf_counter() - begin) * 1000)
        print(
            f"one page ({len(items[0][1])} evidences): store write (lexical update)"
            f" {summary_ms(store_ms)}; whole upsert with Chroma {summary_ms(upsert_ms)}"
        )

        state = ConversationStore(settings.sqlalchemy_url)
        llm = make_llm(settings, index)
        assistant = Assistant(settings, index, retriever, llm, make_completer(settings, llm), state)
        count = max(1, int(done * args.edited))

        run = uuid.uuid4().hex[:8]  # new text in every run: nothing is in the embedding cache

        def edited_pages(round_: int) -> list[Page]:
            return [
                dataclasses.replace(
                    p, body=p.body + f"<p>Edit {round_} ({run}) of page {p.id}.</p>"
                )
                for p in replicas(pages, count)
            ]

        before_texts, before_s = clock.texts, clock.seconds
        begin = time.perf_counter()
        index.index_pages(edited_pages(1))
        update_s = time.perf_counter() - begin
        new_texts, embedding_s = clock.texts - before_texts, clock.seconds - before_s
        built_texts, built_embedding_s = progress.embedded_texts, progress.embedding_seconds
        print(
            f"re-indexing {count} edited pages ({args.edited:.0%}), nothing else running:"
            f" {update_s:.1f} s, of which {embedding_s:.1f} s embedding {new_texts} new texts"
        )
        if index_s and new_texts:
            # The build found every replica's text but the first one's in the embedding
            # cache; a full sync of as many distinct pages embeds all of them.
            full_s = index_s + (evidences - built_texts) * embedding_s / new_texts
            print(
                f"  = {update_s / full_s:.1%} of a full sync that embeds every page (about"
                f" {full_s:.0f} s: the build's {index_s:.0f} s and"
                f" {evidences - built_texts} more texts at this run's embedding rate);"
                f" without embedding, {update_s - embedding_s:.1f} s ="
                f" {(update_s - embedding_s) / (index_s - built_embedding_s):.1%} of the"
                f" build's {index_s - built_embedding_s:.0f} s without embedding"
            )
        idle, _ = asks_during(assistant, questions, seconds=IDLE_S)
        second = edited_pages(2)
        busy, busy_s = asks_during(assistant, questions, work=lambda: index.index_pages(second))
        print(f"answers, {ASKERS} askers, idle ({len(idle)} asks): {summary_ms(idle)}")
        print(
            f"answers while the {count} pages are re-indexed again ({busy_s:.1f} s,"
            f" {len(busy)} asks): {summary_ms(busy)}"
        )
        if idle and busy:
            print(f"p95 during / idle: {percentile(busy, 95) / percentile(idle, 95):.2f}")
    print(f"peak resident memory of this process {peak_rss_mib():.0f} MiB")
    by_command: dict[str, list[float]] = {}
    for name, peak in watch.peaks.items():
        by_command.setdefault(name.split(" (pid")[0], []).append(peak)
    for command, peaks in sorted(by_command.items()):
        print(
            f"peak resident memory of {command}: largest process {max(peaks):.0f} MiB"
            f" ({len(peaks)} processes seen)"
        )
    print(f"load average after: {os.getloadavg()}")
    engine_for(settings.sqlalchemy_url).dispose()
    if not args.folder:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
