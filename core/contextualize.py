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
- A heading with nothing under it before the next heading of its level or higher (or the
  page end), and a heading too long to be context (`MAX_NAME_CHARS`), is also an evidence
  of its own (a passage), so its text is not lost.
- Every evidence is bounded (`core.limits`): passages, lists, tables and rows longer than
  `MAX_EVIDENCE_WORDS` are split at line breaks (list items, table rows), then at
  sentence ends, then every `MAX_EVIDENCE_WORDS` words; a table split in parts repeats its
  header in each. Names repeated on many evidences (title, headings, column names) are cut
  to `MAX_NAME_CHARS`. A page yields at most `MAX_PAGE_EVIDENCES` evidences and
  `MAX_PAGE_EMBED_UNITS` units of embedding work; the rest is left out with a warning.
- `contextualized` is title, heading, before, text and after, one a line, leaving out the
  parts that are switched off or empty.
"""

from __future__ import annotations

import dataclasses
import html
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from core.extract import Block, extract
from core.limits import (
    MAX_EVIDENCE_WORDS,
    MAX_NAME_CHARS,
    MAX_PAGE_EMBED_UNITS,
    MAX_PAGE_EVIDENCES,
    MAX_WORD_CHARS,
    embed_units,
    split_long_words,
)
from core.pages import Evidence, EvidenceKind, Page
from core.settings import Settings

LINEARIZERS = ("verbalized", "piped", "markdown", "html", "plain")
INDEXING_MODES = ("rows", "tables", "both")


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
    """Extract a page's body and cut it into evidences: (evidences, warnings of the
    extraction and of the limits applied)."""
    extraction = extract(page.body, page.body_format)
    warnings = list(extraction.warnings)
    return contextualize(page, extraction.blocks, options, warnings), warnings


def contextualize(
    page: Page,
    blocks: Sequence[Block],
    options: ContextOptions = ContextOptions(),
    warnings: list[str] | None = None,
) -> list[Evidence]:
    """The evidences of a page's blocks, in page order, ids `{page.id}#{position:04d}`;
    at most `MAX_PAGE_EVIDENCES`, of `MAX_PAGE_EMBED_UNITS` units of embedding work in all (a longer
    page is cut, and `warnings` say so)."""
    units = list(itertools.islice(_units(blocks, options.linearizer), MAX_PAGE_EVIDENCES + 1))
    title = _name(page.title)
    evidences: list[Evidence] = []
    embedded = 0  # embedding work the page asks for
    for i, unit in enumerate(units):
        before = _last_words(units[i - 1].texts[-1], options.words) if i > 0 else ""
        after = _first_words(units[i + 1].texts[0], options.words) if i + 1 < len(units) else ""
        parts = []
        if unit.kind != "table" or options.indexing_mode != "rows":
            parts.extend((unit.kind, text, unit.metadata) for text in unit.texts)
        if unit.kind == "table" and options.indexing_mode != "tables":
            parts.extend(("row", text, metadata) for text, metadata in unit.rows)
        for kind, text, metadata in parts:
            embedded += embed_units("\n".join(p for p in (title, unit.heading, text) if p))
            if len(evidences) == MAX_PAGE_EVIDENCES or embedded > MAX_PAGE_EMBED_UNITS:
                if warnings is not None:
                    warnings.append(
                        f"the page was cut after {len(evidences)} evidences (at most"
                        f" {MAX_PAGE_EVIDENCES}, of {MAX_PAGE_EMBED_UNITS} units of embedding"
                        f" work in all), under {unit.heading or 'its start'!r}; the rest is"
                        " not indexed"
                    )
                return evidences
            position = len(evidences)
            evidence = Evidence(
                id=f"{page.id}#{position:04d}",
                page_id=page.id,
                space=page.space,
                url=page.url,
                title=title,
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
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    style: str,
    table_number: int,
    first_row: int = 1,
) -> str:
    """A table as text in one of the `LINEARIZERS` styles (`first_row` numbers the first
    of `rows` when they are a part of a longer table).

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
    head = [[_name(h) for h in header] + [""] * (width - len(header))] if has_header else []
    if style == "verbalized":
        lines = [f"Table {table_number}: {', '.join(names)}"]
        lines += [
            verbalize_row(header, row, i, table_number) for i, row in enumerate(rows, first_row)
        ]
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
    """A passage or list chunk, or a table (one text per part), with its heading; a table
    also carries its rows, each with its metadata."""

    kind: EvidenceKind
    texts: list[str]
    heading: str
    metadata: dict
    rows: list[tuple[str, dict]] = dataclasses.field(default_factory=list)


def _units(blocks: Sequence[Block], linearizer: str) -> Iterator[_Unit]:
    """The units of a page in order, made as they are asked for (a page is cut after
    `MAX_PAGE_EVIDENCES`, so the rest is never built)."""
    path: list[tuple[int, str, bool]] = []  # (level, text, whether anything sits under it)
    tables = 0

    def heading_path(extra: str = "") -> str:
        return " > ".join([_name(text) for _, text, _ in path] + ([_name(extra)] if extra else []))

    def close(level: int) -> Iterator[_Unit]:
        """Pop the headings of `level` or deeper; one that held nothing becomes a unit."""
        while path and path[-1][0] >= level:
            _, text, filled = path.pop()
            if not filled or len(text) > MAX_NAME_CHARS:
                for chunk in _chunks(text):
                    yield _Unit("passage", [chunk], heading_path(), {})
                path[:] = [(lv, t, True) for lv, t, _ in path]

    for block in blocks:
        if block.kind == "heading":
            yield from close(block.level)
            path.append((block.level, block.text, False))
            continue
        path[:] = [(level, text, True) for level, text, _ in path]
        heading = heading_path(block.title)
        if block.kind == "passage":
            metadata = {"language": block.language} if block.language else {}
            for chunk in _chunks(block.text):
                yield _Unit("passage", [chunk], heading, metadata)
        elif block.kind == "list":
            depth = max((item.depth for item in block.items), default=0)
            for chunk in _chunks(block.text):
                yield _Unit("list", [chunk], heading, {"depth_max": depth})
        else:
            tables += 1
            yield _table_unit(block, linearizer, tables, heading)
    yield from close(0)


def _table_unit(block: Block, style: str, number: int, heading: str) -> _Unit:
    """A table as a unit: its linearized parts of at most `MAX_EVIDENCE_WORDS` words (the
    header repeated in each) and its rows, built only while the page can hold them."""
    header_words = len(linearize_table(block.header, [], style, number).split())
    texts: list[str] = []
    rows: list[tuple[str, dict]] = []
    part: list[tuple[str, ...]] = []
    first, words = 1, header_words
    for row_number, row in enumerate(block.rows, 1):
        if style == "verbalized":
            text = verbalize_row(block.header, row, row_number, number)
            size = len(text.split())
        else:
            text = linearize_table(block.header, [row], style, number, row_number)
            size = len(text.split()) - header_words
        if row_number <= MAX_PAGE_EVIDENCES:
            rows += [(chunk, {"table": number, "row": row_number}) for chunk in _chunks(text)]
        if part and words + size > MAX_EVIDENCE_WORDS:
            texts += _chunks(linearize_table(block.header, part, style, number, first))
            part, first, words = [], row_number, header_words
            if len(texts) > MAX_PAGE_EVIDENCES:
                break
        part.append(row)
        words += size
    if part or not texts:
        texts += _chunks(linearize_table(block.header, part, style, number, first))
    metadata = {"table": number} if len(texts) == 1 else {"table": number, "parts": len(texts)}
    return _Unit("table", texts, heading, metadata, rows)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _chunks(text: str, limit: int = MAX_EVIDENCE_WORDS) -> list[str]:
    """`text` cut into pieces of at most `limit` words, at line breaks where possible,
    else at sentence ends, else every `limit` words; runs of more than `MAX_WORD_CHARS`
    characters without a space count as several words."""
    words = text.split()
    if any(len(w) > MAX_WORD_CHARS for w in words):
        text = "\n".join(" ".join(split_long_words(line.split())) for line in text.split("\n"))
        words = text.split()
    if len(words) <= limit:
        return [text] if text.strip() else []
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


def _name(text: str) -> str:
    """A name repeated on many evidences (title, heading, column), cut to `MAX_NAME_CHARS`."""
    return text if len(text) <= MAX_NAME_CHARS else text[: MAX_NAME_CHARS - 1] + "…"


def _last_words(text: str, words: int) -> str:
    return " ".join(text.split()[-words:]) if words > 0 else ""


def _first_words(text: str, words: int) -> str:
    return " ".join(text.split()[:words]) if words > 0 else ""


def _column_names(header: Sequence[str], width: int) -> list[str]:
    padded = list(header) + [""] * (width - len(header))
    return [_name(name.strip()) or f"Column {i}" for i, name in enumerate(padded, 1)]


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _html_row(cells: Sequence[str], tag: str) -> str:
    inner = "".join(f"<{tag}>{html.escape(cell, quote=False)}</{tag}>" for cell in cells)
    return f"<tr>{inner}</tr>"
