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

from core.answer import OUT_OF_SCOPE, is_out_of_scope
from core.count_followup import recounted
from core.entities import entities, without_entities
from core.followup import (
    PERSONAL,
    added_places,
    answered_name,
    bare_name,
    clarification,
    content_words,
    definite_noun,
    following_up,
    is_elliptical,
    is_following_up,
    is_thin,
    learn_kinds,
    mentions,
    needs_topic,
    references,
    resolve_references,
    substitute,
    substitutions,
    whole_after_and,
    without_conjunction,
)
from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS, detect_language, tokenize
from core.list_counts import counted_noun
from core.new_subject import aside, codes, says_all, unseen_subject
from core.topic_search import Focus

log = logging.getLogger(__name__)

# A retrieval function the completer may use as a tool: query → results best first, each
# with an `.evidence` (a `core.retrieve.ScoredEvidence` list).
Search = Callable[[str], Sequence[Any]]


@dataclass(frozen=True)
class Exchange:
    """One earlier turn of the conversation, as the completers see it: `topic_start` says
    whether it began a topic (None: unknown, for turns stored without the note; then a turn
    whose completed question is its question began one); `titles`, the titles of the pages
    its answer cited, first cited first (what the topic is about, in the wiki's words);
    `pages`, the ids of those pages, in the same order."""

    question: str
    completed_question: str
    answer: str = ""
    topic_start: bool | None = None
    titles: tuple[str, ...] = ()
    pages: tuple[str, ...] = ()


@dataclass
class Completion:
    """A completed question, the retrieval query, and how they were made (for the trace).

    `prompt` is the question the answer prompt carries when it differs from the shown one
    (the offline completer adds the carried topic, "(context: ...)", which the offline
    answerer reads, `core.questions.CONTEXT`); `clarification`, when set, is the reply to a
    question that cannot be answered without an earlier turn and has none: nothing is
    searched; `focus`, when set, is a follow-up's own words and the pages its topic's
    answers cited, to search once more within those pages (`core.topic_search`)."""

    question: str
    query: str
    messages: list[dict] | None = None
    notes: dict = field(default_factory=dict)
    prompt: str = ""
    clarification: str = ""
    focus: Focus | None = None

    @property
    def prompt_question(self) -> str:
        """The question put in the answer prompt."""
        return self.prompt or self.question


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


def current_topic(history: Sequence[Exchange]) -> list[Exchange]:
    """The turns of the conversation's current topic: from the last that began one on (a
    turn stored without the note began one when its completed question is its question)."""
    start = 0
    for position, exchange in enumerate(history):
        began = exchange.topic_start
        if began is None:
            began = exchange.completed_question.strip() == exchange.question.strip()
        if began:
            start = position
    return list(history[start:])


# The evidences a follow-up's own search finds first (its own top 5) that may say all of
# an "and"-question after declined turns (`OfflineCompleter.stands_after_declines`).
SAYS_ALL_AMONG = 5


class OfflineCompleter:
    """Question completion without a language model.

    A follow-up is resolved against the latest readable question of the current topic (the
    anchor, `anchor`) and shown as a question (`core.followup`):
    - one that names a thing of the same kind as one of the anchor's ("and in week 3?",
      "and for meals?", "and in Germany?") is the anchor with that thing replaced; kinds are
      learned from the table rows of the topic's answers and of what the follow-up alone
      retrieves (an elliptical one that changes nothing so, with the rows it retrieves
      together with the anchor: "and what about forward seal works?"); the question it
      changes may be one shown following up on another (`changeable`);
    - one that points back ("Where is it located?", "that team") has the reference replaced
      by the anchor's subject or phrase (English);
    - one too thin to stand alone that cannot be folded ("What was the reason?", German
      references) is shown with the question it follows ("... — following up on “...”");
    - any other is shown as asked.
    The retrieval query is the question followed by the earlier questions of the current
    topic (at most `max_turns`, the most recent ones), so what a follow-up leaves out comes
    back from the turns that named it. After a replacement it is the salient terms of the
    completed question (and any of the follow-up's it lacks): the earlier questions name the
    replaced thing, and as a
    sentence the question ranks a table's first rows above the row of the changed thing
    (on the sample wiki "Who is the secondary on-call for the Payments team in week 3?"
    retrieves rows 1-5 of the rotation, and the novelty filter, `core.redundancy`, then
    drops the week 3 row; its salient terms retrieve that row first). The answer prompt's
    question (`Completion.prompt`) is the shown one plus the salient terms of the topic it
    does not name, as "(context: ...)" (at most `max_terms`), which the offline answerer
    reads to weigh the carried topic and to hold follow-ups to their own decline
    thresholds.

    Measured on ConfQuestions (dev split, raw conversational questions, default retrieval,
    `benchmarks/assistant_overhead.py`): carrying whole earlier questions in the query gave
    page-level P@1 0.862 EN / 0.814 DE against 0.510 / 0.429 for the raw questions alone;
    carrying them beat carrying only their salient terms in German (the dense model prefers
    sentences to word lists); carrying the previous top page's title or evidence text hurt
    (EN 0.76 / DE 0.70), since a wrong page then locks in for the rest of the conversation.

    Topics end. A question starts a new topic (nothing is carried, it is shown as asked)
    when its new words (not in the topic's earlier questions) cover at least
    `new_topic_words` words and `new_topic_share` of the title of the page it retrieves on
    its own, or when it names another release candidate or date than the topic's ("and the
    rc1 results?" after rc2: a sibling page the carried turns would pull back;
    `switched_entities`; conversational P@1 0.876 -> 0.895 EN, 0.843 -> 0.852 DE,
    docs/benchmarks.md; it is searched with the title of the topic's page without the
    replaced kind, which finds the sibling titled alike, `sibling_title`: one more page
    right at rank 1 in each language, 5 folds), or when it names its own subject: words
    the topic never says that name the page it finds alone by its title or a heading
    (`own_subject`; a German
    question shares no word with an English title). Stricter rules cost P@1 on
    ConfQuestions: starting a new topic when a question shares no word with the topic's
    questions and answers, or when none of the pages it retrieves alone is among the
    topic's, gave 0.767 EN / 0.571 DE (5 folds)
    against 0.895 / 0.852: its conversations change subject within one page ("How many
    people attended?" after the dial-in number of a meeting).
    What a follow-up that is not a substitution carries depends on what it says itself
    (replayed dev conversations, read against their gold answers, docs/benchmarks.md): one
    that needs the turn before ("What was the reason?", "Where is it located?", "and the
    PIN?") searches with the whole topic and carries, into the prompt, the words of the turn
    it follows and the titles of the (at most two) pages the topic's latest answers cited
    (`topic_named`); one that says what it asks ("What color does the XT shield become
    after an upgrade?") searches with the topic's first question (which names the topic,
    even when the topic is longer than `max_turns`: "Where is the XT shield located?" as the
    tenth turn on OpenXT 9.0 found the 8.0 page with the second turn, "And what about
    TPM?"; one more page right at rank 1 in each language, 5 folds) and its latest
    (`own_turns`), and carries only those titles: the other turns' words pulled its answer
    to the rows they had asked about.
    An aside ("By the way, what is TBOOT?", `core.new_subject.aside`) starts a new topic,
    searched with the first question of the topic it leaves (`aside_query`).
    With no topic to follow, a question that needs one (`core.followup.needs_topic`: "and
    in week 3?", "who?") gets a clarifying reply (`Completion.clarification`) instead of a
    guess.
    """

    def __init__(
        self,
        max_turns: int = 8,
        max_terms: int = 12,
        new_topic_words: int = 2,
        new_topic_share: float = 0.5,
        own_turns: int = 1,
    ):
        self.max_turns = max_turns
        self.max_terms = max_terms
        self.new_topic_words = new_topic_words
        self.new_topic_share = new_topic_share
        self.own_turns = own_turns

    @staticmethod
    def stands_after_declines(
        question: str, topic: Sequence[Exchange], results: Sequence[Any] = ()
    ) -> bool:
        """Whether `question` is asked on its own because every turn of the current topic
        was declined and it says what it asks (nothing points back, not too thin): the
        declined turns name no page to follow, and answering it as their follow-up declined
        it with them ("Can I take a taxi at 23:00?" after an off-topic question). Its search
        still carries the topic's questions: they may name its subject ("is everyone allowed
        to create new tickets?" after a declined question on JIRA tickets).
        An "and" before a whole wh-question of its own (`core.followup.whole_after_and`)
        stands too when the evidence it finds first alone (`results`) says all its words
        ("and how many days can I carry over?" after a declined question on parental
        leave: "Up to 5 unused days can be carried over", among the first `SAYS_ALL_AMONG`
        evidences it finds alone); one the wiki says only part of
        ("And how is the bonus calculated?" after declined performance reviews) is declined
        with its topic."""
        if is_thin(question) or references(question):
            return False
        if needs_topic(question):
            language = detect_language(question)
            found = [r.evidence.text for r in results[:SAYS_ALL_AMONG]]
            if not whole_after_and(question) or not any(
                says_all(question, language, text) for text in found
            ):
                return False
        return all(is_out_of_scope(e.answer) for e in topic)

    def topic(self, history: Sequence[Exchange]) -> list[Exchange]:
        """The last `max_turns` turns of the current topic (`current_topic`)."""
        return current_topic(history)[-self.max_turns :]

    @staticmethod
    def anchors(topic: Sequence[Exchange]) -> list[str]:
        """The readable questions of the topic, latest first: its completed questions that
        are no "following up on" form (the topic's first question when there are none)."""
        out = [
            e.completed_question.strip()
            for e in reversed(topic)
            if not is_following_up(e.completed_question)
        ]
        return list(dict.fromkeys(out)) or [topic[0].question.strip()]

    def anchor(self, topic: Sequence[Exchange]) -> str:
        """The latest readable question of the topic (see `anchors`)."""
        return self.anchors(topic)[0]

    @staticmethod
    def changeable(topic: Sequence[Exchange]) -> list[str]:
        """The questions of the topic a follow-up may change one thing of, latest first:
        its readable completed questions, and the question as asked of a turn shown
        "following up on" another when it says what it asks (no ellipsis, more than one
        word of its own): "And Xen?" after "Which Ubuntu versions were used in these GPU
        tests?" (shown following up, for "these GPU tests") changes that question, not an
        earlier one that names no version."""
        out = []
        for exchange in reversed(topic):
            completed = exchange.completed_question.strip()
            if not is_following_up(completed):
                out.append(completed)
            elif not (is_thin(exchange.question) or is_elliptical(exchange.question)):
                out.append(exchange.question.strip())
        return list(dict.fromkeys(out)) or [topic[0].question.strip()]

    def new_topic(
        self,
        question: str,
        topic: Sequence[Exchange],
        results: Sequence[Any],
        search: Search | None = None,
    ) -> dict:
        """Whether `question` names a page other than the topic's: {"new_topic", "title",
        "covered"}, {"new_topic", "title", "unseen"} (its own subject, `own_subject`, read
        with `search`) or {"new_topic", "switched"}. `results` are what it retrieves alone
        (none: only release candidates and dates are compared)."""
        switched = switched_entities(question, topic)
        if switched:
            return {"new_topic": True, "switched": switched}
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
        if not changed and search is not None:
            unseen = self.own_subject(question, language, topic, results, search)
            if unseen:
                return {"new_topic": True, "title": title, "unseen": unseen}
        return {"new_topic": changed, "title": title, "covered": sorted(covered)}

    def own_subject(
        self,
        question: str,
        language: str,
        topic: Sequence[Exchange],
        results: Sequence[Any],
        search: Search,
    ) -> list[str]:
        """The words of a question that says what it asks (no ellipsis, nothing pointed
        back at) that the topic never says and that name the page it finds first alone, not
        one of the topic's, by its title or section heading (`core.new_subject`): its own
        subject ("Wie viele Urlaubstage ...?" after the on-call rotation finds "Annual
        leave" on Offices and Public Holidays). The topic says what its questions, answers
        and page titles say and what the question with the topic's latest readable question
        retrieves on the topic's pages (the page text nearest the question: "switcher keys"
        on a test matrix is no new subject). A word the found page's text says, not its
        title or heading, was not enough: the replayed dev conversations ask about rows of
        sibling pages that a raw question finds first (35 replies changed, most for the
        worse; with titles and headings 1 changes, for the better). Conversational P@1 (5
        folds): EN 0.886 -> 0.876, DE 0.848 -> 0.848 ("How to add and test a USB device?"
        leaves its topic's page in both languages); a code the question names that the topic
        says or the found page's title does not (`core.new_subject.codes`) keeps it on its
        topic ("How many were from the AIS team?"; in sample EN 0.886 -> 0.895). A question
        whose one word of its own is a code ("Who is the CEO?" after a travel question) names
        its subject by the found evidence's text too: its title ("Team Directory") and
        heading ("Leadership") need not say it, and shown following up on the topic it was
        searched with the topic's words and answered from the topic's page."""
        titles = {title for e in topic for title in e.titles}
        top = results[0].evidence
        if not titles or top.title in titles or needs_topic(question) or references(question):
            return []
        asked = f"{question} {self.anchor(topic)}"
        # what it finds alone on the topic's pages is near it too ("How to add and test a
        # USB device?" finds the topic page's USB steps below another page's)
        found = [*search(asked), *results]
        pages = list(dict.fromkeys(r.evidence.text for r in found if r.evidence.title in titles))
        if not pages:
            return []  # the topic's pages say nothing near it: too little to compare
        said = [*pages, *titles, *(f"{e.question} {e.answer}" for e in topic)]
        found = f"{top.title} {top.heading}"
        if is_thin(question) and codes(content_words(question)):
            # its one word is a code ("Who is the CEO?"): it names the thing it asks about,
            # and the text the question finds first alone names it as well as a title would
            found = f"{found} {top.text}"
        return unseen_subject(question, language, said, found)

    def changed(
        self,
        question: str,
        topic: Sequence[Exchange],
        lexicon: dict[str, set[str]],
        wiki_text: str,
        anchor: str,
    ) -> tuple[str, list]:
        """The latest question of the topic that the follow-up changes one thing of
        (`changeable`) and its substitutions; (`anchor`, []) when there is none. When that
        question is an older one and the follow-up names the new thing after a preposition
        that the latest question names neither it nor the old thing of, the thing is added
        to the latest question instead (`core.followup.added_places`): "und für SEV1?"
        after "und wann ist der Postmortem-Entwurf fällig?" (which followed a question
        about SEV2's acknowledge time) asks for the postmortem, not the acknowledge time."""
        candidates = self.changeable(topic)
        for position, candidate in enumerate(candidates):
            subs = substitutions(question, candidate, lexicon, wiki_text)
            if subs and _keeps_words(question, substitute(candidate, question, subs)):
                latest = candidates[0]
                added = added_places(question, latest, subs) if position else []
                if added and _keeps_words(question, substitute(latest, question, added)):
                    return latest, added
                return candidate, subs
        return anchor, []

    def complete(
        self, question: str, history: Sequence[Exchange], search: Search | None = None
    ) -> Completion:
        """The completed question, the query with the topic's earlier questions, and the
        prompt question with the carried topic (see the class docstring)."""
        question = question.strip()
        language = detect_language(question)
        topic = self.topic(history)
        if not topic:
            notes = {"method": "offline", "topic_start": True}
            if needs_topic(question):
                reply = clarification(question, language)
                return Completion(
                    question, question, None, {**notes, "clarification": True}, clarification=reply
                )
            return Completion(question, question, None, notes)
        asked_aside = aside(question)
        if asked_aside:
            # "By the way, what is TBOOT?": it leaves the thread (the turns after it follow
            # it), searched and answered without its opening, which says nothing of what it
            # asks; its search keeps the topic's first question, which names what the
            # conversation is about (`aside_query`)
            notes = {"method": "offline", "topic_start": True, "aside": True}
            query = aside_query(asked_aside, current_topic(history)[0])
            return Completion(question, query, None, notes, prompt=asked_aside)
        results = list(search(question)) if search is not None else []
        anchor = self.anchor(topic)
        pointed = anchor  # the question whose answer a pronoun may point at
        refs = references(question)
        # "and how many optional ones?" after a count of compulsory fields: no substitution
        # to look for, so none of the searches that find one
        recount = recounted(question, anchor, language)
        # "there" points back at the place, which a substitution keeps ("and the hotel
        # limit there?" changes the column and keeps the city).
        changes_one = recount is None and not set(refs) - PLACE_REFERENCES
        followed: list[str] = []
        if changes_one and search is not None and len(content_words(question)) <= FEW_WORDS:
            # Kinds come from the rows the follow-up and the question it follows retrieve
            # too (an answer says "Bristol (Office for Payments)", not the row it came from).
            followed = [r.evidence.text for r in search(anchor)]
        texts = [*(e.answer for e in topic), *followed]
        lexicon = learn_kinds([*texts, *(r.evidence.text for r in results)])
        subs = []
        if changes_one and _short(question, lexicon):
            anchor, subs = self.changed(question, topic, lexicon, "\n".join(texts), anchor)
        if changes_one and not subs and followed and is_elliptical(question):
            # "and what about forward seal works?": the row it names may be one that neither
            # it alone nor the question it follows retrieves, but both together do (a test
            # matrix's other test, not the procedure page of that name)
            texts += [r.evidence.text for r in search(f"{question} {anchor}")]
            lexicon = learn_kinds([*texts, *(r.evidence.text for r in results)])
            if _short(question, lexicon):
                anchor, subs = self.changed(question, topic, lexicon, "\n".join(texts), anchor)
        notes: dict = {"method": "offline", "topic_start": False}
        if subs or recount is not None:
            if recount is not None:
                shown, replace = recount, [(counted_noun(anchor, language), recount)]
                notes["recounted"] = True
            else:
                shown = without_conjunction(substitute(anchor, question, subs))
                replace = [(s.old.text if s.old else "", s.new.text) for s in subs]
                notes["substituted"] = [list(pair) for pair in replace]
            shown_terms = salient_terms(shown)
            kept = {t.lower() for t in shown_terms}
            own = [t for t in salient_terms(question) if t.lower() not in kept]
            dropped = {old.lower() for old, _ in replace}
            query = " ".join(
                [
                    *shown_terms,
                    *own,
                    *self.page_terms(topic, kept | {t.lower() for t in own}, dropped),
                ]
            )
        else:
            check = self.new_topic(question, topic, results, search)
            if check["new_topic"]:
                notes = {"method": "offline", "topic_start": True, **check}
                # another release candidate or date of the topic's page: its sibling page
                sibling = sibling_title(question, topic) if "switched" in check else ""
                if sibling:
                    notes["sibling"] = sibling
                return Completion(question, f"{question} {sibling}".strip(), None, notes)
            notes.update(check)
            # the answer a pronoun may point at: the one to the question it follows
            last = topic[-1]
            answer = last.answer if anchor == last.completed_question.strip() else ""
            if not answer and set(refs) & PERSONAL and answered_name(last.question, last.answer):
                # "where does she work?" after "Who is the CEO?", itself shown following up
                # on an earlier question: "she" is the person that answer names
                pointed, answer = last.question.strip(), last.answer
            titles = topic_named(topic)
            title = titles[-1].question if titles else ""
            shown = resolve_references(question, pointed, answer, title) if refs else None
            if shown is not None:
                notes["resolved"] = True
            elif is_thin(question) or refs:
                shown = following_up(question, anchor, language)
            else:
                shown = question
            own = shown if notes.get("resolved") else question
            carried_turns = topic
            if notes.get("resolved") or not (is_thin(question) or refs or is_elliptical(question)):
                # it says what it asks: the topic's first question (which names the topic)
                # and the latest keep it on the topic's page; the others would pull the
                # evidence they asked for ahead of the evidence it asks for
                # (its first question even when the topic is longer than `max_turns`)
                first = current_topic(history)[0]
                carried_turns = list(dict.fromkeys([first, *topic[-self.own_turns :]]))
                # and a name it gives replaces the one of that kind they gave ("Payments,
                # week 2" after "Robot Firmware, week 3"), or their rows would outrank its own
                query = " ".join(
                    [own, *(_with_own_names(question, e.question, lexicon) for e in carried_turns)]
                )
            else:
                query = " ".join([own, *(e.question.strip() for e in carried_turns)])
            dropped = set()
        asked = shown if not is_following_up(shown) else question
        if subs or recount is not None:
            carried = self.carried(asked, topic, dropped)
        elif (is_thin(question) or refs or is_elliptical(question)) and not notes.get("resolved"):
            # it needs the question it follows, not the whole topic's words (once its
            # references are resolved it says what it asks: the earlier question's words
            # would pull the earlier answer's span ahead of its own)
            followed = [topic[-1]]
            if anchor != topic[-1].completed_question.strip():
                # the turn before was itself thin ("which Slack channel do they use?", shown
                # following up on the question about Robot Firmware): the question it
                # followed names the subject, and its terms go first
                followed.append(Exchange(anchor, anchor))
            carried = self.carried(asked, [*topic_named(topic), *followed], dropped)
        elif notes.get("resolved") and _took_answered_name(question, pointed, topic, shown):
            # "where is she based?" → "where is Karin Vogel based?": it asks about the thing
            # the last answer named, wherever the wiki says it, not about that answer's page
            carried = []
        elif definite_noun(question, anchor):
            # "what happened to the old channel?" after "Which Slack channel does the
            # Payments team use?": the channel spoken of, so the question it follows says
            # which (its terms first), with the page the topic is on
            carried = self.carried(asked, [*topic_named(topic), Exchange(anchor, anchor)], dropped)
        else:
            # it says what it asks: only the page the topic is on comes with it
            carried = self.carried(asked, topic_named(topic), dropped)
        notes.update(carried_turns=len(topic), carried=carried)
        suffix = (
            f"(context: {', '.join(carried)})"
            if carried
            else (f"(following up on: {topic[-1].question.strip()})")
        )
        # a substitution's query is already the completed question's own terms; any other
        # follow-up's query carries the topic's questions: its own words search once more
        # within the topic's pages (`core.topic_search`)
        focus = None if subs or recount is not None else Focus(asked, topic_pages(topic))
        if (subs or recount is not None) and not carried:
            # the changed question says all it asks; the one it follows would bring back
            # the name it replaced ("and in Bristol?" after Hamburg: a sentence naming both
            # cities would outscore Bristol's own row)
            suffix = ""
        if not subs and recount is None and self.stands_after_declines(question, topic, results):
            # nothing to follow: it is asked on its own, its search still near the topic
            shown, asked, suffix = question, question, ""
            notes["after_declined"] = True
        return Completion(
            shown, query, None, notes, prompt=f"{asked} {suffix}".strip(), focus=focus
        )

    @staticmethod
    def page_terms(topic: Sequence[Exchange], named: set[str], dropped: set[str]) -> list[str]:
        """The salient terms of the titles of the pages the topic's answers cited
        (`topic_named`) that the completed question does not name (`named`, lower case) and
        no replacement took out: a question completed from a follow-up that was itself
        thin ("How many were from the AIS team?" → "... the BAH team?") names too little
        of its topic to find its page again. A replaced date or release candidate is taken
        out of the titles too ("und am 20.8.15?" after the call of 23.7.15 asks about the
        page titled alike with the other date, `sibling_title`)."""
        out: list[str] = []
        dropped_terms = {t.lower() for d in dropped for t in salient_terms(d)}
        replaced = {e.kind for d in dropped for e in entities(d)} & set(SIBLING_KINDS)
        for exchange in topic_named(topic):
            for term in salient_terms(without_entities(exchange.question, replaced)):
                lower = term.lower()
                if lower not in named and not _dropped(lower, dropped_terms):
                    out.append(term)
                    named = named | {lower}
        return out

    def carried(self, asked: str, topic: Sequence[Exchange], dropped: set[str]) -> list[str]:
        """The salient terms of the topic's questions, most recent first, that `asked` does
        not name and no replacement took out (at most `max_terms`)."""
        own = {t.lower() for t in salient_terms(asked)}
        dropped_terms = {t.lower() for d in dropped for t in salient_terms(d)}
        carried: list[str] = []
        seen: set[str] = set()
        for exchange in reversed(topic):
            for term in salient_terms(exchange.question):
                lower = term.lower()
                if lower not in own and lower not in seen and not _dropped(lower, dropped_terms):
                    carried.append(term)
                    seen.add(lower)
        return carried[: self.max_terms]


def aside_query(asked: str, first: Exchange) -> str:
    """The search of an aside (`core.new_subject.aside`, without its opening): it and the
    first question of the topic it leaves, unless that turn was declined. The thread's
    later turns asked about the rows they asked about, which the aside does not; the first
    question names what the conversation is about, which an aside may still be ("By the
    way, what capabilities were measured for version 7.x?" after questions on a measured
    launch page: alone it finds the 7.x builds page). Conversational P@1 (5 folds), from
    0.914 EN / 0.881 DE: an aside searched alone 0.919 / 0.890, with the first question
    0.924 / 0.890."""
    if is_out_of_scope(first.answer):
        return asked
    return f"{asked} {aside(first.question) or first.question.strip()}"


def _took_answered_name(question: str, anchor: str, topic: Sequence[Exchange], shown: str) -> bool:
    """Whether resolving `question` put in the name the last answer gave (`answered_name`:
    "Karin Vogel" for "Who is the VP Engineering?"), which neither it nor `anchor` says."""
    last = topic[-1]
    if anchor not in (last.completed_question.strip(), last.question.strip()):
        return False
    named = answered_name(anchor, last.answer)
    return bool(named) and named in shown and named not in question and named not in anchor


def _dropped(term: str, dropped: set[str]) -> bool:
    """Whether a term (lower case) was taken out by a replacement: one of `dropped`, or a
    German compound opening with one ("hotellimit" when "hotel" was replaced)."""
    return any(term.startswith(d) and (term == d or len(d) >= 4) for d in dropped)


def _with_own_names(question: str, earlier: str, lexicon: dict[str, set[str]]) -> str:
    """An earlier question with the names `question` gives in place of its own of the same
    kind (`core.followup.substitutions`): what it adds to the search is its topic, not the
    rows it asked for."""
    subs = substitutions(question, earlier, lexicon)
    return substitute(earlier, question, subs).strip() if subs else earlier.strip()


def topic_named(topic: Sequence[Exchange], pages: int = 2) -> list[Exchange]:
    """The titles of the pages the topic's latest answers cited first (at most `pages`,
    the latest last), as turns to carry terms from (none when no answer cited a page): one
    answer from a wrong page does not take the topic with it."""
    titles = list(dict.fromkeys(e.titles[0] for e in reversed(topic) if e.titles))[:pages]
    return [Exchange(title, title) for title in reversed(titles)]


def topic_pages(topic: Sequence[Exchange], pages: int = 2) -> tuple[str, ...]:
    """The ids of the pages the topic's latest answers cited first (at most `pages`), as
    `topic_named` takes their titles."""
    return tuple(dict.fromkeys(e.pages[0] for e in reversed(topic) if e.pages))[:pages]


# References to the place named before, which a follow-up that changes one thing keeps.
PLACE_REFERENCES = frozenset({"there", "dort"})
# A follow-up of at most this many content words may name one thing to change.
FEW_WORDS = 3


def _short(question: str, lexicon: dict[str, set[str]]) -> bool:
    """Whether a follow-up can change one thing of the earlier question: besides the things
    it names (of a known kind, or a bare name: "and Quality Assurance?") it says at most one
    word of its own ("and for meals?", "What about Whit Monday in Bristol?"); one that says
    more ("und gibt es festgelegte Regeln für den Änderungszugriff?") asks something else."""
    rest = list(content_words(question))
    named = [m.text for m in mentions(question, lexicon)]
    bare = bare_name(question)
    if bare is not None:
        named.append(bare.text)
    for text in named:
        for word in content_words(text):
            if word in rest:
                rest.remove(word)
    return len(rest) <= 1


def _keeps_words(question: str, completed: str) -> bool:
    """Whether every word of the follow-up's own is in the completed question (a change that
    left one out, "primary" in "Who is the primary in week 3?" when only the week was
    replaced, would answer another question); a possessive keeps its word ("SEV1's")."""
    kept = {_without_possessive(w) for w in content_words(completed)}
    return all(_kept(_without_possessive(w), kept) for w in content_words(question))


def _kept(word: str, kept: set[str]) -> bool:
    """Whether a word is among `kept` or is a part of a hyphenated one ("bah" in
    "bah-team"). (A German compound's replaced front is said as "Limit für Mahlzeiten",
    `core.followup.substitute`, so the word stands alone.)"""
    return word in kept or any(word in k.split("-") for k in kept)


def _without_possessive(word: str) -> str:
    """A word in lower case without an English possessive ending ("year's" → "year")."""
    return re.sub(r"['’]s$", "", word.lower())


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


def sibling_title(question: str, topic: Sequence[Exchange]) -> str:
    """The title of the page the topic is on (the latest its answers cited that names a
    release candidate or date of a kind `question` names) without those: a question that
    names another one asks about the sibling page, titled alike ("Which guest VMs were used
    in the rc1 Test results?" after answers from "Stable-9 rc2 Test Matrix (results)" is
    searched with "Stable-9 Test Matrix (results)"; alone it finds "S9-rc1: General
    non-regression testing (results)" first). "" when no cited title names one."""
    kinds = {e.kind for e in entities(question) if e.kind in SIBLING_KINDS}
    for exchange in reversed(topic_named(topic)):
        named = kinds & {e.kind for e in entities(exchange.question)}
        if named:
            return without_entities(exchange.question, named)
    return ""


def make_completer(settings, llm) -> Completer:
    """`LLMCompleter` when an LLM endpoint is configured, else `OfflineCompleter`."""
    if settings.llm_base_url:
        return LLMCompleter(llm)
    return OfflineCompleter()
