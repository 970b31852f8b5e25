"""Who uses the web page: a login, and the asker it makes (`core.access.Reader`).

Three modes (`web_auth`):
- `oidc`: OpenID Connect with any IdP (Okta, Azure AD, Keycloak, Google) through Authlib's
  Starlette client: `/login` redirects to the IdP (authorization code flow with state and
  nonce), `/auth/callback` checks the ID token (signature from the IdP's JWKS, issuer,
  audience, nonce) and keeps the user's e-mail in a session cookie signed by Starlette's
  `SessionMiddleware` (itsdangerous) with `web_session_secret`; `/logout` ends it.
- `proxy`: a reverse proxy that already signs users in (oauth2-proxy, an ingress with SSO)
  sends their e-mail in `web_proxy_header`; the header is believed only from
  `web_trusted_proxies`; a request from anywhere else is refused (403), a trusted one
  without the header gets 401.
- empty: no login; everyone is anonymous and reads public pages only. Allowed when the app
  listens on a loopback address (the default, `make run`) or with `web_allow_anonymous`;
  any other bind is refused at start with the setting to change.

With a login, every page and API route needs a signed-in user (health, readiness, static
files, `/slack/events` with its own signature, and the admin routes with their token are
open), and every POST carries the CSRF token of its user: the page's script reads it from
the `confbot_csrf` cookie and sends it as `X-CSRF-Token`; it is an HMAC of the user's
identity with the session key, so every replica with the same key accepts it and a foreign
page, which cannot read the cookie, cannot forge it.

The signed-in e-mail becomes a Confluence account through the admin mappings or the
accounts the sync saw (`core.access_store.AccessStore.account_for`); none: anonymous.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import secrets
from urllib.parse import quote

from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from core.access import Reader
from core.access_store import AccessStore
from core.settings import Settings, SettingsError

log = logging.getLogger(__name__)

MODES = ("", "oidc", "proxy")
CSRF_COOKIE = "confbot_csrf"
CSRF_HEADER = "x-csrf-token"
OPEN_PREFIXES = ("/healthz", "/readyz", "/static/", "/slack/", "/admin", "/api/admin/", "/metrics")
"""Routes a login does not guard: probes, static files, and routes with their own check."""
LOGIN_PATHS = ("/login", "/auth/callback", "/logout")
SESSION_MAX_AGE = 8 * 3600
"""Seconds a signed-in session lasts (a working day)."""


def loopback(host: str) -> bool:
    """Whether a bind address only answers this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def csrf_token(key: bytes, identity: str) -> str:
    """The CSRF token of a signed-in identity: HMAC-SHA256 of it with the session key."""
    return hmac.new(key, f"csrf:{identity}".encode(), hashlib.sha256).hexdigest()


class WebAuth:
    """The login of the web app: its middleware, its routes, and the reader of a request."""

    def __init__(self, settings: Settings, access: AccessStore):
        mode = settings.web_auth.strip().lower()
        if mode not in MODES:
            raise SettingsError(f"CONFBOT_WEB_AUTH={mode!r} is not one of: oidc, proxy (or empty)")
        if not mode and not (settings.web_allow_anonymous or loopback(settings.web_host)):
            raise SettingsError(
                f"the web page on {settings.web_host} has no login: set CONFBOT_WEB_AUTH=oidc"
                " or proxy, or CONFBOT_WEB_ALLOW_ANONYMOUS=true to serve public pages to anyone"
            )
        self.mode = mode
        self.access = access
        self.header = settings.web_proxy_header.lower()
        try:
            self.proxies = [
                ipaddress.ip_network(p.strip(), strict=False) for p in settings.web_trusted_proxies
            ]
        except ValueError as exc:
            raise SettingsError(f"CONFBOT_WEB_TRUSTED_PROXIES: {exc}") from None
        secret = settings.web_session_secret or secrets.token_hex(32)
        self.key = secret.encode()
        self.oauth = None
        if mode == "oidc":
            self.oauth = self._oidc_client(settings)

    @staticmethod
    def _oidc_client(settings: Settings):
        from authlib.integrations.starlette_client import OAuth

        issuer = settings.require("oidc_issuer").rstrip("/")
        oauth = OAuth()
        oauth.register(
            "idp",
            client_id=settings.require("oidc_client_id"),
            client_secret=settings.require("oidc_client_secret"),
            server_metadata_url=f"{issuer}/.well-known/openid-configuration",
            client_kwargs={"scope": "openid email profile"},
        )
        return oauth

    # ------------------------------------------------------------------ wiring
    def middleware(self) -> list[Middleware]:
        """The middleware to add after the guard: sessions (OIDC), then the login check."""
        out = []
        if self.mode == "oidc":
            out.append(
                Middleware(
                    SessionMiddleware,
                    secret_key=self.key.decode(),
                    session_cookie="confbot_session",
                    max_age=SESSION_MAX_AGE,
                    same_site="lax",
                    https_only=False,
                )
            )
        out.append(Middleware(LoginRequired, auth=self))
        return out

    def routes(self) -> list[Route]:
        if self.mode != "oidc":
            return []
        return [
            Route("/login", self.login),
            Route("/auth/callback", self.callback, name="auth_callback"),
            Route("/logout", self.logout),
        ]

    # ------------------------------------------------------------------ identity
    def identity(self, request: Request) -> str | None:
        """The signed-in e-mail of a request; None when nobody is signed in. Raises
        `PermissionError` for a proxy header from an untrusted address."""
        if self.mode == "oidc":
            user = request.session.get("user") or {}
            return user.get("email") or None
        if self.mode == "proxy":
            client = request.client.host if request.client else ""
            try:
                address = ipaddress.ip_address(client)
            except ValueError:
                address = None
            if address is None or not any(address in net for net in self.proxies):
                raise PermissionError(f"{client or 'an unknown address'} is no trusted proxy")
            value = request.headers.get(self.header, "").strip()
            return value or None
        return None

    def reader(self, identity: str | None) -> Reader:
        """The asker a signed-in identity is (anonymous when it maps to no account)."""
        if not identity:
            return Reader.anonymous("web")
        account = self.access.account_for(identity)
        return Reader(account, identity) if account else Reader.anonymous(identity)

    # ------------------------------------------------------------------ OIDC routes
    async def login(self, request: Request) -> Response:
        request.session["next"] = _local(request.query_params.get("next", "/ask"))
        redirect_uri = str(request.url_for("auth_callback"))
        return await self.oauth.idp.authorize_redirect(request, redirect_uri)

    async def callback(self, request: Request) -> Response:
        from authlib.integrations.starlette_client import OAuthError

        try:
            token = await self.oauth.idp.authorize_access_token(request)
        except OAuthError as exc:
            log.warning("OpenID Connect sign-in failed: %s", exc.error)
            return JSONResponse({"error": "sign-in failed"}, status_code=401)
        claims = token.get("userinfo") or {}
        email = claims.get("email")
        if not email or claims.get("email_verified") is False:
            return JSONResponse({"error": "the identity provider sent no verified e-mail"}, 401)
        request.session["user"] = {"email": str(email), "sub": str(claims.get("sub", ""))}
        return RedirectResponse(request.session.pop("next", "/ask"), status_code=303)

    async def logout(self, request: Request) -> Response:
        request.session.clear()
        response = RedirectResponse("/ask", status_code=303)
        response.delete_cookie(CSRF_COOKIE)
        return response


def _local(target: str) -> str:
    """A redirect target kept on this site (a path, never another host)."""
    return target if target.startswith("/") and not target.startswith("//") else "/ask"


def request_reader(request: Request) -> Reader:
    """The asker of a request that passed `LoginRequired` (anonymous when there is none)."""
    return getattr(request.state, "reader", None) or Reader.anonymous("web")


class LoginRequired:
    """ASGI middleware: resolves the request's user into `request.state.reader`, demands a
    signed-in user on guarded routes when a login is configured, and checks the CSRF token
    of every POST of a signed-in user."""

    def __init__(self, app, auth: WebAuth):
        self.app = app
        self.auth = auth

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        path = request.url.path
        auth = self.auth
        if not auth.mode or path.startswith(OPEN_PREFIXES) or path in LOGIN_PATHS:
            scope.setdefault("state", {})["reader"] = Reader.anonymous("web")
            await self.app(scope, receive, send)
            return
        try:
            identity = auth.identity(request)
        except PermissionError as exc:
            log.warning("refused: %s", exc)
            await _json(403, "this address may not use the page")(scope, receive, send)
            return
        if identity is None:
            if auth.mode == "oidc" and request.method == "GET" and not path.startswith("/api/"):
                target = path + (f"?{request.url.query}" if request.url.query else "")
                login = RedirectResponse(f"/login?next={quote(target)}", status_code=303)
                await login(scope, receive, send)
            else:
                await _json(401, "sign in first")(scope, receive, send)
            return
        token = csrf_token(auth.key, identity)
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            sent = request.headers.get(CSRF_HEADER, "")
            if not hmac.compare_digest(sent.encode(), token.encode()):
                await _json(403, "missing or wrong CSRF token")(scope, receive, send)
                return
        scope.setdefault("state", {})["reader"] = await _resolve(auth, identity)

        async def send_with_cookie(message) -> None:
            if message["type"] == "http.response.start":
                cookie = f"{CSRF_COOKIE}={token}; Path=/; SameSite=Strict"
                cookie += f"; Max-Age={SESSION_MAX_AGE}"
                message.setdefault("headers", []).append((b"set-cookie", cookie.encode()))
            await send(message)

        await self.app(scope, receive, send_with_cookie)


async def _resolve(auth: WebAuth, identity: str) -> Reader:
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(auth.reader, identity)


def _json(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)
