"""Questions that ask two things (core.multipart): cut into asks only where the second ask
stands alone, and each ask answered by the offline answerer from the same sources."""

from __future__ import annotations

import pytest

from core.answer import OUT_OF_SCOPE, build_messages
from core.extractive import ExtractiveLLM
from core.multipart import joined_reply, separate_asks
from tests.test_extractive import ev


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        (
            "Which port does the VPN use, and what do I do if UDP is blocked on hotel Wi-Fi?",
            ["Which port does the VPN use?", "What do I do if UDP is blocked on hotel Wi-Fi?"],
        ),
        (
            "Welchen Port nutzt das VPN, und was mache ich, wenn UDP im Hotel blockiert ist?",
            ["Welchen Port nutzt das VPN?", "Was mache ich, wenn UDP im Hotel blockiert ist?"],
        ),
    ],
)
def test_two_asks_joined_by_a_comma_and_a_question_word_are_cut(question, asks):
    assert separate_asks(question) == asks


@pytest.mark.parametrize(
    "question",
    [
        "When is reception open in Bristol, and who runs it?",  # "it" leans on the first ask
        "Wie lange ist die Rezeption offen, und wer leitet sie?",
        "How many people attended the kickoff, and who?",  # too short to stand alone
        "What were the BIOS and the build versions of the Dell 7040?",  # one ask, two values
        "How many members will the board have? Will this be an odd number?",  # two sentences
    ],
)
def test_one_ask_or_an_ask_that_leans_on_the_first_stays_whole(question):
    assert separate_asks(question) == [question]


def ask(question: str, *texts: tuple[str, str]) -> str:
    sources = [ev(i, text, title=title) for i, (title, text) in enumerate(texts, start=1)]
    messages = build_messages(question, sources)
    return ExtractiveLLM().complete(messages)[0]


def test_each_ask_is_answered_from_its_own_source():
    reply = ask(
        "Which port does the VPN use, and what do I do if UDP is blocked on hotel Wi-Fi?",
        ("VPN endpoints", "The VPN uses WireGuard on UDP port 51820."),
        ("VPN help", "If UDP is blocked on hotel Wi-Fi, switch on the TCP 443 fallback."),
    )
    first, second = reply.split("\n")
    assert "51820" in first and "[1]" in first
    assert "443" in second and "[2]" in second


def test_an_ask_the_sources_do_not_answer_is_left_out_and_none_answered_declines():
    assert joined_reply(["A [1]", " "]) == "A [1]"
    reply = ask(
        "Which port does the VPN use, and what is the weather in Berlin tomorrow?",
        ("VPN endpoints", "The VPN uses WireGuard on UDP port 51820."),
    )
    assert "51820" in reply and "weather" not in reply.lower()
    assert ask("What is the weather in Rome, and who won the cup final in Madrid?") == OUT_OF_SCOPE
