"""What the wiki is missing: the questions it failed to answer, grouped by topic, with the
pages that came closest, so a wiki owner knows what to write.

A question counts as unanswered when its answer declined (`out_of_scope`, the fixed
out-of-scope answer), someone rated it 👎 (feedback `down`), or it was answered with low
confidence: the offline answerer's support barely passed its decline threshold
(`core.confidence`, stored with the turn), the answers most likely to be wrong without
anyone saying so. `unanswered_turns` reads them
from the conversation store for a window of days (through the `created_at` index); archived
turns count too, evaluation runs do not. `group_gaps` embeds the completed (self-contained)
questions with the configured embedder and clusters them by agglomerative clustering with
average linkage on cosine distance, cut at `distance` (scikit-learn; no number of groups to
guess). The default cut was chosen by 5-fold cross-validation over ConfQuestions
conversations, questions asked about the same page counting as one topic
(`benchmarks/gaps_clustering.py`, docs/benchmarks.md). Each group lists its pages by the
reciprocal ranks they were retrieved at, summed over the group's questions.

Privacy: each question knows whether it was asked privately (a Slack DM, group DM, private
channel or channel of unknown kind, or a terminal). Reports read by admins (the admin
page, `confbot gaps`) quote them marked as private; a report posted to a channel counts
them and quotes only the others (`Gap.quotable`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sqlalchemy import and_, not_, or_, select

from core.confidence import LOW_CONFIDENCE_MARGIN, is_low_confidence
from core.conversation import (
    ConversationKey,
    ConversationRecord,
    FeedbackRecord,
    TurnRecord,
    is_private,
)
from core.db import session_factory
from core.embeddings import Embedder
from core.smalltalk import small_talk

CLOSEST_PAGES = 3
"""Pages listed per group."""
EXCLUDED_SURFACES = ("eval",)


@dataclass
class Unanswered:
    """A question the wiki did not answer: declined, rated 👎, answered with low
    confidence, or several of these."""

    turn_id: int
    key: ConversationKey
    question: str
    completed_question: str
    asked_at: datetime
    declined: bool
    rated_down: bool
    low_confidence: bool
    evidences: list[dict]
    """The retrieved evidences of the turn's trace, best first (`page_id`, `title`, `url`)."""
    private: bool = True
    """Asked in a DM, a private or unknown Slack channel or a terminal
    (`core.conversation.is_private`): only admins may read it; reports for others count it
    without quoting it."""


@dataclass
class ClosestPage:
    page_id: str
    title: str
    url: str
    score: float
    """Sum over the group's questions of 1 / the best rank the page was retrieved at."""


@dataclass
class Gap:
    """A group of unanswered questions on one topic, the most typical question first."""

    questions: list[Unanswered]
    pages: list[ClosestPage] = field(default_factory=list)

    @property
    def declined(self) -> int:
        return sum(q.declined for q in self.questions)

    @property
    def rated_down(self) -> int:
        return sum(q.rated_down for q in self.questions)

    @property
    def low_confidence(self) -> int:
        return sum(q.low_confidence for q in self.questions)

    @property
    def private(self) -> int:
        return sum(q.private for q in self.questions)

    def quotable(self) -> list[Unanswered]:
        """The questions that may be quoted to people other than admins (not private)."""
        return [q for q in self.questions if not q.private]

    @property
    def last_asked(self) -> datetime:
        return max(q.asked_at for q in self.questions)


NOT_QUESTIONS = ("small talk", "clarification")
"""Turn models that answered no wiki question: chit-chat got the help text, a clarification
was asked back. Neither says what the wiki lacks, even when rated 👎."""


def unanswered_turns(url: str, since: datetime) -> list[Unanswered]:
    """Declined, 👎 or low-confidence questions asked at or after `since`, oldest first;
    chit-chat ("hi", "thanks") is none of them, whatever its record says (`core.smalltalk`
    recognizes it also in turns recorded before it was told apart)."""
    sessions = session_factory(url)
    rated_down = select(FeedbackRecord.turn_id).where(FeedbackRecord.value == "down")
    support = TurnRecord.messages[("confidence", "support")].as_float()
    threshold = TurnRecord.messages[("confidence", "threshold")].as_float()
    low = and_(not_(TurnRecord.out_of_scope), support < threshold + LOW_CONFIDENCE_MARGIN)
    with sessions() as db:
        rows = db.execute(
            select(TurnRecord, ConversationRecord)
            .join(ConversationRecord, TurnRecord.conversation_id == ConversationRecord.id)
            .where(
                TurnRecord.created_at >= since,
                ConversationRecord.surface.not_in(EXCLUDED_SURFACES),
                TurnRecord.model.not_in(NOT_QUESTIONS),
                or_(TurnRecord.out_of_scope, TurnRecord.id.in_(rated_down), low),
            )
            .order_by(TurnRecord.id)
        ).all()
        ids = [turn.id for turn, _ in rows]
        down = set(db.scalars(rated_down.where(FeedbackRecord.turn_id.in_(ids))).all())
    return [
        Unanswered(
            turn_id=turn.id,
            key=ConversationKey(c.surface, c.workspace, c.channel, c.thread),
            question=turn.question,
            completed_question=turn.completed_question or turn.question,
            asked_at=turn.created_at,
            declined=bool(turn.out_of_scope),
            rated_down=turn.id in down,
            low_confidence=not turn.out_of_scope
            and is_low_confidence((turn.messages or {}).get("confidence")),
            evidences=list(turn.evidences or []),
            private=is_private(c.surface, c.channel_type),
        )
        for turn, c in rows
        if small_talk(turn.question) is None
    ]


def cluster_labels(vectors: np.ndarray, distance: float) -> list[int]:
    """Group labels of unit vectors: agglomerative clustering, average linkage, cosine
    distance, cut at `distance`."""
    if len(vectors) < 2:
        return [0] * len(vectors)
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(
        n_clusters=None, distance_threshold=distance, metric="cosine", linkage="average"
    )
    return [int(label) for label in model.fit_predict(np.asarray(vectors, dtype=np.float64))]


def closest_pages(questions: Sequence[Unanswered], limit: int = CLOSEST_PAGES) -> list[ClosestPage]:
    """The pages retrieved best for a group's questions: per page the sum of 1 / its best
    rank in each question's retrieval."""
    scores: dict[str, float] = defaultdict(float)
    info: dict[str, tuple[str, str]] = {}
    for question in questions:
        best: dict[str, int] = {}
        for rank, item in enumerate(question.evidences, start=1):
            page_id = str(item.get("page_id", ""))
            if page_id and page_id not in best:
                best[page_id] = rank
                info.setdefault(page_id, (item.get("title", ""), item.get("url", "")))
        for page_id, rank in best.items():
            scores[page_id] += 1.0 / rank
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [ClosestPage(p, info[p][0], info[p][1], round(score, 3)) for p, score in ranked]


def group_gaps(questions: Sequence[Unanswered], embedder: Embedder, distance: float) -> list[Gap]:
    """The questions grouped by topic, largest group first (then the most recent); in each
    group the question nearest its centroid comes first."""
    if not questions:
        return []
    vectors = embedder.embed([q.completed_question for q in questions])
    labels = cluster_labels(vectors, distance)
    members: dict[int, list[int]] = defaultdict(list)
    for position, label in enumerate(labels):
        members[label].append(position)
    gaps = []
    for positions in members.values():
        centroid = vectors[positions].mean(axis=0)
        typical = sorted(positions, key=lambda p: (-float(vectors[p] @ centroid), p))
        group = [questions[p] for p in typical]
        gaps.append(Gap(questions=group, pages=closest_pages(group)))
    gaps.sort(key=lambda g: (-len(g.questions), -g.last_asked.timestamp()))
    return gaps


def in_space(
    question: Unanswered,
    space: str,
    asked_in: Callable[[ConversationKey], str | None],
    page_space: Callable[[str], str | None],
) -> bool:
    """Whether a question belongs to `space`: it was asked within one space (`asked_in`,
    from the surface's scope) and that is `space`, else its best retrieved page
    (`page_space` of the page id) is in `space`."""
    scope = asked_in(question.key)
    if scope is not None:
        return scope == space
    top = question.evidences[0] if question.evidences else {}
    return bool(top) and page_space(str(top.get("page_id", ""))) == space
