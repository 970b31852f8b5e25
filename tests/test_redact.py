"""Secrets never reach logs or users, and page data never becomes an unsafe link: the
helpers, with tables of literal inputs and outputs."""

from __future__ import annotations

import logging

import pytest

from core.redact import SecretMasker, redact_url, secret_values, web_link
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
