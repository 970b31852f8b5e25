"""Strict, bounded numbers and spans (`core.bounds`), and the commands that read them."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest

from bot.cli import main
from core.bounds import MAX_ID, ascii_int, lookback


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith(("SLACK_", "CONFBOT_")) and not name.startswith("CONFBOT_TEST_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("CONFBOT_DATA_DIR", str(tmp_path))


@pytest.mark.parametrize(
    ("text", "expected"), [("1", 1), ("0042", 42), (str(MAX_ID), MAX_ID), (7, 7)]
)
def test_ascii_int(text, expected):
    assert ascii_int(text, 0, MAX_ID, "id") == expected


@pytest.mark.parametrize(
    "text",
    ["²", "٣", "1²", "", " 1", "1 ", "+1", "-1", "1.0", "9" * 20, "9" * 400, True, None, 1.0],
)
def test_ascii_int_rejects(text):
    with pytest.raises(ValueError, match="id must be a whole number from 0 to"):
        ascii_int(text, 0, MAX_ID, "id")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("30d", timedelta(days=30)), ("2w", timedelta(days=14)), ("12h", timedelta(hours=12))],
)
def test_lookback(text, expected):
    assert lookback(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("99999999999d", "at most 3660d"),
        ("0d", "positive"),
        ("²d", "not a span"),
        ("9" * 400 + "d", "not a span"),
        ("1.5d", "not a span"),
        ("30", "not a span"),
    ],
)
def test_lookback_rejects(text, message):
    with pytest.raises(ValueError, match=message):
        lookback(text)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["status", "--days", "100000000"], "--days: days must be a whole number from 1 to 3660"),
        (["status", "--days", "٣"], "--days: days must be a whole number"),
        (["gaps", "--since", "99999999999d"], "at most 3660d"),
    ],
)
def test_commands_refuse_unbounded_arguments_without_a_traceback(capsys, argv, message):
    try:
        status = main(argv)
    except SystemExit as exit:  # argparse's usage error
        status = exit.code
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
