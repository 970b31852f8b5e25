"""The retention of questions as a scheduled job and a command (`core.retention`).

With `retention_days` set, the worker (`confbot worker`, `confbot serve`) runs a job daily
at `SCHEDULE` that deletes what is older; `confbot retention` does the same at once
(`--days` overrides the setting, `--dry-run` only counts). Each run is written to the audit
log (`core.audit`). The job takes no arguments: the job store keeps them in the database,
and the database URL (which may hold a password) must not be one of them.
"""

from __future__ import annotations

import logging

from connectors.schedule import Job
from core import audit
from core.retention import Deleted, cutoff_for, delete_older_than
from core.settings import Settings

log = logging.getLogger(__name__)

JOB_ID = "retention"
SCHEDULE = "30 3 * * *"
"""Daily at 03:30 in the worker's time zone (a quiet hour)."""

_settings: Settings | None = None


def apply_retention(settings: Settings, days: int, actor: str) -> Deleted:
    """Delete what is older than `days` days, and audit it."""
    deleted = delete_older_than(settings.sqlalchemy_url, cutoff_for(days))
    log.info("retention of %d day(s): %s", days, deleted.summary())
    audit.record(
        settings.sqlalchemy_url,
        actor,
        "retention.delete",
        days=days,
        cutoff=deleted.cutoff.isoformat(),
        turns=deleted.turns,
        explanations=deleted.explanations,
        feedback=deleted.feedback,
        conversations=deleted.conversations,
    )
    return deleted


def run_retention() -> None:
    """The scheduled job (stored by reference in the job store): apply `retention_days`
    with this process's settings."""
    if _settings is None:
        raise RuntimeError("no retention is set up in this process")
    apply_retention(_settings, _settings.retention_days, "scheduler")


def retention_jobs(settings: Settings) -> list[Job]:
    """The daily job when `retention_days` is set (none otherwise)."""
    global _settings
    if settings.retention_days <= 0:
        return []
    _settings = settings
    name = f"retention {settings.retention_days}d"
    return [Job(JOB_ID, run_retention, (), SCHEDULE, name)]
