"""`confbot sync` as an operator sees it: the spaces checked before anything runs, a progress
display while it runs, one summary line per space and a total at the end.

Progress: on a terminal, tqdm bars, one for the space being synced and one for all of them,
each with pages done, the total and a time estimate. The totals are known before the first
page is read (`SpaceSync.pending`: a files source counts the pages of each space in the
folder; Confluence is asked with one CQL count per space), and the bars move page by page as
each is embedded (`EvidenceIndex.index_pages`), not per search response. Off a terminal (a
pipe, a log file, CI) the same counts come as a log line every `LOG_EVERY_SECONDS` instead
of bars that would fill the log with carriage returns.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from core.settings import Settings, SettingsError

log = logging.getLogger(__name__)

LOG_EVERY_SECONDS = 10.0
"""Seconds between progress lines when the output is not a terminal."""


class SyncProgress:
    """The progress of one `confbot sync`: `space(name)` gives the object `SpaceSync.run`
    updates (`update(done, total)`, `close()`) for each space in turn."""

    def __init__(
        self,
        totals: dict[str, int | None],
        out: TextIO,
        bars: bool,
        log_every: float = LOG_EVERY_SECONDS,
    ):
        self.totals = dict(totals)
        self.out = out
        self.bars = bars
        self.log_every = log_every
        self.done = 0
        self._overall = None
        self._space_bar = None
        self._space = ""
        self._space_done = 0
        self._space_total: int | None = None
        self._started = time.monotonic()
        self._logged = self._started
        if bars:
            from tqdm import tqdm

            self._overall = tqdm(
                desc="all spaces",
                unit="page",
                total=self._known_total(),
                position=1,
                file=out,
                **_width(out),
            )

    def _known_total(self) -> int | None:
        known = [t for t in self.totals.values() if t is not None]
        return sum(known) if known else None

    def space(self, name: str) -> SyncProgress:
        """Start the display of space `name` (its total, when known up front)."""
        self._space, self._space_done = name, 0
        self._space_total = self.totals.get(name)
        if self.bars:
            from tqdm import tqdm

            self._space_bar = tqdm(
                desc=name,
                unit="page",
                total=self._space_total,
                position=0,
                leave=False,
                file=self.out,
                **_width(self.out),
            )
        return self

    def update(self, done: int, total: int | None = None) -> None:
        """`done` more pages of the current space; `total`: its total, when the source
        says it now."""
        if total is not None and total != self._space_total:
            self._space_total = total
            self.totals[self._space] = total
            for bar, new in ((self._space_bar, total), (self._overall, self._known_total())):
                if bar is not None:
                    bar.total = new
                    bar.refresh()
        self._space_done += done
        self.done += done
        for bar in (self._space_bar, self._overall):
            if bar is not None:
                bar.update(done)
        if not self.bars and time.monotonic() - self._logged >= self.log_every:
            self._logged = time.monotonic()
            log.info("%s", self.line())

    def write(self, text: str, out: TextIO) -> None:
        """Print a line to `out` above the bars (they are redrawn below it)."""
        if self.bars:
            from tqdm import tqdm

            tqdm.write(text, file=out)
        else:
            print(text, file=out, flush=True)

    def line(self) -> str:
        """The progress as one log line: this space, all spaces, the time left."""
        of = f"/{self._space_total}" if self._space_total is not None else ""
        overall = self._known_total()
        text = f"sync {self._space}: {self._space_done}{of} pages; all spaces: {self.done}"
        if overall:
            text += f"/{overall} pages"
            elapsed = time.monotonic() - self._started
            if self.done:
                left = elapsed / self.done * max(overall - self.done, 0)
                text += f", about {left:.0f} s left"
        return text

    def close(self) -> None:
        """End the current space's display."""
        if self._space_bar is not None:
            self._space_bar.close()
            self._space_bar = None

    def finish(self) -> None:
        """End the whole display."""
        self.close()
        if self._overall is not None:
            self._overall.close()
            self._overall = None


def _width(out: TextIO) -> dict:
    """tqdm's size options: follow the terminal's size, or 100 columns and 24 rows where the
    terminal reports none (tqdm hides every bar of a pseudo-terminal without a size)."""
    try:
        size = os.get_terminal_size(out.fileno())
    except (AttributeError, OSError, ValueError):
        size = os.terminal_size((0, 0))
    if size.columns > 0 and size.lines > 0:
        return {"dynamic_ncols": True}
    return {"ncols": 100, "nrows": 24}


def open_source(settings: Settings, kind: str | None, path: str | None):
    """The page source; a folder that is not there is a `SettingsError` naming the way to
    set it, not a traceback."""
    from connectors.sync import make_source

    try:
        return make_source(settings, kind, path)
    except FileNotFoundError as exc:
        given = "--path" if path else "CONFBOT_SYNC_FILES_PATH"
        raise SettingsError(
            f"{given}: {exc.strerror or exc}"
            f" ({exc.filename or path or settings.sync_files_path}); name a folder of"
            " ConfQuestions JSON or Confluence HTML export files"
        ) from None


def known_spaces(source) -> list[str] | None:
    """The spaces a source holds, when it can list them (a files source); None otherwise."""
    return source.spaces() if hasattr(source, "spaces") else None


def check_spaces(source, spaces: Sequence[str]) -> None:
    """A `SettingsError` for a space the source does not have: a files source lists its
    spaces; Confluence is asked for each space (`GET rest/api/space/KEY`, 404 when it does
    not exist or the account may not read it)."""
    listed = known_spaces(source)
    if listed is not None:
        unknown = [s for s in spaces if s not in listed]
        if unknown:
            raise SettingsError(
                f"no page of the files source is in space {', '.join(unknown)}"
                f" (its spaces: {', '.join(listed) or 'none'})"
            )
        return
    client = getattr(source, "client", None)
    if client is None:
        return
    from connectors.confluence import ConfluenceError

    for space in spaces:
        try:
            found = client.get_json(f"rest/api/space/{space}")
        except ConfluenceError:
            return  # Confluence cannot be asked now: the sync itself says so, per space
        if found is None:
            raise SettingsError(
                f"Confluence has no space {space}, or this account may not read it: fix"
                " --space or CONFBOT_SYNC_SPACES"
            )


def run(args, settings: Settings, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """`confbot sync`: 0 when every space synced, 1 when one stopped early. The summary
    goes to `out` (stdout), the progress display to `err` (stderr)."""
    out, err = out or sys.stdout, err or sys.stderr
    from connectors.sync import SpaceSync, spaces_to_sync
    from core.db import upgrade
    from core.embeddings import make_embedder
    from core.index import EvidenceIndex

    source = open_source(settings, args.source, args.path)
    spaces = spaces_to_sync(settings, source, args.space or ())
    check_spaces(source, spaces)
    upgrade(settings.sqlalchemy_url)
    index = EvidenceIndex(settings, make_embedder(settings))
    sync = SpaceSync(settings, index, source)
    totals = {space: sync.pending(space, args.full) for space in spaces}
    progress = SyncProgress(totals, err, bars=err.isatty())
    reports = []
    try:
        for space in spaces:
            report = sync.run(space, full=args.full, progress=progress.space(space))
            reports.append(report)
            progress.write(report.summary(), out)
            for page_id, reason in report.failures:
                progress.write(f"  failed: page {page_id}: {reason}", out)
            for name, reason in report.attachments.problems:
                progress.write(f"  attachment not indexed: {name}: {reason}", out)
    finally:
        progress.finish()
        index.close()
    unreadable = [name for name, _ in getattr(source, "failures", [])]
    if len(reports) > 1 or unreadable:
        print(total_line(reports, unreadable), file=out)
    return 1 if any(r.error is not None for r in reports) else 0


def total_line(reports, unreadable: Sequence[str]) -> str:
    """The last line: the counts of every space together, and the files that could not be
    read (they belong to no space, so no space's line counts them; each was warned once)."""
    fields = ("added", "updated", "deleted", "skipped", "failed")
    sums = {f: sum(getattr(r, f) for r in reports) for f in fields}
    spaces = f"{len(reports)} space{'s' if len(reports) != 1 else ''}"
    line = f"total of {spaces}: " + ", ".join(f"{sums[f]} {f}" for f in fields)
    if unreadable:
        files = f"{len(unreadable)} unreadable file{'s' if len(unreadable) != 1 else ''}"
        line += f"; {files} skipped: {', '.join(unreadable)}"
    return line
