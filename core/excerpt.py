"""The source excerpt under an answer: the cited row or sentence as the page shows it.

An evidence's text is what the index holds (`core.contextualize`): a table row verbalized
("Row 2 in Table 1: Week is Week 2, Team is Payments, and Secondary is Sophie Brandt"), a
whole table as its `Table 1: Week, Team, …` line and those row sentences, a list as
`- item` lines, a passage as text. Readers should never see that linearized form, so
`excerpt` turns an evidence back into what the page shows:

- a row: a one-row table with its header (the columns the row has values in);
- a whole table: its header and the rows that hold the answer (at most `MAX_ROWS`, in
  table order), else those sharing most words with the question, else its first rows,
  with the count of rows left out;
- a passage or list: the sentence (or list item) that holds the answer, cut to
  `MAX_WORDS` words around the answer, with an ellipsis wherever the page goes on;
- a part of a row or table split for length (no verbalized rows to read): its text,
  without the index's `Table N:` and `Row N in Table T:` labels.

"The answer" inside an evidence is the words of the answer text that the question does
not already say (stems, `core.questions.terms`): for "Who is the secondary on-call for
Payments in week 2?" answered "The secondary on-call for Payments in week 2 is Sophie
Brandt [1].", that is "Sophie Brandt". Those words are marked (`Excerpt.marked`, and the
`marked` pieces of a text), so each surface can show them bold; a sentence the answer
quotes whole, or mostly, is the answer itself and is shown unmarked.

Pure functions of strings: every surface (Slack, the web page, the terminal) renders the
same `Excerpt`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.answer import CITATION
from core.questions import STOPWORDS, TOKEN, terms
from core.spans import row_pairs

MAX_ROWS = 5
"""The most rows of a whole table an excerpt shows."""
MAX_WORDS = 40
"""The longest sentence an excerpt shows whole; a longer one is cut around the answer."""
MAX_CELL_CHARS = 160
"""The longest cell shown; a longer one is cut with an ellipsis."""
WHOLE_SENTENCE = 0.6
"""When the answer's words cover more than this share of a sentence's characters, the
sentence is the answer and nothing in it is marked (a choice of presentation, not tuned)."""
ELLIPSIS = "…"

_ROW = re.compile(r"^Row \d+ in Table \d+:\s*(.*)$")
_TABLE_HEAD = re.compile(r"^Table \d+:\s*(.*)$")
_ROW_LABEL = re.compile(r"^Row \d+ in Table \d+:\s*")
_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?:\[[ x]\]\s+)?")
# A sentence ends at . ! or ? before a capital or digit, not after an ordinal ("24. Mai").
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\b\d\.)(?<!\b\d\d\.)\s+(?=[A-ZÄÖÜ0-9\"'(\[])")


@dataclass(frozen=True)
class Piece:
    """A run of an excerpt's text; `marked` when it is (part of) the answer."""

    text: str
    marked: bool = False


@dataclass(frozen=True)
class Excerpt:
    """An evidence as the page shows it: a table (`header`, with an empty name for a
    column the page does not name; `rows`; the answer's cells in `marked` as (row, column)
    positions; `more_rows` rows left out) or a text (`pieces`, with an ellipsis piece
    where the page goes on)."""

    kind: str  # "table" or "text"
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    marked: frozenset[tuple[int, int]] = frozenset()
    more_rows: int = 0
    pieces: tuple[Piece, ...] = ()


def answer_terms(answer: str, question: str) -> frozenset[str]:
    """The stems of the answer's words that the question does not say (citations left
    out): what to look for, and mark, in an evidence."""
    said = set(terms(question, STOPWORDS))
    return frozenset(t for t in terms(CITATION.sub(" ", answer), STOPWORDS) if t not in said)


def excerpt(text: str, kind: str, answer: str = "", question: str = "") -> Excerpt:
    """The excerpt of an evidence (its `text` and `kind`: row, table, list or passage) for
    an answer to a question: see the module docstring."""
    wanted = answer_terms(answer, question)
    asked = frozenset(terms(question, STOPWORDS))
    lines = [" ".join(line.split()) for line in text.split("\n") if line.strip()]
    if kind in ("row", "table"):
        table = _table(lines, wanted, asked, all_rows=kind == "row")
        if table is not None:
            return table
        # a part of a split row or table: its text, without the index's table labels
        lines = [_ROW_LABEL.sub("", line) for line in lines if not _TABLE_HEAD.match(line)]
    return _text(lines, wanted, asked, _words(answer))


# --------------------------------------------------------------------------- tables
def _table(
    lines: Sequence[str], wanted: frozenset[str], asked: frozenset[str], all_rows: bool
) -> Excerpt | None:
    """A verbalized row or table as header and rows; None when `lines` are not verbalized
    rows (another linearizer wrote them)."""
    head = _TABLE_HEAD.match(lines[0]) if lines else None
    columns = head.group(1) if head else ""
    named = [name.strip() for name in columns.split(", ") if name.strip()]
    rows: list[dict[tuple[str, int], str]] = []
    for line in lines:
        match = _ROW.match(line)
        if match:
            rows.append(_keyed(_cells(match.group(1), columns)))
    if not rows or not all(rows):
        return None
    keys = [key for key in _keyed([(name, "") for name in named]) if any(key in r for r in rows)]
    for row in rows:
        keys += [key for key in row if key not in keys]
    header = [name for name, _ in keys]
    grid = [tuple(row.get(key, "") for key in keys) for row in rows]
    chosen = list(range(len(grid)))
    if not all_rows:
        chosen = _answer_rows(grid, wanted, asked)
    shown = [tuple(_clip(cell) for cell in grid[i]) for i in chosen]
    marked = frozenset(
        (r, c)
        for r, row in enumerate(shown)
        for c, cell in enumerate(row)
        if wanted & set(terms(cell, STOPWORDS))
    )
    return Excerpt(
        "table",
        header=tuple("" if _GENERIC.match(name) else _clip(name) for name in header),
        rows=tuple(shown),
        marked=marked,
        more_rows=len(grid) - len(chosen),
    )


def _keyed(pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, int], str]:
    """(column, its occurrence among equally named columns) → value: a table may name two
    columns alike, and each keeps its own cell."""
    seen: dict[str, int] = {}
    out = {}
    for name, value in pairs:
        seen[name] = seen.get(name, 0) + 1
        out[(name, seen[name])] = value
    return out


def _cells(body: str, columns: str) -> list[tuple[str, str]]:
    """Column → value of a verbalized row's body (`core.spans.row_pairs`), where a value
    that itself reads "…, X is Y" is kept whole: a pair whose name is not among the
    table's `columns` (its `Table N:` line), or without that line, does not look like a
    column name (`_COLUMN_WORDS` words at most, no sentence end in it), belongs to the
    value before it."""
    cells: list[tuple[str, str]] = []
    for name, value in row_pairs(body):
        known = name in columns if columns else _column_like(name)
        if cells and not known:
            cells[-1] = (cells[-1][0], f"{cells[-1][1]}, {name} is {value}")
        else:
            cells.append((name, value))
    return cells


_COLUMN_WORDS = 8
_GENERIC = re.compile(r"^Column \d+$")  # a column without a name on the page


def _column_like(name: str) -> bool:
    return len(name.split()) <= _COLUMN_WORDS and not re.search(r"[.!?:]\s", name)


def _answer_rows(
    grid: Sequence[tuple[str, ...]], wanted: frozenset[str], asked: frozenset[str]
) -> list[int]:
    """The positions of the rows that hold the answer (most of its words first, at most
    `MAX_ROWS`, returned in table order); the rows that share most words with the question
    when none holds the answer; the first rows when none does either."""
    for words in (wanted, asked):
        scored = [(_overlap(" ".join(row), words), i) for i, row in enumerate(grid)]
        best = max((score for score, _ in scored), default=0)
        if best > 0:
            top = sorted((i for score, i in scored if score == best))
            return top[:MAX_ROWS]
    return list(range(min(len(grid), MAX_ROWS)))


# --------------------------------------------------------------------------- text
def _text(
    lines: Sequence[str], wanted: frozenset[str], asked: frozenset[str], said: str
) -> Excerpt:
    """The sentence or list item that best holds the answer, marked and cut; `said` is
    the answer's words (`_words`): a sentence it quotes whole is not marked."""
    units: list[str] = []
    for line in lines:
        if _ITEM.match(line):
            units.append(_ITEM.sub("", line, count=1))
        else:
            units.extend(s for s in _SENTENCE_END.split(line) if s.strip())
    if not units:
        return Excerpt("text")
    scores = [2 * _overlap(unit, wanted) + _overlap(unit, asked) for unit in units]
    best = scores.index(max(scores))
    unit = units[best]
    spans = _answer_spans(unit, wanted)
    if sum(end - start for start, end in spans) > WHOLE_SENTENCE * len(unit) or (
        _words(unit) and f" {_words(unit)} " in f" {said} "
    ):
        spans = []  # the sentence is the answer: marking it would stress nothing
    start, end = _window(unit, spans[0][0] if spans else 0)
    pieces: list[Piece] = []
    if best > 0 or start > 0:
        pieces.append(Piece(ELLIPSIS + " "))
    position = start
    for first, last in spans:
        first, last = max(first, start), min(last, end)
        if first >= last:
            continue
        if first > position:
            pieces.append(Piece(unit[position:first]))
        pieces.append(Piece(unit[first:last], marked=True))
        position = last
    if position < end:
        pieces.append(Piece(unit[position:end]))
    if best < len(units) - 1 or end < len(unit):
        pieces.append(Piece(" " + ELLIPSIS))
    return Excerpt("text", pieces=tuple(pieces))


def _answer_spans(text: str, wanted: frozenset[str]) -> list[tuple[int, int]]:
    """The character spans of the answer in `text`: runs of its words, joined across the
    stopwords and commas between two of them ("€180 per night"), with a currency sign
    before or a percent sign after."""
    spans: list[tuple[int, int]] = []
    for token in TOKEN.finditer(text):
        if not wanted & set(terms(token.group(0), STOPWORDS)):
            continue
        start, end = token.start(), token.end()
        while start > 0 and text[start - 1] in _BEFORE:
            start -= 1
        while end < len(text) and text[end] in _AFTER:
            end += 1
        if spans and _filler(text[spans[-1][1] : start]):
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


_BEFORE = "€$£¥"
_AFTER = "%"
_FILLER_WORDS = 3


def _filler(gap: str) -> bool:
    """Whether the text between two answer words belongs to the answer: at most
    `_FILLER_WORDS` stopwords, spaces and joining punctuation, no sentence or clause end;
    or punctuation inside one token ("10:00", "1.5")."""
    if gap and not re.search(r"\s", gap) and len(gap) <= 2:
        return True
    if re.search(r"[.;:!?()\[\]]", gap):
        return False
    words = TOKEN.findall(gap)
    return len(words) <= _FILLER_WORDS and all(w.lower() in STOPWORDS for w in words)


def _window(text: str, anchor: int) -> tuple[int, int]:
    """The character range of `text` to show: all of it up to `MAX_WORDS` words, else
    `MAX_WORDS` words around the word at `anchor` (a third of them before it)."""
    words = list(re.finditer(r"\S+", text))
    if len(words) <= MAX_WORDS:
        return 0, len(text)
    at = next((i for i, w in enumerate(words) if w.end() > anchor), 0)
    first = max(0, min(at - MAX_WORDS // 3, len(words) - MAX_WORDS))
    last = first + MAX_WORDS - 1
    return words[first].start(), words[last].end()


def _words(text: str) -> str:
    """`text`'s words, lower-cased and joined by single spaces (citations left out)."""
    return " ".join(TOKEN.findall(CITATION.sub(" ", text).lower()))


def _overlap(text: str, words: Iterable[str]) -> int:
    """How many distinct `words` (stems) `text` holds."""
    return len(set(terms(text, STOPWORDS)) & set(words))


def _clip(cell: str) -> str:
    return cell if len(cell) <= MAX_CELL_CHARS else cell[: MAX_CELL_CHARS - 1].rstrip() + ELLIPSIS
