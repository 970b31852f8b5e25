"""Attribution sensitivity (CAS) and bias (CAB) on synthetic cases whose cause is known."""

from __future__ import annotations

import random

import pytest

from core.attribution import attribute
from core.evaluation.attribution import baseline_explanation, evidence_shares
from core.evaluation.benchmark import Question
from core.evaluation.sensitivity import (
    answer_words,
    counterfeit,
    edit_source,
    make_trial,
    run_sensitivity,
    summarize_sensitivity,
)
from core.extractive import ExtractiveLLM
from core.settings import Settings
from tests.fakes.evidence import make_evidence
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.tiny_wiki import build_wiki

QUESTION = "How tall is the Eiffel tower?"
FILLER = [
    "The metro runs until one in the morning.",
    "Bordeaux produces red wine.",
    "The Louvre is the most visited museum.",
    "Croissants are eaten for breakfast.",
    "The Seine flows through the city.",
]


def evidences():
    texts = [FILLER[0], "The Eiffel tower is 330 metres tall.", *FILLER[1:]]
    return [make_evidence(n, text, "Paris") for n, text in enumerate(texts, start=1)]


@pytest.mark.parametrize("word", ["1.14.0", "Green", "Dickon", "x86"])
def test_counterfeit_is_a_stable_stand_in(word):
    fake = counterfeit(word)
    assert fake != word and fake == counterfeit(word)
    assert fake[:1].isupper() == word[:1].isupper()
    assert sum(c.isdigit() for c in fake) == sum(c.isdigit() for c in word)
    assert counterfeit("1.14.0") == "6.69.5"


def test_edit_source_replaces_whole_words_only():
    text, fakes = edit_source("Green is not greenish; GREEN.", ["green"])
    fake = counterfeit("green")
    assert fakes == [fake] and text == f"{fake} is not greenish; {fake}."


def test_answer_words_are_those_the_question_does_not_say():
    answer = "330 metres [2]\nRelated: The Eiffel tower is 330 metres tall. [2]"
    assert answer_words(answer, QUESTION, evidences()[1].text) == ["330", "metres"]


def test_a_trial_moves_the_cause_and_the_answer_follows_it():
    llm = ExtractiveLLM()
    original = llm.complete(_messages(evidences()))[0]
    assert original == "The Eiffel tower is 330 metres tall. [2]"
    trial = make_trial(llm, QUESTION, evidences(), original, random.Random(3))
    assert trial is not None and trial.valid
    cause = trial.evidences[trial.target - 1]
    assert counterfeit("330") in cause.text and "330" not in " ".join(
        e.text for e in trial.evidences
    )
    fake = f"{counterfeit('330')} {counterfeit('metres')}"
    assert trial.answer == f"The Eiffel tower is {fake} tall. [{trial.target}]"


def _messages(items):
    from core.answer import build_messages

    return build_messages(QUESTION, items)


@pytest.mark.parametrize("seed", range(6))
def test_counterfactual_attribution_follows_the_cause(seed, tmp_path):
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path)})
    llm = ExtractiveLLM()
    original = llm.complete(_messages(evidences()))[0]
    trial = make_trial(llm, QUESTION, evidences(), original, random.Random(seed))
    count = len(trial.evidences)
    shares = {}
    for method in ("counterfactual", "citation"):
        explanation = attribute(
            method, settings, llm, HashEmbedder(), QUESTION, trial.evidences, trial.answer
        )
        shares[method] = evidence_shares(explanation, count)
    for name in ("first", "uniform"):
        shares[name] = evidence_shares(baseline_explanation(name, QUESTION, "a", count), count)
    assert shares["counterfactual"][trial.target - 1] == pytest.approx(1.0)
    assert shares["citation"][trial.target - 1] == pytest.approx(1.0)
    assert shares["uniform"] == pytest.approx([1 / count] * count)
    assert shares["first"][trial.target - 1] == (1.0 if trial.target == 1 else 0.0)


def test_summary_of_known_shares():
    records = [
        {"early": True, "long": True, "m_share": 1.0, "m_top": 1.0},
        {"early": True, "long": False, "m_share": 0.5, "m_top": 1.0},
        {"early": False, "long": False, "m_share": 0.0, "m_top": 0.0},
        {"early": False, "long": True, "m_share": 0.5, "m_top": 0.0},
    ]
    records.append({"valid": False})
    for baseline in ("first", "uniform"):
        for r in records[:4]:
            r[f"{baseline}_share"] = 0.25
            r[f"{baseline}_top"] = 0.0
    figures = summarize_sensitivity(records, ["m"])
    assert figures["m"] == {
        "cas": 0.5,
        "cas_at_1": 0.5,
        "cab_position": 0.5,  # 0.75 early - 0.25 late
        "cab_length": 0.5,  # 0.75 long - 0.25 short
        "n": 4,
        "tried": 5,
    }
    assert figures["uniform"]["cab_position"] == 0.0


def test_run_sensitivity_on_the_tiny_wiki(tmp_path):
    settings, index, retriever = build_wiki(tmp_path)
    items = [
        Question("c1", str(i), "en", text, frozenset(), "", "table", "simple")
        for i, text in enumerate(
            [
                "Which TPM version had the Dell Optiplex 7040?",
                "What BIOS had the Dell Optiplex 9010?",
                "Which Xen version ran with the Ubuntu 3.13 Kernel?",
            ]
        )
    ]
    llm = ExtractiveLLM()
    methods = ("counterfactual", "naive", "citation")
    records = run_sensitivity(retriever, llm, retriever.embedder, settings, items, methods)
    assert records and all(1 <= r["target"] <= 10 for r in records)
    assert any(r["valid"] for r in records)
    figures = summarize_sensitivity(records, methods)
    assert figures["counterfactual"]["cas"] >= 0.9
    assert figures["counterfactual"]["cas"] > figures["first"]["cas"]
    assert set(figures) == {*methods, "first", "uniform"}
