"""Question completion: turn a follow-up ("And what about TPM?") into a question that can be
retrieved on its own, from the earlier turns of its conversation.

Two completers:
- `LLMCompleter`: asks the language model to rewrite the question, given the thread's earlier
  questions and answers; the question is kept unchanged when the model fails or returns
  something that is not a question.
- `OfflineCompleter`: no model. It carries the earlier questions of the current topic into
  the retrieval query and shows their salient terms to the user; a question that names a
  different page starts a new topic.

Both return a `Completion`: `question`, the completed question shown to the user, stored, and
used in the answer prompt; and `query`, the text given to the retriever (the same for the
LLM completer).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.answer import OUT_OF_SCOPE
from core.entities import entities
from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS, detect_language, tokenize

log = logging.getLogger(__name__)

# A retrieval function the completer may use as a tool: query → results best first, each
# with an `.evidence` (a `core.retrieve.ScoredEvidence` list).
Search = Callable[[str], Sequence[Any]]


@dataclass(frozen=True)
class Exchange:
    """One earlier turn of the conversation, as the completers see it."""

    question: str
    completed_question: str
    answer: str = ""


@dataclass
class Completion:
    """A completed question, the retrieval query, and how they were made (for the trace)."""

    question: str
    query: str
    messages: list[dict] | None = None
    notes: dict = field(default_factory=dict)


class Completer(Protocol):
    """Completes a question from the conversation's earlier turns (oldest first)."""

    def complete(
        self, question: str, history: Sequence[Exchange], search: Search | None = None
    ) -> Completion:
        """The completed question; `search` lets a completer consult the retriever."""
        ...


# --------------------------------------------------------------------------- LLM
REPHRASE_SYSTEM = (
    "You rewrite the latest question of a conversation about an internal wiki into a "
    "self-contained question that can be understood without the conversation.\n"
    "Resolve pronouns, ellipses and references such as 'it', 'these tests' or 'and X?' from "
    "the earlier questions and answers. Keep every name, version number and technical term, "
    "and keep the language of the latest question.\n"
    "If the latest question is already self-contained or starts a new topic, return it "
    "unchanged. Reply with the question only, no explanation."
)
MAX_ANSWER_CHARS = 400
MAX_EXCHANGES = 6
_LABEL = re.compile(
    r"^(?:self-contained question|rewritten question|standalone question|question|frage)\s*:\s*",
    re.IGNORECASE,
)


def rephrase_messages(question: str, history: Sequence[Exchange]) -> list[dict]:
    """The chat messages asking a model to complete `question` from `history`."""
    lines = []
    for number, exchange in enumerate(history[-MAX_EXCHANGES:], start=1):
        answer = " ".join(exchange.answer.split())
        if len(answer) > MAX_ANSWER_CHARS:
            answer = answer[: MAX_ANSWER_CHARS - 1] + "…"
        lines.append(f"Q{number}: {exchange.completed_question or exchange.question}")
        lines.append(f"A{number}: {answer or '(no answer)'}")
    user = (
        "Conversation so far:\n"
        + "\n".join(lines)
        + f"\n\nLatest question: {question.strip()}\n\nSelf-contained question:"
    )
    return [{"role": "system", "content": REPHRASE_SYSTEM}, {"role": "user", "content": user}]


def clean_rewrite(text: str, question: str) -> str | None:
    """The model's rewrite stripped of labels and quotes, or None when it is junk (empty,
    far longer than a question, or the out-of-scope sentence)."""
    lines = [line.strip() for line in (text or "").strip().splitlines() if line.strip()]
    if not lines:
        return None
    rewrite = _LABEL.sub("", lines[0]).strip().strip("\"'“”„`").strip()
    if not rewrite or OUT_OF_SCOPE.lower()[:40] in rewrite.lower():
        return None
    if len(rewrite) > max(400, 4 * len(question)):
        return None
    return rewrite


class LLMCompleter:
    """Question completion by a language model (`core.llm.LLM`), temperature 0."""

    def __init__(self, llm, max_tokens: int = 200):
        self.llm = llm
        self.max_tokens = max_tokens

    def complete(
        self, question: str, history: Sequence[Exchange], search: Search | None = None
    ) -> Completion:
        """The model's rewrite of `question`; unchanged with no history, or when the model
        fails or answers with junk."""
        from core.llm import LLMError

        question = question.strip()
        if not history:
            return Completion(question, question, None, {"method": "none"})
        messages = rephrase_messages(question, history)
        try:
            (text,) = self.llm.complete(messages, n=1, temperature=0.0, max_tokens=self.max_tokens)
        except LLMError as exc:
            log.warning("question completion failed, keeping the question: %s", exc)
            return Completion(question, question, messages, {"method": "llm", "error": str(exc)})
        rewrite = clean_rewrite(text, question)
        if rewrite is None:
            log.warning("question completion returned junk, keeping the question: %r", text[:200])
            return Completion(question, question, messages, {"method": "llm", "junk": text[:500]})
        return Completion(rewrite, rewrite, messages, {"method": "llm"})


# --------------------------------------------------------------------------- offline
_WORD = re.compile(r"[^\W_]+(?:[.\-_/+][^\W_]+)*", re.UNICODE)
_STOP = ENGLISH_STOPWORDS | GERMAN_STOPWORDS
# Question words and conversational fillers that say nothing about the topic (EN and DE).
_FILLERS = frozenset(
    """also and anything back besides but coming did does else even explain further give
    know let like many much please really say see seems show so tell thanks think understand
    way well yes whom whose wieso weshalb welche welcher welches welchen welchem woher wohin
    wofür womit wovon worauf woran eigentlich übrigens bitte danke gibt gab mal denn ja nein
    zurück sagen nenne nennen könnten könnte sie mir uns dafür darüber davon dabei daran
    darauf dessen""".split()
)


def salient_terms(text: str) -> list[str]:
    """Words of `text` that carry its topic, in order, each once (case-insensitive): names,
    technical terms and content words, without English and German stopwords and fillers."""
    out: dict[str, str] = {}
    for word in _WORD.findall(text):
        lower = word.lower()
        if lower in _STOP or lower in _FILLERS or (len(word) < 2 and not word.isdigit()):
            continue
        out.setdefault(lower, word)
    return list(out.values())


class OfflineCompleter:
    """Question completion without a language model.

    The retrieval query is the question followed by the earlier questions of the current
    topic (at most `max_turns`, the most recent ones), so the entities a follow-up leaves
    out ("it", "these tests", "and Xen?") come back from the turns that named them. The
    completed question shown to the user is the question plus the salient terms of those
    turns, most recent first (at most `max_terms`).

    Measured on ConfQuestions (dev split, raw conversational questions, default retrieval,
    `benchmarks/assistant_overhead.py`): page-level P@1 0.862 in English and 0.814 in German
    end to end, against 0.510 / 0.429 for the raw questions alone and 0.881 / 0.852 for the
    hand-written completed ones. Carrying whole earlier questions beat carrying only their
    salient terms in German (the dense model prefers sentences to word lists); carrying the
    previous top page's title or evidence text hurt (EN 0.76 / DE 0.70), since a wrong page
    then locks in for the rest of the conversation.

    Topic change: when the question's new words (not in the topic's earlier questions)
    cover at least `new_topic_words` words and `new_topic_share` of the title of the page
    the question retrieves on its own, it names a different page and starts a new topic
    (nothing is carried). This needs `search`; without it every follow-up continues the topic.
    A question that names another release candidate or date than the topic's ("and the rc1
    results?" after rc2) also starts one: it asks about a sibling page, and the carried turns
    would pull the old one back (`switched_entities`; conversational P@1 0.876 -> 0.895 EN,
    0.843 -> 0.852 DE, docs/benchmarks.md).
    A turn that carried nothing (its completed question equals its question) marks where the
    current topic began.
    """

    def __init__(
        self,
        max_turns: int = 8,
        max_terms: int = 12,
        new_topic_words: int = 2,
        new_topic_share: float = 0.5,
    ):
        self.max_turns = max_turns
        self.max_terms = max_terms
        self.new_topic_words = new_topic_words
        self.new_topic_share = new_topic_share

    def topic(self, history: Sequence[Exchange]) -> list[Exchange]:
        """The turns of the current topic: from the last turn that carried nothing on."""
        start = 0
        for position, exchange in enumerate(history):
            if exchange.completed_question.strip() == exchange.question.strip():
                start = position
        return list(history[start:])[-self.max_turns :]

    def new_topic(self, question: str, topic: Sequence[Exchange], search: Search | None) -> dict:
        """Whether `question` names a page other than the topic's: {"new_topic", "title",
        "covered"} or {"new_topic", "switched"}."""
        if not topic:
            return {"new_topic": False}
        switched = switched_entities(question, topic)
        if switched:
            return {"new_topic": True, "switched": switched}
        if search is None:
            return {"new_topic": False}
        results = search(question)
        if not results:
            return {"new_topic": False}
        title = results[0].evidence.title
        language = detect_language(question)
        earlier = set(tokenize(" ".join(e.question for e in topic), language))
        new = set(tokenize(question, language)) - earlier
        title_words = set(tokenize(title))
        covered = new & title_words
        changed = len(covered) >= self.new_topic_words and len(
            covered
        ) >= self.new_topic_share * len(title_words)
        return {"new_topic": changed, "title": title, "covered": sorted(covered)}

    def complete(
        self, question: str, history: Sequence[Exchange], search: Search | None = None
    ) -> Completion:
        """The question with the current topic's earlier questions carried into the query."""
        question = question.strip()
        topic = self.topic(history)
        check = self.new_topic(question, topic, search)
        if not topic or check["new_topic"]:
            return Completion(question, question, None, {"method": "offline", **check})
        query = " ".join([question, *(e.question.strip() for e in topic)])
        own = {t.lower() for t in salient_terms(question)}
        carried: list[str] = []
        for exchange in reversed(topic):
            for term in salient_terms(exchange.question):
                if term.lower() not in own and term.lower() not in {c.lower() for c in carried}:
                    carried.append(term)
        carried = carried[: self.max_terms]
        if carried:
            shown = f"{question} (context: {', '.join(carried)})"
        else:
            shown = f"{question} (following up on: {topic[-1].question.strip()})"
        notes = {"method": "offline", "carried_turns": len(topic), "carried": carried, **check}
        return Completion(shown, query, None, notes)


# Entity kinds that tell sibling pages apart: the rc1 and rc2 results of one test matrix, the
# minutes of two meetings. (Dotted versions are left out: "Debian 9.9" and "TPM 2.0" in one
# conversation are versions of different things.)
SIBLING_KINDS = ("rc", "date")


def switched_entities(question: str, topic: Sequence[Exchange]) -> list[str]:
    """The release candidates and dates `question` names in place of different ones of the
    same kind that the topic's questions named ("and the rc1 results?" after rc2): such a
    question asks about a sibling page, and carrying the topic would pull the old one back."""
    earlier = entities(" ".join(e.question for e in topic))
    return sorted(
        e.value
        for e in entities(question)
        if e.kind in SIBLING_KINDS
        and any(b.kind == e.kind for b in earlier)
        and not any(e.matches(b) for b in earlier)
    )


def make_completer(settings, llm) -> Completer:
    """`LLMCompleter` when an LLM endpoint is configured, else `OfflineCompleter`."""
    if settings.llm_base_url:
        return LLMCompleter(llm)
    return OfflineCompleter()
