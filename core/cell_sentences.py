"""Table cells and rows said as sentences that name their subject, in English or German.

An answer taken from a table is a value in a column of a row. Shown as the table holds it
("UEFI / Install: OXT-1307", "2.0 (TPM for Dell Optiplex 7040)", "OS: Debian; Tools: OK")
the reader must rebuild the sentence; a colleague says it: "The TPM for Dell Optiplex 7040
is 2.0.", "For Debian, Tools is OK." This module is that sentence realiser:

- the subject is the row: the cells that say which row is meant (the question's cells,
  `core.spans.Span.row_key`), else the row's naming cell (its first short cell, with its
  column when the value is a bare number: "Version 2.5.1"), else the table's heading;
- the predicate is the column header, a header path read as words ("UEFI / Install" →
  "UEFI Install");
- the value is the cell as the page wrote it.

Frames: "The {column} for {subject} is {value}." / "{Column} für {subject} ist {value}."; a
value that is itself the row's name (the first column, picked by other cells) reads "The
{column} with {conditions} is {value}." / "{Column} mit {conditions} ist {value}."; several
cells of a row "For {subject}, {a} is {x} and {b} is {y}." / "Für {subject} gilt: {a} ist
{x} und {b} ist {y}."; the row with the largest or smallest amount "{Row} has the highest
{column} ({amount})" / "Den höchsten Wert bei {column} hat {row} ({amount})". Only the
frame words change with the language; the page's words (columns, values) stay as written.
Pure functions of strings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# A row shown as "Column: value; Column: value" (the index's row text, `core.spans`).
_CELL = re.compile(r"^(?P<name>[^:;]{1,40}?):\s+(?P<value>\S.*)$")
# The most words of a cell that names its row ("Dell Optiplex 7040", "Week 2"); a longer
# first cell is a description, named by its column and quoted.
NAMING_WORDS = 6
# The most words of a description quoted as a row's name (the rest is cut: it names the
# row, the answer is elsewhere).
QUOTED_WORDS = 10
# A value with no letters names nothing by itself ("2.5.1", "3"): its column goes with it.
_LETTER = re.compile(r"[^\W\d_]")
QUOTES = {"en": ("“", "”"), "de": ("„", "“")}
_AND = {"en": "and", "de": "und"}


def row_cells(row: str) -> list[tuple[str, str]]:
    """The (column, value) cells of a row shown as "Column: value; Column: value"; a part
    that is no cell is the rest of the value before it ("Why: slow; cache it"). [] when
    the row does not open with a cell."""
    cells: list[tuple[str, str]] = []
    for part in row.split("; "):
        match = _CELL.match(part.strip())
        if match:
            cells.append((match.group("name").strip(), match.group("value").strip(" …")))
        elif cells:
            name, value = cells[-1]
            cells[-1] = (name, f"{value}; {part.strip(' …')}")
        else:
            return []
    return cells


# Marks that end a header and point at a footnote below the table ("Repro?**", "Result*").
_MARKS = re.compile(r"(?<=\w)[?*†]+(?=\s*(?:/|$))")


def column_words(column: str) -> str:
    """A column header as words: a header path "UEFI / OTA upgrade" read "UEFI OTA
    upgrade" (a sub-header that repeats its group is said once)."""
    column = _MARKS.sub("", column)  # "OXT-243 Repro?**": its footnote marks are no words
    parts = [p.strip() for p in column.split(" / ") if p.strip()]
    words: list[str] = []
    for part in parts:
        if not words or not part.lower().startswith(words[-1].lower()):
            words.append(part)
        else:
            words[-1] = part
    return " ".join(words)


def _value(value: str) -> str:
    return value.strip().rstrip(".").strip()


def _joined(items: Sequence[str], language: str) -> str:
    """Items as a list in words: "a, b and c" ("a, b und c")."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {_AND.get(language, 'and')} {items[-1]}"


def naming_cell(cells: Sequence[tuple[str, str]], language: str) -> str:
    """How a row is named by its first cell: the value when it is short ("Dell Optiplex
    7040"), with its column when the value has no letters ("Version 2.5.1"), the column and
    the quoted value when it is a description, cut after `QUOTED_WORDS` ("Test Description
    “Configure guest VM in …”");
    "" for a row without cells."""
    if not cells:
        return ""
    column, value = cells[0]
    value = _value(value)
    if not _LETTER.search(value):
        return f"{column_words(column)} {value}"
    words = value.split()
    if len(words) > NAMING_WORDS:
        left, right = QUOTES.get(language, QUOTES["en"])
        if len(words) > QUOTED_WORDS:
            value = " ".join(words[:QUOTED_WORDS]) + " …"
        return f"{column_words(column)} {left}{value}{right}"
    return value


def subject(
    row: str, column: str, row_key: str, heading: str, language: str
) -> tuple[str, str, bool]:
    """What a cell of `column` in `row` is said about: (predicate, subject, whether the cell
    is the row's name picked by other cells). The predicate is the column and the subject
    the `row_key` cells when the question named the row (the row's name picked by them when
    `column` is the row's first column); else the row's naming cell (`naming_cell`), or the
    table's `heading` when the cell is itself the first one. A row that opens with a header
    of its own instead of a cell ("Building opening hours; Berlin: ...; Bristol: ...", a
    table whose columns are the things compared) is the predicate, the column the subject:
    "The Building opening hours for Bristol is ..."."""
    opening = row.split("; ", 1)[0].strip()
    if opening and not _CELL.match(opening):
        return _value(opening), column_words(column), False
    cells = row_cells(row)
    first = cells[0][0] if cells else ""
    keys = naming_keys([_value(k) for k in row_key.split(", ") if k.strip()])
    if keys and all(_handle(k) for k in keys) and cells and first != column:
        keys = []  # "#team-payments" matched "team": the row's own name says which row
    key = ", ".join(keys)
    if key:
        return column, key, bool(first) and first == column
    if cells and first != column:
        return column, naming_cell(cells, language), False
    return column, heading.rstrip(" :"), False  # "Reporting:" heads its table as a label


# A cell that opens with a number or a currency sign: an amount ("50,000 requests", "€190").
_AMOUNT = re.compile(r"^[\d€£$]")


def naming_keys(keys: Sequence[str]) -> list[str]:
    """The cells of a row key (`core.spans.Span.row_key`) that name the row: a cell whose
    words another key cell already holds ("#sre" beside "Site Reliability (SRE)") and an
    amount beside a named cell ("50,000 requests" beside "Starter") are left out, and so is
    a channel or tag sharing a word with a cell before it ("#team-firmware" after "Robot
    Firmware"); they matched a word of the question but glued into the subject they read
    as a row dump ("The People for Site Reliability (SRE), #sre")."""
    words = [set(_words(k)) for k in keys]
    kept = [
        key
        for i, key in enumerate(keys)
        if not any(i != j and words[i] < words[j] for j in range(len(keys)))
        and not (words[i] and any(words[i] == words[j] for j in range(i)))
        and not (_handle(key) and any(_long(words[i]) & words[j] for j in range(i)))
    ]
    named = [key for key in kept if not _AMOUNT.match(key)]
    return named or kept


def _handle(key: str) -> bool:
    """A channel, mention or tag written as one token ("#team-firmware", "@sre")."""
    return key[:1] in "#@" and " " not in key


def _long(words: set[str]) -> set[str]:
    return {w for w in words if len(w) >= 4}


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def cell_sentence(
    value: str,
    column: str,
    about: str,
    language: str,
    *,
    names_row: bool = False,
    place: bool = False,
) -> str:
    """One cell said as a sentence: "The {column} for {about} is {value}." ("{Column} für
    {about} ist {value}."), a sentence-like value quoted after "reads" ("lautet",
    `sentence_like`); with `names_row` (the value is the row's name, `about` the cells
    that picked it) "The {column} with {about} is {value}."; without `about` "The {column}
    is {value}.". A value that counts the column's own noun ("Desks: 26 desks") is what
    its row has: "{About} has {value}." ("{About} hat {value}."). With `place` (the column
    is a place the question asks in: "Is Whit Monday a holiday in Bristol?") "In
    {column}, {about} is {value}." ("In {column} ist {about} {value}.")."""
    words = column_words(column)
    value = _value(value)
    left, right = QUOTES["de" if language == "de" else "en"]
    has = "hat" if language == "de" else "has"
    if about and not names_row and counts_column(value, words):
        return f"{about[:1].upper()}{about[1:]} {has} {value}."
    if about and not names_row and place and not sentence_like(value):
        if language == "de":
            return f"In {words} ist {about} {value}."
        return f"In {words}, {about} is {value}."
    if language == "de":
        link = f" {'mit' if names_row else 'für'} {about}" if about else ""
        if sentence_like(value):
            return f"{words[:1].upper()}{words[1:]}{link} lautet {left}{value}{right}."
        return f"{words[:1].upper()}{words[1:]}{link} ist {value}."
    link = f" {'with' if names_row else 'for'} {about}" if about else ""
    if sentence_like(value):
        return f"The {words}{link} reads {left}{value}{right}."
    return f"The {words}{link} is {value}."


# A value that opens with a count and the noun it counts ("26 desks, book in Deskbird").
_COUNT_OF = re.compile(r"^\d[\d,.]*\s+([^\W\d_]+)")


def counts_column(value: str, column: str) -> bool:
    """Whether `value` opens with a count of the noun `column` names ("26 desks" under
    "Desks"), singular or plural: said as a column and a value it says the noun twice
    ("The Desks for Bristol is 26 desks")."""
    found = _COUNT_OF.match(value)
    if not found:
        return False
    noun, header = found.group(1).lower(), column.lower()
    return noun.rstrip("s") == header.rstrip("s") and " " not in header


def item_sentence(item: str, column: str, about: str, language: str) -> str:
    """One item of a cell that lists several (`core.phrasing.asked_item`) said with the cell
    it stands in: "“Issues with switcher keys OXT-1569” is listed under Notes/Test Data for
    Stable 9 6524." („… steht unter Notes/Test Data für Stable 9 6524.")."""
    left, right = QUOTES["de" if language == "de" else "en"]
    quoted = f"{left}{_value(item)}{right}"
    if language == "de":
        link = f" für {about}" if about else ""
        return f"{quoted} steht unter {column_words(column)}{link}."
    link = f" for {about}" if about else ""
    return f"{quoted} is listed under {column_words(column)}{link}."


# The fewest words of a cell read as a sentence of its own (set by design: "Upgrade to self"
# is a value, "Host Stress test will include starting and stopping guest VMs" a sentence).
SENTENCE_WORDS = 6


def sentence_like(value: str) -> bool:
    """Whether a cell is a sentence or description rather than a value: at least
    `SENTENCE_WORDS` words, most of them in lower case. "The Test Desc is Host Stress test
    will include ..." reads as two sentences run together; quoted after "reads" it is one.
    A name ("Install Windows guest VM with Tools", "Dell Latitude 7490") is not one, nor
    a value followed by its conditions ("Mon–Fri 08:00–19:00; weekend access only if
    booked"): a sentence opens with a word."""
    words = value.split()
    lower = [w for w in words if w[:1].islower()]
    opens = bool(words) and bool(_WORD.match(words[0]))  # not "Mon–Fri 08:00–19:00; ..."
    return opens and len(words) >= SENTENCE_WORDS and 2 * len(lower) > len(words)


_WORD = re.compile(r"^[^\W\d_]+$")


def cells_sentence(about: str, cells: Sequence[tuple[str, str]], language: str) -> str:
    """Several cells of one row as a sentence: "For {about}, {a} is {x} and {b} is {y}."
    ("Für {about} gilt: {a} ist {x} und {b} ist {y}."); without `about` the cells alone
    ("{a} is {x} and {b} is {y}."); cells of one value together (`_grouped`)."""
    said = _joined(_grouped(cells, language), language)
    if not about:
        return f"{said[:1].upper()}{said[1:]}."
    if language == "de":
        return f"Für {about} gilt: {said}."
    return f"For {about}, {said}."


def _grouped(cells: Sequence[tuple[str, str]], language: str) -> list[str]:
    """Cells said as "{a} is {x}", those with one value together ("INST, ML and ML/S3 are
    all Y", "… sind alle Y"; two "both", "beide"), in the order of their first cell: a
    matrix row says the same mark under many columns, and repeating it reads as a dump.
    A column named twice ("Y/N") keeps its cells apart."""
    columns: dict[str, list[str]] = {}
    for column, value in cells:
        columns.setdefault(_value(value), []).append(column_words(column))
    said = []
    for value, names in columns.items():
        if len(set(names)) < len(names) or len(names) == 1:
            verb = "ist" if language == "de" else "is"
            said += [f"{name} {verb} {value}" for name in names]
        elif language == "de":
            every = "beide" if len(names) == 2 else "alle"
            said.append(f"{_joined(names, language)} sind {every} {value}")
        else:
            every = "both" if len(names) == 2 else "all"
            said.append(f"{_joined(names, language)} are {every} {value}")
    return said


def lowered(sentence: str) -> str:
    """A sentence continued after "Yes:"/"No:": its frame word in lower case ("The" →
    "the", "For" → "for"); a page's word (a name, a column) stays as written."""
    for frame in ("The ", "For ", "Für ", "In "):
        if sentence.startswith(frame):
            return frame.lower() + sentence[len(frame) :]
    return sentence


_EXTREME = {
    ("en", True): "{names} {verb} the highest {column} ({amount})",
    ("en", False): "{names} {verb} the lowest {column} ({amount})",
    ("de", True): "Den höchsten Wert bei {column} {verb} {names} ({amount})",
    ("de", False): "Den niedrigsten Wert bei {column} {verb} {names} ({amount})",
}
_HAS = {("en", False): "has", ("en", True): "have", ("de", False): "hat", ("de", True): "haben"}


def extreme_sentence(
    names: str, several: bool, column: str, amount: str, highest: bool, language: str
) -> str:
    """The row(s) with the largest or smallest amount of a column as a sentence: "Enterprise
    has the highest Burst (500)" ("Den höchsten Wert bei Burst hat Enterprise (500)");
    `several` when `names` are more than one row ("have", "haben"). German says "the value"
    (der Wert), so the frame needs no article agreeing with the page's column word."""
    language = language if language == "de" else "en"
    frame = _EXTREME[(language, highest)]
    verb = _HAS[(language, several)]
    return frame.format(names=names, verb=verb, column=column_words(column), amount=amount)
