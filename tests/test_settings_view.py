"""`confbot settings` (grouped by area, the value in effect and its origin, secrets masked)
and the warning for a misspelled `CONFBOT_*` variable."""

from __future__ import annotations

import dataclasses
import os

import pytest

from bot.cli import main
from core.settings import Settings, areas, origins, unknown_variables


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.startswith(("SLACK_", "CONFBOT_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("CONFBOT_DATA_DIR", str(tmp_path / "data"))


def test_every_setting_has_an_area_and_areas_follow_the_declaration():
    found = areas()
    assert set(found) == {f.name for f in dataclasses.fields(Settings)}
    assert found["data_dir"] == "storage" and found["slack_bot_token"] == "Slack"
    assert found["top_k"] == "embeddings and retrieval"


def test_origins_follow_the_precedence_of_load(tmp_path):
    config = tmp_path / "confbot.toml"
    config.write_text('top_k = 7\nfusion = "rrf"\nrrf_k = 30\n')
    environ = {"CONFBOT_CONFIG": str(config), "CONFBOT_FUSION": "zscore", "CONFBOT_RRF_K": "40"}
    found = origins(environ, {"rrf_k": "50"})
    assert found["top_k"] == f"file CONFBOT_CONFIG={config}"
    assert found["fusion"] == "environment CONFBOT_FUSION"
    assert found["rrf_k"] == "flag --config"
    assert found["candidates_k"] == "default"
    settings = Settings.load(environ, {"rrf_k": "50"})
    assert (settings.top_k, settings.fusion, settings.rrf_k) == (7, "zscore", 50)


def test_settings_shows_the_value_in_effect_by_area(monkeypatch, capsys):
    monkeypatch.setenv("CONFBOT_TOP_K", "5")
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-very-secret-1")
    monkeypatch.setenv("CONFBOT_DATABASE_URL", "postgresql://confbot:hunter2pw@db/confbot")
    assert main(["settings", "--config", "fusion=rrf"]) == 0
    out = capsys.readouterr().out
    assert "  top_k = 5  (environment CONFBOT_TOP_K)" in out
    assert "  fusion = rrf  (flag --config)" in out
    assert "  candidates_k = 100  (default; CONFBOT_CANDIDATES_K)" in out
    assert "  slack_bot_token = ***  (environment SLACK_BOT_TOKEN)" in out
    assert "xoxb-very-secret-1" not in out and "hunter2pw" not in out
    headings = [line for line in out.splitlines() if line.startswith("[")]
    assert headings[0] == "[storage]" and "[Slack]" in headings
    assert len(headings) == len(set(headings))  # each area once: settings are grouped
    assert out.index("[storage]") < out.index("data_dir =") < out.index("[Slack]")


@pytest.mark.parametrize(
    "variable, hint",
    [
        ("CONFBOT_TOPK", "did you mean CONFBOT_TOP_K?"),
        ("CONFBOT_EMBEDER", "did you mean CONFBOT_EMBEDDER?"),
        ("CONFBOT_SLACK_BOT_TOKEN", "did you mean SLACK_BOT_TOKEN?"),
        ("CONFBOT_XYZZY", "(see `confbot settings`)"),
    ],
)
def test_an_unknown_variable_is_warned_with_the_closest_name(variable, hint):
    (warning,) = unknown_variables({variable: "1", "CONFBOT_TOP_K": "3"})
    assert warning.startswith(f"{variable} is not a setting") and warning.endswith(hint)


def test_known_and_test_variables_are_not_warned():
    environ = {"CONFBOT_TOP_K": "3", "CONFBOT_CONFIG": "x", "CONFBOT_TEST_POSTGRES_URL": "y"}
    assert unknown_variables(environ) == []


def test_every_command_warns_once_on_stderr(monkeypatch, capsys):
    monkeypatch.setenv("CONFBOT_TOPK", "5")
    assert main(["settings", "--brief"]) == 0
    err = capsys.readouterr().err
    assert err == (
        "confbot: warning: CONFBOT_TOPK is not a setting and is ignored;"
        " did you mean CONFBOT_TOP_K?\n"
    )
