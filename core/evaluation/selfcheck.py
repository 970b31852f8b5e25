"""Does the evidence self-check help? Citation precision and answer F1 with and without it.

Every question is retrieved once (top 10; `core.evaluation.answers.retrieve_all`) and
answered once per candidate self-check ratio (`GRID`: `None` is the self-check off,
listed first so that ties keep it), each from the evidences that candidate keeps
(`core.selfcheck`; offline, the support floor is the answerer's own decline threshold).
A record is `core.evaluation.answers.answer_record`'s (token F1 and the rest; a decline
scores 0) plus `citation_precision` (cited pages that are gold pages,
`core.evaluation.attribution.citation_scores`; None when nothing is cited) and `kept`.

`choose` picks the ratio by cross-validation over conversations
(`core.evaluation.folds`): on the K-1 training folds, the candidate with the best citation
precision among those whose answer F1 is not below the self-check off's on the same
questions (the issue's target: precision up, F1 not lower), scored on the held-out fold.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from core.answer import generate
from core.evaluation.answers import OUT_OF_SCOPE_SOURCE, answer_record, contains_gold
from core.evaluation.attribution import citation_scores
from core.evaluation.benchmark import Question
from core.evaluation.folds import assign_folds, cross_validate
from core.evaluation.metrics import mean, page_id_of
from core.llm import LLM
from core.pages import Evidence
from core.selfcheck import self_check

# min_ratio candidates; None: no self-check.
GRID: tuple[float | None, ...] = (None, 0.0, 0.5, 0.7, 0.85, 1.0)


def answer_with_self_check(
    llm: LLM,
    items: Sequence[Question],
    retrieved: Sequence[Sequence[Evidence]],
    min_ratio: float | None,
) -> list[dict]:
    """Answer and score every question from the evidences the self-check with these
    `min_ratio` keeps (all of them when None)."""
    records = []
    for question, evidences in zip(items, retrieved, strict=True):
        given = list(evidences)
        if min_ratio is not None:
            check = self_check(llm, question.text, evidences, min_ratio)
            given = [evidences[i] for i in check.kept]
        (answer,) = generate(llm, question.text, given)
        top_text = given[0].text if given else ""
        record = answer_record(question, answer.text, answer.out_of_scope, top_text)
        record["any_contained"] = float(any(contains_gold(question.answer, e.text) for e in given))
        cited = [page_id_of(c.url) for c in answer.citations]
        precision, _ = citation_scores(cited, set(question.gold_pages))
        answerable = question.a_source != OUT_OF_SCOPE_SOURCE
        record["citation_precision"] = precision if answerable else None
        record["kept"] = len(given)
        records.append(record)
    return records


def citation_precision(records: Sequence[dict]) -> float:
    """Mean citation precision over the answerable questions whose answer cites a page."""
    return mean([r["citation_precision"] for r in records if r["citation_precision"] is not None])


def answer_f1(records: Sequence[dict]) -> float:
    """Mean token F1 over the answerable questions (a decline scores 0)."""
    return mean([r["f1"] for r in records if r["answerable"]])


@dataclass
class SelfCheckChoice:
    """The cross-validated self-check ratio: the held-out records and each fold's choice."""

    records: list[dict]
    chosen: list[float | None]


def choose(outcomes: Mapping[Hashable, Sequence[dict]], k: int, seed: int = 0) -> SelfCheckChoice:
    """K-fold cross-validation over conversations (see the module docstring); `outcomes`
    maps each candidate of `GRID` (None first) to its records."""
    off = outcomes[None]
    folds = assign_folds([r["conv_id"] for r in off], k, seed)

    def objective(train: Sequence[dict]) -> float:
        convs = {r["conv_id"] for r in train}
        floor = answer_f1([r for r in off if r["conv_id"] in convs])
        return citation_precision(train) if answer_f1(train) >= floor - 1e-9 else float("-inf")

    result = cross_validate(outcomes, objective, folds)
    return SelfCheckChoice(records=result.records, chosen=list(result.chosen))
