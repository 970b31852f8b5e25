"""The attribution evaluation: per-question records and figures on the tiny wiki, and the
`confbot eval --attribution` option."""

from __future__ import annotations

import pytest

from bot.cli import build_parser
from bot.evaluation.attribution import table
from core.evaluation.attribution import citation_scores, report, run_attribution
from core.evaluation.benchmark import Question
from core.extractive import ExtractiveLLM
from tests.fakes.tiny_wiki import build_wiki


@pytest.mark.parametrize(
    "cited, gold, expected",
    [
        ([], {"1"}, (None, 0.0)),
        (["1"], {"1"}, (1.0, 1.0)),
        (["1", "2"], {"1"}, (0.5, 1.0)),
        (["1", "1", "3"], {"1", "2"}, (0.5, 0.5)),
        (["3"], {"1", "2"}, (0.0, 0.0)),
    ],
)
def test_citation_scores(cited, gold, expected):
    assert citation_scores(cited, gold) == expected


def question(text: str, gold: str, lang: str = "en", turn: str = "1") -> Question:
    return Question("c1", turn, lang, text, frozenset({gold}), "", "table", "simple")


def test_run_attribution_on_the_tiny_wiki(tmp_path):
    settings, index, retriever = build_wiki(tmp_path)
    items = [
        question("Which BIOS did the Dell Optiplex 7040 have?", "102"),
        question("What does BATS stand for?", "101", turn="2"),
        question("What does BATS stand for?", "999", lang="de"),  # gold never retrieved
    ]
    methods = ("counterfactual", "naive", "citation")
    records = run_attribution(
        retriever, ExtractiveLLM(), retriever.embedder, settings, items, {}, methods
    )
    assert [r["gold_in_top10"] for r in records] == [1.0, 1.0, 0.0]
    for method in methods:
        assert [r[f"{method}_accuracy"] for r in records] == [1.0, 1.0, None]
    assert records[0]["citation_precision"] == 1.0 and records[0]["citation_recall"] == 1.0
    assert records[2]["citation_recall"] == 0.0
    figures = report(records, methods)
    assert figures["counterfactual_accuracy"] == 1.0 and figures["counterfactual_n"] == 2
    assert figures["n"] == 3 and figures["gold_in_top10"] == pytest.approx(2 / 3, abs=1e-4)
    assert set(figures["slices"]) == {"lang", "a_source", "q_type", "turn"}
    printed = table("Attribution", [("all", figures)], methods)
    assert "CF acc" in printed and "Naive acc" in printed and "CitP" in printed
    with pytest.raises(ValueError, match="counterfactual, naive, citation"):
        run_attribution(retriever, ExtractiveLLM(), retriever.embedder, settings, items, {}, ["x"])


@pytest.mark.parametrize("method", ["counterfactual", "naive", "citation", "all"])
def test_eval_accepts_an_attribution_method(method):
    args = build_parser().parse_args(["eval", "--data", "d", "--attribution", method])
    assert args.attribution == method


def test_eval_rejects_an_unknown_attribution_method(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["eval", "--data", "d", "--attribution", "shapley"])
