"""How many connections a process opens to a server database: `CONFBOT_DATABASE_CONNECTIONS`
per pool (`core.db.limit_connections`), so that replicas fit the server's max_connections."""

from __future__ import annotations

import argparse
import threading
import time
import uuid

import pytest
from sqlalchemy import create_engine, text

from bot.cli import _settings
from core import db
from core.db import engine_for, limit_connections, reader_for
from core.settings import SettingsError


@pytest.fixture
def fresh_limit(monkeypatch):
    """Restore the process's connection limit after the test."""
    monkeypatch.setattr(db, "_pool_limit", db._pool_limit)


@pytest.fixture
def engines_of():
    """Dispose of and forget the engines a test made for its URLs."""
    urls: list[str] = []
    yield urls.append
    for url in urls:
        for role in ("write", "read"):
            engine = db._engines.pop((url, role), None)
            if engine is not None:
                engine.dispose()


def _most_connections_during(admin_url: str, name: str, work) -> int:
    """The most server connections named `name` seen while `work()` runs in 6 threads."""
    admin = create_engine(admin_url)
    threads = [threading.Thread(target=work) for _ in range(6)]
    most = 0
    try:
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            with admin.connect() as connection:
                count = connection.execute(
                    text("SELECT count(*) FROM pg_stat_activity WHERE application_name = :n"),
                    {"n": name},
                ).scalar_one()
            most = max(most, count)
            time.sleep(0.02)
    finally:
        for thread in threads:
            thread.join()
        admin.dispose()
    return most


@pytest.mark.parametrize("pool", [engine_for, reader_for])
def test_a_pool_opens_no_more_connections_than_the_limit(
    pool, postgres_url, fresh_limit, engines_of
):
    name = f"confbot-pool-{uuid.uuid4().hex[:8]}"
    url = f"{postgres_url}&application_name={name}"
    engines_of(url)
    limit_connections(2)
    done: list[int] = []

    def read() -> None:
        with pool(url).connect() as connection:
            done.append(connection.execute(text("SELECT 1 FROM pg_sleep(0.3)")).scalar_one())

    assert _most_connections_during(postgres_url, name, read) == 2
    assert done == [1] * 6  # the threads that found both connections lent waited for one


def test_a_limit_below_two_connections_names_its_setting(fresh_limit):
    with pytest.raises(SettingsError, match="CONFBOT_DATABASE_CONNECTIONS=1: at least 2"):
        limit_connections(1)


def test_the_console_script_applies_the_setting(fresh_limit, engines_of, monkeypatch):
    for name in ("CONFBOT_CONFIG", "CONFBOT_DATABASE_CONNECTIONS"):
        monkeypatch.delenv(name, raising=False)
    url = f"postgresql+psycopg2://nobody@127.0.0.1:9/none?application_name={uuid.uuid4().hex}"
    engines_of(url)
    _settings(argparse.Namespace(config=["database_connections=3"]))
    assert engine_for(url).pool.size() == 3  # kept open between uses: min(3, POOL_KEPT)
