"""`confbot eval` end to end on a subset of ConfQuestions (skipped when the data is absent)."""

from __future__ import annotations

import json

import pytest

from bot.cli import main

pytestmark = pytest.mark.benchmark_data


@pytest.fixture
def subset(benchmark_dir, tmp_path):
    """The first eight conversations, written as a conversations file of their own."""
    conversations = json.loads((benchmark_dir / "conversations.json").read_text())[:8]
    path = tmp_path / "subset.json"
    path.write_text(json.dumps(conversations))
    return path, sum(len(c["turns"]) for c in conversations)


def test_eval_on_subset_reaches_precision_floor(
    benchmark_dir, subset, tmp_path, monkeypatch, capsys
):
    for name in [n for n in __import__("os").environ if n.startswith("CONFBOT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CONFBOT_DATA_DIR", str(tmp_path / "data"))
    path, turns = subset
    out = tmp_path / "figures.json"
    code = main(
        [
            "eval",
            "--data",
            str(benchmark_dir),
            "--conversations",
            str(path),
            "--questions",
            "completed",
            "--lang",
            "both",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    figures = json.loads(out.read_text())
    assert figures["n"] == 2 * turns
    assert set(figures) >= {"p_at_1", "r_at_10", "mrr", "answer_recall_at_10", "n"}
    by_lang = figures["slices"]["lang"]
    assert by_lang["en"]["p_at_1"] >= 0.75
    assert by_lang["de"]["p_at_1"] >= 0.65
    assert figures["r_at_10"] >= 0.9
    printed = capsys.readouterr().out
    assert "P@1" in printed and "by a_source" in printed
