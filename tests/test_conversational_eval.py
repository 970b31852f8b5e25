"""The conversational evaluation: replaying a ConfQuestions-format conversation through the
Assistant on the tiny wiki."""

from __future__ import annotations

import pytest

from core.answer import OUT_OF_SCOPE
from core.evaluation.conversational import (
    answer_content,
    run_conversational,
    summarize_conversational,
)
from tests.fakes.tiny_wiki import build_wiki, make_assistant

GOLD = "https://wiki.example/spaces/TEST/pages/102/OpenXT+9.0+Measurement+Test"
CONVERSATIONS = [
    {
        "conv_id": 7,
        "turns": [
            {
                "turn_id": 1,
                "q_en": "Which TPM version did the Dell Optiplex 7040 have?",
                "q_de": "Welche TPM Version hatte der Dell Optiplex 7040?",
                "a": "TPM 2.0",
                "a_source": "table",
                "q_type": "simple",
                "a_url": [GOLD],
            },
            {
                "turn_id": 2,
                "q_en": "And the BIOS?",
                "q_de": "Und das BIOS?",
                "a": "BIOS 1.14.0 (build 6662)",
                "a_source": "table",
                "q_type": "simple",
                "a_url": [GOLD],
            },
        ],
    }
]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Paris [1].", "Paris  ."),
        ("A [1, 2] B [3-4]", "A   B  "),
        ("1.14.0 [2]\nRelated: BIOS: 1.14.0 [2]", "1.14.0  \n  BIOS: 1.14.0  "),
        (OUT_OF_SCOPE, " "),
    ],
)
def test_answer_content(text, expected):
    assert answer_content(text) == expected


def test_replay_uses_own_history_per_language(tmp_path):
    assistant = make_assistant(build_wiki(tmp_path / "wiki"), tmp_path)
    records = run_conversational(assistant, CONVERSATIONS, ("en", "de"), run_id="r1")
    assert [(r["conv_id"], r["turn_id"], r["lang"]) for r in records] == [
        ("7", "1", "en"),
        ("7", "2", "en"),
        ("7", "1", "de"),
        ("7", "2", "de"),
    ]
    en2, de1 = records[1], records[2]
    # "And the BIOS?" changes one thing of the first question: shown as a question, and
    # searched by its salient terms with the title of the page the topic's answer cited
    assert en2["completed_question"] == "Which BIOS version did the Dell Optiplex 7040 have?"
    assert en2["query"] == "BIOS version Dell Optiplex 7040 OpenXT 9.0 Measurement Test"
    assert de1["completed_question"] == de1["question"]  # a fresh conversation per language
    for record in records:
        assert record["ranked_pages"][0] == "102" and record["p_at_1"] == 1.0
        assert record["gold"] == ["102"] and len(record["ranked_pages"]) <= 10
        assert record["out_of_scope"] is False
    # the asked value: the TPM's whole gold; the BIOS's but not the build the gold adds
    assert [r["answer_token_recall"] for r in records] == [1.0, 0.5, 1.0, 0.5]
    assert "1.14.0" in en2["answer"] and "1.14.0" in records[3]["answer"]
    summary = summarize_conversational(records)
    assert summary["en"]["p_at_1"] == 1.0 and summary["all"]["n"] == 4
    assert summary["all"]["out_of_scope_rate"] == 0.0
    stored = assistant.store.turn(en2["turn_record_id"])
    assert stored.question == "And the BIOS?"
