"""The measuring harness (`benchmarks/llm_endpoint_eval.py`) against the scripted chat
server, on three ConfQuestions pages and one conversation (skipped without the data)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "llm_endpoint_eval.py"
OUT_OF_SCOPE = Path(__file__).resolve().parent / "data" / "out_of_scope.json"


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in [n for n in os.environ if n.startswith("CONFBOT_") or n == "OPENAI_API_KEY"]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CONFBOT_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture
def harness():
    spec = importlib.util.spec_from_file_location("llm_endpoint_eval", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def tiny_benchmark(benchmark_dir, tmp_path) -> Path:
    """Three pages, the first conversation and two out-of-scope questions."""
    data = tmp_path / "bench"
    (data / "documents").mkdir(parents=True)
    for page in sorted((benchmark_dir / "documents").glob("*.json"))[:3]:
        shutil.copy(page, data / "documents" / page.name)
    conversations = json.loads((benchmark_dir / "conversations.json").read_text())[:1]
    (data / "conversations.json").write_text(json.dumps(conversations))
    questions = json.loads(OUT_OF_SCOPE.read_text())["questions"]
    english = [q for q in questions if q["lang"] == "en"][:2]
    (data / "oos.json").write_text(json.dumps({"description": "two", "questions": english}))
    return data


def test_harness_writes_replies_for_judging_per_answerer(
    harness, tiny_benchmark, tmp_path, clean_env, capsys
):
    out = tmp_path / "replies"
    argv = ["--data", str(tiny_benchmark), "--scripted", "--out", str(out)]
    argv += ["--out-of-scope", str(tiny_benchmark / "oos.json"), "--answerers", "off,grounded"]
    argv += ["--verdicts", str(tmp_path / "verdicts.json"), "--first-token-timeout", "5"]
    rows = harness.run(argv)
    assert [r["answerer"] for r in rows] == ["off", "grounded"]
    turns = len(json.loads((tiny_benchmark / "conversations.json").read_text())[0]["turns"])
    for answerer in ("off", "grounded"):
        figures = json.loads((out / f"{answerer}.json").read_text())
        assert figures["answerer"] == "local" and figures["answers"]["n"] == turns
        unjudged = (out / f"{answerer}.unjudged.jsonl").read_text().splitlines()
        assert len(unjudged) == turns and all(json.loads(line)["reply"] for line in unjudged)
    raw = json.loads((out / "off.json").read_text())["records"]
    checked = json.loads((out / "grounded.json").read_text())["records"]
    # the scripted model's citation-only replies ("1. [1]") are declined once checked
    only_citation = [i for i, r in enumerate(raw) if r["reply"].strip() == "1. [1]"]
    assert only_citation and all(checked[i]["declined"] for i in only_citation)
    assert json.loads((out / "summary.json").read_text()) == rows
    assert "answerer" in capsys.readouterr().out
    assert "CONFBOT_LLM_BASE_URL" not in os.environ  # the runs' settings are not left behind


def test_harness_needs_an_endpoint(harness, tmp_path):
    with pytest.raises(SystemExit):
        harness.run(["--data", str(tmp_path), "--out", str(tmp_path / "o")])


def test_kept_replies_answer_every_check_from_one_generation(
    harness, tiny_benchmark, tmp_path, clean_env
):
    kept = tmp_path / "replies.json"
    argv = ["--data", str(tiny_benchmark), "--out-of-scope", str(tiny_benchmark / "oos.json")]
    argv += ["--verdicts", str(tmp_path / "verdicts.json"), "--first-token-timeout", "5"]
    argv += ["--replies", str(kept)]
    harness.run([*argv, "--scripted", "--out", str(tmp_path / "a"), "--answerers", "off"])
    stored = json.loads(kept.read_text())
    turns = len(json.loads((tiny_benchmark / "conversations.json").read_text())[0]["turns"])
    assert len(stored) == turns + 2  # one request per question, the out-of-scope ones too
    assert all(e["messages"] and e["replies"] and e["seconds"] >= 0 for e in stored.values())
    # Nothing listens on the discard port: every reply must come from the kept file.
    dead = ["--base-url", "http://127.0.0.1:9/v1", "--answerers", "off,grounded"]
    harness.run([*argv, *dead, "--out", str(tmp_path / "b")])
    first = json.loads((tmp_path / "a" / "off.json").read_text())["records"]
    again = json.loads((tmp_path / "b" / "off.json").read_text())["records"]
    assert [r["reply"] for r in again] == [r["reply"] for r in first]
    assert len(json.loads(kept.read_text())) == turns + 2
    from core.llm import OpenAILLM

    assert OpenAILLM._request.__name__ == "_request"  # the patch is undone after the run


def test_judging_files_hold_all_three_replies_and_the_cited_sources(
    harness, tiny_benchmark, tmp_path, clean_env
):
    out, judging = tmp_path / "replies", tmp_path / "judge"
    argv = ["--data", str(tiny_benchmark), "--scripted", "--out", str(out)]
    argv += ["--out-of-scope", str(tiny_benchmark / "oos.json")]
    argv += ["--answerers", "offline,off,combined", "--judging", str(judging)]
    argv += ["--verdicts", str(tmp_path / "verdicts.json"), "--first-token-timeout", "5"]
    harness.run(argv)
    turns = len(json.loads((tiny_benchmark / "conversations.json").read_text())[0]["turns"])
    lines = {}
    for name in ("offline", "model", "combined"):
        lines[name] = [
            json.loads(x) for x in (judging / f"{name}.jsonl").read_text().split("\n") if x
        ]
        assert len(lines[name]) == turns + 2  # the out-of-scope questions too
        assert all(x["key"] and "verdict" in x for x in lines[name])
    raw = {x["question"]: x["reply"] for x in lines["model"]}
    for line in lines["combined"]:
        # the model's reply as it came, follow-ups included; the raw record shows the answer
        shown = raw[line["question"]]
        assert shown == "DECLINED-REPLY" or line["model_reply"].startswith(shown.strip()[:30])
        for source in line["cited_sources"]:
            assert f"[{source['n']}]" in line["reply"] and source["text"]
    answered = [x for x in lines["combined"] if x["answerable"]]
    assert all(x["gold"] for x in answered)
    mechanical = json.loads((judging / "mechanical.json").read_text())
    for name in ("offline", "model", "combined"):
        assert mechanical["summary"][name]["replies"] == len(mechanical["replies"][name])
    from core.combine import CheckedLLM

    assert CheckedLLM.check.__name__ == "check"  # the recorder is undone after the run


def test_the_mechanical_check_finds_numbers_and_names_no_cited_source_holds():
    spec = importlib.util.spec_from_file_location("llm_judging", SCRIPT.parent / "_llm_judging.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sources = [
        {"n": 1, "header": "Rotation", "text": "Week 2: Sophie Brandt. Week 3: Lena Vogel."},
        {"n": 2, "header": "Office", "text": "Room 12 is on floor 3."},
    ]
    shown = (
        "Sophie Brandt is on call in week 2 [1]. Lena Vogel is in room 12 [1].\n"
        "Max Weber covers week 5 [2].\n(Read from the page, where the language model's answer"
        " differed.)"
    )
    checked = module.mechanical_check(shown, "Who is on call in week 2?", sources)
    assert [c["not_in_cited"] for c in checked] == [[], ["12"], ["5", "Max", "Weber"]]
    assert [c["in_no_source"] for c in checked] == [[], [], ["5", "Max", "Weber"]]
    summary = module.summarize_mechanical({"a": checked})
    assert summary["cited_sentences_whose_sources_hold_their_facts"] == 1


def test_the_mechanical_check_reads_no_fact_in_the_rows_a_yes_or_no_counted():
    spec = importlib.util.spec_from_file_location("llm_judging", SCRIPT.parent / "_llm_judging.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sources = [{"n": 1, "header": "Matrix", "text": "Row 9 in Table 1: Result is PASS"}]
    question = "Did any test fail?"
    for shown, stated in [
        ("No: none of the 4 rows found in Matrix failed (Result: PASS [1]).", []),
        ("Nein: keine der 4 gefundenen Zeilen in Matrix ist fehlgeschlagen [1].", []),
        # a count of something else is a number the sources must hold
        ("No: none of the 4 machines in Matrix failed (Result: PASS [1]).", ["4"]),
    ]:
        (checked,) = module.mechanical_check(shown, question, sources)
        assert checked["in_no_source"] == stated
