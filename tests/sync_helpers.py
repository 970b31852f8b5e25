"""Helpers shared by the sync tests: settings pointed at a fake Confluence, index snapshots."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from connectors.confluence import ConfluenceSource
from connectors.sync import SpaceSync, SyncReport
from core.db import upgrade
from core.index import EvidenceIndex, dense_text
from core.settings import Settings
from tests.fakes.confluence_server import FakeConfluence


def sync_settings(data_dir: Path, fake: FakeConfluence | None = None, **extra: str) -> Settings:
    """Settings for a sync (from `fake` when given) into `data_dir` (migrated), with fast
    retries and listing on every run; `extra` are more `CONFBOT_*` variables."""
    environ = {
        "CONFBOT_DATA_DIR": str(data_dir),
        "CONFBOT_SYNC_LISTING_INTERVAL": "0",
        "CONFBOT_CONFLUENCE_BACKOFF": "0.01",
        "CONFBOT_CONFLUENCE_RETRY_AFTER_MAX": "0.05",
        "CONFBOT_CONFLUENCE_MAX_RETRIES": "8",
        **(fake.settings_environ() if fake else {}),
        **extra,
    }
    settings = Settings.load(environ=environ)
    upgrade(settings.sqlalchemy_url)
    return settings


def run_sync(
    settings: Settings, index: EvidenceIndex, space: str, full: bool = False
) -> SyncReport:
    """One sync run of `space` from Confluence, as the worker does it."""
    return SpaceSync(settings, index, ConfluenceSource(settings)).run(space, full=full)


def snapshot(index: EvidenceIndex) -> dict:
    """Everything the index holds that a sync decides: each evidence (id → indexed text,
    page, url, title) and each page record (id → version, ancestors). Asserts that the
    dense and lexical sides agree."""
    ids = [i for page_id in sorted(index.page_ids()) for i in index.page_evidence_ids(page_id)]
    assert index.count() == index.dense_count() == len(ids)
    evidences = {
        e.id: (e.contextualized, e.page_id, e.space, e.url, e.title) for e in index.get(ids)
    }
    pages = {p.id: (p.version, p.ancestors, p.title) for p in index.pages()}
    return {"evidences": evidences, "pages": pages}


def state(index: EvidenceIndex) -> tuple[set[str], set[str], int]:
    """(vector ids in Chroma, evidence ids in the store, pending marks)."""
    vectors = set(index._collection.get(include=[])["ids"])
    stored = {i for p in index.page_ids() for i in index.page_evidence_ids(p)}
    return vectors, stored, index.consistency()["pending"]


def assert_in_step(index: EvidenceIndex) -> None:
    """Chroma holds exactly the stored evidences, each with the vector of its stored text."""
    vectors, stored, pending = state(index)
    assert (vectors, pending) == (stored, 0)
    ids = sorted(stored)
    if ids:
        got = index._collection.get(ids=ids, include=["embeddings"])
        by_id = dict(zip(got["ids"], got["embeddings"], strict=True))
        expected = index.embedder.embed([dense_text(e, index.options) for e in index.get(ids)])
        np.testing.assert_allclose(np.array([by_id[i] for i in ids]), expected, atol=1e-6)
