"""Page-level evidence ranking: what a page as a whole says about the fused evidence scores.

After fusion (core.retrieve) each candidate evidence's score is adjusted with four page
signals, each switched off by a zero weight or `prefer_canonical=false`:

- *title* (`title_weight`): the share of the query's BM25 tokens, weighted by their inverse
  document frequency among all titles, that the page title contains: the title as a field
  of its own, on top of its share of the evidence text (field weighting in the spirit of
  BM25F, Robertson, Zaragoza and Taylor, CIKM 2004);
- *support* (`page_weight`): the page's second and third best candidate scores (positive
  parts), added with a weight; a page that answers with several evidences beats a lone hit
  (the MaxP + SumP mix of passage-to-document aggregation, Dai and Callan, "Deeper Text
  Understanding for IR with Contextual Neural Language Modeling", SIGIR 2019);
- *title entities* (`title_entity_weight`): +weight for each kind of date or version tag
  the question and the page title agree on, -weight for each kind they both name with
  different values (core.entities): "rc1" in the question, "rc2" in the title;
- *near-duplicates* (`prefer_canonical`): of the pages of one near-duplicate group
  (core.duplicates) among the candidates, only the canonical one stays; it takes the
  group's best score and lists the others as `also_in`. Canonical is, in this order: the
  title agreeing with the question's dates and versions, the title sharing more of the
  question's words, not marked as a copy or draft, not in a personal space, the best score.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from core.duplicates import is_copy_title, personal_space
from core.entities import Entity, entities, title_agreement
from core.index import PageEntry
from core.lexical import tokenize

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class PageWeights:
    """The weights of the page signals (all from settings)."""

    page_weight: float = 0.0
    title_weight: float = 0.0
    title_entity_weight: float = 0.0
    prefer_canonical: bool = False


@dataclass
class PageRanking:
    """Adjusted scores of the kept candidates, and for each kept evidence id the pages of
    its near-duplicate group that were folded into it (best first)."""

    scores: dict[str, float]
    also_in: dict[str, list[str]] = field(default_factory=dict)


def evidence_page(evidence_id: str) -> str:
    """The page id of an evidence id (`{page_id}#{position}`, core.contextualize)."""
    return evidence_id.rsplit("#", 1)[0]


@dataclass(frozen=True)
class TitleField:
    """The titles of the indexed pages as a field: BM25 tokens of each title and each
    token's inverse document frequency among titles."""

    tokens: dict[str, frozenset[str]]
    idf: dict[str, float]
    rarest: float = 1.0

    @classmethod
    def of(cls, pages: Mapping[str, PageEntry]) -> TitleField:
        """The title field of the pages (idf as in BM25: log(1 + (N - df + 0.5) / (df + 0.5)))."""
        tokens = {p: _title_tokens(entry.title) for p, entry in pages.items()}
        df: dict[str, int] = defaultdict(int)
        for words in tokens.values():
            for word in words:
                df[word] += 1
        n = len(tokens)
        idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        return cls(tokens, idf, max(idf.values(), default=1.0))

    def match(self, query_tokens: Sequence[str], page_id: str) -> float:
        """Idf-weighted share of the distinct query tokens found in the page's title
        (tokens no title has weigh as much as the rarest title token)."""
        distinct = set(query_tokens)
        if not distinct or page_id not in self.tokens:
            return 0.0
        total = math.fsum(self.idf.get(t, self.rarest) for t in distinct)
        found = math.fsum(self.idf[t] for t in distinct & self.tokens[page_id])
        return found / total


def rank_pages(
    query: str,
    fused: Mapping[str, float],
    pages: Mapping[str, PageEntry],
    groups: Mapping[str, str],
    weights: PageWeights,
    titles: TitleField | None = None,
    query_tokens: Sequence[str] = (),
) -> PageRanking:
    """Fused evidence scores adjusted by page support, title match and title entities,
    near-duplicate pages folded into their canonical page. `titles` and `query_tokens`
    (the query's BM25 tokens) are needed when `title_weight` is set."""
    page_of = {e: evidence_page(e) for e in fused}
    by_page: dict[str, list[float]] = defaultdict(list)
    for evidence_id, score in fused.items():
        by_page[page_of[evidence_id]].append(score)
    bonus: dict[str, float] = {}
    asked = entities(query)
    for page_id, scores in by_page.items():
        scores.sort(reverse=True)
        extra = weights.page_weight * sum(max(s, 0.0) for s in scores[1:3])
        if weights.title_weight and titles is not None:
            extra += weights.title_weight * titles.match(query_tokens, page_id)
        if weights.title_entity_weight and asked and page_id in pages:
            agreement = title_agreement(asked, _title_entities(pages[page_id].title))
            extra += weights.title_entity_weight * agreement
        bonus[page_id] = extra
    scores = {e: s + bonus[page_of[e]] for e, s in fused.items()}
    if not weights.prefer_canonical:
        return PageRanking(scores)
    return _fold_duplicates(query, scores, page_of, pages, groups, asked)


def _fold_duplicates(
    query: str,
    scores: dict[str, float],
    page_of: Mapping[str, str],
    pages: Mapping[str, PageEntry],
    groups: Mapping[str, str],
    asked: set[Entity],
) -> PageRanking:
    members: dict[str, dict[str, float]] = defaultdict(dict)  # group → page → best score
    for evidence_id, score in scores.items():
        page_id = page_of[evidence_id]
        if page_id in groups and page_id in pages:
            best = members[groups[page_id]]
            best[page_id] = max(best.get(page_id, float("-inf")), score)
    if not members:
        return PageRanking(scores)
    words = {w.lower() for w in _WORD.findall(query)}
    kept = dict(scores)
    also_in: dict[str, list[str]] = {}
    for best in members.values():
        if len(best) < 2:
            continue
        canonical = max(best, key=lambda p: _canonical_key(p, best[p], pages[p], words, asked))
        others = sorted((p for p in best if p != canonical), key=lambda p: (-best[p], p))
        top = max(best.values())
        lead = max(
            (e for e in kept if page_of[e] == canonical), key=lambda e: (kept[e], e), default=None
        )
        for evidence_id in [e for e in kept if page_of[e] in others]:
            del kept[evidence_id]
        if lead is not None:
            kept[lead] = max(kept[lead], top)
            also_in[lead] = others
    return PageRanking(kept, also_in)


def _canonical_key(
    page_id: str, best: float, entry: PageEntry, words: set[str], asked: set[Entity]
) -> tuple:
    title_words = {w.lower() for w in _WORD.findall(entry.title)}
    return (
        title_agreement(asked, _title_entities(entry.title)) if asked else 0,
        len(words & title_words) - len(title_words - words) * 0.01,
        not is_copy_title(entry.title),
        not personal_space(entry.space),
        best,
        page_id,
    )


@lru_cache(maxsize=65536)
def _title_entities(title: str) -> frozenset[Entity]:
    return frozenset(entities(title))


@lru_cache(maxsize=262144)
def _title_tokens(title: str) -> frozenset[str]:
    """BM25 tokens of a title, remembered: the title field is built again after every write
    of a sync, and tokenizing 20,000 titles takes about 0.3 s."""
    return frozenset(tokenize(title))
