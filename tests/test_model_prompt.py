"""The answer prompt as a model reads it (`core.model_prompt`): rows as tables with their
header, and no more sources than the context window holds."""

from __future__ import annotations

import pytest

from core.answer import build_judgment_messages, build_messages, parse_prompt
from core.combine import CheckedLLM
from core.llm import OpenAILLM
from core.model_prompt import for_model, source_for_model
from tests.fakes.evidence import make_evidence
from tests.fakes.openai_server import FakeOpenAI

TABLE = (
    "Table 1: Week, Team, Secondary\n"
    "Row 1 in Table 1: Week is Week 1, Team is Payments, and Secondary is Max Weber\n"
    "Row 2 in Table 1: Week is Week 2, Team is Payments, and Secondary is Sophie Brandt"
)
ROW = "Row 2 in Table 1: Week is Week 2, Team is Payments, and Secondary is Sophie Brandt"
QUESTION = "Who is the secondary on-call for Payments in week 2?"
EVIDENCES = [
    make_evidence(1, ROW, "On-call rotation"),
    make_evidence(2, TABLE, "On-call rotation"),
    make_evidence(3, "Escalate to the team lead after 30 minutes. " * 40, "Escalation"),
]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            ROW,
            "| Week | Team | Secondary |\n| --- | --- | --- |\n"
            "| Week 2 | Payments | Sophie Brandt |",
        ),
        (
            TABLE,
            "| Week | Team | Secondary |\n| --- | --- | --- |\n| Week 1 | Payments | Max Weber |\n"
            "| Week 2 | Payments | Sophie Brandt |",
        ),
        ("Escalate after 30 minutes.", "Escalate after 30 minutes."),
        ("- first item\n- second item", "- first item\n- second item"),
    ],
)
def test_sources_as_the_page_shows_them(text, expected):
    assert source_for_model(text) == expected


def test_the_rewritten_prompt_keeps_question_numbers_and_headers():
    sent = for_model(build_messages(QUESTION, EVIDENCES))
    question, sources = parse_prompt(sent)
    assert question == QUESTION and [s.number for s in sources] == [1, 2, 3]
    assert [s.header for s in sources] == ["On-call rotation"] * 2 + ["Escalation"]
    assert "Row 2 in Table 1" not in sent[-1]["content"]
    assert sent[0] == build_messages(QUESTION, EVIDENCES)[0]  # the system prompt


def test_a_context_budget_leaves_out_the_lowest_ranked_sources():
    messages = build_messages(QUESTION, EVIDENCES)
    whole = for_model(messages, 0)
    cut = for_model(messages, 1000)  # the long third source does not fit
    assert [s.number for s in parse_prompt(cut)[1]] == [1, 2]
    assert len(cut[-1]["content"]) < len(whole[-1]["content"])
    tiny = for_model(messages, 1)  # the best source is always sent
    assert [s.number for s in parse_prompt(tiny)[1]] == [1]


def test_other_prompts_are_left_alone():
    judgment = build_judgment_messages(QUESTION, EVIDENCES)
    assert for_model(build_messages(QUESTION, [])) == build_messages(QUESTION, [])
    assert for_model([{"role": "user", "content": "hi"}]) == [{"role": "user", "content": "hi"}]
    with FakeOpenAI() as server:
        llm = CheckedLLM(OpenAILLM(server.base_url, "m", "k", max_retries=0))
        llm.complete(judgment)
        assert server.chat_requests[0].json["messages"] == judgment


def test_the_model_gets_tables_and_the_check_reads_the_prompt_as_built():
    with FakeOpenAI() as server:
        server.push("Sophie Brandt is the secondary for Payments in week 2 [1].")
        llm = CheckedLLM(OpenAILLM(server.base_url, "m", "k", max_retries=0), None, "grounded")
        (text,) = llm.complete(build_messages(QUESTION, EVIDENCES))
        sent = server.chat_requests[0].json["messages"][-1]["content"]
    assert "| Week 2 | Payments | Sophie Brandt |" in sent and "Row 2 in Table 1" not in sent
    assert text == "Sophie Brandt is the secondary for Payments in week 2 [1]."
