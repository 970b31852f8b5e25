"""Attribution and citation quality on ConfQuestions.

For every question: retrieve the top 10 evidences, answer with the configured LLM, and
attribute the answer with each method asked for (`core.attribution`). Measures, per
question:

- attribution accuracy (`<method>_accuracy`): 1 when the top-attributed evidence comes
  from a gold page. As published for RAGONITE (Saha Roy et al., WSDM 2025), it is defined
  only over the questions whose gold page is among the top 10 (None elsewhere, so those
  questions are left out of the mean). `<method>_accuracy_dup` also counts the copy of a
  gold page in another space (the benchmark's nine duplicated pages);
- citation precision (cited pages that are gold pages, over the questions whose answer
  cites something) and citation recall (gold pages the answer cites);
- whether a gold page was retrieved (`gold_in_top10`) and whether the answer was the
  out-of-scope sentence.

Two baselines that read neither the answer nor the evidences' content sit beside the
methods: `first` gives everything to evidence #1 (its accuracy is the retrieval's P@1 on
those questions), `uniform` shares the answer equally (its accuracy is the expected one of
a random pick: the share of the top 10 on a gold page). A method that does not beat them
measures retrieval, not attribution.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from core.answer import generate
from core.attribution import METHODS, ClusterShare, Explanation, attribute
from core.embeddings import Embedder
from core.evaluation.benchmark import SLICE_KEYS, Question, question_fields
from core.evaluation.metrics import mean, page_id_of, slices, summarize
from core.llm import LLM
from core.retrieve import Retriever
from core.settings import Settings

COMMON_METRICS = ("citation_precision", "citation_recall", "gold_in_top10", "out_of_scope")
BASELINES = ("first", "uniform")


def metric_names(methods: Sequence[str]) -> list[str]:
    """The per-question metric keys of a run over `methods` (and the baselines)."""
    out = []
    for method in [*methods, *BASELINES]:
        out += [f"{method}_accuracy", f"{method}_accuracy_dup"]
    return out + list(COMMON_METRICS)


def baseline_explanation(name: str, question: str, answer: str, count: int) -> Explanation:
    """A content-blind baseline over `count` evidences: `first` (all to evidence #1) or
    `uniform` (equal shares)."""
    if name == "first":
        shares = [1.0] + [0.0] * (count - 1) if count else []
    elif name == "uniform":
        shares = [1.0 / count] * count
    else:
        raise ValueError(f"attribution baseline {name!r} is not one of: {', '.join(BASELINES)}")
    clusters = [
        ClusterShare(number, [number], [f"source-{number}"], share, share)
        for number, share in enumerate(shares, start=1)
    ]
    return Explanation(name, question, answer, clusters)


def evidence_shares(explanation: Explanation, count: int) -> list[float]:
    """Each evidence's share (index 0 is evidence #1): a cluster's share split equally
    among its evidences."""
    shares = [0.0] * count
    for cluster in explanation.clusters:
        for number in cluster.evidences:
            if 1 <= number <= count:
                shares[number - 1] += cluster.share / len(cluster.evidences)
    return shares


def citation_scores(cited_pages: Sequence[str], gold: set[str]) -> tuple[float | None, float]:
    """(precision, recall) of the cited pages against the gold pages; precision is None
    when nothing is cited."""
    cited = set(cited_pages)
    hits = len(cited & gold)
    precision = hits / len(cited) if cited else None
    recall = hits / len(gold) if gold else 0.0
    return precision, recall


def run_attribution(
    retriever: Retriever,
    llm: LLM,
    embedder: Embedder,
    settings: Settings,
    items: Sequence[Question],
    groups: dict[str, str],
    methods: Sequence[str] = METHODS,
    k: int = 10,
) -> list[dict]:
    """Retrieve, answer and attribute every question; one record per question."""
    for method in methods:
        if method not in METHODS:
            raise ValueError(f"attribution method {method!r} is not one of: {', '.join(METHODS)}")
    records = []
    for question in items:
        retrieval = retriever.search(question.text, k=k)
        evidences = [r.evidence for r in retrieval.results]
        pages = [page_id_of(e.url) for e in evidences]
        gold = set(question.gold_pages)
        gold_groups = {groups.get(p, p) for p in gold}
        start = time.perf_counter()
        (answer,) = generate(llm, question.text, evidences)
        answer_ms = (time.perf_counter() - start) * 1000
        precision, recall = citation_scores([page_id_of(c.url) for c in answer.citations], gold)
        retrieved = bool(gold & set(pages))
        record = {
            **question_fields(question),
            "pages": pages,
            "answer": answer.text,
            "cited": [c.number for c in answer.citations],
            "answer_ms": round(answer_ms, 2),
            "gold_in_top10": float(retrieved),
            "out_of_scope": float(answer.out_of_scope),
            "citation_precision": precision,
            "citation_recall": recall,
        }
        for method in methods:
            explanation = attribute(
                method, settings, llm, embedder, question.text, evidences, answer.text
            )
            top = explanation.top_evidence()
            page = pages[top - 1] if top else None
            hit = page in gold
            hit_dup = page is not None and groups.get(page, page) in gold_groups
            record[f"{method}_top"] = top
            record[f"{method}_shares"] = [
                (c.evidences, round(c.share, 4)) for c in explanation.clusters if c.share > 0
            ]
            record[f"{method}_ms"] = explanation.timings["total_ms"]
            record[f"{method}_accuracy"] = float(hit) if retrieved else None
            record[f"{method}_accuracy_dup"] = float(hit or hit_dup) if retrieved else None
        on_gold = [page in gold for page in pages]
        on_gold_dup = [groups.get(page, page) in gold_groups for page in pages]
        for name, strict, dup in (
            ("first", on_gold[:1], on_gold_dup[:1]),
            ("uniform", on_gold, on_gold_dup),
        ):
            record[f"{name}_accuracy"] = mean([float(x) for x in strict]) if retrieved else None
            record[f"{name}_accuracy_dup"] = mean([float(x) for x in dup]) if retrieved else None
        records.append(record)
    return records


def report(records: Sequence[dict], methods: Sequence[str]) -> dict:
    """Overall and per-slice means (each metric over the records where it is defined),
    with the number of questions each accuracy is computed over."""
    names = metric_names(methods)
    overall = summarize(records, names)
    for method in [*methods, *BASELINES]:
        overall[f"{method}_n"] = sum(r[f"{method}_accuracy"] is not None for r in records)
    return {**overall, "slices": slices(records, SLICE_KEYS, names)}
