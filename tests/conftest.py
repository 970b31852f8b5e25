"""Shared fixtures: settings isolated from the real environment, and the benchmark folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.settings import Settings

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
