"""Auto-answers in help channels: in the channels listed in `slack_auto_answer_channels`,
confbot answers top-level questions nobody asked it, and only when it is confident; it
stays silent otherwise (no 👀, no apology, no decline), since a wrong or empty reply to
someone who asked their colleagues is noise.

Confident means: the answer cites the wiki, did not decline, is no chit-chat help text or
question asked back, and, for the offline answerer, its best span's support clears the
decline threshold by the low-confidence margin (`core.confidence.is_low_confidence`, the
margin checked on ConfQuestions). An LLM answer has no support score: its own decline is
the signal.
"""

from __future__ import annotations

import re

from core.assistant import Assistant, Turn
from core.confidence import is_low_confidence
from core.settings import Settings

# A top-level message is a question when it has a question mark or opens with a question
# word (English or German), and is long enough to search for.
_QUESTION_OPENING = re.compile(
    r"^\W*(what|who|whom|whose|when|where|which|why|how|is|are|was|were|does|do|did|can|could"
    r"|should|will|has|have|wer|wie|wo|wann|warum|welche[rsmn]?|gibt|ist|sind|kann|hat|haben)\b",
    re.IGNORECASE,
)
MIN_WORDS = 3


def looks_like_question(text: str) -> bool:
    """Whether a message reads as a question: a `?`, or a question word first; and at
    least `MIN_WORDS` words ("any ideas?" is no wiki question)."""
    if len(text.split()) < MIN_WORDS:
        return False
    return "?" in text or _QUESTION_OPENING.match(text) is not None


def auto_answered(settings: Settings, event: dict, text: str) -> bool:
    """Whether a channel message is one to auto-answer: posted by a person (the caller
    checked) at the top level of a listed channel, a new message (no edit, no other
    subtype) that reads as a question."""
    thread = event.get("thread_ts")
    return (
        event.get("channel") in settings.slack_auto_answer_channels
        and event.get("subtype") is None
        and (not thread or thread == event.get("ts"))
        and looks_like_question(text)
    )


def confident(assistant: Assistant, turn: Turn) -> bool:
    """Whether an answer is confident enough to post unasked (see the module docstring)."""
    if turn.out_of_scope or turn.small_talk or turn.clarification or not turn.citations:
        return False
    record = assistant.turn_record(turn.id)
    confidence = (record.messages or {}).get("confidence") if record is not None else None
    return not is_low_confidence(confidence)
