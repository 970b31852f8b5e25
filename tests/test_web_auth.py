"""The web login (`bot/auth.py`) through the app's front door: anonymous only where allowed,
a trusted proxy's header, OpenID Connect against a fake IdP on 127.0.0.1, CSRF on every
POST, and answers limited to what the signed-in user may read."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from bot.web import create_app
from core.access import PageAccess
from core.settings import SettingsError
from tests.fakes.oidc_server import FakeIdP
from tests.fakes.tiny_wiki import make_assistant

QUESTION = "What does BATS stand for?"
SECRET = "Bash Automated Testing System"


@pytest.fixture
def assistant(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    # page 101 (BATS) is readable by alice alone
    assistant.access.save_pages("TEST", {"101": PageAccess.of([{"user:acc-alice"}])})
    assistant.access.map("alice@example.com", "acc-alice")
    yield assistant
    assistant.close()


def with_settings(assistant, **changes):
    assistant.settings = assistant.settings.replace(**changes)
    return create_app(assistant)


def client_for(app, address: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://confbot.test")


async def ask(client: httpx.AsyncClient, headers: dict | None = None, csrf: bool = True):
    headers = dict(headers or {})
    if csrf and "confbot_csrf" in client.cookies:
        headers["X-CSRF-Token"] = client.cookies["confbot_csrf"]
    body = {"question": QUESTION, "conversation": "c0nversation0001"}
    return await client.post("/api/ask", json=body, headers=headers)


def cites_bats(answer: dict) -> bool:
    return SECRET in str(answer) or any(s.get("page_id") == "101" for s in answer["sources"])


def test_anonymous_only_on_loopback_or_when_allowed(assistant):
    with_settings(assistant)  # loopback default: fine
    with pytest.raises(SettingsError, match="CONFBOT_WEB_AUTH"):
        with_settings(assistant, web_host="0.0.0.0")
    with_settings(assistant, web_host="0.0.0.0", web_allow_anonymous="true")
    with pytest.raises(SettingsError, match="not one of"):
        with_settings(assistant, web_auth="basic")
    with pytest.raises(SettingsError, match="CONFBOT_OIDC_ISSUER"):
        with_settings(assistant, web_auth="oidc")


@pytest.mark.anyio
async def test_anonymous_reads_public_pages_only(assistant):
    async with client_for(with_settings(assistant)) as client:
        answer = await ask(client)
    assert answer.status_code == 200
    assert not cites_bats(answer.json())


@pytest.mark.anyio
async def test_proxy_header_from_a_trusted_proxy(assistant):
    app = with_settings(assistant, web_auth="proxy", web_trusted_proxies="10.0.0.0/8")
    alice = {"X-Forwarded-Email": "alice@example.com"}
    async with client_for(app, "192.0.2.7") as stranger:
        assert (await stranger.get("/ask", headers=alice)).status_code == 403
    async with client_for(app, "10.1.2.3") as client:
        assert (await client.get("/ask")).status_code == 401  # no header: nobody signed in
        assert (await client.get("/healthz")).status_code == 200  # probes stay open
        page = await client.get("/ask", headers=alice)
        assert page.status_code == 200 and "confbot_csrf" in client.cookies
        assert (await ask(client, alice, csrf=False)).status_code == 403  # no CSRF token
        answer = await ask(client, alice)
        assert answer.status_code == 200 and cites_bats(answer.json())
        turn = answer.json()["turn"]
        # bob signs in through the same proxy: another CSRF token, no BATS, no alice's turn
        bob = {"X-Forwarded-Email": "bob@example.com"}
        client.cookies.clear()
        await client.get("/ask", headers=bob)
        other = await ask(client, bob)
        assert other.status_code == 200 and not cites_bats(other.json())
        trace = await client.get(
            f"/api/turns/{turn}", params={"conversation": "c0nversation0001"}, headers=bob
        )
        assert trace.status_code == 404


@pytest.mark.anyio
async def test_openid_connect_sign_in(assistant):
    with FakeIdP() as idp:
        app = with_settings(
            assistant,
            web_auth="oidc",
            oidc_issuer=idp.issuer,
            oidc_client_id="confbot",
            oidc_client_secret="idp-secret",
            web_session_secret="s" * 40,
        )
        async with client_for(app) as client:
            assert (await ask(client)).status_code == 401  # the API needs a session
            page = await client.get("/ask?space=TEST")
            assert page.status_code == 303
            assert page.headers["location"] == "/login?next=/ask%3Fspace%3DTEST"
            to_idp = await client.get("/login?next=/ask")
            assert to_idp.status_code == 302
            authorize = urlsplit(to_idp.headers["location"])
            assert authorize.netloc == f"127.0.0.1:{idp.port}"
            asked = parse_qs(authorize.query)
            assert asked["client_id"] == ["confbot"] and "nonce" in asked and "state" in asked
            # the browser signs in at the IdP, which sends it back with a code
            back = httpx.get(to_idp.headers["location"])
            assert back.status_code == 302
            callback = urlsplit(back.headers["location"])
            done = await client.get(f"{callback.path}?{callback.query}")
            assert done.status_code == 303 and done.headers["location"] == "/ask"
            assert ("POST", "/token") in idp.requests and ("GET", "/jwks") in idp.requests
            await client.get("/ask")
            assert (await ask(client, csrf=False)).status_code == 403
            answer = await ask(client)
            assert answer.status_code == 200 and cites_bats(answer.json())
            # a replayed callback (state used up) signs nobody in
            replay = await client.get(f"{callback.path}?{callback.query}")
            assert replay.status_code == 401
            await client.get("/logout")
            assert (await ask(client)).status_code == 401


@pytest.mark.anyio
async def test_openid_connect_without_a_verified_email(assistant):
    with FakeIdP() as idp:
        idp.email_verified = False
        app = with_settings(
            assistant,
            web_auth="oidc",
            oidc_issuer=idp.issuer,
            oidc_client_id="confbot",
            oidc_client_secret="idp-secret",
        )
        async with client_for(app) as client:
            to_idp = await client.get("/login")
            back = urlsplit(httpx.get(to_idp.headers["location"]).headers["location"])
            done = await client.get(f"{back.path}?{back.query}")
            assert done.status_code == 401
            assert (await ask(client)).status_code == 401
