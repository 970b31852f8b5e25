"""Language models behind one protocol: chat completion with n samples and a temperature.

`LLM` is the protocol; `OpenAILLM` talks to any OpenAI-compatible chat-completions endpoint
(OpenAI, vLLM, Ollama, LiteLLM, llama.cpp...) through the `openai` package, with bounded
retries of our own; `LLMError` and `LLMUnavailable` are what callers catch.

Slow and local servers (issue 35: a CPU llama.cpp server took 93–173 s per answer with its
defaults) shaped three rules. Replies are streamed when a first-token timeout is set, so a
server that is computing is told apart from one that is stuck: the first token must come
within `first_token_timeout` (and each next one within it too), the whole reply within
`timeout`. A timed-out request is retried at most once: a retry re-sends work the server
may still be doing, so more retries multiply the load that caused the timeout. And at most
`concurrency` requests go to one endpoint at a time from this process
(`endpoint_slots`); the rest queue in the client before their timeouts start, so
Explain's counterfactual regenerations wait their turn instead of timing out on a server
that answers one request at a time. This module knows nothing of
prompts: the answer prompt lives in `core.answer`, the offline answerer that reads it in
`core.extractive`, and `core.assistant.make_llm` picks one of the two.
"""

from __future__ import annotations

import email.utils
import logging
import random
import threading
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
# Retries of a request that timed out (see the module docstring).
TIMEOUT_RETRIES = 1

_slots: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_slots_guard = threading.Lock()


def endpoint_slots(base_url: str, concurrency: int) -> threading.BoundedSemaphore | None:
    """The semaphore every client of `base_url` in this process shares, letting
    `concurrency` requests through at once (None: no limit, `concurrency` <= 0)."""
    if concurrency <= 0:
        return None
    with _slots_guard:
        return _slots.setdefault((base_url, concurrency), threading.BoundedSemaphore(concurrency))


class _Timeout(Exception):
    """A streamed reply ran past the total timeout."""


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

    The client's own retries are off (`max_retries=0`); this class retries 408/409/429/5xx
    and connection errors up to `max_retries` times, and timeouts at most `TIMEOUT_RETRIES`
    times (within `max_retries`), with full-jitter exponential backoff, waiting what a
    `Retry-After` header asks when there is one (clamped to `retry_after_cap` seconds).
    When every attempt fails it raises `LLMUnavailable` naming the endpoint. The API key
    is never logged, and the endpoint is named without the credentials its URL may hold
    (`core.redact.redact_url`). `first_token_timeout` (streamed replies) and `concurrency`
    (requests at once to this endpoint) are described in the module docstring.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        *,
        timeout: float = 60.0,
        max_retries: int = 4,
        first_token_timeout: float = 0.0,
        concurrency: int = 0,
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
        self.timeout = timeout
        self.first_token_timeout = first_token_timeout if 0 < first_token_timeout else 0.0
        self._slots = endpoint_slots(self.base_url, concurrency)
        self._client = OpenAI(
            base_url=base_url or None,
            api_key=api_key or "unused",
            timeout=_timeouts(timeout, self.first_token_timeout),
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
            first_token_timeout=settings.llm_first_token_timeout,
            concurrency=settings.llm_concurrency,
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

    def stream(
        self,
        messages: list[dict],
        on_text: Callable[[str], None],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> str:
        """One completion, streamed: `on_text` gets each piece of text as it arrives, and
        the whole text is returned. Retried like `complete` only while nothing has arrived
        (a retry after that would show the reader the start twice)."""
        seen: list[str] = []

        def forward(text: str) -> None:
            seen.append(text)
            on_text(text)

        return self._request(messages, 1, temperature, max_tokens, forward, seen)[0]

    def _request(
        self,
        messages: list[dict],
        n: int,
        temperature: float,
        max_tokens: int | None,
        on_text: Callable[[str], None] | None = None,
        seen: list[str] | None = None,
    ) -> list[str]:
        import openai

        params: dict = {"model": self.name, "messages": messages, "temperature": temperature}
        if n != 1:
            params["n"] = n
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        last_error = ""
        timeouts = 0
        for attempt in range(self.max_retries + 1):
            wait: float | None = None
            try:
                texts = self._send(params, on_text)
            except openai.APIStatusError as exc:
                status = exc.status_code
                if status not in _RETRY_STATUSES and status < 500:
                    raise LLMError(
                        f"LLM endpoint {self.base_url} rejected the request ({status}): "
                        f"{_error_message(exc)}"
                    ) from exc
                last_error = f"HTTP {status}: {_error_message(exc)}"
                wait = retry_after_seconds(exc.response.headers)
            except (openai.APITimeoutError, _Timeout) as exc:
                timeouts += 1
                last_error = f"request timed out ({exc})"
            except openai.APIConnectionError as exc:
                last_error = f"connection failed ({_root_cause(exc)})"
            else:
                if texts:
                    return texts
                last_error = "the response had no choices"
            if attempt == self.max_retries or timeouts > TIMEOUT_RETRIES or seen:
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
            f"{attempt + 1} attempt(s): {last_error}. Check CONFBOT_LLM_BASE_URL (a slow"
            " server may need a larger CONFBOT_LLM_TIMEOUT or CONFBOT_LLM_FIRST_TOKEN_TIMEOUT),"
            " or leave it empty to use the embedded extractive answerer."
        )

    def _send(self, params: dict, on_text: Callable[[str], None] | None) -> list[str]:
        """One request, in this endpoint's queue: the choices' texts in index order. Streamed
        when a first-token timeout is set or `on_text` wants the pieces (each chunk must
        come within the read timeout, the whole reply within `timeout`)."""
        if self._slots is not None:
            self._slots.acquire()
        try:
            if not self.first_token_timeout and on_text is None:
                response = self._client.chat.completions.create(**params)
                choices = sorted(response.choices or [], key=lambda c: c.index)
                return [(c.message.content or "") if c.message else "" for c in choices]
            return self._stream(params, on_text)
        finally:
            if self._slots is not None:
                self._slots.release()

    def _stream(self, params: dict, on_text: Callable[[str], None] | None = None) -> list[str]:
        deadline = time.monotonic() + self.timeout
        parts: dict[int, list[str]] = {}
        with self._client.chat.completions.create(**params, stream=True) as stream:
            for chunk in stream:
                for choice in chunk.choices or []:
                    text = (choice.delta.content or "") if choice.delta else ""
                    parts.setdefault(choice.index, []).append(text)
                    if on_text is not None and text and choice.index == 0:
                        on_text(text)
                if time.monotonic() > deadline:
                    raise _Timeout(f"no complete reply within {self.timeout:g} s")
        return ["".join(parts[i]) for i in sorted(parts)]


def _timeouts(total: float, first_token: float):
    """The HTTP client's timeouts: reads wait at most `first_token` seconds when set (for a
    streamed reply, the wait for each chunk), else `total`."""
    import httpx

    if not first_token:
        return total
    return httpx.Timeout(total, read=min(first_token, total), connect=min(10.0, total))


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
