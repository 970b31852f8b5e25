"""Best of both answerers: a model's answer, checked, with the offline answerer behind it.

Read by people on 30 unseen questions (issue 35), a 1.5B model and the offline answerer
(`core.extractive`) erred on different questions: the model reads a sentence and pieces an
answer together, the offline answerer gets exact values right and never makes one up.
`CheckedLLM` wraps the model so every answer prompt's reply goes through `check`:

1. The reply is grounded (`core.grounding.ground`): pasted source blocks cut, citations
   repaired, unsupported sentences dropped (or marked), declines in other words and
   citation-only replies recognised.
2. With `mode="combined"`, the offline answerer answers the same prompt too, and its answer
   is shown instead of the model's when the model's is not supported (`unsupported`,
   `citation_only`, `pasted_source`, `empty`: the model tried to answer), and when the
   offline answer is high-confidence (`core.confidence.is_low_confidence` false) while the
   model declines or states none of its values (numbers and names). A short offline answer
   (a typed span, not a passage) is shown too where the model's shares no word with it
   beyond the question's (they answer different things) or states only some of its
   numbers (`fuller`: one build of the two the page lists); and the offline answer's list
   is shown where the model lists its items and more that lack the question words they all
   hold (`narrower`: the question asked for part of a list), and where the model's answer
   only says what its source is about (`described`). The offline answer
   must hold up itself (`offline_holds`): what it computes rather than quotes, a leading
   yes or no and a count, must be decided by the sources it cites (a yes or no by the
   statement asked about, or by the cell of a cited row it reads). A model's decline
   stands against an offline answer that barely passed its threshold: out-of-scope
   questions are where the offline answerer errs most (`core.confidence`). The answer
   then ends with a note (`NOTES`) saying it was read from the page, not written by the
   model.
3. When neither has a supported answer the reply is the out-of-scope sentence, so the
   surfaces show their decline and the closest pages.

The model reads the answer prompt with rows as tables and no more sources than
`context_tokens` hold (`core.model_prompt.for_model`); its reply is checked against the
prompt as built. Prompts that are not answer prompts (question completion, the self-check's
judgment) pass through unchecked. The model's follow-ups block is kept with its answer and
dropped with it.
`mode="grounded"` checks without the offline answerer; `mode="off"` passes replies through
(the model's raw answers, for measuring what the check adds).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.answer import (
    CITATION,
    FOLLOW_UPS,
    OUT_OF_SCOPE,
    SYSTEM_PROMPT,
    cited_numbers,
    is_out_of_scope,
    parse_prompt,
    split_follow_ups,
)
from core.confidence import answer_confidence, is_low_confidence
from core.grounding import (
    NUMBER,
    SENTENCE_BREAK,
    Grounding,
    check_sentence,
    cite,
    counted_items,
    denying_cells,
    ground,
    holds_fact,
    split_sentences,
    stated_facts,
    superlatives,
    without_enumeration,
)
from core.lexical import tokenize
from core.llm import LLM
from core.model_prompt import for_model
from core.questions import question_language
from core.spans import cell_reading

MODES = ("off", "grounded", "combined")

NOTES = {
    "unsupported": {
        "en": "(Read from the page: the language model's answer was not supported by the sources.)",
        "de": "(Aus der Seite gelesen: die Antwort des Sprachmodells war durch die Quellen"
        " nicht belegt.)",
    },
    "declined": {
        "en": "(Read from the page: the language model found no answer in the sources.)",
        "de": "(Aus der Seite gelesen: das Sprachmodell fand in den Quellen keine Antwort.)",
    },
    "disagreed": {
        "en": "(Read from the page, where the language model's answer differed.)",
        "de": "(Aus der Seite gelesen; die Antwort des Sprachmodells wich davon ab.)",
    },
    "narrower": {
        "en": "(Read from the page: the items the question asks about; the language model's"
        " answer listed more.)",
        "de": "(Aus der Seite gelesen: die erfragten Punkte; die Antwort des Sprachmodells"
        " nannte mehr.)",
    },
    "fuller": {
        "en": "(Read from the page, which states more than the language model's answer did.)",
        "de": "(Aus der Seite gelesen; sie nennt mehr als die Antwort des Sprachmodells.)",
    },
    "described": {
        "en": "(Read from the page: the language model's answer only said what the page is about.)",
        "de": "(Aus der Seite gelesen: die Antwort des Sprachmodells sagte nur, wovon die Seite"
        " handelt.)",
    },
}

# A sentence about a source rather than its content: "The … document provides information on
# derivative works, including …" (a real model's reply, issue 35), "Die Seite beschreibt …".
_ABOUT_SOURCE = re.compile(
    r"^\W*(?:the|this|that|these|das|die|der|dieses|diese)\b[^.!?\n]{0,80}?"
    r"\b(?:document|page|section|source|text|article|wiki|dokument|seite|abschnitt|quelle"
    r"|artikel)s?\b[^.!?\n]{0,20}?\b(?:(?:provides?|gives?|contains?|offers?|includes?"
    r"|enthält|enthalten|liefert|bietet|gibt)\s+(?:\w+\s+){0,2}?(?:information|details"
    r"|(?:an\s+)?overview|guidance|(?:a\s+)?description|(?:an\s+)?explanation|informationen"
    r"|angaben|(?:einen\s+)?überblick|auskunft|hinweise)|describes?|discusses?|covers?"
    r"|outlines?|explains?|mentions?|talks about|deals with|beschreibt|behandelt|erläutert"
    r"|erwähnt)\b",
    re.IGNORECASE,
)


@dataclass
class Checked:
    """One reply after the check: the `text` shown, where it came from (`origin`: `model`,
    `offline` or `none` for a decline), why the offline answer was taken (`reason`, a key
    of `NOTES`, or None), and the model reply's grounding."""

    text: str
    origin: str
    reason: str | None
    grounding: Grounding | None

    def to_dict(self) -> dict:
        """The check as stored in a turn's trace."""
        return {
            "origin": self.origin,
            "reason": self.reason,
            "grounding": self.grounding.to_dict() if self.grounding else None,
        }


def is_answer_prompt(messages: Sequence[dict]) -> bool:
    """Whether `messages` ask for an answer (`core.answer.build_messages`): the answer
    system prompt and sources to read back. The self-check's judgment prompt shows the same
    sources under another system prompt."""
    system = next((m.get("content") for m in messages if m.get("role") == "system"), None)
    return system == SYSTEM_PROMPT and parse_prompt(messages) is not None


class CheckedLLM:
    """A model whose answers are grounded and combined with the offline answerer's (see the
    module docstring). `last` holds the latest check made by the calling thread, for the
    trace."""

    def __init__(
        self,
        model: LLM,
        offline: LLM | None = None,
        mode: str = "combined",
        unsupported: str = "drop",
        context_tokens: int = 0,
    ):
        if mode not in MODES:
            raise ValueError(f"unknown answer check {mode!r}; choose one of {', '.join(MODES)}")
        self.model = model
        self.offline = offline
        self.mode = mode
        self.unsupported = unsupported
        self.context_tokens = context_tokens
        self.name = model.name
        self._local = threading.local()

    @property
    def last(self) -> Checked | None:
        """The latest check this thread made (None before any)."""
        return getattr(self._local, "last", None)

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> list[str]:
        """The model's `n` replies, each checked when `messages` is an answer prompt (which
        the model reads as `core.model_prompt.for_model` rewrites it)."""
        answering = is_answer_prompt(messages)
        sent = for_model(messages, self.context_tokens) if answering else messages
        replies = self.model.complete(sent, n=n, temperature=temperature, max_tokens=max_tokens)
        if self.mode == "off" or not answering:
            return replies
        out = []
        for reply in replies:
            checked = self.check(reply, messages)
            self._local.last = checked
            out.append(checked.text)
        return out

    def stream(
        self,
        messages: list[dict],
        on_text: Callable[[str], None],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> str:
        """One answer, streamed sentence by sentence: each sentence of the model's reply is
        passed to `on_text` once it is complete and supported (with its repaired citations;
        an unsupported one is never shown), the follow-ups block never. Returns the checked
        reply (`check`), which the surface shows in place of the streamed sentences: it may
        be the offline answer. A model that cannot stream, mode `off` or another prompt:
        `on_text` gets the whole reply at once."""
        streamer = getattr(self.model, "stream", None)
        if streamer is None or self.mode == "off" or not is_answer_prompt(messages):
            (text,) = self.complete(messages, temperature=temperature, max_tokens=max_tokens)
            on_text(split_follow_ups(text)[0])
            return text
        question, sources = parse_prompt(messages) or ("", [])
        texts, headers = [s.text for s in sources], [s.header for s in sources]
        state = {"buffer": "", "shown": 0, "done": False}

        def show(sentence: str) -> None:
            if split_follow_ups(sentence)[0].strip() != sentence.strip():
                state["done"] = True  # the follow-ups block started
                return
            checked = check_sentence(sentence, question, texts, headers)
            if checked.supported_by and checked.content and not checked.decline:
                on_text((" " if state["shown"] else "") + cite(checked.text, checked.supported_by))
                state["shown"] += 1

        def feed(piece: str) -> None:
            if state["done"]:
                return
            state["buffer"] += piece
            breaks = list(SENTENCE_BREAK.finditer(state["buffer"]))
            if not breaks:
                return
            complete, state["buffer"] = (
                state["buffer"][: breaks[-1].start()],
                state["buffer"][breaks[-1].end() :],
            )
            for sentence in split_sentences(complete):
                if not state["done"]:
                    show(sentence)

        sent = for_model(messages, self.context_tokens)
        reply = streamer(sent, feed, temperature=temperature, max_tokens=max_tokens)
        for sentence in split_sentences(state["buffer"]):  # the last, with no break after it
            if not state["done"]:
                show(sentence)
        checked = self.check(reply, messages)
        self._local.last = checked
        return checked.text

    def check(self, reply: str, messages: Sequence[dict]) -> Checked:
        """The model's `reply` to the answer prompt `messages`, checked (module docstring)."""
        question, sources = parse_prompt(messages) or ("", [])
        answer, follow_ups = split_follow_ups(reply)
        grounding = ground(
            answer,
            question,
            [s.text for s in sources],
            [s.header for s in sources],
            self.unsupported,
        )
        shown = None
        if grounding.supported:
            shown = grounding.text
            if follow_ups:
                shown += "\n\n" + FOLLOW_UPS + "\n" + "\n".join(f"- {q}" for q in follow_ups)
        if self.mode == "combined" and self.offline is not None:
            offline = self.offline.complete(list(messages))[0]
            texts = {s.number: f"{s.header}\n{s.text}" for s in sources}
            if not is_out_of_scope(offline) and offline_holds(offline, question, texts):
                reason = self._prefer_offline(question, grounding, offline, messages)
                if reason is not None:
                    note = NOTES[reason][question_language(question)]
                    return Checked(f"{offline}\n{note}", "offline", reason, grounding)
        if shown is None:
            return Checked(OUT_OF_SCOPE, "none", None, grounding)
        return Checked(shown, "model", None, grounding)

    def _prefer_offline(
        self, question: str, grounding: Grounding, offline: str, messages: Sequence[dict]
    ) -> str | None:
        """Why the offline answer should be shown instead of the model's, or None."""
        if not grounding.supported and grounding.kind != "decline":
            return "unsupported"
        confidence = answer_confidence(self.offline, messages)
        if confidence is None or is_low_confidence(confidence):
            return None
        if grounding.kind == "decline":
            return "declined"
        if describes_its_source(grounding.text):
            return "described"
        sure = _yes_or_no(offline)
        if sure is not None and _yes_or_no(grounding.text) != sure:
            # The model said the opposite, or its yes/no was dropped as unsupported and
            # what is left answers around the question (a real model's "Yes, there are set
            # guidelines…" to a page saying there are none, issue 35).
            return "disagreed"
        values = stated_facts(offline.split("\n")[0], question)
        shown = grounding.text.casefold()
        if values and not any(v.casefold() in shown for v in values):
            if _says_within(grounding.text, offline, question):
                return None
            return "disagreed"
        if _lists_beyond(grounding.text, offline, question):
            return "narrower"
        if len(offline.split("\n")[0].split()) <= SHORT_ANSWER_WORDS:
            if _shares_nothing(grounding.text, offline, question):
                return "disagreed"
            if _states_fewer_numbers(grounding.text, offline, question):
                return "fuller"
        if lost_its_answer(grounding):
            return "unsupported"
        return None


def describes_its_source(answer: str) -> bool:
    """Whether the model's answer opens by saying what its source is about ("The document
    provides information on derivative works, including their definition …") instead of
    what the source says: judged by reading, such a reply answers nothing, while the page's
    own sentences do (issue 35)."""
    return bool(_ABOUT_SOURCE.match(CITATION.sub(" ", answer)))


def lost_its_answer(grounding: Grounding) -> bool:
    """Whether grounding dropped the model reply's first sentence that states something:
    its answer, so what is left talks around the question (a real model's "Actions … are
    initiated by any member of the community creating a ticket" dropped, its "All activity
    … will be tracked in the ticket" kept, issue 35)."""
    stating = [c for c in grounding.sentences if c.content and not c.decline]
    return bool(stating) and not stating[0].supported_by


def offline_holds(answer: str, question: str, sources: dict[int, str]) -> bool:
    """Whether the offline `answer`'s own statements stand in the `sources` (number → header
    and text) it cites. It quotes its evidence, but two things it states are its own: a
    leading yes or no needs a cited source that decides it, one holding every content word
    of the question (the statement asked about; "Yes: Revision History of this Document" to
    "Is the … document finalized?" read a heading, issue 35), and each number beyond the
    question must stand in a cited source or count the items the answer lists ("2: If
    changes to a pull request are required…" to "How many statuses…?" did neither). A
    table row may decide the yes or no with its cells instead (`_decided`). A denial of
    every row ("No: none of the rows … failed") must not be contradicted by any cell of the
    rows it cites, notes included (`core.grounding.denying_cells`). An answer to a question
    about the most or least of something must say it or cite a source that does: one row
    read does not ("The Test Description with Windows 10 1803 is …" to "Which guest OS led
    to the most failures?", issue 35), as grounding asks of a model's sentence."""
    answer = split_follow_ups(answer)[0]
    cited = [sources[n] for n in cited_numbers(answer) if n in sources]
    if not cited:
        return False
    if _yes_or_no(answer) is not None and not _decided(answer, question, cited):
        return False
    if denying_cells(answer.split("\n")[0], cited):
        return False
    asked_extreme = superlatives(question)
    if asked_extreme and not any(asked_extreme & superlatives(t) for t in [answer, *cited]):
        return False
    plain = without_enumeration(CITATION.sub(" ", without_row_count(answer)))
    numbers = set(NUMBER.findall(plain)) - set(NUMBER.findall(question)) - counted_items(plain)
    return all(any(holds_fact(n, text) for text in cited) for n in numbers)


_YES_NO_TERMS = frozenset(tokenize("yes ja nein", "de"))

# The question's content words a cited table row may lack and still be the row asked about:
# a misspelling ("Measuremnt") or a verb no cell holds ("lead to Pass results") (set by
# design, issue 35: one; a heading that lacks the one word asked about still fails).
ROW_MISSING_TERMS = 1

_ROW = re.compile(r"^Row \d+ in Table \d+:", re.MULTILINE)

# The cell an offline yes/no reads: "No: the Result for Windows 10 is Fail [2]." → "Fail".
_READ_CELL = re.compile(r"^\W*(?:yes|no|ja|nein)\W+.*? (?:is|ist) (.+?)[\s.]*$", re.IGNORECASE)

# Words at most in an offline answer that is a typed span rather than a passage, for the
# disagreement checks (set by design, issue 35: the spans that beat the model had 13–18).
SHORT_ANSWER_WORDS = 25


def _decided(answer: str, question: str, cited: Sequence[str]) -> bool:
    """Whether a cited source decides the offline `answer`'s leading yes or no: one holds
    every content word of the question (the statement asked about; "Yes: Revision History
    of this Document" to "Is the … document finalized?" read a heading, issue 35), or a
    cited table row holds all of them but `ROW_MISSING_TERMS` and the cell the answer reads,
    and that cell says it (`core.spans.cell_reading`: "Fail OXT-1654" or "Did not do
    performance tests" a no, "Pass" a yes). A row whose cell decides nothing ("Yes: the Test
    Description … is GPU pass through testing…" to "Did all … lead to Pass results?", a
    row with no result) does not decide it, though the question's words are in it. A
    composed yes/no is decided by the verdict cells it reads in brackets
    (`_reads_verdicts`)."""
    asked = _terms(question) - _YES_NO_TERMS
    if any(asked <= _terms(text) for text in cited):
        return True
    if _reads_verdicts(answer, question, cited):
        return True
    read = _READ_CELL.match(CITATION.sub(" ", answer.split("\n")[0]).strip())
    if read is None:
        return False
    cell = read.group(1).strip()
    wanted = "No" if _yes_or_no(answer) == "no" else "Yes"
    if cell_reading(question, cell) != wanted:
        return False
    return any(
        _ROW.search(text)
        and cell.casefold() in text.casefold()
        and len(asked - _terms(text)) <= ROW_MISSING_TERMS
        for text in cited
    )


# The cells a composed yes/no reads, in brackets after what they are of ("(Result: Pass
# [3])", "(Result: Pass [1][2] and Fail [4])", `core.compose.all_verdict`).
_READ_VERDICTS = re.compile(r"\(([^():\[\]]{1,40}): ([^()]+)\)")


def _reads_verdicts(answer: str, question: str, cited: Sequence[str]) -> bool:
    """Whether the cells a composed `answer` reads in brackets decide its yes or no: each
    value says it (`core.spans.cell_reading`: "Pass" to "Did all … lead to Pass results?"
    is Yes) and stands as that column's cell in a cited row holding the question's words
    but `ROW_MISSING_TERMS`. A bracket with a value that decides nothing ("PWE") does
    not."""
    wanted = "No" if _yes_or_no(answer) == "no" else "Yes"
    asked = _terms(question) - _YES_NO_TERMS
    rows = [t for t in cited if _ROW.search(t) and len(asked - _terms(t)) <= ROW_MISSING_TERMS]
    read = False
    for column, values in _READ_VERDICTS.findall(answer.split("\n")[0]):
        for value in re.split(r",\s*|\s+(?:and|und)\s+", CITATION.sub(" ", values)):
            value = value.strip()
            if not value:
                continue
            cell = f"{column} is {value}".casefold()
            if cell_reading(question, value) != wanted:
                return False
            if not any(cell in t.casefold() for t in rows):
                return False
            read = True
    return read


def _yes_or_no(answer: str) -> str | None:
    """ "yes" or "no" when `answer` begins with a yes or no (English or German), else None."""
    words = answer.split(maxsplit=1)
    first = words[0].strip(".,:;!").casefold() if words else ""
    return {"yes": "yes", "ja": "yes", "no": "no", "nein": "no"}.get(first)


def _says_within(model: str, offline: str, question: str) -> bool:
    """Whether every word the model's answer adds to the question stands in the offline
    answer: the model picked its answer out of the offline one (a real model's "the grub2
    bootloader and boot config file" out of the offline answerer's list of all that is
    measured, issue 35), which is no disagreement."""
    own = _terms(CITATION.sub(" ", model)) - _terms(question)
    return bool(own) and own <= _terms(offline)


def _shares_nothing(model: str, offline: str, question: str) -> bool:
    """Whether the model's answer and the offline one share no word beyond the question's:
    they answer different things ("votes on technical issues that impact OpenXT" against the
    page's "The board votes to accept/reject a proposed feature or change", issue 35)."""
    asked = _terms(question)
    own_model = _terms(CITATION.sub(" ", model)) - asked
    own_offline = _terms(_stated(offline)) - asked
    return bool(own_model) and bool(own_offline) and not own_model & own_offline


def _states_fewer_numbers(model: str, offline: str, question: str) -> bool:
    """Whether the model's answer states some of the numbers the offline one does, beyond
    the question's, and leaves others out: it picked one of several (one build of the two
    the page lists for a machine, one machine of two, issue 35)."""
    asked = set(NUMBER.findall(question))
    own_offline = set(NUMBER.findall(_stated(offline))) - asked
    own_model = set(NUMBER.findall(CITATION.sub(" ", model))) - asked
    return bool(own_offline & own_model) and bool(own_offline - own_model)


def _lists_beyond(model: str, offline: str, question: str) -> bool:
    """Whether the model lists every item of the offline answer's list and more items that
    lack question words all the offline items hold: the question narrows a list ("the use
    cases explicitly concerning software platform"), the offline answerer kept the items
    holding those words, the model listed the whole list (issue 35)."""
    items = [item for item in _stated(offline).split("; ") if item.strip()]
    listed = [line for line in model.split("\n") if line.lstrip().startswith(("- ", "* "))]
    if len(items) < 2 or not listed:
        return False
    narrowing = _terms(question).intersection(*(_terms(item) for item in items))
    holds = [[_terms(item) <= _terms(line) for line in listed] for item in items]
    if not narrowing or not all(any(row) for row in holds):
        return False
    extra = [line for n, line in enumerate(listed) if not any(row[n] for row in holds)]
    return bool(extra) and all(not narrowing <= _terms(line) for line in extra)


# Which rows of a table the offline answer read (`core.compose`): no statement of its own.
_ROWS_READ = re.compile(
    r" \((?:from rows? [^()]* of the table found"
    r"|aus (?:den gefundenen Zeilen|der gefundenen Zeile) [^()]* der Tabelle)\)"
)


# How many rows a yes/no over part of a table read ("none of the 4 rows found", "der 4
# gefundenen Zeilen", `core.compose.any_verdict`): no statement about the page either.
_ROWS_COUNTED = re.compile(r"\b\d+ (?=rows? found\b|gefunden\w* Zeilen?\b)")


def without_row_count(text: str) -> str:
    """`text` without the counts of the table rows it says it read ("the 4 rows found" →
    "the rows found"): what the answerer read, not a number the page states."""
    return _ROWS_COUNTED.sub("", text)


def _stated(offline: str) -> str:
    """What the offline answer states: its first line, without citations and without the
    rows it read ("(from rows 1–3 of the table found)" states no 1 or 3, "none of the 4 rows
    found" no 4)."""
    read = without_row_count(_ROWS_READ.sub("", offline.split("\n")[0]))
    return CITATION.sub(" ", read)


def _terms(text: str) -> set[str]:
    """Stemmed content words, numbers and dates, as grounding reads them."""
    return set(tokenize(text, "de"))
