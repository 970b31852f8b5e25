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
from collections.abc import Iterable
from typing import TextIO

from core.answer import closest_pages, decline_message
from core.assistant import Assistant, ConversationKey, Turn
from core.attribution import Explanation
from core.llm import LLMError
from core.settings import Settings

HELP = """Commands:
  /new      start a new conversation (earlier questions are no longer context)
  /trace    show how the last answer was made: query, ranks per retriever, prompts, timings
  /explain  show which sources the last answer relied on
  /help     this list
  /quit     leave (or Ctrl-D)"""


def render_turn(turn: Turn) -> str:
    """The completed question ("Answering: ...", when it differs from what was typed), the
    answer and its numbered sources, as printed; a clarification asked back alone."""
    if turn.clarification:
        return "\n" + turn.answer
    lines = []
    if turn.completed_question != turn.question:
        lines.append(f"Answering: {turn.completed_question}")
    evidences = [r.evidence for r in turn.evidences]
    closest = closest_pages(evidences)
    if turn.out_of_scope:
        answer = decline_message(turn.completed_question, [e.title for e in closest])
    else:
        answer = turn.answer
    lines += ["", answer, ""]
    if turn.citations:
        lines.append("Sources:")
        for citation in turn.citations:
            lines.append(f"  [{citation.number}] {citation.title} — {citation.url}")
    elif closest:
        lines.append("Closest pages:")
        for e in closest:
            lines.append(f"  [{evidences.index(e) + 1}] {e.title} — {e.url}")
    else:
        lines.append("(nothing in the index matched)")
    return "\n".join(lines)


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
    for step, messages in turn.messages.items():
        if not messages:
            continue
        lines.append("")
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
) -> None:
    """Answer each line (or run it as a command) until the lines end or `/quit`."""
    last: Turn | None = None
    for line in lines:
        text = line.strip()
        if not text:
            continue
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
            last = assistant.ask(key, text, spaces=spaces)
        except LLMError as exc:
            print(f"The language model failed: {exc}", file=out)
            continue
        print(render_turn(last), file=out)
        print(file=out)


def render_explanation(explanation: Explanation, turn: Turn) -> str:
    """The attribution breakdown (`Attributed 67.32% to cluster 1 [Evidence 1, 2]`, one
    line per cluster) and the evidences that got a share, with their pages."""
    lines = [f"Explanation ({explanation.method} attribution):"]
    lines += [f"  {line}" for line in explanation.lines()]
    numbers = sorted({n for c in explanation.clusters if c.share > 0 for n in c.evidences})
    if numbers:
        lines.append("Evidence:")
        for number in numbers:
            if 1 <= number <= len(turn.evidences):
                e = turn.evidences[number - 1].evidence
                where = f"{e.title} — {e.heading}" if e.heading else e.title
                lines.append(f"  [{number}] {where} — {e.url}")
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
    if assistant.index.count() == 0:
        print("The index is empty: run `confbot sync` first.", file=sys.stderr)
    thread = args.thread or uuid.uuid4().hex[:12]
    key = ConversationKey("terminal", _user(), "cli", thread)
    spaces = args.space or None
    if args.question:
        chat(assistant, key, args.question, sys.stdout, spaces)
        return 0
    print(f"confbot: ask about the wiki ({assistant.llm.name} answers). /help for commands.")
    chat(assistant, key, _prompt_lines("? "), sys.stdout, spaces)
    return 0
