"""Suggested follow-up questions: up to three short questions the user may want to ask next.

With an LLM configured the model proposes them in the answer call (`core.answer`,
`Answer.suggestions`); `follow_ups` keeps the in-scope ones and, when the model proposed
none or none is in scope, falls back to the page's structure. Offline they are built from
the structure of the page the answer came from (as in the RAGonite demo's follow-ups): the
sections, list headings and table columns of that page that the question did not touch,
each turned into a short question in the question's language
(`core.lexical.detect_language`), naming the page title so the question stands on its own.

A suggestion is shown only when it is in scope: its own retrieval (`search`, top
`SEARCH_K`) must find the section or column it names, and that evidence's best span must
support an answer at least as well as the offline answerer's decline threshold
(`core.spans.support`, the `answer_min_support` settings), so a click does not lead to "I
could not find that". A model's free-text question names no section, so it is in scope when
any of its own top results supports it that well (the offline answerer reads every source
and answers from the best one, so the best of the results decides whether it declines).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from core.extractive import language_threshold
from core.index import EvidenceIndex
from core.lexical import GERMAN_STOPWORDS, detect_language
from core.pages import Evidence
from core.questions import terms
from core.retrieve import Retriever, ScoredEvidence
from core.spans import row_pairs, support

__all__ = [
    "MAX_SUGGESTIONS",
    "Candidate",
    "candidates",
    "follow_ups",
    "in_scope",
    "suggest",
    "suggest_from_page",
]

MAX_SUGGESTIONS = 3
MAX_CHECKS = 6  # candidates checked against retrieval per answer: each check is one search
MAX_TOPIC_WORDS = 8
SEARCH_K = 3  # a suggestion is in scope when its section is among these results

TEMPLATES = {
    "en": "What does {title} say about {topic}?",
    "de": "Was steht in {title} zu {topic}?",
}

Search = Callable[[str], Sequence[ScoredEvidence]]

_TRAILING = re.compile(r"[\s:;,.!?]+$")


@dataclass(frozen=True)
class Candidate:
    """A follow-up question and the section or column name (`topic`) it asks about; no
    topic for a model's free-text question."""

    question: str
    topic: str = ""


def _topics(evidence: Evidence) -> list[str]:
    """The structural names an evidence carries: its innermost heading, and for a table
    row its column names."""
    found = []
    if evidence.heading:
        found.append(evidence.heading.split(" > ")[-1])
    if evidence.kind == "row":
        _, _, body = evidence.text.partition(": ")
        found.extend(name for name, _ in row_pairs(body) if not name.startswith("Column "))
    names = (_TRAILING.sub("", t.strip()) for t in found)  # "Stubdomain?" asks "... zu Stubdomain?"
    return [t for t in names if t and len(t.split()) <= MAX_TOPIC_WORDS]


def candidates(question: str, page_evidences: Sequence[Evidence]) -> list[Candidate]:
    """Follow-up questions about the sections, list headings and table columns of
    `page_evidences` (one page, in page order) that share no term with `question`, in the
    question's language, in page order without repeats."""
    language = detect_language(question)
    stop = GERMAN_STOPWORDS if language == "de" else frozenset()
    asked = set(terms(question, stop)) | set(terms(question))
    seen: set[str] = set()
    out: list[Candidate] = []
    for evidence in page_evidences:
        for topic in _topics(evidence):
            key = topic.casefold()
            topic_terms = set(terms(topic))
            if key in seen or not topic_terms or topic_terms & asked:
                continue
            if topic.casefold() == evidence.title.casefold():
                continue
            seen.add(key)
            text = TEMPLATES[language].format(title=evidence.title, topic=topic)
            out.append(Candidate(text, topic))
    return out


def in_scope(candidate: Candidate, search: Search, min_support: float) -> bool:
    """Whether retrieval for the candidate's question finds the section or column it asks
    about (an evidence carrying its topic; with no topic, any evidence it finds) and the
    offline answerer would answer from that evidence (support at least `min_support`, above
    zero) instead of declining."""
    for result in search(candidate.question):
        evidence = result.evidence
        if candidate.topic and candidate.topic not in _topics(evidence):
            continue
        header = " > ".join(p for p in (evidence.title, evidence.heading) if p)
        score = support(candidate.question, header, evidence.text)
        if score > 0 and score >= min_support:
            return True
    return False


def suggest(
    question: str,
    page_evidences: Sequence[Evidence],
    search: Search,
    min_support: float,
    limit: int = MAX_SUGGESTIONS,
) -> list[str]:
    """Up to `limit` in-scope follow-ups to `question` from the cited page's evidences,
    checking at most `MAX_CHECKS` candidates (in page order), so a page of many sections
    costs a bounded number of searches."""
    out: list[str] = []
    for candidate in candidates(question, page_evidences)[:MAX_CHECKS]:
        if len(out) == limit:
            break
        if in_scope(candidate, search, min_support):
            out.append(candidate.question)
    return out


def _searcher(retriever: Retriever, spaces: Collection[str] | None) -> Search:
    """The search an in-scope check runs: the top `SEARCH_K` of `retriever` in `spaces`."""

    def search(text: str) -> Sequence[ScoredEvidence]:
        return retriever.search(text, k=SEARCH_K, spaces=spaces).results

    return search


def _threshold(question: str, min_support: Mapping[str, float]) -> float:
    """The decline threshold of the question's language (`en` for languages not listed)."""
    return language_threshold(min_support, detect_language(question))


def suggest_from_page(
    question: str,
    page_id: str,
    index: EvidenceIndex,
    retriever: Retriever,
    min_support: Mapping[str, float],
    spaces: Collection[str] | None = None,
) -> list[str]:
    """Follow-ups to `question` from the indexed page `page_id` (the cited page), checked
    against `retriever` (searching `spaces` when given) and the decline threshold of the
    question's language in `min_support` (`en` for languages not listed)."""
    evidences = sorted(index.get(index.page_evidence_ids(page_id)), key=lambda e: e.position)
    search = _searcher(retriever, spaces)
    return suggest(question, evidences, search, _threshold(question, min_support))


def follow_ups(
    question: str,
    proposed: Sequence[str],
    page_id: str | None,
    index: EvidenceIndex,
    retriever: Retriever,
    min_support: Mapping[str, float],
    spaces: Collection[str] | None = None,
) -> list[str]:
    """The follow-ups shown after an answer to `question`: the model's `proposed` questions
    that are in scope (`in_scope` with no topic, each at the threshold of its own language)
    and are not the question itself; when none is left, those built from the cited page
    `page_id` (`suggest_from_page`; none without a cited page). At most `MAX_SUGGESTIONS`.

    The two are not mixed: a model's questions and the page-structure template read
    differently, and the fallback exists for a model that proposed nothing usable."""
    search = _searcher(retriever, spaces)
    asked = question.strip().casefold()
    kept: list[str] = []
    for text in proposed:
        if len(kept) == MAX_SUGGESTIONS:
            break
        if text.strip().casefold() == asked or text in kept:
            continue
        if in_scope(Candidate(text), search, _threshold(text, min_support)):
            kept.append(text)
    if kept or page_id is None:
        return kept
    return suggest_from_page(question, page_id, index, retriever, min_support, spaces)
