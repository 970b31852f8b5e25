"""The assistant: the one place that runs complete → retrieve → answer for every surface and
records a trace of each step.

`Assistant.ask(key, text)` loads the conversation's current turns, completes the question
(`core.rephrase`), retrieves evidence (`core.retrieve`), optionally keeps only the
evidences that help (`core.selfcheck`, the `self_check` setting), generates a cited answer
(`core.answer` with an `core.llm.LLM`), stores the turn with its full trace
(`core.conversation`) and returns it. Turns of one conversation are serialized by a lock per
conversation key; different conversations run concurrently. (The lock is per process: a
deployment with several replicas relies on its surface delivering a thread's messages to one
replica at a time, as Slack's per-event delivery with deduplication does.)

`Assistant.explain(turn_id)` attributes a stored answer to its evidences (`core.attribution`)
from the exact prompt the turn sent, stores the explanation and reuses it; with
`explain_in_background` it is computed right after answering, so an Explain click is
answered at once.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

from core import audit
from core.access import Reader, Scope
from core.access_store import AccessStore
from core.answer import Citation, generate
from core.attribution import Explanation, attribute, prompt_evidences
from core.combine import CheckedLLM
from core.confidence import answer_confidence
from core.conversation import ConversationKey, ConversationStore, TurnRecord
from core.declined_topic import declined_answer, follows_declined_topic
from core.index import EvidenceIndex
from core.lexical import detect_language
from core.llm import LLM
from core.metrics import observe_feedback, observe_turn
from core.page_parts import page_parts
from core.rephrase import Completer, Exchange
from core.retrieve import Retriever, ScoredEvidence
from core.scope import QueryScope
from core.selfcheck import SelfCheck, self_check
from core.settings import Settings
from core.smalltalk import SmallTalk, help_text, small_talk
from core.spelling import Correction
from core.suggest import follow_ups
from core.topic_search import within_topic

__all__ = ["Assistant", "ConversationKey", "Turn", "make_llm"]

HISTORY_TURNS = 20
# Results the completer's search returns: the page a follow-up names alone (a new topic?)
# and the table rows the kinds of its things are learned from.
COMPLETER_RESULTS = 5

log = logging.getLogger(__name__)


@dataclass
class Turn:
    """One answered question with its trace.

    `evidences` are the evidences the answer was given, best first (numbered 1.. in the
    answer prompt, so citation `[n]` is `evidences[n-1]`): the retrieved ones, less those
    the self-check dropped (`self_check`; when it drops all, the answer declines and these
    are the retrieved ones, the closest pages); `timings` are milliseconds per step:
    `history_ms`, `access_ms` (the audience's permission scope, `core.access`), `spell_ms`
    (spelling correction), `complete_ms`, `retrieve_ms` (and the
    retriever's own steps as `retrieve.<step>`), `self_check_ms` (when on), `answer_ms` (the
    LLM call, and the offline answerer's confidence, `core.confidence`, stored in the trace
    as `confidence`), `suggest_ms`, `store_ms`, `total_ms`. `messages` holds the exact chat
    messages sent: `completion` (None for the offline completer) and `answer`, the check of
    a model's answer (`answer_check`: where the answer shown came from and each sentence's
    sources, `core.combine.Checked.to_dict`), and the `self_check` outcome when on
    (`core.selfcheck.SelfCheck.to_dict`); `query` is the text the retriever searched;
    `suggestions` are up to three in-scope follow-up questions (`core.suggest`), also
    stored in the trace, beside the ones the model proposed (`proposed_suggestions`, empty
    for the offline answerer); `suggestions_pending` says they were left for
    `Assistant.suggest` (`ask(..., suggest=False)`). `corrections` maps each misspelt word
    of the question to the word searched instead (`core.spelling`); `small_talk` names the
    kind of chit-chat (`core.smalltalk`) a turn answered with the help text, without a
    search. A `clarification` turn asked back instead of answering (a follow-up with no
    earlier turn to follow): `answer` is the question asked back, nothing was searched, and
    it is no history for later turns.
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
    suggestions: list[str] = field(default_factory=list)
    suggestions_pending: bool = False
    corrections: dict[str, str] = field(default_factory=dict)
    small_talk: str | None = None
    clarification: bool = False


def evidence_trace(results: Sequence[ScoredEvidence]) -> list[dict]:
    """The JSON stored for retrieved evidences: id, page, title, url, final rank and score,
    per-retriever ranks and scores, and the near-duplicate pages it stands for (`also_in`)."""
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
            "also_in": also_in_json(r),
        }
        for r in results
    ]


def also_in_json(result: ScoredEvidence) -> list[dict]:
    """The near-duplicate pages folded into a result: title, url and space of each."""
    return [{"title": p.title, "url": p.url, "space": p.space} for p in result.also_in]


def _context(records: Sequence[TurnRecord]) -> list[Exchange]:
    """Stored turns as the completer sees them: each question with its spelling corrected
    and where its topic started; chit-chat, the clarifications asked back and declined
    follow-ups left out (they are no context for a follow-up: after "what's the weather
    there?" is declined, "and the meal allowance?" still follows the city asked before)."""
    out = []
    for r in records:
        messages = r.messages or {}
        if messages.get("small_talk") or messages.get("clarification"):
            continue
        notes = messages.get("notes") or {}
        if r.out_of_scope and notes.get("topic_start") is False:
            continue
        question = messages.get("spelled") or r.question
        cited = [c for c in r.citations or [] if c]
        titles = tuple(dict.fromkeys(c.get("title", "") for c in cited))
        pages = tuple(dict.fromkeys(c.get("page_id", "") for c in cited))
        out.append(
            Exchange(
                question, r.completed_question, r.answer, notes.get("topic_start"), titles, pages
            )
        )
    return out


def asked_and_suggested(records: Sequence[TurnRecord]) -> list[str]:
    """The questions of stored turns (as typed and as completed) and the follow-ups
    suggested after them: the suggestions of a later turn do not repeat them."""
    out: list[str] = []
    for record in records:
        out += [record.question, record.completed_question]
        out += (record.messages or {}).get("suggestions") or []
    return out


class _KeyLock:
    """A lock that can sit in a WeakValueDictionary (plain locks take no weak references)."""

    __slots__ = ("lock", "__weakref__")

    def __init__(self) -> None:
        self.lock = threading.Lock()


class _Scoped:
    """A retriever that searches within one permission scope, for the code that searches
    on an answer's behalf without knowing who asked (`core.suggest`)."""

    def __init__(self, retriever: Retriever, scope: Scope, within: QueryScope | None = None):
        self.retriever = retriever
        self.scope = scope
        self.within = within

    def search(self, query, k=None, spaces=None, retrievers=("lexical", "dense")):
        return self.retriever.search(
            query, k=k, spaces=spaces, retrievers=retrievers, scope=self.scope, within=self.within
        )


def readers_of(record: TurnRecord) -> list[Reader]:
    """The audience a stored turn was answered for (none recorded: anonymous)."""
    return [Reader.from_json(r) for r in (record.messages or {}).get("readers") or ()]


class Assistant:
    """Conversational question answering over the evidence index.

    Every search is limited to what the turn's audience may read (`readers`: the asker, or
    every member of a Slack channel; none: anonymous), by their permissions as the sync
    recorded them (`core.access`): the answer, its trace, Explain and the suggested
    follow-ups are all built from readable evidence only. An answer whose search held back
    pages for that reason is written to the audit log (`core.audit.record_withheld`)."""

    def __init__(
        self,
        settings: Settings,
        index: EvidenceIndex,
        retriever: Retriever,
        llm: LLM,
        completer: Completer,
        store: ConversationStore,
        access: AccessStore | None = None,
    ):
        self.settings = settings
        self.access = access or AccessStore(store.url)
        self.index = index
        self.retriever = retriever
        self.llm = llm
        self.completer = completer
        self.store = store
        self._locks: weakref.WeakValueDictionary[ConversationKey, _KeyLock] = (
            weakref.WeakValueDictionary()
        )
        self._locks_guard = threading.Lock()
        self._explaining: dict[int, Future] = {}
        self._explain_guard = threading.Lock()
        self._background: ThreadPoolExecutor | None = None
        self.examples: list[str] = []
        """Example questions the help text quotes (a surface sets the sample wiki's)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> Assistant:
        """An assistant wired from settings: migrated state database, the configured
        embedder, index, retriever, LLM (or the extractive default) and completer."""
        from core.db import upgrade
        from core.embeddings import make_embedder
        from core.rephrase import make_completer

        upgrade(settings.sqlalchemy_url)
        embedder = make_embedder(settings)
        index = EvidenceIndex(settings, embedder)
        retriever = Retriever.from_settings(index, embedder, settings)
        llm = make_llm(settings, index)
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
        """The conversation's current turns as the completer sees them, oldest first, each
        question with its spelling corrected; chit-chat and the clarifications asked back
        are no context for a follow-up."""
        return _context(self.store.history(key, limit=HISTORY_TURNS))

    def ask(
        self,
        key: ConversationKey,
        text: str,
        spaces: Collection[str] | None = None,
        suggest: bool = True,
        readers: Sequence[Reader] = (),
        *,
        within: QueryScope | None = None,
        on_sources: Callable[[list[ScoredEvidence]], None] | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> Turn:
        """Answer `text` as the next turn of the conversation at `key`, searching only
        `spaces` when given, within the question's scope `within` (the spaces, labels and
        page trees of a link-out or a Slack channel, `core.scope`), and only what every one
        of `readers` may read (none: what anonymous access reads), and store the turn.

        With `suggest=False` the follow-up suggestions are left out of the answer's path
        (they cost up to `core.suggest.MAX_CHECKS` searches): a surface shows the answer
        first and then calls `suggest(turn.id)`. A surface that streams passes
        `on_sources`, called with the evidences the answer is given as soon as they are
        known, and `on_text`, called with the answer's text as it arrives (checked sentence
        by sentence when a model streams it, `core.combine.CheckedLLM.stream`); the returned
        turn's answer is the one to show in the end."""
        question = text.strip()
        if not question:
            raise ValueError("the question is empty")
        holder = self._lock_for(key)
        with holder.lock:
            return self._ask(
                key, question, spaces, suggest, list(readers), within, on_sources, on_text
            )

    def _ask(
        self,
        key: ConversationKey,
        question: str,
        spaces: Collection[str] | None,
        suggest: bool,
        readers: list[Reader],
        within: QueryScope | None = None,
        on_sources: Callable[[list[ScoredEvidence]], None] | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> Turn:
        talk = small_talk(question)
        if talk is not None:
            return self._small_talk(key, question, talk)
        timings: dict[str, float] = {}
        started = time.perf_counter()

        def lap(step: str, since: float) -> float:
            now = time.perf_counter()
            timings[f"{step}_ms"] = (now - since) * 1000
            return now

        records = self.store.history(key, limit=HISTORY_TURNS)
        history = _context(records)
        mark = lap("history", started)
        scope = self.access.table().scope(readers)
        mark = lap("access", mark)

        def search(query: str):
            return self.retriever.search(
                query, k=COMPLETER_RESULTS, spaces=spaces, scope=scope, within=within
            ).results

        correction = self._correct_spelling(question)
        mark = lap("spell", mark)
        completion = self.completer.complete(correction.text, history, search)
        mark = lap("complete", mark)
        if completion.clarification:
            return self._clarify(key, question, completion, timings, started, mark)

        retrieval = self.retriever.search(
            completion.query, spaces=spaces, scope=scope, within=within
        )
        mark = lap("retrieve", mark)
        timings.update({f"retrieve.{k}": v for k, v in retrieval.timings.items()})
        found = retrieval.results
        if completion.focus is not None:

            def focus_search(query: str, k: int):
                focused = self.retriever.search(
                    query, k=k, spaces=spaces, scope=scope, within=within
                )
                tokens = self.retriever.index.query_tokens(query, focused.language)
                return focused.results, tokens, focused.language

            found, focus_note = within_topic(completion.focus, found, focus_search)
            completion.notes.update(focus_note)
            mark = lap("focus", mark)

        prompt_question = completion.prompt_question
        results, check = self._self_check(prompt_question, found)
        if check is not None:
            mark = lap("self_check", mark)
        # What the question needs of the page that retrieval left out (`core.page_parts`).
        parts = page_parts(prompt_question, [r.evidence for r in results], self.retriever.index)
        results = [
            *results,
            *(ScoredEvidence(e, 0.0, len(results) + n) for n, e in enumerate(parts, 1)),
        ]
        if on_sources is not None:
            on_sources(results)
        evidences = [r.evidence for r in results]
        if follows_declined_topic(correction.text, history, completion.notes):
            completion.notes["declined_topic"] = True
            answer = declined_answer(self.llm.name, prompt_question, evidences, on_text)
        else:
            (answer,) = generate(self.llm, prompt_question, evidences, on_text=on_text)
        confidence = None if answer.out_of_scope else answer_confidence(self.llm, answer.messages)
        mark = lap("answer", mark)
        if check is not None and not check.kept:
            results = found  # nothing helped: a decline still shows the closest pages
        page_id = answer.citations[0].page_id if answer.citations else None
        suggestions: list[str] | None = None  # None: left for `suggest`
        if answer.out_of_scope:
            suggestions = []
        elif suggest:
            earlier = [question, *asked_and_suggested(records)]
            suggestions = self._suggest(
                completion.question, answer.suggestions, page_id, spaces, earlier, scope, within
            )
            mark = lap("suggest", mark)

        messages = {"completion": completion.messages, "answer": answer.messages}
        if check is not None:
            messages["self_check"] = check.to_dict()
        if isinstance(self.llm, CheckedLLM) and self.llm.last is not None:
            messages["answer_check"] = self.llm.last.to_dict()
        record_timings = dict(timings)
        record_timings["total_ms"] = (mark - started) * 1000
        record: TurnRecord = self.store.add_turn(
            key,
            question=question,
            completed_question=completion.question,
            evidences=evidence_trace(results),
            messages={
                **messages,
                "query": completion.query,
                "notes": completion.notes,
                "suggestions": suggestions,
                "proposed_suggestions": answer.suggestions,
                "spaces": sorted(spaces) if spaces is not None else None,
                "within": within.to_json() if within else None,
                "readers": [r.to_json() for r in readers],
                "spelling": correction.changes,
                "spelled": correction.text if correction.changes else None,
                "confidence": confidence,
            },
            answer=answer.text,
            citations=[asdict(c) for c in answer.citations],
            out_of_scope=answer.out_of_scope,
            model=answer.model,
            timings=record_timings,
        )
        if retrieval.withheld:  # one insert, only for an answer permissions filtered
            audit.record_withheld(
                self.store.url, key.surface, record.id, readers, retrieval.withheld
            )
        mark = lap("store", mark)
        if self.settings.explain_in_background:
            self._explain_later(record.id)
        timings["total_ms"] = (mark - started) * 1000
        observe_turn(key.surface, timings, answer.out_of_scope)
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
            suggestions=suggestions or [],
            suggestions_pending=suggestions is None,
            corrections=correction.changes,
        )

    def _correct_spelling(self, question: str) -> Correction:
        """The question with the words the wiki lacks corrected (`core.spelling`), when the
        `correct_spelling` setting is on."""
        if not self.settings.correct_spelling:
            return Correction(question)
        return self.index.speller().correct(question, detect_language(question))

    def _small_talk(self, key: ConversationKey, question: str, talk: SmallTalk) -> Turn:
        """Chit-chat answered with the help text (`core.smalltalk`): no search, stored as a
        turn that later follow-ups do not take as context."""
        started = time.perf_counter()
        answer = help_text(talk, self.examples)
        record = self.store.add_turn(
            key,
            question=question,
            completed_question=question,
            evidences=[],
            messages={"small_talk": talk.kind, "suggestions": []},
            answer=answer,
            citations=[],
            out_of_scope=False,
            model="small talk",
            timings={},
        )
        timings = {"total_ms": (time.perf_counter() - started) * 1000}
        observe_turn(key.surface, timings, False)
        return Turn(
            id=record.id,
            key=key,
            question=question,
            completed_question=question,
            query="",
            answer=answer,
            citations=[],
            evidences=[],
            timings=timings,
            model="small talk",
            out_of_scope=False,
            small_talk=talk.kind,
        )

    def _clarify(self, key, question, completion, timings, started, mark) -> Turn:
        """Store and return a turn that asks back (`Completion.clarification`): no search,
        no answer, no suggestions."""
        timings["total_ms"] = (mark - started) * 1000
        messages = {"completion": completion.messages, "answer": None, "clarification": True}
        record = self.store.add_turn(
            key,
            question=question,
            completed_question=completion.question,
            evidences=[],
            messages={**messages, "query": "", "notes": completion.notes, "suggestions": []},
            answer=completion.clarification,
            citations=[],
            out_of_scope=False,
            model="clarification",
            timings=dict(timings),
        )
        return Turn(
            id=record.id,
            key=key,
            question=question,
            completed_question=completion.question,
            query="",
            answer=completion.clarification,
            citations=[],
            evidences=[],
            timings=timings,
            model="clarification",
            out_of_scope=False,
            messages=messages,
            completion_notes=completion.notes,
            clarification=True,
        )

    def _self_check(
        self, question: str, results: list[ScoredEvidence]
    ) -> tuple[list[ScoredEvidence], SelfCheck | None]:
        """The evidences the answer is given: with `self_check` on, only those judged to
        help (`core.selfcheck`), so the prompt, the citations and the stored trace (which
        Explain reads) all number the same evidences."""
        if not self.settings.self_check:
            return results, None
        check = self_check(
            self.llm,
            question,
            [r.evidence for r in results],
            self.settings.self_check_min_ratio,
        )
        return [results[i] for i in check.kept], check

    def suggest(self, turn_id: int) -> list[str]:
        """The suggested follow-ups of a stored turn: those stored with it, else computed
        now (as `ask` would have) and stored, so every later call, on any replica, returns
        the same ones. A declined answer has none."""
        record = self.store.turn(turn_id)
        if record is None:
            raise KeyError(f"no turn with id {turn_id}")
        messages = record.messages or {}
        if messages.get("suggestions") is not None:
            return list(messages["suggestions"])
        citations = record.citations or []
        page_id = citations[0].get("page_id") if citations else None
        spaces = messages.get("spaces")
        key = self.store.turn_key(turn_id)
        before = [
            r
            for r in (self.store.history(key, limit=HISTORY_TURNS) if key else [])
            if r.position < record.position
        ]
        suggestions = self._suggest(
            record.completed_question,
            list(messages.get("proposed_suggestions") or []),
            page_id,
            spaces,
            [record.question, *asked_and_suggested(before)],
            self.access.table().scope(readers_of(record)),
            QueryScope.from_json(messages.get("within")),
        )
        return self.store.set_suggestions(turn_id, suggestions)

    def _suggest(
        self,
        question: str,
        proposed: list[str],
        page_id: str | None,
        spaces: Collection[str] | None,
        earlier: list[str],
        scope: Scope,
        within: QueryScope | None = None,
    ) -> list[str]:
        """Follow-ups the model proposed with the answer, else from the first cited page
        `page_id` (`core.suggest.follow_ups`), none about what the `earlier` questions and
        suggestions of the conversation asked, each checked against retrieval and the
        offline answerer's decline threshold for its language."""
        thresholds = {
            "en": self.settings.answer_min_support,
            "de": self.settings.answer_min_support_de,
        }
        retriever = _Scoped(self.retriever, scope, within)
        return follow_ups(
            question, proposed, page_id, self.index, retriever, thresholds, spaces, earlier
        )

    def feedback(self, turn_id: int, value: str, user: str = "") -> int:
        """Record a user's rating of a turn; returns the feedback id."""
        if self.store.turn(turn_id) is None:
            raise KeyError(f"no turn with id {turn_id}")
        feedback_id = self.store.add_feedback(turn_id, value, user)
        observe_feedback(value)
        return feedback_id

    def new_conversation(self, key: ConversationKey) -> int:
        """Start over (`/new`): the conversation's turns stop being history for follow-ups.
        They stay stored for audit and evaluation. Returns how many turns were archived."""
        with self._lock_for(key).lock:
            return self.store.archive(key)

    def turn_record(self, turn_id: int) -> TurnRecord | None:
        """The stored trace of a turn."""
        return self.store.turn(turn_id)

    def explain(self, turn_id: int) -> Explanation:
        """How much each retrieved evidence caused a turn's answer (`core.attribution`, the
        `attribution_method` setting), computed from the exact prompt the turn sent, stored
        in the explanations table, and returned from there on later calls. A click that
        arrives while the same explanation is being computed (in the background, or by
        another click) waits for it instead of computing it again."""
        stored = self.store.explanation(turn_id)
        if stored is not None:
            return Explanation.from_dict(stored)
        with self._explain_guard:
            pending = self._explaining.get(turn_id)
            if pending is None:
                mine: Future = Future()
                self._explaining[turn_id] = mine
        if pending is not None:
            return pending.result()
        try:
            explanation = self._compute_explanation(turn_id)
        except BaseException as exc:
            mine.set_exception(exc)
            raise
        finally:
            with self._explain_guard:
                self._explaining.pop(turn_id, None)
        mine.set_result(explanation)
        return explanation

    def _compute_explanation(self, turn_id: int) -> Explanation:
        stored = self.store.explanation(turn_id)  # finished while we took the guard
        if stored is not None:
            return Explanation.from_dict(stored)
        record = self.store.turn(turn_id)
        if record is None:
            raise KeyError(f"no turn with id {turn_id}")
        question, evidences, numbers = prompt_evidences(
            record.messages.get("answer") or [], record.evidences
        )
        explanation = attribute(
            self.settings.attribution_method,
            self.settings,
            self.llm,
            self.retriever.embedder,
            question,
            evidences,
            record.answer,
            numbers,
        )
        self.store.save_explanation(turn_id, explanation.to_dict())
        return Explanation.from_dict(self.store.explanation(turn_id) or explanation.to_dict())

    def _explain_later(self, turn_id: int) -> None:
        """Start explaining a turn in the background (`explain_in_background`)."""
        with self._explain_guard:
            if self._background is None:
                self._background = ThreadPoolExecutor(2, thread_name_prefix="confbot-explain")
        future = self._background.submit(self.explain, turn_id)
        future.add_done_callback(_log_failure(turn_id))

    def warm_up(self) -> None:
        """Load what the first question would otherwise wait for: the embedder, the page
        catalog and the vector index. An embedded index loads its HNSW graph and replays the
        vectors written since Chroma last saved it (20 s at 2 million vectors:
        docs/benchmarks.md, "100,000 pages, embedded: answers during a re-index")."""
        self.retriever.search("warm up", k=1)

    def close(self) -> None:
        """Wait for background explanations to finish and stop their threads."""
        with self._explain_guard:
            background, self._background = self._background, None
        if background is not None:
            background.shutdown(wait=True)


def make_llm(settings: Settings, index: EvidenceIndex | None = None) -> LLM:
    """The offline `ExtractiveLLM` with the decline thresholds of the settings, or, when
    `llm_base_url` is set, `OpenAILLM` with its answers checked and combined with the
    offline answerer's (`core.combine.CheckedLLM`, the `llm_answer_check` setting); given
    the `index`, the offline answerer matches German questions through the index's word
    translations too, and knows the wiki's vocabulary (to decline questions about what the
    wiki never mentions)."""
    from core.extractive import ExtractiveLLM

    if index is None:
        offline = ExtractiveLLM.from_settings(settings)
    else:
        offline = ExtractiveLLM.from_settings(settings, index.translations, index.vocabulary)
    if not settings.llm_base_url:
        return offline
    from core.llm import OpenAILLM

    model = OpenAILLM.from_settings(settings)
    return CheckedLLM(
        model,
        offline,
        settings.llm_answer_check,
        settings.llm_unsupported,
        settings.llm_context_tokens,
    )


def _log_failure(turn_id: int):
    def report(future: Future) -> None:
        if not future.cancelled() and future.exception() is not None:
            log.warning("background explanation of turn %d failed: %s", turn_id, future.exception())

    return report
