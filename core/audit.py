"""The audit log: who did what as an admin, and which answers permissions filtered.

One row per action in `audit_log` (migration `0009_audit_retention`): opening the admin
page (it quotes questions asked privately), running `confbot gaps` (the same), deleting old
conversations (`core.retention`, by schedule or by command), and each answer whose search
held back pages its audience may not read (`record_withheld`). The retention of
conversations never deletes audit rows. Writing an entry never fails the action it
records: a database error is logged instead.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import DateTime, Integer, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column

from core.access import Reader
from core.conversation import utcnow
from core.db import Base, session_factory

log = logging.getLogger(__name__)

MAX_DETAIL_CHARS = 2000


class AuditRecord(Base):
    """One admin action."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    actor: Mapped[str] = mapped_column(String(255))
    """Who: `admin-token@<client address>`, `cli:<user>`, `scheduler`, or the asker of a
    filtered answer (`asker`)."""
    action: Mapped[str] = mapped_column(String(64))
    """What, as `area.verb`: `admin.page`, `gaps.report`, `retention.delete`,
    `answer.withheld`."""
    detail: Mapped[str] = mapped_column(Text, default="")
    """The action's parameters and results as JSON."""


@dataclass(frozen=True)
class Entry:
    at: datetime
    actor: str
    action: str
    detail: dict


def record(url: str, actor: str, action: str, **detail) -> None:
    """Append an entry to the audit log at the database `url` (never raises)."""
    text = json.dumps(detail, default=str, ensure_ascii=False)[:MAX_DETAIL_CHARS]
    try:
        with session_factory(url)() as db:
            db.add(AuditRecord(actor=actor[:255], action=action[:64], detail=text))
            db.commit()
    except Exception:
        log.exception("could not write the audit entry %s by %s", action, actor)


def asker(readers: Sequence[Reader]) -> str:
    """Who an answer was for, as the audit log names them: the Confluence account of its one
    reader, `anonymous` when unresolved (or none), `audience:<n>` for a Slack channel's n."""
    if len(readers) > 1:
        return f"audience:{len(readers)}"
    return (readers[0].account if readers else None) or "anonymous"


def record_withheld(
    url: str, surface: str, turn_id: int, readers: Sequence[Reader], pages: Collection[str]
) -> None:
    """Audit an answer (turn `turn_id`, asked on `surface`) whose search held back `pages`
    because `readers` may not read them: their number only, neither their ids nor their
    titles (the log is shown at /admin, whose readers may not read those pages either), nor
    the question (it may have been asked privately)."""
    detail: dict = {"surface": surface, "turn": turn_id, "withheld": len(pages)}
    if len(readers) == 1 and readers[0].label:
        detail["as"] = readers[0].label  # the e-mail or Slack id it was resolved from
    record(url, asker(readers), "answer.withheld", **detail)


def recent(url: str, limit: int = 20) -> list[Entry]:
    """The latest `limit` entries, newest first."""
    with session_factory(url)() as db:
        rows = db.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(limit)).all()
    entries = []
    for row in rows:
        try:
            detail = json.loads(row.detail or "{}")
        except ValueError:  # cut at MAX_DETAIL_CHARS
            detail = {"text": row.detail}
        entries.append(Entry(row.at, row.actor, row.action, detail))
    return entries
