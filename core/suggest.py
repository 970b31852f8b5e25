"""Suggested follow-up questions: up to three short questions the user may want to ask next.

Offline they are built from the structure of the page the answer came from (as in the
RAGonite demo's follow-ups): the sections, list headings and table columns of that page that
the question did not touch, each turned into a short question in the question's language
(`core.lexical.detect_language`), naming the page title so the question stands on its own.

A suggestion is shown only when it is in scope: its own retrieval (`search`) must find the
section or column it names, and that evidence's best span must support an answer at least
as well as the offline answerer's decline threshold (`core.spans.support`, the
`answer_min_support` settings), so a click does not lead to "I could not find that".
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from core.index import EvidenceIndex
from core.lexical import GERMAN_STOPWORDS, detect_language
from core.pages import Evidence
from core.retrieve import Retriever, ScoredEvidence
from core.spans import row_pairs, support, terms

__all__ = ["MAX_SUGGESTIONS", "Candidate", "candidates", "in_scope", "suggest", "suggest_from_page"]

MAX_SUGGESTIONS = 3
MAX_TOPIC_WORDS = 8
SEARCH_K = 3  # a suggestion is in scope when its section is among these results

TEMPLATES = {
    "en": "What does {title} say about {topic}?",
    "de": "Was steht in {title} zu {topic}?",
}

Search = Callable[[str], Sequence[ScoredEvidence]]


@dataclass(frozen=True)
class Candidate:
    """A follow-up question and the section or column name (`topic`) it asks about."""

    question: str
    topic: str


def _topics(evidence: Evidence) -> list[str]:
    """The structural names an evidence carries: its innermost heading, and for a table
    row its column names."""
    found = []
    if evidence.heading:
        found.append(evidence.heading.split(" > ")[-1].strip())
    if evidence.kind == "row":
        _, _, body = evidence.text.partition(": ")
        found.extend(name for name, _ in row_pairs(body) if not name.startswith("Column "))
    return [t for t in found if t and len(t.split()) <= MAX_TOPIC_WORDS]


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
    about (an evidence carrying its topic) and the offline answerer would answer from that
    evidence (support at least `min_support`, above zero) instead of declining."""
    for result in search(candidate.question):
        evidence = result.evidence
        if candidate.topic not in _topics(evidence):
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
    """Up to `limit` in-scope follow-ups to `question` from the cited page's evidences."""
    out: list[str] = []
    for candidate in candidates(question, page_evidences):
        if len(out) == limit:
            break
        if in_scope(candidate, search, min_support):
            out.append(candidate.question)
    return out


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
    language = detect_language(question)
    threshold = min_support.get(language, min_support.get("en", 0.0))

    def search(text: str) -> Sequence[ScoredEvidence]:
        return retriever.search(text, k=SEARCH_K, spaces=spaces).results

    return suggest(question, evidences, search, threshold)
