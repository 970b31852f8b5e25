"""What a write sends to Chroma: only the vectors that changed, and vectors that outlive the
process that wrote them before Chroma saved its index."""

from __future__ import annotations

import dataclasses
import multiprocessing

import pytest

from core.index import FOREGROUND_CHUNK, HNSW_SYNC_THRESHOLD, EvidenceIndex, dense_text
from core.pages import Page
from core.settings import Settings
from tests.fakes.hash_embedder import HashEmbedder

PAGE = Page(
    id="7",
    space="ENG",
    title="Release notes 9.0.2",
    url="https://wiki.example/spaces/ENG/pages/7",
    body="<h1>Fixes</h1><p>Version 9.0.2 fixes OXT-1654 in the USB passthrough.</p>"
    "<h1>Upgrades</h1><p>Upgrade from 8.0.1 is supported.</p>"
    "<ul><li>Back up the disks.</li><li>Run the installer.</li></ul>",
)


@pytest.fixture
def upserts(monkeypatch) -> list[list[str]]:
    """The ids of each vector write sent to Chroma, in order."""
    from chromadb.api.models.Collection import Collection

    calls: list[list[str]] = []
    original = Collection.upsert

    def counting(self, *args, **kwargs):
        calls.append(list(kwargs["ids"]))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Collection, "upsert", counting)
    return calls


def written(upserts: list[list[str]]) -> list[str]:
    """The ids written since the last call, sorted (and forget them)."""
    ids = sorted(i for call in upserts for i in call)
    upserts.clear()
    return ids


def test_an_edit_writes_only_the_vectors_it_changed(settings, upserts):
    index = EvidenceIndex(settings, HashEmbedder())
    index.index_pages([PAGE])
    first = written(upserts)
    assert len(first) >= 3
    edited = dataclasses.replace(
        PAGE, body=PAGE.body.replace("is supported", "is supported from 9.0.1 on")
    )
    index.index_pages([edited])
    changed = [e for e in index.get(first) if "9.0.1 on" in e.text]
    assert written(upserts) == [e.id for e in changed] and len(changed) == 1
    # The vectors left alone are still the page's: every evidence is found by its vector.
    assert index.dense_count() == index.count() == len(first)
    for evidence in index.get(first):
        vector = index.embedder.embed([dense_text(evidence, index.options)])[0]
        assert index.dense_search(vector, k=1)[0][0] == evidence.id
    index.index_pages([edited])  # nothing changed: nothing is written
    assert written(upserts) == []
    index.close()


def test_vectors_are_written_again_when_what_was_embedded_changed(settings, upserts):
    index = EvidenceIndex(settings, HashEmbedder())
    index.index_pages([PAGE])
    ids = written(upserts)
    index.close()
    # Another setting makes other dense texts of the same evidences (no title in them).
    untitled = EvidenceIndex(settings.replace(context_title=False), HashEmbedder())
    untitled.index_pages([PAGE])
    assert written(upserts) == ids
    # A page moved to another space: its vectors' space metadata must follow.
    untitled.index_pages([dataclasses.replace(PAGE, space="OPS")])
    assert written(upserts) == ids
    assert untitled.dense_search(
        untitled.embedder.embed(["Upgrade from 8.0.1 is supported."])[0], k=3, spaces={"OPS"}
    )
    untitled.close()


def _nearest(data_dir: str, texts: list[str], found) -> None:
    """In a new process: the nearest vector's id for each text's vector."""
    index = EvidenceIndex(Settings.load(environ={"CONFBOT_DATA_DIR": data_dir}), HashEmbedder())
    found.put([index.dense_search(v, k=1)[0][0] for v in index.embedder.embed(texts)])
    index.close()


def test_vectors_not_yet_saved_in_chromas_index_are_found_by_the_next_process(settings):
    """Chroma saves its HNSW index every `HNSW_SYNC_THRESHOLD` written vectors, not every
    1,000; what was written since is replayed from its log when the index is loaded."""
    index = EvidenceIndex(settings, HashEmbedder())
    assert index._collection.configuration_json["hnsw"]["sync_threshold"] == HNSW_SYNC_THRESHOLD
    pages = [
        Page(
            id=str(n),
            space="ENG",
            title=f"Machine {n}",
            url=f"https://wiki.example/pages/{n}",
            body=f"<p>Machine {n} is model m{n}x and stands in room r{n}y.</p>",
        )
        for n in range(1200)
    ]
    assert index.index_pages(pages).evidences == 1200  # more than Chroma's default 1,000
    index.close()
    probes = [0, 600, 1199]
    texts = [dense_text(index.get([f"{n}#0000"])[0], index.options) for n in probes]
    context = multiprocessing.get_context("spawn")
    found = context.Queue()
    reader = context.Process(target=_nearest, args=(settings.data_dir, texts, found))
    reader.start()
    assert found.get(timeout=120) == [f"{n}#0000" for n in probes]
    reader.join()


@pytest.mark.chroma_server
@pytest.mark.postgres
def test_a_chroma_server_gets_updates_of_held_vectors_in_small_chunks(server_settings, upserts):
    """A Chroma server's searches wait for a whole update of vectors it holds, and a worker
    cannot see other replicas' searches: updates go in chunks of `FOREGROUND_CHUNK` even
    with no search in this process; new vectors go whole."""
    settings = server_settings
    page = Page(
        id="9",
        space="ENG",
        title="Machines",
        url="https://wiki.example/pages/9",
        body="".join(f"<h2>Machine {n}</h2><p>Machine {n} is model m{n}x.</p>" for n in range(80)),
    )
    index = EvidenceIndex(settings, HashEmbedder())
    evidences = index.index_pages([page]).evidences
    assert evidences > FOREGROUND_CHUNK and [len(c) for c in upserts] == [evidences]
    index.close()
    upserts.clear()
    untitled = EvidenceIndex(settings.replace(context_title=False), HashEmbedder())
    untitled.index_pages([page])  # every vector is held and changes
    sizes = [len(call) for call in upserts]
    assert sum(sizes) == evidences and max(sizes) == FOREGROUND_CHUNK
    assert untitled.dense_count() == untitled.count() == evidences
    untitled.close()
