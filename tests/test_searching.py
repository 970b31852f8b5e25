"""Searches seen across processes: a writer of one data folder makes way for the searches
of another process on it (core.searching), as it does for its own."""

from __future__ import annotations

import time

import core.index
from core.index import EvidenceIndex
from core.searching import SearchBeacon
from tests.fakes.hash_embedder import HashEmbedder


def test_a_writer_sees_the_searches_of_another_index_on_its_folder(settings, monkeypatch):
    monkeypatch.setattr(core.index, "SEARCHES_RECENT_S", 0.5)
    monkeypatch.setattr("core.searching.MARK_EVERY_S", 0.0)
    writer = EvidenceIndex(settings, HashEmbedder())
    asker = EvidenceIndex(settings, HashEmbedder())  # as a web process beside the worker
    try:
        assert not writer._searched_recently()
        asker.lexical_search("vacation policy", k=5)
        assert writer._searched_recently()
        time.sleep(1.1)  # the file's time may be rounded to the second
        assert not writer._searched_recently()
    finally:
        writer.close()
        asker.close()


def test_a_beacon_that_cannot_be_written_sees_no_search(tmp_path):
    beacon = SearchBeacon(tmp_path / "missing-folder" / "searching")
    beacon.mark()  # the folder is not there: nothing is raised
    assert not beacon.seen_within(60)
    beacon = SearchBeacon(tmp_path / "searching")
    beacon.mark()
    assert beacon.seen_within(60)
