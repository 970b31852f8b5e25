"""Evidence self-check: before answering, keep only the retrieved evidences that help.

As in ConvRAG's self-check generator (Ye et al., "Boosting Conversational Question
Answering with Fine-Grained Retrieval-Augmentation and Self-Check", SIGIR 2024), each
retrieved evidence is judged for whether it helps answer the question, and the unhelpful
ones leave the answer prompt and the sources list, so the answer cannot cite them. When
none helps, the answer is given no sources and declines.

The judge is the answerer's own reader:

- offline (`core.extractive.ExtractiveLLM`): each evidence's helpfulness is the support of
  its best answer span (`core.spans`: the share of the question's terms the span covers,
  as `ExtractiveLLM.support` weighs it for a follow-up), the score the offline answerer
  declines on; an evidence is kept when its support reaches the answerer's own decline
  threshold for the question (its language, and whether it is a follow-up) and at least
  `self_check_min_ratio` times the best one. The floor is the answerer's threshold, not a
  number of its own: a higher floor would decline questions the answerer can answer (a
  German question's support over an English wiki is lower), a lower one would keep
  evidences the answerer itself would not answer from. So the offline check does not
  change whether a question is declined (the answerer answers from its best-supported
  span, and declines exactly when no evidence reaches the threshold), only which evidences
  the answer and its sources list are given; a follow-up, whose spans are ordered by
  their own terms' support but judged with the carried topic's, may rarely differ;
- of the evidences judged to help, one that repeats a better-ranked kept one (more than
  `REPEAT_SHARE` of its words inside it, `core.redundancy`, on any page: a copy of a
  page, an older version) is left out too. It adds nothing to the answer, and cited it
  is a second source for the same words, often the copy the reader was not meant to find
  (docs/benchmarks.md, "Self-check: one source per fact");
- with a model: one batched call (`core.answer.build_judgment_messages`) answers `n: yes`
  or `n: no` for every source; a reply that does not judge every source exactly once is
  malformed, logged, and keeps every evidence (a failed check must not lose sources).

The ratio is chosen by cross-validation over conversations
(`confbot eval --answers --self-check --folds 5`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.answer import build_judgment_messages, source_header, source_text
from core.extractive import ExtractiveLLM
from core.llm import LLM
from core.pages import Evidence
from core.redundancy import NoveltyFilter

log = logging.getLogger(__name__)

REPEAT_SHARE = 0.8
"""Share of a helpful evidence's words inside a better-ranked kept one above which it is a
repeat. Retrieval's `redundancy_threshold` (0.4) is for a table and its rows on one page;
across pages, two evidences about one subject share that much and still say different
things. Held-out citation precision is flat from 0.6 to 0.9 (docs/benchmarks.md)."""

_VERDICT = re.compile(r"^\s*\[?(\d+)\]?\s*[:.)\-]\s*(yes|no)\b", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class SelfCheck:
    """The outcome of a self-check: each evidence's helpfulness (retrieval order; 1/0 for
    a model's yes/no), the 0-based positions kept, and how it was judged (`extractive`,
    `llm`, or `malformed` when a model's reply could not be read and everything was kept).
    """

    scores: list[float]
    kept: list[int]
    judge: str

    def to_dict(self) -> dict:
        """The JSON stored in a turn's trace."""
        return {
            "scores": [round(s, 4) for s in self.scores],
            "kept": self.kept,
            "judge": self.judge,
        }


def span_support(llm: ExtractiveLLM, question: str, evidences: Sequence[Evidence]) -> list[float]:
    """The support of each evidence's best answer span (0 where it has none), as the
    offline answerer holds it against its decline threshold."""
    sources = [(n, source_header(e), source_text(e)) for n, e in enumerate(evidences, start=1)]
    support = [0.0] * len(evidences)
    for number, span in llm.spans(question, sources):
        support[number - 1] = max(support[number - 1], llm.support(question, span))
    return support


def parse_judgment(text: str, count: int) -> list[float] | None:
    """1.0 (yes) or 0.0 (no) for sources 1..`count` from a reply of `n: yes|no` lines;
    None when a source is missing, judged twice, or out of range."""
    verdicts: dict[int, float] = {}
    for match in _VERDICT.finditer(text):
        number = int(match.group(1))
        if not 1 <= number <= count or number in verdicts:
            return None
        verdicts[number] = 1.0 if match.group(2).lower() == "yes" else 0.0
    if len(verdicts) != count:
        return None
    return [verdicts[n] for n in range(1, count + 1)]


def model_judgment(llm: LLM, question: str, evidences: Sequence[Evidence]) -> list[float] | None:
    """A model's yes/no judgment of every evidence in one call; None when malformed."""
    (reply,) = llm.complete(build_judgment_messages(question, evidences), temperature=0.0)
    return parse_judgment(reply, len(evidences))


def kept_positions(scores: Sequence[float], min_support: float, min_ratio: float) -> list[int]:
    """Positions whose score is at least `min_support` and `min_ratio` times the best."""
    best = max(scores, default=0.0)
    return [
        i
        for i, score in enumerate(scores)
        if score > 0 and score >= min_support and score >= min_ratio * best
    ]


def novel_positions(evidences: Sequence[Evidence], positions: Sequence[int]) -> list[int]:
    """Those of `positions` (in rank order) whose evidence does not repeat the evidence of
    an earlier one kept (`core.redundancy` over every page at once, `REPEAT_SHARE`)."""
    novelty = NoveltyFilter(REPEAT_SHARE, {evidences[i].page_id: "kept" for i in positions})
    return [i for i in positions if novelty.admit(evidences[i])]


def self_check(
    llm: LLM,
    question: str,
    evidences: Sequence[Evidence],
    min_ratio: float,
) -> SelfCheck:
    """Judge which `evidences` help answer `question`, leaving out those that repeat a
    better-ranked helpful one (see the module docstring)."""
    if not evidences:
        return SelfCheck([], [], "none")
    if isinstance(llm, ExtractiveLLM):
        scores = span_support(llm, question, evidences)
        kept = kept_positions(scores, llm.threshold(question), min_ratio)
        return SelfCheck(scores, novel_positions(evidences, kept), "extractive")
    judged = model_judgment(llm, question, evidences)
    if judged is None:
        log.warning(
            "self-check: the model's judgment of %d sources was malformed; keeping all",
            len(evidences),
        )
        return SelfCheck([1.0] * len(evidences), list(range(len(evidences))), "malformed")
    helpful = [i for i, s in enumerate(judged) if s > 0]
    return SelfCheck(judged, novel_positions(evidences, helpful), "llm")
