"""The SQL database: one declarative base for every table, engines, and migrations.

The state tables are created only by Alembic migrations (`migrations/`); `upgrade` runs
them to the newest revision, which `confbot init` and every process that opens the database
call. The evidence store's tables (`core.store`) are derived data, rebuilt from the wiki
rather than migrated, and created by the store itself.
"""

from __future__ import annotations

import fcntl
import functools
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ParamSpec, TypeVar

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import DeclarativeBase, sessionmaker

from core.redact import redact_url
from core.settings import SettingsError

P = ParamSpec("P")
T = TypeVar("T")

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
MIGRATION_LOCK_KEY = 0x636F6E66626F74  # "confbot": the PostgreSQL advisory lock of `upgrade`

_engines: dict[tuple[str, str], Engine] = {}
_engines_lock = threading.Lock()

POOL_KEPT = 5
"""Connections a server database's pool keeps open between uses (SQLAlchemy's default)."""
_pool_limit = 15  # the most connections a pool opens; `limit_connections` changes it


class Base(DeclarativeBase):
    """Declarative base of all confbot tables."""


def limit_connections(most: int) -> None:
    """Open at most `most` connections per pool to a server database (a process has two
    pools: `engine_for`'s and `reader_for`'s), keeping up to `POOL_KEPT` of them open
    between uses; threads that find every connection lent wait for one. Applies to the
    engines made after the call (the console script calls it before any).

    At least 2: a sync holds a connection of the writing pool for its sync state while it
    writes the evidence store through another (`connectors.sync`)."""
    global _pool_limit
    if most < 2:
        raise SettingsError(
            f"CONFBOT_DATABASE_CONNECTIONS={most}: at least 2 (a sync writes its state and"
            " the evidence store at once)"
        )
    _pool_limit = most


def _pool_sizes() -> dict[str, int]:
    kept = min(POOL_KEPT, _pool_limit)
    return {"pool_size": kept, "max_overflow": _pool_limit - kept}


def engine_for(url: str) -> Engine:
    """A shared engine per URL. SQLite gets WAL mode and a busy timeout for concurrent use."""
    with _engines_lock:
        if (url, "write") not in _engines:
            if url.startswith("sqlite"):
                engine = create_engine(
                    url, connect_args={"check_same_thread": False, "timeout": 30}
                )
                event.listen(engine, "connect", _sqlite_pragmas)
            else:
                engine = create_engine(url, pool_pre_ping=True, **_pool_sizes())
            _engines[(url, "write")] = engine
        return _engines[(url, "write")]


def reader_for(url: str) -> Engine:
    """A shared engine per URL for single read-only statements, cheaper per read on a server.

    The writing engine of a server database pings each connection it lends (`SELECT 1`) and
    rolls back the transaction each returned connection leaves open: three round trips for
    one `SELECT`, and at 100,000 pages 38% of the time of searches that ran beside a
    sync. This one runs in autocommit (each statement sees the newest commit, as under
    READ COMMITTED, and leaves no transaction to roll back) and does not ping: a read that
    finds its connection dropped fails with `connection_invalidated`, which also discards
    the pool's older connections, and `read_again_if_dropped` runs it again. SQLite needs
    no round trips, so its reader is the writing engine."""
    if url.startswith("sqlite"):
        return engine_for(url)
    with _engines_lock:
        if (url, "read") not in _engines:
            _engines[(url, "read")] = create_engine(
                url, isolation_level="AUTOCOMMIT", **_pool_sizes()
            )
        return _engines[(url, "read")]


def read_again_if_dropped(read: Callable[P, T]) -> Callable[P, T]:
    """Decorate a read-only function of `reader_for` connections: if the server dropped the
    connection it was lent (a restart, an idle timeout), run it once more on a fresh one."""

    @functools.wraps(read)
    def reading(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return read(*args, **kwargs)
        except DBAPIError as error:
            if not error.connection_invalidated:
                raise
            return read(*args, **kwargs)

    return reading


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
    except sqlite3.OperationalError:  # a read-only database: it can still be read
        pass
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def session_factory(url: str) -> sessionmaker:
    """A session factory bound to the engine of `url`."""
    return sessionmaker(bind=engine_for(url), expire_on_commit=False)


def alembic_config(url: str):
    """An Alembic configuration for the bundled migrations against `url`."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Run the migrations on `url` up to `revision` (default: the newest). A database that
    cannot be reached or written is a `SettingsError` that says why and names the setting."""
    from alembic import command
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    try:
        with migration_lock(url):
            command.upgrade(alembic_config(url), revision)
    except (NoSuchModuleError, ArgumentError) as exc:
        raise SettingsError(
            f"CONFBOT_DATABASE_URL={redact_url(url)} is not a database URL confbot can use"
            f" ({exc}); PostgreSQL needs pip install 'confbot[postgres]'"
        ) from None
    except SQLAlchemyError as exc:
        reason = " ".join(str(getattr(exc, "orig", None) or exc).split())[:300]
        raise SettingsError(
            f"cannot open the state database {redact_url(url)}: {reason}. Check"
            " CONFBOT_DATABASE_URL (empty: SQLite in CONFBOT_DATA_DIR), that the server runs"
            " and that the database can be written"
        ) from None


@contextmanager
def migration_lock(url: str) -> Iterator[None]:
    """Hold the database's migration lock: processes started together on one database (a
    web replica and a worker, say) run the migrations one after the other, so the later
    ones find the schema current instead of failing on "table already exists".

    PostgreSQL: a session advisory lock on its own connection (`MIGRATION_LOCK_KEY`).
    SQLite: an exclusive `flock` on `<database>.migrate-lock` beside the file (an in-memory
    database belongs to one process and needs none). Other databases: no lock."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "postgresql":
        with engine_for(url).connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            try:
                yield
            finally:
                connection.execute(
                    text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY}
                )
                connection.commit()
    elif backend == "sqlite" and parsed.database not in (None, "", ":memory:"):
        try:
            handle = open(f"{parsed.database}.migrate-lock", "a")  # noqa: SIM115
        except OSError:  # a read-only folder: nothing can migrate there, so nothing races
            yield
            return
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    else:
        yield
