"""The Slack bot's state in the SQL database, shared by every process that serves Slack.

- Claims (`slack_events`): a row per Slack event id, per user message answered, per slash
  command and shortcut (by trigger id) and per answer explained. Inserting the row is the
  lock: the primary key makes a second insert fail, in this process or any other, so a
  redelivered event, a message that arrives both as `app_mention` and as `message`, or a
  second Explain click is acted on once.
- Answers (`slack_answers`): which turn each posted answer message shows, so a reaction on
  the message (which carries only its timestamp) finds the turn to explain.

Whether the bot is part of a thread is read from `conversations` (surface `slack`): a thread
is a conversation once the bot has been asked something in it, unless an auto-answer stayed
silent there (a `quiet` claim, dropped when the bot later answers in the thread).

Two more kinds of rows in `slack_events`, kept like explain claims: `asked` (who asked each
turn, `workspace:user:turn id`, so the App Home lists a user's recent questions: turns
themselves do not record the asker) and `share` (an answer shared to its channel once).

Tables are created by the migration `0003_slack_events`.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

from sqlalchemy import DateTime, ForeignKey, Integer, String, UniqueConstraint, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from core.conversation import ConversationKey, ConversationRecord, utcnow
from core.db import Base, session_factory

# Slack retries an unacknowledged event three times, the last about five minutes after the
# first delivery (Slack Events API docs, "Retries"); a day of claims covers that with room.
# Claims of explanations are kept: they stop a second explanation of the same answer.
CLAIM_RETENTION = timedelta(days=1)
PRUNE_INTERVAL = timedelta(minutes=10)
PRUNED_KINDS = ("event", "message", "command", "shortcut")


class SlackClaim(Base):
    """One thing done once: `kind` (`event`, `message`, `command`, `shortcut`, `explain`,
    `share`, `quiet`, `asked`) and its key."""

    __tablename__ = "slack_events"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, index=True
    )


class SlackAnswer(Base):
    """A posted answer message (workspace, channel, message ts) and the turn it shows."""

    __tablename__ = "slack_answers"
    __table_args__ = (
        UniqueConstraint("workspace", "channel", "message_ts", name="uq_slack_answers_message"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workspace: Mapped[str] = mapped_column(String(255))
    channel: Mapped[str] = mapped_column(String(255))
    message_ts: Mapped[str] = mapped_column(String(64))
    thread_ts: Mapped[str] = mapped_column(String(64))
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


TABLES = ("slack_events", "slack_answers")


class SlackStore:
    """Claims, answer messages and thread membership at a SQLAlchemy URL (migrated
    beforehand). Each method is one short transaction; safe to share across threads."""

    def __init__(self, url: str):
        self.url = url
        self._sessions = session_factory(url)
        self._pruned_at: datetime | None = None
        self._prune_guard = threading.Lock()

    def claim(self, kind: str, key: str) -> bool:
        """Claim `kind:key`: True the first time in any process, False ever after."""
        self._prune_now_and_then()
        with self._sessions() as session:
            session.add(SlackClaim(key=f"{kind}:{key}", kind=kind))
            try:
                session.commit()
                return True
            except IntegrityError:
                session.rollback()
                return False

    def claimed(self, kind: str, key: str) -> bool:
        """Whether `kind:key` is claimed."""
        with self._sessions() as session:
            found = session.scalar(select(SlackClaim.key).where(SlackClaim.key == f"{kind}:{key}"))
        return found is not None

    def remember_asker(self, workspace: str, user: str, turn_id: int) -> None:
        """Record that `user` asked the question of `turn_id` (for their App Home)."""
        if user:
            self.claim("asked", f"{workspace}:{user}:{turn_id}")

    def asked_by(self, workspace: str, user: str, limit: int = 5) -> list[int]:
        """The turn ids of the questions `user` asked last, newest first."""
        prefix = f"asked:{workspace}:{user}:"
        with self._sessions() as session:
            keys = session.scalars(
                select(SlackClaim.key)
                .where(SlackClaim.kind == "asked")
                .where(SlackClaim.key.startswith(prefix, autoescape=True))
                .order_by(SlackClaim.created_at.desc())
                .limit(limit)
            ).all()
        ids = [int(key[len(prefix) :]) for key in keys if key[len(prefix) :].isdigit()]
        return sorted(ids, reverse=True)  # turn ids grow with time: ties in time sorted too

    def release(self, kind: str, key: str) -> None:
        """Drop a claim, so the work can be tried again (after a failure)."""
        with self._sessions() as session:
            session.execute(delete(SlackClaim).where(SlackClaim.key == f"{kind}:{key}"))
            session.commit()

    def prune(self, now: datetime | None = None) -> int:
        """Delete event, message, command and shortcut claims older than `CLAIM_RETENTION`;
        returns how many."""
        cutoff = (now or utcnow()) - CLAIM_RETENTION
        with self._sessions() as session:
            result = session.execute(
                delete(SlackClaim).where(
                    SlackClaim.kind.in_(PRUNED_KINDS), SlackClaim.created_at < cutoff
                )
            )
            session.commit()
            return result.rowcount or 0

    def _prune_now_and_then(self) -> None:
        now = utcnow()
        with self._prune_guard:
            if self._pruned_at is not None and now - self._pruned_at < PRUNE_INTERVAL:
                return
            self._pruned_at = now
        self.prune(now)

    def in_thread(self, key: ConversationKey) -> bool:
        """Whether the bot has been asked something in the thread at `key`."""
        with self._sessions() as session:
            found = session.scalar(
                select(ConversationRecord.id).where(
                    ConversationRecord.surface == key.surface,
                    ConversationRecord.workspace == key.workspace,
                    ConversationRecord.channel == key.channel,
                    ConversationRecord.thread == key.thread,
                )
            )
        return found is not None

    def remember_answer(
        self, workspace: str, channel: str, message_ts: str, thread_ts: str, turn_id: int
    ) -> None:
        """Record that the message at `message_ts` shows the answer of `turn_id`."""
        with self._sessions() as session:
            session.add(
                SlackAnswer(
                    workspace=workspace,
                    channel=channel,
                    message_ts=message_ts,
                    thread_ts=thread_ts,
                    turn_id=turn_id,
                )
            )
            try:
                session.commit()
            except IntegrityError:  # already recorded
                session.rollback()

    def answer_at(self, workspace: str, channel: str, message_ts: str) -> tuple[int, str] | None:
        """(turn id, thread ts) of the answer posted at `message_ts`, if it is one."""
        with self._sessions() as session:
            row = session.execute(
                select(SlackAnswer.turn_id, SlackAnswer.thread_ts).where(
                    SlackAnswer.workspace == workspace,
                    SlackAnswer.channel == channel,
                    SlackAnswer.message_ts == message_ts,
                )
            ).first()
        return (row[0], row[1]) if row else None
