"""How sure the offline answerer was of an answer it gave: the support of its best span (the
share of the question's terms it covers, `core.spans`) beside the decline threshold it had
to pass (`core.extractive`).

The assistant stores this with each answered turn, so the gaps report (`core.gaps`) can
count the answers that barely passed: a wrong answer that was not declined is a gap the
declines alone never show.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.answer import parse_prompt
from core.extractive import ExtractiveLLM
from core.llm import LLM

LOW_CONFIDENCE_MARGIN = 0.1
"""An answer is low-confidence when its support is less than this above its threshold
(see `is_low_confidence` for how it was chosen)."""


def answer_confidence(llm: LLM, messages: Sequence[dict]) -> dict | None:
    """`{"support": s, "threshold": t}` of the answer the offline answerer gives to the
    answer prompt `messages`; None for another answerer or when it found no span."""
    if not isinstance(llm, ExtractiveLLM):
        return None
    parsed = parse_prompt(messages)
    if parsed is None:
        return None
    question, sources = parsed
    spans = llm.spans(question, [(s.number, s.header, s.text) for s in sources])
    if not spans:
        return None
    support = llm.support(question, spans[0][1])
    return {"support": round(support, 4), "threshold": round(llm.threshold(question), 4)}


def is_low_confidence(confidence: dict | None, margin: float = LOW_CONFIDENCE_MARGIN) -> bool:
    """Whether a stored confidence says the answer barely passed its threshold: support
    under threshold + `margin`. The margin, a tenth of the support scale, was set before
    measuring and then checked on ConfQuestions (`confbot eval --answers --folds 5 --json`,
    thresholds cross-validated): 45 of the 400 answered questions fall under it, 87% of them
    with token F1 < 0.5 against 65% above it, and so do 9 of the 14 out-of-scope questions
    that were answered (docs/benchmarks.md, "Chit-chat, typos and low-confidence answers")."""
    if not confidence:
        return False
    return float(confidence["support"]) < float(confidence["threshold"]) + margin
