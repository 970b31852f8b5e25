"""What confbot is doing, read from the state database and the index: per space the last and
next sync, pages and evidences indexed and the pages that failed with their reasons; the
questions of the last days, the median answer time and the ratings.

`collect_status` reads it (for `confbot status`, the admin page and its JSON); every query
reads a small table (`sync_spaces`, `sync_pages`, `apscheduler_jobs`, `feedback`) or a window
of `turns` through its `created_at` index, and the median latency is that of the last
`LATENCY_SAMPLE` answers, so the cost does not grow with the history kept.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import func, select, text

from connectors.schedule import JOB_PREFIX
from connectors.state import SyncPage, SyncSpace
from core.conversation import FeedbackRecord, TurnRecord, utcnow
from core.db import session_factory
from core.redact import redact_text
from core.settings import Settings

LATENCY_SAMPLE = 1000
"""Answers whose median total time is reported (the most recent ones)."""
DAYS = 14
"""Days of questions shown."""


@dataclass
class FailedPage:
    """A page whose last sync attempt failed (it is retried on the next run)."""

    page_id: str
    title: str
    attempts: int
    error: str


@dataclass
class SpaceStatus:
    """The sync and index state of one space."""

    space: str
    last_run_at: datetime | None = None
    last_run: str = ""
    """The summary line of the last run (`SyncReport.summary()`)."""
    last_error: str | None = None
    """Why the last run stopped early, if it did."""
    next_run_at: datetime | None = None
    pages: int = 0
    evidences: int = 0
    failed: list[FailedPage] = field(default_factory=list)


@dataclass
class Usage:
    """Questions and ratings of the last `days` days."""

    days: int
    questions_per_day: list[tuple[date, int]]
    declined: int
    feedback: dict[str, int]
    median_ms: float | None
    """Median total answer time of the last `LATENCY_SAMPLE` answers."""

    @property
    def questions(self) -> int:
        return sum(count for _, count in self.questions_per_day)


@dataclass
class Status:
    spaces: list[SpaceStatus]
    usage: Usage
    generated_at: datetime


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite returns naive datetimes for aware columns: they are UTC."""
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


def collect_status(settings: Settings, index, days: int = DAYS) -> Status:
    """The status of every space (configured, synced before or indexed) and the usage of the
    last `days` days."""
    sessions = session_factory(settings.sqlalchemy_url)
    now = utcnow()
    with sessions() as db:
        runs = {row.space: row for row in db.scalars(select(SyncSpace))}
        failed_rows = db.scalars(
            select(SyncPage).where(SyncPage.error.is_not(None)).order_by(SyncPage.page_id)
        ).all()
        jobs = dict(
            db.execute(
                text("SELECT id, next_run_time FROM apscheduler_jobs WHERE id LIKE :prefix"),
                {"prefix": JOB_PREFIX + "%"},
            ).all()
        )
        usage = _usage(db, now, days)
    names = sorted(set(settings.sync_spaces) | set(runs) | index.spaces())
    spaces = []
    for name in names:
        state = SpaceStatus(space=name)
        run = runs.get(name)
        if run is not None:
            state.last_run_at = _aware(run.last_run_at)
            report = json.loads(run.last_report) if run.last_report else None
            if report:  # redacted again: reports stored before redaction may hold tokens
                state.last_run = redact_text(_summary(report))
                state.last_error = (
                    redact_text(str(report["error"])) if report.get("error") else None
                )
        next_run = jobs.get(JOB_PREFIX + name)
        if next_run is not None:
            state.next_run_at = datetime.fromtimestamp(float(next_run), UTC)
        page_ids = index.page_ids(name)
        state.pages = len(page_ids)
        state.evidences = sum(len(index.page_evidence_ids(p)) for p in page_ids)
        state.failed = [
            FailedPage(r.page_id, r.title or "", r.attempts or 0, redact_text(r.error or ""))
            for r in failed_rows
            if r.space == name
        ]
        spaces.append(state)
    return Status(spaces=spaces, usage=usage, generated_at=now)


def _summary(report: dict) -> str:
    from connectors.sync import SyncReport

    known = {f.name for f in dataclasses.fields(SyncReport)}
    return SyncReport(**{k: v for k, v in report.items() if k in known}).summary()


def _usage(db, now: datetime, days: int) -> Usage:
    since = (now - timedelta(days=days - 1)).replace(hour=0, minute=0, second=0, microsecond=0)
    day = func.date(TurnRecord.created_at)
    per_day = dict(
        db.execute(
            select(day, func.count()).where(TurnRecord.created_at >= since).group_by(day)
        ).all()
    )
    declined = db.scalar(
        select(func.count()).where(TurnRecord.created_at >= since, TurnRecord.out_of_scope)
    )
    feedback = dict(
        db.execute(
            select(FeedbackRecord.value, func.count())
            .where(FeedbackRecord.created_at >= since)
            .group_by(FeedbackRecord.value)
        ).all()
    )
    recent = db.scalars(
        select(TurnRecord.timings).order_by(TurnRecord.id.desc()).limit(LATENCY_SAMPLE)
    ).all()
    totals = [float(t["total_ms"]) for t in recent if t and "total_ms" in t]
    first = since.date()
    series = []
    for offset in range(days):
        moment = first + timedelta(days=offset)
        series.append((moment, int(per_day.get(moment.isoformat(), per_day.get(moment, 0)))))
    return Usage(
        days=days,
        questions_per_day=series,
        declined=int(declined or 0),
        feedback={str(k): int(v) for k, v in feedback.items()},
        median_ms=statistics.median(totals) if totals else None,
    )


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "never"


def status_lines(status: Status) -> list[str]:
    """The status as lines of text for a terminal."""
    lines = []
    for space in status.spaces:
        scheduled = f"next {_when(space.next_run_at)}" if space.next_run_at else "none scheduled"
        lines.append(
            f"{space.space}: {space.pages} pages, {space.evidences} evidences indexed;"
            f" last sync {_when(space.last_run_at)}, {scheduled}"
        )
        if space.last_run:
            lines.append(f"  last run: {space.last_run}")
        for page in space.failed:
            lines.append(
                f"  failed: page {page.page_id} {page.title!r} ({page.attempts} attempts):"
                f" {page.error.splitlines()[0] if page.error else ''}"
            )
    if not status.spaces:
        lines.append("no space synced or indexed yet (confbot sync)")
    usage = status.usage
    median = f"{usage.median_ms:.0f} ms" if usage.median_ms is not None else "n/a"
    lines.append(
        f"questions, last {usage.days} days: {usage.questions} ({usage.declined} declined);"
        f" median answer time {median} (last {LATENCY_SAMPLE} answers);"
        f" feedback: {usage.feedback.get('up', 0)} up, {usage.feedback.get('down', 0)} down"
    )
    lines.append(
        "  per day: " + ", ".join(f"{d.strftime('%m-%d')} {n}" for d, n in usage.questions_per_day)
    )
    return lines


def status_json(status: Status) -> dict:
    """The status as JSON-ready data (the admin API)."""

    def iso(moment: datetime | None) -> str | None:
        return moment.isoformat() if moment else None

    return {
        "generated_at": iso(status.generated_at),
        "spaces": [
            {
                **dataclasses.asdict(space),
                "last_run_at": iso(space.last_run_at),
                "next_run_at": iso(space.next_run_at),
            }
            for space in status.spaces
        ],
        "usage": {
            "days": status.usage.days,
            "questions": status.usage.questions,
            "questions_per_day": [[d.isoformat(), n] for d, n in status.usage.questions_per_day],
            "declined": status.usage.declined,
            "feedback": status.usage.feedback,
            "median_ms": status.usage.median_ms,
        },
    }
