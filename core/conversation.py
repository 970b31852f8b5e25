"""Conversation state in SQL: conversations, their turns with the full trace, explanations
and feedback.

A conversation is keyed by (surface, workspace, channel, thread): a Slack thread, a web
session, a terminal session. `/new` archives a conversation's turns, so they stay in the
database for audit and evaluation but are no longer history for follow-up questions.
Tables are created by the Alembic migration `0001_conversations`, never by `create_all`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from core.db import Base, session_factory


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class ConversationKey:
    """Where a conversation happens: surface (`slack`, `web`, `terminal`, `eval`), workspace
    (Slack team, site), channel and thread (the thread's root timestamp in Slack)."""

    surface: str
    workspace: str
    channel: str
    thread: str

    def __str__(self) -> str:
        return f"{self.surface}:{self.workspace}/{self.channel}/{self.thread}"


class ConversationRecord(Base):
    """One conversation (one thread)."""

    __tablename__ = "conversations"
    __table_args__ = (
        UniqueConstraint("surface", "workspace", "channel", "thread", name="uq_conversations_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    surface: Mapped[str] = mapped_column(String(32))
    workspace: Mapped[str] = mapped_column(String(255))
    channel: Mapped[str] = mapped_column(String(255))
    thread: Mapped[str] = mapped_column(String(255))
    channel_type: Mapped[str | None] = mapped_column(String(16), default=None)
    """Slack's kind of channel (`channel` public, `group` private, `im`, `mpim`), None when
    unknown or not Slack (migration `0009_audit_retention`)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


PUBLIC_CHANNEL = "channel"


def is_private(surface: str, channel_type: str | None) -> bool:
    """Whether a question was asked where not everyone may read it: a Slack DM, group DM or
    private channel, or a Slack channel of unknown kind (fail closed), or a terminal
    session. Web questions and public Slack channels are not private."""
    if surface == "web":
        return False
    return not (surface == "slack" and channel_type == PUBLIC_CHANNEL)


class TurnRecord(Base):
    """One question and its answer, with everything needed to replay or explain it.

    `evidences`: the retrieved evidences, best first, as
    `{"id", "page_id", "title", "url", "rank", "score", "ranks", "scores"}`;
    `messages`: the exact chat messages sent, per step (`{"completion": [...] or null,
    "answer": [...]}`); `citations`: `{"number", "evidence_id", "page_id", "title", "url"}`;
    `timings`: milliseconds per step.
    """

    __tablename__ = "turns"
    __table_args__ = (UniqueConstraint("conversation_id", "position", name="uq_turns_position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_id: Mapped[int] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), index=True
    )
    position: Mapped[int] = mapped_column(Integer)
    question: Mapped[str] = mapped_column(Text)
    completed_question: Mapped[str] = mapped_column(Text)
    evidences: Mapped[list] = mapped_column(JSON, default=list)
    messages: Mapped[dict] = mapped_column(JSON, default=dict)
    answer: Mapped[str] = mapped_column(Text)
    citations: Mapped[list] = mapped_column(JSON, default=list)
    out_of_scope: Mapped[bool] = mapped_column(Boolean, default=False)
    model: Mapped[str] = mapped_column(String(255), default="")
    timings: Mapped[dict] = mapped_column(JSON, default=dict)
    archived: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, index=True
    )


class ExplanationRecord(Base):
    """The attribution of one turn's answer to its evidences (at most one per turn)."""

    __tablename__ = "explanations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id", ondelete="CASCADE"), unique=True)
    payload: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class FeedbackRecord(Base):
    """A user's rating of one turn (`up`, `down`, or any short label), once per user, turn
    and value."""

    __tablename__ = "feedback"
    __table_args__ = (UniqueConstraint("turn_id", "user", "value", name="uq_feedback_rating"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id", ondelete="CASCADE"), index=True)
    value: Mapped[str] = mapped_column(String(32))
    user: Mapped[str] = mapped_column(String(255), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


TABLES = ("conversations", "turns", "explanations", "feedback")


class ConversationStore:
    """Reads and writes conversation state at a SQLAlchemy URL (migrated beforehand with
    `core.db.upgrade`). Each method is one short transaction; safe to share across threads."""

    def __init__(self, url: str):
        self.url = url
        self._sessions = session_factory(url)

    def check_writable(self) -> None:
        """Write a conversation row and roll it back: raises (an SQLAlchemy error) when the
        database cannot be written, as every answer needs to."""
        with self._sessions() as session:
            session.add(ConversationRecord(surface="check", workspace="", channel="", thread=""))
            session.flush()
            session.rollback()

    def conversation_id(self, key: ConversationKey, channel_type: str | None = None) -> int:
        """The id of the conversation at `key`, created on first use; a `channel_type`
        given is recorded (the latest known kind of the channel)."""
        where = (
            (ConversationRecord.surface == key.surface)
            & (ConversationRecord.workspace == key.workspace)
            & (ConversationRecord.channel == key.channel)
            & (ConversationRecord.thread == key.thread)
        )
        with self._sessions() as session:
            found = session.scalar(select(ConversationRecord.id).where(where))
            if found is not None:
                if channel_type is not None:
                    session.execute(
                        update(ConversationRecord)
                        .where(ConversationRecord.id == found)
                        .values(channel_type=channel_type)
                    )
                    session.commit()
                return found
            record = ConversationRecord(
                surface=key.surface,
                workspace=key.workspace,
                channel=key.channel,
                thread=key.thread,
                channel_type=channel_type,
            )
            session.add(record)
            try:
                session.commit()
                return record.id
            except IntegrityError:  # another process created it first
                session.rollback()
                return session.scalar(select(ConversationRecord.id).where(where))

    def history(self, key: ConversationKey, limit: int = 20) -> list[TurnRecord]:
        """The last `limit` current (not archived) turns of a conversation, oldest first."""
        with self._sessions() as session:
            rows = session.scalars(
                select(TurnRecord)
                .join(ConversationRecord, TurnRecord.conversation_id == ConversationRecord.id)
                .where(
                    ConversationRecord.surface == key.surface,
                    ConversationRecord.workspace == key.workspace,
                    ConversationRecord.channel == key.channel,
                    ConversationRecord.thread == key.thread,
                    TurnRecord.archived.is_(False),
                )
                .order_by(TurnRecord.position.desc())
                .limit(limit)
            ).all()
        return list(reversed(rows))

    def add_turn(self, key: ConversationKey, **fields: Any) -> TurnRecord:
        """Store a new turn at the end of the conversation at `key` and return it."""
        conversation_id = self.conversation_id(key)
        with self._sessions() as session:
            last = session.scalar(
                select(TurnRecord.position)
                .where(TurnRecord.conversation_id == conversation_id)
                .order_by(TurnRecord.position.desc())
                .limit(1)
            )
            record = TurnRecord(conversation_id=conversation_id, position=(last or 0) + 1, **fields)
            session.add(record)
            session.commit()
            return record

    def turn(self, turn_id: int) -> TurnRecord | None:
        """A turn by id."""
        with self._sessions() as session:
            return session.get(TurnRecord, turn_id)

    def set_suggestions(self, turn_id: int, suggestions: list[str]) -> list[str]:
        """Store a turn's suggested follow-ups unless some are stored already (computed
        concurrently, perhaps by another replica); returns the stored ones."""
        with self._sessions() as session:
            record = session.get(TurnRecord, turn_id, with_for_update=True)
            if record is None:
                raise KeyError(f"no turn with id {turn_id}")
            messages = dict(record.messages or {})
            if messages.get("suggestions") is not None:
                return list(messages["suggestions"])
            messages["suggestions"] = list(suggestions)
            record.messages = messages  # a new dict: the JSON column sees the change
            session.commit()
            return list(suggestions)

    def turn_key(self, turn_id: int) -> ConversationKey | None:
        """The key of the conversation a turn belongs to (None for an unknown turn)."""
        with self._sessions() as session:
            row = session.execute(
                select(
                    ConversationRecord.surface,
                    ConversationRecord.workspace,
                    ConversationRecord.channel,
                    ConversationRecord.thread,
                )
                .join(TurnRecord, TurnRecord.conversation_id == ConversationRecord.id)
                .where(TurnRecord.id == turn_id)
            ).first()
        return ConversationKey(*row) if row else None

    def turns(self, key: ConversationKey, include_archived: bool = True) -> list[TurnRecord]:
        """Every turn of a conversation, oldest first."""
        with self._sessions() as session:
            query = (
                select(TurnRecord)
                .join(ConversationRecord, TurnRecord.conversation_id == ConversationRecord.id)
                .where(
                    ConversationRecord.surface == key.surface,
                    ConversationRecord.workspace == key.workspace,
                    ConversationRecord.channel == key.channel,
                    ConversationRecord.thread == key.thread,
                )
                .order_by(TurnRecord.position)
            )
            if not include_archived:
                query = query.where(TurnRecord.archived.is_(False))
            return list(session.scalars(query).all())

    def archive(self, key: ConversationKey) -> int:
        """Archive the current turns of a conversation (`/new`); returns how many."""
        with self._sessions() as session:
            ids = select(ConversationRecord.id).where(
                ConversationRecord.surface == key.surface,
                ConversationRecord.workspace == key.workspace,
                ConversationRecord.channel == key.channel,
                ConversationRecord.thread == key.thread,
            )
            result = session.execute(
                update(TurnRecord)
                .where(TurnRecord.conversation_id.in_(ids), TurnRecord.archived.is_(False))
                .values(archived=True)
            )
            session.commit()
            return result.rowcount or 0

    def add_feedback(self, turn_id: int, value: str, user: str = "") -> int:
        """Record a rating of a turn, once per user, turn and value (a repeated click or a
        redelivered request finds the first); returns the feedback id."""
        same = select(FeedbackRecord.id).where(
            FeedbackRecord.turn_id == turn_id,
            FeedbackRecord.user == user,
            FeedbackRecord.value == value,
        )
        with self._sessions() as session:
            found = session.scalar(same)
            if found is not None:
                return found
            record = FeedbackRecord(turn_id=turn_id, value=value, user=user)
            session.add(record)
            try:
                session.commit()
                return record.id
            except IntegrityError:  # stored concurrently (`uq_feedback_rating`)
                session.rollback()
                return session.scalar(same)

    def feedback(self, turn_id: int) -> list[FeedbackRecord]:
        """The ratings of a turn, oldest first."""
        with self._sessions() as session:
            return list(
                session.scalars(
                    select(FeedbackRecord)
                    .where(FeedbackRecord.turn_id == turn_id)
                    .order_by(FeedbackRecord.id)
                ).all()
            )

    def save_explanation(self, turn_id: int, payload: dict) -> None:
        """Store (or replace) the explanation of a turn."""
        with self._sessions() as session:
            record = session.scalar(
                select(ExplanationRecord).where(ExplanationRecord.turn_id == turn_id)
            )
            if record is None:
                session.add(ExplanationRecord(turn_id=turn_id, payload=payload))
            else:
                record.payload = payload
                record.created_at = utcnow()
            try:
                session.commit()
            except IntegrityError:  # saved concurrently: keep the other one
                session.rollback()

    def explanation(self, turn_id: int) -> dict | None:
        """The stored explanation payload of a turn, if any."""
        with self._sessions() as session:
            return session.scalar(
                select(ExplanationRecord.payload).where(ExplanationRecord.turn_id == turn_id)
            )
