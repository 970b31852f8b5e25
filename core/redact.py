"""Keeping secrets out of what confbot logs and shows, and unsafe links out of what it renders.

- `redact_url`: a URL with its password (and the values of query parameters that carry
  credentials) masked. Every URL that is logged or shown goes through it.
- `redact_text`: free text (an error message, a doctor line, a sync report) with every URL
  in it passed through `redact_url`, every credential-like `?name=value` or `&name=value`
  of a bare query string masked, and the given secret values masked: the one helper for
  anything printed or stored for people to read.
- `SecretMasker`: a logging filter that masks the configured secret values (tokens, API keys,
  passwords inside URL settings) in every record, whatever library wrote it: an upstream
  service that echoes a credential in its error text cannot put it in the log.
- `web_link`: a URL that may be rendered as a link (http or https), else "".
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"
_SECRET_PARAMS = ("key", "token", "secret", "password", "passwd", "signature", "sig", "auth")


def redact_url(url: str) -> str:
    """`url` with the password of its user info and the values of credential-like query
    parameters (`api_key`, `token`, `sig`...) replaced by `***`; unparseable text is
    returned whole only when it holds no `@`."""
    try:
        parts = urlsplit(url)
        password, username = parts.password, parts.username
    except ValueError:
        return url if "@" not in url else MASK
    netloc, query = parts.netloc, parts.query
    if "@" in netloc:
        host = netloc.rsplit("@", 1)[1]
        netloc = f"{username}:{MASK}@{host}" if password is not None else f"{MASK}@{host}"
    pairs = parse_qsl(query, keep_blank_values=True)
    if any(_secret_param(k) for k, _ in pairs):
        query = urlencode([(k, MASK if _secret_param(k) else v) for k, v in pairs], safe="*")
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s<>\"'`]+")
_PARAM_IN_TEXT = re.compile(r"([?&;])([A-Za-z0-9_.\-\[\]]{1,64})=([^&;#\s\"'<>]*)")
_URL_END = ").,;:!?]}"
"""Characters that end a sentence around a URL rather than belong to it."""


def redact_text(text: str, secrets: Iterable[str] = (), min_length: int = 6) -> str:
    """`text` with its URLs redacted (`redact_url`), credential-like parameters of bare
    query strings masked (`/rest?token=abc` shows `/rest?token=***`) and every value of
    `secrets` of at least `min_length` characters masked."""

    def url(match: re.Match) -> str:
        found = match.group(0)
        kept = found.rstrip(_URL_END)
        return redact_url(kept) + found[len(kept) :]

    def param(match: re.Match) -> str:
        mark, name, value = match.groups()
        return f"{mark}{name}={MASK if _secret_param(name) and value else value}"

    text = _PARAM_IN_TEXT.sub(param, _URL_IN_TEXT.sub(url, text))
    for secret in sorted({s for s in secrets if s and len(s) >= min_length}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def _secret_param(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _SECRET_PARAMS)


def url_secrets(url: str) -> list[str]:
    """The secret parts of a URL (its password, credential-like query values)."""
    try:
        parts = urlsplit(url)
        found = [parts.password] if parts.password else []
    except ValueError:
        return []
    found += [v for k, v in parse_qsl(parts.query) if _secret_param(k) and v]
    return found


def web_link(url: str) -> str:
    """`url` when it is an absolute http(s) URL that may be rendered as a link, else "";
    page data never makes a `javascript:`, `data:` or other scheme clickable."""
    candidate = url.strip()
    try:
        parts = urlsplit(candidate)
    except ValueError:
        return ""
    if parts.scheme.lower() in ("http", "https") and parts.netloc:
        return candidate
    return ""


def secret_values(settings) -> list[str]:
    """Every secret a settings object (`core.settings.Settings`) holds: the values of its
    secret fields, and the passwords and credential parameters of its URL settings."""
    values: list[str] = []
    for f in dataclasses.fields(settings):
        value = getattr(settings, f.name)
        if f.metadata.get("secret") and value:
            values.append(str(value))
        elif isinstance(value, str) and "://" in value:
            values += url_secrets(value)
    return values


class SecretMasker(logging.Filter):
    """Masks every known secret value in log records (message, arguments, traceback).

    Install it on the handlers that write somewhere (`install`); values shorter than 6
    characters are not masked (too likely to be ordinary words)."""

    def __init__(self, secrets: Iterable[str]):
        super().__init__()
        self.secrets = sorted({s for s in secrets if s and len(s) >= 6}, key=len, reverse=True)

    def mask(self, text: str) -> str:
        """`text` with every secret replaced by `***`."""
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        masked = self.mask(message)
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.mask(record.exc_text)
        if record.stack_info:
            record.stack_info = self.mask(record.stack_info)
        if masked != message or record.args:
            record.msg, record.args = masked, None
        return True

    def install(self, logger: logging.Logger | None = None) -> None:
        """Add the filter to every handler of `logger` (default: the root logger)."""
        for handler in (logger or logging.getLogger()).handlers:
            handler.addFilter(self)  # added once per handler (logging keeps filters unique)
