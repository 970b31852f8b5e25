"""Real files for attachment tests and benchmarks, made by the libraries that read them.

PDFs are written here by hand (no PDF-writing library is installed): a minimal valid PDF 1.4
with a Helvetica text layer, one content stream per page, and a correct cross-reference
table; pypdf encrypts them. DOCX, XLSX and PPTX are written by python-docx, openpyxl and
python-pptx.
"""

from __future__ import annotations

import io
from collections.abc import Sequence


def _pdf_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return "(" + escaped.encode("latin-1", "replace").decode("latin-1") + ")"


def pdf_bytes(pages: Sequence[Sequence[str]], padding: int = 0, image: int = 0) -> bytes:
    """A PDF whose pages show these lines (an empty line separates paragraphs); a page with
    no lines has no text layer (as a scanned page). `padding` bytes of an unreferenced
    stream make the file larger without changing its text; `image` bytes of a grey image
    drawn on every page make it larger as scans and figures do."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below, once the page tree's number is known
    tree = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = []
    for number, lines in enumerate(pages):
        ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td"]
        for line in lines:
            ops.append(f"{_pdf_string(line)} Tj T*")
        ops.append("ET")
        if not lines:  # a drawn rectangle, as a scan's image would be: no text
            ops = ["0.5 g", "72 72 468 648 re f"]
        xobjects = b""
        if image:
            side = max(1, int(image**0.5))
            pixels = bytes((number + n) % 256 for n in range(side)) * side
            picture = add(
                b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray"
                b" /BitsPerComponent 8 /Length %d >>\nstream\n"
                % (side, side, len(pixels))
                + pixels
                + b"\nendstream"
            )
            ops += ["q 200 0 0 200 72 72 cm /Im1 Do Q"]
            xobjects = b" /XObject << /Im1 %d 0 R >>" % picture
        stream = "\n".join(ops).encode("latin-1")
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
                b" /Resources << /Font << /F1 %d 0 R >>%s >> >>" % (tree, content, font, xobjects)
            )
        )
    if padding:
        filler = b"%" * padding
        add(b"<< /Length %d >>\nstream\n" % len(filler) + filler + b"\nendstream")
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    refs = " ".join(f"{k} 0 R" for k in kids).encode()
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids))
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root %d 0 R >>\n" % (len(objects) + 1, catalog))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def encrypted_pdf(pages: Sequence[Sequence[str]], password: str = "s3cret") -> bytes:
    """A PDF that opens only with `password` (AES-256, encrypted by pypdf)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(pages))))
    writer.encrypt(user_password=password, owner_password=password, algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_bytes(
    title: str, sections: Sequence[tuple[str, Sequence[str]]], table: Sequence[Sequence[str]] = ()
) -> bytes:
    """A Word document: a title, then (heading, paragraphs) sections, then a table whose
    first row is the header."""
    import docx

    document = docx.Document()
    document.add_heading(title, level=0)
    for heading, paragraphs in sections:
        document.add_heading(heading, level=1)
        for paragraph in paragraphs:
            document.add_paragraph(paragraph)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def xlsx_bytes(sheets: dict[str, Sequence[Sequence[object]]]) -> bytes:
    """A workbook with one sheet per entry (rows of values, the first the header)."""
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def pptx_bytes(slides: Sequence[tuple[str, Sequence[str]]], notes: str = "") -> bytes:
    """A deck of title-and-content slides; `notes` go on the last slide."""
    from pptx import Presentation

    deck = Presentation()
    layout = deck.slide_layouts[1]
    for title, bullets in slides:
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = bullets[0] if bullets else ""
        for bullet in bullets[1:]:
            body.add_paragraph().text = bullet
    if notes and slides:
        deck.slides[-1].notes_slide.notes_text_frame.text = notes
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()
