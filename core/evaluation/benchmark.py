"""The ConfQuestions retrieval benchmark: index the pages, run every question, score pages.

Pages are passed in (the CLI loads them through a connector), so this module stays free of
any knowledge of where pages come from. The index of a benchmark run lives in its own
collection named by a hash of the pages' content and the indexing options, so a second run
with the same pages and options reuses it.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from core.contextualize import ContextOptions
from core.embeddings import Embedder, make_embedder
from core.evaluation.metrics import (
    answer_recall,
    page_id_of,
    precision_at_1,
    recall_at_k,
    reciprocal_rank,
    slices,
    summarize,
)
from core.index import HNSW_BUILD_EF, HNSW_NEIGHBORS, INDEX_FORMAT, EvidenceIndex
from core.pages import Page
from core.retrieve import Candidates, Retriever
from core.settings import Settings

METRICS = ("p_at_1", "p_at_1_dup", "r_at_10", "mrr", "answer_recall_at_10")
SLICE_KEYS = ("lang", "a_source", "q_type", "turn")


@dataclass(frozen=True)
class Question:
    """One benchmark question in one language."""

    conv_id: str
    turn_id: str
    lang: str
    text: str
    gold_pages: frozenset[str]
    answer: str
    a_source: str
    q_type: str


def load_conversations(path: Path) -> list[dict]:
    """The conversations of a ConfQuestions-format JSON file."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def questions(conversations: Sequence[dict], mode: str, langs: Sequence[str]) -> list[Question]:
    """Every turn as a question: `completed` (hand-written self-contained) or `raw` form."""
    if mode not in ("completed", "raw"):
        raise ValueError(f"question mode {mode!r} is not one of: completed, raw")
    out = []
    for conv in conversations:
        for turn in conv["turns"]:
            for lang in langs:
                key = f"completed_q_{lang}" if mode == "completed" else f"q_{lang}"
                out.append(
                    Question(
                        conv_id=str(conv["conv_id"]),
                        turn_id=str(turn["turn_id"]),
                        lang=lang,
                        text=turn[key],
                        gold_pages=frozenset(page_id_of(u) for u in turn["a_url"]),
                        answer=turn.get("a", ""),
                        a_source=turn.get("a_source", ""),
                        q_type=turn.get("q_type", ""),
                    )
                )
    return out


def duplicate_groups(pages: Sequence[Page]) -> dict[str, str]:
    """Page id → group key; pages with the same normalized title share a group.

    ConfQuestions holds nine pages twice (copies in two spaces); duplicate-aware P@1 counts
    either copy as correct.
    """

    def norm(title: str) -> str:
        return re.sub(r"\W+", " ", title).strip().lower()

    return {page_id_of(p.url): norm(p.title) for p in pages}


def turn_bucket(turn_id: str) -> str:
    """Turn number as a slice label: 1, 2, 3, 4+."""
    number = int(turn_id) if str(turn_id).isdigit() else 0
    return str(number) if number < 4 else "4+"


def question_fields(question: Question) -> dict:
    """The fields that identify and slice a question in every per-question record."""
    return {
        "conv_id": question.conv_id,
        "turn_id": question.turn_id,
        "turn": turn_bucket(question.turn_id),
        "lang": question.lang,
        "a_source": question.a_source,
        "q_type": question.q_type,
        "question": question.text,
        "gold": sorted(question.gold_pages),
    }


def score_ranking(
    ranked_pages: Sequence[str],
    texts: Sequence[str],
    question: Question,
    groups: dict[str, str],
) -> dict:
    """All per-question metrics for a ranked list of page ids (one per evidence)."""
    gold = set(question.gold_pages)
    gold_groups = {groups.get(p, p) for p in gold}
    top_group = groups.get(ranked_pages[0], ranked_pages[0]) if ranked_pages else None
    return {
        **question_fields(question),
        "ranked_pages": list(ranked_pages[:10]),
        "p_at_1": precision_at_1(ranked_pages, gold),
        "p_at_1_dup": float(top_group in gold_groups) if top_group else 0.0,
        "r_at_10": recall_at_k(ranked_pages, gold, 10),
        "mrr": reciprocal_rank(ranked_pages, gold, 10),
        "answer_recall_at_10": answer_recall(question.answer, texts[:10]),
    }


def content_key(pages: Sequence[Page], options: ContextOptions, embedder_name: str) -> str:
    """A hash of the pages' content, the indexing options, the embedder and the vector
    graph's build parameters (an evaluation index built with another graph is not reused:
    its search recall differs)."""
    digest = hashlib.sha256()
    for page in sorted(pages, key=lambda p: p.id):
        digest.update(f"{page.id}\0{page.title}\0{page.url}\0{page.body}\0".encode())
    digest.update(json.dumps(asdict(options), sort_keys=True).encode())
    digest.update(f"{embedder_name}\0{INDEX_FORMAT}\0{HNSW_NEIGHBORS}\0{HNSW_BUILD_EF}".encode())
    return digest.hexdigest()[:16]


def benchmark_index(
    settings: Settings, pages: Sequence[Page], embedder: Embedder | None = None
) -> tuple[EvidenceIndex, Embedder, float]:
    """The index of `pages` under the settings' options, built or reused: (index, embedder,
    seconds spent building, 0 when reused)."""
    embedder = embedder or make_embedder(settings)
    options = ContextOptions.from_settings(settings)
    key = content_key(pages, options, embedder.name)
    scoped = settings.replace(collection=f"eval-{key}")
    index = EvidenceIndex(scoped, embedder)
    if index.store.build_note() is not None:
        return index, embedder, 0.0
    start = time.perf_counter()
    for page_id in index.page_ids():
        index.delete_page(page_id)
    index.index_pages(pages, options)
    index.store.set_build_note(f"complete: {len(pages)} pages")
    return index, embedder, time.perf_counter() - start


def run_retrieval(
    retriever: Retriever,
    items: Sequence[Question],
    groups: dict[str, str],
    retrievers: Sequence[str] = ("lexical", "dense"),
    found: Mapping[str, Candidates] | None = None,
) -> list[dict]:
    """Retrieve the top 10 for every question and score it; `found` holds retriever
    results already searched for (by question text), ranked here without searching again."""
    records = []
    for question in items:
        if found is not None and question.text in found:
            result = retriever.rank(found[question.text], k=10)
        else:
            result = retriever.search(question.text, k=10, retrievers=retrievers)
        ranked = [page_id_of(r.evidence.url) for r in result.results]
        texts = [r.evidence.text for r in result.results]
        record = score_ranking(ranked, texts, question, groups)
        record["latency_ms"] = result.timings.get("total_ms", 0.0)
        records.append(record)
    return records


def report(records: Sequence[dict], metrics: Sequence[str] = METRICS) -> dict:
    """Overall figures and per-slice figures of a run."""
    overall = summarize(records, metrics)
    return {**overall, "slices": slices(records, SLICE_KEYS, metrics)}
