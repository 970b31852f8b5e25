"""Language models behind one protocol: chat completion with n samples and a temperature.

`LLM` is the protocol; `OpenAILLM` talks to any OpenAI-compatible chat-completions endpoint
(OpenAI, vLLM, Ollama, LiteLLM...) through the `openai` package, with bounded retries of our
own; `LLMError` and `LLMUnavailable` are what callers catch. This module knows nothing of
prompts: the answer prompt lives in `core.answer`, the offline answerer that reads it in
`core.extractive`, and `core.assistant.make_llm` picks one of the two.
"""

from __future__ import annotations

import email.utils
import logging
import random
import time
from collections.abc import Callable
from typing import Protocol

from core.redact import redact_url
from core.settings import Settings

log = logging.getLogger(__name__)


class LLM(Protocol):
    """A chat model. `name` identifies the model in traces."""

    name: str

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> list[str]:
        """`n` completions of the chat `messages`, sampled at `temperature`."""
        ...


class LLMError(RuntimeError):
    """The LLM endpoint rejected a request (a 4xx other than 408/409/429)."""


class LLMUnavailable(LLMError):
    """The LLM endpoint could not be reached or kept failing after all retries."""


# Statuses worth retrying: timeouts, conflicts, rate limits and server errors.
_RETRY_STATUSES = {408, 409, 429}


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Seconds to wait before retry number `attempt` (0-based): "full jitter", a uniform
    draw from [0, min(cap, base * 2**attempt)] (Brooker, "Exponential Backoff and Jitter",
    AWS Architecture Blog, 2015)."""
    return rng.uniform(0.0, min(cap, base * (2**attempt)))


def retry_after_seconds(headers, now: float | None = None) -> float | None:
    """The server's requested wait from `retry-after-ms` or `Retry-After` (delta seconds or
    an HTTP date, RFC 9110 §10.2.3); None when absent or unreadable."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return float(value) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return moment.timestamp() - (time.time() if now is None else now)


class OpenAILLM:
    """Chat completions from an OpenAI-compatible endpoint.

    The client's own retries are off (`max_retries=0`); this class retries 408/409/429/5xx,
    timeouts and connection errors up to `max_retries` times with full-jitter exponential
    backoff, waiting what a `Retry-After` header asks when there is one (clamped to
    `retry_after_cap` seconds). When every attempt fails it raises `LLMUnavailable` naming
    the endpoint. The API key is never logged, and the endpoint is named without the
    credentials its URL may hold (`core.redact.redact_url`).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        *,
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff_base: float = 0.5,
        backoff_cap: float = 20.0,
        retry_after_cap: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ):
        from openai import OpenAI

        self.name = model
        self.base_url = redact_url(base_url)  # as logged and shown: no credentials
        self.max_retries = max(0, max_retries)
        self._backoff_base = backoff_base
        self._backoff_cap = backoff_cap
        self._retry_after_cap = retry_after_cap
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._client = OpenAI(
            base_url=base_url or None,
            api_key=api_key or "unused",
            timeout=timeout,
            max_retries=0,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAILLM:
        """The client for `llm_base_url` and `llm_model`."""
        return cls(
            settings.require("llm_base_url"),
            settings.llm_model,
            settings.openai_api_key,
            timeout=settings.llm_timeout,
            max_retries=settings.llm_max_retries,
        )

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> list[str]:
        """`n` completions. Endpoints that return fewer choices than asked (some ignore `n`)
        are asked again for the rest."""
        texts: list[str] = []
        while len(texts) < n:
            texts.extend(self._request(messages, n - len(texts), temperature, max_tokens))
        return texts[:n]

    def _request(
        self, messages: list[dict], n: int, temperature: float, max_tokens: int | None
    ) -> list[str]:
        import openai

        params: dict = {"model": self.name, "messages": messages, "temperature": temperature}
        if n != 1:
            params["n"] = n
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        last_error = ""
        for attempt in range(self.max_retries + 1):
            wait: float | None = None
            try:
                response = self._client.chat.completions.create(**params)
            except openai.APIStatusError as exc:
                status = exc.status_code
                if status not in _RETRY_STATUSES and status < 500:
                    raise LLMError(
                        f"LLM endpoint {self.base_url} rejected the request ({status}): "
                        f"{_error_message(exc)}"
                    ) from exc
                last_error = f"HTTP {status}: {_error_message(exc)}"
                wait = retry_after_seconds(exc.response.headers)
            except openai.APITimeoutError:
                last_error = "request timed out"
            except openai.APIConnectionError as exc:
                last_error = f"connection failed ({_root_cause(exc)})"
            else:
                choices = sorted(response.choices or [], key=lambda c: c.index)
                texts = [(c.message.content or "") if c.message else "" for c in choices]
                if texts:
                    return texts
                last_error = "the response had no choices"
            if attempt == self.max_retries:
                break
            if wait is None:
                wait = backoff_delay(attempt, self._backoff_base, self._backoff_cap, self._rng)
            wait = min(max(wait, 0.0), self._retry_after_cap)
            log.warning(
                "LLM endpoint %s: %s; retry %d of %d in %.2f s",
                self.base_url,
                last_error,
                attempt + 1,
                self.max_retries,
                wait,
            )
            self._sleep(wait)
        raise LLMUnavailable(
            f"LLM endpoint {self.base_url} (model {self.name}) is unavailable after "
            f"{self.max_retries + 1} attempt(s): {last_error}. Check CONFBOT_LLM_BASE_URL, "
            "or leave it empty to use the embedded extractive answerer."
        )


def _error_message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
    return str(getattr(exc, "message", "") or exc)[:300]


def _root_cause(exc: BaseException) -> str:
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return str(exc)[:200] or type(exc).__name__
