"""The evidence self-check (`core.selfcheck`): which evidences the answer is given, offline
and with a model behind the scripted OpenAI-compatible server, and that the assistant's
trace and Explain see exactly those evidences."""

from __future__ import annotations

import logging
import random

import pytest

from core.answer import JUDGMENT_PROMPT, generate, parse_prompt
from core.attribution import prompt_evidences
from core.extractive import ExtractiveLLM
from core.llm import OpenAILLM
from core.selfcheck import kept_positions, parse_judgment, self_check
from tests.fakes.evidence import make_evidence
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.tiny_wiki import Wiki, build_wiki
from tests.test_explain import KEY, QUESTION, assistant_with

BIOS = make_evidence(1, "The Dell Optiplex 7040 runs BIOS version 1.14.0.", "Dell Optiplex 7040")
CANTEEN = make_evidence(2, "The canteen opens at noon and serves soup.", "Canteen")
CHIPSET = make_evidence(3, "The Dell Optiplex 7040 uses the Intel Q170 chipset.", "Dell 7040")


def test_an_unhelpful_evidence_is_dropped_and_a_helpful_one_kept():
    check = self_check(ExtractiveLLM({"en": 0.2}), QUESTION, [CANTEEN, BIOS], 0.0)
    assert check.kept == [1] and check.judge == "extractive"
    assert check.scores[0] < 0.2 <= check.scores[1]


def test_the_floor_is_the_answerers_decline_threshold_of_the_questions_language():
    german = "Welche BIOS Version läuft auf dem Dell Optiplex 7040 im Labor?"
    support = self_check(ExtractiveLLM(), german, [BIOS], 0.0).scores[0]
    assert 0 < support < 1
    strict_german = ExtractiveLLM({"en": 0.0, "de": support + 0.01})
    lenient_german = ExtractiveLLM({"en": 1.0, "de": support})
    assert self_check(strict_german, german, [BIOS], 0.0).kept == []
    assert self_check(lenient_german, german, [BIOS], 0.0).kept == [0]
    # Whatever it keeps, the answerer answers from it: the check never adds a decline.
    (answer,) = generate(lenient_german, german, [BIOS])
    assert not answer.out_of_scope and "1.14.0" in answer.text


def test_nothing_dropped_leaves_the_answer_unchanged():
    llm = ExtractiveLLM()
    evidences = [BIOS, CHIPSET]
    check = self_check(llm, QUESTION, evidences, 0.0)
    assert check.kept == [0, 1]
    kept = [evidences[i] for i in check.kept]
    (before,) = generate(llm, QUESTION, evidences)
    (after,) = generate(llm, QUESTION, kept)
    assert after.text == before.text and after.messages == before.messages


def test_when_no_evidence_helps_the_answer_declines_as_it_would_without_the_check():
    llm = ExtractiveLLM({"en": 0.2})
    check = self_check(llm, QUESTION, [CANTEEN], 0.0)
    assert check.kept == []
    (answer,) = generate(llm, QUESTION, [])
    assert answer.out_of_scope and answer.citations == []
    (unchecked,) = generate(llm, QUESTION, [CANTEEN])
    assert unchecked.out_of_scope


def test_a_ratio_keeps_only_evidences_close_to_the_best():
    assert kept_positions([0.9, 0.5, 0.0, 0.8], 0.0, 0.85) == [0, 3]
    assert kept_positions([0.9, 0.5, 0.0, 0.8], 0.6, 0.0) == [0, 3]
    assert kept_positions([0.9, 0.5, 0.0, 0.8], 0.0, 0.0) == [0, 1, 3]
    assert kept_positions([], 0.3, 0.5) == []


@pytest.mark.parametrize(
    ("reply", "count", "expected"),
    [
        ("1: yes\n2: no\n3: YES", 3, [1.0, 0.0, 1.0]),
        ("[1]: no\n[2] - yes", 2, [0.0, 1.0]),
        ("1. yes\n2) no", 2, [1.0, 0.0]),
        ("1: yes", 2, None),  # a source not judged
        ("1: yes\n1: no\n2: yes", 2, None),  # judged twice
        ("1: yes\n2: no\n3: yes", 2, None),  # no source 3
        ("Source 1 helps, source 2 does not.", 2, None),
        ("", 1, None),
    ],
)
def test_parse_judgment(reply, count, expected):
    assert parse_judgment(reply, count) == expected


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def model(server: FakeOpenAI) -> OpenAILLM:
    return OpenAILLM(server.base_url, "fake-model", "sk-test", rng=random.Random(0))


BIOS_COPY = make_evidence(4, "The Dell Optiplex 7040 runs BIOS version 1.14.0 (copy).", "Copy")


def test_a_helpful_evidence_that_repeats_a_better_ranked_one_is_left_out():
    """A copy on another page helps as much as its original, but adds nothing: it leaves
    the sources, and so the citations. Another fact about the same subject stays."""
    llm = ExtractiveLLM({"en": 0.2})
    evidences = [BIOS, BIOS_COPY, CHIPSET]
    check = self_check(llm, QUESTION, evidences, 0.0)
    assert check.kept == [0, 2] and check.scores[1] >= 0.2
    (answer,) = generate(llm, QUESTION, [evidences[i] for i in check.kept])
    assert "1.14.0" in answer.text and BIOS_COPY.url not in {c.url for c in answer.citations}


def test_the_model_judges_all_evidences_in_one_call(server):
    server.push("1: no\n2: yes\n3: yes")
    check = self_check(model(server), QUESTION, [CANTEEN, BIOS, CHIPSET], 0.9)
    assert check.kept == [1, 2] and check.judge == "llm"
    (request,) = server.chat_requests
    system, user = request.json["messages"]
    assert system["content"] == JUDGMENT_PROMPT
    question, sources = parse_prompt([user])
    assert question == QUESTION and [s.number for s in sources] == [1, 2, 3]
    assert "canteen opens at noon" in sources[0].text


def test_a_repeated_source_the_model_judged_helpful_is_left_out_too(server):
    server.push("1: yes\n2: yes\n3: yes")
    check = self_check(model(server), QUESTION, [BIOS, BIOS_COPY, CHIPSET], 0.0)
    assert check.kept == [0, 2] and check.judge == "llm"


def test_a_malformed_judgment_keeps_every_evidence_and_is_logged(server, caplog):
    server.push("Both look relevant to me.")
    with caplog.at_level(logging.WARNING, logger="core.selfcheck"):
        check = self_check(model(server), QUESTION, [CANTEEN, BIOS], 0.0)
    assert check.kept == [0, 1] and check.judge == "malformed"
    assert "malformed" in caplog.text and len(server.chat_requests) == 1


@pytest.fixture(scope="module")
def wiki(tmp_path_factory) -> Wiki:
    return build_wiki(tmp_path_factory.mktemp("wiki"))


def test_the_assistant_answers_from_the_evidences_the_model_kept(wiki, tmp_path, server):
    retrieved = len(wiki[2].search(QUESTION).results)
    assert retrieved > 1
    judgment = "1: yes" + "".join(f"\n{n}: no" for n in range(2, retrieved + 1))
    server.push(judgment, "BIOS 1.14.0 [1]")
    assistant = assistant_with(wiki, tmp_path, model(server), self_check=True)
    turn = assistant.ask(KEY, QUESTION)
    judge, answer = server.chat_requests
    assert judge.json["messages"][0]["content"] == JUDGMENT_PROMPT
    _, sources = parse_prompt(answer.json["messages"])
    assert len(sources) == 1 and len(turn.evidences) == 1
    assert turn.citations[0].evidence_id == turn.evidences[0].evidence.id
    record = assistant.turn_record(turn.id)
    assert record.messages["self_check"]["kept"] == [0]
    assert [e["id"] for e in record.evidences] == [turn.evidences[0].evidence.id]


def test_explain_attributes_over_the_evidences_the_answer_was_given(wiki, tmp_path):
    (tmp_path / "off").mkdir()
    (tmp_path / "on").mkdir()
    plain = assistant_with(wiki, tmp_path / "off", ExtractiveLLM())
    checked = assistant_with(wiki, tmp_path / "on", ExtractiveLLM({"en": 0.3}), self_check=True)
    everything = plain.ask(KEY, QUESTION)
    turn = checked.ask(KEY, QUESTION)
    assert 0 < len(turn.evidences) < len(everything.evidences)
    assert "1.14.0" in turn.answer
    record = checked.turn_record(turn.id)
    _, evidences, numbers = prompt_evidences(record.messages["answer"], record.evidences)
    assert [e.id for e in evidences] == [r.evidence.id for r in turn.evidences]
    explanation = checked.explain(turn.id)
    attributed = {n for c in explanation.clusters for n in c.evidences}
    assert attributed == set(range(1, len(turn.evidences) + 1)) == set(numbers)
    top = explanation.top_evidence()
    assert turn.evidences[top - 1].evidence.page_id == "102"


def test_when_the_check_drops_everything_the_decline_keeps_the_closest_pages(wiki, tmp_path):
    assistant = assistant_with(wiki, tmp_path, ExtractiveLLM({"en": 1.01}), self_check=True)
    turn = assistant.ask(KEY, QUESTION)
    assert turn.out_of_scope and turn.citations == []
    assert turn.evidences and turn.messages["self_check"]["kept"] == []
    _, sources = parse_prompt(turn.messages["answer"])
    assert sources == []


def records(precision: float, f1: float) -> list[dict]:
    return [
        {"conv_id": f"c{i}", "citation_precision": precision, "f1": f1, "answerable": True}
        for i in range(10)
    ]


def test_cross_validation_takes_the_most_precise_thresholds_that_keep_f1():
    from core.evaluation.selfcheck import choose

    outcomes = {
        None: records(0.8, 0.30),
        1.0: records(1.0, 0.29),  # more precise, but F1 lower: never chosen
        0.7: records(0.9, 0.30),
        0.0: records(0.85, 0.31),
    }
    choice = choose(outcomes, k=5)
    assert choice.chosen == [0.7] * 5
    assert {r["citation_precision"] for r in choice.records} == {0.9}
    outcomes[0.7] = records(0.9, 0.2)
    outcomes[0.0] = records(0.8, 0.2)
    assert choose(outcomes, k=5).chosen == [None] * 5  # nothing keeps F1: the check stays off


def test_the_self_check_eval_scores_citation_precision_on_the_tiny_wiki(wiki):
    from bot.evaluation.selfcheck import figures
    from core.evaluation.answers import retrieve_all
    from core.evaluation.benchmark import Question
    from core.evaluation.selfcheck import answer_with_self_check

    _, _, retriever = wiki
    items = [
        Question("c1", "1", "en", QUESTION, frozenset({"102"}), "1.14.0", "table", "simple"),
        Question(
            "c2",
            "1",
            "en",
            "Who won the 1998 World Cup?",
            frozenset({"101"}),
            "France",
            "text",
            "simple",
        ),
    ]
    retrieved = retrieve_all(retriever, items)
    llm = ExtractiveLLM()
    off = answer_with_self_check(llm, items, retrieved, None)
    strict = answer_with_self_check(ExtractiveLLM({"en": 1.01}), items, retrieved, 0.0)
    assert off[0]["citation_precision"] > 0 and off[0]["kept"] == len(retrieved[0])
    assert [r["kept"] for r in strict] == [0, 0] and all(r["declined"] for r in strict)
    assert [r["citation_precision"] for r in strict] == [None, None]
    row = figures(off)
    assert row["citation_precision"] == pytest.approx(
        sum(r["citation_precision"] or 0 for r in off)
        / sum(r["citation_precision"] is not None for r in off)
    )
    assert figures(strict)["declined"] == 1.0
