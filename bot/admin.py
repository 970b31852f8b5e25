"""The read-only admin surface of the web app, behind `admin_token` (off when it is empty):

- `GET /admin`: a page for people (styled, readable on a phone): totals, charts of
  questions, declines, 👎 and sync health per day (`bot.admin_charts`, inline SVG), per space
  the last and next sync, pages and evidences indexed, the pages that failed and why; and
  what the wiki is missing (declined or 👎 questions grouped by similarity, with
  the pages that came closest; `?space=KEY` for one space, `?since=30d`).
- `GET /api/admin/status`: the same status as JSON.
- `GET /metrics`: Prometheus metrics (`bot.metrics`).

A request carries the token as `Authorization: Bearer TOKEN` (Prometheus' `authorization`
setting) or as the password of HTTP basic auth (a browser asks for it, after the 401's
`WWW-Authenticate`). The comparison takes constant time (`hmac.compare_digest`), so response
times tell nothing about the token. Nothing here changes confbot's state; each view of the
admin page (which quotes questions asked privately) is written to the audit log
(`core.audit`), and the page shows its latest entries.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hmac
import html
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from string import Template

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from bot.metrics import CONTENT_TYPE, metrics_registry, metrics_text
from bot.status import Status, collect_status, status_json
from core import audit
from core.access import AccessTable
from core.assistant import Assistant

HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "Referrer-Policy": "no-referrer",
}
AUDIT_SHOWN = 20
CHALLENGE = {"WWW-Authenticate": 'Basic realm="confbot admin", charset="UTF-8"'}


def presented_token(authorization: str) -> str | None:
    """The token an `Authorization` header carries: a Bearer token, or the password of
    basic auth; None when it carries neither."""
    scheme, _, value = authorization.partition(" ")
    scheme = scheme.lower()
    if scheme == "bearer":
        return value.strip()
    if scheme == "basic":
        try:
            decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
        return decoded.partition(":")[2]
    return None


def token_matches(presented: str | None, token: str) -> bool:
    """Whether `presented` is `token`, compared in constant time."""
    if not presented or not token:
        return False
    return hmac.compare_digest(presented.encode("utf-8"), token.encode("utf-8"))


class Admin:
    """The admin routes over one Assistant (its settings, index and state database)."""

    def __init__(self, assistant: Assistant):
        self.assistant = assistant
        self.settings = assistant.settings
        self.registry = metrics_registry(self.settings)

    def routes(self) -> list[Route]:
        return [
            Route("/admin", self.page),
            Route("/api/admin/status", self.status),
            Route("/metrics", self.metrics),
        ]

    def _denied(self, request: Request) -> Response | None:
        presented = presented_token(request.headers.get("authorization", ""))
        if token_matches(presented, self.settings.admin_token):
            return None
        return Response("admin token required\n", 401, headers={**HEADERS, **CHALLENGE})

    async def metrics(self, request: Request) -> Response:
        if denied := self._denied(request):
            return denied
        body = await run_in_threadpool(metrics_text, self.registry)
        return Response(body, headers={"Content-Type": CONTENT_TYPE, **HEADERS})

    async def status(self, request: Request) -> Response:
        if denied := self._denied(request):
            return denied
        status = await run_in_threadpool(collect_status, self.settings, self.assistant.index)
        return JSONResponse(status_json(status), headers=HEADERS)

    async def page(self, request: Request) -> Response:
        if denied := self._denied(request):
            return denied
        from bot.gaps import gaps_for, parse_since

        space = request.query_params.get("space") or None
        try:
            since = parse_since(request.query_params.get("since") or "30d")
        except ValueError as exc:
            return HTMLResponse(f"<p>{html.escape(str(exc))}</p>", 400, headers=HEADERS)
        from bot.admin_charts import activity_charts

        url = self.settings.sqlalchemy_url
        client = request.client.host if request.client else "unknown"
        detail = {"space": space, "since": request.query_params.get("since") or "30d"}
        await run_in_threadpool(audit.record, url, f"admin-token@{client}", "admin.page", **detail)
        status = await run_in_threadpool(collect_status, self.settings, self.assistant.index)
        status = public_titles(status, await run_in_threadpool(self.assistant.access.table))
        reports = await run_in_threadpool(gaps_for, self.assistant, space, since)
        entries = await run_in_threadpool(audit.recent, url, AUDIT_SHOWN)
        charts = await run_in_threadpool(activity_charts, url, status.usage.days)
        return HTMLResponse(render_page(status, reports, since, charts, entries), headers=HEADERS)


def public_titles(status: Status, table: AccessTable) -> Status:
    """The status with the title of every failed page anonymous access may not read, or
    whose permissions were never recorded in a space whose were, replaced by a note: the
    admin token is no Confluence identity (core.access)."""
    public = table.scope([])
    spaces = []
    for s in status.spaces:
        failed = [
            p
            if public.allows(p.page_id, s.space)
            and (s.space not in table.spaces or p.page_id in table.recorded)
            else dataclasses.replace(p, title="(title hidden: restricted page)")
            for p in s.failed
        ]
        spaces.append(dataclasses.replace(s, failed=failed))
    return dataclasses.replace(status, spaces=spaces)


TEMPLATE = Path(__file__).resolve().parent / "templates" / "admin.html"


def render_page(
    status: Status, reports: list, since: timedelta, charts: Sequence = (), entries: list = ()
) -> str:
    """The admin page (`bot/templates/admin.html`): totals, the charts of
    `bot.admin_charts`, the spaces' sync state, the gaps report and the latest audit
    entries, every text escaped."""
    from bot.admin_charts import charts_html
    from bot.gaps import report_html

    esc = html.escape
    rows = []
    for s in status.spaces:
        failed = "".join(
            f"<li>{esc(p.page_id)} {esc(p.title)} ({p.attempts}×): <code>{esc(p.error[:300])}"
            "</code></li>"
            for p in s.failed
        )
        rows.append(
            f"<tr><td>{esc(s.space)}</td><td>{s.pages}</td><td>{s.evidences}</td>"
            f"<td>{esc(_when(s.last_run_at))}<br><small>{esc(s.last_run)}</small></td>"
            f"<td>{esc(_when(s.next_run_at))}</td>"
            f"<td>{len(s.failed)}{f'<ul>{failed}</ul>' if failed else ''}</td></tr>"
        )
    usage = status.usage
    failing = sum(len(s.failed) for s in status.spaces)
    audit_rows = "".join(
        f"<tr><td>{esc(_when(e.at))}</td><td>{esc(e.actor)}</td><td>{esc(e.action)}</td>"
        f"<td>{esc(', '.join(f'{k}={v}' for k, v in e.detail.items()))}</td></tr>"
        for e in entries
    )
    values = {
        "generated": esc(_when(status.generated_at)),
        "days": usage.days,
        "questions": usage.questions,
        "declined": usage.declined,
        "up": usage.feedback.get("up", 0),
        "down": usage.feedback.get("down", 0),
        "median": f"{usage.median_ms:.0f} ms" if usage.median_ms is not None else "n/a",
        "pages": sum(s.pages for s in status.spaces),
        "failed": failing,
        "failed_class": "bad" if failing else "",
        "charts": charts_html(charts) if charts else "",
        "spaces": "".join(rows),
        "since_days": since.days,
        "gaps": "".join(report_html(report) for report in reports) or "<p>Nothing unanswered.</p>",
        "audit_shown": AUDIT_SHOWN,
        "audit": audit_rows,
    }
    return Template(TEMPLATE.read_text(encoding="utf-8")).substitute(values)


def _when(moment) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "—"
