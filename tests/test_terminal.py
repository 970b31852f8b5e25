"""`confbot init` and `confbot ask`: the terminal chat on the tiny wiki, and the front door."""

from __future__ import annotations

import io
import re

import pytest
from sqlalchemy import inspect

from bot.cli import main
from bot.terminal import chat, render_excerpt
from core.assistant import ConversationKey
from core.conversation import TABLES
from core.db import engine_for
from core.excerpt import Excerpt, Piece
from tests.fakes.tiny_wiki import Wiki, build_wiki, make_assistant

KEY = ConversationKey("terminal", "tester", "cli", "t1")


@pytest.fixture(scope="module")
def wiki(tmp_path_factory) -> Wiki:
    """The tiny wiki, indexed once for the module."""
    return build_wiki(tmp_path_factory.mktemp("wiki"))


def run_chat(assistant, *lines: str) -> str:
    out = io.StringIO()
    chat(assistant, KEY, lines, out)
    return out.getvalue()


def test_chat_shows_completed_question_answer_and_sources(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    out = run_chat(assistant, "Which TPM version did the Dell Optiplex 7040 have?", "And the BIOS?")
    (shown,) = [line for line in out.splitlines() if line.startswith("Answering: ")]
    assert "BIOS" in shown and "Optiplex 7040" in shown and "context:" not in out
    assert "1.14.0" in out
    assert re.search(
        r"Sources:\n  \[\d+\] OpenXT 9.0 Measurement Test — https://wiki.example/", out
    )
    # the cited row under its header, the answer marked; never the index's "Row 1 in Table 1"
    assert (
        "      Machine             BIOS        Build  TPM\n"
        "      Dell Optiplex 7040  **1.14.0**  6662   2.0\n"
    ) in out
    assert "in Table" not in out


def test_sources_are_numbered_from_one_as_cited(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    out = run_chat(assistant, "What does BATS stand for?")
    answer = out.split("Sources:")[0]
    # the prompt's source numbers are not shown: the one cited source is [1]
    assert re.findall(r"\[(\d+)\]", answer) == ["1"]
    assert re.findall(r"^  \[(\d+)\]", out, re.MULTILINE) == ["1"]


def test_german_questions_get_german_labels(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    out = run_chat(assistant, "Welche BIOS-Version hatte der Dell Optiplex 7040?", "/explain")
    assert "\nQuellen:\n  [1] OpenXT 9.0 Measurement Test" in out
    assert "Warum diese Antwort: Diese Antwort stammt aus einer Quelle: OpenXT 9.0" in out


def test_chat_commands(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    out = run_chat(
        assistant,
        "/trace",
        "What does BATS stand for?",
        "/trace",
        "/explain",
        "/new",
        "And the BIOS?",
        "/bogus",
        "/quit",
        "never asked",
    )
    assert "No answer to trace yet." in out
    assert "Retrieval query: What does BATS stand for?" in out
    assert "lexical #1" in out and "dense #" in out
    # the embedded answerer sent nothing: the trace shows the prompt it read, not "sent"
    assert "Prompt read by the offline answerer (answer; nothing was sent):\n--- system" in out
    assert "Messages sent" not in out and "Question: What does BATS" in out
    assert "Timings (ms): history" in out
    assert "Why this answer: This answer came from one source: Bats: Bash Automated" in out
    assert re.search(
        r"Share of each source \(counterfactual attribution\):\n +\d+\.\d%  \[1\] Bats: Bash"
        r" Automated Testing System — https://wiki.example/",
        out,
    )
    assert "New conversation." in out
    assert "Answering: " not in out  # history was forgotten: asked back, not guessed
    assert "BIOS of what? Please ask the whole question." in out
    assert "Unknown command /bogus." in out
    assert "never asked" not in out


WIDE = "x" * 95


@pytest.mark.parametrize(
    ("found", "language", "expected"),
    [
        (
            Excerpt(
                "table",
                ("City", "Hotel"),
                (("Munich", "€180"), ("Bristol", "£150")),
                frozenset({(0, 1)}),
                more_rows=2,
            ),
            "en",
            ["City     Hotel", "Munich   **€180**", "Bristol  £150", "(… 2 more rows)"],
        ),
        # too wide for aligned columns: one `Column: value` line a cell, names aligned
        (
            Excerpt(
                "table",
                ("Team", "Description", "Lead"),
                (("Pay", WIDE, "Sophie"),),
                frozenset({(0, 2)}),
                more_rows=1,
            ),
            "de",
            [
                "Team:        Pay",
                f"Description: {WIDE}",
                "Lead:        **Sophie**",
                "(… 1 weitere Zeile)",
            ],
        ),
        # a table the page gives no column names: rows only
        (
            Excerpt("table", ("",), (("Tickets closed",), ("Docs reviewed",)), frozenset()),
            "en",
            ["Tickets closed", "Docs reviewed"],
        ),
        (
            Excerpt(
                "text",
                pieces=(Piece("… "), Piece("Limit is "), Piece("€180", True), Piece(" a night.")),
            ),
            "en",
            ["… Limit is **€180** a night."],
        ),
    ],
)
def test_render_excerpt(found, language, expected):
    assert render_excerpt(found, language) == expected


def test_init_creates_the_tables(environ, capsys):
    url = f"sqlite:///{environ / 'state.sqlite'}"
    assert main(["init", "--config", f"database_url={url}"]) == 0
    assert "database ready: sqlite:///" in capsys.readouterr().out
    with engine_for(url).connect() as connection:
        assert set(TABLES) <= set(inspect(connection).get_table_names())


def test_ask_one_question_from_the_command_line(environ, capsys):
    assert main(["ask", "What does BATS stand for?", "And who wrote it?"]) == 0
    captured = capsys.readouterr()
    # one-shot questions are echoed, each before its answer
    assert captured.out.startswith("? What does BATS stand for?\n")
    assert captured.out.index("? And who wrote it?") > captured.out.index("couldn't find")
    assert "I couldn't find this in the wiki." in captured.out
    assert "The index is empty" in captured.err


def test_chat_shows_the_help_text_for_chit_chat_and_a_spelling_correction(wiki, tmp_path):
    assistant = make_assistant(wiki, tmp_path)
    out = run_chat(assistant, "hello!", "Which BIOS did the Dell Optiplx 7040 have?")
    hello, answer = out.split("\n\n", 1)
    assert hello.startswith("Hi! I answer questions about the pages of the wiki")
    assert "Sources" not in hello and "nothing in the index" not in hello
    assert (
        "Searching for: Which BIOS did the Dell Optiplex 7040 have? (Optiplx → Optiplex)" in answer
    )
    assert "1.14.0" in answer and "Completed question" not in answer
