"""A real HTTP server speaking the OpenAI chat-completions protocol, for tests.

It listens on 127.0.0.1 on a free port in a background thread, records every request,
and answers from a script of replies (then from a default responder). Point the real
`openai` client (or `core.llm.OpenAILLM`) at `server.base_url`; nothing is patched.

    with FakeOpenAI() as server:
        server.push(Reply.error(429, retry_after="2"), "Paris [1]")
        llm = OpenAILLM(server.base_url, "fake-model", "sk-test")
        ...
        assert server.requests[-1].json["model"] == "fake-model"

`delay_s` (server-wide, or per `Reply`) holds each reply back, to test timeouts and
concurrency. A request with `"stream": true` gets server-sent events, one chunk per word,
`chunk_delay_s` apart (server-wide or per `Reply`), then `data: [DONE]`; `concurrency`
makes the server answer that many requests at a time (the rest wait, as a llama.cpp server
with one slot does). `/embeddings` answers with the hashed bag-of-words vectors of `HashEmbedder`,
so processes started by a test can embed without a model.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.local_server import LocalServer


@dataclass
class Reply:
    """One scripted answer: choices' contents (a string is repeated for every `n`), or an
    error status with optional headers (`Retry-After`) and body; held back `delay_s`."""

    content: str | list[str] | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: dict | None = None
    delay_s: float = 0.0
    chunk_delay_s: float = 0.0

    @classmethod
    def error(cls, status: int, retry_after: str | None = None, message: str = "") -> Reply:
        """An OpenAI-style error reply."""
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        text = message or f"fake error {status}"
        return cls(status=status, headers=headers, body={"error": {"message": text}})


@dataclass
class Recorded:
    """A request the server received (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    json: dict | None
    at: float


Responder = Callable[[dict], "str | list[str] | Reply"]


class FakeOpenAI(LocalServer):
    """The fake server. Start with `start()` or a `with` block; stop with `stop()`."""

    def __init__(
        self,
        responder: Responder | None = None,
        delay_s: float = 0.0,
        model: str = "fake-model",
        api_key: str | None = None,
        models: set[str] | None = None,
        chunk_delay_s: float = 0.0,
        concurrency: int = 0,
    ):
        self.responder: Responder = responder or (lambda request: "ok")
        self.delay_s = delay_s
        self.model = model
        self.api_key = api_key
        """When set, requests without `Authorization: Bearer API_KEY` get a 401."""
        self.models = models
        """When set, requests naming another model get a 404 `model_not_found`."""
        self.chunk_delay_s = chunk_delay_s
        self.slots = threading.Semaphore(concurrency) if concurrency > 0 else None
        """When set, requests beyond `concurrency` wait for a free slot before any reply."""
        self.requests: list[Recorded] = []
        self._script: deque[str | list[str] | Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.in_flight = 0
        self.max_in_flight = 0

    # ------------------------------------------------------------------ control
    def push(self, *replies: str | list[str] | Reply) -> None:
        """Queue replies for the next requests, in order."""
        with self._lock:
            self._script.extend(replies)

    @property
    def base_url(self) -> str:
        """The `/v1` base URL to give an OpenAI client."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_requests(self) -> list[Recorded]:
        """The recorded chat-completion requests."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        """The request handler, bound to this fake."""
        return type("Handler", (_Handler,), {"fake": self})

    def stop(self) -> None:
        """Stop serving; delayed replies still pending are cut short."""
        self._stopping.set()
        super().stop()

    # ------------------------------------------------------------------ serving
    def _next_reply(self, request: dict) -> Reply:
        with self._lock:
            scripted = self._script.popleft() if self._script else None
        reply = scripted if scripted is not None else self.responder(request)
        return reply if isinstance(reply, Reply) else Reply(content=reply)

    def _completion(self, request: dict, reply: Reply) -> dict:
        n = int(request.get("n") or 1)
        content = reply.content if reply.content is not None else ""
        texts = [content] * n if isinstance(content, str) else list(content)
        return {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", self.model),
            "choices": [
                {
                    "index": i,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
                for i, text in enumerate(texts)
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        self._record(None)
        if self.path.rstrip("/").endswith("/models"):
            self._send(
                200, {"object": "list", "data": [{"id": self.fake.model, "object": "model"}]}
            )
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = None
        self._record(body)
        fake = self.fake
        if fake.api_key and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
            message = {"message": "Incorrect API key provided", "code": "invalid_api_key"}
            self._send(401, {"error": message})
            return
        model = (body or {}).get("model")
        if fake.models is not None and model not in fake.models:
            message = {"message": f"The model `{model}` does not exist", "code": "model_not_found"}
            self._send(404, {"error": message})
            return
        if self.path.rstrip("/").endswith("/embeddings") and body is not None:
            texts = body.get("input") or []
            texts = [texts] if isinstance(texts, str) else texts
            vectors = HashEmbedder().embed(texts)
            data = [
                {"object": "embedding", "index": i, "embedding": v.tolist()}
                for i, v in enumerate(vectors)
            ]
            self._send(200, {"object": "list", "data": data, "model": body.get("model")})
            return
        if not self.path.rstrip("/").endswith("/chat/completions") or body is None:
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        if fake.slots is not None:
            fake.slots.acquire()
        with fake._lock:
            fake.in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
        try:
            reply = fake._next_reply(body)
            delay = reply.delay_s or fake.delay_s
            if delay and fake._stopping.wait(delay):
                return
            if reply.status != 200:
                payload = reply.body or {"error": {"message": f"error {reply.status}"}}
                self._send(reply.status, payload, reply.headers)
            elif body.get("stream"):
                self._send_stream(fake._completion(body, reply), reply)
            else:
                self._send(200, fake._completion(body, reply), reply.headers)
        finally:
            with fake._lock:
                fake.in_flight -= 1
            if fake.slots is not None:
                fake.slots.release()

    def _send_stream(self, completion: dict, reply: Reply) -> None:
        """The completion as server-sent events: a chunk per word of each choice."""
        pause = reply.chunk_delay_s or self.fake.chunk_delay_s
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for choice in completion["choices"]:
                words = re.findall(r"\s*\S+\s*", choice["message"]["content"]) or [""]
                for word in words:
                    chunk = {
                        "id": completion["id"],
                        "object": "chat.completion.chunk",
                        "created": completion["created"],
                        "model": completion["model"],
                        "choices": [{"index": choice["index"], "delta": {"content": word}}],
                    }
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    if pause and self.fake._stopping.wait(pause):
                        return
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            pass

    def _record(self, body: dict | None) -> None:
        headers = {name.lower(): value for name, value in self.headers.items()}
        entry = Recorded(self.command, self.path, headers, body, time.time())
        with self.fake._lock:
            self.fake.requests.append(entry)

    def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            pass
