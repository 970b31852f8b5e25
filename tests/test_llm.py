"""The LLM client: OpenAILLM against a real local chat-completions server."""

from __future__ import annotations

import logging
import random
import socket

import pytest

from core.llm import LLMError, LLMUnavailable, OpenAILLM, retry_after_seconds
from tests.fakes.openai_server import FakeOpenAI, Reply

KEY = "sk-test-secret-0123456789"


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


class Sleeps(list):
    """Records the waits instead of sleeping."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make(server: FakeOpenAI, **kwargs) -> tuple[OpenAILLM, Sleeps]:
    sleeps = Sleeps()
    kwargs.setdefault("max_retries", 3)
    llm = OpenAILLM(
        server.base_url, "fake-model", KEY, sleep=sleeps, rng=random.Random(0), **kwargs
    )
    return llm, sleeps


def test_sends_messages_model_and_key(server):
    server.push("Paris [1]")
    llm, _ = make(server)
    messages = [{"role": "user", "content": "Capital of France?"}]
    assert llm.complete(messages, temperature=0.0, max_tokens=50) == ["Paris [1]"]
    (request,) = server.chat_requests
    assert request.json["model"] == "fake-model"
    assert request.json["messages"] == messages
    assert request.json["temperature"] == 0.0
    assert request.json["max_tokens"] == 50
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_n_samples_in_one_request(server):
    server.push(["a", "b", "c"])
    llm, _ = make(server)
    assert llm.complete([{"role": "user", "content": "x"}], n=3, temperature=1.0) == [
        "a",
        "b",
        "c",
    ]
    assert server.chat_requests[0].json["n"] == 3


def test_endpoint_ignoring_n_is_asked_again(server):
    server.push(["a"], ["b", "c"])
    llm, _ = make(server)
    assert llm.complete([{"role": "user", "content": "x"}], n=3) == ["a", "b", "c"]
    assert [r.json["n"] for r in server.chat_requests] == [3, 2]


def test_429_honours_retry_after(server):
    server.push(Reply.error(429, retry_after="7"), "done")
    llm, sleeps = make(server)
    assert llm.complete([{"role": "user", "content": "x"}]) == ["done"]
    assert sleeps == [7.0]
    assert len(server.chat_requests) == 2


def test_retry_after_is_clamped(server):
    server.push(Reply.error(429, retry_after="3600"), "done")
    llm, sleeps = make(server, retry_after_cap=5.0)
    assert llm.complete([{"role": "user", "content": "x"}]) == ["done"]
    assert sleeps == [5.0]


def test_500_retried_with_growing_jittered_backoff(server):
    server.push(Reply.error(500), Reply.error(502), Reply.error(503), "finally")
    llm, sleeps = make(server, backoff_base=1.0, backoff_cap=100.0)
    assert llm.complete([{"role": "user", "content": "x"}]) == ["finally"]
    assert len(sleeps) == 3
    for attempt, wait in enumerate(sleeps):
        assert 0.0 <= wait <= 2.0**attempt


def test_gives_up_with_clear_message(server, caplog):
    server.push(*[Reply.error(500)] * 3)
    llm, sleeps = make(server, max_retries=2)
    with caplog.at_level(logging.DEBUG), pytest.raises(LLMUnavailable) as info:
        llm.complete([{"role": "user", "content": "x"}])
    message = str(info.value)
    assert server.base_url in message and "3 attempt" in message and "HTTP 500" in message
    assert len(server.chat_requests) == 3 and len(sleeps) == 2
    assert KEY not in message and KEY not in caplog.text


def test_client_errors_are_not_retried(server):
    server.push(Reply.error(400, message="context too long"))
    llm, sleeps = make(server)
    with pytest.raises(LLMError, match="context too long") as info:
        llm.complete([{"role": "user", "content": "x"}])
    assert not isinstance(info.value, LLMUnavailable)
    assert len(server.chat_requests) == 1 and sleeps == []


def test_timeout_is_retried_then_unavailable(server):
    server.delay_s = 2.0
    llm, sleeps = make(server, timeout=0.2, max_retries=1)
    with pytest.raises(LLMUnavailable, match="timed out"):
        llm.complete([{"role": "user", "content": "x"}])
    assert len(sleeps) == 1


def test_endpoint_down_names_it():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    llm = OpenAILLM(url, "m", KEY, max_retries=1, sleep=lambda s: None)
    with pytest.raises(LLMUnavailable, match="connection failed") as info:
        llm.complete([{"role": "user", "content": "x"}])
    assert url in str(info.value)


@pytest.mark.parametrize(
    "headers, expected",
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, 10.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_seconds(headers, expected):
    now = 1445412480.0  # 2015-10-21 07:28:00 UTC
    assert retry_after_seconds(headers, now=now) == expected
