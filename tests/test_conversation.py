"""Conversation state: migrations on SQLite (and PostgreSQL when CONFBOT_TEST_POSTGRES_URL is
set) and the store's round trips."""

from __future__ import annotations

import pytest
from sqlalchemy import Table, inspect, text

from core.conversation import TABLES, ConversationKey, ConversationStore
from core.db import Base, engine_for, upgrade


def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'state.sqlite'}"


@pytest.fixture
def store(tmp_path) -> ConversationStore:
    url = sqlite_url(tmp_path)
    upgrade(url)
    return ConversationStore(url)


def check_schema_matches_models(url: str) -> None:
    """The migrated tables are exactly what the models declare (Alembic's autogenerate
    comparison finds nothing to change for our tables)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    with engine_for(url).connect() as connection:
        names = set(inspect(connection).get_table_names())
        assert set(TABLES) <= names and "alembic_version" in names
        version = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        assert version is not None
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, Base.metadata)

    def table_of(change) -> str | None:
        # ("add_index", Index) / ("remove_table", Table) / [("modify_type", schema, table, ...)]
        change = change[0] if isinstance(change, list) else change
        operation, *rest = change
        for item in rest:
            if isinstance(item, Table):
                return item.name
            if isinstance(getattr(item, "table", None), Table):
                return item.table.name
        return rest[1] if operation.startswith("modify_") else None

    ours = [c for c in diff if table_of(c) in TABLES]
    assert ours == []


def exercise_store(url: str) -> None:
    store = ConversationStore(url)
    key = ConversationKey("slack", "T1", "C1", "1700000000.0001")
    other = ConversationKey("slack", "T1", "C1", "1700000000.0002")
    first = store.add_turn(
        key,
        question="What is BATS?",
        completed_question="What is BATS?",
        evidences=[{"id": "e1", "page_id": "7", "rank": 1, "score": 0.5, "ranks": {"lexical": 1}}],
        messages={"completion": None, "answer": [{"role": "user", "content": "ü [1]"}]},
        answer="A test system [1].",
        citations=[{"number": 1, "evidence_id": "e1"}],
        out_of_scope=False,
        model="extractive",
        timings={"total_ms": 12.5},
    )
    second = store.add_turn(
        key,
        question="Who wrote it?",
        completed_question="Who wrote BATS?",
        answer="x",
        out_of_scope=True,
    )
    store.add_turn(other, question="Elsewhere?", completed_question="Elsewhere?", answer="y")
    assert (first.position, second.position) == (1, 2)
    assert store.conversation_id(key) == first.conversation_id != store.conversation_id(other)

    loaded = store.turn(first.id)
    assert loaded.evidences[0]["ranks"] == {"lexical": 1}
    assert loaded.messages["answer"][0]["content"] == "ü [1]"
    assert loaded.timings == {"total_ms": 12.5} and loaded.created_at is not None
    assert [t.question for t in store.history(key)] == ["What is BATS?", "Who wrote it?"]
    assert [t.question for t in store.history(key, limit=1)] == ["Who wrote it?"]

    store.add_feedback(first.id, "up", user="U1")
    store.add_feedback(first.id, "down")
    assert [(f.value, f.user) for f in store.feedback(first.id)] == [("up", "U1"), ("down", "")]

    assert store.explanation(first.id) is None
    store.save_explanation(first.id, {"scores": [0.7, 0.3]})
    store.save_explanation(first.id, {"scores": [0.6, 0.4]})
    assert store.explanation(first.id) == {"scores": [0.6, 0.4]}

    assert store.archive(key) == 2
    assert store.history(key) == []
    assert len(store.turns(key)) == 2 and len(store.history(other)) == 1
    third = store.add_turn(key, question="Fresh", completed_question="Fresh", answer="z")
    assert third.position == 3 and [t.question for t in store.history(key)] == ["Fresh"]
    assert store.turn(10**9) is None


def test_migrations_on_sqlite(tmp_path):
    url = sqlite_url(tmp_path)
    upgrade(url)
    upgrade(url)  # idempotent
    check_schema_matches_models(url)
    exercise_store(url)


@pytest.mark.postgres
def test_migrations_on_postgres(postgres_url):
    upgrade(postgres_url)
    check_schema_matches_models(postgres_url)
    exercise_store(postgres_url)


def test_downgrade_removes_tables(tmp_path):
    url = sqlite_url(tmp_path)
    upgrade(url, "0001_conversations")
    from alembic import command

    from core.db import alembic_config

    command.downgrade(alembic_config(url), "base")
    with engine_for(url).connect() as connection:
        assert not set(TABLES) & set(inspect(connection).get_table_names())


def test_conversation_id_is_stable(store):
    key = ConversationKey("terminal", "local", "tty", "1")
    assert store.conversation_id(key) == store.conversation_id(key)
    assert str(key) == "terminal:local/tty/1"
