"""The answer prompt, answer generation, citation parsing, and how an answer is shown.

The prompt gives the model numbered sources (`[1] Title — heading` and the evidence text),
asks it to cite them as `[n]`, and to reply with the fixed `OUT_OF_SCOPE` sentence when
the sources lack the answer (the sentence and the numbered-source format follow the
ConfQuestions reference system). Everything here is a pure function of the question and
the evidences, so counterfactual attribution can rebuild the prompt for any subset of
the evidences and get the same wording.

The prompt also asks for an optional last block, `FOLLOW_UPS` ("Follow-ups:") and up to
three short questions the user may ask next, in the question's language. It is asked in
the same call rather than in a second one: the model has just read the sources and written
the answer, so proposing follow-ups costs a few dozen output tokens and no extra round trip,
where a separate call would resend every source and add a whole LLM latency to each turn.
`split_follow_ups` cuts the block off the model's text before anything else reads it
(`generate`, and attribution's regenerated answers), so the answer shown, stored, cited and
compared never contains it; the proposals are `Answer.suggestions`, unchecked (the
assistant keeps those retrieval can answer, `core.suggest.follow_ups`). Attribution's
regenerations send the same prompt (they must, to differ only by the sources left out), so
they write a block too, at the price of its output tokens, and it is cut off before the
answers are compared. The offline answerer never writes the block.

An answer's lines that start with `RELATED` ("Related:") are supporting lines, shown apart
from the most likely answer (`split_answer`); the offline answerer writes one. A declined
answer is shown as `decline_message`: "I couldn't find this in the wiki; closest pages:"
and the closest pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.llm import LLM
from core.pages import Evidence
from core.questions import question_language

OUT_OF_SCOPE = "The desired information cannot be found in the retrieved pool of evidence."

SYSTEM_PROMPT = (
    "You answer questions about an internal wiki. Use only the numbered sources you are "
    "given, never outside knowledge.\n"
    "Cite the source of every statement with its number in square brackets, like [1] or "
    "[2][3].\n"
    "If the sources do not contain the answer, reply exactly with this sentence and nothing "
    f"else: {OUT_OF_SCOPE}\n"
    "Answer concisely, in the language of the question.\n"
    "After an answer (not after that sentence) you may add, as the last lines, the label "
    "`Follow-ups:` on a line of its own and then up to 3 short questions the user may "
    "want to ask next, one per line starting with `- `, each understandable on its own "
    "(name the page or topic), in the language of the question, and answerable from "
    "the sources."
)

FOLLOW_UPS = "Follow-ups:"
MAX_FOLLOW_UPS = 3
SOURCES_HEADER = "Sources:"
QUESTION_PREFIX = "Question: "
NO_SOURCES = "(no sources were found)"

_BLANK_LINES = re.compile(r"\n\s*\n+")
# A list item marker at the start of a flattened `after` context, and before each item.
_LIST_START = re.compile(r"^(?:[-*•]|\d+[.)])\s")
_ITEM_BREAK = re.compile(r"\s+(?=(?:[-*•]|\d+[.)])\s)")
_SOURCE_START = re.compile(r"\[(\d+)\] ?(.*)", re.DOTALL)


def source_header(evidence: Evidence) -> str:
    """`Title — heading` (or just the title) of a source in the prompt."""
    title = " ".join(evidence.title.split())
    heading = " ".join(evidence.heading.split())
    return f"{title} — {heading}" if heading and heading != title else title


def _one_paragraph(text: str) -> str:
    """Text with blank lines collapsed, so a blank line always separates two sources."""
    return _BLANK_LINES.sub("\n", text.strip())


def source_text(evidence: Evidence) -> str:
    """The text of a source as the answer prompt gives it: the evidence's text, and when
    that ends announcing a list ("The following items are measured:"), the start of the
    list it announces (its `after` context, the list's first `context_words` words, one
    item a line). A page's list is an evidence of its own, so without this the sentence
    that says what the list is about would reach the reader without the list."""
    text = _one_paragraph(evidence.text)
    after = " ".join(evidence.after.split())
    if not text.endswith(":") or not _LIST_START.match(after):
        return text
    return f"{text}\n{_ITEM_BREAK.sub(chr(10), after)}"


def build_messages(
    question: str, evidences: Sequence[Evidence], numbers: Sequence[int] | None = None
) -> list[dict]:
    """The chat messages asking for an answer to `question` from the numbered `evidences`.

    Sources are numbered from 1 in the order given (or carry the given `numbers`, so a
    counterfactual prompt that leaves some sources out keeps the others' numbers); each is
    `[n] header` on one line followed by the evidence text, separated by blank lines.
    """
    numbers = range(1, len(evidences) + 1) if numbers is None else numbers
    blocks = [
        f"[{number}] {source_header(e)}\n{source_text(e)}"
        for number, e in zip(numbers, evidences, strict=True)
    ]
    sources = "\n\n".join(blocks) if blocks else NO_SOURCES
    user = f"{SOURCES_HEADER}\n\n{sources}\n\n{QUESTION_PREFIX}{question.strip()}"
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": user},
    ]


JUDGMENT_PROMPT = (
    "You check which numbered sources help answer a question about an internal wiki. A "
    "source helps when it states (part of) the answer, not when it only shares words "
    "with the question.\n"
    "Reply with one line per source and nothing else, in the form `1: yes` or `1: no`."
)


def build_judgment_messages(question: str, evidences: Sequence[Evidence]) -> list[dict]:
    """The chat messages asking a model to judge, in one call, which of the numbered
    `evidences` help answer `question` (the evidence self-check, `core.selfcheck`); the
    sources are numbered and shown exactly as in the answer prompt."""
    answer_prompt = build_messages(question, evidences)
    return [
        {"role": "system", "content": JUDGMENT_PROMPT},
        {"role": "user", "content": answer_prompt[-1]["content"]},
    ]


@dataclass(frozen=True)
class PromptSource:
    """A source as it appears in an answer prompt (what `parse_prompt` reads back)."""

    number: int
    header: str
    text: str


def parse_prompt(messages: Sequence[dict]) -> tuple[str, list[PromptSource]] | None:
    """Read back (question, sources) from messages made by `build_messages`; None when the
    messages are not an answer prompt."""
    user = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), None)
    if not isinstance(user, str) or not user.startswith(SOURCES_HEADER):
        return None
    chunks = user[len(SOURCES_HEADER) :].strip("\n").split("\n\n")
    sources: list[PromptSource] = []
    for position, chunk in enumerate(chunks):
        if chunk.startswith(QUESTION_PREFIX):
            question = "\n\n".join(chunks[position:])[len(QUESTION_PREFIX) :]
            return question, sources
        match = _SOURCE_START.fullmatch(chunk)
        if match:
            header, _, text = match.group(2).partition("\n")
            sources.append(PromptSource(int(match.group(1)), header, text))
    return None


@dataclass
class Citation:
    """A source number cited in an answer, resolved to its evidence and page."""

    number: int
    evidence_id: str
    page_id: str
    title: str
    url: str


# `[1]`, `[1, 3]`, `[1-3]`, `[1–3]`, `[1; 2]`, `[1 and 2]`, `[Source 2]`; `[1][2]` is two hits.
CITATION = re.compile(
    r"\[\s*(?:sources?\s*)?(\d+(?:\s*(?:,|;|-|–|—|and|&)\s*(?:sources?\s*)?\d+)*)\s*\]",
    re.IGNORECASE,
)
_RANGE = re.compile(r"(\d+)\s*[-–—]\s*(\d+)")
_MAX_RANGE = 50


def cited_numbers(text: str) -> list[int]:
    """Source numbers cited in `text`, in order of first citation, each once."""
    numbers: list[int] = []
    for match in CITATION.finditer(text):
        inner = match.group(1)
        for part in re.split(r"\s*(?:,|;|and|&)\s*", inner, flags=re.IGNORECASE):
            part = re.sub(r"(?i)sources?\s*", "", part)
            span = _RANGE.fullmatch(part)
            if span:
                low, high = int(span.group(1)), int(span.group(2))
                found = range(low, high + 1) if 0 <= high - low <= _MAX_RANGE else []
            elif part.isdigit():
                found = [int(part)]
            else:
                found = []
            numbers.extend(n for n in found if n not in numbers)
    return numbers


def parse_citations(text: str, evidences: Sequence[Evidence]) -> list[Citation]:
    """The citations of `text` resolved against the numbered `evidences` (1-based);
    numbers with no source are dropped."""
    out = []
    for number in cited_numbers(text):
        if 1 <= number <= len(evidences):
            e = evidences[number - 1]
            out.append(Citation(number, e.id, e.page_id, e.title, e.url))
    return out


def _normalized(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def is_out_of_scope(text: str) -> bool:
    """Whether an answer is (or contains) the fixed out-of-scope sentence."""
    return _normalized(OUT_OF_SCOPE) in _normalized(text)


@dataclass
class Answer:
    """One generated answer with its parsed citations and the exact messages sent."""

    text: str
    citations: list[Citation]
    messages: list[dict]
    model: str
    out_of_scope: bool
    suggestions: list[str] = field(default_factory=list)


# The block's label: `Follow-ups:`, also as `**Follow-up questions:**`, `### Follow-ups`, or
# the German `Folgefragen:` a model may translate it to. On a line of its own, or starting a
# line that goes on with the questions themselves (`Follow-ups: Who? When?`).
_LABEL_WORDS = (
    r"[#*_\s]*(?:follow[- ]?ups?(?:[- ]questions?)?|suggested questions|folgefragen|"
    r"weiterführende fragen)[*_\s]*"
)
_FOLLOW_UPS_LABEL = re.compile(_LABEL_WORDS + r":?[*_\s]*", re.IGNORECASE)
_FOLLOW_UPS_INLINE = re.compile(_LABEL_WORDS + r":[*_\s]*(?P<rest>.*\?[*_\s]*)", re.IGNORECASE)
_QUESTION_END = re.compile(r"(?<=[?？])\s+")
_BULLET = re.compile(r"^\s*(?:[-*•–]|\d+[.)])\s*")
_MAX_FOLLOW_UP_WORDS = 30


def split_follow_ups(text: str) -> tuple[str, list[str]]:
    """(the answer without its follow-ups block, the block's questions).

    The block starts at the last line that is only the `FOLLOW_UPS` label (`**Follow-up
    questions:**`, `Folgefragen:` and the like count too), or that is the label and a colon
    followed by questions (`Follow-ups: Who? When?`), and runs to the end. Each of its
    lines, less a bullet (`-`, `*`, `1.`), citations and quotes, is a question when it ends
    with a question mark and has at most 30 words; other lines ("none") are dropped.
    Repeats are dropped and at most `MAX_FOLLOW_UPS` are kept, in order. Text with no label
    line is returned unchanged with no questions.
    """
    lines = text.split("\n")
    start, inline = None, []
    for i in range(len(lines) - 1, -1, -1):
        if _FOLLOW_UPS_LABEL.fullmatch(lines[i]):
            start = i
            break
        if match := _FOLLOW_UPS_INLINE.fullmatch(CITATION.sub("", lines[i]).rstrip()):
            start, inline = i, _QUESTION_END.split(match.group("rest").strip())
            break
    if start is None:
        return text, []
    questions: list[str] = []
    for line in inline + lines[start + 1 :]:
        question = CITATION.sub("", _BULLET.sub("", line, count=1))
        question = " ".join(question.strip().strip("\"'“”„`*_").split())
        if not question.endswith(("?", "？")) or len(question.split()) > _MAX_FOLLOW_UP_WORDS:
            continue
        if question.casefold() in {q.casefold() for q in questions}:
            continue
        questions.append(question)
    return "\n".join(lines[:start]).rstrip(), questions[:MAX_FOLLOW_UPS]


def generate(
    llm: LLM,
    question: str,
    evidences: Sequence[Evidence],
    *,
    n: int = 1,
    temperature: float = 0.0,
    on_text: Callable[[str], None] | None = None,
) -> list[Answer]:
    """`n` answers to `question` from `evidences` (sampled at `temperature`), each with the
    follow-ups block cut off (`split_follow_ups`) before its citations are read.

    With `on_text` the first answer's text is passed on as it arrives, from an LLM that
    streams (one with a `stream(messages, on_text)` method: `core.combine.CheckedLLM`,
    `core.llm.OpenAILLM`), else at once when it is complete, so a surface can show it
    before the turn is stored; the returned answer is what the surface shows in the end."""
    messages = build_messages(question, evidences)
    streamer = getattr(llm, "stream", None) if on_text is not None else None
    if streamer is not None and n == 1:
        replies = [streamer(messages, on_text, temperature=temperature)]
    else:
        replies = llm.complete(messages, n=n, temperature=temperature)
        if on_text is not None:
            on_text(split_follow_ups(replies[0])[0])
    answers = []
    for reply in replies:
        text, suggestions = split_follow_ups(reply)
        out_of_scope = is_out_of_scope(text)
        answers.append(
            Answer(
                text=text,
                citations=parse_citations(text, evidences),
                messages=messages,
                model=llm.name,
                out_of_scope=out_of_scope,
                suggestions=[] if out_of_scope else suggestions,
            )
        )
    return answers


# --------------------------------------------------------------------------- display
RELATED = "Related:"
DECLINE = {
    "en": "I couldn't find this in the wiki; closest pages:",
    "de": "Das habe ich im Wiki nicht gefunden; am nächsten kommen diese Seiten:",
}


@dataclass(frozen=True)
class AnswerParts:
    """An answer split for display: the most likely answer, and the related lines."""

    answer: str
    related: list[str]


def split_answer(text: str) -> AnswerParts:
    """The most likely answer (every line but the `Related:` ones) and the related lines
    (their text after the label), so surfaces can show them apart."""
    answer, related = [], []
    for line in text.strip().split("\n"):
        if line.startswith(RELATED):
            related.append(line[len(RELATED) :].strip())
        else:
            answer.append(line)
    return AnswerParts("\n".join(answer).strip(), related)


def closest_pages(evidences: Sequence[Evidence], limit: int = 3) -> list[Evidence]:
    """The first evidence of each of the `limit` best-ranked distinct pages."""
    seen: set[str] = set()
    out = []
    for evidence in evidences:
        if evidence.page_id in seen:
            continue
        seen.add(evidence.page_id)
        out.append(evidence)
        if len(out) == limit:
            break
    return out


def decline_intro(question: str) -> str:
    """The start of a declined answer in the question's language (`question_language`: a
    completed follow-up's carried context does not tip it): "I couldn't find this in the
    wiki; closest pages:" (the surfaces add the pages, linked where they can)."""
    return DECLINE.get(question_language(question), DECLINE["en"])


def decline_message(question: str, titles: Sequence[str]) -> str:
    """A declined answer as plain text: the intro and the titles of the closest pages (just
    the first clause when there are none)."""
    intro = decline_intro(question)
    return f"{intro} {'; '.join(titles)}." if titles else intro.split(";")[0] + "."
