"""The answer prompt and citation parsing."""

from __future__ import annotations

import dataclasses

import pytest

from core.answer import (
    OUT_OF_SCOPE,
    Citation,
    build_messages,
    cited_numbers,
    decline_message,
    generate,
    is_out_of_scope,
    parse_citations,
    parse_prompt,
    source_text,
    split_follow_ups,
)
from core.pages import Evidence
from tests.fakes.evidence import make_evidence
from tests.fakes.openai_server import FakeOpenAI


def ev(number: int, text: str = "text", title: str = "Title", heading: str = "") -> Evidence:
    return make_evidence(number, text, title, heading)


@pytest.mark.parametrize(
    "text, numbers",
    [
        ("Paris [1].", [1]),
        ("A [1, 3] and B [2]", [1, 3, 2]),
        ("A [1][2]", [1, 2]),
        ("A [1-3]", [1, 2, 3]),
        ("A [2–4]", [2, 3, 4]),
        ("A [1; 2]", [1, 2]),
        ("A [1 and 2]", [1, 2]),
        ("A [Source 2]", [2]),
        ("A [sources 1, 2]", [1, 2]),
        ("A [1] again [1]", [1]),
        ("A [ 2 ]", [2]),
        ("A [3-1]", []),
        ("No citations here", []),
        ("An array [a] or [1a] or [x, 1]", []),
        ("Huge [1-1000]", []),
    ],
)
def test_cited_numbers(text, numbers):
    assert cited_numbers(text) == numbers


def test_parse_citations_drops_numbers_not_given():
    evidences = [ev(1, title="One"), ev(2, title="Two")]
    assert parse_citations("x [2] y [3] z [0] [1]", evidences) == [
        Citation(2, "e2", "102", "Two", "https://wiki/pages/102/T"),
        Citation(1, "e1", "101", "One", "https://wiki/pages/101/T"),
    ]


def test_build_messages_numbers_sources_and_states_rules():
    evidences = [ev(1, "first\n\n\nline", "Page A", "Intro"), ev(2, "second", "Page B")]
    system, user = build_messages("What?", evidences)
    assert system["role"] == "system" and OUT_OF_SCOPE in system["content"]
    assert "[n]" in system["content"] or "[1]" in system["content"]
    assert user["role"] == "user"
    assert "[1] Page A — Intro\nfirst\nline" in user["content"]
    assert "[2] Page B\nsecond" in user["content"]
    assert user["content"].endswith("Question: What?")


def test_build_messages_is_pure():
    evidences = [ev(1), ev(2)]
    assert build_messages("q", evidences) == build_messages("q", list(evidences))


def test_parse_prompt_round_trip():
    evidences = [ev(1, "a [2] b\nc", "T1", "H"), ev(2, "Question: tricky", "T2")]
    question, sources = parse_prompt(build_messages("Why?\n\nReally?", evidences))
    assert question == "Why?\n\nReally?"
    assert [(s.number, s.header, s.text) for s in sources] == [
        (1, "T1 — H", "a [2] b\nc"),
        (2, "T2", "Question: tricky"),
    ]
    assert parse_prompt(build_messages("q", [])) == ("q", [])
    assert parse_prompt([{"role": "user", "content": "hello"}]) is None


@pytest.mark.parametrize(
    "text, expected",
    [
        (OUT_OF_SCOPE, True),
        ("the desired information cannot be found in the retrieved pool of evidence", True),
        (f"{OUT_OF_SCOPE} [1]", True),
        ("Paris [1]", False),
    ],
)
def test_is_out_of_scope(text, expected):
    assert is_out_of_scope(text) is expected


def test_generate_with_openai_llm_parses_citations():
    from core.llm import OpenAILLM

    evidences = [ev(1, "Paris is the capital."), ev(2, "Berlin is big.")]
    with FakeOpenAI() as server:
        server.push(["Paris [1].", OUT_OF_SCOPE])
        llm = OpenAILLM(server.base_url, "fake-model", "k", max_retries=0)
        first, second = generate(llm, "Capital of France?", evidences, n=2, temperature=0.7)
        sent = server.chat_requests[0].json
    assert sent["messages"] == first.messages == build_messages("Capital of France?", evidences)
    assert sent["n"] == 2 and sent["temperature"] == 0.7
    assert [c.evidence_id for c in first.citations] == ["e1"] and not first.out_of_scope
    assert second.out_of_scope and second.citations == [] and second.model == "fake-model"


@pytest.mark.parametrize(
    "reply, answer, questions",
    [
        ("Paris [1].", "Paris [1].", []),
        (
            "Paris [1].\n\nFollow-ups:\n- What is the capital of Spain?\n- Who founded Paris?",
            "Paris [1].",
            ["What is the capital of Spain?", "Who founded Paris?"],
        ),
        # markdown label, numbered items, citations and quotes in the items
        (
            'Paris [1].\n**Follow-up questions:**\n1. "How big is Paris?" [1]\n2) Why? [2]',
            "Paris [1].",
            ["How big is Paris?", "Why?"],
        ),
        # more than three: the first three; repeats and non-questions dropped
        (
            "A [1]\nFollow-ups:\n- One?\n- one?\n- none\n- Two?\n- Three?\n- Four?",
            "A [1]",
            ["One?", "Two?", "Three?"],
        ),
        # a label with nothing usable after it: cut off, no questions
        ("A [1]\nFollow-ups:\nNone.", "A [1]", []),
        ("A [1]\nFollow-ups:", "A [1]", []),
        # German questions, under the English or a translated label
        (
            "Im Portal [1].\nFollow-ups:\n- Wann verfällt der Resturlaub?",
            "Im Portal [1].",
            ["Wann verfällt der Resturlaub?"],
        ),
        (
            "Im Portal [1].\n\nFolgefragen:\n* Wer genehmigt den Antrag?",
            "Im Portal [1].",
            ["Wer genehmigt den Antrag?"],
        ),
        # the label and the questions on one line, then more on the next
        (
            "Paris [1].\nFollow-ups: How big is Paris? Who founded it? [1]\n- Is it old?",
            "Paris [1].",
            ["How big is Paris?", "Who founded it?", "Is it old?"],
        ),
        (
            "A [1]\n**Folgefragen:** Wer genehmigt den Antrag?",
            "A [1]",
            ["Wer genehmigt den Antrag?"],
        ),
        # a line that starts with the label but is a statement stays in the answer
        (
            "Follow-ups: the team reviews them weekly [1].",
            "Follow-ups: the team reviews them weekly [1].",
            [],
        ),
        # the label inside a sentence is not a block; a too-long line is not a question
        ("See the follow-ups: none [1]", "See the follow-ups: none [1]", []),
        ("A [1]\nFollow-ups:\n- " + "word " * 31 + "?", "A [1]", []),
    ],
)
def test_split_follow_ups(reply, answer, questions):
    assert split_follow_ups(reply) == (answer, questions)


def test_the_prompt_asks_for_follow_ups_and_generate_cuts_them_off():
    from core.llm import OpenAILLM

    evidences = [ev(1, "Paris is the capital."), ev(2, "Berlin is big.")]
    system, _ = build_messages("Capital of France?", evidences)
    assert "Follow-ups:" in system["content"]
    with FakeOpenAI() as server:
        server.push(
            "Paris [1].\nFollow-ups:\n- Is Berlin big? [2]", OUT_OF_SCOPE + "\nFollow-ups:\n- X?"
        )
        llm = OpenAILLM(server.base_url, "fake-model", "k", max_retries=0)
        (answer,) = generate(llm, "Capital of France?", evidences)
        (declined,) = generate(llm, "Capital of Mars?", evidences)
    assert answer.text == "Paris [1]." and answer.suggestions == ["Is Berlin big?"]
    assert [c.number for c in answer.citations] == [1]  # the block's [2] is not a citation
    assert declined.out_of_scope and declined.text == OUT_OF_SCOPE
    assert declined.suggestions == []


MEASURED = "The following items are measured:"
ITEMS_AFTER = "- Device firmware - BIOS configuration - grub2 bootloader and boot config file"


def test_a_source_that_announces_a_list_continues_with_the_list():
    evidence = dataclasses.replace(ev(1, f"TPM is required.\n{MEASURED}"), after=ITEMS_AFTER)
    assert source_text(evidence) == (
        f"TPM is required.\n{MEASURED}\n- Device firmware\n- BIOS configuration"
        "\n- grub2 bootloader and boot config file"
    )
    (message,) = [m for m in build_messages("What is measured?", [evidence]) if m["role"] == "user"]
    _, (source,) = parse_prompt([message])
    assert source.text.endswith("- grub2 bootloader and boot config file")


@pytest.mark.parametrize(
    "text, after",
    [
        ("TPM is required.", ITEMS_AFTER),  # announces nothing
        (MEASURED, "Device firmware and the BIOS configuration."),  # a passage follows
    ],
)
def test_other_sources_are_their_text_alone(text, after):
    assert source_text(dataclasses.replace(ev(1, text), after=after)) == text


@pytest.mark.parametrize(
    ("question", "titles", "expected"),
    [
        (
            "Capital of Mars?",
            ["Travel", "Offices"],
            "I couldn't find this in the wiki; closest pages: Travel; Offices.",
        ),
        ("Wie viele Urlaubstage?", [], "Das habe ich im Wiki nicht gefunden."),
        # a German follow-up stays German whatever English context it carries
        (
            "Und in Berlin? (context: what, is, the, hotel, limit)",
            ["Travel"],
            "Das habe ich im Wiki nicht gefunden; am nächsten kommen diese Seiten: Travel.",
        ),
    ],
)
def test_decline_message_follows_the_question_language(question, titles, expected):
    assert decline_message(question, titles) == expected
