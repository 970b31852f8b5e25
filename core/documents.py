"""Attached files → HTML bodies that the page extractor reads (`body_format="view"`).

A PDF, Word document, spreadsheet, slide deck, text, Markdown or CSV file becomes HTML with
the structure the file has: headings (a PDF page's number, a Word heading, a sheet's name,
a slide's number and title), paragraphs, lists and tables with a header row. From there
`core.extract` and `core.contextualize` cut it into evidences exactly as they do a page, so
a spreadsheet row is a row evidence with its column names, like a row of a wiki table.

A long file is cut into parts, each indexed as a page of its own (a page yields at most
`MAX_PAGE_EVIDENCES` evidences and reads at most `MAX_READ_WORDS` words): parts hold whole
sections (a PDF page, a slide, a Word section, up to `TABLE_ROWS_PER_SECTION` rows of a
sheet with its header repeated) up to `PART_UNITS` evidences or `PART_WORDS` words, and
at most `MAX_PARTS` parts are kept (a warning says what was left out).

Files that cannot be read raise `DocumentError` with a reason a person can act on: broken
(the library cannot parse it), encrypted (a password is needed), no text (a PDF of scanned
images without a text layer: OCR is not done), unsupported (a type we do not read).

Libraries: pypdf (PDF), python-docx (DOCX), openpyxl (XLSX, read-only streaming mode),
python-pptx (PPTX); CSV and text with the standard library.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from core.limits import MAX_PAGE_EVIDENCES, MAX_READ_WORDS

KINDS = ("pdf", "docx", "xlsx", "pptx", "text", "markdown", "csv")

EXTENSIONS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".pptx": "pptx",
    ".txt": "text",
    ".text": "text",
    ".log": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".csv": "csv",
}
"""File name extension → kind; the extension decides when it is known, since Confluence
often reports `application/octet-stream` for Office files."""

MEDIA_TYPES = {
    "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    "text/plain": "text",
    "text/markdown": "markdown",
    "text/csv": "csv",
}

TABLE_ROWS_PER_SECTION = 100
"""Rows of a sheet or CSV per section (each section repeats the header row)."""

PART_UNITS = MAX_PAGE_EVIDENCES * 3 // 4
"""Estimated evidences per part: under a page's `MAX_PAGE_EVIDENCES` with room to spare,
since a row yields a row evidence and a share of its table's."""

PART_WORDS = MAX_READ_WORDS * 3 // 5
"""Words per part: under the `MAX_READ_WORDS` the extractor reads of one page."""

MAX_PARTS = 100
"""Most parts one file yields (about 15,000 evidences); the rest is left out with a warning."""

_WORD = re.compile(r"\S+")


class DocumentError(ValueError):
    """A file that cannot be read; `kind` is one of broken, encrypted, no_text, unsupported."""

    def __init__(self, reason: str, kind: str):
        super().__init__(reason)
        self.kind = kind


@dataclass(frozen=True)
class Section:
    """A run of a file's content that stays in one part: its HTML, its estimated number of
    evidences and its words."""

    html: str
    units: int
    words: int


@dataclass
class Document:
    """A file read: its HTML parts (each indexed as a page), the number of source pages,
    sheets or slides read, and what was left out or could not be read."""

    parts: list[str]
    pages: int = 0
    warnings: list[str] = field(default_factory=list)


def document_kind(name: str, media_type: str = "") -> str | None:
    """The kind of a file (one of `KINDS`) from its name, else its media type; None when
    it is not one we read."""
    kind = EXTENSIONS.get(PurePosixPath(name.lower()).suffix)
    if kind is None:
        kind = MEDIA_TYPES.get(media_type.split(";")[0].strip().lower())
    return kind


def read_document(name: str, data: bytes, media_type: str = "") -> Document:
    """Read a file into HTML parts; raises `DocumentError` when it cannot be read."""
    kind = document_kind(name, media_type)
    if kind is None:
        raise DocumentError(f"{name}: files of this type are not read", "unsupported")
    warnings: list[str] = []
    if kind == "pdf":
        sections, pages = _pdf_sections(data, warnings)
    elif kind == "docx":
        sections, pages = _docx_sections(data), 1
    elif kind == "xlsx":
        sections, pages = _xlsx_sections(data)
    elif kind == "pptx":
        sections, pages = _pptx_sections(data)
    elif kind == "csv":
        sections, pages = _csv_sections(_decode(data)), 1
    elif kind == "markdown":
        sections, pages = _text_sections(_decode(data), markdown=True), 1
    else:
        sections, pages = _text_sections(_decode(data), markdown=False), 1
    return Document(parts=_pack(sections, warnings), pages=pages, warnings=warnings)


# ---------------------------------------------------------------------- packing
def _pack(sections: Iterable[Section], warnings: list[str]) -> list[str]:
    """Group sections into parts of at most `PART_UNITS` evidences and `PART_WORDS` words
    (a section larger than that is a part of its own), at most `MAX_PARTS` parts."""
    parts: list[str] = []
    current: list[str] = []
    units = words = 0
    dropped = 0
    for section in sections:
        if current and (units + section.units > PART_UNITS or words + section.words > PART_WORDS):
            parts.append("".join(current))
            current, units, words = [], 0, 0
        if len(parts) == MAX_PARTS:
            dropped += 1
            continue
        current.append(section.html)
        units += section.units
        words += section.words
    if current and len(parts) < MAX_PARTS:
        parts.append("".join(current))
    if dropped:
        warnings.append(
            f"the file was cut after {MAX_PARTS} parts; {dropped} more section(s) are not indexed"
        )
    return parts


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _paragraphs(text: str) -> list[str]:
    """Paragraphs of plain text: blank lines separate them; lines within one are joined."""
    blocks = re.split(r"\n\s*\n", text.replace("\r\n", "\n").replace("\r", "\n"))
    return [" ".join(b.split()) for b in blocks if b.strip()]


def _prose_section(heading: str, paragraphs: Sequence[str], level: int = 2) -> Section:
    """A heading and paragraphs; about one evidence per 150 words."""
    body = "".join(f"<p>{_esc(p)}</p>" for p in paragraphs)
    words = sum(_words(p) for p in paragraphs)
    head = f"<h{level}>{_esc(heading)}</h{level}>" if heading else ""
    return Section(head + body, units=1 + words // 150, words=words + _words(heading))


def _table_sections(
    heading: str, rows: Iterable[Sequence[str]], level: int = 2
) -> Iterator[Section]:
    """A table under a heading, `TABLE_ROWS_PER_SECTION` rows per section, the first
    non-empty row as header (repeated in every section); empty rows and trailing empty
    columns are dropped."""
    header: list[str] | None = None
    batch: list[list[str]] = []

    def section() -> Section:
        width = max(len(header or ()), *(len(r) for r in batch)) if batch else len(header or ())
        head_cells = "".join(f"<th>{_esc(c)}</th>" for c in _pad(header or [], width))
        body = "".join(
            "<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in _pad(r, width)) + "</tr>" for r in batch
        )
        words = sum(_words(c) for r in batch for c in r) + sum(_words(c) for c in header or ())
        title = f"<h{level}>{_esc(heading)}</h{level}>" if heading else ""
        return Section(
            f"{title}<table><thead><tr>{head_cells}</tr></thead><tbody>{body}</tbody></table>",
            units=len(batch) + 1 + words // 200,
            words=words + _words(heading),
        )

    for raw in rows:
        row = [" ".join(str(c).split()) if c is not None else "" for c in raw]
        while row and not row[-1]:
            row.pop()
        if not row:
            continue
        if header is None:
            header = row
            continue
        batch.append(row)
        if len(batch) == TABLE_ROWS_PER_SECTION:
            yield section()
            batch = []
    if batch or header is not None:
        yield section()


def _pad(row: Sequence[str], width: int) -> list[str]:
    return list(row) + [""] * (width - len(row))


def _decode(data: bytes) -> str:
    """Text of a file: UTF-8 (with or without a byte order mark), else Windows-1252."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


# ---------------------------------------------------------------------- formats
def _pdf_sections(data: bytes, warnings: list[str]) -> tuple[list[Section], int]:
    """One section per PDF page with text, headed "Page N". An encrypted file is opened
    with the empty password (files that only forbid editing); otherwise it is reported.
    A file where no page has text is a scan without a text layer and is reported."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError, PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except (DependencyError, NotImplementedError) as exc:
                reason = f"encrypted PDF that cannot be opened: {exc}"
                raise DocumentError(reason, "encrypted") from None
            if not opened:
                raise DocumentError("password-protected PDF: a password is needed", "encrypted")
        sections: list[Section] = []
        blank = 0
        count = len(reader.pages)
        for number, page in enumerate(reader.pages, start=1):
            text = page.extract_text() or ""
            paragraphs = _paragraphs(text)
            if not paragraphs:
                blank += 1
                continue
            sections.append(_prose_section(f"Page {number}", paragraphs))
    except DocumentError:
        raise
    except FileNotDecryptedError as exc:
        raise DocumentError(f"password-protected PDF: {exc}", "encrypted") from None
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise DocumentError(f"broken PDF: {type(exc).__name__}: {exc}", "broken") from None
    if count and not sections:
        raise DocumentError(
            f"no text layer in any of its {count} page(s) (a scan? OCR is not done)", "no_text"
        )
    if blank:
        warnings.append(f"{blank} of {count} PDF pages have no text layer and were skipped")
    return sections, count


def _docx_sections(data: bytes) -> list[Section]:
    """A Word document in order: headings (styles "Title", "Heading N"), paragraphs, list
    paragraphs as list items, tables with their first row as header. A section ends at each
    heading."""
    import docx
    from docx.table import Table

    try:
        document = docx.Document(io.BytesIO(data))
        content = list(document.iter_inner_content())
        # Style names by id, read once: `Paragraph.style` looks the default style up again
        # for every paragraph (13 s of 14 for 3,700 paragraphs).
        names = {style.style_id: style.name or "" for style in document.styles}
    except Exception as exc:  # python-docx raises zipfile, lxml and its own errors
        raise DocumentError(f"broken DOCX: {type(exc).__name__}: {exc}", "broken") from None
    sections: list[Section] = []
    current: list[str] = []
    units = words = 0
    items: list[str] = []

    def close_list() -> None:
        nonlocal units
        if items:
            current.append("<ul>" + "".join(f"<li>{_esc(i)}</li>" for i in items) + "</ul>")
            units += 1
            items.clear()

    def close_section() -> None:
        nonlocal units, words
        close_list()
        if current:
            sections.append(Section("".join(current), max(units, 1), words))
        current.clear()
        units = words = 0

    for block in content:
        if isinstance(block, Table):
            close_list()
            for table in _table_sections("", _docx_rows(block)):
                current.append(table.html)
                units += table.units
                words += table.words
            continue
        text = " ".join(block.text.split())
        if not text:
            continue
        style = names.get(block._p.style or "", "")
        level = _heading_level(style)
        if level:
            close_section()
            current.append(f"<h{level}>{_esc(text)}</h{level}>")
            words += _words(text)
        elif style.lower().startswith("list"):
            items.append(text)
            words += _words(text)
        else:
            close_list()
            current.append(f"<p>{_esc(text)}</p>")
            units += 1 + _words(text) // 150
            words += _words(text)
    close_section()
    return sections


def _heading_level(style: str) -> int:
    """1 for Word's "Title" style, N + 1 (at most 6) for "Heading N" (so headings nest
    under the title), 0 for other styles."""
    if style == "Title":
        return 1
    match = re.fullmatch(r"Heading (\d)", style)
    return min(int(match.group(1)) + 1, 6) if match else 0


def _docx_rows(table) -> Iterator[list[str]]:
    """A Word table's rows as text, read from its XML (`w:tr`, `w:tc`, `w:t`): python-docx's
    `row.cells` lays out the whole grid for every row, which took 5.8 s for a 300-row table
    (benchmarks/attachment_extraction.py). A merged cell is one cell here."""
    from docx.oxml.ns import qn

    for tr in table._tbl.iter(qn("w:tr")):
        yield [
            " ".join("".join(t.text or "" for t in tc.iter(qn("w:t"))).split())
            for tc in tr.iter(qn("w:tc"))
        ]


def _xlsx_sections(data: bytes) -> tuple[list[Section], int]:
    """Each worksheet a table headed by the sheet's name; cached values of formulas."""
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises zipfile, KeyError and its own errors
        raise DocumentError(f"broken XLSX: {type(exc).__name__}: {exc}", "broken") from None
    try:
        sections: list[Section] = []
        for sheet in book.worksheets:
            rows = (
                ["" if v is None else _cell_text(v) for v in row]
                for row in sheet.iter_rows(values_only=True)
            )
            sections.extend(_table_sections(f"Sheet {sheet.title}", rows))
        return sections, len(book.worksheets)
    finally:
        book.close()


def _cell_text(value) -> str:
    """A spreadsheet cell as people read it (whole floats without ".0")."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _pptx_sections(data: bytes) -> tuple[list[Section], int]:
    """One section per slide, headed "Slide N: title": its text frames as paragraphs, its
    tables as tables, its speaker notes last."""
    from pptx import Presentation

    try:
        deck = Presentation(io.BytesIO(data))
        slides = list(deck.slides)
    except Exception as exc:  # python-pptx raises zipfile, lxml and its own errors
        raise DocumentError(f"broken PPTX: {type(exc).__name__}: {exc}", "broken") from None
    sections = []
    for number, slide in enumerate(slides, start=1):
        title_shape = slide.shapes.title
        title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
        parts: list[str] = []
        units = words = 0
        for shape in slide.shapes:
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            if shape.has_text_frame:
                for paragraph in shape.text_frame.paragraphs:
                    text = " ".join("".join(r.text for r in paragraph.runs).split())
                    if text:
                        parts.append(f"<p>{_esc(text)}</p>")
                        words += _words(text)
            elif getattr(shape, "has_table", False) and shape.has_table:
                rows = ([cell.text for cell in row.cells] for row in shape.table.rows)
                for table in _table_sections("", rows):
                    parts.append(table.html)
                    units += table.units
                    words += table.words
        if slide.has_notes_slide:
            notes = " ".join(slide.notes_slide.notes_text_frame.text.split())
            if notes:
                parts.append(f"<p>Notes: {_esc(notes)}</p>")
                words += _words(notes)
        if not parts and not title:
            continue
        heading = f"Slide {number}: {title}" if title else f"Slide {number}"
        sections.append(
            Section(f"<h2>{_esc(heading)}</h2>" + "".join(parts), units + 1 + words // 150, words)
        )
    return sections, len(slides)


def _csv_sections(text: str) -> list[Section]:
    """A CSV file as one table (delimiter sniffed from its start: , ; tab or |)."""
    sample = text[:20000]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, ",;\t|")
    except csv.Error:
        dialect = csv.excel
    return list(_table_sections("", csv.reader(io.StringIO(text), dialect)))


_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def _text_sections(text: str, markdown: bool) -> list[Section]:
    """Plain text as paragraphs (blank lines between them); Markdown also gets its `#`
    headings, each starting a section."""
    if not markdown:
        return [_prose_section("", _paragraphs(text))] if text.strip() else []
    sections = []
    heading, level, lines = "", 2, []
    for line in text.splitlines():
        match = _MD_HEADING.match(line)
        if match:
            if heading or "".join(lines).strip():
                sections.append(_prose_section(heading, _paragraphs("\n".join(lines)), level))
            heading, level, lines = match.group(2), len(match.group(1)), []
        else:
            lines.append(line)
    if heading or "".join(lines).strip():
        sections.append(_prose_section(heading, _paragraphs("\n".join(lines)), level))
    return sections
