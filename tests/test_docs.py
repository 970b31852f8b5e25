"""The README keeps up with the code (after datasette's tests/test_docs.py): every setting has
help text and is in the README's configuration section, the generated settings table is
current, and every `confbot` command is documented."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from bot.cli import build_parser
from bot.docs import END, START, settings_table, with_table
from core.settings import describe

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    """The README text under a `## title` heading, up to the next `## ` heading."""
    _, found, rest = README.partition(f"\n## {title}\n")
    assert found, f"README.md has no '## {title}' section"
    return rest.split("\n## ", 1)[0]


def commands() -> list[str]:
    parser = build_parser()
    (subparsers,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(subparsers.choices)


def test_readme_starts_with_the_two_commands():
    first_block = README.split("```", 2)[1]
    assert "make run" in first_block and "make test" in first_block


def test_readme_opens_with_a_picture_of_an_answer():
    """Right after the two commands (the README's first lines): the pictures the browser
    tests make (docs/images), in Slack and on the web page, each under 150 KB."""
    after_commands = README.split("```", 2)[2].split("\n## ", 1)[0]
    pictures = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", after_commands)
    assert pictures == ["docs/images/answer-slack.png", "docs/images/answer-web.png"]
    browser_test = (ROOT / "tests" / "test_browser.py").read_text(encoding="utf-8")
    for picture in pictures:
        assert 10_000 < (ROOT / picture).stat().st_size < 150_000
        assert f'"{picture.rsplit("/", 1)[1]}"' in browser_test


@pytest.mark.parametrize(("name", "env", "default", "help_text"), describe())
def test_setting_has_help_and_is_documented(name, env, default, help_text):
    assert help_text.strip(), f"setting {name} has no help text"
    assert f"`{env}`" in section("Configuration"), (
        f"{env} is not in the README's configuration section: run `make docs`"
    )


def test_settings_table_is_up_to_date():
    assert START in README and END in README
    assert with_table(README) == README, (
        "the README's settings table is out of date: run `make docs`"
    )
    assert settings_table() in section("Configuration")


@pytest.mark.parametrize("command", commands())
def test_command_is_documented(command):
    assert f"`confbot {command}`" in section("Commands"), (
        f"`confbot {command}` is not in the README's Commands section"
    )


def test_procfile_processes():
    lines = (ROOT / "Procfile").read_text().splitlines()
    processes = dict(line.split(":", 1) for line in lines if line and not line.startswith("#"))
    assert set(processes) == {"web", "worker", "bot"}
    for command in processes.values():
        assert command.split()[1] in commands()


BENCHMARKS = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")


def benchmark_headings(level: int) -> list[str]:
    """The headings of docs/benchmarks.md at `level` (`##` is 2), outside code blocks."""
    found, fence = [], False
    for line in BENCHMARKS.splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#" * level + " "):
            found.append(line[level + 1 :])
    return found


def test_benchmarks_are_ordered_by_topic():
    assert benchmark_headings(2) == ["Quality", "Speed", "Scale", "Robustness"]
    assert not any("(issue" in h or "(stop" in h for h in benchmark_headings(3))


@pytest.mark.parametrize("topic", ["Quality", "Speed", "Scale", "Robustness"])
def test_each_topic_opens_with_its_figures_and_how_to_reproduce_them(topic):
    """The table under each topic: every row has a figure, a command and the section holding
    the full run (a heading of the file)."""
    text = BENCHMARKS.split(f"\n## {topic}\n", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    headings = set(benchmark_headings(3)) | set(benchmark_headings(4))
    assert len(rows) > 2
    for row in rows[1:]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert re.search(r"\d", cells[1]), row  # a figure
        assert "`" in row or "same" in cells[-2], row  # a command (or the row above's)
        named = [part.strip() for part in re.split(r";| / ", cells[-1])]
        assert named == ["same"] or any(any(h.startswith(n) for h in headings) for n in named)
