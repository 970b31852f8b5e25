"""The report of what the wiki is missing, per space (`core.gaps`): for `confbot gaps`, the
admin page and a weekly Slack post.

A question belongs to a space when it was asked within that one space (a web page linked
from the space, a Slack channel allowed one space by `slack_channel_spaces`), else when the
page retrieved best for it is in that space. With `gaps_channel` (space → channel, `*` for
the rest) the worker posts each space's report on `gaps_schedule` (weekly by default), as
jobs of the sync scheduler (`connectors.schedule.Job`); a week with nothing unanswered
posts nothing.

Who sees which question: the admin page and `confbot gaps` (admins) quote every question,
those asked privately (a Slack DM, group DM, private channel, or a terminal) marked as
such. The Slack post goes to a channel, so it quotes only questions asked on the web or in
public Slack channels, and lists their closest pages; private questions are only counted.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import cache

from connectors.schedule import Job
from connectors.sync import spaces_to_sync
from core.access import readable_items
from core.access_store import AccessStore
from core.assistant import ConversationKey
from core.bounds import lookback
from core.conversation import utcnow
from core.gaps import ClosestPage, Gap, closest_pages, group_gaps, in_space, unanswered_turns
from core.redact import web_link
from core.settings import Settings, SettingsError

log = logging.getLogger(__name__)

QUESTIONS_SHOWN = 5
"""Questions quoted per group (the most typical first); the rest are counted."""
WEEK = timedelta(days=7)


@dataclass
class GapsReport:
    """The unanswered questions of one space since a time, grouped."""

    space: str
    since: datetime
    gaps: list[Gap]

    @property
    def questions(self) -> int:
        return sum(len(g.questions) for g in self.gaps)


def parse_since(text: str) -> timedelta:
    """A look-back like `30d`, `12h` or `2w` (weeks) as a positive timedelta of at most
    ten years (`core.bounds.lookback`)."""
    return lookback(text)


def asked_in(settings: Settings):
    """The function giving the one space a conversation was scoped to, or None: a web
    conversation's space, or the space a Slack channel is limited to."""
    from bot.slack_requests import channel_spaces

    def scope(key: ConversationKey) -> str | None:
        if key.surface == "web":
            return key.workspace or None
        if key.surface == "slack":
            spaces = channel_spaces(settings, key.channel)
            return next(iter(spaces)) if spaces is not None and len(spaces) == 1 else None
        return None

    return scope


def gaps_for(assistant, space: str | None, since: timedelta) -> list[GapsReport]:
    """The report of `space`, or of every space with unanswered questions when None."""
    settings, index = assistant.settings, assistant.index
    return gap_reports(settings, index, index.embedder, space, since)


def gap_reports(
    settings: Settings, index, embedder, space: str | None, since: timedelta
) -> list[GapsReport]:
    """Reports per space of the questions declined, rated 👎 or answered with low
    confidence in the last `since`."""
    start = utcnow() - since
    questions = unanswered_turns(settings.sqlalchemy_url, start)
    scope = asked_in(settings)

    @cache
    def page_space(page_id: str) -> str | None:
        page = index.page(page_id)
        return page.space if page is not None else None

    # The report goes to a channel and to /admin, not to the askers: it names only the
    # pages anonymous access may read (core.access).
    public = AccessStore(settings.sqlalchemy_url).table().scope([])
    questions = [
        replace(q, evidences=readable_items(q.evidences, public, page_space)) for q in questions
    ]

    spaces = [space] if space else sorted(set(settings.sync_spaces) | index.spaces())
    reports = []
    for name in spaces:
        mine = [q for q in questions if in_space(q, name, scope, page_space)]
        if mine or space:
            gaps = group_gaps(mine, embedder, settings.gaps_distance)
            reports.append(GapsReport(name, start, gaps))
    return reports


def distinct_questions(questions: Sequence) -> list[tuple[str, int, bool]]:
    """Questions without repeats, most typical first, each with how often it was asked (a
    question asked again and again is one line, not a list of copies) and whether it was
    only ever asked privately; two questions are the same when they differ only in case,
    spacing or end punctuation."""
    seen: dict[str, list] = {}
    for question in questions:
        text = question.completed_question
        key = " ".join(text.casefold().split()).rstrip("?!. ")
        if key in seen:
            seen[key][1] += 1
            seen[key][2] = seen[key][2] and question.private
        else:
            seen[key] = [text, 1, question.private]
    return [(text, count, private) for text, count, private in seen.values()]


def _asked(text: str, count: int) -> str:
    return f"{text} (asked {count}×)" if count > 1 else text


def _counts(gap: Gap) -> str:
    parts = []
    if gap.declined:
        parts.append(f"{gap.declined} declined")
    if gap.rated_down:
        parts.append(f"{gap.rated_down} rated 👎")
    if gap.low_confidence:
        parts.append(f"{gap.low_confidence} answered with low confidence")
    return ", ".join(parts)


def report_lines(report: GapsReport) -> list[str]:
    """The report as lines of text for a terminal."""
    head = (
        f"{report.space}: {report.questions} unanswered question(s) since"
        f" {report.since:%Y-%m-%d}, in {len(report.gaps)} group(s)"
    )
    lines = [head]
    for number, gap in enumerate(report.gaps, start=1):
        lines.append(
            f"{number}. {len(gap.questions)} question(s) ({_counts(gap)}),"
            f" last asked {gap.last_asked:%Y-%m-%d}"
        )
        distinct = distinct_questions(gap.questions)
        for text, count, private in distinct[:QUESTIONS_SHOWN]:
            mark = " (asked privately)" if private else ""
            lines.append(f"   - {_asked(text, count)}{mark}")
        if len(distinct) > QUESTIONS_SHOWN:
            lines.append(f"   ... and {len(distinct) - QUESTIONS_SHOWN} more")
        if gap.pages:
            closest = "; ".join(f"{p.title} <{p.url}>" if p.url else p.title for p in gap.pages)
            lines.append(f"   closest pages: {closest}")
        else:
            lines.append("   closest pages: none retrieved")
    return lines


def report_html(report: GapsReport) -> str:
    """The report as an HTML section of the admin page (every text escaped)."""
    esc = html.escape
    items = []
    for gap in report.gaps:
        distinct = distinct_questions(gap.questions)
        questions = "".join(
            f"<li>{esc(_asked(text, count))}{' <em>(asked privately)</em>' if private else ''}</li>"
            for text, count, private in distinct[:QUESTIONS_SHOWN]
        )
        more = len(distinct) - QUESTIONS_SHOWN
        if more > 0:
            questions += f"<li>… and {more} more</li>"
        pages = ", ".join(_page_html(p) for p in gap.pages)
        items.append(
            f"<li><strong>{len(gap.questions)} question(s)</strong> ({esc(_counts(gap))}), last"
            f" asked {gap.last_asked:%Y-%m-%d}<ul>{questions}</ul>"
            f"Closest pages: {pages or 'none retrieved'}</li>"
        )
    body = f"<ol>{''.join(items)}</ol>" if items else "<p>Nothing unanswered.</p>"
    return f"<h3>{esc(report.space)}: {report.questions} unanswered</h3>{body}"


def _page_html(page: ClosestPage) -> str:
    """A closest page as a link when its URL is http(s), else its title alone."""
    esc = html.escape
    url = web_link(page.url)
    return f'<a href="{esc(url)}" rel="noopener">{esc(page.title)}</a>' if url else esc(page.title)


def report_slack(report: GapsReport) -> tuple[str, list[dict]]:
    """The report as a Slack message for a channel: (fallback text, Block Kit blocks).

    Only questions asked on the web or in public channels are quoted, with the pages that
    came closest to them; questions asked privately are counted, never quoted, and nothing
    derived from them alone (their pages) is shown."""
    from bot.blocks import escape, link

    text = (
        f"What the {report.space} wiki space is missing: {report.questions} unanswered"
        f" question(s) since {report.since:%Y-%m-%d}, in {len(report.gaps)} group(s)."
    )
    blocks: list[dict] = [{"type": "section", "text": {"type": "mrkdwn", "text": escape(text)}}]
    shown = [gap for gap in report.gaps if gap.quotable()]
    for number, gap in enumerate(shown[:10], start=1):
        quotable = gap.quotable()
        quoted = "\n".join(
            f"• {escape(_asked(text[:200], count))}"
            for text, count, _ in distinct_questions(quotable)[:QUESTIONS_SHOWN]
        )
        if gap.private:
            quoted += f"\n• and {gap.private} asked privately (not quoted)"
        pages = closest_pages(quotable)
        listed = ", ".join(link(p.url, p.title) for p in pages) or "none retrieved"
        blocks.append(
            {
                "type": "section",
                "text": {
                    "type": "mrkdwn",
                    "text": f"*{number}. {len(gap.questions)} question(s)* ({_counts(gap)})\n"
                    f"{quoted}\nClosest pages: {listed}"[:3000],
                },
            }
        )
    hidden = sum(len(gap.questions) for gap in report.gaps if not gap.quotable())
    if hidden:
        note = (
            f"{hidden} more question(s) were asked in direct messages or private channels;"
            " they are not quoted here (admins see them on the admin page)."
        )
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": escape(note)}})
    return text, blocks


# --------------------------------------------------------------------------- weekly posts
_poster: WeeklyPoster | None = None


class WeeklyPoster:
    """Posts a space's report of the last week to its `gaps_channel` channel."""

    def __init__(self, settings: Settings, index):
        self.settings = settings
        self.index = index

    def post(self, space: str) -> bool:
        """Post the report of `space`; False when nothing was unanswered (nothing posted)."""
        from slack_sdk import WebClient

        channel = channel_for(self.settings, space)
        if channel is None:
            return False
        (report,) = gap_reports(self.settings, self.index, self.index.embedder, space, WEEK)
        if not report.gaps:
            log.info("gaps report of %s: nothing unanswered this week, not posted", space)
            return False
        text, blocks = report_slack(report)
        client = WebClient(
            token=self.settings.require("slack_bot_token"), base_url=self.settings.slack_api_url
        )
        client.chat_postMessage(
            channel=channel, text=text, blocks=blocks, unfurl_links=False, unfurl_media=False
        )
        return True


def post_weekly_report(space: str) -> None:
    """The scheduled job (stored by reference in the job store): post the report of `space`
    with this process's poster."""
    if _poster is None:
        raise RuntimeError("no gaps poster is set up in this process")
    _poster.post(space)


def channel_for(settings: Settings, space: str) -> str | None:
    """The channel a space's report goes to (`gaps_channel`, its `*` entry), or None."""
    table = settings.gaps_channel
    channel = table.get(space, table.get("*"))
    return channel or None


def weekly_jobs(settings: Settings, index) -> list[Job]:
    """One job per space that has a report channel (none when `gaps_channel` is empty);
    sets up this process's poster over `index`."""
    global _poster
    if not settings.gaps_channel:
        return []
    settings.require("slack_bot_token")
    if len(settings.gaps_schedule.split()) != 5:
        raise SettingsError(
            f"CONFBOT_GAPS_SCHEDULE={settings.gaps_schedule!r} is not a 5-field cron (0 9 * * mon)"
        )
    _poster = WeeklyPoster(settings, index)
    listed = [s for s in settings.gaps_channel if s != "*"]
    spaces = listed
    if "*" in settings.gaps_channel:
        from connectors.sync import make_source

        spaces = sorted(set(listed) | set(spaces_to_sync(settings, make_source(settings))))
    return [
        Job(f"gaps:{space}", post_weekly_report, (space,), settings.gaps_schedule, f"gaps {space}")
        for space in spaces
    ]
