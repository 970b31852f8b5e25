"""The answer prompt as a model reads it: rows as the page shows them, and no more sources
than its context window holds.

The prompt the assistant builds (`core.answer.build_messages`) is also the one the offline
answerer reads back and the trace stores, so rows stay in the index's verbalized form there
("Row 2 in Table 1: Week is Week 2, Team is Payments, …"). A model reads a table better as a
table, and a small one loses the thread in long linearized rows (issue 35: the prompt sent
the index's linearized rows and the full top 10). `for_model` rewrites the answer prompt
just before it goes to a model:

- a row or table source becomes a small Markdown table with its header, the cells as the
  page shows them (`core.excerpt.excerpt`, which the surfaces use for the same purpose);
- with a context budget (`context_tokens`, the `llm_context_tokens` setting), the
  lowest-ranked sources that would not fit are left out; the others keep their numbers, so
  the model's citations still point at the right evidences.

Tokens are estimated at `CHARS_PER_TOKEN` characters each, and `ANSWER_TOKENS` are kept
free for the reply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.answer import QUESTION_PREFIX, SOURCES_HEADER, PromptSource, parse_prompt
from core.excerpt import Excerpt, excerpt

CHARS_PER_TOKEN = 4
"""Characters per token of English text: OpenAI's rule of thumb ("one token generally
corresponds to ~4 characters of text", help.openai.com, "What are tokens"); German and
tables run a little denser, so a budget leaves some slack anyway."""
ANSWER_TOKENS = 512
"""Tokens kept free for the reply: a short answer and its follow-ups block."""

_TABLE_TEXT = re.compile(r"^(?:Row \d+ in )?Table \d+:")


def markdown_table(found: Excerpt) -> str:
    """A table excerpt as a Markdown table (an unnamed column gets an empty header cell)."""

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    rows = [line(found.header), line(["---"] * len(found.header))]
    rows += [line(row) for row in found.rows]
    if found.more_rows:
        rows.append(f"({found.more_rows} more rows)")
    return "\n".join(rows)


def source_for_model(text: str) -> str:
    """A source's text as a model is given it: a verbalized row or table as a Markdown
    table with its header, anything else unchanged."""
    if not _TABLE_TEXT.match(text):
        return text
    found = excerpt(text, "row")
    return markdown_table(found) if found.kind == "table" and found.header else text


def for_model(messages: Sequence[dict], context_tokens: int = 0) -> list[dict]:
    """The answer prompt `messages` rewritten for a model (module docstring); messages that
    are not an answer prompt are returned unchanged."""
    parsed = parse_prompt(messages)
    if parsed is None:
        return list(messages)
    question, sources = parsed
    if not sources:
        return list(messages)
    sources = [PromptSource(s.number, s.header, source_for_model(s.text)) for s in sources]
    others = [m for m in messages if m.get("role") != "user"]

    def prompt(kept: Sequence[PromptSource]) -> list[dict]:
        blocks = [f"[{s.number}] {s.header}\n{s.text}" for s in kept]
        user = f"{SOURCES_HEADER}\n\n" + "\n\n".join(blocks) + f"\n\n{QUESTION_PREFIX}{question}"
        return [*others, {"role": "user", "content": user}]

    rewritten = prompt(sources)
    while context_tokens > 0 and len(sources) > 1 and _tokens(rewritten) > context_tokens:
        sources = sources[:-1]
        rewritten = prompt(sources)
    return rewritten


def _tokens(messages: Sequence[dict]) -> int:
    characters = sum(len(str(m.get("content") or "")) for m in messages)
    return characters // CHARS_PER_TOKEN + ANSWER_TOKENS
