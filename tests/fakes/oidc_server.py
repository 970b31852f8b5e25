"""A fake OpenID Connect provider: a real HTTP server on 127.0.0.1 (port 0) for the web
login's tests, speaking the authorization code flow as Keycloak or Okta do.

- `GET /.well-known/openid-configuration`: the discovery document;
- `GET /authorize?client_id&redirect_uri&state&nonce&...`: signs in `next_user` (an e-mail;
  a browser would show a login form) and redirects to `redirect_uri` with a code and state;
- `POST /token` (client_secret_basic or _post): the code for an access token and an ID
  token (RS256, `kid` of the JWKS key) with `iss`, `aud`, `sub`, `email`,
  `email_verified`, `nonce`, `iat`, `exp`;
- `GET /jwks`: the public key.

Every request is recorded (`requests`: method and path).
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import RSAKey

from tests.fakes.local_server import LocalServer


class FakeIdP(LocalServer):
    def __init__(self, client_id: str = "confbot", client_secret: str = "idp-secret"):
        self.client_id = client_id
        self.client_secret = client_secret
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key"})
        self.next_user = "alice@example.com"
        self.email_verified = True
        self.codes: dict[str, dict] = {}
        self.requests: list[tuple[str, str]] = []

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return type("Handler", (_Handler,), {"fake": self})

    def discovery(self) -> dict:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        }

    def authorize(self, params: dict) -> tuple[int, dict, dict]:
        if params.get("client_id") != self.client_id:
            return 400, {"error": "unauthorized_client"}, {}
        code = secrets.token_urlsafe(16)
        self.codes[code] = {"nonce": params.get("nonce"), "email": self.next_user}
        query = urlencode({"code": code, "state": params.get("state", "")})
        return 302, {}, {"Location": f"{params['redirect_uri']}?{query}"}

    def token(self, params: dict, authorization: str) -> tuple[int, dict, dict]:
        client = (params.get("client_id"), params.get("client_secret"))
        if authorization.startswith("Basic "):
            user, _, password = base64.b64decode(authorization[6:]).decode().partition(":")
            client = (user, password)
        if client != (self.client_id, self.client_secret):
            return 401, {"error": "invalid_client"}, {}
        grant = self.codes.pop(params.get("code", ""), None)
        if grant is None:
            return 400, {"error": "invalid_grant"}, {}
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": self.client_id,
            "sub": "sub-" + grant["email"],
            "email": grant["email"],
            "email_verified": self.email_verified,
            "nonce": grant["nonce"],
            "iat": now,
            "exp": now + 300,
        }
        id_token = jwt.encode({"alg": "RS256", "kid": "test-key"}, claims, self.key)
        body = {
            "access_token": secrets.token_urlsafe(16),
            "token_type": "Bearer",
            "expires_in": 300,
            "id_token": id_token,
        }
        return 200, body, {}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeIdP
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def _reply(self, status: int, body: dict, headers: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        parts = urlsplit(self.path)
        params = dict(parse_qsl(parts.query))
        self.fake.requests.append(("GET", parts.path))
        if parts.path == "/.well-known/openid-configuration":
            self._reply(200, self.fake.discovery(), {})
        elif parts.path == "/jwks":
            self._reply(200, {"keys": [self.fake.key.as_dict(private=False)]}, {})
        elif parts.path == "/authorize":
            self._reply(*self.fake.authorize(params))
        else:
            self._reply(404, {"error": "not found"}, {})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        params = dict(parse_qsl(self.rfile.read(length).decode()))
        path = urlsplit(self.path).path
        self.fake.requests.append(("POST", path))
        if path == "/token":
            self._reply(*self.fake.token(params, self.headers.get("Authorization", "")))
        else:
            self._reply(404, {"error": "not found"}, {})
