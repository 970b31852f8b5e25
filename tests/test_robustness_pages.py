"""Hostile page bodies: none raises, each is indexed within the limits of `core.limits`, and
a page that still fails anywhere is recorded with its reason while the rest of its space is
indexed, from a folder and from Confluence, and `confbot sync` prints it."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from bot.cli import main
from connectors.confluence import ConfluenceSource
from connectors.files import FilesSource
from connectors.state import SyncPage
from connectors.sync import SpaceSync
from core.db import session_factory
from core.index import EvidenceIndex
from core.limits import (
    MAX_EVIDENCE_WORDS,
    MAX_PAGE_EMBED_UNITS,
    MAX_PAGE_EVIDENCES,
    MAX_WORD_CHARS,
    embed_units,
)
from core.pages import Page
from tests.fakes.confluence_server import FakeConfluence, FakePage
from tests.fakes.hash_embedder import HashEmbedder, PoisonEmbedder
from tests.fakes.hostile_pages import HOSTILE
from tests.sync_helpers import assert_in_step, sync_settings

SIZE = 200_000  # the benchmark indexes them at 5 MB (benchmarks/hostile_pages.py)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_page_is_indexed_within_the_limits(settings, name):
    index = EvidenceIndex(settings, HashEmbedder())
    hostile = Page(id="666", space="S", title=name, url="u", body=HOSTILE[name](SIZE))
    ordinary = Page(id="1", space="S", title="Ordinary", url="u", body="<p>Fine text.</p>")
    report = index.index_pages([hostile, ordinary])
    assert report.failed == []
    assert index.page_ids() == {"1", "666"}
    evidences = index.get(index.page_evidence_ids("666"))
    assert 0 < len(evidences) <= MAX_PAGE_EVIDENCES
    embedded = 0
    for e in evidences:
        words = e.text.split()
        assert len(words) <= MAX_EVIDENCE_WORDS
        assert max(map(len, words)) <= MAX_WORD_CHARS
        assert len(e.contextualized) < 3 * MAX_EVIDENCE_WORDS * (MAX_WORD_CHARS + 1)
        embedded += embed_units("\n".join(p for p in (e.title, e.heading, e.text) if p))
    assert embedded <= MAX_PAGE_EMBED_UNITS
    assert_in_step(index)


def space_pages() -> dict[str, tuple[str, str]]:
    """id → (title, body) of a space: ordinary pages, every hostile page at 20 KB, a page
    whose embedding fails with MemoryError and one whose body format is unknown."""
    pages = {str(n): (f"Ordinary {n}", f"<p>Ordinary page {n}.</p>") for n in range(1, 6)}
    for n, (name, make) in enumerate(sorted(HOSTILE.items()), start=100):
        pages[str(n)] = (name, make(20_000))
    pages["900"] = ("Poisoned", "<p>POISON makes the embedder run out of memory</p>")
    return pages


def assert_failures_recorded(settings, index: EvidenceIndex, report, bad: dict[str, str]):
    """The bad pages failed with their reasons in `sync_pages.error`; all others indexed."""
    assert report.error is None
    assert {page_id for page_id, _ in report.failures} == set(bad)
    with session_factory(settings.sqlalchemy_url)() as db:
        errors = {r.page_id: r.error for r in db.scalars(select(SyncPage))}
    for page_id, reason in bad.items():
        assert reason in errors[page_id]
    assert {i for i, e in errors.items() if e} == set(bad)
    assert index.page_ids() == set(errors) - set(bad)
    assert_in_step(index)


def test_failed_pages_from_a_folder_are_recorded_and_the_rest_indexed(tmp_path):
    folder = tmp_path / "pages"
    folder.mkdir()
    for page_id, (title, body) in space_pages().items():
        record = {"id": page_id, "title": title, "url": "", "space": "S", "content": body}
        (folder / f"{page_id}.json").write_text(json.dumps(record), encoding="utf-8")
    wiki = {"id": "901", "title": "Wiki markup", "space": "S", "content": "h1. x"}
    (folder / "901.json").write_text(json.dumps({**wiki, "body_format": "wiki"}))
    settings = sync_settings(tmp_path / "data")
    index = EvidenceIndex(settings, PoisonEmbedder())
    source = FilesSource(folder)
    report = SpaceSync(settings, index, source).run("S")
    bad = {"900": "MemoryError", "901": "unknown body format 'wiki'"}
    assert_failures_recorded(settings, index, report, bad)

    fixed = {"id": "900", "title": "Fixed", "space": "S", "content": "<p>Healthy now</p>"}
    (folder / "900.json").write_text(json.dumps(fixed))
    again = SpaceSync(settings, index, source).run("S")
    assert "900" in index.page_ids() and {p for p, _ in again.failures} == {"901"}


def test_failed_pages_from_confluence_are_recorded_and_the_rest_indexed(tmp_path):
    pages = [FakePage(id=i, space="S", title=t, body=b) for i, (t, b) in space_pages().items()]
    with FakeConfluence(pages) as fake:
        settings = sync_settings(tmp_path / "data", fake)
        index = EvidenceIndex(settings, PoisonEmbedder())
        report = SpaceSync(settings, index, ConfluenceSource(settings)).run("S")
        assert_failures_recorded(settings, index, report, {"900": "MemoryError"})
        fake.edit("900", body="<p>Healthy now</p>")
        again = SpaceSync(settings, index, ConfluenceSource(settings)).run("S")
    assert (again.failed, again.error) == (0, None) and "900" in index.page_ids()


def test_confbot_sync_prints_the_failed_pages_with_their_reasons(environ, capsys):
    folder = environ / "docs"
    folder.mkdir()
    good = {"id": "1", "title": "Good", "space": "S", "content": "<p>Fine.</p>"}
    bad = {"id": "2", "title": "Bad", "space": "S", "content": "h1. x", "body_format": "wiki"}
    for record in (good, bad):
        (folder / f"{record['id']}.json").write_text(json.dumps(record), encoding="utf-8")
    assert main(["sync", "--source", "files", "--path", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "S: 1 added, 0 updated, 0 deleted, 0 skipped, 1 failed" in out
    assert "failed: page 2: ValueError: unknown body format 'wiki'" in out


# --------------------------------------------------------------------------- issue 34
def hostile_files() -> dict[str, bytes]:
    """File name → content of files that are no page, each in its own way."""
    deep = b'{"id": "1", "space": "S", "title": "t", "content": ' + b"[" * 100_000
    deep += b"]" * 100_000 + b"}"

    def record(**changes) -> bytes:
        page = {"id": "1", "space": "S", "title": "t", "url": "", "content": "<p>x</p>"}
        return json.dumps({**page, **changes}).encode()

    return {
        "deep.json": deep,
        "infinity.json": record(id="71", version=float("inf")),
        "huge_version.json": record(id="72", version=1e308),
        "negative_version.json": record(id="73", version=-3),
        "unicode_version.json": record(id="74", version="²"),
        "not_utf8.json": b'{"content": "' + b"\xff\xfe" * 9_900_000 + b'"}',  # 19.8 MB
    }


def test_every_file_of_a_folder_is_isolated_like_a_page(tmp_path, caplog):
    folder = tmp_path / "pages"
    folder.mkdir()
    for page_id in ("1", "2", "3"):
        record = {"id": page_id, "title": f"Page {page_id}", "url": "", "space": "S"}
        record["content"] = f"<p>Ordinary page {page_id}.</p>"
        (folder / f"{page_id}.json").write_text(json.dumps(record), encoding="utf-8")
    settings = sync_settings(tmp_path / "data")
    index = EvidenceIndex(settings, HashEmbedder())
    source = FilesSource(folder)
    assert SpaceSync(settings, index, source).run("S").error is None
    assert index.page_ids() == {"1", "2", "3"}

    hostile = hostile_files()
    for name, content in hostile.items():
        (folder / name).write_bytes(content)
    (folder / "3.json").unlink()  # a deletion, seen in the same run as the hostile files
    caplog.clear()
    report = SpaceSync(settings, index, source).run("S")

    assert report.error is None  # the run went on to its end...
    assert index.page_ids() == {"1", "2"}  # ...and deleted the page whose file is gone
    assert sorted(name for name, _ in source.failures) == sorted(hostile)
    reasons = dict(source.failures)
    assert "RecursionError" in reasons["deep.json"]
    for name in ("infinity.json", "huge_version.json", "unicode_version.json"):
        assert "version must be a whole number" in reasons[name]
    assert reasons["not_utf8.json"].startswith("UnicodeDecodeError")
    assert max(len(reason) for reason in reasons.values()) < 400
    assert len(caplog.text) < 10_000  # a line per file, never the file (19.8 MB here)


def test_confbot_sync_of_a_folder_with_hostile_files_prints_short_lines(environ, capsys):
    folder = environ / "docs"
    folder.mkdir()
    record = {"id": "1", "title": "Page", "url": "", "space": "S", "content": "<p>Fine.</p>"}
    (folder / "1.json").write_text(json.dumps(record), encoding="utf-8")
    for name, content in hostile_files().items():
        (folder / name).write_bytes(content)
    assert main(["sync", "--source", "files", "--path", str(folder)]) == 0
    printed = capsys.readouterr()
    assert "S: 1 added" in printed.out
    # each unreadable file named once, in the closing total, and nothing long
    for name in hostile_files():
        assert (printed.out + printed.err).count(name) == 1, name
    assert len(printed.out + printed.err) < 5_000
