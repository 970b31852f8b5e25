"""Forgetting old conversations: the turns asked more than `retention_days` days ago, with
their explanations and feedback, are deleted, and so are the conversations left without a
turn. `retention_days = 0` keeps everything.

Rows are deleted children first (feedback, explanations, then turns), so the result does
not depend on the database enforcing `ON DELETE CASCADE` (SQLite does not by default), in
batches of `BATCH` turns, each its own transaction, so a first run over years of history
never holds one huge transaction. The audit log (`core.audit`) is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, exists, select

from core.conversation import (
    ConversationRecord,
    ExplanationRecord,
    FeedbackRecord,
    TurnRecord,
    utcnow,
)
from core.db import session_factory

BATCH = 1000


@dataclass
class Deleted:
    """How many rows one retention run deleted, and the cut-off it applied."""

    cutoff: datetime
    turns: int = 0
    explanations: int = 0
    feedback: int = 0
    conversations: int = 0

    def summary(self) -> str:
        return (
            f"deleted what was older than {self.cutoff:%Y-%m-%d %H:%M} UTC: {self.turns} turn(s),"
            f" {self.explanations} explanation(s), {self.feedback} rating(s),"
            f" {self.conversations} conversation(s)"
        )


def cutoff_for(days: int, now: datetime | None = None) -> datetime:
    """The moment before which rows are deleted when `days` days are kept."""
    return (now or utcnow()) - timedelta(days=days)


def delete_older_than(url: str, cutoff: datetime) -> Deleted:
    """Delete the turns created before `cutoff` with their explanations and feedback,
    explanations and feedback created before it, and conversations left empty."""
    sessions = session_factory(url)
    deleted = Deleted(cutoff)
    while True:
        with sessions() as db:
            ids = list(
                db.scalars(select(TurnRecord.id).where(TurnRecord.created_at < cutoff).limit(BATCH))
            )
            if not ids:
                break
            deleted.feedback += _count(
                db.execute(delete(FeedbackRecord).where(FeedbackRecord.turn_id.in_(ids)))
            )
            deleted.explanations += _count(
                db.execute(delete(ExplanationRecord).where(ExplanationRecord.turn_id.in_(ids)))
            )
            deleted.turns += _count(db.execute(delete(TurnRecord).where(TurnRecord.id.in_(ids))))
            db.commit()
    with sessions() as db:
        deleted.feedback += _count(
            db.execute(delete(FeedbackRecord).where(FeedbackRecord.created_at < cutoff))
        )
        deleted.explanations += _count(
            db.execute(delete(ExplanationRecord).where(ExplanationRecord.created_at < cutoff))
        )
        has_turns = exists().where(TurnRecord.conversation_id == ConversationRecord.id)
        deleted.conversations += _count(
            db.execute(
                delete(ConversationRecord).where(ConversationRecord.created_at < cutoff, ~has_turns)
            )
        )
        db.commit()
    return deleted


def _count(result) -> int:
    return max(0, result.rowcount or 0)
