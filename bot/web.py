"""The web surface: the `/ask` link-out page, the JSON API it uses, a health check and
Slack's HTTP-mode endpoint, in one Starlette app (served by uvicorn, see `bot.serve`).

Routes:
- `GET /ask?space=KEY&page=ID&q=TEXT`: the page a Confluence page or macro links to. A chat scoped
  to the space (retrieval searches only that space; with only `page`, the page's space):
  each answer shows the completed question, the answer with its `[n]` citations linked,
  the sources numbered 1..k as cited and linked to Confluence, each with its excerpt as
  the page shows it (`core.present`), an Explain button (why in plain words, then the
  attribution breakdown) and
  a trace (retrieval ranks per retriever, the prompts sent, timings). Each page load is a
  new conversation (its id is in the page), so every browser tab has its own thread. `q`
  prepares a question: it fills the question box and waits for the user to ask it.
  `label=L` and `root=PAGEID` (repeatable or comma-separated) narrow the questions further
  to pages with one of the labels and to the trees under the root pages (`bot.link_scope`).
- `POST /api/ask` `{"question", "conversation", "space"?, "page"?, "label"?, "root"?}`: answer
  the next turn (`label` and `root`: the page's, as text or lists).
- `POST /api/ask/stream` (the same body): the same answer as server-sent events, `sources`
  first (the pages searched, as soon as they are known), then `text` as the answer arrives
  (each checked sentence of a model's answer), then `turn` (what `/api/ask` returns; the
  answer to show in the end) or `error` (the message a failed `/api/ask` would give).
- `POST /api/explain` and `POST /api/feedback` `{"turn", "conversation", "space"?,
  "page"?}` (+ `"value": "up" | "down"` for feedback).
- `GET /api/turns/{id}?conversation=...&space=...&page=...`: a turn's full trace.
- `GET /healthz`: liveness, cheap: 200 with the number of indexed evidences, 503 when the
  state database or the index cannot be read.
- `GET /readyz`: readiness (`bot.health`): 200 when everything answering needs is there,
  else 503 naming what is wrong (state database not writable, index unreadable, first sync
  not finished, index and Chroma disagreeing, pages left half written).
- `POST /slack/events`: the Slack bolt app in HTTP mode, when one is given; a request whose
  signature does not verify is refused (401) before anything reads its body.
- `GET /admin`, `GET /api/admin/status`, `GET /metrics`: the read-only admin surface
  (`bot/admin.py`), only when `admin_token` is set.

Every request passes `bot.guard.Guard` first: one body size limit, one error boundary
(generic messages for users, details in the log) and the security headers.

A turn is only readable through the conversation that asked it (its surface `web`, space,
page and conversation id must all match), so turn ids, which are sequential, reveal
nothing of other tabs' or of Slack's conversations. The page is plain HTML
(`bot/templates/ask.html`) and one vanilla script (`bot/static/ask.js`) that inserts every
text with `textContent`; there is no front-end build step.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from string import Template
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from bot.auth import WebAuth, request_reader
from bot.guard import CSP, Guard, failure
from bot.health import readiness
from bot.link_scope import link_scope, scope_words
from bot.request_checks import refused_request
from core.access import Reader
from core.answer import (
    CITATION,
    cited_numbers,
    closest_pages,
    decline_intro,
    decline_message,
)
from core.assistant import Assistant, ConversationKey, Turn, also_in_json, readers_of
from core.attribution import Explanation
from core.bounds import MAX_ID, ascii_int
from core.conversation import TurnRecord
from core.excerpt import Excerpt
from core.excerpt import excerpt as page_excerpt
from core.pages import Page
from core.present import (
    Shown,
    labels,
    language_of,
    named_sources,
    no_effect,
    plain_explanation,
    present,
    renumber,
    rows_left,
    shown_numbers,
)
from core.redact import web_link
from core.retrieve import ScoredEvidence
from core.scope import QueryScope
from core.spelling import describe

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
TEMPLATES = HERE / "templates"

SURFACE = "web"
MAX_QUESTION_CHARS = 4000
EXCERPT_CHARS = 300
FEEDBACK_VALUES = ("up", "down")

# Confluence space keys are letters and digits (personal spaces: `~` and the user name);
# page ids are numbers on Confluence, file stems for the files source.
_SPACE = re.compile(r"[A-Za-z0-9_~.-]{1,255}")
_PAGE = re.compile(r"[A-Za-z0-9_~.-]{1,255}")
_CONVERSATION = re.compile(r"[A-Za-z0-9_-]{8,64}")

SECURITY_HEADERS = {"Content-Security-Policy": CSP}
"""Headers of the HTML pages; `bot.guard.Guard` adds the rest (and frame-ancestors)."""


class BadRequest(ValueError):
    """A request the API rejects with 400 and this message."""


class NotFound(LookupError):
    """A turn that does not exist in the asking conversation (404)."""


# --------------------------------------------------------------------------- pure helpers
def answer_segments(text: str, sources: int) -> list[dict]:
    """The answer as segments for rendering: `{"text": ...}` for plain text and
    `{"text": "[2]", "cite": [2]}` for a citation marker (`core.answer.CITATION`: `[1]`,
    `[1, 3]`, `[1-3]` ...) naming at least one of the `sources` numbered sources. A marker
    naming no existing source stays plain text, so the page never links to nothing."""
    out: list[dict] = []
    position = 0

    def plain(chunk: str) -> None:
        if not chunk:
            return
        if out and "cite" not in out[-1]:
            out[-1]["text"] += chunk
        else:
            out.append({"text": chunk})

    for match in CITATION.finditer(text):
        numbers = [n for n in cited_numbers(match.group(0)) if 1 <= n <= sources]
        plain(text[position : match.start()])
        if numbers:
            out.append({"text": match.group(0), "cite": numbers})
        else:
            plain(match.group(0))
        position = match.end()
    plain(text[position:])
    return out


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """`text` on one line, cut at a word boundary to at most `limit` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rsplit(" ", 1)[0] + "…"


def _checked(value: Any, pattern: re.Pattern, name: str, what: str) -> str | None:
    """A request field that must match `pattern` when present; None when absent or empty."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise BadRequest(f"{name} must be {what}, got {value!r:.80}")
    return value


def parse_space(value: Any) -> str | None:
    """A space key from a request, or None."""
    return _checked(value, _SPACE, "space", "a Confluence space key (letters, digits, ~ _ . -)")


def parse_page(value: Any) -> str | None:
    """A page id from a request, or None."""
    return _checked(value, _PAGE, "page", "a page id (letters, digits, ~ _ . -)")


def parse_conversation(value: Any) -> str:
    """A conversation id from a request (required)."""
    found = _checked(
        value, _CONVERSATION, "conversation", "8 to 64 letters, digits, _ or - (from the page)"
    )
    if found is None:
        raise BadRequest("conversation is required (the id the /ask page sends)")
    return found


def parse_turn_id(value: Any) -> int:
    """A turn id from a request (a positive integer)."""
    try:
        return ascii_int(value, 1, MAX_ID, "turn")
    except ValueError:
        raise BadRequest(f"turn must be a positive integer, got {value!r:.80}") from None


def parse_question(value: Any) -> str:
    """A question from a request: non-empty text of at most `MAX_QUESTION_CHARS`."""
    if not isinstance(value, str) or not value.strip():
        raise BadRequest("question is required: a non-empty string")
    if len(value) > MAX_QUESTION_CHARS:
        raise BadRequest(
            f"question is too long: {len(value)} characters, at most {MAX_QUESTION_CHARS}"
        )
    return value.strip()


def prepared_question(value: str | None) -> str:
    """The question a link prepares (`/ask?q=...`): trimmed and cut to `MAX_QUESTION_CHARS`,
    so a long link still opens the page; the user reads it before asking."""
    return (value or "").strip()[:MAX_QUESTION_CHARS]


def conversation_key(space: str | None, page: str | None, conversation: str) -> ConversationKey:
    """The key of a web conversation: surface `web`, workspace the space (empty: all spaces),
    channel the page it was opened from (may be empty), thread the page's conversation id."""
    return ConversationKey(SURFACE, space or "", page or "", conversation)


# --------------------------------------------------------------------------- JSON shapes
def excerpt_json(found: Excerpt, language: str = "en") -> dict:
    """An excerpt as the page renders it: `{"kind": "table", "header", "rows", "marked":
    [[row, column], ...], "more_rows", "more"}` (`more` says how many rows are left out, in
    `language`) or `{"kind": "text", "pieces": [{"text", "marked"}]}`."""
    if found.kind == "table":
        return {
            "kind": "table",
            "header": list(found.header),
            "rows": [list(row) for row in found.rows],
            "marked": sorted([r, c] for r, c in found.marked),
            "more_rows": found.more_rows,
            "more": rows_left(found.more_rows, language) if found.more_rows else "",
        }
    return {"kind": "text", "pieces": [{"text": p.text, "marked": p.marked} for p in found.pieces]}


def source_json(
    number: int,
    item: dict,
    cited: set[int],
    excerpt_found: Excerpt | None = None,
    language: str = "en",
) -> dict:
    """One numbered source as the page shows it, from an evidence trace entry."""
    return {
        "number": number,
        "evidence_id": item.get("id"),
        "page_id": item.get("page_id"),
        "space": item.get("space", ""),
        "title": item.get("title", ""),
        "heading": item.get("heading", ""),
        "url": item.get("url", ""),
        "kind": item.get("kind", ""),
        "rank": item.get("rank"),
        "score": item.get("score"),
        "ranks": item.get("ranks", {}),
        "scores": item.get("scores", {}),
        "also_in": item.get("also_in", []),
        "cited": number in cited,
        "excerpt": excerpt_json(excerpt_found, language) if excerpt_found is not None else None,
    }


def turn_json(turn: Turn) -> dict:
    """The API's answer to `POST /api/ask`: the answer and its sources numbered as shown
    (1..k in order of first citation, then the sources it does not cite, best first; each
    with `prompt_number`, its number in the answer prompt), each with its excerpt as the
    page shows it, and the labels in the question's language."""
    evidences = [r.evidence for r in turn.evidences]
    shown = present(turn.question, turn.answer, evidences, turn.completed_question)
    excerpts = {s.prompt_number: s.excerpt for s in shown.sources}
    order = list(shown.numbers) + [
        n for n in range(1, len(evidences) + 1) if n not in shown.numbers
    ]
    cited = set(shown.numbers.values())
    sources = []
    for number, prompt in enumerate(order, start=1):
        r = turn.evidences[prompt - 1]
        e = r.evidence
        item = {
            "id": e.id,
            "page_id": e.page_id,
            "space": e.space,
            "title": e.title,
            "heading": e.heading,
            "url": e.url,
            "kind": e.kind,
            "rank": r.rank,
            "score": float(r.score),
            "ranks": dict(r.ranks),
            "scores": {k: float(v) for k, v in r.scores.items()},
            "also_in": also_in_json(r),
        }
        found = excerpts.get(prompt) or page_excerpt(e.text, e.kind, "", turn.completed_question)
        sources.append(
            {**source_json(number, item, cited, found, shown.language), "prompt_number": prompt}
        )
    answer = renumber(turn.answer, shown.numbers)
    return {
        "turn": turn.id,
        "conversation": turn.key.thread,
        "space": turn.key.workspace or None,
        "page": turn.key.channel or None,
        "question": turn.question,
        "completed_question": turn.completed_question,
        "query": turn.query,
        "answer": answer,
        "segments": answer_segments(answer, len(cited)),
        **answer_display(turn, shown),
        "citations": sorted(cited),
        "sources": sources,
        "out_of_scope": turn.out_of_scope,
        "small_talk": turn.small_talk,
        "spelling": describe(turn.corrections) or None,
        "clarification": turn.clarification,
        "suggestions": list(turn.suggestions),
        "suggestions_pending": turn.suggestions_pending,
        "model": turn.model,
        "timings": {k: round(v, 2) for k, v in turn.timings.items()},
        "language": shown.language,
        "labels": labels(shown.language),
    }


def searched_json(found: Sequence[ScoredEvidence]) -> list[dict]:
    """The sources a streamed answer is given, before it is written: number (in the answer
    prompt), title, heading and link of each."""
    return [
        {
            "number": number,
            "title": r.evidence.title,
            "heading": r.evidence.heading,
            "url": web_link(r.evidence.url),
        }
        for number, r in enumerate(found, start=1)
    ]


def answer_display(turn: Turn, shown: Shown) -> dict:
    """How the page shows the answer: `parts`, the most likely answer and the related lines
    as segments (`core.present.present`, renumbered); for a declined answer, `declined`:
    the sentence saying so in the question's language and the closest pages (numbered as
    the sources list numbers them: nothing is cited, so in prompt order)."""
    if turn.out_of_scope:
        evidences = [r.evidence for r in turn.evidences]
        pages = [
            {"number": evidences.index(e) + 1, "title": e.title, "url": e.url}
            for e in closest_pages(evidences)
        ]
        question = turn.completed_question
        message = decline_intro(question) if pages else decline_message(question, [])
        return {"declined": {"message": message, "pages": pages}}
    count = len(shown.sources)
    return {
        "parts": {
            "answer": answer_segments(shown.answer, count),
            "related": [answer_segments(line, count) for line in shown.related],
        }
    }


def trace_json(record: TurnRecord, explanation: dict | None, feedback: Sequence) -> dict:
    """The API's answer to `GET /api/turns/{id}`: every step of the turn. Evidences keep
    their numbers in the answer prompt (the prompt is shown too); `shown` is the number
    the answer shows a cited one with."""
    messages = dict(record.messages or {})
    cited = {c.get("number") for c in record.citations or []}
    numbers = shown_numbers([c.get("number") for c in record.citations or []])
    return {
        "turn": record.id,
        "question": record.question,
        "completed_question": record.completed_question,
        "query": messages.get("query", record.completed_question),
        "completion_notes": messages.get("notes") or {},
        "retrieval": [
            {**source_json(number, item, cited), "shown": numbers.get(number)}
            for number, item in enumerate(record.evidences or [], start=1)
        ],
        "messages": {
            step: messages.get(step) for step in ("completion", "answer") if step in messages
        },
        "answer": record.answer,
        "citations": sorted(n for n in cited if isinstance(n, int)),
        "out_of_scope": record.out_of_scope,
        "model": record.model,
        "timings": {k: round(float(v), 2) for k, v in (record.timings or {}).items()},
        "created_at": record.created_at.isoformat() if record.created_at else None,
        "explanation": explanation,
        "feedback": [{"value": f.value, "created_at": f.created_at.isoformat()} for f in feedback],
    }


def explanation_json(
    explanation: Explanation, record: TurnRecord, headings: dict[str, str] | None = None
) -> dict:
    """The API's answer to `POST /api/explain`: why, in plain words (`plain`: sentences of
    `{"text", "sources"}` runs, `sources` the shown numbers a run names), and the clusters
    with shares (0..1) and, for each evidence, the source it names: `number` as the answer
    shows it (None when the answer does not cite it), `prompt_number`, name, title,
    heading, url. `headings` maps evidence ids to their headings (the stored trace does not
    keep them)."""
    evidences = record.evidences or []
    headings = headings or {}
    named = named_sources(record.answer, evidences, headings)
    language = language_of(record.question)

    def source(number: int) -> dict:
        item = evidences[number - 1] if 1 <= number <= len(evidences) else {}
        found = named[number - 1] if 1 <= number <= len(named) else None
        return {
            "number": found.shown if found else None,
            "prompt_number": number,
            "name": found.name if found else "",
            "title": item.get("title", ""),
            "heading": headings.get(item.get("id", ""), ""),
            "url": item.get("url", ""),
        }

    top = explanation.top_evidence()
    unchanged = sum(1 for c in explanation.clusters if c.share <= 0)
    return {
        "turn": record.id,
        "method": explanation.method,
        "language": language,
        "labels": labels(language),
        "plain": [
            [{"text": w.text, "sources": list(w.sources)} for w in sentence]
            for sentence in plain_explanation(explanation, named, language)
        ],
        "lines": explanation.lines(),
        "no_effect": no_effect(unchanged, language) if unchanged else "",
        "top_evidence": source(top)["number"] if top is not None else None,
        "clusters": [
            {
                "cluster": c.cluster,
                "share": c.share,
                "score": c.score,
                "evidences": [source(n) for n in c.evidences],
            }
            for c in explanation.clusters
        ],
        "params": explanation.params,
        "timings": explanation.timings,
    }


# --------------------------------------------------------------------------- the app
@dataclass(frozen=True)
class Scope:
    """Where an `/ask` page was opened from: the space searched and the linking page."""

    space: str | None
    page: str | None
    page_title: str = ""
    page_url: str = ""
    known_space: bool = True
    within: QueryScope = QueryScope()
    roots: tuple[Page, ...] = ()


class WebApp:
    """The endpoints, over one `Assistant`. `app` is the Starlette application."""

    def __init__(self, assistant: Assistant, slack_app: Any = None, slack_http: bool = False):
        """`slack_app` serves `/slack/events`; with `slack_http` the route exists before the
        app does (it answers 503 until `slack_app` is set, while Slack is unreachable)."""
        self.assistant = assistant
        self.slack_app = slack_app
        self.template = Template((TEMPLATES / "ask.html").read_text(encoding="utf-8"))
        routes = [
            Route("/", self.home),
            Route("/ask", self.ask_page),
            Route("/api/ask", self.api_ask, methods=["POST"]),
            Route("/api/ask/stream", self.api_ask_stream, methods=["POST"]),
            Route("/api/explain", self.api_explain, methods=["POST"]),
            Route("/api/feedback", self.api_feedback, methods=["POST"]),
            Route("/api/turns/{turn_id}", self.api_turn),
            Route("/api/turns/{turn_id}/suggestions", self.api_suggestions),
            Route("/healthz", self.healthz),
            Route("/readyz", self.readyz),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
        if assistant.settings.admin_token:  # the admin page and /metrics (bot/admin.py)
            from bot.admin import Admin

            routes.extend(Admin(assistant).routes())
        if assistant.settings.webhook_secret:  # Confluence webhooks (bot/webhooks.py)
            from bot.webhooks import Webhooks

            routes.extend(Webhooks(assistant.settings).routes())
        if slack_app is not None or slack_http:
            from bot.slack import SLACK_EVENTS_PATH

            routes.append(Route(SLACK_EVENTS_PATH, self.slack_events, methods=["POST"]))
        settings = assistant.settings
        guard = Middleware(
            Guard,
            max_body=settings.web_max_body_bytes,
            frame_origins=settings.web_frame_ancestors,
        )
        auth = WebAuth(settings, assistant.access)  # the login (bot/auth.py)
        routes.extend(auth.routes())
        self.app = Starlette(
            routes=routes,
            middleware=[guard, *auth.middleware()],
            exception_handlers={BadRequest: self._bad_request, NotFound: self._not_found},
        )

    # ---------------------------------------------------------------- errors
    @staticmethod
    async def _bad_request(request: Request, exc: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": str(exc)}, status_code=400)
        return HTMLResponse(_error_page("Bad request", str(exc)), 400, headers=SECURITY_HEADERS)

    @staticmethod
    async def _not_found(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": str(exc)}, status_code=404)

    # ---------------------------------------------------------------- helpers
    @staticmethod
    async def _json_body(request: Request) -> dict:
        """The request's JSON object (its size already bounded by the guard), from this
        site's own pages or a client that is no browser (`bot.request_checks`)."""
        if refused := refused_request(request):
            raise HTTPException(*refused)
        body = await request.body()
        try:
            data = json.loads(body or b"null")
        except ValueError as exc:  # invalid JSON or UTF-8, an integer of over 4,300 digits
            raise BadRequest(f"the body is not valid JSON: {str(exc)[:200]}") from None
        except RecursionError:
            raise BadRequest("the body is nested too deeply") from None
        if not isinstance(data, dict):
            raise BadRequest("the body must be a JSON object")
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise BadRequest("the body holds text that is not valid Unicode") from None
        except RecursionError:
            raise BadRequest("the body is nested too deeply") from None
        return data

    def _key(self, data: dict) -> ConversationKey:
        """The web conversation a request names; a page alone scopes it to the page's space,
        as when the question was asked."""
        space, page = parse_space(data.get("space")), parse_page(data.get("page"))
        if space is None and page is not None:
            space = self._scope(None, page).space
        return conversation_key(space, page, parse_conversation(data.get("conversation")))

    def _scope(self, space: str | None, page: str | None) -> Scope:
        """The space to search and the linking page's title, from the index."""
        index = self.assistant.index
        found = index.page(page) if page else None
        if found is not None and space is None:
            space = found.space
        known = space is None or bool(index.page_ids(space))
        return Scope(
            space=space,
            page=page,
            page_title=found.title if found else "",
            page_url=found.url if found else "",
            known_space=known,
        )

    def _within(self, data: Any) -> tuple[QueryScope, list[Page]]:
        """The labels and roots a request's link narrows it to (`bot.link_scope`)."""
        get = data.getlist if hasattr(data, "getlist") else data.get
        try:
            return link_scope(get("label"), get("root"), self.assistant.index)
        except ValueError as exc:
            raise BadRequest(str(exc)) from None

    def _owned_turn(self, data: dict | Any, turn_id: Any, reader: Reader) -> TurnRecord:
        """The turn `turn_id` if it belongs to the web conversation the request names and
        was asked by the same `reader` (its sources are what that reader may read)."""
        number = parse_turn_id(turn_id)
        key = self._key(data)
        for record in self.assistant.store.turns(key):
            if record.id == number and readers_of(record) in ([reader], []):
                return record
        raise NotFound(f"no turn {number} in this conversation")

    # ---------------------------------------------------------------- pages
    async def home(self, request: Request) -> Response:
        return RedirectResponse("ask", status_code=307)

    async def ask_page(self, request: Request) -> Response:
        space = parse_space(request.query_params.get("space"))
        page = parse_page(request.query_params.get("page"))
        question = prepared_question(request.query_params.get("q"))
        scope = await run_in_threadpool(self._scope, space, page)
        within, roots = await run_in_threadpool(self._within, request.query_params)
        scope = replace(scope, within=within, roots=tuple(roots))
        return HTMLResponse(self.render(scope, question=question), headers=SECURITY_HEADERS)

    def render(self, scope: Scope, conversation: str | None = None, question: str = "") -> str:
        """The `/ask` page for a scope, with a new conversation id and `question` in the
        question box (not asked)."""
        esc = html.escape
        if scope.space:
            where = f"Answers from the <strong>{esc(scope.space)}</strong> space"
            label = f"the {scope.space} space"
        else:
            where = "Answers from every indexed space"
            label = "the wiki"
        if narrowed := scope_words(scope.within, list(scope.roots)):
            where += f", {esc(narrowed)}"
        if scope.page_title and web_link(scope.page_url):
            link = f'<a href="{esc(scope.page_url)}" rel="noopener">{esc(scope.page_title)}</a>'
            where += f" · opened from {link}"
        elif scope.page_title:
            where += f" · opened from {esc(scope.page_title)}"
        elif scope.page:
            where += f" · opened from page {esc(scope.page)}"
        if not scope.known_space:
            where += f' <span class="warning">(no pages of {esc(scope.space)} are indexed)</span>'
        return self.template.substitute(
            title=esc(f"Ask {label}"),
            heading=esc(f"Ask {label}"),
            scope=where,
            space=esc(scope.space or ""),
            page=esc(scope.page or ""),
            label=esc(",".join(sorted(scope.within.labels))),
            root=esc(",".join(sorted(scope.within.roots))),
            conversation=esc(conversation or secrets.token_urlsafe(16)),
            placeholder=esc(f"Ask a question about {label}"),
            question=esc(question),
            max_chars=MAX_QUESTION_CHARS,
        )

    # ---------------------------------------------------------------- API
    async def api_ask(self, request: Request) -> Response:
        data = await self._json_body(request)
        question = parse_question(data.get("question"))
        key = await run_in_threadpool(self._key, data)
        spaces = [key.workspace] if key.workspace else None
        within, _ = await run_in_threadpool(self._within, data)
        # Suggestions are left out of the answer's path: the page asks for them next.
        readers = [request_reader(request)]
        turn = await run_in_threadpool(
            partial(self.assistant.ask, within=within), key, question, spaces, False, readers
        )
        return JSONResponse(turn_json(turn))

    async def api_ask_stream(self, request: Request) -> Response:
        """`POST /api/ask/stream`: `api_ask` as server-sent events (module docstring). The
        assistant runs in a worker thread; its callbacks hand events to this response
        through a queue, so each is sent as soon as it exists."""
        data = await self._json_body(request)
        question = parse_question(data.get("question"))
        key = await run_in_threadpool(self._key, data)
        spaces = [key.workspace] if key.workspace else None
        within, _ = await run_in_threadpool(self._within, data)
        readers = [request_reader(request)]  # the asker's permissions, as for /api/ask
        loop = asyncio.get_running_loop()
        events: asyncio.Queue = asyncio.Queue()

        def send(event: str | None, payload: dict | None = None) -> None:
            loop.call_soon_threadsafe(events.put_nowait, (event, payload))

        def work() -> None:
            try:
                turn = self.assistant.ask(
                    key,
                    question,
                    spaces,
                    False,
                    readers,
                    within=within,
                    on_sources=lambda found: send("sources", {"sources": searched_json(found)}),
                    on_text=lambda text: send("text", {"text": text}),
                )
                send("turn", turn_json(turn))
            except Exception as exc:  # the stream has started: the error is an event
                log.exception("streamed answer failed")
                send("error", {"error": failure(exc)[1]})
            finally:
                send(None)

        worker = loop.run_in_executor(None, work)

        async def stream():
            while True:
                event, payload = await events.get()
                if event is None:
                    break
                yield f"event: {event}\ndata: {json.dumps(payload)}\n\n"
            await worker

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def api_suggestions(self, request: Request) -> Response:
        """`GET /api/turns/{id}/suggestions`: the turn's suggested follow-ups, computed on
        the first request and stored."""
        params = dict(request.query_params)
        reader = request_reader(request)

        def load() -> dict:
            record = self._owned_turn(params, request.path_params["turn_id"], reader)
            return {"turn": record.id, "suggestions": self.assistant.suggest(record.id)}

        return JSONResponse(await run_in_threadpool(load))

    async def api_explain(self, request: Request) -> Response:
        data = await self._json_body(request)
        reader = request_reader(request)
        record = await run_in_threadpool(self._owned_turn, data, data.get("turn"), reader)
        explanation = await run_in_threadpool(self.assistant.explain, record.id)
        ids = [item.get("id", "") for item in record.evidences or []]
        found = await run_in_threadpool(self.assistant.index.get, ids)
        headings = {e.id: e.heading for e in found}
        return JSONResponse(explanation_json(explanation, record, headings))

    async def api_feedback(self, request: Request) -> Response:
        data = await self._json_body(request)
        value = data.get("value")
        if value not in FEEDBACK_VALUES:
            raise BadRequest(f"value must be one of: {', '.join(FEEDBACK_VALUES)}")
        reader = request_reader(request)
        record = await run_in_threadpool(self._owned_turn, data, data.get("turn"), reader)
        feedback_id = await run_in_threadpool(self.assistant.feedback, record.id, value, "web")
        return JSONResponse({"turn": record.id, "feedback": feedback_id, "value": value})

    async def api_turn(self, request: Request) -> Response:
        params = dict(request.query_params)

        reader = request_reader(request)

        def load() -> dict:
            record = self._owned_turn(params, request.path_params["turn_id"], reader)
            store = self.assistant.store
            trace = trace_json(record, store.explanation(record.id), store.feedback(record.id))
            ids = [item["evidence_id"] for item in trace["retrieval"]]
            found = {e.id: e for e in self.assistant.index.get(ids)}
            for item in trace["retrieval"]:
                e = found.get(item["evidence_id"])
                if e is not None:  # still indexed: add what the stored trace leaves out
                    item.update(space=e.space, heading=e.heading, kind=e.kind)
                    item["excerpt"] = excerpt(e.text)
            return trace

        return JSONResponse(await run_in_threadpool(load))

    async def healthz(self, request: Request) -> Response:
        def check() -> dict:
            self.assistant.store.turn(0)  # a read of the state database
            return {"status": "ok", "evidences": self.assistant.index.count()}

        try:
            return JSONResponse(await run_in_threadpool(check))
        except Exception as exc:  # any failure of the state database or the index
            log.warning("health check failed: %r", exc)
            return JSONResponse({"status": "error", "error": type(exc).__name__}, 503)

    async def readyz(self, request: Request) -> Response:
        """Readiness: whether this process can answer now, and if not, what is wrong."""
        report = await run_in_threadpool(readiness, self.assistant)
        return JSONResponse(report, 200 if report["status"] == "ready" else 503)

    async def slack_events(self, request: Request) -> Response:
        """Slack's Events API and interactivity requests, dispatched to the bolt app in a
        worker thread (the listeners ack at once and answer lazily)."""
        from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response

        from bot.slack import signed_by_slack
        from bot.slack_payloads import problem as slack_payload_problem

        if self.slack_app is None:
            return JSONResponse({"error": "Slack is not connected yet; try again soon."}, 503)
        body = await request.body()
        if not signed_by_slack(self.assistant.settings.slack_signing_secret, request.headers, body):
            return JSONResponse({"error": "invalid request signature"}, 401)
        try:
            bolt_request = to_bolt_request(request, body)
        except Exception:  # signed, yet not the JSON or form Slack sends: bolt cannot read it
            bolt_request = None
        if bolt_request is None or not isinstance(bolt_request.body, dict):
            return JSONResponse({"error": "the body is not a Slack payload"}, 400)
        if reason := slack_payload_problem(bolt_request.body):
            return JSONResponse({"error": reason}, 400)
        response = await run_in_threadpool(self.slack_app.dispatch, bolt_request)
        return to_starlette_response(response)


def _error_page(title: str, message: str) -> str:
    esc = html.escape
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title></head><body><h1>{esc(title)}</h1>"
        f'<p>{esc(message)}</p><p><a href="ask">Ask a question</a></p></body></html>'
    )


def create_app(assistant: Assistant, slack_app: Any = None) -> Starlette:
    """The web app over `assistant`; Slack's HTTP-mode endpoint `/slack/events` is mounted
    when a bolt `App` is given."""
    return WebApp(assistant, slack_app).app
