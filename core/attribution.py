"""Attribution of an answer to the evidences it was generated from.

Three methods, chosen by name with `attribute`:

- `counterfactual` (the default; `counterfactual_attribution`): remove a group of
  evidences, regenerate the answer, and measure how much it changed. This is the
  counterfactual attribution of RAGONITE (Saha Roy, Schlotthauer, Hinze, Foltyn, Hahn and
  Kuech, "Evidence Contextualization and Counterfactual Attribution for Conversational QA
  over Heterogeneous Data with RAG Systems", WSDM 2025 demo, arXiv:2412.10571), with its
  published parameters as the defaults of the `attribution_*` settings: DBSCAN eps 0.005
  and min_samples 2 (cosine), m = 1 Monte-Carlo sample, softmax temperature 0.05.
- `naive` (`naive_attribution`): softmax of the cosine similarity between the answer and
  each evidence, the similarity-based baseline the paper compares against. It says which
  evidence the answer resembles, not which one caused it.
- `citation` (`citation_attribution`): the sources the answer cites, in equal shares.

Every method returns an `Explanation`: clusters of evidences (singletons for the
baselines) sorted by share, printable as `Attributed 67.32% to cluster 1 [Evidence 1, 2]`,
and for the counterfactual method the regenerated answers, kept for the trace.

Evidences are referred to by their 1-based number in the answer prompt. Counterfactual
prompts keep the numbers of the evidences they keep (`build_messages(numbers=...)`):
renumbering would change the citations of every source after the removed one, and the
answer would differ for a reason that has nothing to do with the removed evidence.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

import numpy as np

from core.answer import (
    CITATION,
    build_messages,
    cited_numbers,
    parse_prompt,
    source_header,
    source_text,
    split_follow_ups,
)
from core.embeddings import Embedder, normalize
from core.llm import LLM
from core.pages import Evidence
from core.settings import Settings

METHODS = ("counterfactual", "naive", "citation")


@dataclass
class ClusterShare:
    """One cluster of evidences and its share of the answer.

    `cluster`: a 1-based label, clusters numbered in the order of their best-ranked
    evidence; `evidences`: the 1-based evidence numbers it holds; `score`: what the
    shares are a softmax of (the contribution 1 − mean similarity for the counterfactual
    method, the answer-evidence cosine for the naive one, 1 for a cited source);
    `counterfactuals` and `similarities`: the answers regenerated without this cluster and
    their similarity to the original answer (counterfactual method only).
    """

    cluster: int
    evidences: list[int]
    evidence_ids: list[str]
    score: float
    share: float
    counterfactuals: list[str] = field(default_factory=list)
    similarities: list[float] = field(default_factory=list)

    def line(self) -> str:
        """`Attributed 67.32% to cluster 1 [Evidence 1, 2]`."""
        numbers = ", ".join(str(n) for n in self.evidences)
        return f"Attributed {self.share * 100:.2f}% to cluster {self.cluster} [Evidence {numbers}]"


@dataclass
class Explanation:
    """The attribution of one answer: clusters sorted by share (highest first, ties by
    cluster label), the parameters used and the time each step took (ms)."""

    method: str
    question: str
    answer: str
    clusters: list[ClusterShare]
    params: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)

    def top_evidence(self) -> int | None:
        """The number of the top-attributed evidence: the best-ranked evidence of the
        cluster with the largest share; None when no cluster has a share."""
        if not self.clusters or self.clusters[0].share <= 0:
            return None
        return self.clusters[0].evidences[0]

    def lines(self) -> list[str]:
        """The breakdown, one line per cluster, or one line saying nothing was attributed."""
        if self.top_evidence() is None:
            if self.method == "citation":
                return ["The answer cites no source."]
            return ["No evidence changed the answer when it was removed: nothing to attribute."]
        return [c.line() for c in self.clusters]

    def to_dict(self) -> dict:
        """A JSON-ready dict (what the explanations table stores)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, payload: dict) -> Explanation:
        """The explanation `to_dict` wrote."""
        data = dict(payload)
        data["clusters"] = [ClusterShare(**c) for c in data.get("clusters", [])]
        return cls(**data)


# --------------------------------------------------------------------------- pure helpers
def masked_softmax(scores: Sequence[float], temperature: float) -> list[float]:
    """Softmax of `scores / temperature` over the non-zero scores; a score of exactly 0
    gets a share of exactly 0, and all-zero scores give all-zero shares.

    The masking is RAGONITE's (Saha Roy et al., 2025): an evidence whose removal leaves
    the answer unchanged caused none of it, so it must not receive the softmax's floor.
    """
    if temperature <= 0:
        raise ValueError(f"softmax temperature must be positive, got {temperature}")
    active = [i for i, s in enumerate(scores) if s != 0]
    shares = [0.0] * len(scores)
    if not active:
        return shares
    top = max(scores[i] for i in active)
    weights = {i: math.exp((scores[i] - top) / temperature) for i in active}
    total = sum(weights.values())
    for i, w in weights.items():
        shares[i] = w / total
    return shares


def cluster_evidences(vectors: np.ndarray, eps: float, min_samples: int) -> list[list[int]]:
    """Groups of evidence indexes (0-based) with near-identical content: DBSCAN (Ester,
    Kriegel, Sander and Xu, KDD 1996) on the normalized vectors with the cosine distance;
    noise points become singleton clusters. Groups are ordered by their first index, and
    indexes within a group ascend."""
    n = len(vectors)
    if n == 0:
        return []
    if n == 1:
        return [[0]]
    from sklearn.cluster import DBSCAN

    labels = DBSCAN(eps=eps, min_samples=min_samples, metric="cosine").fit_predict(
        normalize(vectors)
    )
    groups: dict[object, list[int]] = {}
    for i, label in enumerate(labels):
        key = ("noise", i) if label < 0 else ("cluster", int(label))
        groups.setdefault(key, []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def evidence_text(evidence: Evidence) -> str:
    """An evidence as the answer prompt shows it: `Title — heading` and its text."""
    return f"{source_header(evidence)}\n{source_text(evidence)}"


def without_markers(text: str) -> str:
    """`text` with its citation markers removed."""
    return " ".join(CITATION.sub(" ", text).split())


def prompt_evidences(
    messages: Sequence[dict], trace: Sequence[dict] = ()
) -> tuple[str, list[Evidence], list[int]]:
    """(question, evidences, their numbers) read back from a stored answer prompt, so a
    turn is explained from exactly what the LLM saw, even after its pages were re-synced.
    `trace` (the turn's stored evidences, best first) supplies ids, page ids and URLs;
    `build_messages(question, evidences, numbers)` gives back the same messages."""
    parsed = parse_prompt(messages)
    if parsed is None:
        raise ValueError("the stored messages are not an answer prompt")
    question, sources = parsed
    evidences = []
    for source in sources:
        ref = trace[source.number - 1] if 0 < source.number <= len(trace) else {}
        evidences.append(
            Evidence(
                id=str(ref.get("id", f"source-{source.number}")),
                page_id=str(ref.get("page_id", "")),
                space="",
                url=str(ref.get("url", "")),
                title=source.header,
                kind="passage",
                position=source.number,
                text=source.text,
            )
        )
    return question, evidences, [s.number for s in sources]


def _cosines(reference: np.ndarray, rows: np.ndarray) -> list[float]:
    """Cosine of each row with `reference` (all unit vectors), computed in float64."""
    ref = np.asarray(reference, dtype=np.float64)
    return [float(np.clip(np.dot(ref, np.asarray(r, dtype=np.float64)), -1.0, 1.0)) for r in rows]


def _sorted(clusters: list[ClusterShare]) -> list[ClusterShare]:
    return sorted(clusters, key=lambda c: (-c.share, c.cluster))


# --------------------------------------------------------------------------- methods
def counterfactual_attribution(
    llm: LLM,
    embedder: Embedder,
    question: str,
    evidences: Sequence[Evidence],
    answer: str,
    *,
    eps: float = 0.005,
    min_samples: int = 2,
    samples: int = 1,
    sampling_temperature: float = 1.0,
    softmax_temperature: float = 0.05,
    workers: int = 16,
    numbers: Sequence[int] | None = None,
) -> Explanation:
    """Counterfactual attribution of `answer` to `evidences` (RAGONITE, Saha Roy et al.,
    WSDM 2025, arXiv:2412.10571).

    1. Cluster the evidences by content (`cluster_evidences`: DBSCAN, cosine, `eps`,
       `min_samples`), so that redundant evidences are removed together.
    2. For each cluster, regenerate the answer to `question` from the other evidences,
       `samples` times (Monte Carlo; with more than one sample each is drawn at
       `sampling_temperature`, a single sample at temperature 0). Every sample of every
       cluster is one LLM call, all run at once on a pool of at most `workers` threads, so
       the wall time is about one LLM call when the pool is wide enough. A regenerated
       answer's follow-ups block is cut off (`core.answer.split_follow_ups`), as it was
       from the answer, so proposed follow-ups never count as a change.
    3. Similarity of each counterfactual answer to `answer`: the cosine of the embeddings
       of "question + answer" on both sides (a counterfactual identical to the answer has
       similarity exactly 1). The contribution of a cluster is 1 − the mean similarity.
    4. Shares: `masked_softmax(contributions, softmax_temperature)`.

    `question` is the completed question the answer was generated for; `numbers` are the
    evidences' numbers in the answer prompt (default 1..n).
    """
    if samples < 1:
        raise ValueError(f"attribution samples must be at least 1, got {samples}")
    numbers = list(numbers) if numbers is not None else list(range(1, len(evidences) + 1))
    start = time.perf_counter()
    vectors = embedder.embed([evidence_text(e) for e in evidences])
    groups = cluster_evidences(vectors, eps, min_samples)
    cluster_ms = (time.perf_counter() - start) * 1000

    start = time.perf_counter()
    temperature = sampling_temperature if samples > 1 else 0.0
    prompts = []
    for group in groups:
        kept = [i for i in range(len(evidences)) if i not in group]
        prompts.append(
            build_messages(question, [evidences[i] for i in kept], [numbers[i] for i in kept])
        )
    tasks = [(g, s) for g in range(len(groups)) for s in range(samples)]

    def run(task: tuple[int, int]) -> str:
        # compared with the stored answer, which has no follow-ups block: cut it off here too
        reply = llm.complete(prompts[task[0]], n=1, temperature=temperature)[0]
        return split_follow_ups(reply)[0]

    answers: list[list[str]] = [[] for _ in groups]
    if tasks:
        with ThreadPoolExecutor(max_workers=max(1, min(workers, len(tasks)))) as pool:
            for (g, _), text in zip(tasks, pool.map(run, tasks), strict=True):
                answers[g].append(text)
    generate_ms = (time.perf_counter() - start) * 1000

    start = time.perf_counter()
    texts = [text for group_answers in answers for text in group_answers]
    changed = sorted({t for t in texts if t != answer})
    embedded = embedder.embed([f"{question}\n{answer}", *(f"{question}\n{t}" for t in changed)])
    similarity_of = {answer: 1.0}
    similarity_of.update(zip(changed, _cosines(embedded[0], embedded[1:]), strict=True))
    similarity_ms = (time.perf_counter() - start) * 1000

    contributions, similarities = [], []
    for group_answers in answers:
        sims = [similarity_of[t] for t in group_answers]
        similarities.append(sims)
        contributions.append(max(0.0, 1.0 - sum(sims) / len(sims)))
    shares = masked_softmax(contributions, softmax_temperature)
    clusters = [
        ClusterShare(
            cluster=label,
            evidences=[numbers[i] for i in group],
            evidence_ids=[evidences[i].id for i in group],
            score=round(contributions[label - 1], 6),
            share=shares[label - 1],
            counterfactuals=answers[label - 1],
            similarities=[round(s, 6) for s in similarities[label - 1]],
        )
        for label, group in enumerate(groups, start=1)
    ]
    return Explanation(
        method="counterfactual",
        question=question,
        answer=answer,
        clusters=_sorted(clusters),
        params={
            "eps": eps,
            "min_samples": min_samples,
            "samples": samples,
            "sampling_temperature": temperature,
            "softmax_temperature": softmax_temperature,
            "llm": llm.name,
            "embedder": embedder.name,
        },
        timings={
            "cluster_ms": round(cluster_ms, 2),
            "generate_ms": round(generate_ms, 2),
            "similarity_ms": round(similarity_ms, 2),
            "llm_calls": len(tasks),
        },
    )


def naive_attribution(
    embedder: Embedder,
    question: str,
    evidences: Sequence[Evidence],
    answer: str,
    *,
    softmax_temperature: float = 0.05,
    numbers: Sequence[int] | None = None,
) -> Explanation:
    """The similarity baseline: softmax over evidences of the cosine between the answer
    (citation markers removed) and each evidence as the prompt showed it, at the same
    temperature as the counterfactual method. RAGONITE (Saha Roy et al., 2025) compares
    its counterfactual attribution against this kind of answer-evidence similarity, which
    yields plausible rather than causal explanations."""
    numbers = list(numbers) if numbers is not None else list(range(1, len(evidences) + 1))
    start = time.perf_counter()
    clusters: list[ClusterShare] = []
    if evidences:
        vectors = embedder.embed([without_markers(answer), *map(evidence_text, evidences)])
        cosines = _cosines(vectors[0], vectors[1:])
        top = max(cosines)
        weights = [math.exp((c - top) / softmax_temperature) for c in cosines]
        total = sum(weights)
        clusters = [
            ClusterShare(position, [number], [e.id], round(cos, 6), w / total)
            for position, (number, e, cos, w) in enumerate(
                zip(numbers, evidences, cosines, weights, strict=True), start=1
            )
        ]
    return Explanation(
        method="naive",
        question=question,
        answer=answer,
        clusters=_sorted(clusters),
        params={"softmax_temperature": softmax_temperature, "embedder": embedder.name},
        timings={"similarity_ms": round((time.perf_counter() - start) * 1000, 2)},
    )


def citation_attribution(
    question: str,
    evidences: Sequence[Evidence],
    answer: str,
    *,
    numbers: Sequence[int] | None = None,
) -> Explanation:
    """The citation baseline: the sources the answer cites `[n]` share it equally; the
    first cited source is the top-attributed one (ties keep the order of citation)."""
    numbers = list(numbers) if numbers is not None else list(range(1, len(evidences) + 1))
    cited = [n for n in cited_numbers(answer) if n in numbers]
    order = {n: rank for rank, n in enumerate(cited)}
    clusters = [
        ClusterShare(
            position,
            [number],
            [e.id],
            1.0 if number in order else 0.0,
            1.0 / len(cited) if number in order else 0.0,
        )
        for position, (number, e) in enumerate(zip(numbers, evidences, strict=True), start=1)
    ]
    clusters.sort(key=lambda c: (order.get(c.evidences[0], len(order)), c.cluster))
    return Explanation("citation", question, answer, clusters)


def attribute(
    method: str,
    settings: Settings,
    llm: LLM,
    embedder: Embedder,
    question: str,
    evidences: Sequence[Evidence],
    answer: str,
    numbers: Sequence[int] | None = None,
) -> Explanation:
    """Attribute `answer` with `method` (counterfactual, naive or citation) and the
    `attribution_*` settings; the total time is added to the timings."""
    start = time.perf_counter()
    if method == "counterfactual":
        out = counterfactual_attribution(
            llm,
            embedder,
            question,
            evidences,
            answer,
            eps=settings.attribution_eps,
            min_samples=settings.attribution_min_samples,
            samples=settings.attribution_samples,
            sampling_temperature=settings.attribution_sampling_temperature,
            softmax_temperature=settings.attribution_temperature,
            workers=settings.attribution_workers,
            numbers=numbers,
        )
    elif method == "naive":
        out = naive_attribution(
            embedder,
            question,
            evidences,
            answer,
            softmax_temperature=settings.attribution_temperature,
            numbers=numbers,
        )
    elif method == "citation":
        out = citation_attribution(question, evidences, answer, numbers=numbers)
    else:
        raise ValueError(f"attribution method {method!r} is not one of: {', '.join(METHODS)}")
    out.timings["total_ms"] = round((time.perf_counter() - start) * 1000, 2)
    return out
