"""A deterministic stand-in for a model behind `FakeOpenAI`: it answers the answer prompt and
proposes follow-ups, so the LLM path of suggestions can be run end to end without a model.

`answer_with_follow_ups` reads the question and numbered sources back from the answer prompt
(`core.answer.parse_prompt`), answers with the first sentence of source 1 cited `[1]`, and
adds a `Follow-ups:` block with up to three questions about the prompt's *other* sources, one
per distinct `Title — heading` (the innermost heading, less a trailing colon), in the
question's language ("What does {title} say about
{heading}?" / "Was steht in {title} zu {heading}?", or "What is {title}?" / "Was ist
{title}?" for a source with no heading). A prompt that is not an answer prompt gets the
out-of-scope sentence.

It cannot think: a figure measured with it measures the plumbing (the block is parsed off,
each proposal checked against retrieval, the fallback taken when none passes), not the
quality of a model's follow-ups.
"""

from __future__ import annotations

import re

from core.answer import FOLLOW_UPS, OUT_OF_SCOPE, parse_prompt
from core.lexical import detect_language

TEMPLATES = {
    "en": ("What does {title} say about {heading}?", "What is {title}?"),
    "de": ("Was steht in {title} zu {heading}?", "Was ist {title}?"),
}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def first_sentence(text: str) -> str:
    """The first sentence of `text` (its first line when no sentence ends there)."""
    line = text.strip().split("\n")[0]
    return _SENTENCE_END.split(line, maxsplit=1)[0].strip()


def answer_with_follow_ups(request: dict, limit: int = 3) -> str:
    """The scripted reply to one chat-completions request body (see the module docstring)."""
    parsed = parse_prompt(request.get("messages") or [])
    if parsed is None or not parsed[1]:
        return OUT_OF_SCOPE
    question, sources = parsed
    with_heading, without = TEMPLATES.get(detect_language(question), TEMPLATES["en"])
    lines = [f"{first_sentence(sources[0].text)} [{sources[0].number}]"]
    seen = {sources[0].header}
    follow_ups = []
    for source in sources[1:]:
        if len(follow_ups) == limit:
            break
        if source.header in seen:
            continue
        seen.add(source.header)
        title, _, heading = source.header.partition(" — ")
        heading = heading.split(" > ")[-1].rstrip(" :?")
        template = with_heading if heading else without
        follow_ups.append(template.format(title=title, heading=heading))
    if follow_ups:
        lines += ["", FOLLOW_UPS, *(f"- {q}" for q in follow_ups)]
    return "\n".join(lines)
