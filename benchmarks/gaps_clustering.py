"""How well the gaps report groups questions by topic, and the choice of its distance cut
(`gaps_distance`) by 5-fold cross-validation over ConfQuestions conversations.

Every completed question of the benchmark (English and German, so a topic asked in both
languages should be one group) is embedded with the configured embedder (the offline USE
model by default) and clustered as `core.gaps.cluster_labels` does, for each candidate cut.
Questions whose gold answer is on the same page count as one topic (the "what to write"
unit of a wiki owner). For each fold the cut with the best adjusted Rand index (Hubert and
Arabie, 1985) against the topics of the four other folds' questions is chosen
(`core.evaluation.folds.cross_validate`) and scored on the held-out fold's questions; the
mean held-out figure is the one to report, never the figure a cut was chosen on. Also prints
each candidate's ARI over all questions, and its number of groups, for reference.

    .venv/bin/python benchmarks/gaps_clustering.py [--folds 5] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.metrics import adjusted_rand_score  # noqa: E402

from benchmarks._common import DATA  # noqa: E402
from core.embeddings import make_embedder  # noqa: E402
from core.evaluation.benchmark import load_conversations, questions  # noqa: E402
from core.evaluation.folds import assign_folds, cross_validate  # noqa: E402
from core.gaps import cluster_labels  # noqa: E402
from core.settings import Settings  # noqa: E402

CANDIDATES = [0.45, 0.3, 0.35, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8]
"""Cuts tried; the current default first, so a tie keeps it."""


def ari(records) -> float:
    """Adjusted Rand index of the records' clusters against their topics."""
    if len(records) < 2:
        return 0.0
    return adjusted_rand_score([r["topic"] for r in records], [r["cluster"] for r in records])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    path = DATA / "conversations.json"
    if not path.is_file():
        raise SystemExit(f"ConfQuestions not found at {DATA}; set CONFBOT_BENCHMARK_DIR")
    items = questions(load_conversations(path), "completed", ("en", "de"))
    embedder = make_embedder(Settings.load(environ={}), cache=False)
    vectors = embedder.embed([q.text for q in items])
    outcomes = {}
    for cut in CANDIDATES:
        labels = cluster_labels(vectors, cut)
        outcomes[cut] = [
            {"conv_id": q.conv_id, "topic": min(q.gold_pages), "cluster": label}
            for q, label in zip(items, labels, strict=True)
        ]
        print(
            f"cut {cut:.2f}: {len(set(labels))} groups, ARI over all {len(items)} questions"
            f" {ari(outcomes[cut]):.3f}"
        )
    folds = assign_folds((q.conv_id for q in items), args.folds, seed=args.seed)
    result = cross_validate(outcomes, ari, folds)
    held_out = defaultdict(list)
    for record in result.records:
        held_out[record["fold"]].append(record)
    scores = [ari(held_out[f]) for f in sorted(held_out)]
    print(f"topics (gold pages): {len({min(q.gold_pages) for q in items})}")
    print(f"cut chosen per fold: {', '.join(f'{c:.2f}' for c in result.chosen)}")
    print(
        f"held-out ARI per fold: {', '.join(f'{s:.3f}' for s in scores)};"
        f" mean {statistics.mean(scores):.3f} ({args.folds}-fold, by conversation)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
