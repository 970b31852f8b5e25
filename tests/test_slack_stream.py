"""A model's answer in Slack, shown while it is written: posted when the sources are known,
then edited (`chat.update`) at most once a second, then edited into the full answer; the
real `WebClient` against the fake Slack Web API, nothing patched."""

from __future__ import annotations

import pytest
from slack_sdk import WebClient

from bot.slack_requests import LLM_FAILED
from bot.slack_stream import LiveAnswer
from core.combine import CheckedLLM
from core.extractive import ExtractiveLLM
from core.llm import OpenAILLM
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.slack_api_server import FakeSlack
from tests.test_slack import make_bot, mention


@pytest.fixture
def slack():
    with FakeSlack() as fake:
        yield fake


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def methods(slack: FakeSlack) -> list[str]:
    return [c.method for c in slack.calls if c.method.startswith("chat.")]


def test_edits_are_throttled_to_one_a_second_and_the_last_is_never_skipped(slack):
    clock = Clock()
    live = LiveAnswer(
        WebClient(token="xoxb-test", base_url=slack.base_url), "C1", "1.0", 1.0, clock
    )
    live.sources(["Bats", "Bats", "Xen <GPU>", "Measurement", "Fourth"])
    for piece in ["BATS", " stands", " for", " Bash", " Automated"]:
        clock.now += 0.5
        live.text(piece)
    ts = live.finish(text="BATS stands for Bash Automated Testing System [1].", blocks=[])
    calls = [c for c in slack.calls if c.method.startswith("chat.")]
    assert [c.method for c in calls] == [
        "chat.postMessage",  # the sources, at once
        "chat.update",  # 0.5 s later: none; 1.0 s: "BATS stands"
        "chat.update",  # 1.5 s: none; 2.0 s: "... Bash"; 2.5 s: none
        "chat.update",  # the final message
    ]
    assert calls[0].params["text"] == "Reading: Bats, Xen &lt;GPU&gt;, Measurement …"
    assert calls[0].params["thread_ts"] == "1.0"
    assert calls[1].params["text"] == "BATS stands …"
    assert calls[2].params["text"] == "BATS stands for Bash …"
    assert calls[3].params["text"].endswith("Testing System [1].")
    assert {c.params["ts"] for c in calls[1:]} == {ts} == {calls[0].response["ts"]}


def test_nothing_shown_before_the_end_is_posted_once(slack):
    live = LiveAnswer(WebClient(token="xoxb-test", base_url=slack.base_url), "C1", "1.0")
    live.sources([])
    ts = live.finish(text="done")
    assert methods(slack) == ["chat.postMessage"] and ts == slack.calls[-1].response["ts"]


def test_a_model_answer_is_posted_then_edited_in_order(wiki, tmp_path, slack):
    """Through the whole app: the reply written a word every 0.15 s (about 3 s) reaches
    the thread as a post naming the pages, edits with the checked sentences, and the final
    edit with the answer's blocks; the 'made-up' sentence is never in any of them."""
    reply = (
        "BATS stands for Bash Automated Testing System [1]. It was invented by Ada Lovelace."
        " BATS is compliant with the Test Anything Protocol (TAP)."
    )
    with FakeOpenAI(lambda request: reply, chunk_delay_s=0.15) as chat:
        model = OpenAILLM(chat.base_url, "m", "k", max_retries=0, first_token_timeout=5.0)
        bot = make_bot(wiki, tmp_path, slack, CheckedLLM(model, ExtractiveLLM(), "grounded"))
        bot.deliver(mention("1700000000.000100", "What does BATS stand for?"), "Ev1")
        slack.wait_for("reactions.remove")
        bot.finish()
    calls = [c for c in slack.calls if c.method.startswith("chat.")]
    (post,) = [c for c in calls if c.method == "chat.postMessage"]
    edits = [c for c in calls if c.method == "chat.update"]
    assert calls[0] is post and post.params["text"].startswith("Reading: ")
    assert post.params["thread_ts"] == "1700000000.000100"
    assert len(edits) >= 2 and all(e.params["ts"] == post.response["ts"] for e in edits)
    writing = [e.params["text"] for e in edits[:-1]]
    assert writing[0].startswith("BATS stands for Bash Automated Testing System")
    grows = zip(writing, writing[1:], strict=False)
    assert all(b.startswith(a.removesuffix(" …")) for a, b in grows)
    assert "blocks" in edits[-1].params and "Test Anything Protocol" in edits[-1].params["text"]
    assert all("Lovelace" not in c.params.get("text", "") for c in calls)


def test_a_model_failing_after_the_post_turns_it_into_the_apology(wiki, tmp_path, slack):
    with FakeOpenAI(lambda request: Reply.error(500)) as chat:
        model = OpenAILLM(chat.base_url, "m", "k", max_retries=0, first_token_timeout=5.0)
        bot = make_bot(wiki, tmp_path, slack, CheckedLLM(model, ExtractiveLLM()))
        bot.deliver(mention("1700000000.000100", "What does BATS stand for?"), "Ev1")
        slack.wait_for("reactions.remove")
        bot.finish()
    assert methods(slack) == ["chat.postMessage", "chat.update"]
    assert slack.calls_to("chat.update")[0].params["text"] == LLM_FAILED
