"""Hybrid retrieval: BM25 and dense top-k, fused, optionally re-ranked by a cross-encoder.

Fusion methods (choose with the `fusion` setting):
- `rrf`: reciprocal rank fusion, score = sum over retrievers of w / (k + rank)
  (Cormack, Clarke and Buettcher, SIGIR 2009; k = 60 as published).
- `zscore`: each retriever's candidate scores standardized (z-scores), summed with the dense
  weight; a document missing from one list gets that list's lowest z-score. Score fusion
  keeps how far ahead a hit is, which ranks alone throw away.

The fused scores are then adjusted by what each evidence's page says as a whole (its other
hits, its title's dates and versions, its near-duplicates: core.page_ranking) before the
top k are cut, leaving out evidences that repeat a better-ranked one of their page
(core.redundancy).

Permissions (`core.access.Scope`) apply before all of that: the spaces the asker may not
read are left out of both searches, and evidences of pages they may not read are dropped
from each retriever's list as it comes back (`_readable`), so fusion, page ranking, the
trace and everything after them only ever see readable evidence. A question's own scope
(`core.scope.QueryScope`: the spaces, labels and page trees of a link-out or a Slack
channel) narrows the searches the same way, its out-of-scope pages dropped with the
unreadable ones but not counted as withheld.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.access import Scope
from core.duplicates import DuplicateGroups
from core.embeddings import Embedder
from core.index import EvidenceIndex, PageEntry
from core.lexical import detect_language
from core.page_ranking import PageWeights, TitleField, rank_pages
from core.pages import Evidence
from core.redundancy import NoveltyFilter
from core.refresh import Refreshed
from core.scope import QueryScope
from core.settings import Settings, SettingsError

# Digits a fused score keeps when evidences are ordered by it.
SCORE_DIGITS = 9

log = logging.getLogger(__name__)

OVERFETCH_ROUNDS = 3
"""How often a retriever whose list lost more than half its evidences to permissions is
asked again, each time for four times as many (up to 64 times `candidates_k`): a reader shut
out of the best matches still gets readable ones, at the cost of a larger search. A list
that lost fewer is kept as it is: fusion keeps `top_k` (10) of `candidates_k` (100), and
another search would cost as much as the first one."""


def page_of(evidence_id: str) -> str:
    """The page id of an evidence id (`<page id>#<position>`, core.contextualize)."""
    return evidence_id.rpartition("#")[0]


def _readable(
    search,
    k: int,
    pages: Collection[str],
    withheld: set[str] | None = None,
    within: int = 0,
    outside: Collection[str] = (),
) -> list[tuple[str, float]]:
    """The best `k` of `search(n)` (a retriever's top n) whose page is neither in `pages`
    nor `outside` (the question's scope), asking for more while fewer than half are left
    and the retriever had more to give. `withheld`, when given, gets the pages in `pages`
    among the first `within` of the first list: those the reader would have had near the
    top without the permissions."""
    asked = k
    for round_ in range(OVERFETCH_ROUNDS + 1):
        found = search(asked)
        if not pages and not outside:
            return found
        kept = [
            (i, score)
            for i, score in found
            if page_of(i) not in pages and page_of(i) not in outside
        ]
        if round_ == 0 and withheld is not None and len(kept) < len(found):
            withheld.update(page_of(i) for i, _ in found[:within] if page_of(i) in pages)
        if 2 * len(kept) >= k or len(found) < asked or round_ == OVERFETCH_ROUNDS:
            return kept[:k]
        asked *= 4
    return kept[:k]


@dataclass
class ScoredEvidence:
    """A retrieved evidence with its fused score, final rank (1-based) and per-retriever
    ranks and scores (`lexical`, `dense`, and `rerank` when re-ranked), kept for the trace."""

    evidence: Evidence
    score: float
    rank: int
    ranks: dict[str, int | None] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)
    also_in: list[PageEntry] = field(default_factory=list)


@dataclass
class Candidates:
    """What each retriever found for a query, before fusion: (evidence id, score) lists by
    retriever name, and the time each search took (ms); `scope` the permissions they were
    searched with (near-duplicates of a result are named only where it allows them);
    `withheld` the pages the scope removed from either list's first `top_k` (the pages of
    the spaces it denies are not counted: those spaces are never searched)."""

    query: str
    language: str
    scored: dict[str, list[tuple[str, float]]]
    timings: dict[str, float]
    tokens: list[str] = field(default_factory=list)
    scope: Scope | None = None
    withheld: frozenset[str] = frozenset()


@dataclass
class Retrieval:
    """The result of one search: evidences best first, and the time each step took (ms).

    `stale` counts the retrieved ids the evidence store no longer holds (a vector a crash
    left behind, or a page deleted between the searches and the read): they are skipped
    before the top k is cut, so they never cost a result. `withheld`: the pages near the
    top that the asker's permissions held back (`Candidates.withheld`), for the audit log."""

    query: str
    language: str
    results: list[ScoredEvidence]
    timings: dict[str, float]
    stale: int = 0
    withheld: frozenset[str] = frozenset()


def rrf(rankings: dict[str, list[str]], weights: dict[str, float], k: int) -> dict[str, float]:
    """Reciprocal rank fusion (Cormack et al., 2009): sum of w / (k + rank), rank from 1."""
    fused: dict[str, float] = {}
    for name, ids in rankings.items():
        weight = weights.get(name, 1.0)
        for rank, evidence_id in enumerate(ids, start=1):
            fused[evidence_id] = fused.get(evidence_id, 0.0) + weight / (k + rank)
    return fused


def zscore_fusion(
    scored: dict[str, list[tuple[str, float]]], weights: dict[str, float]
) -> dict[str, float]:
    """Weighted sum of per-retriever z-scores; a missing document gets the list's minimum."""
    fused: dict[str, float] = {}
    floors: dict[str, float] = {}
    normalized: dict[str, dict[str, float]] = {}
    for name, pairs in scored.items():
        if not pairs:
            continue
        values = np.array([s for _, s in pairs], dtype=np.float64)
        std = values.std() or 1.0
        z = (values - values.mean()) / std
        normalized[name] = {i: float(v) for (i, _), v in zip(pairs, z, strict=True)}
        floors[name] = float(z.min())
    every = {i for table in normalized.values() for i in table}
    for evidence_id in sorted(every):  # a set's order changes with PYTHONHASHSEED
        fused[evidence_id] = sum(
            weights.get(name, 1.0) * table.get(evidence_id, floors[name])
            for name, table in normalized.items()
        )
    return fused


class Reranker:
    """BGE cross-encoder re-ranker (FlagEmbedding `FlagReranker`) loaded from a local folder."""

    def __init__(self, model_path: str):
        path = Path(model_path).expanduser()
        if not path.is_dir():
            raise SettingsError(
                f"CONFBOT_RERANKER_MODEL_PATH={model_path!r} is not a folder holding a reranker"
            )
        try:
            from FlagEmbedding import FlagReranker
        except ImportError as exc:  # pragma: no cover - depends on the optional extra
            raise SettingsError(
                "re-ranking needs the optional extra: pip install 'confbot[bge]'"
            ) from exc
        self._model = FlagReranker(str(path), use_fp16=False, devices="cpu")

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Relevance score of each text for the query (higher is better)."""
        if not texts:
            return []
        scores = self._model.compute_score([[query, t] for t in texts])
        return [float(s) for s in np.atleast_1d(scores)]


class Retriever:
    """Hybrid search over an `EvidenceIndex`."""

    def __init__(
        self,
        index: EvidenceIndex,
        embedder: Embedder,
        settings: Settings,
        reranker: Reranker | None = None,
    ):
        if settings.fusion not in ("rrf", "zscore"):
            raise SettingsError(f"CONFBOT_FUSION={settings.fusion!r} is not one of: rrf, zscore")
        self.index = index
        self.embedder = embedder
        self.settings = settings
        self.reranker = reranker
        # Keyed by (page catalog, duplicate threshold): the catalog is a new dict after a write.
        self._fields: Refreshed[tuple[dict, float], tuple[dict[str, str], TitleField]] = Refreshed(
            lambda old, new: old[0] is new[0] and old[1] == new[1]
        )
        self._spaces: Refreshed[dict, set[str]] = Refreshed(lambda old, new: old is new)
        # The groups kept up to date, and the catalog they are the groups of.
        self._grouping: tuple[DuplicateGroups, dict[str, PageEntry]] = (
            DuplicateGroups(settings.duplicate_threshold),
            {},
        )

    @classmethod
    def from_settings(cls, index: EvidenceIndex, embedder: Embedder, settings: Settings):
        """A retriever with the re-ranker the settings name (none when no path is set)."""
        reranker = Reranker(settings.reranker_model_path) if settings.reranker_model_path else None
        return cls(index, embedder, settings, reranker)

    def search(
        self,
        query: str,
        k: int | None = None,
        spaces: Collection[str] | None = None,
        retrievers: Sequence[str] = ("lexical", "dense"),
        scope: Scope | None = None,
        within: QueryScope | None = None,
    ) -> Retrieval:
        """The `k` best evidences for `query`, restricted to `spaces` when given and to
        the question's scope `within`, of the pages `scope` (the asker's permissions)
        allows."""
        return self.rank(self.candidates(query, spaces, retrievers, scope, within), k)

    def candidates(
        self,
        query: str,
        spaces: Collection[str] | None = None,
        retrievers: Sequence[str] = ("lexical", "dense"),
        scope: Scope | None = None,
        within: QueryScope | None = None,
    ) -> Candidates:
        """Each retriever's top `candidates_k` for `query` (the costly half of `search`),
        of the spaces and pages `scope` allows, within the question's scope `within`."""
        s = self.settings
        outside: Collection[str] = ()
        if within:
            spaces = within.searchable(spaces)
            outside = within.outside(self.index.page_catalog())
        denied: frozenset[str] = frozenset()
        if scope is not None:
            if scope.spaces:
                spaces = scope.searchable(spaces, self._indexed_spaces())
            denied = scope.pages
        withheld: set[str] = set()
        timings: dict[str, float] = {}
        language = s.lexical_language
        if language == "auto":
            language = detect_language(query)
        scored: dict[str, list[tuple[str, float]]] = {}
        tokens: list[str] = []
        if "lexical" in retrievers:
            start = time.perf_counter()
            scored["lexical"] = _readable(
                lambda n: self.index.lexical_search(query, n, spaces, language),
                s.candidates_k,
                denied,
                withheld,
                s.top_k,
                outside,
            )
            tokens = self.index.query_tokens(query, language)
            timings["lexical_ms"] = (time.perf_counter() - start) * 1000
        if "dense" in retrievers:
            start = time.perf_counter()
            vector = self.embedder.embed_queries([query])[0]
            timings["embed_ms"] = (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            scored["dense"] = _readable(
                lambda n: self.index.dense_search(vector, n, spaces),
                s.candidates_k,
                denied,
                withheld,
                s.top_k,
                outside,
            )
            timings["dense_ms"] = (time.perf_counter() - start) * 1000
        return Candidates(query, language, scored, timings, tokens, scope, frozenset(withheld))

    def rank(self, candidates: Candidates, k: int | None = None) -> Retrieval:
        """Fuse the candidates, adjust them by page (core.page_ranking), re-rank when a
        re-ranker is set, and keep the `k` best (the cheap half of `search`)."""
        k = k or self.settings.top_k
        s = self.settings
        query, scored = candidates.query, candidates.scored
        timings = dict(candidates.timings)
        start = time.perf_counter()
        weights = {"lexical": 1.0, "dense": s.dense_weight}
        if s.fusion == "rrf":
            fused = rrf({n: [i for i, _ in p] for n, p in scored.items()}, weights, s.rrf_k)
        else:
            fused = zscore_fusion(scored, weights)
        timings["fusion_ms"] = (time.perf_counter() - start) * 1000

        start = time.perf_counter()
        pages = self.index.page_catalog()
        weights = PageWeights(
            s.page_weight, s.title_weight, s.title_entity_weight, s.prefer_canonical
        )
        groups, titles = self._page_fields(pages)
        ranking = rank_pages(query, fused, pages, groups, weights, titles, candidates.tokens)
        fused = ranking.scores
        # Rounded before sorting: scores equal but for float noise (an embedding of another
        # batch shape, a sum in another order) rank by evidence id, the same every run.
        order = sorted(fused, key=lambda i: (-round(fused[i], SCORE_DIGITS), i))
        timings["pages_ms"] = (time.perf_counter() - start) * 1000

        scope = candidates.scope or Scope()
        ranks = {n: {i: r for r, (i, _) in enumerate(p, start=1)} for n, p in scored.items()}
        raw = {n: dict(p) for n, p in scored.items()}
        depth = s.rerank_k if self.reranker else k
        evidences, stale = self._stored(order, depth, NoveltyFilter(s.redundancy_threshold, groups))
        results = [
            ScoredEvidence(
                evidence=e,
                score=fused[e.id],
                rank=0,
                ranks={n: ranks[n].get(e.id) for n in scored},
                scores={n: raw[n][e.id] for n in scored if e.id in raw[n]},
                also_in=[
                    pages[p]
                    for p in ranking.also_in.get(e.id, ())
                    if scope.allows(p, pages[p].space)
                ],
            )
            for e in evidences
        ]
        if self.reranker and results:
            start = time.perf_counter()
            rerank_scores = self.reranker.score(query, [r.evidence.contextualized for r in results])
            for r, score in zip(results, rerank_scores, strict=True):
                r.scores["rerank"] = score
                r.score = score
            results.sort(key=lambda r: (-r.score, r.evidence.id))
            for position, r in enumerate(results, start=1):
                r.ranks["rerank"] = position
            timings["rerank_ms"] = (time.perf_counter() - start) * 1000
        results = results[:k]
        for position, r in enumerate(results, start=1):
            r.rank = position
        timings["total_ms"] = sum(timings.values())
        return Retrieval(query, candidates.language, results, timings, stale, candidates.withheld)

    def _indexed_spaces(self) -> set[str]:
        """The spaces of the indexed pages, from the page catalog (computed again when it
        changed), so a scope that denies spaces costs no query per search."""
        catalog = self.index.page_catalog()
        return self._spaces.get(catalog, lambda _: {e.space for e in catalog.values()})

    def _stored(
        self, order: Sequence[str], depth: int, novelty: NoveltyFilter
    ) -> tuple[list[Evidence], int]:
        """The first `depth` evidences of `order` that the evidence store holds and that
        `novelty` admits, and how many ids the store did not hold before the last one taken
        (logged: the index and the store disagree). Each read asks for as many ids as were
        read before it (and at least the number still missing), so a ranking led by many
        copies of one page costs a few store reads rather than one per refused copy (a
        round trip each on a server database: 160 reads per search at 100,000 pages)."""
        found: list[Evidence] = []
        position = stale = 0
        while len(found) < depth and position < len(order):
            ids = order[position : position + max(depth - len(found), position)]
            position += len(ids)
            stored = {e.id: e for e in self.index.get(ids)}
            for id_ in ids:
                evidence = stored.get(id_)
                if evidence is None:
                    stale += 1
                elif novelty.admit(evidence):
                    found.append(evidence)
                    if len(found) == depth:
                        break
        if stale:
            log.warning("search skipped %d evidence id(s) no longer in the store", stale)
        return found, stale

    def _page_fields(self, pages: dict[str, PageEntry]) -> tuple[dict[str, str], TitleField]:
        """Near-duplicate groups and the title field of the indexed pages, computed again
        when the page catalog changed, by one thread: while it computes, concurrent searches
        go on with the previous ones (each write of a sync changes the catalog)."""
        threshold = self.settings.duplicate_threshold

        def compute(_) -> tuple[dict[str, str], TitleField]:
            return self._groups(pages, threshold), TitleField.of(pages)

        return self._fields.get((pages, threshold), compute)

    def _groups(self, pages: dict[str, PageEntry], threshold: float) -> dict[str, str]:
        """The near-duplicate groups of the catalog `pages`, grouping again only the pages
        whose signature differs from the catalog grouped last, and the removed ones (a sync
        changes a few with each write; grouping 100,000 pages whole took 0.3 s). Called by
        one thread at a time (`_page_fields`)."""
        grouping, last = self._grouping
        if grouping.threshold != threshold:
            grouping, last = DuplicateGroups(threshold), {}
        changed = {}
        for page_id, entry in pages.items():
            old = last.get(page_id)
            if old is None or (old is not entry and old.signature != entry.signature):
                changed[page_id] = entry.signature
        try:
            groups = grouping.update(changed, last.keys() - pages.keys())
        except BaseException:  # half updated: group everything again next time
            self._grouping = (DuplicateGroups(threshold), {})
            raise
        self._grouping = (grouping, pages)
        return groups
