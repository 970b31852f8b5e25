"""Attachments through the sync: the fake Confluence (Cloud REST v2 and Data Center REST v1
shapes, real files made by their libraries) and a folder through `confbot sync` and `ask`."""

from __future__ import annotations

import dataclasses
import json

import pytest
from sqlalchemy import select

from bot.cli import main
from connectors.attachments import attachment_key, is_attachment_key
from connectors.state import SyncAttachment
from connectors.sync import SyncReport
from core.db import session_factory
from core.index import EvidenceIndex
from tests.fakes.confluence_server import FakeConfluence, FakePage
from tests.fakes.documents import encrypted_pdf, pdf_bytes, xlsx_bytes
from tests.fakes.hash_embedder import HashEmbedder, PoisonEmbedder
from tests.sync_helpers import run_sync, sync_settings

PDF = "application/pdf"


def travel_wiki(cloud: bool) -> FakeConfluence:
    """A space with a page whose facts are only in its attachments, and a child page."""
    fake = FakeConfluence(
        [
            FakePage("501", "HR", "Travel policy", "<p>See the attached handbook.</p>"),
            FakePage("502", "HR", "Expenses", "<p>Receipts within 30 days.</p>", ancestors=["501"]),
        ],
        cloud=cloud,
    )
    fake.attach(
        "501",
        "handbook.pdf",
        pdf_bytes([["Travel handbook"], ["The nightly hotel cap in Berlin is 180 euros."]]),
        PDF,
    )
    fake.attach(
        "502", "costs.xlsx", xlsx_bytes({"Per diem": [["City", "Amount"], ["Tokyo", "9000 yen"]]})
    )
    fake.attach("502", "broken.pdf", b"%PDF-1.4\nnot really", PDF)
    fake.attach("502", "salaries.pdf", encrypted_pdf([["Salary bands."]]), PDF)
    fake.attach("502", "scan.pdf", pdf_bytes([[], []]), PDF)
    fake.attach("502", "big.pdf", pdf_bytes([["Large."]], padding=200_000), PDF)
    fake.attach("502", "photo.png", b"\x89PNG\r\n", "image/png")
    return fake


def found(index: EvidenceIndex, query: str) -> list:
    """The evidences BM25 ranks for a query, best first."""
    return index.get([i for i, _ in index.lexical_search(query, 5)])


def attachment_rows(settings) -> dict[str, SyncAttachment]:
    with session_factory(settings.sqlalchemy_url)() as db:
        return {r.title: r for r in db.scalars(select(SyncAttachment))}


def downloads(fake: FakeConfluence) -> list[str]:
    return [r.path for r in fake.requests if "/download/attachments/" in r.path]


@pytest.mark.parametrize("cloud", [True, False], ids=["cloud-v2", "data-center-v1"])
def test_attachments_are_evidence_of_their_own(tmp_path, cloud):
    with travel_wiki(cloud) as fake:
        settings = sync_settings(tmp_path, fake, CONFBOT_ATTACHMENT_MAX_MB="0.1")
        index = EvidenceIndex(settings, HashEmbedder())
        report = run_sync(settings, index, "HR")

        files = report.attachments
        assert (files.indexed, files.skipped, files.ignored, files.failed) == (2, 4, 1, 0)
        reasons = dict(files.problems)
        assert reasons["broken.pdf"].startswith("broken PDF")
        assert reasons["salaries.pdf"].startswith("password-protected PDF")
        assert reasons["scan.pdf"].startswith("no text layer")
        assert reasons["big.pdf"].startswith("larger than attachment_max_mb")

        listing = (
            "/api/v2/pages/502/attachments" if cloud else "/rest/api/content/502/child/attachment"
        )
        assert any(r.path == fake.context + listing for r in fake.requests)
        assert all("big.pdf" not in path for path in downloads(fake))  # its size was listed

        hotel = next(e for e in found(index, "nightly hotel cap Berlin") if "Berlin" in e.text)
        assert hotel.page_id == attachment_key(fake.pages["501"].attachments[0].id)
        assert hotel.title == "handbook.pdf (attached to Travel policy)"
        assert hotel.url.startswith(fake.url + "/download/attachments/501/handbook.pdf?version=1")
        assert hotel.heading == "Page 2"
        record = index.page(hotel.page_id)
        assert (record.space, record.ancestors) == ("HR", ("501",))

        [tokyo] = found(index, "Tokyo per diem")[:1]
        assert tokyo.title == "costs.xlsx (attached to Expenses)" and tokyo.kind == "row"
        assert index.page(tokyo.page_id).ancestors == ("501", "502")
        assert {r.status for r in attachment_rows(settings).values()} == {
            "indexed",
            "skipped",
            "ignored",
        }


def test_only_new_versions_are_read_and_deleted_files_leave(tmp_path):
    with travel_wiki(cloud=True) as fake:
        settings = sync_settings(tmp_path, fake, CONFBOT_SYNC_LISTING_INTERVAL="1d")
        index = EvidenceIndex(settings, HashEmbedder())
        run_sync(settings, index, "HR")
        read = len(downloads(fake))

        again = run_sync(settings, index, "HR")
        assert len(downloads(fake)) == read  # listed again (the overlap window), not read
        assert (again.attachments.indexed, again.attachments.unchanged) == (0, 7)

        fake.attach(
            "501",
            "handbook.pdf",
            pdf_bytes([["The nightly hotel cap in Berlin is 210 euros."]]),
            PDF,
        )
        update = run_sync(settings, index, "HR")  # found by the attachment change search
        assert update.attachments.indexed == 1
        assert downloads(fake)[read:] == ["/wiki/download/attachments/501/handbook.pdf"]
        assert "210 euros" in found(index, "nightly hotel cap Berlin")[0].text
        assert not any("180 euros" in e.text for e in found(index, "180 euros Berlin"))

        fake.detach("502", "costs.xlsx")
        listed = sync_settings(tmp_path, fake, CONFBOT_SYNC_LISTING_INTERVAL="0")
        assert run_sync(listed, index, "HR").attachments.deleted == 1  # seen by the listing
        assert not any("Tokyo" in e.text for e in found(index, "Tokyo per diem"))
        assert "costs.xlsx" not in attachment_rows(settings)

        fake.delete("501")
        report = run_sync(listed, index, "HR")
        assert report.deleted == 1 and report.attachments.deleted == 1
        left = [index.page(p) for p in index.page_ids() if is_attachment_key(p)]
        assert [p.title for p in left] == ["big.pdf (attached to Expenses)"]  # 502's own
        assert not any(r.page_id == "501" for r in attachment_rows(settings).values())


def test_attachments_of_restricted_pages_are_not_indexed(tmp_path):
    with travel_wiki(cloud=False) as fake:
        settings = sync_settings(tmp_path, fake)
        index = EvidenceIndex(settings, HashEmbedder())
        run_sync(settings, index, "HR")
        assert found(index, "Tokyo per diem")[0].title.startswith("costs.xlsx")

        fake.restrict("502")
        fake.edit("502")
        run_sync(settings, index, "HR")
        assert not any("Tokyo" in e.text for e in found(index, "Tokyo per diem"))
        assert all(r.page_id == "501" for r in attachment_rows(settings).values())


def test_an_answer_cites_the_attachment_and_forgets_it_once_deleted(environ, capsys):
    folder = environ / "wiki"
    files = folder / "attachments" / "5001"
    files.mkdir(parents=True)
    page = {
        "id": "5001",
        "title": "Travel policy",
        "url": "https://wiki.example.com/spaces/HR/pages/5001/Travel",
        "space": "HR",
        "date": "2024-11-15",
        "content": "<p>See the attached files for travel rules.</p>",
    }
    (folder / "travel.json").write_text(json.dumps(page), encoding="utf-8")
    (files / "costs.xlsx").write_bytes(
        xlsx_bytes(
            {"Per diem": [["City", "Per diem"], ["Paris", "75 euros"], ["Tokyo", "9000 yen"]]}
        )
    )
    (files / "broken.pdf").write_bytes(b"%PDF-1.4 nothing")
    (files / "data.json").write_text('{"not": "a page"}', encoding="utf-8")  # a file, not a page

    assert main(["sync", "--source", "files", "--path", str(folder)]) == 0
    out, err = capsys.readouterr()
    assert "attachments: 1 indexed, 0 deleted, 1 skipped" in out
    assert "1 of types not read" in out and "data.json" not in err
    assert "attachment not indexed: broken.pdf: broken PDF" in out

    assert main(["ask", "What is the per diem in Tokyo?"]) == 0
    out, _ = capsys.readouterr()
    assert "9000 yen" in out
    assert "costs.xlsx (attached to Travel policy)" in out
    assert (files / "costs.xlsx").resolve().as_uri() in out

    (files / "costs.xlsx").unlink()
    assert main(["sync", "--source", "files", "--path", str(folder)]) == 0
    assert "attachments: 0 indexed, 1 deleted" in capsys.readouterr().out
    assert main(["ask", "What is the per diem in Tokyo?"]) == 0
    out, _ = capsys.readouterr()
    assert "9000 yen" not in out and "costs.xlsx" not in out


def test_a_stored_report_reads_back_with_its_attachment_counts():
    report = SyncReport("HR", added=1)
    report.attachments.indexed, report.attachments.problems = 2, [("a.pdf", "broken PDF")]
    stored = json.loads(json.dumps(dataclasses.asdict(report)))
    again = SyncReport(**stored)
    assert again.summary() == report.summary()
    assert "attachments: 2 indexed" in again.summary()


def test_a_file_that_cannot_be_indexed_fails_alone_and_is_read_again(tmp_path):
    with FakeConfluence([FakePage("501", "HR", "Travel", "<p>Files.</p>")], cloud=True) as fake:
        fake.attach("501", "good.csv", b"city,amount\nParis,75 euros\n")
        fake.attach("501", "bad.csv", b"city,amount\nPOISON,1\n")
        settings = sync_settings(tmp_path, fake)
        index = EvidenceIndex(settings, PoisonEmbedder())
        report = run_sync(settings, index, "HR")
        assert (report.attachments.indexed, report.attachments.failed) == (1, 1)
        assert attachment_rows(settings)["bad.csv"].status == "failed"
        assert any("75 euros" in e.text for e in found(index, "Paris amount"))

        fake.attach("501", "bad.csv", b"city,amount\nRome,60 euros\n")
        again = run_sync(settings, index, "HR")
        assert (again.attachments.indexed, again.attachments.failed) == (1, 0)
        assert attachment_rows(settings)["bad.csv"].status == "indexed"
