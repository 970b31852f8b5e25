"""The assistant: the one place that runs complete → retrieve → answer for every surface and
records a trace of each step.

`Assistant.ask(key, text)` loads the conversation's current turns, completes the question
(`core.rephrase`), retrieves evidence (`core.retrieve`), generates a cited answer
(`core.answer` with an `core.llm.LLM`), stores the turn with its full trace
(`core.conversation`) and returns it. Turns of one conversation are serialized by a lock per
conversation key; different conversations run concurrently. (The lock is per process: a
deployment with several replicas relies on its surface delivering a thread's messages to one
replica at a time, as Slack's per-event delivery with deduplication does.)
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field

from core.answer import Citation, generate
from core.conversation import ConversationKey, ConversationStore, TurnRecord
from core.index import EvidenceIndex
from core.llm import LLM
from core.rephrase import Completer, Exchange
from core.retrieve import Retriever, ScoredEvidence
from core.settings import Settings

__all__ = ["Assistant", "ConversationKey", "Turn"]

HISTORY_TURNS = 20


@dataclass
class Turn:
    """One answered question with its trace.

    `evidences` are the retrieved evidences best first (numbered 1.. in the answer prompt,
    so citation `[n]` is `evidences[n-1]`); `timings` are milliseconds per step:
    `history_ms`, `complete_ms`, `retrieve_ms` (and the retriever's own steps as
    `retrieve.<step>`), `answer_ms` (the LLM call), `store_ms`, `total_ms`.
    `messages` holds the exact chat messages sent: `completion` (None for the offline
    completer) and `answer`; `query` is the text the retriever searched.
    """

    id: int
    key: ConversationKey
    question: str
    completed_question: str
    query: str
    answer: str
    citations: list[Citation]
    evidences: list[ScoredEvidence]
    timings: dict[str, float]
    model: str
    out_of_scope: bool
    messages: dict = field(default_factory=dict)
    completion_notes: dict = field(default_factory=dict)


def evidence_trace(results: Sequence[ScoredEvidence]) -> list[dict]:
    """The JSON stored for retrieved evidences: id, page, title, url, final rank and score,
    per-retriever ranks and scores."""
    return [
        {
            "id": r.evidence.id,
            "page_id": r.evidence.page_id,
            "title": r.evidence.title,
            "url": r.evidence.url,
            "rank": r.rank,
            "score": float(r.score),
            "ranks": dict(r.ranks),
            "scores": {name: float(value) for name, value in r.scores.items()},
        }
        for r in results
    ]


class _KeyLock:
    """A lock that can sit in a WeakValueDictionary (plain locks take no weak references)."""

    __slots__ = ("lock", "__weakref__")

    def __init__(self) -> None:
        self.lock = threading.Lock()


class Assistant:
    """Conversational question answering over the evidence index."""

    def __init__(
        self,
        settings: Settings,
        index: EvidenceIndex,
        retriever: Retriever,
        llm: LLM,
        completer: Completer,
        store: ConversationStore,
    ):
        self.settings = settings
        self.index = index
        self.retriever = retriever
        self.llm = llm
        self.completer = completer
        self.store = store
        self._locks: weakref.WeakValueDictionary[ConversationKey, _KeyLock] = (
            weakref.WeakValueDictionary()
        )
        self._locks_guard = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> Assistant:
        """An assistant wired from settings: migrated state database, the configured
        embedder, index, retriever, LLM (or the extractive default) and completer."""
        from core.db import upgrade
        from core.embeddings import make_embedder
        from core.llm import make_llm
        from core.rephrase import make_completer

        upgrade(settings.sqlalchemy_url)
        embedder = make_embedder(settings)
        index = EvidenceIndex(settings, embedder)
        retriever = Retriever.from_settings(index, embedder, settings)
        llm = make_llm(settings)
        completer = make_completer(settings, llm)
        return cls(
            settings, index, retriever, llm, completer, ConversationStore(settings.sqlalchemy_url)
        )

    def _lock_for(self, key: ConversationKey) -> _KeyLock:
        with self._locks_guard:
            holder = self._locks.get(key)
            if holder is None:
                holder = _KeyLock()
                self._locks[key] = holder
            return holder

    def history(self, key: ConversationKey) -> list[Exchange]:
        """The conversation's current turns as the completer sees them, oldest first."""
        return [
            Exchange(r.question, r.completed_question, r.answer)
            for r in self.store.history(key, limit=HISTORY_TURNS)
        ]

    def ask(
        self, key: ConversationKey, text: str, spaces: Collection[str] | None = None
    ) -> Turn:
        """Answer `text` as the next turn of the conversation at `key`, searching only
        `spaces` when given, and store the turn."""
        question = text.strip()
        if not question:
            raise ValueError("the question is empty")
        holder = self._lock_for(key)
        with holder.lock:
            return self._ask(key, question, spaces)

    def _ask(self, key: ConversationKey, question: str, spaces: Collection[str] | None) -> Turn:
        timings: dict[str, float] = {}
        started = time.perf_counter()

        def lap(step: str, since: float) -> float:
            now = time.perf_counter()
            timings[f"{step}_ms"] = (now - since) * 1000
            return now

        history = self.history(key)
        mark = lap("history", started)

        def search(query: str):
            return self.retriever.search(query, k=1, spaces=spaces).results

        completion = self.completer.complete(question, history, search)
        mark = lap("complete", mark)

        retrieval = self.retriever.search(completion.query, spaces=spaces)
        mark = lap("retrieve", mark)
        timings.update({f"retrieve.{k}": v for k, v in retrieval.timings.items()})

        results = retrieval.results
        (answer,) = generate(self.llm, completion.question, [r.evidence for r in results])
        mark = lap("answer", mark)

        messages = {"completion": completion.messages, "answer": answer.messages}
        record_timings = dict(timings)
        record_timings["total_ms"] = (mark - started) * 1000
        record: TurnRecord = self.store.add_turn(
            key,
            question=question,
            completed_question=completion.question,
            evidences=evidence_trace(results),
            messages={**messages, "query": completion.query, "notes": completion.notes},
            answer=answer.text,
            citations=[asdict(c) for c in answer.citations],
            out_of_scope=answer.out_of_scope,
            model=answer.model,
            timings=record_timings,
        )
        mark = lap("store", mark)
        timings["total_ms"] = (mark - started) * 1000
        return Turn(
            id=record.id,
            key=key,
            question=question,
            completed_question=completion.question,
            query=completion.query,
            answer=answer.text,
            citations=answer.citations,
            evidences=results,
            timings=timings,
            model=answer.model,
            out_of_scope=answer.out_of_scope,
            messages=messages,
            completion_notes=completion.notes,
        )

    def feedback(self, turn_id: int, value: str, user: str = "") -> int:
        """Record a user's rating of a turn; returns the feedback id."""
        if self.store.turn(turn_id) is None:
            raise KeyError(f"no turn with id {turn_id}")
        return self.store.add_feedback(turn_id, value, user)

    def new_conversation(self, key: ConversationKey) -> int:
        """Start over (`/new`): the conversation's turns stop being history for follow-ups.
        They stay stored for audit and evaluation. Returns how many turns were archived."""
        with self._lock_for(key).lock:
            return self.store.archive(key)

    def turn_record(self, turn_id: int) -> TurnRecord | None:
        """The stored trace of a turn."""
        return self.store.turn(turn_id)
