"""Verdicts by reading: the key of a reply, the store, merging, the figures, and `confbot eval
--answers` reporting the judged share on a tiny benchmark of its own."""

from __future__ import annotations

import json
import os

import pytest

from bot.cli import main
from core.evaluation.verdicts import (
    DECLINED_REPLY,
    Verdict,
    choose_conversations,
    load_verdicts,
    merge_verdicts,
    parse_judged,
    renumber_citations,
    save_verdicts,
    summarize_verdicts,
    verdict_key,
)
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.tiny_wiki import PAGES

QUESTION = "Which TPM version had the Dell Optiplex 7040?"


def _verdict(verdict="CORRECT", failure=None, lang="en", cryptic=False, **fields) -> Verdict:
    values = {"conv_id": "1", "turn_id": "1", "form": "completed", "judge": "t"} | fields
    return Verdict(
        lang=lang, verdict=verdict, failure=failure, cryptic=cryptic, date="2026-11-26", **values
    )


@pytest.mark.parametrize(
    ("text", "renumbered"),
    [
        ("2.0 [4].", "2.0 [1]."),
        ("A [3] and B [1], again A [3].", "A [1] and B [2], again A [1]."),
        ("Both [5, 2]; then [2-3].", "Both [1, 2]; then [2, 3]."),
        ("See [Source 7] and [7][2].", "See [1] and [1][2]."),
        ("No citation here.", "No citation here."),
    ],
)
def test_citations_are_renumbered_by_first_appearance(text, renumbered):
    assert renumber_citations(text) == renumbered


def test_the_key_ignores_whitespace_and_citation_numbers_but_not_the_words():
    reply = "The TPM version is 2.0 [1]. Related: 1.2 [2]"
    key = verdict_key("1", "2", QUESTION, reply, False)
    assert key == verdict_key(
        "1", "2", f"  {QUESTION} ", "The TPM version is  2.0 [3].\nRelated: 1.2 [5]", False
    )
    other_value = "The TPM version is 1.2 [1]. Related: 2.0 [2]"
    other_sources = "The TPM version is 2.0 [1]. Related: 1.2 [1]"
    assert key != verdict_key("1", "2", QUESTION, other_value, False)
    assert key != verdict_key("1", "2", QUESTION, other_sources, False)
    # The same words to another turn, or to another question, need their own verdict.
    assert key != verdict_key("1", "3", QUESTION, reply, False)
    assert key != verdict_key("1", "2", "Which BIOS?", reply, False)


def test_a_decline_is_keyed_by_the_decline_not_by_the_text_it_replaced():
    declined = verdict_key("1", "1", QUESTION, "2.0 [1].", True)
    assert declined == verdict_key("1", "1", QUESTION, "1.2 [2].", True)
    assert declined == verdict_key("1", "1", QUESTION, DECLINED_REPLY, False)
    assert declined != verdict_key("1", "1", QUESTION, "2.0 [1].", False)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"verdict": "RIGHT"}, "not one of"),
        ({"verdict": "CORRECT", "failure": "wrong_page"}, "no failure class"),
        ({"verdict": "WRONG"}, "needs a failure class"),
        ({"verdict": "PARTLY", "failure": "typo"}, "needs a failure class"),
        ({"form": "conversational"}, "not one of"),
        ({"judge": ""}, "who judged"),
    ],
)
def test_a_verdict_is_checked(fields, message):
    with pytest.raises(ValueError, match=message):
        _verdict(**fields)


def test_summary_counts_verdicts_cryptic_and_failures_per_reply_set():
    verdicts = [
        _verdict(),
        _verdict(cryptic=True),
        _verdict("PARTLY", "composition"),
        _verdict("WRONG", "wrong_span", cryptic=True),
        _verdict("DECLINED", "not_in_pages"),
        _verdict("DECLINED", "declined_wrongly"),
        None,
        None,
    ]
    summary = summarize_verdicts(verdicts)
    assert (summary["n"], summary["judged"], summary["unjudged"]) == (8, 6, 2)
    assert summary["judged_share"] == 0.75
    assert (summary["correct"], summary["partly"], summary["wrong"], summary["declined"]) == (
        2,
        1,
        1,
        2,
    )
    assert summary["correct_share"] == round(2 / 6, 4) and summary["declined_right"] == 1
    assert summary["cryptic"] == 2 and summary["cryptic_share"] == round(2 / 6, 4)
    assert summary["failures"] == {
        "wrong_span": 1,
        "composition": 1,
        "declined_wrongly": 1,
        "not_in_pages": 1,
    }
    empty = summarize_verdicts([None])
    assert empty["judged"] == 0 and empty["correct_share"] is None and empty["failures"] == {}


def test_judged_lines_merge_into_the_store_without_the_benchmark_text(tmp_path):
    store = tmp_path / "verdicts.json"
    old = {"k1": _verdict("WRONG", "wrong_page"), "k2": _verdict(turn_id="2")}
    save_verdicts(store, old)
    lines = [
        json.dumps(
            {
                "key": "k1",
                "conv_id": "1",
                "turn_id": "1",
                "lang": "en",
                "form": "completed",
                "question": "SECRET QUESTION",
                "reply": "SECRET REPLY",
                "gold": "SECRET GOLD",
                "verdict": "PARTLY",
                "failure": "wrong_span",
                "cryptic": True,
                "judge": "reader",
            }
        ),
        json.dumps({"key": "k3", "conv_id": "4", "turn_id": "1", "lang": "de", "verdict": ""}),
        "",
        json.dumps(
            {
                "key": "k4",
                "conv_id": "10",
                "turn_id": "1",
                "lang": "de",
                "form": "raw",
                "verdict": "CORRECT",
                "judge": "reader",
                "date": "2026-11-01",
            }
        ),
    ]
    judged = parse_judged(lines, today="2026-11-26")
    assert set(judged) == {"k1", "k4"}  # a line without a verdict is still to judge
    merge = merge_verdicts(load_verdicts(store), judged)
    assert (merge.added, merge.replaced) == (["k4"], ["k1"])
    save_verdicts(store, merge.verdicts)
    text = store.read_text()
    assert "SECRET" not in text
    stored = load_verdicts(store)
    assert stored["k1"].verdict == "PARTLY" and stored["k1"].cryptic
    assert stored["k1"].date == "2026-11-26" and stored["k4"].date == "2026-11-01"
    assert stored["k2"] == old["k2"]
    assert list(stored) == ["k1", "k2", "k4"]  # completed before raw, then by turn


def test_a_judged_line_without_a_failure_class_names_its_line():
    line = json.dumps(
        {"key": "k", "conv_id": "1", "turn_id": "1", "lang": "en", "form": "completed"}
        | {"verdict": "WRONG", "judge": "reader"}
    )
    with pytest.raises(ValueError, match="judged line 1: a WRONG reply needs a failure class"):
        parse_judged([line])


def test_a_smaller_draw_of_conversations_is_part_of_a_larger_one():
    conversations = [{"conv_id": str(i)} for i in range(30)]
    five = choose_conversations(conversations, 5)
    twenty = choose_conversations(conversations, 20)
    assert len(five) == 5 and len(twenty) == 20
    assert all(c in twenty for c in five)
    assert [int(c["conv_id"]) for c in twenty] == sorted(int(c["conv_id"]) for c in twenty)
    assert five != conversations[:5]  # drawn, not the first ones
    assert choose_conversations(conversations, 0) == conversations


# A benchmark of its own: the tiny wiki's pages as ConfQuestions files, two conversations.
def _turn(turn_id, question, completed, question_de, completed_de, page, answer) -> dict:
    return {
        "turn_id": turn_id,
        "q_en": question,
        "completed_q_en": completed,
        "q_de": question_de,
        "completed_q_de": completed_de,
        "a_url": [page.url],
        "a_source": "table",
        "q_type": "simple",
        "a": answer,
    }


@pytest.fixture
def tiny_benchmark(tmp_path, monkeypatch):
    for name in [n for n in os.environ if n.startswith("CONFBOT_") or n == "OPENAI_API_KEY"]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CONFBOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr("core.evaluation.benchmark.make_embedder", lambda settings: HashEmbedder())
    folder = tmp_path / "bench"
    (folder / "documents").mkdir(parents=True)
    for page in PAGES:
        record = {"id": page.id, "space": page.space, "title": page.title, "url": page.url}
        path = folder / "documents" / f"confluence-{page.id}.json"
        path.write_text(json.dumps(record | {"content": page.body}))
    measurement, xen = PAGES[1], PAGES[2]
    tpm = "Which TPM version had the Dell Optiplex 7040 in the OpenXT 9.0 measurement test?"
    tpm_de = "Welche TPM-Version hatte der Dell Optiplex 7040 im OpenXT 9.0 Measurement Test?"
    conversations = [
        {
            "conv_id": "1",
            "turns": [
                _turn("1", tpm, tpm, tpm_de, tpm_de, measurement, "TPM 2.0"),
                _turn(
                    "2",
                    "And the Optiplex 9010?",
                    tpm.replace("7040", "9010"),
                    "Und der Optiplex 9010?",
                    tpm_de.replace("7040", "9010"),
                    measurement,
                    "TPM 1.2",
                ),
            ],
        },
        {
            "conv_id": "2",
            "turns": [
                _turn(
                    "1",
                    "Which Xen version was tested with the Ubuntu 3.11 Kernel?",
                    "Which Xen version was tested with the Ubuntu 3.11 Kernel?",
                    "Welche Xen-Version wurde mit dem Ubuntu 3.11 Kernel getestet?",
                    "Welche Xen-Version wurde mit dem Ubuntu 3.11 Kernel getestet?",
                    xen,
                    "Xen 4.4.0",
                )
            ],
        },
    ]
    (folder / "conversations.json").write_text(json.dumps(conversations))
    outside = [
        {"id": "o1", "topic": "menu", "lang": lang, "question": question}
        for lang, question in (("en", "What is for lunch today?"), ("de", "Was gibt es heute?"))
    ]
    (tmp_path / "oos.json").write_text(json.dumps({"questions": outside}))
    drift = [
        {
            "id": f"menu-{lang}",
            "topic": "menu",
            "lang": lang,
            "kind": "absent",
            "turns": [{"question": question, "in_scope": False}],
        }
        for lang, question in (("en", "What is for lunch today?"), ("de", "Was gibt es heute?"))
    ]
    (tmp_path / "oos_followups.json").write_text(json.dumps({"conversations": drift}))
    return [
        "eval",
        "--data",
        str(folder),
        "--answers",
        "--out-of-scope",
        str(tmp_path / "oos.json"),
        "--out-of-scope-followups",
        str(tmp_path / "oos_followups.json"),
        "--verdicts",
        str(tmp_path / "verdicts.json"),
    ]


def _judge(lines: list[dict]) -> list[dict]:
    """Every English reply correct, every German one wrong and cryptic."""
    return [
        item
        | (
            {"verdict": "CORRECT"}
            if item["lang"] == "en"
            else {"verdict": "WRONG", "failure": "wrong_span", "cryptic": True}
        )
        | {"judge": "test"}
        for item in lines
    ]


def test_eval_answers_reports_the_judged_share_and_the_replies_to_judge(
    tiny_benchmark, tmp_path, capsys
):
    argv = tiny_benchmark
    unjudged = tmp_path / "unjudged.jsonl"
    assert main([*argv, "--unjudged", str(unjudged), "--json", str(tmp_path / "a.json")]) == 0
    printed = capsys.readouterr().out
    assert "6 replies need a verdict" in printed
    lines = [json.loads(line) for line in unjudged.read_text().splitlines()]
    assert len(lines) == 6 and {item["form"] for item in lines} == {"completed"}
    first = next(i for i in lines if i["conv_id"] == "2" and i["lang"] == "en")
    assert first["gold"] == "Xen 4.4.0" and first["gold_pages"] == ["Upstream Xen GPU Testing"]
    assert first["question"].startswith("Which Xen version")
    records = json.loads((tmp_path / "a.json").read_text())["records"]
    shown = {(r["conv_id"], r["turn_id"], r["lang"]): r for r in records if r["answerable"]}
    for item in lines:
        record = shown[item["conv_id"], item["turn_id"], item["lang"]]
        assert item["reply"] == (DECLINED_REPLY if record["declined"] else record["reply"])

    judged = tmp_path / "judged.jsonl"
    judged.write_text("\n".join(json.dumps(item) for item in _judge(lines)))
    out = tmp_path / "b.json"
    assert main([*argv, "--verdicts-in", str(judged), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "verdicts: 6 added, 0 replaced" in printed
    assert "0 replies need a verdict" in printed
    assert "failure classes (de): wrong_span 3" in printed
    figures = json.loads(out.read_text())["verdicts"]
    assert figures["en"]["correct"] == 3 and figures["en"]["judged_share"] == 1.0
    assert figures["de"]["wrong"] == 3 and figures["de"]["cryptic_share"] == 1.0
    store = (tmp_path / "verdicts.json").read_text()
    assert "Optiplex" not in store and "4.4.0" not in store

    # Replayed: the first turns ask what the completed questions asked, so an unchanged
    # reply keeps its verdict; the follow-up "And the Optiplex 9010?" needs its own.
    argv_replay = [*argv, "--questions", "conversational", "--lang", "en"]
    replay_unjudged = tmp_path / "replay.jsonl"
    assert main([*argv_replay, "--unjudged", str(replay_unjudged), "--json", str(out)]) == 0
    figures = json.loads(out.read_text())["verdicts"]["en"]
    to_judge = [json.loads(line) for line in replay_unjudged.read_text().splitlines()]
    assert figures["n"] == 3 and figures["unjudged"] == len(to_judge)
    assert {(i["conv_id"], i["turn_id"]) for i in to_judge} >= {("1", "2")}
    assert all(i["form"] == "raw" for i in to_judge)
    assert f"{len(to_judge)} replies need a verdict" in capsys.readouterr().out


def test_judging_options_need_answers(tiny_benchmark, tmp_path, capsys):
    argv = [a for a in tiny_benchmark if a != "--answers"]
    assert main([*argv, "--unjudged", str(tmp_path / "u.jsonl")]) == 2
    assert "add --answers" in capsys.readouterr().err
