"""A real HTTP server speaking the Slack Web API, for tests.

It listens on 127.0.0.1 on a free port in a background thread, answers each API method
with canned JSON (`auth.test` names the bot, `chat.postMessage` gives each message a new
timestamp) and records every call with its parameters, whether the client sent them as JSON
or as a form. Point the real `slack_sdk.WebClient` at it; nothing is patched.

    with FakeSlack() as slack:
        client = WebClient(token="xoxb-test", base_url=slack.base_url)
        ...
        (post,) = slack.wait_for("chat.postMessage")
        assert post.params["thread_ts"] == "1700000000.000100"

`fail(method, error)` makes a method answer `{"ok": false, "error": error}` from then on.
`auth.test` sends the bot token's scopes in `X-OAuth-Scopes` (`scopes`, by default those of
`bot/manifest.yml`); `apps.connections.open` answers with `socket_mode_url` (a
`FakeSocketMode`'s URL) and insists on an app-level token (`xapp-`), as Slack does.
`conversations.replies` answers with the thread's messages from `threads[(channel, ts)]`.
`response_url(name)` is a URL on this server standing for a payload's `response_url`: what is
posted to it is recorded as a call of the method `response_url` (with `params["url_name"]`).

`users` (user id → e-mail, None for a bot) answers `users.info`, `members` (channel id →
user ids) answers `conversations.members`, a page of `MEMBERS_PAGE` at a time.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl

from tests.fakes.local_server import LocalServer

MANIFEST_SCOPES = (
    "app_mentions:read,channels:history,groups:history,im:history,mpim:history,channels:read,"
    "groups:read,chat:write,reactions:read,reactions:write,commands,users:read,"
    "users:read.email,im:read,mpim:read"
)
TEAM_ID = "T0TEST"
MEMBERS_PAGE = 2
BOT_USER_ID = "U0BOT"
BOT_ID = "B0BOT"


@dataclass
class Call:
    """One API call the server received: the method (`chat.postMessage`), its parameters,
    the request's headers (names lower-cased) and the JSON the server answered."""

    method: str
    params: dict
    headers: dict[str, str]
    response: dict
    at: float


class FakeSlack(LocalServer):
    """The fake server. Start with `start()` or a `with` block; stop with `stop()`."""

    def __init__(self):
        self.calls: list[Call] = []
        self.failures: dict[str, str] = {}
        self.scopes = MANIFEST_SCOPES
        self.socket_mode_url = ""
        self.threads: dict[tuple[str, str], list[dict]] = {}
        self.channels: dict[str, dict] = {}
        """`conversations.info` answers by channel id (`{"is_private": True}`...); a channel
        not listed is `channel_not_found`."""

        self.users: dict[str, str | None] = {}
        self.members: dict[str, list[str]] = {}
        self._ts = itertools.count(1)
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)

    @property
    def base_url(self) -> str:
        """The API base URL to give `WebClient(base_url=...)` (ends with a slash)."""
        return f"http://127.0.0.1:{self.port}/api/"

    def response_url(self, name: str = "r1") -> str:
        """A `response_url` served by this fake (Slack's are hooks.slack.com URLs)."""
        return f"http://127.0.0.1:{self.port}/response/{name}"

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        """The request handler, bound to this fake."""
        return type("Handler", (_Handler,), {"fake": self})

    # ------------------------------------------------------------------ assertions
    def fail(self, method: str, error: str) -> None:
        """Make `method` answer with `{"ok": false, "error": error}`."""
        with self._lock:
            self.failures[method] = error

    def calls_to(self, method: str) -> list[Call]:
        """The recorded calls of one API method, oldest first."""
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, method: str, count: int = 1, timeout: float = 20.0) -> list[Call]:
        """Wait until `method` has been called at least `count` times; its calls."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [c for c in self.calls if c.method == method]
                left = deadline - time.monotonic()
                if len(found) >= count or left <= 0:
                    break
                self._changed.wait(left)
        assert len(found) >= count, f"{method} called {len(found)} times, expected {count}"
        return found

    # ------------------------------------------------------------------ serving
    def _answer(self, method: str, params: dict, headers: dict[str, str]) -> dict:
        error = self.failures.get(method)
        if error:
            return {"ok": False, "error": error}
        if method == "auth.test":
            return {
                "ok": True,
                "url": "https://test.slack.com/",
                "team": "Test",
                "user": "confbot",
                "team_id": TEAM_ID,
                "user_id": BOT_USER_ID,
                "bot_id": BOT_ID,
                "is_enterprise_install": False,
            }
        if method == "apps.connections.open":
            if not headers.get("authorization", "").startswith("Bearer xapp-"):
                return {"ok": False, "error": "not_allowed_token_type"}
            return {"ok": True, "url": self.socket_mode_url}
        if method == "chat.postMessage":
            ts = f"1800000000.{next(self._ts):06d}"
            message = {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID, "ts": ts}
            message.update({k: params[k] for k in ("text", "blocks", "thread_ts") if k in params})
            return {"ok": True, "channel": params.get("channel"), "ts": ts, "message": message}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"1800000000.{next(self._ts):06d}"}
        if method == "conversations.info":
            found = self.channels.get(params.get("channel", ""))
            if found is None:
                return {"ok": False, "error": "channel_not_found"}
            return {"ok": True, "channel": {"id": params["channel"], **found}}

        if method == "users.info":
            user = params.get("user", "")
            if user not in self.users:
                return {"ok": False, "error": "user_not_found"}
            email = self.users[user]
            profile = {"real_name": user, **({"email": email} if email else {})}
            return {
                "ok": True,
                "user": {
                    "id": user,
                    "team_id": TEAM_ID,
                    "is_bot": email is None,
                    "profile": profile,
                },
            }
        if method == "conversations.members":
            members = self.members.get(params.get("channel", ""))
            if members is None:
                return {"ok": False, "error": "channel_not_found"}
            start = int(params.get("cursor") or 0)
            end = start + MEMBERS_PAGE
            cursor = str(end) if end < len(members) else ""
            return {
                "ok": True,
                "members": members[start:end],
                "response_metadata": {"next_cursor": cursor},
            }
        if method == "conversations.replies":
            messages = self.threads.get((params.get("channel", ""), params.get("ts", "")), [])
            return {"ok": True, "messages": messages, "has_more": False}
        if method == "response_url":
            return {"ok": True}
        return {"ok": True}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeSlack
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8") if length else ""
        if "json" in (self.headers.get("Content-Type") or ""):
            params = json.loads(raw or "{}")
        else:
            params = dict(parse_qsl(raw))
        for name in ("blocks", "attachments"):  # sent as JSON strings in forms
            if isinstance(params.get(name), str):
                params[name] = json.loads(params[name])
        method = self.path.split("?")[0].rsplit("/", 1)[-1]
        if self.path.startswith("/response/"):
            method, params = "response_url", {**params, "url_name": method}
        headers = {name.lower(): value for name, value in self.headers.items()}
        fake = self.fake
        with fake._changed:
            payload = fake._answer(method, params, headers)
            fake.calls.append(Call(method, params, headers, payload, time.time()))
            fake._changed.notify_all()
        data = json.dumps(payload).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        if method == "auth.test" and payload["ok"]:
            self.send_header("X-OAuth-Scopes", fake.scopes)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST
