"""Which state-changing requests the web API accepts: those from its own pages and those
from clients that are no browser.

A page on another site can make a signed-in browser POST to confbot: a "simple" request
(`text/plain`, a form, or a body with no type) needs no CORS preflight, so the browser
sends it and only hides the answer. Two checks refuse it before the body is read:
- `Origin`: browsers send it on every cross-site POST (and on same-site `fetch` POSTs); it
  must name this site, as the `Host` header (or `X-Forwarded-Host`, set by a reverse proxy)
  does; `Origin: null` (sandboxed frames, files) is refused too. Requests without one
  (curl, scripts) pass.
- `Content-Type`: when present it must be JSON (`application/json`, `...+json`), which a
  cross-site page can only send after a preflight confbot never grants.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request


def _host(value: str) -> str:
    """A host[:port] lower-cased, without the default ports."""
    value = value.strip().lower()
    for default in (":80", ":443"):
        if value.endswith(default):
            return value[: -len(default)]
    return value


def same_origin(origin: str, hosts: list[str]) -> bool:
    """Whether the `Origin` header names one of `hosts` (the request's own host names)."""
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    return _host(parts.netloc) in {_host(h) for h in hosts if h}


def json_content_type(value: str | None) -> bool:
    """Whether a `Content-Type` is absent or JSON."""
    if value is None:
        return True
    kind = value.split(";", 1)[0].strip().lower()
    return kind == "application/json" or (
        kind.startswith("application/") and kind.endswith("+json")
    )


def refused_request(request: Request) -> tuple[int, str] | None:
    """(status, reason) when a state-changing API request must be refused, else None."""
    origin = request.headers.get("origin")
    if origin is not None:
        forwarded = request.headers.get("x-forwarded-host", "").split(",")[0]
        if not same_origin(origin, [request.headers.get("host", ""), forwarded]):
            return 403, "requests from other sites are refused"
    if not json_content_type(request.headers.get("content-type")):
        return 415, "the body must be JSON (Content-Type: application/json)"
    return None
