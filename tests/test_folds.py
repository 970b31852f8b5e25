"""Fold assignment by conversation and the tuning loop of cross-validation."""

from __future__ import annotations

import pytest

from bot.evaluation.folds import run_conversational_folds
from core.evaluation.folds import assign_folds, cross_validate


def test_every_conversation_is_in_exactly_one_fold_of_balanced_size():
    ids = [f"c{i}" for i in range(34)]
    folds = assign_folds(ids + ids[:5], k=5)  # repeated ids (one per turn) count once
    assert set(folds) == set(ids)
    sizes = sorted(list(folds.values()).count(f) for f in range(5))
    assert sizes == [6, 7, 7, 7, 7]


def test_assignment_is_deterministic_and_order_free():
    ids = [f"c{i}" for i in range(20)]
    assert assign_folds(ids, 4) == assign_folds(list(reversed(ids)), 4)
    assert assign_folds(ids, 4, seed=1) != assign_folds(ids, 4, seed=2)


@pytest.mark.parametrize("k, n", [(1, 10), (5, 3)])
def test_impossible_splits_are_refused(k, n):
    with pytest.raises(ValueError):
        assign_folds([str(i) for i in range(n)], k)


def _records(correct_by_conv: dict[str, float]) -> list[dict]:
    return [{"conv_id": c, "turn_id": "1", "hit": v} for c, v in correct_by_conv.items()]


def test_the_tuning_loop_never_sees_its_test_fold():
    convs = [f"c{i}" for i in range(10)]
    folds = assign_folds(convs, 5)
    seen: list[set[int]] = []

    def objective(train):
        seen.append({folds[r["conv_id"]] for r in train})
        return sum(r["hit"] for r in train)

    outcomes = {p: _records({c: float(i % 2 == p) for i, c in enumerate(convs)}) for p in (0, 1)}
    result = cross_validate(outcomes, objective, folds)
    # Two candidates per fold; the objective of fold f never saw fold f.
    for fold in range(5):
        assert all(fold not in s for s in seen[2 * fold : 2 * fold + 2])
    assert sorted(r["conv_id"] for r in result.records) == sorted(convs)
    assert {r["fold"] for r in result.records} == set(range(5))


def test_a_parameter_that_only_wins_on_its_own_fold_is_not_credited():
    # Parameter "overfit" is right on exactly one conversation per fold and wrong elsewhere;
    # "steady" is right on 60% everywhere. In-sample, picking per question would flatter
    # "overfit"; cross-validated, each fold picks "steady" from the other folds.
    convs = [f"c{i}" for i in range(10)]
    folds = assign_folds(convs, 5)
    steady = _records({c: float(i % 5 < 3) for i, c in enumerate(convs)})
    overfit = _records({c: float(i < 1) for i, c in enumerate(convs)})
    result = cross_validate({"steady": steady, "overfit": overfit}, _mean_hit, folds)
    assert result.chosen == ["steady"] * 5
    assert _mean_hit(result.records) == pytest.approx(0.6)


def test_ties_keep_the_first_candidate():
    convs = [f"c{i}" for i in range(4)]
    folds = assign_folds(convs, 2)
    same = _records(dict.fromkeys(convs, 1.0))
    result = cross_validate({"default": same, "other": same}, _mean_hit, folds)
    assert result.chosen == ["default", "default"]


def _mean_hit(records):
    return sum(r["hit"] for r in records) / len(records)


def test_conversational_folds_replay_each_conversation_once_with_settings_chosen_without_it(
    capsys,
):
    conversations = [{"conv_id": f"c{i}", "turns": []} for i in range(6)]
    folds = assign_folds([c["conv_id"] for c in conversations], 3)

    # Candidate "a" wins on every conversation of fold 0, "b" everywhere else: fold 0 must
    # then be replayed with "b" (chosen on folds 1 and 2), the others with "a" or "b" as
    # their training folds say.
    def tune(label, overrides):
        return [
            {"conv_id": c, "lang": "en", "p_at_1": float((folds[c] == 0) == (label == "a"))}
            for c in folds
        ]

    replayed: list[tuple[str, dict]] = []

    def replay(overrides, convs):
        replayed.extend((c["conv_id"], overrides) for c in convs)
        return [_record(c["conv_id"], 1.0) for c in convs]

    grid = [("a", {"x": "a"}), ("b", {"x": "b"})]
    result = run_conversational_folds(3, grid, tune, replay, conversations, ["en"])
    assert sorted(c for c, _ in replayed) == sorted(folds)
    assert result["chosen"][0] == "b"
    for conv_id, overrides in replayed:
        assert overrides["x"] == result["chosen"][folds[conv_id]]
    assert result["cross_validated"]["en"]["p_at_1"] == 1.0
    assert "fold 0" in capsys.readouterr().out


def _record(conv_id: str, hit: float) -> dict:
    return {
        "conv_id": conv_id,
        "lang": "en",
        "p_at_1": hit,
        "p_at_1_dup": hit,
        "r_at_10": hit,
        "mrr": hit,
        "answer_recall_at_10": hit,
    }
