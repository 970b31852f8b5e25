"""The sync worker: an APScheduler job per space, interval or cron, in a SQL job store.

Jobs live in the `apscheduler_jobs` table of the state database (created by migration
`0002_sync_state`), so a restarted worker keeps each space's next run time; a job is
replaced only when its schedule setting changed. `max_instances=1` and `coalesce=True`
mean a space never has two runs at once and missed runs collapse into one; a single
executor thread keeps one writer on the index at a time. Shutdown (SIGTERM, SIGINT) stops
scheduling, asks a running sync to stop at its next batch boundary (its state is then
consistent) and waits for it.

The space list is read again every `sync_discovery_interval` (a job of its own executor, so
a long sync does not hold it back): a space added to the settings file (`CONFBOT_CONFIG`)
or found in the files folder gets its job and first run without a restart, and a space no
longer configured loses its job.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import prometheus_client

from connectors.lease import SpaceLeases
from connectors.sync import SpaceSync, SyncReport, make_source, spaces_to_sync
from connectors.times import parse_interval
from core.embeddings import Embedder
from core.index import EvidenceIndex
from core.settings import Settings

log = logging.getLogger(__name__)

JOB_PREFIX = "sync:"
DISCOVERY_JOB = "spaces:discover"

SYNC_RUNS = prometheus_client.Counter(
    "confbot_sync_runs",
    "Sync runs finished, by space and outcome (ok, stopped).",
    ["space", "outcome"],
)
SYNC_PAGES = prometheus_client.Counter(
    "confbot_sync_pages",
    "Pages changed by sync runs, by space and change (added, updated, deleted, moved, skipped).",
    ["space", "change"],
)
SYNC_FAILURES = prometheus_client.Counter(
    "confbot_sync_failures", "Pages that failed in sync runs.", ["space"]
)


def observe_sync(report: SyncReport) -> None:
    """Count a finished sync run in the Prometheus metrics of this process."""
    SYNC_RUNS.labels(report.space, "stopped" if report.error else "ok").inc()
    for change in ("added", "updated", "deleted", "moved", "skipped"):
        SYNC_PAGES.labels(report.space, change).inc(getattr(report, change))
    SYNC_FAILURES.labels(report.space).inc(report.failed)


# Cron numbers its weekdays from Sunday (0 or 7); APScheduler from Monday (0).
_CRON_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")


def cron_weekdays(field: str) -> str:
    """The day-of-week field of a cron expression with cron's numbers (0 or 7 = Sunday)
    written as day names, which APScheduler reads as cron does; `CronTrigger.from_crontab`
    would read `1` as Tuesday. Names and `*` pass through; numbers, ranges and steps over
    numbers become the list of days they name."""
    if not any(c.isdigit() for c in field):
        return field
    days: list[int] = []
    for item in field.split(","):
        span, _, step = item.partition("/")
        if span == "*":
            first, last = 0, 6
        elif "-" in span:
            first, last = (int(n) for n in span.split("-", 1))
        else:
            first = last = int(span)
        if not (0 <= first <= 7 and 0 <= last <= 7 and first <= last):
            raise ValueError(f"day of week {item!r}: use 0-7 (0 and 7 are Sunday) or names")
        days.extend(range(first, last + 1, int(step) if step else 1))
    return ",".join(dict.fromkeys(_CRON_WEEKDAYS[d] for d in days))


def parse_schedule(spec: str):
    """An APScheduler trigger for a schedule setting: an interval (`15m`, `2h`) or a 5-field
    cron expression (`0 3 * * *`, in the worker's local time zone; weekdays numbered as in
    cron, 0 or 7 = Sunday)."""
    from apscheduler.triggers.cron import CronTrigger
    from apscheduler.triggers.interval import IntervalTrigger

    fields = spec.split()
    if len(fields) == 5:
        return CronTrigger.from_crontab(" ".join([*fields[:4], cron_weekdays(fields[4])]))
    try:
        interval = parse_interval(spec)
    except ValueError:
        raise ValueError(
            f"schedule {spec!r} is neither an interval (15m) nor a 5-field cron (0 3 * * *)"
        ) from None
    if interval <= timedelta(0):
        raise ValueError(f"schedule {spec!r}: the interval must be positive")
    return IntervalTrigger(seconds=interval.total_seconds())


@dataclass(frozen=True)
class Job:
    """A scheduled job: its id, an importable module-level function (the job store keeps a
    reference to it), its arguments, its schedule (`parse_schedule`), and whether a new or
    changed job runs at once (syncs do) or waits for its schedule (the weekly gaps report)."""

    id: str
    func: Callable[..., None]
    args: tuple
    spec: str
    name: str
    run_now: bool = False


_worker: Worker | None = None


def run_space(space: str) -> None:
    """The job function (stored by reference in the job store): sync `space` in this
    process's running worker."""
    if _worker is None:
        raise RuntimeError("no sync worker is running in this process")
    _worker.sync(space)


def discover_spaces() -> None:
    """The discovery job function: schedule the spaces configured or found since the
    worker started (and drop those no longer configured) in this process's worker."""
    if _worker is None:
        raise RuntimeError("no sync worker is running in this process")
    _worker.refresh()


def run_queued() -> None:
    """The job function of the webhook queue: sync the queued pages in this process's
    running worker."""
    if _worker is None:
        raise RuntimeError("no sync worker is running in this process")
    _worker.sync_queued()


class Worker:
    """Schedules and runs the syncs of every configured space into one index."""

    def __init__(self, settings: Settings, index: EvidenceIndex, jobs: Sequence[Job] = ()):
        from apscheduler.executors.pool import ThreadPoolExecutor
        from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
        from apscheduler.schedulers.background import BackgroundScheduler

        from core.db import engine_for

        self.settings = settings
        self.index = index
        self.jobs = list(jobs)
        self.stop = threading.Event()
        self._syncing = threading.Lock()  # held while a sync runs
        self._refreshing = threading.Lock()  # held while the discovery job reschedules
        self._source = None
        self.reports: dict[str, SyncReport] = {}
        """The last report of each space."""
        self.runs: Counter[str] = Counter()
        """Sync runs finished per space since the worker was made."""
        self.scheduler = BackgroundScheduler(
            jobstores={"default": SQLAlchemyJobStore(engine=engine_for(settings.sqlalchemy_url))},
            executors={
                "default": ThreadPoolExecutor(max_workers=1),
                "discovery": ThreadPoolExecutor(max_workers=1),
            },
            job_defaults={"max_instances": 1, "coalesce": True, "misfire_grace_time": None},
        )

    @classmethod
    def from_settings(cls, settings: Settings, embedder: Embedder | None = None) -> Worker:
        """A worker on the index the settings name (embedder built from them unless given)."""
        from core.embeddings import make_embedder

        return cls(settings, EvidenceIndex(settings, embedder or make_embedder(settings)))

    def schedules(self) -> dict[str, str]:
        """Schedule spec per space: `sync_schedules`, else `sync_schedule`, from the settings
        as they are now (`current_settings`)."""
        settings = self.current_settings()
        spaces = spaces_to_sync(settings, make_source(settings))
        return {s: settings.sync_schedules.get(s, settings.sync_schedule) for s in spaces}

    def current_settings(self) -> Settings:
        """The worker's settings with the space list and schedules read again from the
        settings file (`CONFBOT_CONFIG`) when there is one; the environment still wins."""
        if not os.environ.get("CONFBOT_CONFIG"):
            return self.settings
        fresh = Settings.load()
        return self.settings.replace(
            sync_spaces=fresh.sync_spaces,
            sync_schedule=fresh.sync_schedule,
            sync_schedules=fresh.sync_schedules,
        )

    def _wanted(self, synced: Collection[str] = ()) -> list[Job]:
        """Every job the worker should have: a sync per space, the other `jobs`, and the
        discovery of spaces; a new or changed sync runs now unless its space is in `synced`
        (spaces the caller synced a moment ago, which wait for their schedule)."""
        syncs = [
            Job(JOB_PREFIX + s, run_space, (s,), spec, f"sync {s}", run_now=s not in synced)
            for s, spec in self.schedules().items()
        ]
        discovery = Job(
            DISCOVERY_JOB, discover_spaces, (), self.settings.sync_discovery_interval, "spaces"
        )
        wanted = [*syncs, *self.jobs, discovery]
        if self.settings.webhook_secret:
            spec = self.settings.webhook_poll
            wanted.append(Job("webhooks", run_queued, (), spec, "pages queued by webhooks"))
        return wanted

    def start(self, synced: Collection[str] = ()) -> None:
        """Start the scheduler with one sync job per space, the other `jobs`, the discovery
        of spaces and (with a webhook secret) the webhook queue; a job whose schedule is
        unchanged keeps its stored next run time, a new or changed sync runs now (unless its
        space is in `synced`), and a stored job no longer configured is removed."""
        global _worker
        wanted = self._wanted(synced)
        if self.settings.webhook_secret:
            # APScheduler logs two INFO lines per job run: every few seconds for this job.
            # The worker logs each sync's summary itself.
            logging.getLogger("apscheduler.executors.default").setLevel(logging.WARNING)
        try:  # pages a crash left half written, before the first run (which may be hours away)
            leases = SpaceLeases(
                self.settings.sqlalchemy_url, parse_interval(self.settings.sync_lease)
            )
            self.index.repair_pending(alive=leases.alive)
        except Exception:  # every sync run tries again
            log.exception("repairing pages left half written failed")
        _worker = self
        self.scheduler.start(paused=True)
        self._schedule(wanted)
        self.scheduler.resume()
        for job in self.scheduler.get_jobs():
            log.debug("%s: %s, next run %s", job.name, job.trigger, job.next_run_time)

    def refresh(self) -> None:
        """Read the space list again and schedule what changed (the discovery job); a space
        list that cannot be read now (a bad settings file) keeps the jobs as they are. Not
        while the worker shuts down: APScheduler's shutdown holds the job store's lock while
        it waits for this job's thread, so a refresh then would never end."""
        with self._refreshing:
            if self.stop.is_set():
                return
            try:
                wanted = self._wanted()
            except Exception as exc:
                log.warning("the space list cannot be read (%s); the jobs stay as they are", exc)
                return
            for job in self._schedule(wanted):
                log.debug("%s: %s, next run %s", job.name, job.trigger, job.next_run_time)

    def _schedule(self, wanted: Sequence[Job]) -> list:
        """Make the scheduler's jobs `wanted`: remove the others, add new or changed ones
        (an unchanged job keeps its next run time); returns the jobs added."""
        triggers = {job.id: parse_schedule(job.spec) for job in wanted}
        for stored in self.scheduler.get_jobs():
            if stored.id not in triggers:
                log.info("removing the job %s (no longer configured)", stored.id)
                stored.remove()
        added = []
        for job in wanted:
            stored = self.scheduler.get_job(job.id)
            if stored is not None and str(stored.trigger) == str(triggers[job.id]):
                continue
            first_run = {"next_run_time": datetime.now(UTC)} if job.run_now else {}
            added.append(
                self.scheduler.add_job(
                    job.func,
                    triggers[job.id],
                    args=list(job.args),
                    id=job.id,
                    name=job.name,
                    replace_existing=True,
                    executor="discovery" if job.id == DISCOVERY_JOB else "default",
                    **first_run,
                )
            )
        return added

    def sync(self, space: str) -> SyncReport:
        """One sync run of `space` (what each job does)."""
        with self._syncing:
            if self._source is None:  # one source for the worker's life keeps caches warm
                self._source = make_source(self.settings)
            report = SpaceSync(self.settings, self.index, self._source, self.stop).run(space)
        log.info("sync %s", report.summary())
        observe_sync(report)
        self.reports[space] = report
        self.runs[space] += 1
        return report

    def sync_queued(self) -> dict[str, SyncReport]:
        """Sync the pages webhooks queued (connectors.webhooks), space by space; pages of a
        space that is not synced are dropped, pages whose run failed stay queued."""
        from connectors.webhooks import done, queued
        from core.db import session_factory

        sessions = session_factory(self.settings.sqlalchemy_url)
        work = queued(sessions)
        if not work:
            return {}
        if self._source is None:
            self._source = make_source(self.settings)
        spaces = set(spaces_to_sync(self.settings, self._source))
        reports = {}
        for space, pages in work.items():
            if space in spaces:
                sync = SpaceSync(self.settings, self.index, self._source, self.stop)
                reports[space] = report = sync.run_pages(space, sorted(pages))
                log.info("webhook sync of %d page(s): %s", len(pages), report.summary())
                if report.error is not None:
                    continue
            done(sessions, pages)
        return reports

    def shutdown(self) -> None:
        """Stop scheduling, let a running sync stop at its next batch and wait for it."""
        global _worker
        self.stop.set()
        if self.scheduler.running:
            # Paused first, and the running sync waited for, so that no job is submitted
            # to an executor that is shut down (APScheduler logged that as an error when
            # a job fell due while shutdown waited for the sync).
            self.scheduler.pause()
            with self._syncing, self._refreshing:
                pass
            self.scheduler.shutdown(wait=True)
        _worker = None

    def serve_forever(self) -> None:
        """Run until SIGTERM or SIGINT, then shut down gracefully."""
        done = threading.Event()

        def request_stop(signum, _frame) -> None:
            log.info("%s received: stopping", signal.Signals(signum).name)
            done.set()

        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, request_stop)
        self.start()
        while not done.wait(1.0):
            pass
        self.shutdown()
