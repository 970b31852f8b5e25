"""The SQL database: one declarative base for every table, engines, and migrations.

The state tables are created only by Alembic migrations (`migrations/`); `upgrade` runs
them to the newest revision, which `confbot init` and every process that opens the database
call. The evidence store's tables (`core.store`) are derived data, rebuilt from the wiki
rather than migrated, and created by the store itself.
"""

from __future__ import annotations

import fcntl
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import DeclarativeBase, sessionmaker

from core.redact import redact_url
from core.settings import SettingsError

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
MIGRATION_LOCK_KEY = 0x636F6E66626F74  # "confbot": the PostgreSQL advisory lock of `upgrade`

_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()


class Base(DeclarativeBase):
    """Declarative base of all confbot tables."""


def engine_for(url: str) -> Engine:
    """A shared engine per URL. SQLite gets WAL mode and a busy timeout for concurrent use."""
    with _engines_lock:
        if url not in _engines:
            if url.startswith("sqlite"):
                engine = create_engine(
                    url, connect_args={"check_same_thread": False, "timeout": 30}
                )
                event.listen(engine, "connect", _sqlite_pragmas)
            else:
                engine = create_engine(url, pool_pre_ping=True)
            _engines[url] = engine
        return _engines[url]


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
