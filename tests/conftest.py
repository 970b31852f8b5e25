"""Shared fixtures: settings and a process environment isolated from the real one, the
tiny wiki, the async backend of the in-process web tests, and the benchmark folder."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from core.settings import Settings
from tests.fakes.tiny_wiki import Wiki, build_wiki

# `confbot sync` and `worker` run in the test process by many tests: the suite keeps its
# CPU priority (each run would add CONFBOT_SYNC_NICE to pytest's niceness, up to 19, and
# every process the suite starts after would inherit it). Tests of the setting pass it.
os.environ.setdefault("CONFBOT_SYNC_NICE", "0")

BENCHMARK = Path(__file__).resolve().parents[2] / "shared" / "confquestions"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings on defaults, with the data folder in a temporary directory."""
    return Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path / "data")})


@pytest.fixture
def benchmark_dir() -> Path:
    """The ConfQuestions folder beside the repository (skips when it is absent)."""
    if not (BENCHMARK / "documents").is_dir():
        pytest.skip(f"ConfQuestions benchmark not found at {BENCHMARK}")
    return BENCHMARK


@pytest.fixture
def postgres_url():
    """A fresh schema on the PostgreSQL server of CONFBOT_TEST_POSTGRES_URL, dropped after
    (skips when the variable is not set)."""
    server = os.environ.get("CONFBOT_TEST_POSTGRES_URL", "")
    if not server:
        pytest.skip("CONFBOT_TEST_POSTGRES_URL is not set (a PostgreSQL server URL; CI sets it)")
    from sqlalchemy import create_engine, text

    schema = f"confbot_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(server)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in server else "?"
    yield f"{server}{separator}options=-csearch_path%3D{schema}"
    with admin.begin() as connection:
        connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


@pytest.fixture
def server_settings(tmp_path, postgres_url) -> Settings:
    """Server-mode settings: the evidence store in a fresh PostgreSQL schema and a fresh
    collection on the Chroma server of CONFBOT_TEST_CHROMA_URL (skips when either is unset)."""
    url = os.environ.get("CONFBOT_TEST_CHROMA_URL", "")
    if not url:
        pytest.skip("set CONFBOT_TEST_CHROMA_URL to a running Chroma server (.ci/run starts one)")
    return Settings.load(
        environ={
            "CONFBOT_DATA_DIR": str(tmp_path),
            "CONFBOT_CHROMA_URL": url,
            "CONFBOT_DATABASE_URL": postgres_url,
            "CONFBOT_COLLECTION": f"test-{uuid.uuid4().hex[:8]}",
        }
    )


@pytest.fixture
def environ(tmp_path, monkeypatch) -> Path:
    """A process environment with no confbot, Slack or OpenAI settings but the data folder
    (under the returned temporary folder), for tests that run the `confbot` command."""
    for name in list(os.environ):
        if name.startswith(("CONFBOT_", "SLACK_")) or name == "OPENAI_API_KEY":
            monkeypatch.delenv(name)
    monkeypatch.setenv("CONFBOT_DATA_DIR", str(tmp_path / "data"))
    # `confbot sync` and `worker` run here in the test's process: it keeps its priority.
    monkeypatch.setenv("CONFBOT_SYNC_NICE", "0")
    return tmp_path


@pytest.fixture(scope="module")
def wiki(tmp_path_factory) -> Wiki:
    """The tiny wiki (spaces TEST and DEV), indexed once per test module."""
    return build_wiki(tmp_path_factory.mktemp("wiki"))


@pytest.fixture
def anyio_backend() -> str:
    """The in-process web tests run on asyncio."""
    return "asyncio"


@pytest.fixture(scope="session")
def sample_product(tmp_path_factory):
    """The Assistant `confbot serve` wires over the bundled sample wiki (the offline USE
    embedder, answerer and completer), its state in a temporary folder: the product a new
    user tries. Tests ask in threads of their own."""
    from bot.serve import sync_sample_wiki
    from core.assistant import Assistant

    folder = tmp_path_factory.mktemp("sample-product")
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(folder)})
    assistant = Assistant.from_settings(settings)
    sync_sample_wiki(settings, assistant.index)
    yield assistant
    assistant.close()
