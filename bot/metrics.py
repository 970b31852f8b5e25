"""Prometheus metrics exposition: `/metrics` of the web app (behind the admin token, see
`bot.admin`) and, with `metrics_address`, a plain metrics server of its own in any confbot
process (web, worker, bot), for a Prometheus on an internal network.

Besides the counters each process keeps (`core.metrics`, `connectors.schedule`,
`bot.slack`), every scrape reads the sync state from the database through `SyncStateCollector`:
per space the pages indexed and failed and the time of the last run. That reads
`sync_spaces` and the two partial indexes of `sync_pages` by space (migration 0005), never
the turns, so a scrape costs the same with a million questions recorded
(`benchmarks/metrics_scrape.py`).
"""

from __future__ import annotations

import logging
from datetime import UTC
from wsgiref.simple_server import WSGIServer

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from sqlalchemy import func, select

from connectors.state import SyncPage, SyncSpace
from core.db import session_factory
from core.settings import Settings, SettingsError

log = logging.getLogger(__name__)

CONTENT_TYPE = CONTENT_TYPE_LATEST


class SyncStateCollector:
    """Gauges read from the sync state at each scrape: pages indexed, pages failed and the
    last run's time, per space."""

    def __init__(self, url: str):
        self.sessions = session_factory(url)

    def collect(self):
        """The gauges (prometheus-client's custom collector protocol)."""
        indexed = GaugeMetricFamily(
            "confbot_indexed_pages", "Pages indexed per space (sync state).", labels=["space"]
        )
        failed = GaugeMetricFamily(
            "confbot_failed_pages",
            "Pages whose last sync attempt failed, per space (retried next run).",
            labels=["space"],
        )
        last_run = GaugeMetricFamily(
            "confbot_sync_last_run_timestamp_seconds",
            "When each space's last sync run finished (Unix time).",
            labels=["space"],
        )
        with self.sessions() as db:
            pages = dict(db.execute(_count_per_space(SyncPage.version.is_not(None))).all())
            failures = dict(db.execute(_count_per_space(SyncPage.error.is_not(None))).all())
            runs = db.execute(select(SyncSpace.space, SyncSpace.last_run_at)).all()
        for space in sorted(set(pages) | set(failures)):
            indexed.add_metric([space], pages.get(space, 0))
            failed.add_metric([space], failures.get(space, 0))
        for space, moment in runs:
            if moment is not None:
                if moment.tzinfo is None:  # SQLite drops the offset: the time is UTC
                    moment = moment.replace(tzinfo=UTC)
                last_run.add_metric([space], moment.timestamp())
        return [indexed, failed, last_run]


def _count_per_space(condition):
    """Pages per space meeting `condition`, answered from the partial index on it."""
    return select(SyncPage.space, func.count()).where(condition).group_by(SyncPage.space)


def metrics_registry(settings: Settings) -> CollectorRegistry:
    """The registry a scrape reads: this process's counters and the sync-state gauges."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Default())
    registry.register(SyncStateCollector(settings.sqlalchemy_url))
    return registry


class _Default:
    """Every metric of prometheus-client's default registry (the process's counters)."""

    def collect(self):
        return REGISTRY.collect()


def metrics_text(registry: CollectorRegistry) -> bytes:
    """One scrape in the Prometheus text format."""
    return generate_latest(registry)


def serve_metrics(settings: Settings) -> WSGIServer | None:
    """Serve the metrics at `metrics_address` (HOST:PORT) in a background thread, without a
    token; the server (stop it with `shutdown()`), or None when the setting is empty."""
    if not settings.metrics_address:
        return None
    host, sep, port = settings.metrics_address.rpartition(":")
    if not sep or not port.isdigit():
        raise SettingsError(
            f"CONFBOT_METRICS_ADDRESS={settings.metrics_address!r} is not HOST:PORT"
            " (127.0.0.1:9464)"
        )
    server, _thread = start_http_server(int(port), host or "0.0.0.0", metrics_registry(settings))
    log.info("Prometheus metrics at http://%s:%s/metrics", *server.server_address[:2])
    return server
