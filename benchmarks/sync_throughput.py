"""Sync throughput: a full sync of generated pages through the fake Confluence (a real
HTTP server on 127.0.0.1) with the configured embedder (default: the offline USE model,
behind its cache, which starts empty), then an incremental run after 1% of the pages
were edited, and one with nothing changed. Every run also lists the space (deletions).

    .venv/bin/python benchmarks/sync_throughput.py [--pages 2000] [--changed 0.01]

Prints pages/s, where the full run's time went (embedding, the rest), the incremental
run's time as a share of the full run (target: at most 5%), and peak memory.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import TimedEmbedder  # noqa: E402
from connectors.confluence import ConfluenceSource  # noqa: E402
from connectors.sync import SpaceSync, SyncReport  # noqa: E402
from core.db import upgrade  # noqa: E402
from core.embeddings import make_embedder  # noqa: E402
from core.index import EvidenceIndex  # noqa: E402
from core.settings import Settings  # noqa: E402
from tests.fakes.confluence_server import FakeConfluence, generated_pages  # noqa: E402


def timed_run(settings, index, embedder: TimedEmbedder, source: ConfluenceSource):
    """One sync run of space GEN: (report, seconds, seconds spent embedding). The source
    lives across runs, as the worker's does."""
    embedding = embedder.seconds
    started = time.perf_counter()
    report = SpaceSync(settings, index, source).run("GEN")
    return report, time.perf_counter() - started, embedder.seconds - embedding


def line(name: str, report: SyncReport, seconds: float, embedding: float, requests: int) -> str:
    return (
        f"{name:<12} {seconds:8.2f} s  embedding {embedding:7.2f} s  requests {requests:5d}  "
        f"added {report.added}, updated {report.updated}, unchanged {report.unchanged}, "
        f"deleted {report.deleted}, failed {report.failed}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000, help="generated pages (default 2000)")
    parser.add_argument("--changed", type=float, default=0.01, help="share edited (default 0.01)")
    parser.add_argument("--embedder", default="use", help="embedder setting (default use)")
    parser.add_argument(
        "--listing-interval",
        default="1h",
        help="sync_listing_interval: how often a run lists every page id to find deletions"
        " (default 1h, the product default; 0 lists on every run)",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as data, FakeConfluence(generated_pages(args.pages)) as fake:
        settings = Settings.load(
            environ={
                "CONFBOT_DATA_DIR": data,
                "CONFBOT_EMBEDDER": args.embedder,
                "CONFBOT_SYNC_LISTING_INTERVAL": args.listing_interval,
                **fake.settings_environ(),
            }
        )
        upgrade(settings.sqlalchemy_url)
        embedder = TimedEmbedder(make_embedder(settings))
        index = EvidenceIndex(settings, embedder)
        source = ConfluenceSource(settings)
        print(f"{args.pages} generated pages, embedder {embedder.name}, data in {data}")

        requests = len(fake.requests)
        full, full_s, full_embed = timed_run(settings, index, embedder, source)
        full_requests, requests = len(fake.requests) - requests, len(fake.requests)
        evidences = index.count()

        rng = random.Random(11)
        changed = rng.sample(sorted(fake.pages), max(1, round(args.pages * args.changed)))
        for page_id in changed:
            page = fake.pages[page_id]
            fake.edit(page_id, body=page.body + f"<p>Revision note for {page_id}: updated.</p>")
        incremental, incremental_s, incremental_embed = timed_run(settings, index, embedder, source)
        incremental_requests, requests = len(fake.requests) - requests, len(fake.requests)
        idle, idle_s, idle_embed = timed_run(settings, index, embedder, source)
        idle_requests = len(fake.requests) - requests

    print(line("full", full, full_s, full_embed, full_requests))
    print(line("incremental", incremental, incremental_s, incremental_embed, incremental_requests))
    print(line("no change", idle, idle_s, idle_embed, idle_requests))
    print(
        f"full sync: {args.pages / full_s:.1f} pages/s, {evidences / full_s:.1f} evidences/s"
        f" ({evidences} evidences; embedding {evidences / max(full_embed, 1e-9):.1f}"
        f" evidences/s, {full_embed / full_s:.0%} of the time)"
    )
    ratio = incremental_s / full_s
    print(
        f"incremental with {len(changed)} of {args.pages} pages edited: {incremental_s:.2f} s"
        f" = {ratio:.1%} of the full run (target <= 5%: {'met' if ratio <= 0.05 else 'MISSED'})"
    )
    print(f"peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0 if full.error is None and incremental.error is None else 1


if __name__ == "__main__":
    sys.exit(main())
