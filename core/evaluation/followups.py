"""Declining in conversations: the offline answerer on follow-ups completed by our own
offline completer, answerable and out of scope.

Two sets of conversations are replayed turn by turn through the Assistant (raw questions,
our completion, our history), each in a fresh conversation per language:
- the benchmark's conversations, every turn answerable;
- conversations that leave the wiki (`tests/data/out_of_scope_followups.json`): a covered
  topic and then a follow-up that drifts to an absent one, or every turn about an absent
  topic; turns marked `in_scope: false` should be declined, in-scope turns are not scored.

The answerer runs with no decline threshold; each turn keeps the best span's own `support`,
its carried-topic coverage (`topic`), and whether it is a `followup`, so the decline rule is
applied afterwards (`decide`): a question (a first turn, or one that started a new topic) is
held against the question thresholds (`answer_min_support`, `_de`); a follow-up against the
follow-up thresholds with its `core.extractive.followup_support`, or, "before" this rule
existed, against the question thresholds with its own support.

`calibrate_followups` chooses the topic weight and each language's follow-up threshold by
K-fold cross-validation over conversations (`core.evaluation.folds`; an out-of-scope topic's
conversations count as one, in both languages), maximizing
`core.evaluation.answers.decline_objective` on the follow-ups of the training folds, and
applies the choice to the held-out fold.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.answer import parse_prompt, source_header
from core.assistant import Assistant
from core.conversation import ConversationKey
from core.evaluation.answers import decline_objective
from core.evaluation.folds import assign_folds
from core.evaluation.metrics import mean
from core.extractive import ExtractiveLLM, followup_support, language_threshold
from core.questions import is_followup, question_language
from core.spans import Span

# Candidate topic weights and follow-up thresholds (the grid cross-validation searches).
TOPIC_WEIGHTS = (0.0, 1.0, 2.0, 3.0)
FOLLOWUP_THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(0, 15))


@dataclass(frozen=True)
class Conversation:
    """One conversation to replay in one language: `turns` are (turn id, question,
    answerable)."""

    conv_id: str
    lang: str
    turns: tuple[tuple[str, str, bool], ...]


def benchmark_conversations(conversations: Sequence[dict], langs: Sequence[str]):
    """The ConfQuestions conversations (raw questions, every turn answerable) per language."""
    return [
        Conversation(
            str(c["conv_id"]),
            lang,
            tuple((str(t["turn_id"]), t[f"q_{lang}"], True) for t in c["turns"]),
        )
        for c in conversations
        for lang in langs
    ]


def load_followups(path: Path, langs: Sequence[str] = ("en", "de")) -> list[Conversation]:
    """The conversations of an out-of-scope follow-up file (`{"conversations": [{"id",
    "topic", "lang", "kind", "turns": [{"question", "in_scope"}]}]}`) in `langs`; a topic
    stands in for the conversation id, so both languages of a topic share a fold."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return [
        Conversation(
            f"oos:{c['topic']}",
            c["lang"],
            tuple(
                (str(number), t["question"], bool(t["in_scope"]))
                for number, t in enumerate(c["turns"], start=1)
            ),
        )
        for c in data["conversations"]
        if c["lang"] in langs
    ]


def replay(assistant: Assistant, conversations: Sequence[Conversation]) -> list[dict]:
    """Replay every conversation; one record per turn: `conv_id`, `turn_id`, `lang`,
    `question`, `completed_question`, `reply` (the answer text), `answerable`, `scored`
    (False for the in-scope turns of an out-of-scope conversation, which have no gold),
    `followup`, `language` (as the answerer tells it), and the best span's `support` and
    `topic` (`no_span`: none found, or the answerer declined by its own rules).
    The assistant's answerer must be the offline one; it answers here with no threshold."""
    if not isinstance(assistant.llm, ExtractiveLLM):
        raise ValueError("follow-up declines are measured for the offline answerer only")
    llm = assistant.llm
    assistant.llm = llm.unthresholded()
    run_id = uuid.uuid4().hex[:12]
    records = []
    try:
        for conversation in conversations:
            thread = f"{conversation.conv_id}:{conversation.lang}"
            key = ConversationKey("eval", "followups", run_id, thread)
            outside = any(not answerable for _, _, answerable in conversation.turns)
            for turn_id, question, answerable in conversation.turns:
                turn = assistant.ask(key, question)
                sources = [
                    (n, source_header(r.evidence), r.evidence.text)
                    for n, r in enumerate(turn.evidences, start=1)
                ]
                asked = prompt_question(turn)
                spans = assistant.llm.spans(asked, sources)
                best: Span | None = spans[0][1] if spans else None
                records.append(
                    {
                        "conv_id": conversation.conv_id,
                        "turn_id": turn_id,
                        "lang": conversation.lang,
                        "question": question,
                        "completed_question": turn.completed_question,
                        "reply": turn.answer,
                        "answerable": answerable,
                        "scored": answerable is False or not outside,
                        "followup": is_followup(asked),
                        "language": question_language(asked),
                        "support": best.support if best else 0.0,
                        "topic": best.topic if best else 0.0,
                        # Declined whatever the threshold: no span, or the answerer's own
                        # rules (a word the wiki lacks, a span of the wrong kind).
                        "no_span": best is None or turn.out_of_scope,
                    }
                )
    finally:
        assistant.llm = llm
    return records


def prompt_question(turn) -> str:
    """The question a turn's answer prompt carried (with the offline completer's carried
    topic, which the shown completed question leaves out)."""
    parsed = parse_prompt(turn.messages.get("answer") or [])
    return parsed[0] if parsed else turn.completed_question


@dataclass(frozen=True)
class DeclineRule:
    """Per-language thresholds for questions and (None: judged like questions) for
    follow-ups, and the topic weight of a follow-up's support."""

    questions: Mapping[str, float]
    followups: Mapping[str, float] | None = None
    topic_weight: float = 0.0


def decide(records: Sequence[dict], rule: DeclineRule) -> list[dict]:
    """Records with `declined` as the offline answerer under `rule` would have it."""
    out = []
    for record in records:
        language = record["language"]
        if record["followup"] and rule.followups is not None:
            thresholds = rule.followups
            support = followup_support(record["support"], record["topic"], rule.topic_weight)
        else:
            thresholds, support = rule.questions, record["support"]
        threshold = language_threshold(thresholds, language)
        out.append({**record, "declined": record["no_span"] or support < threshold})
    return out


@dataclass
class FollowupCalibration:
    """Held-out records (declined with the topic weight and threshold chosen without their
    fold), each fold's choices per language, and the most frequent choices."""

    records: list[dict]
    chosen: dict[str, list[tuple[float, float]]]
    default_topic_weight: float
    default_thresholds: dict[str, float]


def calibrate_followups(
    records: Sequence[dict],
    questions: Mapping[str, float],
    k: int,
    topic_weights: Sequence[float] = TOPIC_WEIGHTS,
    thresholds: Sequence[float] = FOLLOWUP_THRESHOLDS,
    seed: int = 0,
) -> FollowupCalibration:
    """K-fold cross-validation over conversations: per language, on the follow-ups of the
    K-1 training folds, the (topic weight, threshold) with the best `decline_objective`
    (ties: the first topic weight listed, then the lowest threshold), applied to the
    held-out fold; first turns keep the `questions` thresholds. The default topic weight is
    the most frequent choice over all folds and languages (ties: the smaller), each
    language's default threshold the most frequent among its folds that chose it."""
    scored = [r for r in records if r["scored"]]
    folds = assign_folds([r["conv_id"] for r in scored], k, seed)
    held_out: list[dict] = []
    chosen: dict[str, list[tuple[float, float]]] = {}
    for fold in range(k):
        for language in sorted({r["language"] for r in scored}):
            subset = [r for r in scored if r["language"] == language]
            train = [r for r in subset if folds[r["conv_id"]] != fold and r["followup"]]
            candidates = [(w, t) for w in topic_weights for t in thresholds]

            def objective(candidate, train=train, language=language):
                rule = DeclineRule(questions, {language: candidate[1]}, candidate[0])
                return decline_objective(decide(train, rule))

            best = max(candidates, key=lambda c: (objective(c), -candidates.index(c)))
            chosen.setdefault(language, []).append(best)
            rule = DeclineRule(questions, {language: best[1]}, best[0])
            test = [r for r in subset if folds[r["conv_id"]] == fold]
            held_out.extend({**r, "fold": fold} for r in decide(test, rule))
    weights = Counter(w for choices in chosen.values() for w, _ in choices)
    top = max(weights.values())
    weight = min(w for w, count in weights.items() if count == top)
    defaults = {}
    for lang, choices in chosen.items():
        with_weight = [t for w, t in choices if w == weight] or [t for _, t in choices]
        defaults[lang] = Counter(with_weight).most_common(1)[0][0]
    return FollowupCalibration(held_out, chosen, weight, defaults)


def summarize_declines(records: Sequence[dict]) -> dict:
    """Declines on the answerable turns (all, and follow-ups) and decline recall on the
    out-of-scope turns (all, and follow-ups), with their counts; scored records only."""
    scored = [r for r in records if r["scored"]]
    answerable = [r for r in scored if r["answerable"]]
    outside = [r for r in scored if not r["answerable"]]

    def rate(rows):
        return round(mean([float(r["declined"]) for r in rows]), 4) if rows else None

    return {
        "declined": rate(answerable),
        "declined_followups": rate([r for r in answerable if r["followup"]]),
        "decline_recall": rate(outside),
        "decline_recall_followups": rate([r for r in outside if r["followup"]]),
        "n": len(answerable),
        "n_followups": sum(r["followup"] for r in answerable),
        "n_out_of_scope": len(outside),
        "n_out_of_scope_followups": sum(r["followup"] for r in outside),
    }
