"""Do suggested follow-ups anticipate the user's next question? (issue 12)

For every turn that has a next turn, the completed question is retrieved and answered,
follow-ups are suggested as the assistant does (`core.suggest.follow_ups`: the model's
in-scope proposals, else from the first cited page; none about what the conversation's
earlier questions and suggestions asked), and each suggestion is retrieved in turn. The
turn `hits` when the top-1 page of one suggestion is a gold page of the user's actual next
(completed) question. `suggested` counts the turns that got at least one suggestion;
`from_model` the turns whose suggestions are the model's (not the page's); `suggest_ms`
is the time the suggestions took (their in-scope checks, one search each), its median
reported.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping, Sequence

from core.answer import generate
from core.evaluation.benchmark import Question, question_fields
from core.evaluation.metrics import mean
from core.index import EvidenceIndex
from core.llm import LLM
from core.retrieve import Retriever
from core.suggest import follow_ups


def next_question_pairs(items: Sequence[Question]) -> list[tuple[Question, Question]]:
    """(question, the next question of its conversation in the same language); `items`
    list each conversation's turns in order."""
    threads: dict[tuple[str, str], list[Question]] = {}
    for item in items:
        threads.setdefault((item.conv_id, item.lang), []).append(item)
    return [pair for thread in threads.values() for pair in zip(thread, thread[1:], strict=False)]


def evaluate_suggestions(
    items: Sequence[Question],
    index: EvidenceIndex,
    retriever: Retriever,
    llm: LLM,
    min_support: Mapping[str, float],
) -> list[dict]:
    """One record per turn with a next turn: the suggestions, their top-1 pages and `hit`.
    `items` list each conversation's turns in order (`core.evaluation.benchmark.questions`)."""
    records = []
    earlier: dict[tuple[str, str], list[str]] = {}  # per conversation and language
    for current, following in next_question_pairs(items):
        results = retriever.search(current.text).results
        (answer,) = generate(llm, current.text, [r.evidence for r in results])
        suggestions: list[str] = []
        asked = earlier.setdefault((current.conv_id, current.lang), [])
        started = time.perf_counter()
        if not answer.out_of_scope:
            page = answer.citations[0].page_id if answer.citations else None
            suggestions = follow_ups(
                current.text, answer.suggestions, page, index, retriever, min_support, None, asked
            )
        elapsed = (time.perf_counter() - started) * 1000
        asked += [current.text, *suggestions]
        from_model = bool(suggestions) and set(suggestions) <= set(answer.suggestions)
        pages = []
        for suggestion in suggestions:
            top = retriever.search(suggestion, k=1).results
            pages.append(top[0].evidence.page_id if top else None)
        records.append(
            {
                **question_fields(current),
                "next_gold": sorted(following.gold_pages),
                "proposed": answer.suggestions,
                "suggestions": suggestions,
                "suggestion_pages": pages,
                "suggest_ms": elapsed,
                "suggested": float(bool(suggestions)),
                "from_model": float(from_model),
                "hit": float(any(p in following.gold_pages for p in pages)),
            }
        )
    return records


def summarize_suggestions(records: Sequence[dict]) -> dict:
    """Share of turns with a hit, share with any suggestion, share whose suggestions came
    from the model, mean suggestions per turn, median milliseconds the suggestions took."""
    return {
        "n": len(records),
        "hit": mean([r["hit"] for r in records]),
        "suggested": mean([r["suggested"] for r in records]),
        "from_model": mean([r["from_model"] for r in records]),
        "per_turn": mean([float(len(r["suggestions"])) for r in records]),
        "suggest_ms": statistics.median([r["suggest_ms"] for r in records]) if records else 0.0,
    }
