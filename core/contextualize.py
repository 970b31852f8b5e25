"""Blocks → evidences: the retrievable units of a page, each with its context.

Each passage and each list is one evidence; each table is one evidence and each of its
body rows another (which of them are kept depends on the indexing mode). Headings are not
evidences: they become the `heading` context of what follows them.

Decisions a reader should know:
- `heading` is the path of enclosing headings, "Parent > Child" (a heading closes every
  open heading of its level or deeper), followed by the title of the expand/panel/code
  macro the block sits in, if any.
- `before`/`after` are the neighbouring units in page order: passages, lists and whole
  tables (linearized), whether or not whole tables are indexed, so a passage's context
  does not change with the indexing mode. A table and each of its rows share the
  table's neighbours. `before` keeps the neighbour's last `words` words, `after` its first.
- Passages longer than `MAX_PASSAGE_WORDS` are split at line breaks, then at sentence
  ends, then (for one overlong sentence) every `MAX_PASSAGE_WORDS` words.
- `contextualized` is title, heading, before, text and after, one a line, leaving out the
  parts that are switched off or empty.
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.extract import Block, extract
from core.pages import Evidence, EvidenceKind, Page
from core.settings import Settings

LINEARIZERS = ("verbalized", "piped", "markdown", "html", "plain")
INDEXING_MODES = ("rows", "tables", "both")
# Passages are cut to at most this many words, so that each one, with its context, stays
# inside the 512-token input of the BGE models confbot can use, and keeps one topic.
MAX_PASSAGE_WORDS = 200


@dataclass(frozen=True)
class ContextOptions:
    """Which context goes into an evidence's indexed text, and how tables become text."""

    title: bool = True
    heading: bool = True
    before: bool = True
    after: bool = True
    words: int = 40
    linearizer: str = "verbalized"
    indexing_mode: str = "both"

    def __post_init__(self) -> None:
        if self.linearizer not in LINEARIZERS:
            raise ValueError(
                f"unknown linearizer {self.linearizer!r}; choose one of: {', '.join(LINEARIZERS)}"
            )
        if self.indexing_mode not in INDEXING_MODES:
            raise ValueError(
                f"unknown indexing mode {self.indexing_mode!r}; "
                f"choose one of: {', '.join(INDEXING_MODES)}"
            )

    @classmethod
    def from_settings(cls, settings: Settings) -> ContextOptions:
        """The options named by the `context_*`, `linearizer` and `indexing_mode` settings."""
        return cls(
            title=settings.context_title,
            heading=settings.context_heading,
            before=settings.context_before,
            after=settings.context_after,
            words=settings.context_words,
            linearizer=settings.linearizer,
            indexing_mode=settings.indexing_mode,
        )

    def replace(self, **changes: Any) -> ContextOptions:
        """A copy with some options changed."""
        return dataclasses.replace(self, **changes)


def page_evidences(
    page: Page, options: ContextOptions = ContextOptions()
) -> tuple[list[Evidence], list[str]]:
    """Extract a page's body and cut it into evidences: (evidences, extraction warnings)."""
    extraction = extract(page.body, page.body_format)
    return contextualize(page, extraction.blocks, options), extraction.warnings


def contextualize(
    page: Page, blocks: Sequence[Block], options: ContextOptions = ContextOptions()
) -> list[Evidence]:
    """The evidences of a page's blocks, in page order, ids `{page.id}#{position:04d}`."""
    units = _units(blocks, options.linearizer)
    evidences: list[Evidence] = []
    for i, unit in enumerate(units):
        before = _last_words(units[i - 1].text, options.words) if i > 0 else ""
        after = _first_words(units[i + 1].text, options.words) if i + 1 < len(units) else ""
        parts = []
        if unit.kind != "table" or options.indexing_mode != "rows":
            parts.append((unit.kind, unit.text, unit.metadata))
        if unit.kind == "table" and options.indexing_mode != "tables":
            parts.extend(("row", text, metadata) for text, metadata in unit.rows)
        for kind, text, metadata in parts:
            position = len(evidences)
            evidence = Evidence(
                id=f"{page.id}#{position:04d}",
                page_id=page.id,
                space=page.space,
                url=page.url,
                title=page.title,
                kind=kind,
                position=position,
                text=text,
                heading=unit.heading,
                before=before,
                after=after,
                metadata=dict(metadata),
            )
            evidences.append(
                dataclasses.replace(evidence, contextualized=compose(evidence, options))
            )
    return evidences


def compose(evidence: Evidence, options: ContextOptions) -> str:
    """The indexed text: title, heading, before, text, after, one a line, each context part
    only when enabled and non-empty (neighbours cut to `options.words` words)."""
    parts = [
        evidence.title if options.title else "",
        evidence.heading if options.heading else "",
        _last_words(evidence.before, options.words) if options.before else "",
        evidence.text,
        _first_words(evidence.after, options.words) if options.after else "",
    ]
    return "\n".join(part for part in parts if part)


def linearize_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], style: str, table_number: int
) -> str:
    """A table as text in one of the `LINEARIZERS` styles.

    verbalized: a `Table N: col, col` line, then each row's `verbalize_row` sentence;
    piped: `a | b` lines, the header line first when the table has one;
    markdown: a GitHub table (generic `Column i` names when there is no header);
    html: a minimal `<table>` with a `th` row when there is a header;
    plain: each row's non-empty cells joined by spaces, the header row first when present.
    """
    width = max([len(header), *(len(row) for row in rows)])
    names = _column_names(header, width)
    has_header = any(cell.strip() for cell in header)
    grid = [list(row) + [""] * (width - len(row)) for row in rows]
    head = [list(header) + [""] * (width - len(header))] if has_header else []
    if style == "verbalized":
        lines = [f"Table {table_number}: {', '.join(names)}"]
        lines += [verbalize_row(header, row, i, table_number) for i, row in enumerate(rows, 1)]
    elif style == "piped":
        lines = [" | ".join(row) for row in head + grid]
    elif style == "markdown":
        lines = [_markdown_row(names), _markdown_row(["---"] * width)]
        lines += [_markdown_row(row) for row in grid]
    elif style == "html":
        lines = ["<table>"]
        lines += [_html_row(row, "th") for row in head] + [_html_row(row, "td") for row in grid]
        lines.append("</table>")
    elif style == "plain":
        lines = [" ".join(cell for cell in row if cell) for row in head + grid]
    else:
        raise ValueError(f"unknown linearizer {style!r}; choose one of: {', '.join(LINEARIZERS)}")
    return "\n".join(lines)


def verbalize_row(
    header: Sequence[str], row: Sequence[str], row_number: int, table_number: int
) -> str:
    """One table row as a sentence, `Row 2 in Table 1: Member is Alice, and Task is Search`.

    Pairs "name is value" for the non-empty cells, in column order; two pairs are joined by
    ", and ", three or more by ", " with ", and " before the last. Columns without a name
    are called `Column i` (counted from 1).
    """
    names = _column_names(header, max(len(header), len(row)))
    pairs = [f"{name} is {value}" for name, value in zip(names, row, strict=False) if value.strip()]
    if len(pairs) > 2:
        pairs = [", ".join(pairs[:-1]), pairs[-1]]
    return f"Row {row_number} in Table {table_number}: {', and '.join(pairs)}".rstrip()


# --------------------------------------------------------------------------- helpers


@dataclass
class _Unit:
    """A passage chunk, list or table with its heading; a table also carries its rows."""

    kind: EvidenceKind
    text: str
    heading: str
    metadata: dict
    rows: list[tuple[str, dict]] = dataclasses.field(default_factory=list)


def _units(blocks: Sequence[Block], linearizer: str) -> list[_Unit]:
    units: list[_Unit] = []
    path: list[tuple[int, str]] = []
    tables = 0
    for block in blocks:
        if block.kind == "heading":
            while path and path[-1][0] >= block.level:
                path.pop()
            path.append((block.level, block.text))
            continue
        heading = " > ".join([text for _, text in path] + ([block.title] if block.title else []))
        if block.kind == "passage":
            metadata = {"language": block.language} if block.language else {}
            units += [_Unit("passage", chunk, heading, metadata) for chunk in _chunks(block.text)]
        elif block.kind == "list":
            depth = max((item.depth for item in block.items), default=0)
            units.append(_Unit("list", block.text, heading, {"depth_max": depth}))
        else:
            tables += 1
            table = _Unit(
                "table",
                linearize_table(block.header, block.rows, linearizer, tables),
                heading,
                {"table": tables},
            )
            for number, row in enumerate(block.rows, 1):
                if linearizer == "verbalized":
                    text = verbalize_row(block.header, row, number, tables)
                else:
                    text = linearize_table(block.header, [row], linearizer, tables)
                table.rows.append((text, {"table": tables, "row": number}))
            units.append(table)
    return units


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _chunks(text: str, limit: int = MAX_PASSAGE_WORDS) -> list[str]:
    """`text` cut into pieces of at most `limit` words, at line breaks where possible,
    else at sentence ends, else every `limit` words."""
    if len(text.split()) <= limit:
        return [text]
    pieces: list[tuple[str, str]] = []  # (separator before it, piece)
    for line in text.split("\n"):
        if len(line.split()) <= limit:
            pieces.append(("\n", line))
            continue
        separator = "\n"
        for sentence in _SENTENCE_END.split(line):
            words = sentence.split()
            for start in range(0, len(words), limit):
                pieces.append((separator, " ".join(words[start : start + limit])))
                separator = " "
    chunks: list[str] = []
    current, count = "", 0
    for separator, piece in pieces:
        size = len(piece.split())
        if current and count + size > limit:
            chunks.append(current)
            current, count = piece, size
        else:
            current = current + separator + piece if current else piece
            count += size
    if current.strip():
        chunks.append(current)
    return chunks


def _last_words(text: str, words: int) -> str:
    return " ".join(text.split()[-words:]) if words > 0 else ""


def _first_words(text: str, words: int) -> str:
    return " ".join(text.split()[:words]) if words > 0 else ""


def _column_names(header: Sequence[str], width: int) -> list[str]:
    padded = list(header) + [""] * (width - len(header))
    return [name.strip() or f"Column {i}" for i, name in enumerate(padded, 1)]


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _html_row(cells: Sequence[str], tag: str) -> str:
    inner = "".join(f"<{tag}>{html.escape(cell, quote=False)}</{tag}>" for cell in cells)
    return f"<tr>{inner}</tr>"
