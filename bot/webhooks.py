"""The Confluence webhook endpoint: `POST /webhooks/confluence`, on when `webhook_secret` is
set.

An event (page or blog post created, updated, removed, restored, moved; comment or
attachment created, updated, removed) queues its page for the sync worker, which reads it
again within `webhook_poll` (connectors.webhooks). The request must prove the shared
secret, compared in constant time, in one of two ways:
- `X-Hub-Signature: sha256=HEX`, the HMAC-SHA256 of the body with the secret (what
  Confluence Data Center's built-in webhooks send when a secret is set);
- `Authorization: Bearer SECRET` or `X-Confbot-Secret: SECRET` (a header an Automation rule's
  "Send web request" action or a Connect app adds, on Cloud).
Answers: 202 with the queued page, 200 when the event names no page, 401 without the
secret, 400 for a body that is not a JSON object.
"""

from __future__ import annotations

import hashlib
import hmac
import json

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from connectors.webhooks import event_page, queue_page
from core.db import session_factory
from core.settings import Settings

WEBHOOK_PATH = "/webhooks/confluence"


def signed(body: bytes, secret: str, signature: str) -> bool:
    """Whether `signature` (`sha256=HEX`) is the HMAC-SHA256 of `body` with `secret`."""
    scheme, _, digest = signature.partition("=")
    if scheme.strip().lower() != "sha256" or not digest:
        return False
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, digest.strip().lower())


def authorized(request: Request, body: bytes, secret: str) -> bool:
    """Whether the request proves the shared secret (see the module docstring)."""
    signature = request.headers.get("x-hub-signature", "")
    if signature:
        return signed(body, secret, signature)
    presented = request.headers.get("x-confbot-secret", "")
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if not presented and scheme.lower() == "bearer":
        presented = token.strip()
    return bool(presented) and hmac.compare_digest(presented.encode(), secret.encode())


class Webhooks:
    """The webhook route over the state database of `settings`."""

    def __init__(self, settings: Settings):
        self.secret = settings.webhook_secret
        self.sessions = session_factory(settings.sqlalchemy_url)

    def routes(self) -> list[Route]:
        return [Route(WEBHOOK_PATH, self.confluence, methods=["POST"])]

    async def confluence(self, request: Request) -> Response:
        body = await request.body()
        if not authorized(request, body, self.secret):
            return JSONResponse({"error": "the webhook secret is missing or wrong"}, 401)
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            return JSONResponse({"error": "the body is not a JSON object"}, 400)
        page_id, space = event_page(payload)
        if not page_id:
            return JSONResponse({"ignored": "the event names no page"}, 200)
        await run_in_threadpool(queue_page, self.sessions, page_id, space)
        return JSONResponse({"queued": page_id, "space": space}, 202)
