"""`confbot ask`: chat with the assistant in a terminal.

Each line is a question in one conversation (so follow-ups work); lines starting with `/`
are commands. With questions on the command line, they are asked in order and the program
exits. Every session is a new conversation unless `--thread NAME` names one to continue.
"""

from __future__ import annotations

import argparse
import getpass
import sys
import uuid
from collections.abc import Iterable, Sequence
from typing import TextIO

from bot.serve import example_questions
from core.access import Reader
from core.answer import closest_pages, decline_message
from core.assistant import Assistant, ConversationKey, Turn
from core.attribution import Explanation
from core.excerpt import Excerpt
from core.extractive import ExtractiveLLM
from core.llm import LLMError
from core.present import (
    Named,
    in_shown_order,
    labels,
    no_effect,
    plain_explanation,
    plain_text,
    present,
    rows_left,
    source_name,
)
from core.settings import Settings
from core.spelling import describe

HELP = """Commands:
  /new      start a new conversation (earlier questions are no longer context)
  /trace    show how the last answer was made: query, ranks per retriever, prompts, timings
  /explain  show which sources the last answer relied on
  /help     this list
  /quit     leave (or Ctrl-D)"""


MARK = "**"
"""The plain marker around the answer inside a source excerpt."""
WIDTH = 100
"""The widest table row printed as aligned columns; a wider one is printed one cell a line."""
NAME_WIDTH = 24
"""The widest column name the one-cell-a-line layout aligns values after."""
INDENT = "      "


def render_turn(turn: Turn) -> str:
    """The completed question ("Answering: ...", when it differs from what was typed), the
    answer and its numbered sources (1..k in order of first citation, each with its excerpt
    as the page shows it), as printed; chit-chat gets the help text alone, a clarification
    asked back its text alone."""
    if turn.small_talk:
        return turn.answer
    if turn.clarification:
        return "\n" + turn.answer
    lines = []
    if turn.corrections:
        lines.append(f"Searching for: {turn.completed_question} ({describe(turn.corrections)})")
    elif turn.completed_question != turn.question:
        lines.append(f"Answering: {turn.completed_question}")
    evidences = [r.evidence for r in turn.evidences]
    closest = closest_pages(evidences)
    shown = present(turn.question, turn.answer, evidences, turn.completed_question)
    words = labels(shown.language)
    if turn.out_of_scope:
        answer = decline_message(turn.completed_question, [e.title for e in closest])
    else:
        answer = "\n".join(
            [shown.answer, *(f"{words['related']}: {line}" for line in shown.related)]
        )
    lines += ["", answer, ""]
    if shown.sources and not turn.out_of_scope:
        lines.append(f"{words['sources']}:")
        for source in shown.sources:
            e = source.evidence
            where = f"{e.title} — {e.heading}" if e.heading else e.title
            lines.append(f"  [{source.number}] {where} — {e.url}")
            lines += [INDENT + line for line in render_excerpt(source.excerpt, shown.language)]
    elif closest:
        lines.append(f"{words['closest']}:")
        for number, e in enumerate(closest, start=1):
            lines.append(f"  [{number}] {e.title} — {e.url}")
    else:
        lines.append("(nothing in the index matched)")
    return "\n".join(lines)


def render_excerpt(excerpt: Excerpt, language: str = "en") -> list[str]:
    """An excerpt as printed lines: a table as aligned columns under its header (one
    `Column: value` line a cell when too wide), a sentence with the answer between `**`."""
    if excerpt.kind == "text":
        return ["".join(f"{MARK}{p.text}{MARK}" if p.marked else p.text for p in excerpt.pieces)]
    rows = [
        [f"{MARK}{cell}{MARK}" if (r, c) in excerpt.marked else cell for c, cell in enumerate(row)]
        for r, row in enumerate(excerpt.rows)
    ]
    named = any(excerpt.header)
    grid = [list(excerpt.header), *rows] if named else rows
    widths = [max(len(line[c]) for line in grid) for c in range(len(excerpt.header))]
    out = []
    if sum(widths) + 2 * (len(widths) - 1) <= WIDTH:
        for line in grid:
            out.append("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)))
        out = [line.rstrip() for line in out]
    else:
        name_width = min(max(len(name) for name in excerpt.header), NAME_WIDTH)
        for r, row in enumerate(rows):
            if r:
                out.append("")
            for name, cell in zip(excerpt.header, row, strict=True):
                if cell:
                    out.append(f"{name + ':':<{name_width + 1}} {cell}" if name else cell)
    if excerpt.more_rows:
        out.append(f"(… {rows_left(excerpt.more_rows, language)})")
    return out


def render_trace(turn: Turn) -> str:
    """Everything the turn did: retrieval query, each evidence's ranks and scores per
    retriever, the exact messages sent, and the time of each step."""
    lines = [f"Turn {turn.id} in {turn.key}", f"Question: {turn.question}"]
    lines.append(f"Completed question: {turn.completed_question}")
    lines.append(f"Retrieval query: {turn.query}")
    if turn.completion_notes:
        notes = ", ".join(f"{k}={v}" for k, v in turn.completion_notes.items())
        lines.append(f"Completion: {notes}")
    lines.append("")
    lines.append("Retrieved (rank, fused score, rank and score per retriever, evidence):")
    for r in turn.evidences:
        per = "  ".join(
            f"{name} #{rank if rank is not None else '-'}"
            + (f" ({r.scores[name]:.3f})" if name in r.scores else "")
            for name, rank in r.ranks.items()
        )
        e = r.evidence
        where = f"{e.title} — {e.heading}" if e.heading else e.title
        lines.append(f"  {r.rank:>2}. {r.score:8.4f}  {per}  {where} [{e.id}, {e.kind}]")
    offline = turn.model == ExtractiveLLM.name
    for step, messages in turn.messages.items():
        if not messages:
            continue
        lines.append("")
        if offline:  # the embedded answerer reads the prompt in-process: nothing was sent
            lines.append(f"Prompt read by the offline answerer ({step}; nothing was sent):")
        else:
            lines.append(f"Messages sent ({step}):")
        for message in messages:
            lines.append(f"--- {message['role']}")
            lines.append(message["content"])
    lines.append("")
    steps = ", ".join(f"{name[:-3]} {ms:.1f}" for name, ms in turn.timings.items())
    lines.append(f"Timings (ms): {steps}")
    lines.append(f"Model: {turn.model}")
    return "\n".join(lines)


def chat(
    assistant: Assistant,
    key: ConversationKey,
    lines: Iterable[str],
    out: TextIO,
    spaces: list[str] | None = None,
    readers: Sequence[Reader] = (),
    echo: bool = False,
) -> None:
    """Answer each line (or run it as a command) until the lines end or `/quit`, from what
    `readers` may read (none: public pages only, `core.access`); with `echo` (questions
    from the command line, not typed at the prompt) each line is printed after a `? `
    first, so the output reads as the conversation it was."""
    last: Turn | None = None
    for line in lines:
        text = line.strip()
        if not text:
            continue
        if echo:
            print(f"? {text}", file=out)
        if text.startswith("/"):
            command = text.split()[0].lower()
            if command in ("/quit", "/exit", "/q"):
                return
            if command == "/new":
                assistant.new_conversation(key)
                last = None
                print("New conversation.", file=out)
            elif command == "/trace":
                print(render_trace(last) if last else "No answer to trace yet.", file=out)
            elif command == "/explain":
                print(_explain(assistant, last), file=out)
            elif command in ("/help", "/?"):
                print(HELP, file=out)
            else:
                print(f"Unknown command {command}.\n{HELP}", file=out)
            continue
        try:
            last = assistant.ask(key, text, spaces=spaces, readers=readers)
        except LLMError as exc:
            print(f"The language model failed: {exc}", file=out)
            continue
        print(render_turn(last), file=out)
        print(file=out)


def render_explanation(explanation: Explanation, turn: Turn) -> str:
    """Why this answer in plain words (`core.present.plain_explanation`), then the share of
    each group of sources that got one, numbered as the answer shows them (sources the
    answer does not cite are named, not numbered), and a count of those without effect."""
    evidences = [r.evidence for r in turn.evidences]
    shown = present(turn.question, turn.answer, evidences, turn.completed_question)
    words = labels(shown.language)
    named = [
        Named(shown.numbers.get(n), source_name(e.title, e.heading), e.url)
        for n, e in enumerate(evidences, start=1)
    ]
    sentences = plain_explanation(explanation, named, shown.language)
    lines = [f"{words['why']}: {plain_text(sentences)}"]
    if explanation.top_evidence() is None:
        return "\n".join(lines)
    method = words.get(explanation.method, explanation.method)
    lines.append(f"{words['breakdown']} ({method}):")
    unchanged = 0
    for cluster in explanation.clusters:
        if cluster.share <= 0:
            unchanged += 1
            continue
        parts = []
        for source in in_shown_order(cluster.evidences, named):
            if source.shown is None:
                parts.append(f"{source.name} ({words['not_cited']})")
            else:
                parts.append(f"[{source.shown}] {source.name} — {source.url}")
        lines.append(f"  {cluster.share * 100:5.1f}%  " + "; ".join(parts))
    if unchanged:
        lines.append("  " + no_effect(unchanged, shown.language))
    return "\n".join(lines)


def _explain(assistant: Assistant, last: Turn | None) -> str:
    if last is None:
        return "No answer to explain yet."
    try:
        return render_explanation(assistant.explain(last.id), last)
    except LLMError as exc:
        return f"The language model failed: {exc}"


def _prompt_lines(prompt: str) -> Iterable[str]:
    """Lines typed at the terminal (with line editing where readline exists), until EOF."""
    try:
        import readline  # noqa: F401  (enables editing and history for input())
    except ImportError:  # pragma: no cover - Windows
        pass
    while True:
        try:
            yield input(prompt)
        except EOFError:
            print()
            return
        except KeyboardInterrupt:
            print()
            return


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name in some containers
        return "local"


def run(args: argparse.Namespace, settings: Settings) -> int:
    """`confbot ask`: one-shot questions from the command line, or an interactive chat."""
    assistant = Assistant.from_settings(settings)
    assistant.examples = example_questions(assistant.index)
    if assistant.index.count() == 0:
        print("The index is empty: run `confbot sync` first.", file=sys.stderr)
    thread = args.thread or uuid.uuid4().hex[:12]
    key = ConversationKey("terminal", _user(), "cli", thread)
    spaces = args.space or None
    readers = []
    if getattr(args, "as_", None):  # ask as a Confluence user (docs/permissions.md)
        account = assistant.access.account_for(args.as_)
        if account is None:
            print(f"{args.as_}: no Confluence account; public pages only", file=sys.stderr)
        readers = [Reader(account, args.as_) if account else Reader.anonymous(args.as_)]
    if args.question:
        chat(assistant, key, args.question, sys.stdout, spaces, readers, echo=True)
        return 0
    print(f"confbot: ask about the wiki ({assistant.llm.name} answers). /help for commands.")
    chat(assistant, key, _prompt_lines("? "), sys.stdout, spaces, readers)
    return 0
