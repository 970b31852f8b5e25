"""The query-time parameters `confbot eval --folds K` tunes, and how a candidate is judged.

Only parameters that change retrieval without re-indexing are in the grid, so every
candidate reuses one index. Each candidate is run on every question; `cross_validate`
(core.evaluation.folds) then picks one per fold on the other folds and scores it on that
fold. The default settings come first in the grid, so ties keep the default.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from core.evaluation.metrics import mean
from core.settings import Settings

# Values tried per parameter (the current default is added in front when missing).
GRID: dict[str, tuple] = {
    "dense_weight": (0.5, 1.0),
    "page_weight": (0.0, 0.5),
    "title_weight": (0.0, 1.0, 2.0),
    "title_entity_weight": (0.0, 1.0, 2.0),
    "prefer_canonical": (False, True),
}


def candidates(settings: Settings, grid: Mapping[str, Sequence] = GRID) -> list[tuple[str, dict]]:
    """(label, overrides) for every combination of the grid's values, the settings' own
    values first; a label reads like `fusion=zscore dense_weight=0.5`."""
    axes = []
    for name, values in grid.items():
        current = getattr(settings, name)
        axes.append([(name, v) for v in dict.fromkeys([current, *values])])
    out = []
    for combination in itertools.product(*axes):
        overrides = dict(combination)
        out.append((" ".join(f"{k}={v}" for k, v in overrides.items()), overrides))
    return out


def objective(records: Sequence[dict], metric: str = "p_at_1") -> float:
    """What tuning maximizes: strict page P@1 (or another per-question `metric`) over the
    records, both languages at once, since one setting serves both."""
    return mean([r[metric] for r in records])
