"""What permissions cost: the filter of one question at 100,000 pages, and a sync of
restriction changes.

Part 1 records synthetic permissions for `--pages` pages in an SQLite state database (20
spaces, 5 of them open to anonymous access, the rest to one of 300 groups; 2% of the pages
restrict themselves and 4 descendants each, to a group and up to 2 of 5,000 users, a tenth of
those descendants adding a user of their own; every user in 1 to 5 groups), then times what
each question adds (`Assistant._ask`'s `access` step and the retriever's list filter):
the snapshot check, the asker's scope, and dropping denied pages from two candidate lists
of `candidates_k` evidences. Askers are new each time (no cached scope), the same 50 again
(cached), and channels of 50 members. It prints the share of candidate lists that would
need a second search (more than half of it denied).

Part 2 (`--sync-pages N`, default 1,000) syncs N pages from the fake Confluence, changes
the read restriction of every tenth page without a new version, and times the next run,
which sees the changes in its listing.

    .venv/bin/python benchmarks/permission_filter.py [--pages 100000] [--sync-pages 1000]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import peak_rss_mib, summary_ms  # noqa: E402
from core.access import ANYONE, PageAccess, Reader  # noqa: E402
from core.access_store import AccessStore  # noqa: E402
from core.db import upgrade  # noqa: E402
from core.retrieve import _readable  # noqa: E402

SPACES = 20
GROUPS = 300
USERS = 5000
CANDIDATES = 100


def synthetic(pages: int, rng: random.Random):
    """(space readers, page accesses by space, group members) of a synthetic wiki."""
    spaces = {
        f"S{s:02d}": {ANYONE} if s < 5 else {f"group:g{rng.randrange(GROUPS)}"}
        for s in range(SPACES)
    }
    names = sorted(spaces)
    by_space: dict[str, dict[str, PageAccess]] = {s: {} for s in names}
    number = 0
    while number < pages:
        space = names[number % SPACES]
        if rng.random() < 0.02:  # a restricted subtree of 5 pages
            own = {f"group:g{rng.randrange(GROUPS)}"}
            own |= {f"user:u{rng.randrange(USERS)}" for _ in range(rng.randrange(3))}
            for depth in range(5):
                chain = [own]
                if depth and rng.random() < 0.1:
                    chain.append({f"user:u{rng.randrange(USERS)}"})
                by_space[space][str(number)] = PageAccess.of(chain)
                number += 1
        else:
            by_space[space][str(number)] = PageAccess()
            number += 1
    members: dict[str, set[str]] = {f"group:g{g}": set() for g in range(GROUPS)}
    for u in range(USERS):
        for g in rng.sample(range(GROUPS), rng.randint(1, 5)):
            members[f"group:g{g}"].add(f"user:u{u}")
    return spaces, by_space, members


def filter_cost(pages: int, questions: int) -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'state.sqlite'}"
        upgrade(url)
        store = AccessStore(url)
        spaces, by_space, members = synthetic(pages, rng)
        start = time.perf_counter()
        for space, readers in spaces.items():
            store.save_space(space, readers)
            store.save_pages(space, by_space[space])
        for name, people in members.items():
            store.save_members(name, people)
        print(f"recording {pages:,} pages' access: {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        table = store.table()
        print(
            f"snapshot load after a change: {(time.perf_counter() - start) * 1000:.0f} ms"
            f" ({len(table.pages):,} restricted pages,"
            f" {len({a for a in table.pages.values()}):,} distinct restrictions)"
        )
        page_ids = [p for space in by_space.values() for p in space]

        def candidates() -> list[tuple[str, float]]:
            return [(f"{rng.choice(page_ids)}#{i}", 1.0) for i in range(CANDIDATES)]

        def one(readers: list[Reader]) -> tuple[float, bool]:
            lists = [candidates(), candidates()]
            started = time.perf_counter()
            scope = store.table().scope(readers)
            again = False
            for found in lists:
                kept = _readable(lambda n, found=found: found[:n], CANDIDATES, scope.pages)
                again |= 2 * len(kept) < CANDIDATES
                if scope.spaces:  # the searches leave these spaces out; counted for realism
                    [i for i, _ in kept if i.partition("#")[0] in scope.spaces]
            return (time.perf_counter() - started) * 1000, again

        regulars = [Reader(f"u{rng.randrange(USERS)}") for _ in range(50)]
        runs = {
            "new asker each time": lambda: [Reader(f"u{rng.randrange(USERS)}")],
            "the same 50 askers": lambda: [rng.choice(regulars)],
            "channel of 50 members": lambda: [
                Reader(f"u{rng.randrange(USERS)}") for _ in range(50)
            ],
            "anonymous": lambda: [],
        }
        for name, audience in runs.items():
            times, agains = [], 0
            for _ in range(questions):
                spent, again = one(audience())
                times.append(spent)
                agains += again
            print(
                f"per question, {name}: {summary_ms(times)}"
                f" (max {max(times):.1f} ms; second search needed: {agains}/{questions})"
            )
        denied = [len(table.scope([Reader(f"u{u}")]).pages) for u in range(0, USERS, 50)]
        print(f"pages denied per user: median {statistics.median(denied):,.0f}")


def sync_cost(count: int) -> None:
    from connectors.confluence import ConfluenceSource
    from connectors.sync import SpaceSync
    from core.index import EvidenceIndex
    from core.settings import Settings
    from tests.fakes.confluence_server import FakeConfluence, generated_pages
    from tests.fakes.hash_embedder import HashEmbedder

    with tempfile.TemporaryDirectory() as folder, FakeConfluence(generated_pages(count)) as fake:
        environ = {
            "CONFBOT_DATA_DIR": folder,
            "CONFBOT_SYNC_LISTING_INTERVAL": "0",
            **fake.settings_environ(),
        }
        settings = Settings.load(environ=environ)
        upgrade(settings.sqlalchemy_url)
        index = EvidenceIndex(settings, HashEmbedder())
        start = time.perf_counter()
        first = SpaceSync(settings, index, ConfluenceSource(settings)).run("GEN")
        spent = time.perf_counter() - start
        print(f"first sync of {count:,} pages: {spent:.1f} s ({first.added} added)")
        for number, page_id in enumerate(sorted(fake.pages)):
            if number % 10 == 0:
                fake.restrict(page_id, users=(), groups=("hr",))
        requests = len(fake.requests)
        start = time.perf_counter()
        again = SpaceSync(settings, index, ConfluenceSource(settings)).run("GEN")
        spent = time.perf_counter() - start
        table = AccessStore(settings.sqlalchemy_url).table()
        print(
            f"sync after restricting {count // 10:,} of {count:,} pages (no new versions):"
            f" {spent:.1f} s, {len(fake.requests) - requests} requests,"
            f" {len(table.pages):,} pages now restricted; {again.summary()}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--sync-pages", type=int, default=1000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    filter_cost(args.pages, args.questions)
    if args.sync_pages:
        sync_cost(args.sync_pages)
    print(f"peak memory {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
