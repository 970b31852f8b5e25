"""The evidence index: evidence records, their dense vectors in ChromaDB, and a BM25 index.

Three stores, one key (the evidence id):
- an SQLite evidence store (`evidence.sqlite`): the evidence records and their BM25 tokens,
  the source of truth for what is indexed;
- a ChromaDB collection with our own embeddings (embedded `PersistentClient` under the
  data folder, or `HttpClient` when `chroma_url` is set);
- a bm25s index rebuilt from the store's tokens when the store changed, persisted beside it.

Writes are by page: `upsert_page` replaces every evidence of a page, `delete_page` removes
them, so re-syncing one page touches nothing else. A page is marked pending, then Chroma is
written, then the store (clearing the mark) in one transaction; a crash in between leaves the
store's previous state and the mark, and the next upsert of the page clears its vectors.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
import threading
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

from core.contextualize import ContextOptions, page_evidences
from core.embeddings import Embedder
from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS, BM25Index, space_mask, tokenize
from core.pages import Evidence, Page
from core.settings import Settings
from core.translate import TermTranslator, query_words, vocabulary

log = logging.getLogger(__name__)

# Bumped whenever what is saved beside the BM25 index changes, so old saves are rebuilt.
_LEXICAL_FORMAT = 2
# Bumped whenever the text that is embedded or tokenized for an evidence changes.
INDEX_FORMAT = 2


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


class EvidenceIndex:
    """Persistent hybrid index of evidences. Thread-safe; one writer at a time."""

    def __init__(self, settings: Settings, embedder: Embedder):
        self.settings = settings
        self.embedder = embedder
        self.options = ContextOptions.from_settings(settings)
        self.folder = settings.data_path / settings.collection
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(str(self.folder / "evidence.sqlite"), check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(
            """
            CREATE TABLE IF NOT EXISTS evidences (
                id TEXT PRIMARY KEY, page_id TEXT NOT NULL, space TEXT NOT NULL,
                record TEXT NOT NULL, tokens TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS evidences_page ON evidences(page_id);
            CREATE TABLE IF NOT EXISTS pages (
                page_id TEXT PRIMARY KEY, space TEXT NOT NULL, record TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS pending (page_id TEXT PRIMARY KEY);
            """
        )
        client = _chroma_client(settings, self.folder)
        self._collection = client.get_or_create_collection(
            name=f"{settings.collection}-{_safe(embedder.name)}",
            metadata={"hnsw:space": "cosine"},
            embedding_function=None,
        )
        self._max_batch = getattr(client, "get_max_batch_size", lambda: 5000)()
        self._bm25: BM25Index | None = None
        self._bm25_spaces: list[str] = []
        self._bm25_generation = -1
        self._translator: TermTranslator | None = None
        self._build_lock = threading.Lock()  # one lexical build at a time
        self._rebuilding = False

    # ------------------------------------------------------------------ writing
    def index_pages(
        self, pages: Iterable[Page], options: ContextOptions | None = None
    ) -> IndexReport:
        """Extract, contextualize and upsert pages; a page that fails is logged and skipped.

        `options` default to the index's own (from the settings it was made with)."""
        options = options or self.options
        report = IndexReport()
        batch: list[tuple[Page, list[Evidence]]] = []
        for page in pages:
            try:
                evidences, warnings = page_evidences(page, options)
            except Exception as exc:  # a malformed page never stops indexing
                log.warning("page %s (%s) skipped: %s", page.id, page.title, exc)
                report.failed.append((page.id, str(exc)))
                continue
            report.warnings += len(warnings)
            batch.append((page, evidences))
            if sum(len(e) for _, e in batch) >= 256:
                self._write_batch(batch, report)
                batch = []
        self._write_batch(batch, report)
        return report

    def _write_batch(self, batch: list[tuple[Page, list[Evidence]]], report: IndexReport) -> None:
        if not batch:
            return
        self.upsert_pages(batch)
        report.pages += len(batch)
        report.evidences += sum(len(evidences) for _, evidences in batch)

    def upsert_page(
        self, page: Page, evidences: Sequence[Evidence], vectors: np.ndarray | None = None
    ) -> None:
        """Replace all evidences of `page` with `evidences` (embedded here unless given)."""
        self.upsert_pages([(page, evidences)], vectors)

    def upsert_pages(
        self,
        items: Sequence[tuple[Page, Sequence[Evidence]]],
        vectors: np.ndarray | None = None,
    ) -> None:
        """Replace all evidences of each page, in one Chroma write and one store transaction.

        `vectors` are the dense vectors of all evidences in order (embedded here unless given).
        """
        evidences = [e for _, page_evidences in items for e in page_evidences]
        if vectors is None:
            vectors = self.embedder.embed([dense_text(e, self.options) for e in evidences])
        page_ids = [page.id for page, _ in items]
        with self._lock:
            marks = ",".join("?" * len(page_ids))
            known = [
                row[0]
                for row in self._db.execute(
                    f"SELECT page_id FROM pages WHERE page_id IN ({marks})"
                    f" UNION SELECT page_id FROM pending WHERE page_id IN ({marks})",
                    [*page_ids, *page_ids],
                )
            ]
            with self._db:
                self._db.executemany(
                    "INSERT OR IGNORE INTO pending VALUES (?)", [(i,) for i in page_ids]
                )
            if known:  # new pages have no vectors to remove: skip the filtered delete
                self._collection.delete(where={"page_id": {"$in": known}})
            for start in range(0, len(evidences), self._max_batch):
                chunk = evidences[start : start + self._max_batch]
                self._collection.upsert(
                    ids=[e.id for e in chunk],
                    embeddings=vectors[start : start + len(chunk)],
                    metadatas=[{"page_id": e.page_id, "space": e.space} for e in chunk],
                )
            with self._db:
                self._db.executemany(
                    "DELETE FROM evidences WHERE page_id = ?", [(i,) for i in page_ids]
                )
                self._db.executemany(
                    "INSERT INTO evidences VALUES (?, ?, ?, ?, ?)",
                    [
                        (
                            e.id,
                            e.page_id,
                            e.space,
                            json.dumps(dataclasses.asdict(e)),
                            json.dumps(tokenize(e.contextualized)),
                        )
                        for e in evidences
                    ],
                )
                self._db.executemany(
                    "INSERT OR REPLACE INTO pages VALUES (?, ?, ?)",
                    [
                        (
                            page.id,
                            page.space,
                            _page_record(page),
                        )
                        for page, _ in items
                    ],
                )
                self._db.executemany(
                    "DELETE FROM pending WHERE page_id = ?", [(i,) for i in page_ids]
                )
                self._bump_generation()

    def delete_page(self, page_id: str) -> None:
        """Remove a page and all its evidences."""
        with self._lock:
            self._collection.delete(where={"page_id": page_id})
            with self._db:
                self._db.execute("DELETE FROM evidences WHERE page_id = ?", (page_id,))
                self._db.execute("DELETE FROM pages WHERE page_id = ?", (page_id,))
                self._bump_generation()

    def update_page_record(self, page: Page) -> None:
        """Replace an indexed page's record (version, ancestors, labels...) and leave its
        evidences alone: for a page that moved, or got a new version with the same content."""
        with self._lock, self._db:
            self._db.execute(
                "UPDATE pages SET space = ?, record = ? WHERE page_id = ?",
                (page.space, _page_record(page), page.id),
            )

    def _bump_generation(self) -> None:
        self._db.execute(
            "INSERT INTO meta VALUES ('generation', '1') ON CONFLICT(key) DO UPDATE"
            " SET value = CAST(value AS INTEGER) + 1"
        )

    # ------------------------------------------------------------------ reading
    def page_ids(self, space: str | None = None) -> set[str]:
        """Ids of the indexed pages (of one space if given)."""
        with self._lock:
            if space is None:
                rows = self._db.execute("SELECT page_id FROM pages")
            else:
                rows = self._db.execute("SELECT page_id FROM pages WHERE space = ?", (space,))
            return {r[0] for r in rows}

    def pages(self) -> list[Page]:
        """The indexed pages' metadata (bodies are not kept)."""
        with self._lock:
            rows = self._db.execute("SELECT record FROM pages ORDER BY page_id").fetchall()
        return [_page(json.loads(r[0])) for r in rows]

    def page(self, page_id: str) -> Page | None:
        """One indexed page's metadata (body not kept), or None when it is not indexed."""
        with self._lock:
            row = self._db.execute(
                "SELECT record FROM pages WHERE page_id = ?", (page_id,)
            ).fetchone()
        return _page(json.loads(row[0])) if row else None

    def spaces(self) -> set[str]:
        """The spaces that have indexed pages."""
        with self._lock:
            return {r[0] for r in self._db.execute("SELECT DISTINCT space FROM pages")}

    def count(self) -> int:
        """Number of indexed evidences."""
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM evidences").fetchone()[0]

    def dense_count(self) -> int:
        """Number of vectors in the Chroma collection (equals `count()` when consistent)."""
        return self._collection.count()

    def get(self, ids: Sequence[str]) -> list[Evidence]:
        """Evidences by id, in the order asked (unknown ids are left out)."""
        found: dict[str, Evidence] = {}
        with self._lock:
            for start in range(0, len(ids), 500):
                chunk = list(ids[start : start + 500])
                marks = ",".join("?" * len(chunk))
                for evidence_id, record in self._db.execute(
                    f"SELECT id, record FROM evidences WHERE id IN ({marks})", chunk
                ):
                    found[evidence_id] = Evidence(**json.loads(record))
        return [found[i] for i in ids if i in found]

    def page_evidence_ids(self, page_id: str) -> list[str]:
        """Ids of one page's evidences, in page order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id FROM evidences WHERE page_id = ? ORDER BY id", (page_id,)
            )
            return [r[0] for r in rows]

    def lexical_search(
        self, query: str, k: int, spaces: Collection[str] | None = None, language: str = "en"
    ) -> list[tuple[str, float]]:
        """BM25 top `k` (evidence id, score) for the query text."""
        bm25, doc_spaces = self._lexical()
        mask = space_mask(doc_spaces, spaces) if spaces is not None else None
        return bm25.search(self.query_tokens(query, language), k, mask)

    def query_tokens(self, query: str, language: str = "en") -> list[str]:
        """BM25 tokens of a query; a non-English query also gets the corpus words nearest to
        its words that the corpus lacks (see core.translate), when translation is on."""
        tokens = tokenize(query, language)
        if language == "en" or not self.settings.translate_queries:
            return tokens
        for neighbours in self.translations(query).values():
            tokens.extend(dict.fromkeys(t for n in neighbours for t in tokenize(n)))
        return tokens

    def translations(self, query: str) -> dict[str, list[str]]:
        """Each word of a (non-English) query that the corpus lacks → its nearest corpus
        words (see core.translate); empty when translation is off."""
        if not self.settings.translate_queries:
            return {}
        self._lexical()
        stop = GERMAN_STOPWORDS | ENGLISH_STOPWORDS
        words = [w for w in query_words(query) if w not in stop]
        return self._translator.translate(
            words,
            per_word=self.settings.translation_per_word,
            min_similarity=self.settings.translation_min_similarity,
        )

    def dense_search(
        self, vector: np.ndarray, k: int, spaces: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        """Nearest `k` (evidence id, cosine similarity) to a query vector."""
        total = self._collection.count()
        if total == 0:
            return []
        where = None
        if spaces is not None:
            if not spaces:
                return []
            where = {"space": {"$in": sorted(spaces)}}
        result = self._collection.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32)],
            n_results=min(k, total),
            where=where,
            include=["distances"],
        )
        pairs = zip(result["ids"][0], result["distances"][0], strict=True)
        return [(i, 1.0 - float(d)) for i, d in pairs]

    def _generation(self) -> int:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    def _lexical(self) -> tuple[BM25Index, list[str]]:
        """The BM25 index to query. Once one is loaded, a store that has changed since gets a
        new index built in the background while queries go on with the previous one (a
        rebuild takes seconds to a minute on large wikis); the first use builds it now."""
        with self._lock:
            if self._bm25 is not None:
                if self._generation() != self._bm25_generation and not self._rebuilding:
                    self._rebuilding = True
                    threading.Thread(
                        target=self._background_refresh, name="bm25-rebuild", daemon=True
                    ).start()
                return self._bm25, self._bm25_spaces
        return self.warm_up()

    def _background_refresh(self) -> None:
        try:
            self.warm_up()
        except Exception:  # the next query tries again; the previous index keeps serving
            log.exception("rebuilding the lexical index failed")
        finally:
            with self._lock:
                self._rebuilding = False

    def warm_up(self) -> tuple[BM25Index, list[str]]:
        """Bring the BM25 index (and the translation vocabulary) up to date with the store
        now: load the saved one if it is current, else rebuild it. Queries are not blocked
        while it builds; they use the previous index until it is swapped in."""
        with self._build_lock:
            folder = self.folder / "bm25"
            stamp = folder / "generation.json"
            with self._lock:
                generation = self._generation()
                if self._bm25 is not None and generation == self._bm25_generation:
                    return self._bm25, self._bm25_spaces
                saved = json.loads(stamp.read_text()) if stamp.exists() else {}
                current = saved.get("generation") == generation
                if not (current and saved.get("format") == _LEXICAL_FORMAT):
                    rows = self._db.execute(
                        "SELECT id, space, tokens, record FROM evidences ORDER BY id"
                    ).fetchall()
            if current and saved.get("format") == _LEXICAL_FORMAT:
                bm25 = BM25Index.load(folder)
                doc_spaces = saved["spaces"]
                translator = TermTranslator.load(folder, self.embedder)
            else:
                ids, doc_spaces, tokens, texts = [], [], [], []
                for evidence_id, space, token_json, record in rows:
                    ids.append(evidence_id)
                    doc_spaces.append(space)
                    tokens.append(json.loads(token_json))
                    texts.append(json.loads(record)["contextualized"])
                del rows
                bm25 = BM25Index(ids, tokens)
                bm25.save(folder)
                translator = TermTranslator(vocabulary(texts), self.embedder)
                translator.save(folder)
                stamp.write_text(
                    json.dumps(
                        {"generation": generation, "format": _LEXICAL_FORMAT, "spaces": doc_spaces}
                    )
                )
            with self._lock:
                self._bm25, self._bm25_spaces = bm25, doc_spaces
                self._bm25_generation, self._translator = generation, translator
            return bm25, doc_spaces

    def close(self) -> None:
        """Close the evidence store."""
        with self._lock:
            self._db.close()


def _safe(name: str) -> str:
    """A Chroma-safe collection name fragment (3-63 chars, alphanumerics, . _ -)."""
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in name)[:40].strip("-._")


def _page_record(page: Page) -> str:
    """A page's stored record: its metadata as JSON, without the body."""
    return json.dumps(dataclasses.asdict(dataclasses.replace(page, body="")))


def _page(record: dict) -> Page:
    record["ancestors"] = tuple(record.get("ancestors", ()))
    record["labels"] = tuple(record.get("labels", ()))
    return Page(**record)
