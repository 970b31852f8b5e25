"""The evidence index: evidence records and a BM25 index in an SQL store, dense vectors in
ChromaDB.

Two stores, one key (the evidence id):
- the evidence store (`core.store`): page and evidence records and the lexical index as SQL
  rows, in an SQLite file in the data folder, or in the PostgreSQL database of
  `database_url` (server mode: every replica and worker shares it);
- a ChromaDB collection with our own embeddings (embedded `PersistentClient` under the
  data folder, or `HttpClient` when `chroma_url` is set).

Writes are by page: `upsert_page` replaces every evidence of a page, `delete_page` removes
them, so re-syncing one page touches nothing else. A page is marked pending, then Chroma is
written, then the store (records, postings and term statistics, clearing the mark) in one
transaction. No lock is held while Chroma is written: queries go on reading the store's last
committed state. A crash or an error in between leaves the store's previous state and the
mark; `repair_pending` (run by every sync before it writes) makes each marked page's
vectors those of its stored evidences again, so no vector outlives its evidence.

Many writers share one index (`core.ownership`): a mark names its writer and the lease it
writes under, a write under a lease (`fence`) checks it before it writes Chroma and inside
the transaction that commits (which also fails when a repair took the marks over), and a
repair touches only marks whose writer is gone: its own, unowned ones (a crashed writer
without a lease), and those whose lease lapsed (`alive` says so). A write that loses its
lease after writing Chroma leaves its pages marked for the next repair.
`index_pages` isolates failures: a batch that fails is written again page by page, and a
page that still fails (MemoryError included) is repaired and reported with its reason while
the others are indexed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import operator
import shutil
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlparse

import numpy as np

from core.contextualize import ContextOptions, page_evidences
from core.duplicates import signature
from core.embeddings import Embedder
from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS, tokenize
from core.ownership import Alive, LeaseLost, PendingOwner, WriteFence, fence_stamp
from core.pages import Evidence, Page
from core.redact import redact_url
from core.refresh import Refreshed
from core.searching import SearchBeacon
from core.settings import Settings, SettingsError
from core.spelling import Speller
from core.store import EvidenceStore, PageEntry, PendingMark, page_from_record
from core.translate import TermTranslator, query_words, split_compound

log = logging.getLogger(__name__)
T = TypeVar("T")

# Bumped whenever the text that is embedded or tokenized for an evidence, or a page's
# duplicate signature, changes (5: the MinHash family of core.duplicates; 6: numeric dates
# with a two-digit year or slashes, "7/23/15", tokenized as dates, core.entities).
INDEX_FORMAT = 6

WRITE_BATCH = 256
"""Evidences per write (one Chroma upsert, one store transaction) while searches are running:
a write holds the store's writer lock and, in embedded Chroma, the interpreter's."""

EMBED_GROUP = 64
"""Evidences embedded in one call while indexing (about one to three pages): a full batch of
the USE and OpenAI embedders, and small enough that progress moves nearly page by page."""


BULK_WRITE_BATCH = 16384
"""Evidences per write when no search is running. The postings of one batch land all over
the postings B-tree (one leaf per term and impact), and in SQLite a commit writes every
page it touched to the WAL and a checkpoint writes it again: a batch of 4,096 evidences at
20,000 pages rewrote about 450 MB. Larger batches touch about as many leaves and so write
them fewer times per evidence: 2,000 pages' store writes at 20,000 pages took 44.8 s in
batches of 4,096 and 30.7 s in batches of 16,384 (docs/benchmarks.md, "Build time: the
postings tree"). One batch's tokens and records stay bounded (about 800 pages)."""


@dataclass(frozen=True)
class _Embedded:
    """A page ready to write: its evidences and their dense vectors, in order."""

    page: Page
    evidences: list[Evidence]
    vectors: np.ndarray


FOREGROUND_CHUNK = 32
"""Vectors per Chroma write while searches are running (about 50 ms each in embedded Chroma
at 20,000 pages), and per update of vectors a Chroma server holds (about 130 ms at 2 million
vectors); see `EvidenceIndex._add_vectors`."""

SEARCHES_RECENT_S = 2.0
"""How recent a search must be for a write to count searches as running."""

VECTOR_FOLLOW_S = 1.0
"""How often a process that does not write Chroma checks whether another process did (one
query of the store's generation), in embedded mode; see `EvidenceIndex._searched`."""

VECTOR_REOPEN_S = 10.0
"""The least time between two openings of the vectors that follow another process's writes:
each loads the whole vector index again, and a sync writes many times a minute."""

VECTOR_SETTLE_S = 10.0
"""How long another process's writes must have paused before the vectors are opened again:
a sync writing batch after batch would otherwise have them reloaded every
`VECTOR_REOPEN_S`, each time costing the answers of the moment (the tail of answer latency
during a re-sync, benchmarks/resync_latency.py)."""

VECTOR_BEHIND_MAX_S = 60.0
"""The longest the open vectors stay behind writes that do not pause: they are opened again
then even while the sync goes on (new pages meanwhile are found by their words only)."""


def store_url(settings: Settings, folder: Path) -> str:
    """Where the evidence store lives: the state database when it is a server database
    (PostgreSQL), else an SQLite file in the collection's folder."""
    if settings.database_url and not settings.database_url.startswith("sqlite"):
        return settings.database_url
    return f"sqlite:///{folder / 'index.sqlite'}"


@dataclass
class IndexReport:
    """What `index_pages` did."""

    pages: int = 0
    evidences: int = 0
    failed: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    warnings: int = 0


def dense_text(evidence: Evidence, options: ContextOptions) -> str:
    """The text embedded for dense retrieval: page title, heading path and the evidence.

    Neighbouring passages help BM25 but blur a short embedding, so the dense side sees only
    the enabled title and heading with the evidence (measured in docs/benchmarks.md).
    """
    parts = [
        evidence.title if options.title else "",
        evidence.heading if options.heading else "",
        evidence.text,
    ]
    return "\n".join(p for p in parts if p)


def _chroma_client(settings: Settings, folder: Path):
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if settings.chroma_url:
        url = urlparse(settings.chroma_url)
        return chromadb.HttpClient(
            host=url.hostname or "localhost",
            port=url.port or (443 if url.scheme == "https" else 8000),
            ssl=url.scheme == "https",
            settings=chroma_settings,
        )
    return chromadb.PersistentClient(path=str(folder / "chroma"), settings=chroma_settings)


# The HNSW graph of a new collection (Chroma's defaults: 16, 100). Fixed when a collection
# is created; see _vector_collection.
HNSW_NEIGHBORS = 32
HNSW_BUILD_EF = 200

HNSW_SYNC_THRESHOLD = 20_000
"""Vectors written between two saves of a collection's HNSW index to disk (Chroma's default:
1,000). Each save rewrites the index's id maps whole (a 112 MB file at 2 million vectors,
about 1.3 s) and every search of the collection waits for it: at 100,000 pages a sync
stalled searches by 1.3 s every 512 written vectors, and a 1% re-index writes 20,000.
Between saves the writes are safe in Chroma's write-ahead log, replayed when the index is
loaded again: a process's first search then waits up to about 20 s at 2 million vectors,
which `Assistant.warm_up` pays at start (docs/benchmarks.md, "100,000 pages, server mode,
after the fixes of stop 27" and "100,000 pages, embedded: answers during a re-index")."""


def _vector_collection(client, name: str, settings: Settings):
    """The named Chroma collection (cosine space), searched with the settings' `ef_search`.

    Sentence-embedding similarities are close together, and Chroma's default graph search
    (`ef_search` 100, the number of candidates we ask for, over a graph of 16 neighbours
    per vector) misses about a tenth of the true top 100, up to half for some queries,
    more as the wiki grows, and which ones differs each time the index is loaded
    (docs/benchmarks.md, "Vector search recall"). A new collection gets a denser graph (an
    existing one keeps its own); `ef_search` is set on every open, new or not (Chroma
    reads it when it loads the index), and so is `HNSW_SYNC_THRESHOLD` (a Chroma server
    that holds the index loaded reads it when it loads the index again, after a restart)."""
    ef = max(settings.dense_search_ef, settings.candidates_k)
    # The graph is set through the metadata keys Chroma still reads at creation: a
    # `configuration` with no embedding function is stored as a "legacy" one, which every
    # later read of the configuration warns about.
    collection = client.get_or_create_collection(
        name=name,
        metadata={
            "hnsw:space": "cosine",
            "hnsw:M": HNSW_NEIGHBORS,
            "hnsw:construction_ef": HNSW_BUILD_EF,
        },
        embedding_function=None,
    )
    wanted = {"ef_search": ef, "sync_threshold": HNSW_SYNC_THRESHOLD}
    hnsw = (collection.configuration_json or {}).get("hnsw", {})
    if any(hnsw.get(key) != value for key, value in wanted.items()):
        collection.modify(configuration={"hnsw": wanted})
    return collection


CHROMA_BUSY_PAUSES = (0.2, 0.5, 1.0, 2.0, 4.0)
"""Seconds to wait before each new try while Chroma answers "database is locked" (about 8 s
in all). Chroma's SQLite takes one writer at a time, and a write that finds it taken can
fail: web replicas and a worker that start together against one Chroma server each set
`ef_search` on the new collection, and one replica's start failed that way (`chroma run`
answering 500 in the replica test, on a loaded machine); an embedded Chroma opened twice
in one process failed likewise."""


def when_unlocked(action: Callable[[], T]) -> T:
    """`action()`, tried again after each of `CHROMA_BUSY_PAUSES` while it fails because
    Chroma's database is locked by another writer; any other failure, or the lock outlasting
    the pauses, is raised."""
    for pause in CHROMA_BUSY_PAUSES:
        try:
            return action()
        except Exception as exc:
            if "database is locked" not in str(exc):
                raise
            log.info("the vector database is locked by another writer; again in %.1f s", pause)
            time.sleep(pause)
    return action()


class EvidenceIndex:
    """Persistent hybrid index of evidences. Thread-safe; writers in any number of threads
    and processes take turns in the store."""

    def __init__(self, settings: Settings, embedder: Embedder):
        self.settings = settings
        self.embedder = embedder
        self.options = ContextOptions.from_settings(settings)
        self.folder = settings.data_path / settings.collection
        self.folder.mkdir(parents=True, exist_ok=True)
        self.store = EvidenceStore(
            store_url(settings, self.folder),
            settings.collection,
            settings.lexical_postings_per_term,
        )
        self._vectors_name = f"{settings.collection}-{_safe(embedder.name)}"
        self._vectors_generation = self.store.generation()  # what the open vectors hold
        try:
            client, self._collection = when_unlocked(self._open_vectors)
        except Exception as exc:  # whatever Chroma raises, say which setting to check
            where = (
                f"the Chroma server at {redact_url(settings.chroma_url)} (CONFBOT_CHROMA_URL)"
                if settings.chroma_url
                else f"the Chroma database in {self.folder} (CONFBOT_DATA_DIR)"
            )
            raise SettingsError(f"cannot open {where}: {type(exc).__name__}: {exc}") from None
        self._max_batch = getattr(client, "get_max_batch_size", lambda: 5000)()
        self._chroma_server = bool(settings.chroma_url)
        self._last_search = float("-inf")  # time.monotonic() of the latest search
        # Embedded mode: a separate worker or sync writing this folder sees our searches.
        self._beacon = None if settings.chroma_url else SearchBeacon(self.folder / "searching")
        self._wrote_vectors = False  # whether this process has written Chroma
        self._followed_at = float("-inf")  # time.monotonic() of the last `_searched` check
        self._seen_generation = self._vectors_generation  # the store's, at the last check
        self._seen_changed_at = float("-inf")  # when the last check saw it change
        self._behind_since: float | None = None  # first check that saw the vectors behind
        self._follow_lock = threading.Lock()
        # Derived from the store and keyed by its generation (see `_derived`).
        self._translator: Refreshed[int, TermTranslator] = Refreshed(
            operator.eq, "the query translator"
        )
        self._catalog: Refreshed[int, dict[str, PageEntry]] = Refreshed(
            operator.eq, "the page catalog"
        )
        self._speller: Refreshed[int, Speller] = Refreshed(operator.eq, "the spelling corrector")
        self._import_previous_store()

    def _open_vectors(self, again: bool = False):
        """A Chroma client and the index's collection in it. Opened `again` in embedded
        mode, a client of its own: Chroma shares one per folder in a process, with the
        vector index it loaded once. The shared one stays shared (other indexes of this
        process on the folder go on with it); this index's previous one is dropped."""
        if not again or self.settings.chroma_url:
            client = _chroma_client(self.settings, self.folder)
            return client, _vector_collection(client, self._vectors_name, self.settings)
        from chromadb.api.shared_system_client import SharedSystemClient

        systems = SharedSystemClient._identifier_to_system
        key = str(self.folder / "chroma")
        shared = systems.pop(key, None)
        try:
            client = _chroma_client(self.settings, self.folder)
            return client, _vector_collection(client, self._vectors_name, self.settings)
        finally:
            if shared is not None:
                systems[key] = shared

    def _searched(self):
        """The collection to search. Embedded Chroma loads a collection's vector index once
        per process and never sees what another process writes later (its count and
        records do, its searches do not): a web process beside a separate worker would
        answer from the vectors of its start for good. So a process that has not written
        Chroma itself checks the store's generation every `VECTOR_FOLLOW_S` and, once
        another process wrote, opens the collection again in a thread (loading its vectors
        took 4-5 s at 4,433 of them on a loaded machine), at most every `VECTOR_REOPEN_S`,
        once the writes have paused `VECTOR_SETTLE_S` or the vectors have been behind
        `VECTOR_BEHIND_MAX_S`; searches go on with the open one meanwhile. A process that
        writes (the worker, `confbot serve` with its worker) searches what it wrote; one
        writer per embedded data folder (docs/deployment.md)."""
        if self._chroma_server or self._wrote_vectors:
            return self._collection
        now = time.monotonic()
        if now - self._followed_at < VECTOR_FOLLOW_S or not self._follow_lock.acquire(False):
            return self._collection  # checked just now, or being opened by another thread
        reopening = False
        try:
            self._followed_at = now
            generation = self.store.generation()
            if generation != self._seen_generation:
                self._seen_generation, self._seen_changed_at = generation, now
            if generation == self._vectors_generation:
                self._behind_since = None
            elif self._behind_since is None:
                self._behind_since = now
            if self._due_to_reopen(now) and not self._wrote_vectors:
                reopening = True
                threading.Thread(
                    target=self._reopen, args=(generation,), name="vectors", daemon=True
                ).start()
        finally:
            if not reopening:
                self._follow_lock.release()
        return self._collection

    def _due_to_reopen(self, now: float) -> bool:
        """Whether the open vectors are behind the store and the writes have paused (or the
        vectors have been behind too long)."""
        if self._behind_since is None:
            return False
        settled = now - self._seen_changed_at >= VECTOR_SETTLE_S
        return settled or now - self._behind_since >= VECTOR_BEHIND_MAX_S

    def _reopen(self, generation: int) -> None:
        """Open the vectors again and load them (one search) before searches use them;
        then hold the next check back `VECTOR_REOPEN_S` (runs with `_follow_lock` held)."""
        began = time.monotonic()
        try:
            _, collection = when_unlocked(lambda: self._open_vectors(again=True))
            sample = collection.get(limit=1, include=["embeddings"])
            if sample["ids"]:
                collection.query(query_embeddings=sample["embeddings"][:1], n_results=1)
            self._collection = collection
            self._vectors_generation = generation
            if self._seen_generation == generation:
                self._behind_since = None
            log.info(
                "opened the vectors again (another process wrote the index): %.1f s",
                time.monotonic() - began,
            )
        except Exception:  # searches go on with the vectors open; the next check tries again
            log.exception("opening the vectors again failed")
        finally:
            self._followed_at = began + VECTOR_REOPEN_S - VECTOR_FOLLOW_S
            self._follow_lock.release()

    def _import_previous_store(self) -> None:
        """Once, after an upgrade: copy the records of the previous store format (an
        `evidence.sqlite` beside the vectors, with a bm25s index) into the evidence store,
        page by page, so nothing is re-embedded and sync state stays true; the old file is
        renamed `evidence.sqlite.imported` and the bm25s files removed."""
        old = self.folder / "evidence.sqlite"
        if not old.exists() or self.store.count():
            return
        source = sqlite3.connect(str(old))
        try:
            batch: list[tuple[Page, list[Evidence]]] = []
            pages = source.execute("SELECT record FROM pages ORDER BY page_id").fetchall()
            for (record,) in pages:
                page = page_from_record(record)
                rows = source.execute(
                    "SELECT record FROM evidences WHERE page_id = ? ORDER BY id", (page.id,)
                )
                batch.append((page, [Evidence(**json.loads(r)) for (r,) in rows]))
                if sum(len(e) for _, e in batch) >= 256:
                    self.store.replace_pages(batch)
                    batch = []
            if batch:
                self.store.replace_pages(batch)
        finally:
            source.close()
        log.info("imported %d pages from %s into the evidence store", len(pages), old)
        try:
            old.rename(old.with_name("evidence.sqlite.imported"))
        except FileNotFoundError:  # another process imported it at the same time
            pass
        shutil.rmtree(self.folder / "bm25", ignore_errors=True)

    # ------------------------------------------------------------------ writing
    def index_pages(
        self,
        pages: Iterable[Page],
        options: ContextOptions | None = None,
        fence: WriteFence | None = None,
        on_page: Callable[[], None] | None = None,
    ) -> IndexReport:
        """Extract, contextualize and upsert pages. A page that fails anywhere (extraction,
        contextualization, embedding, index write; MemoryError included) is reported in
        `failed` with its reason and the others are indexed; a lost `fence` (LeaseLost)
        stops the whole call.

        Pages are embedded a few at a time (`EMBED_GROUP` evidences) as they are extracted
        and written in larger batches; `on_page` is called once per page as soon as it is
        embedded (and written, when that completed a batch) or has failed, so a progress
        display moves with the work, which is mostly embedding. `options` default to the
        index's own (from the settings it was made with)."""
        options = options or self.options
        report = IndexReport()
        extracted: list[tuple[Page, list[Evidence]]] = []
        embedded: list[_Embedded] = []
        began = time.monotonic()
        tick = on_page or (lambda: None)

        def embed_extracted() -> None:
            """Embed the pages extracted so far, then queue them for writing, a batch
            written whenever it reaches the limit (as searches allow)."""
            nonlocal began
            ready = self._embed_pages(extracted, report)
            for _ in range(len(extracted) - len(ready)):
                tick()  # failed at embedding (reported)
            extracted.clear()
            for item in ready:
                embedded.append(item)
                limit = WRITE_BATCH if self._searched_recently() else BULK_WRITE_BATCH
                if sum(len(e.evidences) for e in embedded) >= limit:
                    self._write_batch(embedded, report, fence)
                    embedded.clear()
                    self._give_way(time.monotonic() - began)
                    began = time.monotonic()
                tick()

        for page in pages:
            try:
                evidences, warnings = page_evidences(page, options)
            except Exception as exc:  # a malformed page never stops indexing
                self._failed(page, exc, report)
                tick()
                continue
            if warnings:
                log.warning("page %s (%.80s): %s", page.id, page.title, "; ".join(warnings))
            report.warnings += len(warnings)
            extracted.append((page, evidences))
            if sum(len(e) for _, e in extracted) >= EMBED_GROUP:
                embed_extracted()
        embed_extracted()
        self._write_batch(embedded, report, fence)
        return report

    def _embed_pages(
        self, items: Sequence[tuple[Page, list[Evidence]]], report: IndexReport
    ) -> list[_Embedded]:
        """The pages with the dense vectors of their evidences, in one embedder call; when
        that fails, page by page, so one page's failure (reported) costs only that page."""
        if not items:
            return []
        try:
            vectors = self.embedder.embed(
                [dense_text(e, self.options) for _, evidences in items for e in evidences]
            )
        except Exception as exc:
            if len(items) == 1:
                self._failed(items[0][0], exc, report)
                return []
            return [done for item in items for done in self._embed_pages([item], report)]
        out, start = [], 0
        for page, evidences in items:
            out.append(_Embedded(page, evidences, vectors[start : start + len(evidences)]))
            start += len(evidences)
        return out

    def _give_way(self, spent: float) -> None:
        """After a write batch that took `spent` seconds, pause as long when searches are
        running in this process (one in the last `SEARCHES_RECENT_S`): a sync beside the
        web and Slack surfaces takes at most half the CPU they would otherwise have, and
        twice as long; with no search around it runs at full speed."""
        if self._searched_recently():
            time.sleep(spent)

    def _write_batch(
        self,
        batch: Sequence[_Embedded],
        report: IndexReport,
        fence: WriteFence | None = None,
    ) -> None:
        """Write a batch at once; when that fails, page by page, so one page's failure costs
        only that page. LeaseLost is no page's failure: it is raised."""
        if not batch:
            return
        try:
            self._upsert_embedded(batch, fence)
            written = list(batch)
        except LeaseLost:
            raise
        except Exception as exc:
            if len(batch) == 1:
                self._failed(batch[0].page, exc, report, repair=True, fence=fence)
                return
            log.warning("writing %d pages failed (%r); writing them one by one", len(batch), exc)
            written = []
            for item in batch:
                try:
                    self._upsert_embedded([item], fence)
                    written.append(item)
                except LeaseLost:
                    raise
                except Exception as exc:
                    self._failed(item.page, exc, report, repair=True, fence=fence)
        report.pages += len(written)
        report.evidences += sum(len(item.evidences) for item in written)

    def _upsert_embedded(self, items: Sequence[_Embedded], fence: WriteFence | None) -> None:
        vectors = np.concatenate([item.vectors for item in items])
        self.upsert_pages([(item.page, item.evidences) for item in items], vectors, fence)

    def _failed(
        self,
        page: Page,
        exc: BaseException,
        report: IndexReport,
        repair: bool = False,
        fence: WriteFence | None = None,
    ) -> None:
        """Report a page that could not be indexed; after a failed write, put its vectors
        back in step with what the store still holds for it."""
        reason = f"{type(exc).__name__}: {exc}"[:1000]
        log.warning("page %s (%.80s) not indexed: %s", page.id, page.title, reason)
        report.failed.append((page.id, reason))
        if repair:
            try:
                self.repair_pending([page.id], fence=fence)
            except Exception:  # stays marked; the next sync repairs it
                log.exception("repairing page %s after a failed write failed", page.id)

    def upsert_page(
        self, page: Page, evidences: Sequence[Evidence], vectors: np.ndarray | None = None
    ) -> None:
        """Replace all evidences of `page` with `evidences` (embedded here unless given)."""
        self.upsert_pages([(page, evidences)], vectors)

    def upsert_pages(
        self,
        items: Sequence[tuple[Page, Sequence[Evidence]]],
        vectors: np.ndarray | None = None,
        fence: WriteFence | None = None,
    ) -> None:
        """Replace all evidences of each page, in one Chroma write and one store transaction.
        Vectors that an edit left as they were are not written again (`_held_vectors`).

        `vectors` are the dense vectors of all evidences in order (embedded here unless given).
        Under a `fence`, raises LeaseLost (and commits nothing) once the lease is lost.
        """
        evidences = [e for _, page_evidences in items for e in page_evidences]
        if vectors is None:
            vectors = self.embedder.embed([dense_text(e, self.options) for e in evidences])
        page_ids = [page.id for page, _ in items]
        check = fence.check if fence is not None else None
        owner = _owner(fence)
        if check is not None:
            check()
        mark = self._mark_pending(page_ids, owner)
        try:
            if check is not None:
                check()  # the last check before Chroma, which has no transaction
            held: set[str] = set()
            if mark.known:  # new pages have no vectors to remove
                kept = {e.id for e in evidences}  # written again below, or left as they are
                self._delete_vectors(mark.known, mark.unfinished, kept)
                held, unchanged = self._held_vectors(evidences)
                if unchanged:
                    written = [n for n, e in enumerate(evidences) if e.id not in unchanged]
                    evidences, vectors = [evidences[n] for n in written], vectors[written]
            self._add_vectors(evidences, vectors, held)
            self.store.replace_pages(
                items,
                {page.id: signature(e.text for e in evs) for page, evs in items},
                writer=owner["writer"],
                check=check,
            )
        except LeaseLost:
            self.store.mark_unsettled(page_ids)  # Chroma may hold what the store refused
            raise

    def delete_page(self, page_id: str, fence: WriteFence | None = None) -> None:
        """Remove a page and all its evidences (marked pending until both stores agree);
        fenced as `upsert_pages` is."""
        check = fence.check if fence is not None else None
        owner = _owner(fence)
        if check is not None:
            check()
        self._mark_pending([page_id], owner)
        try:
            if check is not None:
                check()
            self._delete_vectors([page_id])
            self.store.delete_page(page_id, writer=owner["writer"], check=check)
        except LeaseLost:
            self.store.mark_unsettled([page_id])
            raise

    def repair_pending(
        self,
        page_ids: Collection[str] | None = None,
        fence: WriteFence | None = None,
        alive: Alive | None = None,
    ) -> int:
        """Make the vectors of each page marked pending by a writer that is gone (all, or
        those of `page_ids`) the vectors of its stored evidences, re-embedded (the embedding
        cache makes that cheap), and clear the marks: after a crash or a failed write, no
        vector is left without its evidence and no evidence without its vector.

        A writer is gone when the mark is the caller's own (written under `fence`), has no
        lease (a crashed writer without one), or its lease is no longer held (`alive` says
        False; without `alive`, marks of other leases are left alone). The repair takes the
        marks over first, so the writer, should it come back, cannot commit over it.
        Returns how many pages were repaired."""
        mine = fence_stamp(fence) if fence is not None else None
        marks = self.store.pending_marks()
        if page_ids is not None:
            wanted = set(page_ids)
            marks = [m for m in marks if m.page_id in wanted]
        expected = {m.page_id: m.writer for m in marks if _abandoned(m, mine, alive)}
        if not expected:
            return 0
        owner = _owner(fence)
        taken = self.store.take_over_pending(expected, owner)
        for page_id in taken:
            if fence is not None:
                fence.check()
            evidences = self.get(self.page_evidence_ids(page_id))
            vectors = self.embedder.embed([dense_text(e, self.options) for e in evidences])
            self._delete_vectors([page_id])
            self._add_vectors(evidences, vectors)
            self.store.clear_pending([page_id], writer=owner["writer"])
        if taken:
            log.warning("repaired the vectors of %d page(s) left pending", len(taken))
        return len(taken)

    def remove_orphans(self, space: str, fence: WriteFence | None = None) -> int:
        """Delete the vectors of `space` that neither a stored evidence nor a page marked
        pending accounts for: orphans that a write left without its mark (a version before
        marks named their writer, or a writer that lost its ownership after writing Chroma
        while another marked the page). `sync --full` runs it for its space under the
        space's lease, so no other writer adds vectors of that space meanwhile. Returns how
        many were deleted."""
        if fence is not None:
            fence.check()
        found = self._collection.get(where={"space": space}, include=["metadatas"])
        pending = set(self.store.pending_pages())
        stored = set(self.store.evidence_ids_of(sorted(self.page_ids(space))))
        orphans = [
            id_
            for id_, metadata in zip(found["ids"], found["metadatas"], strict=True)
            if id_ not in stored and (metadata or {}).get("page_id") not in pending
        ]
        if orphans:
            self._wrote_vectors = True
            for start in range(0, len(orphans), self._max_batch):
                self._collection.delete(ids=orphans[start : start + self._max_batch])
            log.warning("removed %d orphan vector(s) of space %s", len(orphans), space)
        return len(orphans)

    def _mark_pending(self, page_ids: Sequence[str], owner: dict | None = None) -> PendingMark:
        """Mark pages as being written by `owner`; returns which were indexed or marked
        before."""
        return self.store.mark_pending(page_ids, owner)

    def _delete_vectors(
        self,
        page_ids: Sequence[str],
        unfinished: Collection[str] | None = None,
        kept: Collection[str] = (),
    ) -> None:
        """Remove the vectors of these pages from Chroma, but those of the `kept` ids (an
        upsert overwrites them next). A page whose last write finished has exactly the
        vectors of its stored evidences, so only its stored ids that are not kept are
        deleted, by id: an edit that keeps the number of evidences deletes nothing (a Chroma
        delete took 0.3-0.4 s per call at 20,000 pages, by id or by filter). The pages of
        `unfinished` (all pages when it is None) may have vectors the store does not know,
        from a write that stopped half-way: theirs are deleted by a metadata filter."""
        self._wrote_vectors = True
        unsure = [p for p in page_ids if unfinished is None or p in unfinished]
        settled = [p for p in page_ids if unfinished is not None and p not in unfinished]
        stored = self.store.evidence_ids_of(settled) if settled else []
        ids = [i for i in stored if i not in kept]
        for start in range(0, len(ids), self._max_batch):
            self._collection.delete(ids=ids[start : start + self._max_batch])
        if unsure:
            self._collection.delete(where={"page_id": {"$in": unsure}})

    def _held_vectors(self, evidences: Sequence[Evidence]) -> tuple[set[str], set[str]]:
        """The ids of `evidences` that Chroma holds a vector for, and those of them whose
        vector is still right: embedded from the same text (its digest is kept with each
        vector) and with the same space. An edit changes a few of a page's evidences, and
        writing an existing id's vector again is Chroma's costliest write (an HNSW update,
        about 4 ms at 2 million vectors, during which a Chroma server's searches of the
        collection wait: docs/benchmarks.md, "100,000 pages, server mode, after the fixes
        of stop 27")."""
        wanted = {e.id: {"space": e.space, "digest": self._digest(e)} for e in evidences}
        ids = list(wanted)
        held: set[str] = set()
        unchanged: set[str] = set()
        for start in range(0, len(ids), self._max_batch):
            found = self._collection.get(
                ids=ids[start : start + self._max_batch], include=["metadatas"]
            )
            for id_, metadata in zip(found["ids"], found["metadatas"], strict=True):
                held.add(id_)
                if metadata and all(metadata.get(k) == v for k, v in wanted[id_].items()):
                    unchanged.add(id_)
        return held, unchanged

    def _digest(self, evidence: Evidence) -> str:
        """A digest of the text embedded for `evidence`."""
        return hashlib.sha256(dense_text(evidence, self.options).encode()).hexdigest()[:16]

    def _add_vectors(
        self, evidences: Sequence[Evidence], vectors: np.ndarray, held: Collection[str] = ()
    ) -> None:
        """Write the evidences' vectors to Chroma, in batches it accepts; Chroma holds a
        vector under each id of `held` already (those are written first).

        Embedded Chroma holds Python's global lock for a whole write (1-2 ms per vector at
        20,000 pages): every other thread of the process, the searches of the web and Slack
        surfaces included, stops meanwhile. So while searches are running in this process
        (one in the last `SEARCHES_RECENT_S`), vectors go in chunks of `FOREGROUND_CHUNK`,
        and a search waits for one chunk at most. A Chroma server holds the collection for
        a whole write of vectors it already has (about 4 ms each at 2 million vectors), and
        the searches of every replica wait, unseen by this process: such updates always go
        in chunks of `FOREGROUND_CHUNK`. Otherwise a write goes in whole batches."""
        self._wrote_vectors = True
        order = sorted(range(len(evidences)), key=lambda n: evidences[n].id not in held)
        evidences, vectors = [evidences[n] for n in order], vectors[order]
        start = 0
        while start < len(evidences):
            update = evidences[start].id in held
            small = self._searched_recently() or (update and self._chroma_server)
            size = FOREGROUND_CHUNK if small else self._max_batch
            chunk = evidences[start : start + size]
            self._collection.upsert(
                ids=[e.id for e in chunk],
                embeddings=vectors[start : start + len(chunk)],
                metadatas=[
                    {"page_id": e.page_id, "space": e.space, "digest": self._digest(e)}
                    for e in chunk
                ],
            )
            start += len(chunk)

    def _searching(self) -> None:
        self._last_search = time.monotonic()
        if self._beacon is not None:
            self._beacon.mark()

    def _searched_recently(self) -> bool:
        """Whether a search ran in the last `SEARCHES_RECENT_S`, in this process or, in
        embedded mode, in another one on the same folder (core.searching)."""
        if time.monotonic() - self._last_search < SEARCHES_RECENT_S:
            return True
        return self._beacon is not None and self._beacon.seen_within(SEARCHES_RECENT_S)

    def update_page_record(self, page: Page, fence: WriteFence | None = None) -> None:
        """Replace an indexed page's record (version, ancestors, labels...) and leave its
        evidences (and so its duplicate signature) alone: for a page that moved, or got a new
        version with the same content. Under a `fence`, only while its lease is held."""
        self.store.update_page_record(page, check=fence.check if fence is not None else None)

    def fingerprint(self, options: ContextOptions) -> str:
        """What a page's evidences depend on besides the page: `INDEX_FORMAT`, the embedder
        and the context `options`. A sync records it per space and re-indexes a space whole
        when it changes, so an upgrade or a new embedder reaches every page, not only the
        pages edited after it."""
        text = f"{INDEX_FORMAT}|{self.embedder.name}|{options!r}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    # ------------------------------------------------------------------ reading
    def page_ids(self, space: str | None = None) -> set[str]:
        """Ids of the indexed pages (of one space if given)."""
        return self.store.page_ids(space)

    def pages(self) -> list[Page]:
        """The indexed pages' metadata (bodies are not kept)."""
        return self.store.pages()

    def page(self, page_id: str) -> Page | None:
        """One indexed page's metadata (body not kept), or None when it is not indexed."""
        return self.store.page(page_id)

    def page_catalog(self) -> dict[str, PageEntry]:
        """Page id to title, space and duplicate signature of every indexed page; read
        again after the index changed, by one thread: while it reads, concurrent searches
        go on with the previous catalog (a sync changes it with every write)."""
        return self._derived(self._catalog, lambda _: self.store.page_entries())

    def spaces(self) -> set[str]:
        """The spaces that have indexed pages."""
        return self.store.spaces()

    def count(self) -> int:
        """Number of indexed evidences."""
        return self.store.count()

    def dense_count(self) -> int:
        """Number of vectors in the Chroma collection (equals `count()` when consistent)."""
        return self._collection.count()

    def consistency(self) -> dict[str, int]:
        """Evidences in the store, vectors in Chroma and pages marked pending (read one after
        the other: a write in progress may show as a difference)."""
        return {
            "evidences": self.count(),
            "vectors": self.dense_count(),
            "pending": len(self.store.pending_pages()),
        }

    def get(self, ids: Sequence[str]) -> list[Evidence]:
        """Evidences by id, in the order asked (unknown ids are left out)."""
        return self.store.get(ids)

    def page_evidence_ids(self, page_id: str) -> list[str]:
        """Ids of one page's evidences, in page order."""
        return self.store.page_evidence_ids(page_id)

    def lexical_search(
        self, query: str, k: int, spaces: Collection[str] | None = None, language: str = "en"
    ) -> list[tuple[str, float]]:
        """BM25 top `k` (evidence id, score) for the query text."""
        self._searching()
        return self.store.lexical_search(self.query_tokens(query, language), k, spaces)

    def query_tokens(self, query: str, language: str = "en") -> list[str]:
        """BM25 tokens of a query; a non-English query also gets, for each word the corpus
        lacks, the two corpus words it is a compound of (when `decompound_queries` is on)
        or else its nearest corpus words (see core.translate), when translation is on."""
        tokens = tokenize(query, language)
        if language == "en":
            return tokens
        for parts in self.translations(query).values():
            tokens.extend(dict.fromkeys(t for n in parts for t in tokenize(n)))
        return tokens

    def translations(self, query: str) -> dict[str, list[str]]:
        """Each word of a (non-English) query that the corpus lacks, with the corpus words
        standing for it: the two words it is a compound of (when `decompound_queries` is
        on), else its nearest corpus words (see core.translate); empty when translation is
        off."""
        if not self.settings.translate_queries:
            return {}
        stop = GERMAN_STOPWORDS | ENGLISH_STOPWORDS
        words = [w for w in query_words(query) if w not in stop]
        translator = self.translator()
        found: dict[str, list[str]] = {}
        untranslated = []
        for word in words:
            parts = []
            if self.settings.decompound_queries and word not in translator.known:
                parts = split_compound(word, translator.known)
            if parts:
                found[word] = parts
            else:
                untranslated.append(word)
        found.update(
            translator.translate(
                untranslated,
                per_word=self.settings.translation_per_word,
                min_similarity=self.settings.translation_min_similarity,
            )
        )
        return found

    def vocabulary(self) -> Collection[str]:
        """The wiki's words (lower-cased, alphabetic, 3+ letters), as the query translator
        knows them (reloaded when the store changed)."""
        return self.translator().known

    def translator(self) -> TermTranslator:
        """The query translator over the store's current vocabulary (reloaded when the store
        changed, keeping the vectors already computed). While one thread reloads it, the
        others go on with the previous one."""

        def load(previous: TermTranslator | None) -> TermTranslator:
            known = previous.computed_vectors() if previous else {}
            return TermTranslator(
                self.store.vocabulary(),
                self.embedder,
                lambda words: self._vocabulary_vectors(words, known),
            )

        return self._derived(self._translator, load)

    def speller(self) -> Speller:
        """The spelling corrector over the store's current vocabulary and its document
        frequencies (`core.spelling`), reloaded when the store changed; in SQLite and in
        PostgreSQL alike, since both keep the vocabulary table."""
        return self._derived(self._speller, lambda _previous: Speller(self.store.word_counts()))

    def _derived(self, value: Refreshed[int, T], compute: Callable[[T | None], T]) -> T:
        """`value` for the store's current generation. Read again in the caller's time when
        there is none yet or this process wrote since it was read (what it wrote shows at
        once: `confbot sync`, then an answer); when only another process wrote (a separate
        worker or sync), read again by a refresher thread while answers go on with the
        previous one, picked up as soon as it is read (docs/benchmarks.md, "Many writers")."""
        known = value.key
        wait = known is None or known < self.store.written_generation
        return value.get(self.store.generation(), compute, wait=wait)

    def _vocabulary_vectors(self, words: Sequence[str], known: dict[str, np.ndarray]) -> np.ndarray:
        """Vectors of the vocabulary: known in this process, else stored, else embedded now
        and stored for every other process."""
        vectors = {w: known[w] for w in words if w in known}
        vectors.update(self.store.word_vectors([w for w in words if w not in vectors]))
        missing = [w for w in words if w not in vectors]
        if missing:
            computed = dict(zip(missing, self.embedder.embed(missing), strict=True))
            self.store.save_word_vectors(computed)
            vectors.update(computed)
        return np.vstack([vectors[w] for w in words]).astype(np.float32)

    def dense_search(
        self, vector: np.ndarray, k: int, spaces: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        """Nearest `k` (evidence id, cosine similarity) to a query vector. (Chroma returns
        fewer when it holds fewer; its `count()` scans the collection, about 9 ms per query
        at 5,000 pages, so it is not asked first.)"""
        self._searching()
        where = None
        if spaces is not None:
            if not spaces:
                return []
            where = {"space": {"$in": sorted(spaces)}}

        collection = self._searched()

        def query():
            return collection.query(
                query_embeddings=[np.asarray(vector, dtype=np.float32)],
                n_results=k,
                where=where,
                include=["distances"],
            )

        try:
            result = query()
        except Exception as exc:
            # A Chroma server may answer "Error finding id" for a query that meets a
            # vector deleted while it ran (a sync writing); the next query does not.
            if "Error finding id" not in str(exc):
                raise
            log.warning("vector search met a vector deleted meanwhile (%s); searching again", exc)
            result = query()
        pairs = zip(result["ids"][0], result["distances"][0], strict=True)
        return [(i, 1.0 - float(d)) for i, d in pairs]

    def close(self) -> None:
        """Release the store's pooled connections."""
        self.store.close()


def _owner(fence: WriteFence | None) -> dict:
    """The owner columns of the marks a write sets: its stamp (one per lease generation, else
    one per write) and its lease."""
    if fence is None:
        return dict(writer=f"unowned:{uuid.uuid4().hex}", holder=None, space=None, token=None)
    return dict(
        writer=fence_stamp(fence), holder=fence.holder, space=fence.space, token=fence.token
    )


def _abandoned(mark: PendingOwner, mine: str | None, alive: Alive | None) -> bool:
    """Whether a pending mark's writer is gone (see `EvidenceIndex.repair_pending`)."""
    if mine is not None and mark.writer == mine:
        return True
    if mark.holder is None:
        return True
    return alive is not None and not alive(mark)


def _safe(name: str) -> str:
    """A Chroma-safe collection name fragment (3-63 chars, alphanumerics, . _ -)."""
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in name)[:40].strip("-._")
