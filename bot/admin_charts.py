"""The admin page's charts: what happened per day, read from the state database, drawn as
inline SVG on the server.

Inline SVG is markup of the page itself: no script, no chart library, no CDN, so the page
keeps its strict Content-Security-Policy (`default-src 'none'`). Each chart carries its
numbers as text too (a `<title>` per bar for a pointer, a table in `<details>` for screen
readers and for copying).

Series, one value per day of the last `days`:
- questions, the ones declined, and the ones rated 👎 (by the day of the rating);
- sync health: the pages whose last sync attempt fell on that day, indexed or failing. The
  state keeps each page's latest attempt, not every run, so a day's bar shows the pages
  last touched then (a page synced again today moves to today).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import func, select

from connectors.state import SyncPage
from core.conversation import ConversationRecord, FeedbackRecord, TurnRecord, utcnow
from core.db import session_factory
from core.gaps import EXCLUDED_SURFACES


@dataclass(frozen=True)
class Series:
    """One coloured series of a chart: its name, CSS class and a value per day."""

    name: str
    css: str
    values: list[int]


@dataclass(frozen=True)
class Chart:
    """A bar chart over days; `stacked` draws the series on top of each other (parts of a
    whole), else side by side (a part drawn inside its whole, as declines in questions)."""

    title: str
    days: list[date]
    series: list[Series]
    stacked: bool = False


def _per_day(rows, first: date, days: int) -> list[int]:
    """Counts keyed by date (or its ISO text, as SQLite returns it) as a list over the days."""
    counts = {str(day)[:10]: int(n) for day, n in rows if day is not None}
    return [counts.get((first + timedelta(days=d)).isoformat(), 0) for d in range(days)]


def activity_charts(url: str, days: int) -> list[Chart]:
    """The charts of the last `days` days: questions and declines, 👎, sync health."""
    now = utcnow()
    start = (now - timedelta(days=days - 1)).replace(hour=0, minute=0, second=0, microsecond=0)
    first = start.date()
    sessions = session_factory(url)
    asked = func.date(TurnRecord.created_at)
    rated = func.date(FeedbackRecord.created_at)
    synced = func.date(SyncPage.synced_at)
    with sessions() as db:
        turns = (
            select(asked, func.count())
            .join(ConversationRecord, TurnRecord.conversation_id == ConversationRecord.id)
            .where(
                TurnRecord.created_at >= start,
                ConversationRecord.surface.not_in(EXCLUDED_SURFACES),
            )
            .group_by(asked)
        )
        questions = _per_day(db.execute(turns).all(), first, days)
        declined = _per_day(db.execute(turns.where(TurnRecord.out_of_scope)).all(), first, days)
        down = _per_day(
            db.execute(
                select(rated, func.count())
                .where(FeedbackRecord.created_at >= start, FeedbackRecord.value == "down")
                .group_by(rated)
            ).all(),
            first,
            days,
        )
        pages = select(synced, func.count()).where(SyncPage.synced_at >= start).group_by(synced)
        indexed = _per_day(db.execute(pages.where(SyncPage.error.is_(None))).all(), first, days)
        failing = _per_day(db.execute(pages.where(SyncPage.error.is_not(None))).all(), first, days)
    axis = [first + timedelta(days=d) for d in range(days)]
    return [
        Chart(
            "Questions per day",
            axis,
            [
                Series(
                    "answered",
                    "answered",
                    [q - d for q, d in zip(questions, declined, strict=True)],
                ),
                Series("declined", "declined", declined),
            ],
            stacked=True,
        ),
        Chart("Answers rated 👎 per day", axis, [Series("rated 👎", "down", down)]),
        Chart(
            "Sync health: pages by the day of their last sync",
            axis,
            [Series("indexed", "indexed", indexed), Series("failing", "failing", failing)],
            stacked=True,
        ),
    ]


WIDTH, HEIGHT, LEFT, BOTTOM, TOP = 320, 150, 28, 20, 8
DAY_LABELS = 5
"""The SVG's coordinate box (it scales to the width of its card, about 320 px on a phone or
in a third of a desktop page, so text keeps its size) and its margins; at most `DAY_LABELS`
days are written under the bars."""


def _ticks(top: int) -> list[int]:
    """Up to three round values for the vertical axis: 0, the middle, the top."""
    if top <= 0:
        return [0]
    return sorted({0, top // 2, top}) if top > 1 else [0, 1]


def chart_svg(chart: Chart) -> str:
    """The chart as an inline `<figure>`: SVG bars, a legend, and the numbers in a table."""
    esc = html.escape
    n = len(chart.days)
    totals = [
        sum(s.values[d] for s in chart.series)
        if chart.stacked
        else max((s.values[d] for s in chart.series), default=0)
        for d in range(n)
    ]
    top = max(max(totals, default=0), 1)
    plot_w, plot_h = WIDTH - LEFT - 16, HEIGHT - TOP - BOTTOM
    slot = plot_w / max(n, 1)
    bar_w = slot * 0.7 / (1 if chart.stacked else len(chart.series))

    def y(value: float) -> float:
        return TOP + plot_h - plot_h * value / top

    parts = []
    for tick in _ticks(top):
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(tick):.1f}"'
            f' y2="{y(tick):.1f}"/><text class="tick" x="{LEFT - 4}" y="{y(tick) + 4:.1f}"'
            f' text-anchor="end">{tick}</text>'
        )
    for d, day in enumerate(chart.days):
        x0 = LEFT + d * slot + slot * 0.15
        base = 0
        for k, series in enumerate(chart.series):
            value = series.values[d]
            if value:
                x = x0 if chart.stacked else x0 + k * bar_w
                low = base if chart.stacked else 0
                parts.append(
                    f'<rect class="{esc(series.css)}" x="{x:.1f}" y="{y(low + value):.1f}"'
                    f' width="{bar_w:.1f}" height="{y(low) - y(low + value):.1f}">'
                    f"<title>{day:%a %d %b}: {value} {esc(series.name)}</title></rect>"
                )
            if chart.stacked:
                base += value
        if (n - 1 - d) % -(-n // DAY_LABELS) == 0:  # the last day and every k-th before
            parts.append(
                f'<text class="tick" x="{x0 + slot * 0.35:.1f}" y="{HEIGHT - 6}"'
                f' text-anchor="middle">{day:%-d %b}</text>'
            )
    legend = "".join(
        f'<span class="key"><i class="swatch {esc(s.css)}"></i>{esc(s.name)}'
        f" ({sum(s.values)})</span>"
        for s in chart.series
    )
    head = "".join(f"<th>{esc(s.name)}</th>" for s in chart.series)
    rows = "".join(
        f"<tr><td>{day.isoformat()}</td>"
        + "".join(f"<td>{s.values[d]}</td>" for s in chart.series)
        + "</tr>"
        for d, day in enumerate(chart.days)
    )
    summary = ", ".join(f"{sum(s.values)} {s.name}" for s in chart.series)
    return (
        f'<figure class="chart"><figcaption>{esc(chart.title)}</figcaption>'
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" role="img"'
        f' aria-label="{esc(chart.title)}: {esc(summary)} in {n} days">{"".join(parts)}</svg>'
        f'<div class="legend">{legend}</div>'
        f"<details><summary>Numbers</summary><table><tr><th>Day</th>{head}</tr>{rows}"
        f"</table></details></figure>"
    )


def charts_html(charts: Sequence[Chart]) -> str:
    """Every chart, in a grid that wraps on a narrow screen."""
    return f'<div class="charts">{"".join(chart_svg(c) for c in charts)}</div>'
