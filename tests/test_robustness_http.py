"""Hostile HTTP: random and malicious bodies, headers and parameters against every route of
the web app (in-process, through its front door) and raw garbage against a real server.
Nothing may end in an unhandled exception (a 5xx, or the error boundary's log line), show a
traceback, or put a request body or a secret in the log; each item of issue 14 that is an
HTTP behaviour has its own test below the fuzzing."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import socket
import string
import time

import httpx
import pytest
from slack_sdk import WebClient

from bot.serve import BackgroundServer
from bot.slack import build_app
from bot.web import WebApp
from core.pages import Page
from tests.fakes.slack_api_server import FakeSlack
from tests.fakes.tiny_wiki import make_assistant

SECRET = "fuzz-signing-secret-0123"
CONVERSATION = "tab-0123456789"
BODY_MARKER = "UNSIGNED-BODY-MARKER"


@pytest.fixture
def slack():
    with FakeSlack() as server:
        yield server


@pytest.fixture
def web(wiki, tmp_path, slack):
    """The web app with Slack's HTTP mode mounted, over the tiny wiki."""
    assistant = make_assistant(wiki, tmp_path)
    assistant.settings = assistant.settings.replace(
        slack_signing_secret=SECRET, slack_bot_token="xoxb-fuzz-token-0123"
    )
    client = WebClient(token="xoxb-fuzz-token-0123", base_url=slack.base_url)
    app = WebApp(assistant, build_app(assistant.settings, assistant, client))
    yield app
    app.slack_app.listener_runner.listener_executor.shutdown(wait=True)
    assistant.close()


@pytest.fixture
async def client(web):
    transport = httpx.ASGITransport(app=web.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://confbot.test") as client:
        yield client


def signed(body: bytes, secret: str = SECRET, timestamp: str | None = None) -> dict:
    timestamp = timestamp or str(int(time.time()))
    base = b"v0:" + timestamp.encode() + b":" + body
    signature = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return {"x-slack-request-timestamp": timestamp, "x-slack-signature": signature}


# --------------------------------------------------------------------------- the fuzzer
def nested(depth: int) -> bytes:
    return b'{"question": ' + b"[" * depth + b"]" * depth + b"}"


def random_value(rng: random.Random, depth: int = 0):
    choice = rng.randrange(12)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False, 0, -1, 2**70, 1.5e308, float("nan")])
    if choice == 2:
        return "".join(rng.choice(string.printable) for _ in range(rng.randrange(40)))
    if choice == 3:
        return "\ud800 lone surrogate" if rng.random() < 0.5 else "\x00\x1b[31m"
    if choice == 4:
        return "<script>alert(1)</script>javascript:alert(1)"
    if choice == 5:
        return "x" * rng.choice([4001, 100_000])
    if choice == 6 and depth < 3:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if choice == 7 and depth < 3:
        return {random_key(rng): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    if choice == 8:
        return rng.choice(["../../etc/passwd", "TEST", "~user", "a" * 300, "1 OR 1=1"])
    if choice == 9:
        return str(rng.randrange(-5, 10**6))
    if choice == 10:
        return "What does BATS stand for?"
    return CONVERSATION


def random_key(rng: random.Random) -> str:
    fields = ["question", "conversation", "space", "page", "turn", "value", "type", "event"]
    return rng.choice(fields + ["".join(rng.choice(string.ascii_letters) for _ in range(5))])


def random_body(rng: random.Random) -> bytes:
    kind = rng.randrange(9)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
    if kind == 1:
        return nested(rng.choice([1000, 5000, 100_000]))
    if kind == 2:
        return b'{"question": "\\ud800", "conversation": "' + CONVERSATION.encode() + b'"}'
    if kind == 3:
        return b"\xff\xfe" + "é".encode("latin-1") + b"{"
    if kind == 4:
        return b""
    if kind == 5:
        return b"x" * 1_100_000  # over the body limit
    body = {random_key(rng): random_value(rng) for _ in range(rng.randrange(6))}
    if kind == 6:
        body.update(question="What does BATS stand for?", conversation=CONVERSATION)
    text = json.dumps(body, allow_nan=True, ensure_ascii=rng.random() < 0.5)
    return text.encode("utf-8", "surrogatepass")


PATHS = [
    "/api/ask",
    "/api/explain",
    "/api/feedback",
    "/api/turns/1",
    "/api/turns/-1",
    "/api/turns/99999999999999999999",
    "/api/turns/%00",
    "/ask",
    "/",
    "/healthz",
    "/readyz",
    "/slack/events",
    "/static/../../etc/passwd",
    "/static/%2e%2e/%2e%2e/etc/passwd",
    "/nowhere",
    "/ask?space=%ff%fe&page=%ed%a0%80",
    "/api/turns/1?conversation=%ed%a0%80%ed%a0%80%ed%a0%80%ed%a0%80",
]


def query_text(value) -> str:
    """A random value as a query parameter (a URL carries bytes, so a lone surrogate arrives
    as the bytes of its UTF-8-like encoding, which the server decodes with replacement)."""
    return str(value)[:300].encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def random_headers(rng: random.Random) -> dict:
    headers = {}
    if rng.random() < 0.6:
        headers["content-type"] = rng.choice(
            ["application/json", "text/plain", "application/x-www-form-urlencoded", "a/b; x=\x7f"]
        )
    if rng.random() < 0.5:
        headers["x-slack-request-timestamp"] = rng.choice(
            ["abc", "-1", "1e9", "9" * 400, "", str(int(time.time())), "٣٣"]
        )
        headers["x-slack-signature"] = rng.choice(["v0=00", "", "garbage", "v0=" + "f" * 64])
    if rng.random() < 0.2:
        headers["x-slack-retry-num"] = rng.choice(["1", "x"])
    return {name: value.encode("utf-8") for name, value in headers.items()}


@pytest.mark.anyio
async def test_random_requests_never_fail_unhandled_or_leak(client, caplog):
    caplog.set_level(logging.DEBUG)
    rng = random.Random(14)
    statuses: dict[int, int] = {}
    for _ in range(400):
        path = rng.choice(PATHS)
        method = rng.choice(["GET", "POST", "POST", "POST", "PUT", "DELETE", "OPTIONS"])
        params = {random_key(rng): query_text(random_value(rng)) for _ in range(rng.randrange(4))}
        body = random_body(rng)
        if path == "/slack/events":
            body += BODY_MARKER.encode()
        response = await client.request(
            method,
            path,
            params=params,
            content=body if method in ("POST", "PUT") else None,
            headers=random_headers(rng),
        )
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        assert response.status_code < 500, (method, path, body[:200], response.text[:300])
        assert "Traceback" not in response.text
    assert {200, 400, 401, 404, 405, 413} <= set(statuses), statuses
    assert not [r for r in caplog.records if r.name == "bot.guard"], "an unhandled exception"
    assert BODY_MARKER not in caplog.text
    assert "xoxb-fuzz-token-0123" not in caplog.text and SECRET not in caplog.text


@pytest.mark.anyio
async def test_signed_slack_requests_with_bad_bodies_are_4xx_not_500(client, caplog):
    for body in (b"{not json", nested(100_000), b"payload=%7Bbad", b"[1, 2]", b'"text"'):
        for content_type in ("application/json", "application/x-www-form-urlencoded"):
            headers = {**signed(body), "content-type": content_type}
            response = await client.post("/slack/events", content=body, headers=headers)
            assert response.status_code in (400, 404), (body[:40], response.text)
    assert not [r for r in caplog.records if r.name == "bot.guard"]


@pytest.mark.anyio
async def test_unsigned_slack_requests_are_refused_before_their_body_is_read(client, caplog):
    caplog.set_level(logging.DEBUG)
    body = (BODY_MARKER * 1000).encode()
    cases = [
        {},
        {"x-slack-request-timestamp": "not-a-number", "x-slack-signature": "v0=abc"},
        signed(body, secret="another-secret"),
        signed(body, timestamp=str(int(time.time()) - 3600)),  # a replay an hour later
    ]
    for headers in cases:
        response = await client.post("/slack/events", content=body, headers=headers)
        assert response.status_code == 401
    huge = await client.post("/slack/events", content=b"x" * 5_000_000, headers=cases[1])
    assert huge.status_code == 413
    assert BODY_MARKER not in caplog.text


# --------------------------------------------------------------------------- issue items
@pytest.mark.anyio
@pytest.mark.parametrize(
    ("body", "message"),
    [
        (nested(1000), "nested too deeply"),
        (nested(200_000), "nested too deeply"),
        (b'{"question": "\\ud800?", "conversation": "tab-0123456789"}', "not valid Unicode"),
        (b'{"question": "ok", "conversation": "tab-0123456789", "x": ["\\udfff"]}', "Unicode"),
    ],
)
async def test_deep_json_and_lone_surrogates_are_400(client, body, message):
    response = await client.post("/api/ask", content=body)
    assert response.status_code == 400
    assert message in response.json()["error"]


@pytest.mark.anyio
async def test_body_limit_comes_before_parsing_on_every_post(client):
    for path in ("/api/ask", "/api/explain", "/api/feedback", "/slack/events", "/ask"):
        response = await client.post(path, content=b"{" + b" " * 1_100_000 + b"}")
        assert response.status_code == 413, path
    bad_length = await client.post("/api/ask", content=b"{}", headers={"content-length": "x1"})
    assert bad_length.status_code == 400


@pytest.mark.anyio
async def test_every_response_forbids_framing_and_sniffing(client):
    for response in (await client.get("/ask"), await client.get("/healthz")):
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.anyio
async def test_a_frame_origin_can_be_allowed(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    allowed = "https://example.atlassian.net 'self'"
    assistant.settings = assistant.settings.replace(web_frame_ancestors=allowed)
    transport = httpx.ASGITransport(app=WebApp(assistant).app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        page = await client.get("/ask")
    assert f"frame-ancestors {allowed}" in page.headers["content-security-policy"]
    assert "x-frame-options" not in page.headers
    from core.settings import SettingsError

    for bad in ("https://a.example; script-src *", "javascript:x", "https://x\r\nSet-Cookie: a"):
        assistant.settings = assistant.settings.replace(web_frame_ancestors=bad)
        with pytest.raises(SettingsError, match="CONFBOT_WEB_FRAME_ANCESTORS"):
            WebApp(assistant).app.build_middleware_stack()


@pytest.mark.anyio
async def test_the_scope_link_never_renders_a_javascript_url(web, client):
    hostile = Page(id="7", space="TEST", title="Click me", url="javascript:alert(1)", body="")
    web.assistant.index.upsert_page(hostile, [])
    page = await client.get("/ask", params={"page": "7"})
    assert page.status_code == 200
    assert "javascript:" not in page.text and "Click me" in page.text
    web.assistant.index.delete_page("7")


@pytest.mark.anyio
async def test_page_only_turns_can_be_read_back_explained_and_rated(client):
    scope = {"conversation": CONVERSATION, "page": "101"}
    asked = await client.post("/api/ask", json={"question": "What is BATS?", **scope})
    turn = asked.json()["turn"]
    assert asked.json()["space"] == "TEST"  # the page's space
    trace = await client.get(f"/api/turns/{turn}", params=scope)
    explained = await client.post("/api/explain", json={"turn": turn, **scope})
    rated = await client.post("/api/feedback", json={"turn": turn, "value": "up", **scope})
    assert [trace.status_code, explained.status_code, rated.status_code] == [200, 200, 200]
    other = await client.get(f"/api/turns/{turn}", params={**scope, "page": "102"})
    assert other.status_code == 404


@pytest.mark.anyio
async def test_failing_answers_get_a_generic_message_and_the_details_go_to_the_log(
    web, client, caplog
):
    class Broken:
        name = "broken"

        def complete(self, messages, **_):
            raise RuntimeError("internal detail: /srv/secret/path")

    web.assistant.llm = Broken()
    response = await client.post(
        "/api/ask", json={"question": "What is BATS?", "conversation": CONVERSATION}
    )
    assert response.status_code == 500
    assert "internal detail" not in response.text and "Traceback" not in response.text
    assert "administrators" in response.json()["error"]
    assert "internal detail: /srv/secret/path" in caplog.text  # the details are logged


def test_a_real_server_survives_raw_garbage(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    with BackgroundServer(WebApp(assistant).app) as server:
        host, port = server.url.removeprefix("http://").split(":")
        for raw in (
            b"\x00\x01\x02 garbage\r\n\r\n",
            b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 100_000 + b"\r\n\r\n",
            b"POST /api/ask HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
            b"POST /api/ask HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
        ):
            with socket.create_connection((host, int(port)), timeout=10) as conn:
                conn.sendall(raw)
                answer = conn.recv(200)
            assert not answer.startswith(b"HTTP/1.1 5"), (raw[:40], answer)
        assert httpx.get(server.url + "/healthz", timeout=10).status_code == 200
    assistant.close()


# --------------------------------------------------------------------------- issue 34
@pytest.mark.anyio
@pytest.mark.parametrize("timestamp", ["²", "٣٣", "9" * 400, "1" * 13, "+1700000000", " 17"])
async def test_slack_timestamps_are_ascii_digits_within_bounds(client, caplog, timestamp):
    body = b'{"type": "event_callback", "event_id": "Ev1", "event": {"type": "app_mention"}}'
    headers = {k: _latin1_or_utf8(v) for k, v in signed(body, timestamp=timestamp).items()}
    response = await client.post("/slack/events", content=body, headers=headers)
    assert response.status_code == 401
    assert "Traceback" not in caplog.text and not caplog.records


def _latin1_or_utf8(value: str) -> bytes:
    """A header value as the bytes a client sends: latin-1 (the server reads `\xb2` as
    `²`), else UTF-8."""
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return value.encode("utf-8")


def _event(**changes) -> dict:
    event = {"type": "app_mention", "user": "U1", "text": "hi", "ts": "1.2", "channel": "C1"}
    return {"type": "event_callback", "event_id": "Ev1", "team_id": "T1", "event": event} | changes


def _click(**changes) -> dict:
    action = {"type": "button", "action_id": "feedback_up", "value": "1"} | changes
    return {
        "type": "block_actions",
        "user": {"id": "U1"},
        "team": {"id": "T1"},
        "actions": [action],
    }


@pytest.mark.anyio
@pytest.mark.parametrize(
    "payload",
    [
        _event(event="text"),
        _event(event_id={"a": 1}),
        _event(event_id="E" * 300),
        _event(event={**_event()["event"], "ts": "9" * 400}),
        _event(event={**_event()["event"], "ts": "¹.²"}),
        _event(event={**_event()["event"], "channel": ["C1"]}),
        _event(event={**_event()["event"], "text": "x" * 50_000}),
        _event(event={"type": "reaction_added", "item": "C1"}),
        _click(value={"turn": 1}),
        _click(action_id=7),
        {**_click(), "actions": "x"},
        {**_click(), "actions": []},
        {**_click(), "container": {"message_ts": "²"}},
        {**_click(), "user": "U1"},
    ],
)
async def test_signed_malformed_slack_payloads_are_400(client, caplog, payload):
    for body, kind in (
        (json.dumps(payload).encode(), "application/json"),
        (b"payload=" + json.dumps(payload).encode(), "application/x-www-form-urlencoded"),
    ):
        if payload.get("type") != "block_actions" and kind != "application/json":
            continue
        headers = {**signed(body), "content-type": kind}
        response = await client.post("/slack/events", content=body, headers=headers)
        assert response.status_code == 400, response.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.anyio
async def test_a_json_integer_of_thousands_of_digits_is_400(client):
    body = b'{"question": "hi", "conversation": "tab-0123456789", "turn": ' + b"9" * 5000 + b"}"
    response = await client.post("/api/ask", content=body)
    assert response.status_code == 400
    assert "not valid JSON" in response.json()["error"]
    explain = await client.post("/api/explain", json={"turn": "٣", "conversation": CONVERSATION})
    assert explain.status_code == 400  # a turn id is ASCII digits


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"origin": "https://evil.example", "content-type": "text/plain"}, 403),
        ({"origin": "https://evil.example", "content-type": "application/json"}, 403),
        ({"origin": "null", "content-type": "application/json"}, 403),
        ({"origin": "http://confbot.test", "content-type": "text/plain"}, 415),
        ({"content-type": "application/x-www-form-urlencoded"}, 415),
        ({"origin": "http://confbot.test", "content-type": "application/json"}, 200),
        ({"origin": "https://confbot.test:443", "x-forwarded-host": "confbot.test"}, 200),
        ({}, 200),  # curl, scripts: no Origin
    ],
)
async def test_state_changing_requests_check_origin_and_content_type(client, headers, status):
    body = json.dumps({"question": "What is BATS?", "conversation": CONVERSATION}).encode()
    for path in ("/api/ask", "/api/feedback", "/api/explain"):
        response = await client.post(path, content=body, headers=headers)
        if status != 200:
            assert response.status_code == status, (path, response.text)
        elif path == "/api/ask":
            assert response.status_code == 200, response.text
