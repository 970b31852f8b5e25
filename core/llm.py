"""Language models behind one protocol: chat completion with n samples and a temperature.

Implementations:
- `OpenAILLM`: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
  LiteLLM...) through the `openai` package, with bounded retries of our own.
- `ExtractiveLLM`: the embedded default when no endpoint is configured. It is not a
  language model: it reads our answer prompt back (`core.answer.parse_prompt`) and returns
  the sentences or table rows of the sources that best match the question, cited `[n]`
  and labelled as an excerpt, so the whole product works offline and says what it is.

`make_llm(settings)` picks one.
"""

from __future__ import annotations

import email.utils
import logging
import math
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from core.answer import OUT_OF_SCOPE, parse_prompt
from core.lexical import detect_language, tokenize
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


# --------------------------------------------------------------------------- extractive
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
_LONG_LINE = 300
_UNIT_CHARS = 400
_PARENTHESES = re.compile(r"\([^()]*\)")


def _units(text: str) -> list[str]:
    """Answerable units of a source text: its lines (list items, table rows), long lines
    split into sentences."""
    out = []
    for line in text.split("\n"):
        line = " ".join(line.split())
        if not line:
            continue
        parts = _SENTENCE_END.split(line) if len(line) > _LONG_LINE else [line]
        out.extend(p for p in parts if p.strip())
    return out


def _clip(text: str, limit: int = _UNIT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


class ExtractiveLLM:
    """The embedded default answerer: the best-matching sentences or rows of the sources.

    It reads the question and the numbered sources back from our answer prompt. Each line
    of a source (a list item, a table row) or each sentence of a long line is a candidate,
    scored by the question tokens it contains (`core.lexical.tokenize`), with tokens in
    parentheses (the context of a completed question) and the source's header (title and
    heading) counting a quarter, and a mild prior for lower source
    numbers (higher-ranked sources). A candidate's score depends on its own source only,
    as an LLM's reading of a source does not depend on which unrelated sources sit beside
    it: leaving a source out of the prompt (counterfactual attribution) changes the answer
    only when that source supplied it. (Weighting tokens by their inverse frequency among
    the candidates broke this: on ConfQuestions a third of the answers changed when an
    uncited source was removed, for the same answer quality.) The best
    candidate and up to `max_units - 1` others scoring at least half as much are returned,
    cited `[n]`. No candidate with a question token in its own text gives `OUT_OF_SCOPE`.

    Deterministic at temperature 0. At temperature T > 0 the candidates are drawn without
    replacement by Gumbel-top-k over log-scores / T (Kool, van Hoof and Welling, ICML
    2019), so n samples vary and Monte-Carlo attribution sees a distribution.
    """

    name = "extractive"
    PREFIX = "Excerpt from the top sources (no language model configured):"

    def __init__(self, max_units: int = 3, seed: int | None = None):
        self.max_units = max_units
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> list[str]:
        """Extractive answers to the answer prompt in `messages` (`max_tokens` is ignored)."""
        parsed = parse_prompt(messages)
        if parsed is None:
            return [OUT_OF_SCOPE] * n
        question, sources = parsed
        scored = self._score(question, sources)
        if not scored:
            return [OUT_OF_SCOPE] * n
        if temperature <= 0:
            return [self._render(self._select(scored, None))] * n
        with self._lock:
            draws = [[self._rng.random() for _ in scored] for _ in range(n)]
        out = []
        for uniforms in draws:
            noise = [-math.log(-math.log(min(max(u, 1e-12), 1 - 1e-12))) for u in uniforms]
            keys = [
                math.log(s) / temperature + g for (s, _, _), g in zip(scored, noise, strict=True)
            ]
            out.append(self._render(self._select(scored, keys)))
        return out

    def _score(self, question: str, sources: Sequence) -> list[tuple[float, int, str]]:
        """(score, source number, unit) for every unit with a question token in its text."""
        language = detect_language(question)
        wanted = set(tokenize(question, language))
        if not wanted:
            return []
        # Words in parentheses (the context a completed question carries) count a quarter:
        # they say what the conversation is about, the rest says what is asked.
        asked = set(tokenize(_PARENTHESES.sub(" ", question), language))
        scored = []
        seen: set[str] = set()
        for source in sources:
            header = set(tokenize(source.header)) & wanted
            for unit in _units(source.text):
                own = set(tokenize(unit)) & wanted
                if not own:
                    continue
                key = " ".join(unit.lower().split())
                if key in seen:  # a table row repeated by its row evidence
                    continue
                seen.add(key)
                # A unit's score depends on its own source alone (no statistics over the
                # other sources, rank prior from the source number, not its position), so
                # leaving out a source changes the answer only when that source supplied it.
                score = len(own & asked) + 0.25 * len(own - asked) + 0.25 * len(header - own)
                score /= 1 + 0.1 * (source.number - 1)
                scored.append((score, source.number, unit))
        return scored

    def _select(
        self, scored: list[tuple[float, int, str]], keys: list[float] | None
    ) -> list[tuple[float, int, str]]:
        if keys is None:
            order = sorted(range(len(scored)), key=lambda i: (-scored[i][0], scored[i][1], i))
        else:
            order = sorted(range(len(scored)), key=lambda i: -keys[i])
        floor = 0.5 * max(s for s, _, _ in scored)
        chosen = [scored[order[0]]]
        for i in order[1:]:
            if len(chosen) >= self.max_units:
                break
            if scored[i][0] >= floor:
                chosen.append(scored[i])
        return chosen

    def _render(self, chosen: list[tuple[float, int, str]]) -> str:
        lines = [f"- {_clip(unit)} [{number}]" for _, number, unit in chosen]
        return self.PREFIX + "\n" + "\n".join(lines)


def make_llm(settings: Settings) -> LLM:
    """`OpenAILLM` when `llm_base_url` is set, else the embedded `ExtractiveLLM`."""
    if settings.llm_base_url:
        return OpenAILLM.from_settings(settings)
    return ExtractiveLLM()
