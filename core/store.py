"""The evidence store: page records, evidence records and a BM25 index, as rows of SQL tables.

One schema on two engines:
- embedded (the default): an SQLite file per collection in the data folder. SQLite's WAL
  lets one writer at a time commit while readers go on reading the last committed state,
  so a web process and a worker (or a `confbot sync`) can share a data folder;
- server: the PostgreSQL database of `database_url`, shared by every web replica and
  sync worker.

The lexical index is an inverted index in SQL: `lexical_postings` holds one row per term
and evidence (term frequency, evidence length, space), `lexical_terms` each term's
document frequency, `index_collections` the evidence and token counts. The database scores
a query: each query term's postings are read best first (impact order, `core.lexical.impact`)
up to `postings_per_term`, weighted by BM25 and summed per evidence. That is exact BM25 for
every term that occurs in at most `postings_per_term` evidences; for a commoner term (a low
IDF) an evidence past the cut loses that term's share, at most idf times the weight of the
last posting read.

Writes are incremental and by page: replacing a page deletes its evidences' postings,
inserts the new ones and adjusts the statistics in the same transaction that writes the
evidences, so a deleted evidence can never be found by lexical search once the store has
committed. Each write transaction first bumps its collection's generation, which locks that
row: writers of one collection take turns (and never deadlock on term rows), and readers can
tell that something changed. `lexical_words` keeps the vocabulary the query translator maps
German words onto (`core.translate`), with each word's vector once computed, and the number
of evidences holding each word, which spelling correction prefers by (`core.spelling`).

The tables are derived data, rebuilt from the wiki with `confbot sync --full` rather than
migrated, so they are created here; Alembic (`migrations/`) owns the state tables.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import lru_cache

import numpy as np
from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Table,
    Text,
    TextClause,
    UniqueConstraint,
    bindparam,
    delete,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url

from core.db import engine_for, migration_lock, read_again_if_dropped, reader_for
from core.lexical import K1, MAX_TERM_LENGTH, B, evidence_tokens, idf, impact, term_counts
from core.ownership import LeaseLost, PendingOwner
from core.pages import Evidence, Page
from core.translate import vocabulary

METADATA = MetaData()

collections = Table(
    "index_collections",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(255), nullable=False, unique=True),
    Column("generation", BigInteger, nullable=False, default=0),
    Column("documents", BigInteger, nullable=False, default=0),
    Column("tokens", BigInteger, nullable=False, default=0),
    Column("reference_length", Float),
    Column("build_note", Text),
    # the generation of the last page deletion: page catalogs older than it read every page
    Column("deleted_generation", BigInteger, nullable=False, server_default="0"),
)

pages = Table(
    "index_pages",
    METADATA,
    Column("collection_id", Integer, nullable=False),
    Column("page_id", String(255), nullable=False),
    Column("space", String(255), nullable=False),
    Column("record", Text, nullable=False),
    # the generation that last wrote the record: page catalogs read only newer records
    Column("generation", BigInteger, nullable=False, server_default="0"),
    PrimaryKeyConstraint("collection_id", "page_id"),
    Index("ix_index_pages_space", "collection_id", "space"),
    Index("ix_index_pages_generation", "collection_id", "generation"),
)

pending = Table(
    "index_pending",
    METADATA,
    Column("collection_id", Integer, nullable=False),
    Column("page_id", String(255), nullable=False),
    # who is writing the page (core.ownership): the write's stamp and the lease it holds
    Column("writer", String(600)),
    Column("holder", String(255)),
    Column("space", String(255)),
    Column("token", BigInteger),
    PrimaryKeyConstraint("collection_id", "page_id"),
)
OWNER_COLUMNS = ("writer", "holder", "space", "token")

spaces = Table(
    "index_spaces",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("collection_id", Integer, nullable=False),
    Column("space", String(255), nullable=False),
    UniqueConstraint("collection_id", "space"),
)

evidences = Table(
    "index_evidences",
    METADATA,
    Column("doc", Integer, primary_key=True, autoincrement=True),
    Column("collection_id", Integer, nullable=False),
    Column("evidence_id", String(512), nullable=False),
    Column("page_id", String(255), nullable=False),
    Column("length", Integer, nullable=False),
    Column("record", Text, nullable=False),
    UniqueConstraint("collection_id", "evidence_id"),
    Index("ix_index_evidences_page", "collection_id", "page_id"),
)

terms = Table(
    "lexical_terms",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("collection_id", Integer, nullable=False),
    Column("term", String(4 * MAX_TERM_LENGTH), nullable=False),
    Column("df", Integer, nullable=False),
    UniqueConstraint("collection_id", "term"),
)

postings = Table(
    "lexical_postings",
    METADATA,
    Column("term_id", Integer, nullable=False),
    Column("impact", SmallInteger, nullable=False),
    Column("doc", Integer, nullable=False),
    Column("tf", Integer, nullable=False),
    Column("length", Integer, nullable=False),
    Column("space_id", Integer, nullable=False),
    PrimaryKeyConstraint("term_id", "impact", "doc"),
    Index("ix_lexical_postings_doc", "doc"),
    sqlite_with_rowid=False,
)

words = Table(
    "lexical_words",
    METADATA,
    Column("collection_id", Integer, nullable=False),
    Column("word", String(4 * MAX_TERM_LENGTH), nullable=False),
    Column("evidences", Integer, nullable=False),
    Column("vector", LargeBinary),
    PrimaryKeyConstraint("collection_id", "word"),
)

_CHUNK = 500  # ids per IN (...) list
_POSTING_COLUMNS = ("term_id", "impact", "doc", "tf", "length", "space_id")


def _sqlite_store_pragmas(dbapi_connection, _record) -> None:
    """WAL with synchronous=NORMAL: a commit no longer waits for fsync; the store cannot be
    corrupted, and a power cut loses at most the last writes, which the next sync redoes
    (SQLite documentation, "Write-Ahead Logging" and PRAGMA synchronous). A 64 MiB page
    cache per connection (the default is 2 MiB) keeps the postings B-tree's inner pages
    at hand for writes that land all over it."""
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")
    dbapi_connection.execute("PRAGMA cache_size=-65536")


def _chunks(items: Sequence, size: int = _CHUNK) -> Iterable[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclasses.dataclass(frozen=True)
class PageEntry:
    """What retrieval needs to know of an indexed page besides its evidences."""

    page_id: str
    title: str
    space: str
    url: str
    signature: tuple[int, ...]
    labels: tuple[str, ...] = ()
    ancestors: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class PendingMark:
    """What marking pages as being written found: the pages indexed before, and those
    already marked (an earlier write of theirs did not finish, so Chroma may hold vectors
    of theirs that the store does not know)."""

    indexed: frozenset[str]
    unfinished: frozenset[str]

    @property
    def known(self) -> list[str]:
        """The pages whose vectors may exist and must be replaced, sorted."""
        return sorted(self.indexed | self.unfinished)


@dataclasses.dataclass(frozen=True)
class _Catalog:
    """The page entries of a collection as of a generation."""

    generation: int
    entries: dict[str, PageEntry]


def page_record(page: Page, signature: Sequence[int] = ()) -> str:
    """A page's stored record: its metadata as JSON, without the body, with the MinHash
    signature of its evidence text (core.duplicates) under `signature`."""
    record = dataclasses.asdict(dataclasses.replace(page, body=""))
    return json.dumps({**record, "signature": list(signature)})


def _page_entry(page_id: str, record: str) -> PageEntry:
    data = json.loads(record)
    return PageEntry(
        page_id,
        data["title"],
        data["space"],
        data["url"],
        tuple(data.get("signature", ())),
        tuple(data.get("labels", ())),
        tuple(data.get("ancestors", ())),
    )


def _add_catalog_columns(db: Connection) -> None:
    """Give a store made before them the columns that let page catalogs read only what
    changed (`index_pages.generation`, `index_collections.deleted_generation`) and their
    index. Both default to 0, a constant: no row is rewritten, and a catalog's first read
    reads every page anyway. Likewise the owner columns of pending marks (empty: a mark
    left before them is repaired as a crashed single writer's)."""
    inspector = inspect(db)
    for column in (pages.c.generation, collections.c.deleted_generation):
        table = column.table.name
        if column.name not in {c["name"] for c in inspector.get_columns(table)}:
            db.execute(
                text(f"ALTER TABLE {table} ADD COLUMN {column.name} BIGINT NOT NULL DEFAULT 0")
            )
    for index in pages.indexes:
        index.create(db, checkfirst=True)
    have = {c["name"] for c in inspector.get_columns(pending.name)}
    for name in OWNER_COLUMNS:  # a store made before marks named their writer
        if name not in have:
            kind = pending.c[name].type.compile(db.dialect)
            db.execute(text(f"ALTER TABLE {pending.name} ADD COLUMN {name} {kind}"))


def page_from_record(record: str) -> Page:
    """The page a stored record describes (body empty)."""
    fields = json.loads(record)
    fields.pop("signature", None)
    fields["ancestors"] = tuple(fields.get("ancestors", ()))
    fields["labels"] = tuple(fields.get("labels", ()))
    return Page(**fields)


def evidence_words(evidence: Evidence) -> set[str]:
    """The words an evidence adds to the translation vocabulary."""
    return {w for w in vocabulary([evidence.contextualized]) if len(w) <= MAX_TERM_LENGTH}


class EvidenceStore:
    """The records and the lexical index of one collection in an SQL database.

    Safe to share between threads (each call takes a connection of the engine's pool) and
    between processes (the database orders the writers).
    """

    def __init__(self, url: str, collection: str, postings_per_term: int):
        dialect = make_url(url).get_backend_name()
        if dialect == "postgresql":
            self._insert = postgresql.insert
        elif dialect == "sqlite":
            self._insert = sqlite.insert
        else:
            raise ValueError(f"the evidence store runs on sqlite or postgresql, not {dialect}")
        self.engine = engine_for(url)
        self.reader = reader_for(url)  # reads: one round trip each on a server
        self.postings_per_term = postings_per_term
        self._catalog: _Catalog | None = None  # the last `page_entries`
        # The generation of the latest write through this store: what is derived from the
        # store in this process must show it at once (`EvidenceIndex._derived`).
        self.written_generation = 0
        self._catalog_lock = threading.Lock()
        self._copy = make_url(url).get_driver_name() == "psycopg2"
        if dialect == "sqlite" and not event.contains(
            self.engine, "connect", _sqlite_store_pragmas
        ):
            event.listen(self.engine, "connect", _sqlite_store_pragmas)
        # Processes starting at once create and upgrade the tables one after the other.
        lock = migration_lock(url) if dialect == "sqlite" else contextlib.nullcontext()
        with lock, self.engine.begin() as db:
            if dialect == "postgresql":
                db.execute(text("SELECT pg_advisory_xact_lock(hashtext('confbot index tables'))"))
            METADATA.create_all(db)
            _add_catalog_columns(db)
        with self.engine.begin() as db:
            db.execute(
                self._insert(collections)
                .values(name=collection, generation=0, documents=0, tokens=0)
                .on_conflict_do_nothing(index_elements=["name"])
            )
            self.collection_id = db.execute(
                select(collections.c.id).where(collections.c.name == collection)
            ).scalar_one()

    def close(self) -> None:
        """Release the pooled connections of the writing and the reading engine."""
        self.engine.dispose()
        self.reader.dispose()

    # ------------------------------------------------------------------ writing
    def mark_pending(self, page_ids: Sequence[str], owner: Mapping | None = None) -> PendingMark:
        """Mark pages as being written by `owner` (`OWNER_COLUMNS`: the write's stamp and its
        lease; a mark another writer left is taken over); returns which of them were indexed
        and which were marked already, read in the same transaction."""
        c = self.collection_id
        values = {name: (owner or {}).get(name) for name in OWNER_COLUMNS}
        with self.engine.begin() as db:
            indexed = self._of_pages(db, [pages.c.page_id], page_ids)
            unfinished = self._of_pages(db, [pending.c.page_id], page_ids)
            stmt = self._insert(pending)
            db.execute(
                stmt.on_conflict_do_update(
                    index_elements=["collection_id", "page_id"],
                    set_={name: stmt.excluded[name] for name in OWNER_COLUMNS},
                ),
                [{"collection_id": c, "page_id": i, **values} for i in page_ids],
            )
        return PendingMark(
            frozenset(r.page_id for r in indexed), frozenset(r.page_id for r in unfinished)
        )

    def mark_unsettled(self, page_ids: Sequence[str]) -> None:
        """Mark pages pending with no owner, unless a writer has marked them already: a
        write that lost its ownership after writing Chroma leaves them for a repair."""
        with self.engine.begin() as db:
            db.execute(
                self._insert(pending).on_conflict_do_nothing(),
                [{"collection_id": self.collection_id, "page_id": i} for i in page_ids],
            )

    def take_over_pending(self, expected: Mapping[str, str | None], owner: Mapping) -> list[str]:
        """Give `owner` the marks of these pages that still carry the writer stamp expected
        of each (a repair takes over the marks of writers that are gone; a mark whose
        writer changed meanwhile is left alone). Returns the pages taken, sorted."""
        values = {name: owner.get(name) for name in OWNER_COLUMNS}
        taken = []
        with self.engine.begin() as db:
            for page_id, writer in sorted(expected.items()):
                same = pending.c.writer.is_(None) if writer is None else pending.c.writer == writer
                done = db.execute(
                    update(pending)
                    .where(
                        pending.c.collection_id == self.collection_id,
                        pending.c.page_id == page_id,
                        same,
                    )
                    .values(**values)
                ).rowcount
                if done:
                    taken.append(page_id)
        return taken

    def _fence(
        self,
        db: Connection,
        page_ids: Sequence[str],
        writer: str | None,
        check: Callable[[], None] | None,
    ) -> None:
        """Inside a write transaction (the collection's row locked): raise LeaseLost when the
        writer's lease is no longer held (`check`) or another writer took over a page's
        mark, so the transaction commits nothing."""
        if check is not None:
            check()
        if writer is None:
            return
        owned = {
            r.page_id
            for r in self._of_pages(db, [pending.c.page_id, pending.c.writer], page_ids)
            if r.writer == writer
        }
        lost = sorted(set(page_ids) - owned)
        if lost:
            raise LeaseLost(
                f"page(s) {', '.join(lost[:5])} were taken over by another writer or a repair"
            )

    def _clear_marks(self, db: Connection, page_ids: Sequence[str], writer: str | None) -> None:
        """Delete the pages' marks (only those of `writer` when given)."""
        for chunk in _chunks(list(page_ids)):
            where = [pending.c.collection_id == self.collection_id, pending.c.page_id.in_(chunk)]
            if writer is not None:
                where.append(pending.c.writer == writer)
            db.execute(delete(pending).where(*where))

    def _of_pages(self, db: Connection, columns: Sequence[Column], page_ids: Sequence[str]):
        """The `columns` of this collection's rows in their table whose page is one of
        `page_ids`, selected `_CHUNK` ids at a time."""
        table = columns[0].table
        rows = []
        for chunk in _chunks(list(page_ids)):
            rows.extend(
                db.execute(
                    select(*columns).where(
                        table.c.collection_id == self.collection_id, table.c.page_id.in_(chunk)
                    )
                ).all()
            )
        return rows

    def replace_pages(
        self,
        items: Sequence[tuple[Page, Sequence[Evidence]]],
        signatures: Mapping[str, Sequence[int]] | None = None,
        writer: str | None = None,
        check: Callable[[], None] | None = None,
    ) -> None:
        """Replace every evidence of each page (records, postings, statistics, vocabulary)
        and the page records (with each page's duplicate signature from `signatures`), and
        clear their pending marks, in one transaction; with a `writer` stamp, only when its
        marks are still its own and `check` passes (`_fence`), else LeaseLost."""
        signatures = signatures or {}
        page_ids = [page.id for page, _ in items]
        new = [e for _, page_evidences in items for e in page_evidences]
        c = self.collection_id
        with self.engine.begin() as db:
            reference, generation = self._begin_write(db)
            self._fence(db, page_ids, writer, check)
            removed_docs, removed_tokens = self._remove_evidences(db, page_ids)
            added_tokens = self._add_evidences(db, new, reference)
            self._add_to_counts(db, len(new) - removed_docs, added_tokens - removed_tokens)
            stmt = self._insert(pages)
            db.execute(
                stmt.on_conflict_do_update(
                    index_elements=["collection_id", "page_id"],
                    set_={
                        "space": stmt.excluded.space,
                        "record": stmt.excluded.record,
                        "generation": stmt.excluded.generation,
                    },
                ),
                [
                    {
                        "collection_id": c,
                        "page_id": page.id,
                        "space": page.space,
                        "record": page_record(page, signatures.get(page.id, ())),
                        "generation": generation,
                    }
                    for page, _ in items
                ],
            )
            self._clear_marks(db, page_ids, writer)

    def delete_page(
        self, page_id: str, writer: str | None = None, check: Callable[[], None] | None = None
    ) -> None:
        """Remove a page's record and its evidences, and clear its pending mark (fenced as
        `replace_pages` is)."""
        c = self.collection_id
        with self.engine.begin() as db:
            _, generation = self._begin_write(db)
            self._fence(db, [page_id], writer, check)
            removed_docs, removed_tokens = self._remove_evidences(db, [page_id])
            self._add_to_counts(db, -removed_docs, -removed_tokens)
            db.execute(delete(pages).where(pages.c.collection_id == c, pages.c.page_id == page_id))
            db.execute(
                update(collections)
                .where(collections.c.id == c)
                .values(deleted_generation=generation)
            )
            self._clear_marks(db, [page_id], writer)

    @read_again_if_dropped
    def pending_pages(self) -> list[str]:
        """Ids of the pages marked pending (a write begun and not finished), sorted."""
        with self.reader.connect() as db:
            ids = db.execute(
                select(pending.c.page_id).where(pending.c.collection_id == self.collection_id)
            ).scalars()
            return sorted(ids)

    @read_again_if_dropped
    def pending_marks(self) -> list[PendingOwner]:
        """The pending marks with their owners, by page id."""
        with self.reader.connect() as db:
            rows = db.execute(
                select(pending.c.page_id, *(pending.c[n] for n in OWNER_COLUMNS))
                .where(pending.c.collection_id == self.collection_id)
                .order_by(pending.c.page_id)
            ).all()
        return [PendingOwner(r.page_id, r.writer, r.holder, r.space, r.token) for r in rows]

    @read_again_if_dropped
    def evidence_ids_of(self, page_ids: Sequence[str]) -> list[str]:
        """Ids of the evidences of these pages, sorted."""
        with self.reader.connect() as db:
            rows = self._of_pages(db, [evidences.c.evidence_id], page_ids)
        return sorted(r.evidence_id for r in rows)

    def clear_pending(self, page_ids: Sequence[str], writer: str | None = None) -> None:
        """Clear the pending marks of these pages (their vectors were repaired); only those
        of `writer` when given."""
        with self.engine.begin() as db:
            self._clear_marks(db, page_ids, writer)

    def update_page_record(self, page: Page, check: Callable[[], None] | None = None) -> None:
        """Replace an indexed page's record and leave its evidences (and so its duplicate
        signature) alone. The generation grows, as with every write: the page catalog of
        every process follows it. `check` raises LeaseLost when the writer's lease is gone."""
        where = (pages.c.collection_id == self.collection_id) & (pages.c.page_id == page.id)
        with self.engine.begin() as db:
            _, generation = self._begin_write(db)
            self._fence(db, [page.id], None, check)
            old = db.execute(select(pages.c.record).where(where)).scalar()
            kept = json.loads(old).get("signature", []) if old else []
            db.execute(
                update(pages)
                .where(where)
                .values(space=page.space, record=page_record(page, kept), generation=generation)
            )

    def set_build_note(self, note: str | None) -> None:
        """Record (or clear) a note about a finished build, e.g. that a benchmark index is
        complete."""
        with self.engine.begin() as db:
            db.execute(
                update(collections)
                .where(collections.c.id == self.collection_id)
                .values(build_note=note)
            )

    def _begin_write(self, db: Connection) -> tuple[float | None, int]:
        """Bump the generation (locking the collection's row until commit: writers take
        turns, and commit in the order of their generations) and return the reference
        length of impacts (None before the first write) and the new generation."""
        reference, generation = db.execute(
            update(collections)
            .where(collections.c.id == self.collection_id)
            .values(generation=collections.c.generation + 1)
            .returning(collections.c.reference_length, collections.c.generation)
        ).one()
        self.written_generation = max(self.written_generation, generation)
        return reference, generation

    def _add_to_counts(self, db: Connection, documents: int, tokens: int) -> None:
        """Change the collection's evidence and token counts (the BM25 N and avgdl)."""
        db.execute(
            update(collections)
            .where(collections.c.id == self.collection_id)
            .values(
                documents=collections.c.documents + documents,
                tokens=collections.c.tokens + tokens,
            )
        )

    def _remove_evidences(self, db: Connection, page_ids: Sequence[str]) -> tuple[int, int]:
        """Delete the pages' evidences with their postings, term and word counts; returns
        (evidences removed, their tokens)."""
        old = self._of_pages(
            db, [evidences.c.doc, evidences.c.length, evidences.c.record], page_ids
        )
        if not old:
            return 0, 0
        docs = [row.doc for row in old]
        df_drop: Counter[int] = Counter()
        word_drop: Counter[str] = Counter()
        for chunk in _chunks(docs):
            for term_id, count in db.execute(
                select(postings.c.term_id, func.count())
                .where(postings.c.doc.in_(chunk))
                .group_by(postings.c.term_id)
            ):
                df_drop[term_id] += count
            db.execute(delete(postings).where(postings.c.doc.in_(chunk)))
            db.execute(delete(evidences).where(evidences.c.doc.in_(chunk)))
        for row in old:
            word_drop.update(evidence_words(Evidence(**json.loads(row.record))))
        if df_drop:
            terms_of = dict(
                db.execute(
                    select(terms.c.id, terms.c.term).where(terms.c.id.in_(sorted(df_drop)))
                ).all()
            )
            drops = Counter({terms_of[t]: -n for t, n in df_drop.items()})
            self._upsert_counts(db, terms, "term", "df", drops)
        self._upsert_counts(
            db, words, "word", "evidences", Counter({w: -n for w, n in word_drop.items()})
        )
        return len(old), sum(row.length for row in old)

    def _add_evidences(
        self, db: Connection, new: Sequence[Evidence], reference: float | None
    ) -> int:
        """Insert evidences with their postings, term and word counts; returns their tokens."""
        if not new:
            return 0
        c = self.collection_id
        counts = [term_counts(evidence_tokens(e)) for e in new]
        lengths = [sum(tf.values()) for tf in counts]
        if reference is None:
            reference = max(1.0, sum(lengths) / len(lengths))
            db.execute(
                update(collections).where(collections.c.id == c).values(reference_length=reference)
            )
        space_ids = self._space_ids(db, sorted({e.space for e in new}))
        docs = (
            db.execute(
                insert(evidences).returning(evidences.c.doc, sort_by_parameter_order=True),
                [
                    {
                        "collection_id": c,
                        "evidence_id": e.id,
                        "page_id": e.page_id,
                        "length": length,
                        "record": json.dumps(dataclasses.asdict(e)),
                    }
                    for e, length in zip(new, lengths, strict=True)
                ],
            )
            .scalars()
            .all()
        )
        df_add: Counter[str] = Counter()
        for tf in counts:
            df_add.update(tf.keys())
        term_ids = self._upsert_counts(db, terms, "term", "df", df_add)
        self._insert_postings(
            db,
            [
                (term_ids[term], impact(n, length, reference), doc, n, length, space_ids[e.space])
                for e, doc, tf, length in zip(new, docs, counts, lengths, strict=True)
                for term, n in tf.items()
            ],
        )
        word_add: Counter[str] = Counter()
        for e in new:
            word_add.update(evidence_words(e))
        self._upsert_counts(db, words, "word", "evidences", word_add)
        return sum(lengths)

    def _insert_postings(self, db: Connection, rows: list[tuple[int, ...]]) -> None:
        """Insert posting rows (term_id, impact, doc, tf, length, space_id): with COPY on
        PostgreSQL through psycopg2, as one executemany of the driver on SQLite. Postings
        are most of what a write sends; both skip SQLAlchemy's per-row work. Rows go in
        primary-key order, so the B-tree is walked once from left to right and each leaf
        is fetched once per write instead of once per posting that lands on it (12% less
        store-write time at 20,000 pages, docs/benchmarks.md)."""
        rows = sorted(rows)
        if self._copy:
            data = io.StringIO("".join("\t".join(map(str, row)) + "\n" for row in rows))
            with db.connection.driver_connection.cursor() as cursor:
                cursor.copy_expert(
                    "COPY lexical_postings (term_id, impact, doc, tf, length, space_id) FROM STDIN",
                    data,
                )
        elif self.engine.dialect.name == "sqlite":
            db.exec_driver_sql(
                f"INSERT INTO lexical_postings ({', '.join(_POSTING_COLUMNS)})"
                f" VALUES ({', '.join('?' * len(_POSTING_COLUMNS))})",
                rows,
            )
        else:  # PostgreSQL through another driver
            db.execute(
                insert(postings), [dict(zip(_POSTING_COLUMNS, row, strict=True)) for row in rows]
            )

    def _upsert_counts(
        self, db: Connection, table: Table, key: str, count: str, add: Counter
    ) -> dict:
        """Add `add[k]` to the `count` column of each row keyed `k` (inserting missing rows)
        and return {k: the row's id, or its new count when the table has no id}. The
        RETURNING form lets SQLAlchemy send the rows in multi-row statements."""
        if not add:
            return {}
        stmt = self._insert(table)
        stmt = stmt.on_conflict_do_update(
            index_elements=["collection_id", key],
            set_={count: table.c[count] + stmt.excluded[count]},
        )
        value = table.c["id"] if "id" in table.c else table.c[count]
        rows = [
            {"collection_id": self.collection_id, key: k, count: n} for k, n in sorted(add.items())
        ]
        return dict(db.execute(stmt.returning(table.c[key], value), rows).all())

    def _space_ids(self, db: Connection, names: Sequence[str]) -> dict[str, int]:
        c = self.collection_id
        db.execute(
            self._insert(spaces).on_conflict_do_nothing(),
            [{"collection_id": c, "space": name} for name in names],
        )
        rows = db.execute(
            select(spaces.c.space, spaces.c.id).where(
                spaces.c.collection_id == c, spaces.c.space.in_(names)
            )
        )
        return {name: space_id for name, space_id in rows}

    # ------------------------------------------------------------------ reading
    @read_again_if_dropped
    def page_ids(self, space: str | None = None) -> set[str]:
        """Ids of the indexed pages (of one space if given)."""
        query = select(pages.c.page_id).where(pages.c.collection_id == self.collection_id)
        if space is not None:
            query = query.where(pages.c.space == space)
        with self.reader.connect() as db:
            return set(db.execute(query).scalars())

    @read_again_if_dropped
    def pages(self) -> list[Page]:
        """The indexed pages' records, by page id."""
        with self.reader.connect() as db:
            records = db.execute(
                select(pages.c.record)
                .where(pages.c.collection_id == self.collection_id)
                .order_by(pages.c.page_id)
            ).scalars()
            return [page_from_record(r) for r in records]

    @read_again_if_dropped
    def page_entries(self) -> dict[str, PageEntry]:
        """Page id to title, space, URL, duplicate signature, labels and ancestors of every
        indexed page, in a new dict (not to be changed: the next call starts from it).

        Only the records written since the last call are read: every write stamps its pages
        with its generation. A deletion records its generation on the collection, and when
        one happened since, the page ids are read too, to drop the deleted pages. At 100,000
        pages, reading every record took 1.7 s, reading the ids after a deletion 0.26 s,
        and reading the records of a 12-page write 5 ms; a sync changes the catalog with
        every write (docs/benchmarks.md, "The page catalog reads what changed")."""
        with self._catalog_lock, self.reader.connect() as db:
            generation, deleted = db.execute(
                select(collections.c.generation, collections.c.deleted_generation).where(
                    collections.c.id == self.collection_id
                )
            ).one()
            of_collection = pages.c.collection_id == self.collection_id
            known = self._catalog
            changed = select(pages.c.page_id, pages.c.record).where(of_collection)
            entries: dict[str, PageEntry] = {}
            if known is not None:
                changed = changed.where(pages.c.generation > known.generation)
                if deleted > known.generation:
                    kept = set(db.execute(select(pages.c.page_id).where(of_collection)).scalars())
                    entries = {p: entry for p, entry in known.entries.items() if p in kept}
                else:
                    entries = dict(known.entries)
            for page_id, record in db.execute(changed):
                entries[page_id] = _page_entry(page_id, record)
            self._catalog = _Catalog(generation, entries)
            return entries

    @read_again_if_dropped
    def page(self, page_id: str) -> Page | None:
        """One indexed page's record, or None."""
        with self.reader.connect() as db:
            record = db.execute(
                select(pages.c.record).where(
                    pages.c.collection_id == self.collection_id, pages.c.page_id == page_id
                )
            ).scalar()
        return page_from_record(record) if record else None

    @read_again_if_dropped
    def spaces(self) -> set[str]:
        """The spaces that have indexed pages."""
        with self.reader.connect() as db:
            return set(
                db.execute(
                    select(pages.c.space)
                    .where(pages.c.collection_id == self.collection_id)
                    .distinct()
                ).scalars()
            )

    @read_again_if_dropped
    def count(self) -> int:
        """Number of indexed evidences (kept with every write, so this costs one row)."""
        with self.reader.connect() as db:
            return db.execute(
                select(collections.c.documents).where(collections.c.id == self.collection_id)
            ).scalar_one()

    @read_again_if_dropped
    def generation(self) -> int:
        """A number that grows with every write of the collection, in any process."""
        with self.reader.connect() as db:
            return db.execute(
                select(collections.c.generation).where(collections.c.id == self.collection_id)
            ).scalar_one()

    @read_again_if_dropped
    def build_note(self) -> str | None:
        """The note of `set_build_note`, if any."""
        with self.reader.connect() as db:
            return db.execute(
                select(collections.c.build_note).where(collections.c.id == self.collection_id)
            ).scalar_one()

    @read_again_if_dropped
    def get(self, ids: Sequence[str]) -> list[Evidence]:
        """Evidences by id, in the order asked (unknown ids are left out)."""
        found: dict[str, Evidence] = {}
        with self.reader.connect() as db:
            for chunk in _chunks(list(ids)):
                for evidence_id, record in db.execute(
                    select(evidences.c.evidence_id, evidences.c.record).where(
                        evidences.c.collection_id == self.collection_id,
                        evidences.c.evidence_id.in_(chunk),
                    )
                ):
                    found[evidence_id] = Evidence(**json.loads(record))
        return [found[i] for i in ids if i in found]

    @read_again_if_dropped
    def page_evidence_ids(self, page_id: str) -> list[str]:
        """Ids of one page's evidences, sorted."""
        with self.reader.connect() as db:
            ids = db.execute(
                select(evidences.c.evidence_id).where(
                    evidences.c.collection_id == self.collection_id,
                    evidences.c.page_id == page_id,
                )
            ).scalars()
            return sorted(ids)

    @read_again_if_dropped
    def lexical_search(
        self, tokens: Sequence[str], k: int, allowed: Collection[str] | None = None
    ) -> list[tuple[str, float]]:
        """BM25 top `k` (evidence id, score) for query tokens, scored by the database; only
        evidences of the `allowed` spaces when given. Ties are broken by evidence id."""
        counts = term_counts(tokens)
        if not counts or k <= 0:
            return []
        c = self.collection_id
        with self.reader.connect() as db:
            documents, total = db.execute(_STATISTICS, {"c": c}).one()
            found = db.execute(_TERMS, {"c": c, "terms": sorted(counts)}).all()
            if not documents or not found:
                return []
            space_ids: list[int] = []
            if allowed is not None:
                space_ids = list(db.execute(_SPACES, {"c": c, "spaces": sorted(allowed)}).scalars())
                if not space_ids:
                    return []
            # score = w tf / (tf + k1 (1 - b) + k1 b |d| / avgdl), with w = count x idf
            params: dict[str, float | int] = {
                "constant": K1 * (1 - B),
                "per_token": K1 * B * documents / total,
                "limit": self.postings_per_term,
                "k": 2 * k,
            }
            for n, (term_id, term, df) in enumerate(found):
                params[f"t{n}"] = term_id
                params[f"w{n}"] = counts[term] * idf(df, documents)
            params.update({f"s{n}": space_id for n, space_id in enumerate(space_ids)})
            rows = db.execute(_search_statement(len(found), len(space_ids)), params).all()
        # Equal scores (duplicate pages) may differ in the last bits of a float sum: rank
        # by score rounded to 9 places, then by id, as the embedded bm25s ranking did.
        ranked = sorted(rows, key=lambda r: (-round(r.score, 9), r.evidence_id))[:k]
        return [(r.evidence_id, float(r.score)) for r in ranked]

    @read_again_if_dropped
    def vocabulary(self) -> list[str]:
        """The translation vocabulary: every word of an indexed evidence, sorted."""
        with self.reader.connect() as db:
            return list(
                db.execute(
                    select(words.c.word)
                    .where(words.c.collection_id == self.collection_id, words.c.evidences > 0)
                    .order_by(words.c.word)
                ).scalars()
            )

    @read_again_if_dropped
    def word_counts(self) -> dict[str, int]:
        """The vocabulary with document frequencies: every word of an indexed evidence and
        the number of evidences containing it (for spelling correction, `core.spelling`)."""
        with self.reader.connect() as db:
            return dict(
                db.execute(
                    select(words.c.word, words.c.evidences).where(
                        words.c.collection_id == self.collection_id, words.c.evidences > 0
                    )
                ).all()
            )

    @read_again_if_dropped
    def word_vectors(self, wanted: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those words that have one."""
        found: dict[str, np.ndarray] = {}
        with self.reader.connect() as db:
            for chunk in _chunks(list(wanted)):
                for word, blob in db.execute(
                    select(words.c.word, words.c.vector).where(
                        words.c.collection_id == self.collection_id,
                        words.c.word.in_(chunk),
                        words.c.vector.is_not(None),
                    )
                ):
                    found[word] = np.frombuffer(blob, dtype=np.float32)
        return found

    def save_word_vectors(self, vectors: dict[str, np.ndarray]) -> None:
        """Store computed word vectors, so no process computes them again."""
        if not vectors:
            return
        with self.engine.begin() as db:
            db.execute(
                update(words)
                .where(words.c.collection_id == self.collection_id, words.c.word == bindparam("w"))
                .values(vector=bindparam("v")),
                [
                    {"w": w, "v": np.asarray(v, dtype=np.float32).tobytes()}
                    for w, v in sorted(vectors.items())
                ],
            )


# Statements of the query path, built once (SQLAlchemy then reuses their compiled form).
_STATISTICS = select(collections.c.documents, collections.c.tokens).where(
    collections.c.id == bindparam("c")
)
_TERMS = select(terms.c.id, terms.c.term, terms.c.df).where(
    terms.c.collection_id == bindparam("c"),
    terms.c.term.in_(bindparam("terms", expanding=True)),
    terms.c.df > 0,
)
_SPACES = select(spaces.c.id).where(
    spaces.c.collection_id == bindparam("c"),
    spaces.c.space.in_(bindparam("spaces", expanding=True)),
)


@lru_cache(maxsize=256)
def _search_statement(term_count: int, space_count: int) -> TextClause:
    """The BM25 query for `term_count` terms (parameters t0.., w0..) restricted to
    `space_count` spaces (s0..; 0 for all): each term's postings best first up to :limit,
    weighted, summed per evidence, the best :k joined to their evidence ids. Plain SQL that
    SQLite and PostgreSQL both run."""
    space_filter = ""
    if space_count:
        placeholders = ", ".join(f":s{n}" for n in range(space_count))
        space_filter = f" AND space_id IN ({placeholders})"
    parts = [
        f"SELECT * FROM (SELECT doc, CAST(:w{n} AS DOUBLE PRECISION) * tf"
        " / (tf + CAST(:constant AS DOUBLE PRECISION)"
        " + CAST(:per_token AS DOUBLE PRECISION) * length) AS score"
        f" FROM lexical_postings WHERE term_id = :t{n}{space_filter}"
        f" ORDER BY impact DESC, doc DESC LIMIT :limit) AS p{n}"
        for n in range(term_count)
    ]
    return text(
        "SELECT e.evidence_id, best.score FROM (SELECT doc, SUM(score) AS score FROM ("
        + " UNION ALL ".join(parts)
        + ") AS postings GROUP BY doc ORDER BY SUM(score) DESC LIMIT :k) AS best"
        " JOIN index_evidences AS e ON e.doc = best.doc"
    )
