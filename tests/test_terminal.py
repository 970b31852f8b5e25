"""`confbot init` and `confbot ask`: the terminal chat on the tiny wiki, and the front door."""

from __future__ import annotations

import io
import re

import pytest
from sqlalchemy import inspect

from bot.cli import main
from bot.terminal import chat
from core.assistant import ConversationKey
from core.conversation import TABLES
from core.db import engine_for
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
    assert "Messages sent (answer):\n--- system" in out and "Question: What does BATS" in out
    assert "Timings (ms): history" in out
    assert "Explanation (counterfactual attribution):\n  Attributed " in out
    assert re.search(r"Evidence:\n  \[\d+\] Bats: Bash Automated Testing System", out)
    assert "New conversation." in out
    assert "Answering: " not in out  # history was forgotten: asked back, not guessed
    assert "BIOS of what? Please ask the whole question." in out
    assert "Unknown command /bogus." in out
    assert "never asked" not in out


def test_init_creates_the_tables(environ, capsys):
    url = f"sqlite:///{environ / 'state.sqlite'}"
    assert main(["init", "--config", f"database_url={url}"]) == 0
    assert "database ready: sqlite:///" in capsys.readouterr().out
    with engine_for(url).connect() as connection:
        assert set(TABLES) <= set(inspect(connection).get_table_names())


def test_ask_one_question_from_the_command_line(environ, capsys):
    assert main(["ask", "What does BATS stand for?"]) == 0
    captured = capsys.readouterr()
    assert "I couldn't find this in the wiki." in captured.out
    assert "The index is empty" in captured.err
