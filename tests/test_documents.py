"""Attached files → HTML parts → evidences, with real files written by their libraries."""

from __future__ import annotations

import pytest

from core.contextualize import page_evidences
from core.documents import (
    MAX_PARTS,
    PART_UNITS,
    DocumentError,
    document_kind,
    read_document,
)
from core.pages import Page
from tests.fakes.documents import docx_bytes, encrypted_pdf, pdf_bytes, pptx_bytes, xlsx_bytes


def evidences(name: str, data: bytes) -> list:
    """Every evidence of every part of a file, as the index would get them."""
    document = read_document(name, data)
    out = []
    for n, body in enumerate(document.parts):
        page = Page(id=f"f{n}", space="S", title=name, url="", body=body, body_format="view")
        out.extend(page_evidences(page)[0])
    return out


@pytest.mark.parametrize(
    ("name", "media_type", "kind"),
    [
        ("Report.PDF", "", "pdf"),
        ("notes.docx", "application/octet-stream", "docx"),
        ("budget.xlsx", "", "xlsx"),
        ("deck.pptx", "", "pptx"),
        ("readme.md", "", "markdown"),
        ("data.csv", "", "csv"),
        ("log.txt", "", "text"),
        ("download", "application/pdf", "pdf"),
        ("photo.png", "image/png", None),
        ("archive.zip", "application/zip", None),
    ],
)
def test_document_kind(name, media_type, kind):
    assert document_kind(name, media_type) == kind


def test_pdf_pages_become_headed_passages():
    data = pdf_bytes(
        [["Travel handbook", "Economy class is required below six hours."], ["Hotels: 180 EUR."]]
    )
    found = evidences("handbook.pdf", data)
    assert [(e.heading, e.text) for e in found] == [
        ("Page 1", "Travel handbook Economy class is required below six hours."),
        ("Page 2", "Hotels: 180 EUR."),
    ]


def test_docx_keeps_headings_paragraphs_and_table_rows():
    data = docx_bytes(
        "Onboarding",
        [("Accounts", ["Ask IT for a laptop on day one."]), ("Contacts", ["See the table."])],
        table=[["Name", "Role"], ["Ann Lee", "Buddy"], ["Bo Chen", "Manager"]],
    )
    found = evidences("onboarding.docx", data)
    passages = [(e.heading, e.text) for e in found if e.kind == "passage"]
    assert ("Onboarding > Accounts", "Ask IT for a laptop on day one.") in passages
    rows = [e for e in found if e.kind == "row"]
    assert [e.heading for e in rows] == ["Onboarding > Contacts"] * 2
    assert "Ann Lee" in rows[0].text and "Buddy" in rows[0].text and "Role" in rows[0].text


def test_xlsx_sheets_are_tables_with_their_header():
    data = xlsx_bytes(
        {
            "Per diem": [["City", "Amount"], ["Paris", 75.0], [None, None], ["Tokyo", "9000 yen"]],
            "Mileage": [["Vehicle", "Rate"], ["Car", 0.3]],
        }
    )
    found = evidences("costs.xlsx", data)
    rows = [(e.heading, e.text) for e in found if e.kind == "row"]
    assert [h for h, _ in rows] == ["Sheet Per diem", "Sheet Per diem", "Sheet Mileage"]
    assert "Paris" in rows[0][1] and "75" in rows[0][1] and "75.0" not in rows[0][1]
    assert "Amount" in rows[1][1] and "9000 yen" in rows[1][1]


def test_pptx_slides_and_notes():
    data = pptx_bytes(
        [("Roadmap", ["Q1: search", "Q2: attachments"]), ("Risks", ["Hiring"])],
        notes="Budget is frozen until May.",
    )
    found = evidences("plan.pptx", data)
    by_heading = {e.heading: e.text for e in found}
    assert by_heading["Slide 1: Roadmap"] == "Q1: search\nQ2: attachments"
    assert "Budget is frozen until May." in by_heading["Slide 2: Risks"]


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("a.csv", b"city;amount\nParis;75\nTokyo;90\n", [("", "row", "Tokyo")]),
        (
            "a.md",
            b"# Setup\n\nRun make.\n\n## Tests\nRun pytest.\n",
            [("Setup > Tests", "passage", "pytest")],
        ),
        (
            "a.txt",
            "Caf\xe9 opens at 8.\n\nClosed on Sunday.".encode("cp1252"),
            [("", "passage", "Café")],
        ),
    ],
)
def test_text_formats(name, data, expected):
    found = evidences(name, data)
    for heading, kind, word in expected:
        assert any(e.heading == heading and e.kind == kind and word in e.text for e in found)


def test_a_200_page_pdf_is_read_whole_in_parts():
    pages = [
        [f"Section {n}: the retention period of record type {n} is {n + 3} years."]
        for n in range(200)
    ]
    document = read_document("big.pdf", pdf_bytes(pages))
    assert document.pages == 200 and len(document.parts) > 1
    found = evidences("big.pdf", pdf_bytes(pages))
    assert sorted(int(e.heading.split()[1]) for e in found) == list(range(1, 201))
    assert any("record type 199 is 202 years" in e.text for e in found)


def test_a_huge_sheet_is_cut_at_the_part_limit_with_a_warning():
    rows = [["Id", "Value"]] + [[str(n), f"v{n}"] for n in range(PART_UNITS * (MAX_PARTS + 2))]
    document = read_document("huge.csv", "\n".join(",".join(r) for r in rows).encode())
    assert len(document.parts) == MAX_PARTS
    assert "cut after" in document.warnings[0]


@pytest.mark.parametrize(
    ("name", "data", "kind"),
    [
        ("broken.pdf", b"%PDF-1.4\nthis is not a PDF", "broken"),
        ("cut.pdf", pdf_bytes([["Some text."]])[:150], "broken"),
        ("locked.pdf", encrypted_pdf([["Secret salary table."]]), "encrypted"),
        ("scan.pdf", pdf_bytes([[], []]), "no_text"),
        ("broken.docx", b"PK\x03\x04 not a zip", "broken"),
        ("broken.xlsx", b"not a workbook", "broken"),
        ("broken.pptx", b"", "broken"),
        ("photo.png", b"\x89PNG", "unsupported"),
    ],
)
def test_unreadable_files_say_why(name, data, kind):
    with pytest.raises(DocumentError) as caught:
        read_document(name, data)
    assert caught.value.kind == kind


def test_pages_without_text_are_reported_when_others_have_some():
    document = read_document("mixed.pdf", pdf_bytes([["Text."], [], ["More."]]))
    assert document.warnings == ["1 of 3 PDF pages have no text layer and were skipped"]
