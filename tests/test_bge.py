"""The BGE code paths (`BGEM3Embedder`, `Reranker`) on tiny local models, fully offline.

FlagEmbedding's real loaders read folders built by `tests.fakes.tiny_models`: a 2-layer
XLM-RoBERTa with the BGE-M3 head files, and a 1-logit cross-encoder. Nothing is patched
in FlagEmbedding or transformers; the hub is switched to offline mode so any attempt to
download fails instead of waiting on the network. Skipped without the `bge` extra.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("FlagEmbedding")

import huggingface_hub.constants  # noqa: E402

from core.embeddings import BGEM3Embedder, CachedEmbedder, make_embedder  # noqa: E402
from core.index import EvidenceIndex  # noqa: E402
from core.pages import Page  # noqa: E402
from core.retrieve import Reranker, Retriever  # noqa: E402
from core.settings import Settings, SettingsError  # noqa: E402
from tests.fakes.tiny_models import HIDDEN_SIZE, build_m3, build_reranker  # noqa: E402

pytestmark = [pytest.mark.bge]

PAGES = [
    Page(
        id="1",
        space="ENG",
        title="Release notes 9.0.2",
        url="https://wiki.example/spaces/ENG/pages/1/Release+notes",
        body="<p>Version 9.0.2 fixes OXT-1654 in the USB passthrough.</p>"
        "<p>Upgrade from 8.0.1 is supported.</p>",
    ),
    Page(
        id="2",
        space="HR",
        title="Travel policy",
        url="https://wiki.example/spaces/HR/pages/2/Travel+policy",
        body="<p>The board approves travel above 2000 euros.</p>"
        "<p>Hotels are booked by the office.</p>",
    ),
]


@pytest.fixture(scope="session")
def m3_path(tmp_path_factory) -> Path:
    """A tiny BGE-M3-shaped model folder, built once per session."""
    return build_m3(tmp_path_factory.mktemp("models") / "bge-m3-tiny")


@pytest.fixture(scope="session")
def reranker_path(tmp_path_factory) -> Path:
    """A tiny BGE-reranker-shaped model folder, built once per session."""
    return build_reranker(tmp_path_factory.mktemp("models") / "reranker-tiny")


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Hub offline mode. huggingface_hub reads the variables once at import, so its
    constant is set too; transformers asks it through `is_offline_mode()`."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


def test_bge_m3_embeds_unit_rows_deterministically(m3_path):
    texts = ["Which version fixes the USB passthrough?", "Who approves travel?", "the fox"]
    embedder = BGEM3Embedder(str(m3_path))
    vectors = embedder.embed(texts)

    assert embedder.name == "bge-m3:bge-m3-tiny"
    assert vectors.shape == (3, HIDDEN_SIZE) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(embedder.embed(texts), vectors)
    # A second load gives the same vectors: every weight comes from the folder.
    assert np.allclose(BGEM3Embedder(str(m3_path)).embed(texts), vectors, atol=1e-6)
    cosines = vectors @ vectors.T
    assert cosines[0, 1] < 0.999 and cosines[0, 2] < 0.999 and cosines[1, 2] < 0.999


@pytest.mark.parametrize(
    "load, variable",
    [
        (lambda missing: BGEM3Embedder(missing), "CONFBOT_EMBEDDER_MODEL_PATH"),
        (lambda missing: Reranker(missing), "CONFBOT_RERANKER_MODEL_PATH"),
        (
            lambda missing: make_embedder(
                Settings.load(environ={"CONFBOT_DATA_DIR": missing, "CONFBOT_EMBEDDER": "bge-m3"})
            ),
            "CONFBOT_EMBEDDER_MODEL_PATH",
        ),
    ],
    ids=["embedder-missing-folder", "reranker-missing-folder", "embedder-path-unset"],
)
def test_missing_model_is_a_settings_error_naming_the_variable(tmp_path, load, variable):
    with pytest.raises(SettingsError, match=variable):
        load(str(tmp_path / "missing"))


def test_reranker_scores_each_text_deterministically(reranker_path):
    reranker = Reranker(str(reranker_path))
    query = "Which version fixes the USB passthrough?"
    texts = ["Version 9.0.2 fixes OXT-1654.", "Hotels are booked by the office.", "the fox"]
    scores = reranker.score(query, texts)

    assert len(scores) == 3 and all(isinstance(s, float) for s in scores)
    assert reranker.score(query, texts) == scores
    assert len(set(scores)) == 3
    assert reranker.score(query, texts[:1]) == pytest.approx(scores[:1])
    assert reranker.score(query, []) == []


def test_bge_settings_end_to_end_with_reranking(tmp_path, m3_path, reranker_path):
    settings = Settings.load(
        environ={
            "CONFBOT_DATA_DIR": str(tmp_path / "data"),
            "CONFBOT_EMBEDDER": "bge-m3",
            "CONFBOT_EMBEDDER_MODEL_PATH": str(m3_path),
            "CONFBOT_RERANKER_MODEL_PATH": str(reranker_path),
        }
    )
    embedder = make_embedder(settings)
    assert isinstance(embedder, CachedEmbedder) and isinstance(embedder.inner, BGEM3Embedder)

    index = EvidenceIndex(settings, embedder)
    try:
        report = index.index_pages(PAGES)
        assert report.failed == [] and index.page_ids() == {"1", "2"}
        assert index.dense_count() == index.count() > 0

        retriever = Retriever.from_settings(index, embedder, settings)
        assert isinstance(retriever.reranker, Reranker)
        result = retriever.search("Which version fixes the USB passthrough?", k=5)
    finally:
        index.close()

    results = result.results
    assert results and {r.evidence.page_id for r in results} == {"1", "2"}
    rerank_scores = [r.scores["rerank"] for r in results]
    assert rerank_scores == sorted(rerank_scores, reverse=True)
    assert [r.ranks["rerank"] for r in results] == list(range(1, len(results) + 1))
    assert [r.rank for r in results] == list(range(1, len(results) + 1))
    assert all(r.score == r.scores["rerank"] for r in results)
    assert all(r.ranks["dense"] is not None and "dense" in r.scores for r in results)
    assert "rerank_ms" in result.timings
