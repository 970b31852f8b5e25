"""Conversational evaluation: replay each ConfQuestions conversation through the Assistant.

Every conversation is replayed turn by turn, once per language, in a fresh conversation: the
raw question (`q_en` / `q_de`) goes in, the Assistant completes it from the history it built
itself (our completions and our answers, never the hand-written ones), retrieves and answers.
Each turn gives one record with the ranked pages of its top 10 evidences (for the page-level
retrieval metrics of `core.evaluation.metrics`), the answer, whether it was out of scope, and
the answer token recall: the share of the gold answer's content tokens found in our answer
(citation markers and the `Related:` label removed first).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from core.answer import CITATION, OUT_OF_SCOPE, RELATED
from core.assistant import Assistant
from core.conversation import ConversationKey
from core.evaluation.benchmark import Question, score_ranking
from core.evaluation.metrics import answer_recall, mean, page_id_of


def answer_content(text: str) -> str:
    """An answer without citation markers, the `Related:` label and the out-of-scope
    sentence: the words that count for answer token recall."""
    text = text.replace(RELATED, " ").replace(OUT_OF_SCOPE, " ")
    return CITATION.sub(" ", text)


def run_conversational(
    assistant: Assistant,
    conversations: Sequence[dict],
    langs: Sequence[str] = ("en", "de"),
    groups: dict[str, str] | None = None,
    run_id: str | None = None,
) -> list[dict]:
    """Replay `conversations` (ConfQuestions format) through `assistant` in each language;
    one record per turn and language, in replay order.

    Each record has the retrieval metrics of `core.evaluation.benchmark.score_ranking`
    (`groups` maps page ids to duplicate groups for duplicate-aware P@1; none given, each
    page is its own group) plus `completed_question`, `query`, `answer`, `out_of_scope`,
    `answer_token_recall` and the turn's `timings`.
    """
    run_id = run_id or uuid.uuid4().hex[:12]
    groups = groups or {}
    records = []
    for conversation in conversations:
        conv_id = str(conversation["conv_id"])
        for lang in langs:
            key = ConversationKey("eval", "confquestions", run_id, f"{conv_id}:{lang}")
            for turn in conversation["turns"]:
                result = assistant.ask(key, turn[f"q_{lang}"])
                question = Question(
                    conv_id=conv_id,
                    turn_id=str(turn["turn_id"]),
                    lang=lang,
                    text=result.question,
                    gold_pages=frozenset(page_id_of(url) for url in turn["a_url"]),
                    answer=turn.get("a", ""),
                    a_source=turn.get("a_source", ""),
                    q_type=turn.get("q_type", ""),
                )
                top = result.evidences[:10]
                record = score_ranking(
                    [page_id_of(r.evidence.url) for r in top],
                    [r.evidence.text for r in top],
                    question,
                    groups,
                )
                record.update(
                    completed_question=result.completed_question,
                    query=result.query,
                    answer=result.answer,
                    gold_answer=question.answer,
                    out_of_scope=result.out_of_scope,
                    answer_token_recall=answer_recall(
                        question.answer, [answer_content(result.answer)]
                    ),
                    turn_record_id=result.id,
                    timings=result.timings,
                )
                records.append(record)
    return records


def summarize_conversational(records: Sequence[dict]) -> dict[str, dict]:
    """Per language (and `all`): page-level P@1, answer token recall, out-of-scope rate, n."""
    out = {}
    for lang in sorted({r["lang"] for r in records}) + ["all"]:
        subset = [r for r in records if lang == "all" or r["lang"] == lang]
        out[lang] = {
            "p_at_1": round(mean([r["p_at_1"] for r in subset]), 4),
            "p_at_1_dup": round(mean([r["p_at_1_dup"] for r in subset]), 4),
            "answer_token_recall": round(mean([r["answer_token_recall"] for r in subset]), 4),
            "out_of_scope_rate": round(mean([float(r["out_of_scope"]) for r in subset]), 4),
            "n": len(subset),
        }
    return out
