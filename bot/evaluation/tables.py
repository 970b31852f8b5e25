"""Fixed-width tables for the evaluation presenters."""

from __future__ import annotations

from collections.abc import Sequence

from core.evaluation.benchmark import METRICS

RETRIEVAL_COLUMNS = tuple(zip(("P@1", "P@1 dup", "R@10", "MRR", "AnsR@10"), METRICS, strict=True))


def format_table(
    title: str,
    rows: Sequence[tuple[str, dict]],
    columns: Sequence[tuple[str, str]] = RETRIEVAL_COLUMNS,
    label_width: int = 28,
) -> str:
    """A fixed-width table: one row per label, one column per (header, figure key), and `n`.

    A figure missing from a row prints as `-`.
    """
    lines = [
        title,
        f"{'':<{label_width}}" + "".join(f"{h:>10}" for h, _ in columns) + f"{'n':>6}",
    ]
    for label, figures in rows:
        cells = "".join(_cell(figures.get(key)) for _, key in columns)
        lines.append(f"{label:<{label_width}}{cells}{figures.get('n', ''):>6}")
    return "\n".join(lines)


def _cell(value) -> str:
    if value is None:
        return f"{'-':>10}"
    if isinstance(value, float):
        return f"{value:>10.3f}"
    return f"{value!s:>10}"
