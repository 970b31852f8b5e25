"""Secrets never reach logs or users, and page data never becomes an unsafe link: the
helpers, with tables of literal inputs and outputs."""

from __future__ import annotations

import logging
import os

import pytest

from core.redact import SecretMasker, redact_text, redact_url, secret_values, web_link
from core.settings import Settings


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:secret@db/x", "postgresql://u:***@db/x"),
        ("http://user:S3CRET@llm.example:8000/v1", "http://user:***@llm.example:8000/v1"),
        ("https://token@host/path", "https://***@host/path"),
        ("https://host/v1?api_key=abc123&model=x", "https://host/v1?api_key=***&model=x"),
        ("https://host/a?sig=zz&X-Amz-Signature=q", "https://host/a?sig=***&X-Amz-Signature=***"),
        ("https://example.atlassian.net/wiki", "https://example.atlassian.net/wiki"),
        ("sqlite:////data/confbot.sqlite", "sqlite:////data/confbot.sqlite"),
        ("", ""),
        ("http://[::1:bad@x", "***"),
    ],
)
def test_redact_url(url, shown):
    assert redact_url(url) == shown


@pytest.mark.parametrize(
    ("url", "link"),
    [
        ("https://wiki.example/pages/1", "https://wiki.example/pages/1"),
        ("HTTP://wiki.example/x", "HTTP://wiki.example/x"),
        ("javascript:alert(1)", ""),
        (" JavaScript:alert(1)", ""),
        ("data:text/html,<script>", ""),
        ("file:///etc/passwd", ""),
        ("//evil.example/x", ""),
        ("/relative/path", ""),
        ("http://[::1", ""),
    ],
)
def test_web_link(url, link):
    assert web_link(url) == link


def test_secret_values_are_every_secret_setting_and_url_password(tmp_path):
    settings = Settings.load(
        environ={
            "CONFBOT_DATA_DIR": str(tmp_path),
            "CONFBOT_LLM_BASE_URL": "http://user:LLMPASSWORD@llm.example/v1",
            "CONFBOT_DATABASE_URL": "postgresql://confbot:DBPASSWORD@db/confbot",
            "CONFBOT_CONFLUENCE_TOKEN": "CONFLUENCETOKEN",
            "SLACK_BOT_TOKEN": "xoxb-SLACKTOKEN",
            "OPENAI_API_KEY": "sk-OPENAIKEY",
        }
    )
    assert set(secret_values(settings)) == {
        "LLMPASSWORD",
        "DBPASSWORD",
        "CONFLUENCETOKEN",
        "xoxb-SLACKTOKEN",
        "sk-OPENAIKEY",
    }


def test_settings_never_show_their_secrets(tmp_path):
    settings = Settings.load(
        environ={
            "CONFBOT_DATA_DIR": str(tmp_path),
            "OPENAI_API_KEY": "sk-OPENAIKEY",
            "CONFBOT_DATABASE_URL": "postgresql://confbot:DBPASSWORD@db/confbot",
        }
    )
    for shown in (repr(settings), str(settings), str(settings.redacted())):
        assert "sk-OPENAIKEY" not in shown and "DBPASSWORD" not in shown
        assert "postgresql://confbot:***@db/confbot" in shown


def test_secret_masker_masks_messages_arguments_and_tracebacks():
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(self.format(record))

    logger = logging.getLogger("test_redact")
    handler = Collect()
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.propagate = False
    SecretMasker(["sk-OPENAIKEY", "abc"]).install(logger)
    try:
        logger.warning("upstream said: bad key %s", "sk-OPENAIKEY")
        try:
            raise RuntimeError("token sk-OPENAIKEY rejected")
        except RuntimeError:
            logger.exception("call failed")
        logger.warning("short values like abc are kept")
    finally:
        logger.removeHandler(handler)
    text = "\n".join(records)
    assert "sk-OPENAIKEY" not in text
    # the message, and in the traceback the raising line and the exception's message
    assert text.count("***") == 3 and "RuntimeError: token *** rejected" in text
    assert "like abc are kept" in text


# --------------------------------------------------------------------------- issue 34
@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "cannot reach http://u:PW123456@llm:1/v1: refused",
            "cannot reach http://u:***@llm:1/v1: refused",
        ),
        ("at https://h/v1?token=TK123456&model=m).", "at https://h/v1?token=***&model=m)."),
        (
            "GET /rest/api/space?token=TK123456&limit=5 failed",
            "GET /rest/api/space?token=***&limit=5 failed",
        ),
        (
            "https://a/x?api_key=K1 and https://b/?sig=S2",
            "https://a/x?api_key=*** and https://b/?sig=***",
        ),
        ("https://wiki.example/pages/1?pageId=5", "https://wiki.example/pages/1?pageId=5"),
        ("a password=hunter22 here", "a password=hunter22 here"),  # no query string: no mark
        ("?password=hunter22", "?password=***"),
        ("no url at all", "no url at all"),
    ],
)
def test_redact_text(text, shown):
    assert redact_text(text) == shown


def test_redact_text_masks_given_secrets():
    assert redact_text("token sk-abcdef in text", ["sk-abcdef"]) == "token *** in text"
    assert redact_text("short abc", ["abc"]) == "short abc"  # too likely an ordinary word
    assert redact_text("short abcd", ["abcd"], min_length=4) == "short ***"


def test_doctor_never_prints_url_passwords_or_token_parameters(tmp_path, monkeypatch, capsys):
    from bot.cli import main

    closed = "http://127.0.0.1:1"
    environ = {
        "CONFBOT_DATA_DIR": str(tmp_path),
        "CONFBOT_LLM_BASE_URL": "http://llmuser:LLMPASS123@127.0.0.1:1/v1?token=LLMTOKEN123",
        "CONFBOT_LLM_MODEL": "m",
        "CONFBOT_EMBEDDER": "openai",
        "CONFBOT_EMBEDDINGS_BASE_URL": f"{closed}/v1?api_key=EMBEDKEY123",
        "CONFBOT_EMBEDDINGS_MODEL": "e",
        "CONFBOT_SLACK_API_URL": "http://slack:SLACKPASS123@127.0.0.1:1/api/?token=SLACKTOKEN1",
        "SLACK_BOT_TOKEN": "xoxb-1",
        "CONFBOT_CONFLUENCE_URL": f"{closed}/wiki?token=CONFTOKEN123",
    }
    for name in list(os.environ):
        if name.startswith(("SLACK_", "CONFBOT_", "OPENAI_")):
            monkeypatch.delenv(name)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    main(["doctor"])
    printed = capsys.readouterr()
    shown = printed.out + printed.err
    assert "127.0.0.1:1" in shown  # the URLs are shown...
    for secret in ("LLMPASS123", "LLMTOKEN123", "EMBEDKEY123", "SLACKPASS123", "SLACKTOKEN1"):
        assert secret not in shown  # ...without their credentials
    assert "CONFTOKEN123" not in shown


def test_sync_reports_are_stored_and_shown_without_tokens(tmp_path):
    from bot.status import collect_status, status_lines
    from connectors.sync import SpaceSync
    from core.db import upgrade
    from tests.fakes.tiny_wiki import build_wiki

    settings, index, _ = build_wiki(tmp_path / "wiki")
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)
    settings = settings.replace(database_url=url)

    class Failing:
        cheap_listing = True

        def changes(self, space, since):
            raise ConnectionError("GET https://u:PW654321@wiki.example/rest?token=TK654321 failed")

    report = SpaceSync(settings, index, Failing()).run("TEST")
    assert "TK654321" not in report.error and "PW654321" not in report.error
    assert "wiki.example" in report.error
    status = collect_status(settings, index)
    shown = "\n".join(status_lines(status))
    assert "stopped early" in shown and "TK654321" not in shown and "PW654321" not in shown
