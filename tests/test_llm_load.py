"""The LLM client against slow and one-at-a-time servers: streamed replies with a
first-token timeout, at most one retry after a timeout, and a cap on requests in flight per
endpoint that Explain's regenerations queue behind (issue 35: a CPU llama.cpp server)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from core.answer import OUT_OF_SCOPE
from core.attribution import counterfactual_attribution
from core.llm import TIMEOUT_RETRIES, LLMUnavailable, OpenAILLM, endpoint_slots
from tests.fakes.evidence import make_evidence
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.openai_server import FakeOpenAI, Reply

MESSAGES = [{"role": "user", "content": "x"}]


def client(server: FakeOpenAI, **kwargs) -> OpenAILLM:
    kwargs.setdefault("max_retries", 4)
    return OpenAILLM(server.base_url, "m", "k", sleep=lambda s: None, **kwargs)


def test_a_streamed_reply_is_joined():
    with FakeOpenAI() as server:
        server.push("Sophie Brandt is on call [2].", ["one two", "three"])
        llm = client(server, first_token_timeout=5.0)
        assert llm.complete(MESSAGES) == ["Sophie Brandt is on call [2]."]
        assert llm.complete(MESSAGES, n=2) == ["one two", "three"]
        assert all(r.json["stream"] is True for r in server.chat_requests)


def test_a_slow_but_steady_stream_outlives_the_first_token_timeout():
    """Twenty chunks 0.05 s apart take 1 s, past the 0.3 s first-token timeout: a server
    that keeps sending is not cut off."""
    with FakeOpenAI(chunk_delay_s=0.05) as server:
        server.push(" ".join(f"w{i}" for i in range(20)))
        llm = client(server, first_token_timeout=0.3, timeout=10.0)
        assert llm.complete(MESSAGES)[0].split() == [f"w{i}" for i in range(20)]
        assert len(server.chat_requests) == 1


def test_no_first_token_in_time_is_a_timeout_retried_once():
    with FakeOpenAI(delay_s=1.0) as server:
        llm = client(server, first_token_timeout=0.2, timeout=10.0)
        with pytest.raises(LLMUnavailable, match="timed out") as info:
            llm.complete(MESSAGES)
        assert len(server.chat_requests) == 1 + TIMEOUT_RETRIES == 2
        assert "2 attempt" in str(info.value)


def test_a_stream_past_the_total_timeout_is_abandoned():
    with FakeOpenAI(chunk_delay_s=0.1) as server:
        server.push(*[" ".join(["w"] * 30)] * 2)
        llm = client(server, first_token_timeout=1.0, timeout=0.5)
        with pytest.raises(LLMUnavailable, match="no complete reply within 0.5 s"):
            llm.complete(MESSAGES)
        assert len(server.chat_requests) == 2


@pytest.mark.parametrize("first_token_timeout", [0.0, 0.2])
def test_a_timeout_causes_at_most_one_retry(first_token_timeout):
    """Even with four retries allowed, a second timeout ends the request; other errors
    before it are still retried."""
    with FakeOpenAI() as server:
        server.push(Reply.error(503), Reply(delay_s=1.0), Reply(delay_s=1.0), "never sent")
        llm = client(server, timeout=0.2, first_token_timeout=first_token_timeout)
        with pytest.raises(LLMUnavailable, match="timed out"):
            llm.complete(MESSAGES)
        assert len(server.chat_requests) == 3


def test_a_timeout_then_an_answer():
    with FakeOpenAI() as server:
        server.push(Reply(delay_s=1.0), "late but fine")
        llm = client(server, timeout=0.2)
        assert llm.complete(MESSAGES) == ["late but fine"]
        assert len(server.chat_requests) == 2


def test_requests_to_one_endpoint_queue_behind_its_cap():
    """Eight threads, cap 2: never more than two requests in flight, all eight answered,
    clients of the same endpoint sharing one queue."""
    with FakeOpenAI(delay_s=0.05) as server:
        first, second = client(server, concurrency=2), client(server, concurrency=2)
        with ThreadPoolExecutor(8) as pool:
            replies = list(pool.map(lambda i: (first, second)[i % 2].complete(MESSAGES), range(8)))
        assert replies == [["ok"]] * 8 and server.max_in_flight == 2
    assert endpoint_slots("http://a/v1", 0) is None
    assert endpoint_slots("http://a/v1", 3) is endpoint_slots("http://a/v1", 3)


CAUSE = "Paris is the capital of France."


def test_explain_against_a_one_at_a_time_server_has_no_timeouts():
    """Ten counterfactual regenerations sent at once (16 workers) to a server that answers
    one request at a time, 0.15 s each, with a 0.6 s timeout: without the cap most would time
    out waiting in the server's queue; with `concurrency=1` they wait in the client's, and
    each is sent once."""
    evidences = [make_evidence(1, CAUSE)] + [
        make_evidence(i, f"Filler sentence number {i} about castles.") for i in range(2, 11)
    ]

    def responder(request):
        user = request["messages"][-1]["content"]
        return Reply(content=CAUSE if CAUSE in user else OUT_OF_SCOPE, delay_s=0.15)

    with FakeOpenAI(responder, concurrency=1) as server:
        llm = OpenAILLM(server.base_url, "m", "k", timeout=0.6, max_retries=1, concurrency=1)
        out = counterfactual_attribution(
            llm, HashEmbedder(), "What is the capital of France?", evidences, CAUSE, workers=16
        )
        requests = server.chat_requests
    assert len(requests) == 10 and server.max_in_flight == 1
    assert out.top_evidence() == 1


def test_a_stream_is_not_retried_once_text_was_shown():
    """A reply cut off past the total timeout after its first words is not asked again: the
    reader has seen its start."""
    with FakeOpenAI(chunk_delay_s=0.1) as server:
        server.push(" ".join(["word"] * 30), "never asked")
        llm = client(server, first_token_timeout=1.0, timeout=0.5)
        pieces: list[str] = []
        with pytest.raises(LLMUnavailable):
            llm.stream(MESSAGES, pieces.append)
        assert pieces and len(server.chat_requests) == 1
