"""The web app's front door: one ASGI middleware every request passes through.

- Body limit: a request body over `max_body` bytes is refused with 413 before any handler
  parses it (Content-Length checked first, the stream counted as it arrives), on every
  route, Slack's included.
- Error boundary: an exception escaping any handler becomes a generic answer (JSON for
  `/api/` and `/slack/`, a small HTML page otherwise) that says what kind of thing failed
  (`failure`) and never how; the details, traceback included, go to the log, never the
  request body. A dependency that is down (the state database, the vector database: its
  errors, and the connection errors of its HTTP client) is a 503 with `Retry-After`.
- Headers: every response gets the security headers (`SECURITY_HEADERS`), with
  `frame-ancestors` from the `web_frame_ancestors` setting: the page is meant to be linked
  from Confluence, not framed, unless an origin is allowed to frame it.
"""

from __future__ import annotations

import html
import json
import logging
import re
import sqlite3

from core.llm import LLMError
from core.settings import SettingsError

log = logging.getLogger(__name__)

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'"
)
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
_ORIGIN = re.compile(r"^(?:'self'|https?://[A-Za-z0-9.*-]+(?::\d{1,5})?)$")
_BODY_METHODS = {"POST", "PUT", "PATCH"}

RETRY_AFTER_S = 5
"""Seconds a 503 (a dependency down) asks a client to wait before trying again: outages of
the state database or of a Chroma server mostly last as long as a restart."""


def frame_ancestors(setting: str) -> str:
    """The CSP `frame-ancestors` source list for the `web_frame_ancestors` setting: `'none'`
    when empty, else its space-separated origins (http(s) origins or 'self'), checked so a
    setting can never inject another header or directive."""
    origins = setting.split()
    if not origins:
        return "'none'"
    bad = [o for o in origins if not _ORIGIN.match(o)]
    if bad:
        raise SettingsError(
            f"CONFBOT_WEB_FRAME_ANCESTORS: {bad[0]!r} is not an origin like"
            " https://example.atlassian.net or 'self'"
        )
    return " ".join(origins)


def failure(exc: BaseException) -> tuple[int, str]:
    """(status, message for users) for an exception from a request handler: which
    dependency failed, in words, with no detail of it."""
    chain: BaseException | None = exc
    while chain is not None:
        if isinstance(chain, LLMError):
            return 502, "The language model could not answer just now. Please try again later."
        if isinstance(chain, MemoryError):
            break
        module = type(chain).__module__
        if module.startswith("sqlalchemy") or module.startswith("psycopg"):
            return 503, (
                "confbot cannot use its state database just now, so it cannot answer."
                " The administrators will find the details in its log."
            )
        if isinstance(chain, sqlite3.Error) or _from_chroma(chain):
            return 503, (
                "confbot cannot read its search index just now, so it cannot answer."
                " The administrators will find the details in its log."
            )
        chain = chain.__cause__ or chain.__context__
    return 500, (
        "Something went wrong on confbot's side. The administrators will find the details in"
        " its log."
    )


def _from_chroma(exc: BaseException) -> bool:
    """Whether an exception is Chroma's or was raised while Chroma's code ran: a Chroma
    server that is down surfaces as its HTTP client's error (httpx.ConnectError), raised
    under chromadb's frames."""
    if type(exc).__module__.startswith("chromadb"):
        return True
    frame = exc.__traceback__
    while frame is not None:
        if str(frame.tb_frame.f_globals.get("__name__", "")).startswith("chromadb"):
            return True
        frame = frame.tb_next
    return False


class _TooLarge(Exception):
    """The request body passed the limit while it was being read."""


class Guard:
    """ASGI middleware: body limit, error boundary, security headers (see the module)."""

    def __init__(self, app, max_body: int, frame_origins: str = ""):
        self.app = app
        self.max_body = max_body
        self.headers = [
            (name.lower().encode(), value.encode()) for name, value in SECURITY_HEADERS.items()
        ]
        ancestors = frame_ancestors(frame_origins)
        self.frame_policy = f"frame-ancestors {ancestors}".encode()
        if ancestors == "'none'":
            self.headers.append((b"x-frame-options", b"DENY"))

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        if method in _BODY_METHODS:
            length = _content_length(scope)
            if length is None:
                await self._reply(send, path, 400, "The Content-Length header is not a number.")
                return
            if length > self.max_body:
                await self._too_large(send, path)
                return
        started = False
        received = 0

        async def counted_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise _TooLarge
            return message

        async def guarded_send(message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = {**message, "headers": self._with_headers(message.get("headers", []))}
            await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except _TooLarge:
            if not started:
                await self._too_large(send, path)
        except Exception as exc:
            log.exception("%s %s failed", method, path)
            if not started:
                status, message = failure(exc)
                await self._reply(send, path, status, message)

    def _with_headers(self, headers) -> list[tuple[bytes, bytes]]:
        """The response's headers plus the security headers it does not set itself; its
        CSP (or ours) always gets the frame-ancestors policy."""
        out = list(headers)
        names = {name.lower() for name, _ in out}
        out += [(name, value) for name, value in self.headers if name not in names]
        for i, (name, value) in enumerate(out):
            if name.lower() == b"content-security-policy":
                if b"frame-ancestors" not in value:
                    out[i] = (name, value + b"; " + self.frame_policy)
                break
        else:
            out.append((b"content-security-policy", CSP.encode() + b"; " + self.frame_policy))
        return out

    async def _too_large(self, send, path: str) -> None:
        await self._reply(
            send, path, 413, f"The request body is too large: at most {self.max_body} bytes."
        )

    async def _reply(self, send, path: str, status: int, message: str) -> None:
        if path.startswith(("/api/", "/slack/")) or path in ("/healthz", "/readyz"):
            body = json.dumps({"error": message}).encode()
            content_type = b"application/json"
        else:
            body = _error_page(message).encode()
            content_type = b"text/html; charset=utf-8"
        headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
        if status == 503:
            headers.append((b"retry-after", str(RETRY_AFTER_S).encode()))
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": self._with_headers(headers),
            }
        )
        await send({"type": "http.response.body", "body": body})


def _content_length(scope) -> int | None:
    """The request's Content-Length (0 when absent), None when it is not a number."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return 0


def _error_page(message: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>confbot</title>'
        f"</head><body><h1>confbot</h1><p>{html.escape(message)}</p>"
        '<p><a href="/ask">Ask a question</a></p></body></html>'
    )
