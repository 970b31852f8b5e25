"""Retention of questions (`core.retention`, `bot.retention`) and the audit log
(`core.audit`): old turns go with their explanations and feedback, recent ones stay, the
daily job and `confbot retention` apply the setting, and each run is audited."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, inspect, select

from bot.cli import main
from bot.retention import SCHEDULE, retention_jobs, run_retention
from core import audit
from core.conversation import (
    ConversationKey,
    ConversationRecord,
    ConversationStore,
    ExplanationRecord,
    FeedbackRecord,
    TurnRecord,
    utcnow,
)
from core.db import engine_for, session_factory, upgrade
from core.retention import cutoff_for, delete_older_than
from core.settings import Settings


@pytest.fixture
def url(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    return url


def add(store: ConversationStore, url: str, thread: str, days_ago: int) -> int:
    """A turn asked `days_ago` days ago, rated and explained."""
    turn = store.add_turn(
        ConversationKey("slack", "T1", "C1", thread),
        question=f"question {thread}",
        completed_question=f"question {thread}",
        answer="...",
    )
    store.add_feedback(turn.id, "down", "U1")
    store.save_explanation(turn.id, {"why": "x"})
    moment = utcnow() - timedelta(days=days_ago)
    with session_factory(url)() as db:
        db.get(TurnRecord, turn.id).created_at = moment
        for model in (FeedbackRecord, ExplanationRecord):
            for row in db.scalars(select(model).where(model.turn_id == turn.id)):
                row.created_at = moment
        conversation = db.get(ConversationRecord, db.get(TurnRecord, turn.id).conversation_id)
        created = conversation.created_at  # SQLite gives it back without its offset
        conversation.created_at = min(created.replace(tzinfo=moment.tzinfo), moment)
        db.commit()
    return turn.id


def counts(url: str) -> dict[str, int]:
    with session_factory(url)() as db:
        return {
            model.__tablename__: db.scalar(select(func.count()).select_from(model))
            for model in (ConversationRecord, TurnRecord, ExplanationRecord, FeedbackRecord)
        }


def test_old_turns_go_with_their_explanations_and_feedback(url):
    store = ConversationStore(url)
    old = add(store, url, "old", days_ago=100)
    add(store, url, "mixed", days_ago=100)
    kept_in_mixed = add(store, url, "mixed", days_ago=2)
    recent = add(store, url, "recent", days_ago=1)

    deleted = delete_older_than(url, cutoff_for(30))

    assert (deleted.turns, deleted.explanations, deleted.feedback) == (2, 2, 2)
    assert deleted.conversations == 1  # "old" has no turn left; "mixed" keeps its recent one
    assert counts(url) == {"conversations": 2, "turns": 2, "explanations": 2, "feedback": 2}
    assert store.turn(old) is None and store.feedback(old) == []
    assert store.turn(recent) is not None and store.explanation(kept_in_mixed) is not None
    assert delete_older_than(url, cutoff_for(30)).turns == 0  # nothing left to delete


def test_retention_deletes_in_batches(url, monkeypatch):
    import core.retention

    monkeypatch.setattr(core.retention, "BATCH", 2)
    store = ConversationStore(url)
    for n in range(5):
        add(store, url, f"t{n}", days_ago=40)
    assert delete_older_than(url, cutoff_for(30)).turns == 5
    assert counts(url)["turns"] == 0


def test_the_daily_job_applies_the_setting_and_is_audited(url, tmp_path):
    settings = Settings.load(
        environ={"CONFBOT_DATA_DIR": str(tmp_path), "CONFBOT_DATABASE_URL": url}
    )
    assert retention_jobs(settings) == []  # 0 keeps everything: no job
    settings = settings.replace(retention_days="30")
    (job,) = retention_jobs(settings)
    assert (job.id, job.spec, job.args) == ("retention", SCHEDULE, ())  # no URL in the job store
    store = ConversationStore(url)
    add(store, url, "old", days_ago=31)
    add(store, url, "new", days_ago=29)
    run_retention()
    assert counts(url)["turns"] == 1
    (entry,) = audit.recent(url)
    assert (entry.actor, entry.action) == ("scheduler", "retention.delete")
    assert entry.detail["turns"] == 1 and entry.detail["days"] == 30


def test_confbot_retention_and_audit_commands(environ, capsys):
    url = f"sqlite:///{environ / 'state.sqlite'}"
    upgrade(url)
    store = ConversationStore(url)
    add(store, url, "old", days_ago=10)
    add(store, url, "new", days_ago=1)
    config = ["--config", f"database_url={url}"]

    assert main(["retention", *config]) == 2  # retention_days is 0: says what to set
    assert "CONFBOT_RETENTION_DAYS" in capsys.readouterr().err
    assert main(["retention", "--days", "5", "--dry-run", *config]) == 0
    assert "1 turn(s) older than" in capsys.readouterr().out
    assert counts(url)["turns"] == 2
    assert main(["retention", "--days", "5", *config]) == 0
    assert "1 turn(s), 1 explanation(s), 1 rating(s), 1 conversation(s)" in capsys.readouterr().out
    assert counts(url)["turns"] == 1
    with pytest.raises(SystemExit):
        main(["retention", "--days", "9" * 30, *config])
    capsys.readouterr()

    assert main(["audit", *config]) == 0
    out = capsys.readouterr().out
    assert "retention.delete" in out and "cli:" in out and "turns=1" in out


def test_audit_log_table_matches_its_model(url):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from core.db import Base

    with engine_for(url).connect() as connection:
        assert "audit_log" in inspect(connection).get_table_names()
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    assert [change for change in diff if "audit_log" in str(change)] == []


def test_an_audit_entry_never_fails_the_action(tmp_path, caplog):
    audit.record(f"sqlite:///{tmp_path / 'nowhere' / 'x.sqlite'}", "me", "test.action")
    assert "could not write the audit entry" in caplog.text
