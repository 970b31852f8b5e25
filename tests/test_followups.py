"""Follow-ups and the offline answerer: support measured on the follow-up's own terms and the
topic it carries, the language of a follow-up, and the conversational decline evaluation
(replay, decision rule, cross-validation) on the tiny wiki."""

from __future__ import annotations

import json

import pytest

from core.answer import OUT_OF_SCOPE, build_messages
from core.evaluation.followups import (
    Conversation,
    DeclineRule,
    calibrate_followups,
    decide,
    load_followups,
    replay,
    summarize_declines,
)
from core.extractive import ExtractiveLLM, followup_support
from core.questions import is_followup, question_language
from core.spans import Span
from tests.fakes.evidence import make_evidence
from tests.fakes.tiny_wiki import build_wiki, make_assistant

SOURCES = [
    make_evidence(
        1,
        "BATS is the Bash Automated Testing System. It gives a simple way to write tests.",
        "Bats: Bash Automated Testing System",
    ),
    make_evidence(
        2,
        "Row 1 in Table 1: Machine is Dell Optiplex 7040, BIOS is 1.14.0, and Build is 6662",
        "OpenXT 9.0 Measurement Test",
    ),
]
QUESTIONS = {"en": 0.45, "de": 0.3}
FOLLOWUPS = {"en": 0.2, "de": 0.1}


def ask(question: str, llm: ExtractiveLLM) -> str:
    (text,) = llm.complete(build_messages(question, SOURCES))
    return text


@pytest.mark.parametrize(
    "text, followup, language",
    [
        ("Why was it picked? (context: BATS, stand)", True, "en"),
        ("Was war der Grund dafür? (context: OXT, 9.0, Optiplex, UEFI, OTA, Upgrade)", True, "de"),
        ("Wann? (following up on: Wann wurde BATS eingeführt?)", True, "de"),
        ("Which TPM version had the Dell Optiplex 7040?", False, "en"),
        ("Welche TPM Version hatte der Dell Optiplex 7040?", False, "de"),
        # no function word to tell it: a word the glossary knows as German does
        ("Versionsnummern? (context: Build-Location, mehr, 6.x, OpenXT, Builds)", True, "de"),
        ("Version nos.? (context: OpenXT, 7.x, Builds)", True, "en"),
        ("Preconditions?", False, "en"),
    ],
)
def test_a_followup_is_told_by_its_context_and_its_language_by_its_own_words(
    text, followup, language
):
    assert is_followup(text) is followup
    assert question_language(text) == language


def test_a_followup_about_the_covered_topic_is_answered():
    """ "Why was it picked?" shares no word with the answer, but the topic it carries (BATS)
    is the source's title: judged on its own terms alone, it was declined."""
    question = "Why was it picked? (context: BATS, stand)"
    before = ExtractiveLLM(QUESTIONS)
    assert ask(question, before) == OUT_OF_SCOPE
    after = ExtractiveLLM(QUESTIONS, followup_min_support=FOLLOWUPS, topic_weight=2.0)
    assert ask(question, after).startswith("BATS is the Bash Automated Testing System")


def test_a_followup_whose_carried_topic_the_sources_lack_declines():
    """A follow-up in a conversation about parental leave: one of its own words (build)
    matches a table column, which was enough before; the topic it carries is nowhere."""
    question = "What is the build allowance? (context: parental, leave, weeks)"
    assert ask(question, ExtractiveLLM(QUESTIONS)) != OUT_OF_SCOPE
    after = ExtractiveLLM(QUESTIONS, followup_min_support=FOLLOWUPS, topic_weight=2.0)
    assert ask(question, after) == OUT_OF_SCOPE
    # A self-contained question is still judged on its own terms and threshold.
    assert ask("What does BATS stand for?", after) != OUT_OF_SCOPE


def test_followup_support_weighs_own_terms_against_the_topic():
    span = Span("a", "a", 1.0, support=0.0, kind="sentence", topic=0.9)
    assert followup_support(span.support, span.topic, 0.0) == 0.0
    assert followup_support(span.support, span.topic, 2.0) == pytest.approx(0.6)
    assert followup_support(1.0, 0.0, 1.0) == 0.5
    # exactly at a threshold is not under it (0.6 / 3 is 0.19999999999999998 in floats)
    assert followup_support(0.6, 0.0, 2.0) == 0.2


def test_settings_configure_the_followup_rule(tmp_path):
    settings, _, _ = build_wiki(
        tmp_path / "wiki",
        answer_min_support_followup="0.3",
        answer_min_support_followup_de="0.05",
        answer_topic_weight="1.5",
    )
    llm = ExtractiveLLM.from_settings(settings)
    assert llm.followup_min_support == {"en": 0.3, "de": 0.05} and llm.topic_weight == 1.5
    assert llm.threshold("Und warum? (context: BATS)") == 0.05
    assert llm.threshold("Why BATS?") == settings.answer_min_support


CONVERSATIONS = [
    Conversation(
        "1",
        "en",
        (("1", "What does BATS stand for?", True), ("2", "Why was it picked?", True)),
    ),
    Conversation(
        "2",
        "en",
        (
            ("1", "Which BIOS did the Dell Optiplex 7040 have?", True),
            ("2", "And the build?", True),
        ),
    ),
    Conversation(
        "oos:leave",
        "en",
        (
            ("1", "How many weeks of parental leave do employees get?", False),
            ("2", "And is it paid?", False),
        ),
    ),
    Conversation(
        "oos:bats-cost",
        "en",
        (("1", "What does BATS stand for?", True), ("2", "What does a licence cost?", False)),
    ),
]


def test_replay_records_support_topic_and_followups(tmp_path):
    wiki = build_wiki(tmp_path / "wiki")
    assistant = make_assistant(wiki, tmp_path, ExtractiveLLM.from_settings(wiki[0]))
    configured = assistant.llm
    records = replay(assistant, CONVERSATIONS)
    assert assistant.llm is configured  # the thresholdless answerer was only borrowed
    assert [(r["conv_id"], r["turn_id"]) for r in records] == [
        (c.conv_id, t[0]) for c in CONVERSATIONS for t in c.turns
    ]
    first, why = records[0], records[1]
    assert not first["followup"] and why["followup"]
    assert why["completed_question"] == "Why was BATS picked?"  # "it" resolved, no keywords
    assert why["support"] > 0.5 and why["topic"] > 0.5  # the subject and the topic carry it
    drift = records[-2:]
    assert [r["scored"] for r in drift] == [False, True]  # the in-scope turn has no gold
    before = summarize_declines(decide(records, DeclineRule(QUESTIONS)))
    after = summarize_declines(decide(records, DeclineRule(QUESTIONS, FOLLOWUPS, 2.0)))
    # completed as questions ("Why was BATS picked?"), the answerable follow-ups are kept
    # under either rule
    assert before["declined_followups"] == after["declined_followups"] == 0.0
    assert after["n"] == 4 and after["n_out_of_scope"] == 3


def test_calibration_keeps_a_conversation_in_one_fold(tmp_path):
    records = []
    for number in range(12):
        for turn, followup in (("1", False), ("2", True)):
            records.append(
                {
                    "conv_id": f"c{number}" if number < 6 else f"oos:t{number}",
                    "turn_id": turn,
                    "lang": "en",
                    "language": "en",
                    "answerable": number < 6,
                    "scored": True,
                    "followup": followup,
                    "support": 0.0 if followup else 0.8,
                    "topic": 0.8 if number < 6 else 0.1,
                    "no_span": False,
                }
            )
    calibration = calibrate_followups(records, QUESTIONS, k=2)
    assert len(calibration.records) == len(records)
    folds = {}
    for record in calibration.records:
        folds.setdefault(record["conv_id"], set()).add(record["fold"])
    assert all(len(f) == 1 for f in folds.values())
    summary = summarize_declines(calibration.records)
    assert summary["declined_followups"] == 0.0 and summary["decline_recall_followups"] == 1.0
    assert calibration.default_thresholds["en"] > 0.0


def test_the_repository_followups_file_loads(tmp_path):
    from bot.cli import OUT_OF_SCOPE_FOLLOWUPS

    conversations = load_followups(OUT_OF_SCOPE_FOLLOWUPS)
    assert len(conversations) >= 30
    assert {c.lang for c in conversations} == {"en", "de"}
    assert all(2 <= len(c.turns) <= 3 for c in conversations)
    assert all(not c.turns[-1][2] for c in conversations)  # every one ends out of scope
    assert len(load_followups(OUT_OF_SCOPE_FOLLOWUPS, ("de",))) == len(conversations) // 2
    raw = json.loads(OUT_OF_SCOPE_FOLLOWUPS.read_text())
    assert {c["kind"] for c in raw["conversations"]} == {"drift", "absent"}
