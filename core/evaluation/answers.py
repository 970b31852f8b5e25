"""Answer quality on ConfQuestions, and declining on questions the wiki cannot answer.

Every question (the benchmark's completed questions, answerable; and a set of out-of-scope
questions) is retrieved once (top 10) and answered once by the LLM under test. Per
question it records:

- `f1` and `recall`: token F1 (SQuAD's, Rajpurkar et al., EMNLP 2016, over the content
  tokens of `core.evaluation.metrics.content_tokens`) and token recall of the most likely
  answer (the answer without its `Related:` lines, `core.answer.split_answer`) against
  the gold answer; `reply_f1` for everything shown, the related lines included;
  `new_f1`, the F1 of the answer's words that the question does not already say (a
  statement answer repeats its question: "The hotel limit in London is £220" for "What is
  the hotel limit in London?", which token F1 against the gold "£220" counts against it);
- `contained`: every content token of the gold answer is in the most likely answer;
- `words` and `reply_words`: the length of the answer and of the whole reply;
- `byline`: the first line is page furniture (`core.spans.is_metadata`);
- `declined`: the answer is the out-of-scope sentence (on answerable questions a decline
  scores 0 on every answer metric);
- the top-1-evidence baseline (`base_f1`, `base_recall`, `base_contained`): the text of
  the best retrieved evidence, taken as the answer; and `any_contained`, whether one of the
  retrieved evidences contains the gold answer (the ceiling of containment for an answer
  taken from one evidence).

The offline answerer declines when its best span's support is under a threshold of the
question's language. Its answers are taken once per candidate span weights
(`WEIGHT_GRID`) with no threshold, and each question's `support` is kept, so thresholds
are applied afterwards (`apply_thresholds`). `calibrate` chooses both by cross-validation
over conversations (`core.evaluation.folds`): on K-1 folds the weights with the best mean
F1, then the thresholds with the best `decline_objective`, scored on the held-out fold.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.answer import CITATION, generate, source_header, source_text, split_answer
from core.evaluation.benchmark import Question, question_fields
from core.evaluation.folds import assign_folds, cross_validate
from core.evaluation.metrics import content_tokens, mean
from core.extractive import ExtractiveLLM, language_threshold
from core.lexical import detect_language
from core.llm import LLM
from core.page_parts import page_parts
from core.pages import Evidence
from core.questions import question_type
from core.retrieve import Retriever
from core.spans import SpanWeights, is_metadata

OUT_OF_SCOPE_SOURCE = "out-of-scope"
# The targets: at most 5% declines on answerable questions (each point over it costs
# ten) and declines on out-of-scope questions. Within that budget a declined answerable
# question costs as much as an answered out-of-scope one: both are a wrong reply to a user,
# and a threshold that spends the whole budget for recall on the training folds declined
# replies judged correct without declining more out-of-scope questions on the held-out fold.
MAX_DECLINE_RATE = 0.05
DECLINE_PENALTY = 10.0
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(0, 15))
ANSWER_METRICS = (
    "f1",
    "recall",
    "contained",
    "reply_f1",
    "new_f1",
    "base_f1",
    "base_recall",
    "base_contained",
    "any_contained",
    "byline",
)


def load_out_of_scope(path: Path) -> list[Question]:
    """The out-of-scope questions of a JSON file (`{"questions": [{"id", "topic", "lang",
    "question"}]}`), each a `Question` without gold, its topic standing in for a
    conversation so that cross-validation keeps a topic's questions in one fold."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return [
        Question(
            conv_id=f"oos:{item['topic']}",
            turn_id=str(item["id"]),
            lang=item["lang"],
            text=item["question"],
            gold_pages=frozenset(),
            answer="",
            a_source=OUT_OF_SCOPE_SOURCE,
            q_type=OUT_OF_SCOPE_SOURCE,
        )
        for item in data["questions"]
    ]


def token_scores(gold: str, answer: str) -> tuple[float, float]:
    """(F1, recall) of the answer's content tokens against the gold answer's, counted as
    multisets (SQuAD's token F1, Rajpurkar et al., 2016)."""
    gold_tokens = Counter(content_tokens(gold))
    answer_tokens = Counter(content_tokens(answer))
    common = sum((gold_tokens & answer_tokens).values())
    if not common:
        return 0.0, 0.0
    precision = common / sum(answer_tokens.values())
    recall = common / sum(gold_tokens.values())
    return 2 * precision * recall / (precision + recall), recall


def contains_gold(gold: str, answer: str) -> bool:
    """Whether every content token of the gold answer occurs in the answer."""
    wanted = set(content_tokens(gold))
    return bool(wanted) and wanted <= set(content_tokens(answer))


def _plain(text: str) -> str:
    """An answer without its citation markers."""
    return " ".join(CITATION.sub(" ", text).split())


# What a decline scores on an answerable question.
_DECLINE_ZEROES = ("f1", "recall", "contained", "reply_f1", "new_f1", "byline")


def answer_record(question: Question, reply: str, declined: bool, top_text: str) -> dict:
    """The per-question metrics of one reply (see the module docstring); a decline scores
    0 on every answer metric."""
    parts = split_answer(reply)
    answer = _plain(parts.answer)
    whole = _plain(" ".join([parts.answer, *parts.related]))
    f1, recall = token_scores(question.answer, answer)
    reply_f1, _ = token_scores(question.answer, whole)
    asked = set(content_tokens(question.text))
    new_f1, _ = token_scores(
        question.answer, " ".join(t for t in content_tokens(answer) if t not in asked)
    )
    base_f1, base_recall = token_scores(question.answer, top_text)
    first_line = parts.answer.split("\n")[0] if parts.answer else ""
    return {
        **question_fields(question),
        "answerable": question.a_source != OUT_OF_SCOPE_SOURCE,
        "asked": question_type(question.text),
        "language": detect_language(question.text),
        "reply": reply,
        "f1": f1,
        "recall": recall,
        "contained": float(contains_gold(question.answer, answer)),
        "reply_f1": reply_f1,
        "new_f1": new_f1,
        "words": len(answer.split()),
        "reply_words": len(whole.split()),
        "byline": float(is_metadata(first_line)),
        "declined": declined,
        "base_f1": base_f1,
        "base_recall": base_recall,
        "base_contained": float(contains_gold(question.answer, top_text)),
    } | ({m: 0.0 for m in _DECLINE_ZEROES} if declined else {})


def run_answers(
    retriever: Retriever, llm: LLM, items: Sequence[Question], k: int = 10
) -> list[dict]:
    """Retrieve, answer and score every question; one record per question (see
    `answer_all`)."""
    return answer_all(llm, items, retrieve_all(retriever, items, k))


def retrieve_all(
    retriever: Retriever, items: Sequence[Question], k: int = 10
) -> list[list[Evidence]]:
    """The top `k` evidences of every question, best first, and the parts of their pages
    each needs (`core.page_parts`), as the assistant gives them."""
    found = [[r.evidence for r in retriever.search(q.text, k=k).results] for q in items]
    return [
        [*evidences, *page_parts(q.text, evidences, retriever.index)]
        for q, evidences in zip(items, found, strict=True)
    ]


def answer_all(
    llm: LLM, items: Sequence[Question], retrieved: Sequence[Sequence[Evidence]]
) -> list[dict]:
    """Answer and score every question from its retrieved evidences.

    With the offline answerer the answer is taken without any decline threshold, and each
    record keeps its scores (`unscored`), whether no span was found at all (`no_span`) and
    the best span's `support`, so thresholds are applied afterwards (`apply_thresholds`)."""
    offline = isinstance(llm, ExtractiveLLM)
    if offline:
        llm = llm.unthresholded()
    records = []
    for question, evidences in zip(items, retrieved, strict=True):
        (answer,) = generate(llm, question.text, evidences)
        top_text = evidences[0].text if evidences else ""
        record = answer_record(question, answer.text, answer.out_of_scope, top_text)
        record["any_contained"] = float(
            any(contains_gold(question.answer, e.text) for e in evidences)
        )
        if offline:
            sources = [
                (n, source_header(e), source_text(e)) for n, e in enumerate(evidences, start=1)
            ]
            spans = llm.spans(question.text, sources)
            record["support"] = spans[0][1].support if spans else 0.0
            record["no_span"] = answer.out_of_scope
            record["unscored"] = {m: record[m] for m in _DECLINE_ZEROES}
        records.append(record)
    return records


def apply_thresholds(records: Sequence[dict], thresholds: Mapping[str, float]) -> list[dict]:
    """Records as the offline answerer with these per-language decline thresholds would
    have them: declined when the support is under the threshold of the question's detected
    language (the English one for other languages, as the answerer does); a declined
    answer scores 0."""
    out = []
    for record in records:
        language = record["language"]
        threshold = language_threshold(thresholds, language)
        declined = record["no_span"] or record["support"] < threshold
        scores = {m: 0.0 for m in record["unscored"]} if declined else record["unscored"]
        out.append({**record, **scores, "declined": declined, "threshold": threshold})
    return out


def decline_objective(records: Sequence[dict]) -> float:
    """Decline recall on the out-of-scope questions less the share of answerable questions
    declined (balanced accuracy of the decline decision), less `DECLINE_PENALTY` times
    that share beyond `MAX_DECLINE_RATE`."""
    answerable = [float(r["declined"]) for r in records if r["answerable"]]
    outside = [float(r["declined"]) for r in records if not r["answerable"]]
    excess = max(0.0, mean(answerable) - MAX_DECLINE_RATE)
    return mean(outside) - mean(answerable) - DECLINE_PENALTY * excess


# The span weights cross-validation chooses among (`core.spans.SpanWeights`), the
# defaults first so that ties keep them.
WEIGHT_GRID = tuple(
    SpanWeights(header, length_penalty, rank_prior, answer_words)
    for header in (1.0, 0.5)
    for length_penalty in (0.15, 0.5)
    for rank_prior in (0.1, 0.3)
    for answer_words in (25, 20, 15)
)


@dataclass
class Calibration:
    """Cross-validated span weights and decline thresholds: the held-out records (each
    answered with the weights and declined with the thresholds chosen without its fold),
    the weights and per-language thresholds each fold chose, and the most frequent choices
    (the defaults to ship)."""

    records: list[dict]
    weights: list[SpanWeights]
    thresholds: dict[str, list[float]]
    default_weights: SpanWeights
    default_thresholds: dict[str, float]


def mean_f1(records: Sequence[dict]) -> float:
    """Mean token F1 of the answers to the answerable questions, declines not applied."""
    return mean([r["unscored"]["f1"] for r in records if r["answerable"]])


def calibrate(
    outcomes: Mapping[SpanWeights, Sequence[dict]],
    k: int,
    thresholds: Sequence[float] = THRESHOLDS,
    seed: int = 0,
) -> Calibration:
    """K-fold cross-validation over conversations (an out-of-scope topic counts as one):
    on the K-1 training folds, the span weights with the best `mean_f1` (ties: the first
    listed), then with those, each language's decline threshold with the best
    `decline_objective` (ties: the lowest); both applied to the held-out fold.
    `outcomes` maps each candidate weights to its records (`answer_all`)."""
    first = next(iter(outcomes.values()))
    folds = assign_folds([r["conv_id"] for r in first], k, seed)
    chosen_weights = cross_validate(outcomes, mean_f1, folds).chosen
    held_out: list[dict] = []
    chosen: dict[str, list[float]] = {}
    for fold, weights in enumerate(chosen_weights):
        records = outcomes[weights]
        for language in sorted({r["language"] for r in records}):
            subset = [r for r in records if r["language"] == language]
            train = [r for r in subset if folds[r["conv_id"]] != fold]
            best = max(
                thresholds,
                key=lambda t: (decline_objective(apply_thresholds(train, {language: t})), -t),
            )
            chosen.setdefault(language, []).append(best)
            test = [r for r in subset if folds[r["conv_id"]] == fold]
            held_out.extend({**r, "fold": fold} for r in apply_thresholds(test, {language: best}))
    return Calibration(
        records=held_out,
        weights=list(chosen_weights),
        thresholds=chosen,
        default_weights=Counter(chosen_weights).most_common(1)[0][0],
        default_thresholds={lang: Counter(ts).most_common(1)[0][0] for lang, ts in chosen.items()},
    )


F1_ANSWERED = 0.5
"""Token F1 from which a reply counts as answering (`summarize_answers`' `f1_half`)."""


def summarize_answers(records: Sequence[dict]) -> dict:
    """Figures of a set of records: answer metrics, the share with F1 ≥ `F1_ANSWERED` and
    median words over the answerable questions, their decline rate, and decline recall
    over the out-of-scope ones."""
    answerable = [r for r in records if r["answerable"]]
    outside = [r for r in records if not r["answerable"]]
    out = {m: round(mean([float(r[m]) for r in answerable]), 4) for m in ANSWER_METRICS}
    # the share a reader would call answered (a declined reply scores 0)
    out["f1_half"] = round(mean([float(r["f1"] >= F1_ANSWERED) for r in answerable]), 4)
    answered = [r for r in answerable if not r["declined"]]
    for key in ("words", "reply_words"):
        out[key] = float(statistics.median([r[key] for r in answered])) if answered else 0.0
    out["declined"] = round(mean([float(r["declined"]) for r in answerable]), 4)
    out["decline_recall"] = (
        round(mean([float(r["declined"]) for r in outside]), 4) if outside else None
    )
    out["n"] = len(answerable)
    out["n_out_of_scope"] = len(outside)
    return out
