"""The ablation grids of the ConfQuestions evaluation, as settings overrides.

Each ablation is a list of (label, overrides) rows, like the published tables: context
(NONE / TTL / HDR / BEF / AFT / ALL), table linearizers, indexing mode (rows / tables /
both), retrievers (lexical / dense / hybrid), and the redundancy threshold (core.redundancy;
1.0 keeps every evidence). Cross-validation chooses a row by strict P@1, except for the
redundancy threshold, which cannot move the first result: it is chosen by answer recall@10
(`OBJECTIVES`).
"""

from __future__ import annotations

_CONTEXT_OFF = {
    "context_title": False,
    "context_heading": False,
    "context_before": False,
    "context_after": False,
}

ABLATIONS: dict[str, list[tuple[str, dict]]] = {
    "context": [
        ("NONE", dict(_CONTEXT_OFF)),
        ("TTL", {**_CONTEXT_OFF, "context_title": True}),
        ("HDR", {**_CONTEXT_OFF, "context_heading": True}),
        ("BEF", {**_CONTEXT_OFF, "context_before": True}),
        ("AFT", {**_CONTEXT_OFF, "context_after": True}),
        ("ALL", {}),
    ],
    "linearizer": [
        (name, {"linearizer": name})
        for name in ("verbalized", "piped", "markdown", "html", "plain")
    ],
    "indexing": [(mode, {"indexing_mode": mode}) for mode in ("rows", "tables", "both")],
    "retriever": [("lexical", {}), ("dense", {}), ("hybrid", {})],
    "redundancy": [
        (f"{t:.1f}", {"redundancy_threshold": t}) for t in (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3)
    ],
}

# The record field that cross-validation maximizes per ablation (default: strict P@1).
OBJECTIVES = {"redundancy": "answer_recall_at_10"}

RETRIEVERS = {"lexical": ("lexical",), "dense": ("dense",), "hybrid": ("lexical", "dense")}


def ablation_rows(name: str) -> list[tuple[str, dict]]:
    """The (label, overrides) rows of an ablation."""
    if name not in ABLATIONS:
        raise ValueError(f"ablation {name!r} is not one of: {', '.join(ABLATIONS)}")
    return ABLATIONS[name]
