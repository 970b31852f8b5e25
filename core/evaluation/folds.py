"""K-fold cross-validation by conversation, so no tuned figure is scored on its own data.

Questions of one conversation share pages and topics, so folds split conversations, never
turns: every turn of a conversation lands in the same fold. A parameter (a fusion weight, a
decline threshold...) is chosen on K-1 folds and the figure is taken on the remaining one;
the K held-out parts together give the cross-validated figure (Stone, "Cross-validatory
choice and assessment of statistical predictions", JRSS B, 1974).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass


def assign_folds(conv_ids: Iterable[str], k: int, seed: int = 0) -> dict[str, int]:
    """Conversation id → fold (0..k-1): the distinct ids sorted, shuffled with `seed`, dealt
    round-robin, so fold sizes differ by at most one conversation and the assignment does
    not depend on the order the ids come in."""
    if k < 2:
        raise ValueError(f"cross-validation needs at least 2 folds, not {k}")
    ids = sorted({str(c) for c in conv_ids})
    if len(ids) < k:
        raise ValueError(f"{len(ids)} conversation(s) cannot be split into {k} folds")
    random.Random(seed).shuffle(ids)
    return {conv_id: position % k for position, conv_id in enumerate(ids)}


@dataclass
class CrossValidation:
    """The outcome of `cross_validate`.

    `records`: the held-out records of every fold, each scored with the parameter chosen
    without it (and tagged with `fold` and `param`); `chosen`: the parameter of each fold.
    """

    records: list[dict]
    chosen: list[Hashable]


def cross_validate(
    outcomes: Mapping[Hashable, Sequence[dict]],
    objective: Callable[[Sequence[dict]], float],
    folds: Mapping[str, int],
) -> CrossValidation:
    """Choose a parameter on K-1 folds and score it on the held-out fold, for every fold.

    `outcomes` maps each candidate parameter to its per-question records (each with a
    `conv_id`); `objective` turns records into a figure to maximize (ties keep the
    candidate listed first, so list the default first). `objective` only ever sees records
    of the training folds.
    """
    if not outcomes:
        raise ValueError("no candidate parameters to choose from")
    k = max(folds.values()) + 1
    chosen: list[Hashable] = []
    held_out: list[dict] = []
    for fold in range(k):
        best, best_score = None, float("-inf")
        for param, records in outcomes.items():
            train = [r for r in records if folds[str(r["conv_id"])] != fold]
            score = objective(train)
            if score > best_score:
                best, best_score = param, score
        chosen.append(best)
        held_out.extend(
            {**r, "fold": fold, "param": best}
            for r in outcomes[best]
            if folds[str(r["conv_id"])] == fold
        )
    return CrossValidation(records=held_out, chosen=chosen)
