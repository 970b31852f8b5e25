"""Composed answers over structured evidence: counts, filters, comparisons, minimum and
maximum over table rows, the distinct values of a column over the rows asked about, yes/no
over a verdict column or over the other values of a column, counts of list items, and the
steps of a short list, each fact cited with the number of the source it came from.

The offline answerer (`core.extractive`) answers with one span; a question that asks to
count, filter or compare needs several rows or items at once. `compose(question, sources)`
reads the question (`core.questions.profile_question`) and the numbered sources of the
answer prompt (`number, header, text`: verbalized table rows, list items, passages) and
returns a `Composed` answer, or None when the question does not clearly ask for a
composition or the evidence does not clearly hold one. A wrong composed answer is worse
than a plain span, so every composer asks for both the wording (a "how many", a comparison
with a number, pass/fail words, "both ... and", a superlative, "steps") and the structure
(one table or list that holds every asked term).

Pure functions of strings, recomputed from the given sources only: leaving out a source
that an answer used changes the answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence, Set
from dataclasses import dataclass, field

from core.cell_sentences import cells_sentence, extreme_sentence
from core.column_legend import legends
from core.entities import entities
from core.grounding import negated
from core.limits import MAX_EVIDENCE_WORDS
from core.list_counts import counted_noun, lists_parts
from core.page_sections import LEVELS, sections_noun, top_sections
from core.questions import (
    CONTEXT,
    ENTITY_WEIGHT,
    SOURCE_PHRASE,
    STOPWORDS,
    TOKEN,
    QuestionProfile,
    Translations,
    is_followup,
    profile_question,
    question_language,
    terms,
)
from core.sentence_names import named_in_sentence
from core.spans import (
    _EMPTY_CELL,
    _NAME,
    KEY_WORDS,
    TYPED_VALUES,
    Span,
    best_spans,
    cell_verdict,
    clip_words,
    row_pairs,
    typed_values,
    units,
)

_ROW = re.compile(r"^Row (\d+) in Table (\d+):\s*(.*)$")
_TABLE_HEAD = re.compile(r"^Table (\d+):")
_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?:\[[ x]\]\s+)?")
# A stem is taken for another when one starts with the other and both are this long
# ("attend" / "attende"): the Snowball stems of a noun and its verb differ in the ending.
PREFIX_MATCH = 5
# A term is taken for its plural with an "s" ("rpc" / "rpcs"): the stemmer leaves an
# acronym's plural ("RPCs", "VMs") as it is. At least this long (set by design: "vm").
MIN_ACRONYM = 2
# Rows that a table part holding only some of a table's rows must show before its rows are
# filtered or compared (set by design: fewer says little about the table).
MIN_ROWS = 3
# A row that stands for the rest ("Any other city", "Total") is not one of the things
# counted or listed.
_CATCH_ALL = re.compile(
    r"^\W*(any other|all other|other|others|total|sum|andere|alle anderen|sonstige|gesamt"
    r"|summe)\b",
    re.I,
)

# "How many people" counts a list of persons' names, whatever its heading calls them.
_PEOPLE = frozenset(
    terms("people persons participants attendees members personen leute teilnehmer", STOPWORDS)
)
# Words that say a name is a group's ("from the AIS team"): the name selects, not the word.
_GROUPS = frozenset(terms("team teams group company firm firma gruppe unternehmen", STOPWORDS))
# Words that say where on the page the counted rows or items are ("in the Type 0x2 REL
# category", "im Abschnitt Teilnehmer"): the name they go with selects the table or list
# by its heading; the word itself is rarely in the heading and is no condition on rows.
_PAGE_PARTS = frozenset(
    terms(
        "category categories section chapter heading subsection kategorie abschnitt kapitel",
        STOPWORDS,
    )
)
# Words of the wording that asks for a composition, not conditions on rows or items.
_WORDING = frozenset(
    terms(
        "many much number total count available exist exists listed there have has had all"
        " both any each every above over more greater higher least below under less fewer"
        " lower most highest lowest largest smallest biggest cheapest maximum minimum fewest"
        " longest shortest meisten wenigsten längste längsten kürzeste kürzesten"
        " expensive cheap than steps step anzahl insgesamt gibt verfügbar alle beide"
        " sowohl auch über mehr höher unter weniger niedriger mindestens höchstens höchste"
        " höchsten niedrigste niedrigsten größte größten kleinste kleinsten billigste"
        " billigsten günstigste günstigsten teuerste teuersten schritte schritt als"
        " passed pass fail failed failure bestanden fehlgeschlagen"
        " unique distinct different einzigartige verschiedene unterschiedliche"
        " use used using verwendet genutzt benutzt eingesetzt",
        STOPWORDS,
    )
)
# Nouns that name the values of a column as such ("measured launch versions", "Typen"): a
# count of them counts the column's distinct values, whatever the column is called.
_VALUE_KINDS = frozenset(
    terms(
        "version versions type types kind kinds value values variant variants level levels"
        " Version Versionen Typ Typen Art Arten Wert Werte Variante Varianten Stufe Stufen",
        STOPWORDS,
    )
)
_PASS_WORDS = re.compile(r"\b(pass(?:ed|es)?|succeeded|bestanden|erfolgreich)\b", re.I)
_FAIL_WORDS = re.compile(r"\b(fail(?:ed|s|ure|ures)?|fehlgeschlagen|gescheitert)\b", re.I)
_BOTH = re.compile(r"\b(both|sowohl)\b", re.I)
_COUNTS = re.compile(
    r"\b(?:how many|number of|wie viele|wieviele|anzahl(?: der| an)?)\s+(?P<noun>[^?,;]+)", re.I
)
# Two asks joined by "and" ("What is the Slack channel of Payments, and who leads it?").
_TWO_ASKS = re.compile(
    r"^(?P<first>[^?]+?),?\s+(?:and|und)\s+(?P<second>(?:who|whom|what|when|where|which|how"
    r"|wer|wem|was|wann|wo|welche[rsmn]?|wie)\b[^?]*)\?*$",
    re.I,
)
# Words by which a second ask points back to the first ask's subject (`_stands_alone`).
_POINTS_BACK = re.compile(
    r"\b(?:this|that|these|those|it|its|they|them|their|there|then|dies|diese[rsnm]?|das"
    r"|dem|den|der|es|sie|ihr|ihre[rnms]?|dort|dann|dessen|deren)\b",
    re.I,
)
# A second ask set off by a comma: a clause of its own, not a second value asked for
# ("Welches BIOS und welche Build-Versionen …" asks one thing of one row).
_COMMA_JOINED = re.compile(r",\s*(?:and|und)\s", re.I)
_ARTICLE_BEFORE_NOUN = re.compile(r"\b(?:der|die|das|den|dem|des)\s+(?=[A-ZÄÖÜ])")
MIN_ALONE_WORDS = 4
"""The fewest words a second ask needs to be answered on its own ("…, and who?" is not)."""
# The share of a part's own terms its span must cover (as `core.spans.Span.support`): at
# least half, or the part is not answered (set by design).
MIN_PART_SUPPORT = 0.5
# Questions that ask for a reason, a person, a date or a place name one fact: no composition.
_NOT_COMPOSED = frozenset(("why", "who", "when", "where"))
_REASON = re.compile(r"\b(reason|cause|caused|why|grund|ursache|warum|wieso)\b", re.I)
_STEPS = re.compile(r"\b(steps|schritte)\b", re.I)

# Amounts: a number with a currency before or after it.
_CURRENCIES = (
    ("EUR", r"€|eur|euros?"),
    ("GBP", r"£|gbp|pounds?|pfund"),
    ("USD", r"us\$|\$|usd|dollars?"),
    ("CHF", r"chf|franken"),
)
_CURRENCY = "|".join(p for _, p in _CURRENCIES)
_NUMBER = r"\d+(?:[.,]\d+)*"
_AMOUNT = re.compile(
    rf"(?:(?P<before>{_CURRENCY})\s?)?(?P<number>{_NUMBER})(?:\s?(?P<after>{_CURRENCY})\b)?",
    re.I,
)
_LEADING_AMOUNT = re.compile(rf"^[^\w€£$]{{0,2}}(?:{_AMOUNT.pattern})(?![\d.]*\.\d)", re.I)

_GREATER = r"above|over|more than|greater than|higher than|larger than|bigger than|exceeding"
_GREATER += r"|über|mehr als|höher als|größer als"
_LESS = r"below|under|less than|lower than|smaller than|cheaper than|fewer than"
_LESS += r"|unter|weniger als|niedriger als|kleiner als|billiger als|günstiger als"
_AT_LEAST = r"at least|mindestens|ab"
_AT_MOST = r"at most|up to|no more than|höchstens|bis zu|maximal"
_THRESHOLD = re.compile(
    rf"\b(?P<op>{_GREATER}|{_LESS}|{_AT_LEAST}|{_AT_MOST})\s+(?P<amount>{_AMOUNT.pattern})",
    re.I,
)
_COMPARES = re.compile(
    r"\b(?:(?P<more>higher|more|greater|larger|bigger|more expensive|höher|mehr|größer|teurer)"
    r"|(?P<less>lower|less|smaller|cheaper|fewer|niedriger|weniger|kleiner|billiger|günstiger))"
    r"(?=\s+(?:than|als)\b)",
    re.I,
)
_MOST = re.compile(
    r"\b(?P<max>highest|most expensive|largest|biggest|greatest|longest|(?<=the )most"
    r"|höchsten?|teuersten?|größten?|längsten?|meisten)\b"
    r"|\b(?P<min>lowest|cheapest|smallest|least expensive|shortest|fewest|(?<=the )least"
    r"|niedrigsten?|billigsten?|günstigsten?|kleinsten?|kürzesten?|wenigsten)\b",
    re.I,
)


@dataclass(frozen=True)
class Composed:
    """A composed answer: its `text` (each fact cited `[n]`) and the numbers of the
    sources it used."""

    text: str
    sources: tuple[int, ...]


@dataclass(frozen=True)
class Row:
    """One row of a table: its number in the table, its (column, value) pairs and the first
    source that gave it."""

    number: int
    pairs: tuple[tuple[str, str], ...]
    source: int


@dataclass
class Table:
    """The rows of one table of one page section (`header`), gathered from every source
    that holds some; `complete` when every row of the table is known to be among them."""

    header: str
    number: int
    rows: dict[int, Row] = field(default_factory=dict)
    complete: bool = False

    @property
    def columns(self) -> list[str]:
        """The column names, in order of first appearance."""
        return list(dict.fromkeys(name for row in self.ordered for name, _ in row.pairs))

    @property
    def ordered(self) -> list[Row]:
        return [self.rows[n] for n in sorted(self.rows)]

    @property
    def readable(self) -> bool:
        """Whether rows can be filtered and compared: the table is complete, or its rows
        run from 1 without a gap, at least `MIN_ROWS` of them (the answer then says which
        rows it read, `seen`)."""
        numbers = sorted(self.rows)
        gapless = numbers == list(range(1, len(numbers) + 1))
        return self.complete or (gapless and len(numbers) >= MIN_ROWS)

    def seen(self, language: str) -> str:
        """ "" for a complete table, else which rows were read: " (from rows 1–6 and 9 of
        the table found)"."""
        if self.complete:
            return ""
        runs: list[list[int]] = []
        for number in sorted(self.rows):
            if runs and number == runs[-1][-1] + 1:
                runs[-1].append(number)
            else:
                runs.append([number])
        spans = [f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs]
        rows = _joined(spans, language)
        if len(self.rows) == 1:
            if language == "de":
                return f" (aus der gefundenen Zeile {rows} der Tabelle)"
            return f" (from row {rows} of the table found)"
        if language == "de":
            return f" (aus den gefundenen Zeilen {rows} der Tabelle)"
        return f" (from rows {rows} of the table found)"


@dataclass(frozen=True)
class ItemList:
    """The items of one list in one source, with the source's header and the sentence
    that introduces the list (its context)."""

    header: str
    intro: str
    items: tuple[str, ...]
    source: int


# --------------------------------------------------------------------------- evidence
def read_tables(sources: Sequence[tuple[int, str, str]]) -> list[Table]:
    """The tables of the sources, in order of first appearance, each row once (from the
    first source that holds it). A table is `complete` when its rows run from 1 without a
    gap and the last of them closes a table part (a source opening with the `Table N:`
    line) that had room for one more row as long as its longest: a table is cut into
    parts only before a row that does not fit in `MAX_EVIDENCE_WORDS`
    (`core.contextualize`), so such a part ends where the table ends."""
    found: dict[tuple[str, int], Table] = {}
    closing: dict[tuple[str, int], set[int]] = {}
    for number, header, text in sources:
        lines = [" ".join(line.split()) for line in text.split("\n") if line.strip()]
        part_of = _TABLE_HEAD.match(lines[0]) if lines else None
        last: dict[int, int] = {}
        longest = 0
        for line in lines:
            match = _ROW.match(line)
            if not match:
                continue
            row, table = int(match.group(1)), int(match.group(2))
            key = (header, table)
            entry = found.setdefault(key, Table(header, table))
            if row not in entry.rows:
                entry.rows[row] = Row(row, row_pairs(match.group(3)), number)
            last[table] = max(last.get(table, 0), row)
            longest = max(longest, len(line.split()))
        if part_of and len(text.split()) + longest <= MAX_EVIDENCE_WORDS:
            table = int(part_of.group(1))
            if table in last:
                closing.setdefault((header, table), set()).add(last[table])
    for key, table in found.items():
        numbers = sorted(table.rows)
        gapless = numbers == list(range(1, len(numbers) + 1))
        table.complete = gapless and numbers[-1] in closing.get(key, set())
        _name_by_first_row(table)
    return list(found.values())


# A column the page gave no name: a table whose header row is an ordinary first row.
_UNNAMED_COLUMN = re.compile(r"^Column \d+$")
# The most words of a first row's cell that names its column ("RPC Name", "Inputs").
_COLUMN_NAME_WORDS = 4


def _name_by_first_row(table: Table) -> None:
    """A table whose columns have no names ("Column 1", "Column 2", ...: the page's table
    had no header row, so its first row holds the names, "RPC Name, Inputs, ...") has its
    columns named by its first row's cells, and that row is no longer one of its rows; a
    table whose first row is not all short, distinct, non-empty names is left as it is."""
    first = table.rows.get(1)
    if first is None or not all(_UNNAMED_COLUMN.match(name) for name, _ in first.pairs):
        return
    names = dict(first.pairs)
    values = list(names.values())
    if len(set(values)) < len(values) or not all(
        0 < len(v.split()) <= _COLUMN_NAME_WORDS and not _empty(v) for v in values
    ):
        return
    del table.rows[1]
    for number, row in table.rows.items():
        pairs = tuple((names.get(name, name), value) for name, value in row.pairs)
        table.rows[number] = Row(row.number, pairs, row.source)


def read_lists(sources: Sequence[tuple[int, str, str]]) -> list[ItemList]:
    """The lists of the sources ("- item" lines in a row), with the line before each as its
    intro (for a list that opens its source, the intro line another source of the same
    section shows before the same first item: a list split from its passage; the passage's
    cut copy of a list another source holds whole is left out); a list that
    fills its source to `MAX_EVIDENCE_WORDS` less its longest item may
    go on in another source and is left out."""
    out: list[ItemList] = []
    lined = [(number, header, text, _plain_lines(text)) for number, header, text in sources]
    intros = _intros(lined)
    for number, header, text, lines in lined:
        items: list[str] = []
        intro = ""
        for position, line in enumerate([*lines, ""]):
            if line and _ITEM.match(line) and not _ROW.match(line):
                if not items:
                    intro = lines[position - 1] if position else ""
                    if not intro:
                        intro = intros.get((header, _ITEM.sub("", line, count=1).strip()), "")
                items.append(_ITEM.sub("", line, count=1).strip())
                continue
            if len(items) > 1:
                longest = max(len(item.split()) for item in items)
                if len(text.split()) + longest <= MAX_EVIDENCE_WORDS:
                    out.append(ItemList(header, intro, tuple(dict.fromkeys(items)), number))
            items = []
        out.extend(_line_list(number, header, lines))
    return [found for found in out if not any(_cut_from(found, other) for other in out)]


def _cut_from(found: ItemList, other: ItemList) -> bool:
    """Whether `found` is the opening of the longer list `other` of the same section, shown
    in part by a passage (its last item maybe cut mid-sentence)."""
    if found.header != other.header or len(found.items) >= len(other.items):
        return False
    *whole, last = found.items
    return list(whole) == list(other.items[: len(whole)]) and other.items[len(whole)].startswith(
        last
    )


def _plain_lines(text: str) -> list[str]:
    """A source's non-empty lines, their spaces collapsed."""
    return [" ".join(line.split()) for line in text.split("\n") if line.strip()]


def _intros(lined: Sequence[tuple[int, str, str, list[str]]]) -> dict[tuple[str, str], str]:
    """The intro line ending in ":" before each list in the sources (number, header, text
    and its lines), by the list's header and first item."""
    out: dict[tuple[str, str], str] = {}
    for _, header, _, lines in lined:
        for before, line in zip(lines, lines[1:], strict=False):
            if before.endswith(":") and not _ITEM.match(before) and _ITEM.match(line):
                out.setdefault((header, _ITEM.sub("", line, count=1).strip()), before)
    return out


# The most words of a line of a section that lists one entry a line ("Phil White - AIS").
ENTRY_WORDS = 8


def _line_list(number: int, header: str, lines: Sequence[str]) -> list[ItemList]:
    """A section that lists one short entry a line without list marks (an attendee list
    pasted as lines): at least `MIN_ROWS` lines, each at most `ENTRY_WORDS` words, none a
    sentence or a table row; the list's intro is empty."""
    if len(lines) < MIN_ROWS or any(_ROW.match(line) or _ITEM.match(line) for line in lines):
        return []
    if any(len(line.split()) > ENTRY_WORDS or line[-1] in ".:?!" for line in lines):
        return []
    return [ItemList(header, "", tuple(dict.fromkeys(lines)), number)]


# --------------------------------------------------------------------------- matching
class Asked:
    """The question's terms, and which of them a text holds (directly, through a
    translation, or as a stem that starts the other: `PREFIX_MATCH`)."""

    def __init__(self, profile: QuestionProfile, texts: Sequence[str] = ()):
        self.profile = profile
        self.terms = frozenset(profile.terms)
        self._texts = texts
        self._unseen: frozenset[str] | None = None

    @property
    def unseen(self) -> frozenset[str]:
        """A German question's terms that no given evidence holds in any form: words the
        translation missed ("Bürgertelefonat"), which cannot tell rows or items apart
        (computed when a composer first asks: most questions compose nothing)."""
        if self._unseen is None:
            self._unseen = frozenset()
            if self.profile.language == "de" and self._texts:
                self._unseen = frozenset(self.terms - self.found(" ".join(self._texts)))
        return self._unseen

    def found(self, text: str) -> set[str]:
        stems = frozenset(terms(text))
        found = self.profile.asked_in(stems)
        for stem in stems - found:
            for term in self.terms - found:
                short, long = sorted((stem, term), key=len)
                if (len(short) >= PREFIX_MATCH and long.startswith(short)) or (
                    long == f"{short}s" and len(short) >= MIN_ACRONYM
                ):
                    found.add(term)
        return found


def _verdict(value: str) -> bool | None:
    """True for a pass-like cell, False for a fail-like one, None otherwise
    (`core.spans.cell_verdict`)."""
    verdict = cell_verdict(value)
    return None if verdict is None else verdict == "Yes"


def _empty(value: str) -> bool:
    return not value.strip() or _EMPTY_CELL.match(value) is not None


def _row_terms(asked: Asked, row: Row, failing: bool) -> set[str]:
    """The asked terms a row meets: those of its values, and a column's name where its
    cell says yes or pass (or fail, when the question asks about failures) or holds any
    other value (a row with a value under "EFI" was tested with EFI)."""
    met: set[str] = set()
    for name, value in row.pairs:
        if _empty(value):
            continue
        verdict = _verdict(value)
        met |= asked.found(value) - asked.found(name)
        if verdict is None or verdict != failing:
            met |= asked.found(name)
    return met


# --------------------------------------------------------------------------- amounts
@dataclass(frozen=True)
class Amount:
    value: float
    currency: str
    text: str


def _currency(word: str | None) -> str:
    if not word:
        return ""
    for code, pattern in _CURRENCIES:
        if re.fullmatch(pattern, word, re.I):
            return code
    return ""


def _number(text: str) -> float:
    """A number written with thousands separators (a "," or "." before three digits) or a
    decimal point or comma."""
    groups = re.split(r"[.,]", text)
    if len(groups) > 1 and all(len(g) == 3 for g in groups[1:]):
        return float("".join(groups))
    if len(groups) == 2:
        return float(f"{groups[0]}.{groups[1]}")
    return float(groups[0]) if len(groups) == 1 else float("nan")


def amount(value: str) -> Amount | None:
    """The amount a cell opens with ("€150", "US$320", "60 per minute", "3,000"), or None
    (a version such as 1.14.0 is no amount)."""
    match = _LEADING_AMOUNT.match(value.strip())
    if not match:
        return None
    number = _number(match.group("number"))
    if number != number:  # NaN: not a number
        return None
    code = _currency(match.group("before")) or _currency(match.group("after"))
    return Amount(number, code, match.group(0).strip())


# --------------------------------------------------------------------------- wording
def _language(profile: QuestionProfile) -> str:
    return "de" if profile.language == "de" else "en"


def _joined(values: Sequence[str], language: str) -> str:
    """`a, b and c` (German `und`); `a; b and c` when a value holds a comma itself
    ("Repository Maintainer, Source Code Committer" is one section)."""
    if len(values) < 2:
        return "".join(values)
    comma = "; " if any("," in v for v in values) else ", "
    return f"{comma.join(values[:-1])} {'und' if language == 'de' else 'and'} {values[-1]}"


def _cites(numbers: Iterable[int]) -> str:
    return "".join(f"[{n}]" for n in dict.fromkeys(numbers))


# --------------------------------------------------------------------------- composing
def compose(
    question: str,
    sources: Sequence[tuple[int, str, str]],
    translations: Translations = (),
    whole: bool = True,
) -> Composed | None:
    """The composed answer to `question` from `sources` (`number, header, text`), or None
    when no composition clearly applies (see the module docstring). A part of a two-part
    question (`whole` False) lacks the other part's conditions: the values of a column are
    not listed for it."""
    if not is_followup(question) and _TWO_ASKS.match(question.strip()):
        return two_asks(question, sources, translations)
    profile = profile_question(question, translations)
    if profile.qtype in _NOT_COMPOSED or _REASON.search(profile.text):
        return None
    asked = Asked(profile, [f"{h} {t}" for _, h, t in sources])
    tables = read_tables(sources)
    if _MORE_OR.search(profile.text) and _OR.search(profile.text):
        return more_rows(profile, asked, tables)
    if profile.qtype != "yesno" and _ELLIPTIC_YESNO.match(profile.text):
        # "Any other vendors besides Dell and HP?": a yes/no without its verb
        return other_values(profile, asked, tables)
    if profile.qtype == "yesno":
        return (
            compare_rows(profile, asked, tables)
            or any_verdict(profile, asked, tables)
            or all_verdict(profile, asked, tables)
            or always_value(profile, asked, tables)
            or other_values(profile, asked, tables)
        )
    if profile.qtype == "count" and _COUNTS.search(profile.text):
        return _count(profile, asked, tables, sources)
    if _MOST.search(profile.text):
        return extreme_row(profile, asked, tables)
    filters = (_PASS_WORDS, _FAIL_WORDS, _BOTH)
    if _threshold(profile) or any(words.search(profile.text) for words in filters):
        return (
            in_both_tables(profile, asked, tables)
            or filter_rows(profile, asked, tables)
            or passed_columns(profile, asked, tables)
        )
    if whole and profile.plural and profile.qtype in _VALUE_ASKS:
        listed = column_values(profile, asked, tables)
        if listed is not None:
            return listed
    if _STEPS.search(profile.text):
        return list_steps(profile, asked, read_lists(sources))
    if _ACTIONS.search(profile.text):
        return action_items(profile, asked, sources)
    if _NUMBERED_ASK.search(profile.text):
        return numbered_section(profile, asked, sources)
    return None


def _count(
    profile: QuestionProfile,
    asked: Asked,
    tables: Sequence[Table],
    sources: Sequence[tuple[int, str, str]],
) -> Composed | None:
    """The rows, items, values, sections or named people a "how many" question counts."""
    noun = counted_noun(profile.text, profile.language)
    if _stated_count(asked, [text for _, _, text in sources], noun):
        return None  # the evidence states the number: a span reads it
    lists = read_lists(sources)
    return (
        count_dated_list(profile, lists, noun)
        or count_rows(profile, asked, tables, noun)
        or count_items(profile, asked, lists, noun)
        or count_values(profile, asked, tables, noun, [text for _, _, text in sources])
        or count_sections(profile, sources)
        or count_named(profile, asked, sources, noun)
    )


def _conditions(profile: QuestionProfile, asked: Asked, header: str, noun: str) -> set[str]:
    """The asked terms that select rows or items: not in the header (it selects the table
    or list), not the counted or asked-for noun, not the wording of the composition, no
    number of a threshold."""
    return _content(profile, asked, noun) - asked.found(header)


def _content(profile: QuestionProfile, asked: Asked, noun: str) -> set[str]:
    """The asked terms but the counted or asked-for noun, the wording of the composition,
    the number and currency of a threshold."""
    numbers = {m.group("number") for m in _THRESHOLD.finditer(profile.text)}
    skip = asked.found(noun) | _WORDING | numbers | _source_terms(profile, asked)
    skip |= {t for t in asked.terms if _currency(t)} | _GROUPS | _PAGE_PARTS | asked.unseen
    # a compound whose parts are terms too ("AIS-Team": ais, team) is asked by its parts
    skip |= {t for t in asked.terms if "-" in t and set(terms(t.replace("-", " "))) <= asked.terms}
    return set(asked.terms) - skip


def _source_terms(profile: QuestionProfile, asked: Asked) -> set[str]:
    """The asked terms only the question's source phrase says ("as per the contributions
    document", "laut dem Dokument …"): where the answer is written, not which rows or
    items are meant."""
    phrases = " ".join(m.group(0) for m in SOURCE_PHRASE.finditer(profile.text))
    rest = SOURCE_PHRASE.sub(" ", profile.text)
    return asked.found(phrases) - asked.found(rest) if phrases else set()


def _optional(profile: QuestionProfile) -> set[str]:
    """The terms of a German question's lower-case words (verbs, adjectives: "nahmen ...
    teil"): German capitalizes nouns, and names and numbers say which rows are meant, while
    a verb's form rarely occurs in an English wiki. They are conditions only where the
    evidence holds them (`_held`)."""
    if profile.language != "de":
        return set()
    words = TOKEN.findall(CONTEXT.sub(" ", profile.text))
    lower = set(terms(" ".join(w for w in words if w[:1].islower()), STOPWORDS))
    upper = set(terms(" ".join(w for w in words if not w[:1].islower()), STOPWORDS))
    return lower - upper


def _held(profile: QuestionProfile, held: set[str], wanted: set[str]) -> set[str] | None:
    """The wanted terms that `held` (the terms an evidence holds) holds, when it holds
    all but `_optional` ones; else None."""
    missing = wanted - held
    return None if missing - _optional(profile) else wanted - missing


def _table_terms(asked: Asked, table: Table) -> set[str]:
    """The asked terms a table holds in its header, column names and cells."""
    held = asked.found(table.header)
    for row in table.ordered:
        for name, value in row.pairs:
            held |= asked.found(f"{name} {value}")
    return held


def _naming_columns(table: Table) -> list[str]:
    """The columns that name rows: every row has a value there, and no value is an amount
    or a pass/fail verdict."""
    out = []
    for name in table.columns:
        values = [dict(r.pairs).get(name, "") for r in table.ordered]
        if all(v and amount(v) is None and _verdict(v) is None for v in values):
            out.append(name)
    return out


def _label_column(asked: Asked, table: Table, noun: str) -> str:
    """The column that names a row: the naming column the question's noun names
    ("machines" → Machine), else the first naming column (`_naming_columns`)."""
    wanted = asked.found(noun)
    naming = _naming_columns(table)
    for name in naming:
        if wanted & asked.found(name):
            return name
    return naming[0] if naming else table.columns[0]


def _label(row: Row, column: str) -> str:
    return dict(row.pairs).get(column, "") or row.pairs[0][1]


def _threshold(profile: QuestionProfile) -> tuple[str, Amount] | None:
    match = _THRESHOLD.search(profile.text)
    if not match:
        return None
    op = match.group("op").lower()
    value = _number(match.group("number"))
    if value != value:  # NaN: a version, no number
        return None
    code = _currency(match.group("before")) or _currency(match.group("after"))
    if re.fullmatch(_AT_LEAST, op, re.I):
        kind = ">="
    elif re.fullmatch(_AT_MOST, op, re.I):
        kind = "<="
    elif re.fullmatch(_GREATER, op, re.I):
        kind = ">"
    else:
        kind = "<"
    return kind, Amount(value, code, match.group("amount"))


def _meets(kind: str, value: float, limit: float) -> bool:
    return {
        ">": value > limit,
        "<": value < limit,
        ">=": value >= limit,
        "<=": value <= limit,
    }[kind]


def _amount_column(asked: Asked, table: Table, conditions: set[str]) -> str:
    """The column of amounts the question names: the one whose name holds most of the
    conditions and whose cells are mostly amounts (at least two, and more than those that
    are not: a row "Not rate-limited" says so in words and is compared with none); "" when
    none or two tie."""
    best: list[tuple[int, str]] = []
    for name in table.columns:
        named = len(asked.found(name) & conditions)
        values = [dict(r.pairs).get(name, "") for r in table.ordered]
        amounts = [amount(v) is not None or _unlimited(v) for v in values if not _empty(v)]
        if named and sum(amounts) >= 2 and sum(amounts) > len(amounts) - sum(amounts):
            best.append((named, name))
    best.sort(reverse=True)
    if not best or (len(best) > 1 and best[0][0] == best[1][0]):
        return ""
    return best[0][1]


def _selected(
    profile: QuestionProfile, asked: Asked, table: Table, noun: str
) -> tuple[list[Row], list[Row], str] | None:
    """The rows of a table that meet the question's conditions, the rows left out because
    their amount is in another currency than the question's, and the amount column
    compared (""); None when the table does not hold every condition or the question
    sets a threshold on no column of amounts."""
    conditions = _held(
        profile, _table_terms(asked, table), _conditions(profile, asked, table.header, noun)
    )
    if conditions is None:
        return None
    threshold = _threshold(profile)
    failing = bool(_FAIL_WORDS.search(profile.text))
    column = ""
    if threshold:
        column = _amount_column(asked, table, _content(profile, asked, noun))
        if not column:
            return None
        conditions -= asked.found(column)
    rows: list[Row] = []
    other_currency: list[Row] = []
    for row in table.ordered:
        if _CATCH_ALL.match(row.pairs[0][1]) or not conditions <= _row_terms(asked, row, failing):
            continue
        if threshold:
            kind, limit = threshold
            cell = amount(dict(row.pairs).get(column, ""))
            if cell is None:
                continue
            if limit.currency and cell.currency and cell.currency != limit.currency:
                other_currency.append(row)
                continue
            if not _meets(kind, cell.value, limit.value):
                continue
        rows.append(row)
    return rows, other_currency, column


def count_rows(
    profile: QuestionProfile, asked: Asked, tables: Sequence[Table], noun: str
) -> Composed | None:
    """ "How many X ...?" over the rows of a whole table (of any length) whose header or
    columns name every word of X ("build locations": a build configuration table names no
    locations): the rows that meet the question's conditions, counted and named. Over a
    table of which only some rows were found (at least `MIN_ROWS`), the count is a lower
    bound: "At least 5 teams: ... (from rows 1–6 and 9 of the table found)"."""
    language = _language(profile)
    for table in tables:
        naming = asked.found(table.header) | asked.found(" ".join(table.columns))
        if not table.complete and len(table.rows) < MIN_ROWS:
            continue
        if not asked.found(noun) & naming or _noun_terms(asked, noun) - naming:
            continue
        if _amount_column(asked, table, asked.found(noun)):
            continue  # "How many people ...?" over a People column asks for its value
        selected = _selected(profile, asked, table, noun)
        if selected is None:
            continue
        rows, other_currency, _ = selected
        if not rows or other_currency:
            continue
        label = _label_column(asked, table, noun)
        names = [_label(row, label) for row in rows]
        if len(set(names)) < len({row.pairs for row in rows}):
            continue  # the label column does not tell the counted rows apart ("UEFI, UEFI")
        count = f"{len(rows)}"
        if not table.complete:
            count = f"{'Mindestens' if language == 'de' else 'At least'} {count}"
        counted = _counted(noun, len(rows), language)
        text = f"{count} {counted}: {_joined(names, language)}{table.seen(language)}"
        return _composed(text, [row.source for row in rows])
    return None


# A number as a count states it: not part of a date, time, version or range ("3 Oct",
# "1:00", "1.2.3", "2026-10"), nor a year, followed by a word and maybe the word after it.
_STATED = re.compile(
    r"(?<![\w.,:/\-])(?!(?:19|20)\d\d\b)\d+(?:[.,]\d+)?(?![\w.,:/\-]*\d)"
    r"\s+(?P<word>[^\W\d_]+)(?:[ -](?P<next>[^\W\d_]+))?"
)


def _stated_count(asked: Asked, texts: Sequence[str], noun: str) -> bool:
    """Whether the evidence states the count a "how many X" question asks as a number
    followed by X, or by one word and X ("28 days of annual leave" for "Wie viele
    Urlaubstage ...?" or "How many days of leave ...?", "12 full-time employees"): then the
    number answers, and counting the rows or items that name X would answer another
    question (the holidays of a holiday table for the leave days)."""
    wanted = asked.found(noun)
    if not wanted:
        return False
    for text in texts:
        for match in _STATED.finditer(text):
            words = [match.group("word")]
            if match.group("next") and match.group("word").lower() not in STOPWORDS:
                words.append(match.group("next"))
            if any(wanted & asked.found(word) for word in words):
                return True
    return False


def count_items(
    profile: QuestionProfile, asked: Asked, lists: Sequence[ItemList], noun: str
) -> Composed | None:
    """ "How many X ...?" over a list whose heading or intro names X (not the page title
    alone: "Team Directory — Leadership" lists leaders, not teams), or whose intro brings
    in parts when X is a part noun ("the following elements:" for "compulsory fields",
    `core.list_counts.lists_parts`), and holds the asked
    terms the items do not: its items that hold every asked term found in some of its
    items but not all ("from the AIS team" → the items naming AIS). "How many people" counts
    the persons' names of a list whose items open with one (an item may name several:
    "Eric Chanudet, Nick Krasnoff; AIS Boston"); such a list is the one asked about when its
    heading or intro holds an asked term, or names people itself ("Attendees" for "Wie viele
    Personen nahmen teil?", whose verb the English heading does not hold). A count that
    names nothing ("How many were from the AIS team?", following "How many people
    attended?") counts the persons of a list whose heading names people."""
    unnamed = not terms(noun, STOPWORDS)
    people = unnamed or bool(set(terms(noun, STOPWORDS)) & _PEOPLE)
    if unnamed:
        noun = "Personen" if _language(profile) == "de" else "people"
    for found in lists:
        context = f"{found.header} {found.intro}"
        if people:
            if not all(_NAME.match(item) for item in found.items):
                continue
        elif not asked.found(noun) or not asked.found(noun) <= asked.found(_label_of(found)):
            if not lists_parts(noun, found.intro):
                continue
        in_items = [asked.found(item) for item in found.items]
        conditions = _held(
            profile, set().union(*in_items), _conditions(profile, asked, context, noun)
        )
        lists_people = people and bool(set(terms(_label_of(found), STOPWORDS)) & _PEOPLE)
        if unnamed and not lists_people:
            continue
        if conditions is None or not (asked.found(context) - _WORDING or lists_people):
            continue
        chosen = [
            item for item, met in zip(found.items, in_items, strict=True) if conditions <= met
        ]
        if people:
            chosen = list(dict.fromkeys(n for item in chosen for n in _NAME.findall(item)))
        if not chosen or (len(chosen) == 1 and any(c.isdigit() for c in chosen[0])):
            continue  # one item that holds a number states the count itself
        shown = _item_labels(chosen)
        language = _language(profile)
        text = f"{len(chosen)} {_counted(noun, len(chosen), language)}: {_joined(shown, language)}"
        return _composed(text, [found.source])
    return None


# A question that names a list it means ("as per the updated list of October 2016").
_NAMES_LIST = re.compile(r"\b(?:list|liste)\b", re.I)


def count_dated_list(
    profile: QuestionProfile, lists: Sequence[ItemList], noun: str
) -> Composed | None:
    """ "As per the list of October 2016, how many X ...?" over the list whose intro line is
    dated so ("More up to date list 10/13/2016:"): a page that keeps an older and an
    updated list of the same things names them by their dates, not by the things, so the
    date says which list is counted, and all its items are (`core.entities` reads both
    dates; a month matches any day of it)."""
    if not _NAMES_LIST.search(profile.text):
        return None
    dated = {e for e in entities(profile.text) if e.kind == "date" and len(e.value) > 4}
    for found in lists if dated else ():
        said = {e for e in entities(found.intro) if e.kind == "date"}
        if not any(a.matches(b) for a in dated for b in said):
            continue
        language = _language(profile)
        counted = _counted(noun, len(found.items), language)
        text = f"{len(found.items)} {counted}: {_joined(_item_labels(found.items), language)}"
        return _composed(text, [found.source])
    return None


def count_values(
    profile: QuestionProfile,
    asked: Asked,
    tables: Sequence[Table],
    noun: str,
    texts: Sequence[str],
) -> Composed | None:
    """ "How many X ...?" over a whole table with a column of X, named so or by the legend
    that spells out its short name ("GEN - Intel CPU architecture generation: ...",
    `core.column_legend`; "versions" or "types" of X are the values of a column of X,
    `_VALUE_KINDS`): the distinct values of that column in the rows that meet the
    question's conditions (the legend's words are none), counted and named ("4 Intel CPU
    architecture generations: SNB, IVB, HSW and SKL"). At least two: one value is read by
    a span."""
    wanted = _noun_terms(asked, noun)
    if not wanted:
        return None
    for table in tables:
        if not table.complete:
            continue
        described = legends(texts, table.columns)
        for column in table.columns:
            named = f"{column} {described.get(column, '')}"
            missing = wanted - asked.found(named)
            if missing == wanted or missing - _VALUE_KINDS:
                continue
            # the legend's words describe the counted column: no conditions on its rows
            selected = _selected(profile, asked, table, f"{noun} {named}")
            if selected is None:
                break
            first: dict[str, int] = {}
            for row in selected[0]:
                value = dict(row.pairs).get(column, "").strip()
                if value and not _empty(value):
                    first.setdefault(value, row.source)
            if len(first) < 2:
                break
            values = list(first)
            text = f"{len(values)} {noun}: {_joined(values, _language(profile))}"
            return _composed(text, list(dict.fromkeys(first.values())))
    return None


def count_sections(
    profile: QuestionProfile, sources: Sequence[tuple[int, str, str]]
) -> Composed | None:
    """ "How many (major) headings / sections ...?" over the page of the first source: its
    sections (`core.page_sections.top_sections`), counted and named, each cited by its
    first source."""
    noun = sections_noun(profile.text)
    if not sources or not noun:
        return None
    title = sources[0][1].partition(" — ")[0]
    headed = [(n, h.partition(" — ")[2]) for n, h, _ in sources if h.partition(" — ")[0] == title]
    sections = top_sections([heading for _, heading in headed])
    if not sections:
        return None
    cited = [next(n for n, h in headed if h == s or h.startswith(s + LEVELS)) for s in sections]
    names = [s.split(LEVELS)[-1] for s in sections]
    text = f"{len(names)} {noun}: {_joined(names, _language(profile))}"
    return _composed(text, cited)


def count_named(
    profile: QuestionProfile, asked: Asked, sources: Sequence[tuple[int, str, str]], noun: str
) -> Composed | None:
    """ "How many people X ...?" over the one sentence that names them
    (`core.sentence_names`): "4 people: A, B, C and D [n]"."""
    relation = _content(profile, asked, noun) - _PEOPLE
    found = named_in_sentence(profile, asked.found, relation, sources)
    if found is None:
        return None
    number, names = found
    noun = noun if set(terms(noun, STOPWORDS)) & _PEOPLE else "people"
    if _language(profile) == "de" and noun == "people":
        noun = "Personen"
    language = _language(profile)
    text = f"{len(names)} {_counted(noun, len(names), language)}: {_joined(names, language)}"
    return _composed(text, [number])


# The most words of an item's label ("Abstract Section: The RFC should provide ...").
LABEL_WORDS = 4


def _item_labels(items: Sequence[str]) -> list[str]:
    """The items as a count names them: their labels when every item is "Label:
    description" with a short label ("Title", "Abstract Section"), else the items."""
    labels = [item.partition(": ")[0] for item in items]
    if all(
        ": " in item and len(label.split()) <= LABEL_WORDS
        for item, label in zip(items, labels, strict=True)
    ):
        return labels
    return list(items)


def _noun_terms(asked: Asked, noun: str) -> set[str]:
    """The asked terms of a counted noun, a compound ("Build-Standorte") by its parts."""
    named = set(terms(noun.replace("-", " "), STOPWORDS)) & asked.terms
    return named or asked.found(noun)


# The singular of the plural nouns a count of people is asked with.
_ONE_PERSON = {"people": "person", "persons": "person", "personen": "Person", "leute": "Person"}


def _counted(noun: str, count: int, language: str = "en") -> str:
    """The counted noun as a count of `count` reads: "1 person", "7 people", "1 build
    location" (an English plural's last word in the singular; German ones are left)."""
    if count != 1:
        return noun
    if noun.lower() in _ONE_PERSON:
        return _ONE_PERSON[noun.lower()]
    if language == "de":
        return noun
    head, _, last = noun.rpartition(" ")
    if last.endswith(("xes", "ches", "shes", "sses")):
        last = last[:-2]
    elif last.endswith("ies"):
        last = f"{last[:-3]}y"
    elif re.fullmatch(r"[a-z]+s", last) and not last.endswith(("uses", "ss")):
        last = last[:-1]  # "statuses", "causes": left as they are
    return f"{head} {last}".strip()


def _label_of(found: ItemList) -> str:
    """What a list is called: its heading (the header after the page title) and intro."""
    _, _, heading = found.header.partition(" — ")
    return f"{heading} {found.intro}"


def filter_rows(profile: QuestionProfile, asked: Asked, tables: Sequence[Table]) -> Composed | None:
    """ "Which X ... above 150 euros / passed / both A and B?" over a whole table whose
    columns name X: the rows that meet every condition, named with their compared amount;
    rows in another currency than the question's are named as left out."""
    noun = " ".join(profile.focus)
    if not noun:
        return None
    for table in tables:
        naming = " ".join(_naming_columns(table))
        if not table.readable or not asked.found(noun) & asked.found(naming):
            continue
        selected = _selected(profile, asked, table, noun)
        if selected is None:
            continue
        rows, other_currency, column = selected
        if not rows and not other_currency:
            continue
        label = _label_column(asked, table, noun)
        if len(rows) == len(table.rows) and not column:
            continue  # no condition tells rows apart
        # (two rows of one machine, with two cards: the machine is named once)
        names = list(dict.fromkeys(_with_amount(row, label, column) for row in rows))
        language = _language(profile)
        text = _joined(names, language) if names else ("keine" if language == "de" else "none")
        if other_currency:
            left = _joined([_with_amount(r, label, column) for r in other_currency], language)
            text += (
                f"; in einer anderen Währung, nicht verglichen: {left}"
                if language == "de"
                else f"; in another currency, not compared: {left}"
            )
        return _composed(text + table.seen(language), [row.source for row in rows + other_currency])
    return None


def _with_amount(row: Row, label: str, column: str) -> str:
    name = _label(row, label)
    return f"{name} ({amount(dict(row.pairs)[column]).text})" if column else name


def passed_columns(
    profile: QuestionProfile, asked: Asked, tables: Sequence[Table]
) -> Composed | None:
    """ "Which tests did Dell 9010 pass?": the columns whose cell says pass (or fail, when
    the question asks for failures) in the one row the question names. The columns must be
    the things asked for: the question's "which X" is named by the table's header (the
    Measurement Test page's tests) and by no cell (else X are rows: "Which machines ...");
    the row holds at least two pass/fail cells (one is a lookup: "Result: Fail")."""
    failing = bool(_FAIL_WORDS.search(profile.text))
    focus = set(profile.focus)
    if not focus or not (failing or _PASS_WORDS.search(profile.text)):
        return None
    for table in tables:
        named = _named_rows(asked, table)
        cells = set().union(*(asked.found(v) for r in table.ordered for _, v in r.pairs))
        if len(named) != 1 or not focus <= asked.found(table.header) or focus & cells:
            continue
        (row,) = named
        verdicts = [(name, _verdict(value)) for name, value in row.pairs]
        if sum(verdict is not None for _, verdict in verdicts) < 2:
            continue
        # a column named by a condition of the question ("for legacy") is no answer
        said = asked.found(table.header) | _WORDING
        columns = [
            name
            for name, verdict in verdicts
            if verdict is (not failing) and not asked.found(name) - said
        ]
        if not columns:
            continue
        return _composed(_joined(columns, _language(profile)), [row.source])
    return None


def _named_rows(asked: Asked, table: Table) -> list[Row]:
    """The rows whose first or label cells hold a name or number the question names (a
    term with a digit or a capitalized name: "Dell 9010", "London"), and which no other
    row holds as well."""
    names = {
        t
        for t in asked.terms
        if any(c.isdigit() for c in t) or asked.profile.terms.get(t, 0.0) > 1.0
    } - asked.found(table.header)
    out = []
    for row in table.ordered:
        held = asked.found(" ".join(v for _, v in row.pairs[:2])) & names
        if held:
            out.append((len(held), row))
    if not out:
        return []
    top = max(count for count, _ in out)
    return [row for count, row in out if count == top]


# A cell saying there is no limit: the largest of any amounts ("Unlimited (fair use)").
_UNLIMITED = re.compile(r"^\W*(?:unlimited|unbegrenzt|unbeschränkt|no limit|kein limit)\b", re.I)


def _unlimited(value: str) -> bool:
    return bool(_UNLIMITED.match(value))


def extreme_row(profile: QuestionProfile, asked: Asked, tables: Sequence[Table]) -> Composed | None:
    """ "Which city has the highest hotel limit?": the row with the largest (or smallest)
    amount in the column the question names among the rows that meet the question's
    conditions ("in Germany"); per currency when the amounts are in several."""
    match = _MOST.search(profile.text)
    wants_max = bool(match.group("max"))
    noun = " ".join(profile.focus)
    language = _language(profile)
    for table in tables:
        if not table.readable or len(_named_rows(asked, table)) == 1:
            continue  # "the highest limit in Berlin" asks for one row's value
        conditions = _held(
            profile, _table_terms(asked, table), _conditions(profile, asked, table.header, noun)
        )
        column = _amount_column(asked, table, _content(profile, asked, noun))
        if not column or conditions is None:
            continue
        label = _label_column(asked, table, noun)
        conditions -= asked.found(column)
        by_currency: dict[str, list[tuple[float, Row]]] = {}
        in_words: list[Row] = []  # "Not rate-limited": compared with none
        unlimited: list[Row] = []  # "Unlimited (fair use)": above every amount
        for row in table.ordered:
            value = dict(row.pairs).get(column, "")
            cell = amount(value)
            if _CATCH_ALL.match(row.pairs[0][1]) or not conditions <= _row_terms(asked, row, False):
                continue
            if cell is not None:
                by_currency.setdefault(cell.currency, []).append((cell.value, row))
            elif _unlimited(value):
                unlimited.append(row)
            elif not _empty(value):
                in_words.append(row)
        if sum(len(v) for v in by_currency.values()) + len(unlimited) < 2:
            continue
        if wants_max and unlimited:  # no amount is above "Unlimited"
            names = _joined([_label(row, label) for row in unlimited], language)
            said = dict(unlimited[0].pairs)[column]
            text = extreme_sentence(names, len(unlimited) > 1, column, said, True, language)
            return _composed(text + table.seen(language), [row.source for row in unlimited])
        picked = []
        for values in by_currency.values():
            value = (max if wants_max else min)(v for v, _ in values)
            rows = [row for v, row in values if v == value]
            names = _joined([_label(row, label) for row in rows], language)
            amount_text = amount(dict(rows[0].pairs)[column]).text
            picked.append((f"{names}: {amount_text}", [r.source for r in rows]))
        text = "; ".join(p for p, _ in picked)
        if len(picked) == 1:  # one currency (the loop's only pass): a sentence
            text = extreme_sentence(names, len(rows) > 1, column, amount_text, wants_max, language)
        elif len(picked) > 1:
            text += (
                f" ({column}; verschiedene Währungen, nicht untereinander verglichen)"
                if language == "de"
                else f" ({column}; different currencies, not compared with each other)"
            )
        if in_words:
            names = _joined([_label(row, label) for row in in_words], language)
            said = "nicht als Zahl angegeben" if language == "de" else "not given as a number"
            text += f"; {said}: {names}"
        text += table.seen(language)
        return _composed(text, [n for _, numbers in picked for n in numbers])
    return None


# The question types whose plural "which X" may ask for the values of a column.
_VALUE_ASKS = frozenset(("what", "version"))


def _covering_column(asked: Asked, table: Table) -> str:
    """The one column the question's "which X" names whole ("Which Xen versions" → Xen
    Version, "Welche Host-Boots" → Host Boot): every word of its name is asked, and only
    as part of X; "" when none or several are, or when X holds a name the column does not
    ("Which Dell models": the values must name Dell, a filter, not a column)."""
    profile = asked.profile
    found = []
    for name in table.columns:
        stems = set(terms(name))
        named = asked.found(name)
        if stems and all(asked.found(stem) for stem in stems) and named <= profile.focus:
            found.append((name, named))
    if len(found) != 1:
        return ""
    name, named = found[0]
    left = profile.focus - named - _compounds(asked)
    if any(profile.terms.get(t, 0.0) >= ENTITY_WEIGHT for t in left):
        return ""
    return name


def _compounds(asked: Asked) -> set[str]:
    """The asked compounds whose parts are asked terms too ("Host-Boots": host, boot)."""
    return {t for t in asked.terms if "-" in t and set(terms(t.replace("-", " "))) <= asked.terms}


def _name_terms(profile: QuestionProfile, found: Iterable[str]) -> set[str]:
    """The terms among `found` that the question writes as a name or a number."""
    return {
        t
        for t in found
        if profile.terms.get(t, 0.0) >= ENTITY_WEIGHT or any(c.isdigit() for c in t)
    }


def _names(asked: Asked, table: Table, column: str) -> set[str]:
    """The names and numbers of the question (not those of the table's header, its asked
    column or the wording) that say which rows are meant ("with Dell Optiplex 7040")."""
    profile = asked.profile
    named = _name_terms(profile, asked.terms)
    skip = asked.found(table.header) | asked.found(column) | profile.focus | _WORDING
    return named - skip - _compounds(asked) - asked.unseen


def _asked_table(
    asked: Asked, tables: Sequence[Table], column_of: Callable[[Table], str]
) -> tuple[Table, str, float] | None:
    """(table, its column `column_of` finds, weight) of the table whose header holds most
    of the question's terms among those with such a column (the first on a tie); None when
    none has one."""
    found: list[tuple[float, Table, str]] = []
    for table in tables:
        column = column_of(table)
        if column:
            weight = math.fsum(asked.profile.terms.get(t, 0.0) for t in asked.found(table.header))
            found.append((weight, table, column))
    if not found:
        return None
    top = max(weight for weight, _, _ in found)
    _, table, column = next(entry for entry in found if entry[0] == top)
    return table, column, top


def _held_rows(asked: Asked, table: Table, column: str) -> tuple[set[str], list[tuple[int, Row]]]:
    """(the question's row-naming terms (`_names`), each row of the table with how many of
    them it holds)."""
    names = _names(asked, table, column)
    return names, [(len(asked.found(_row_text(row)) & names), row) for row in table.ordered]


def _row_text(row: Row) -> str:
    """A row's values, joined."""
    return " ".join(v for _, v in row.pairs)


def column_values(
    profile: QuestionProfile, asked: Asked, tables: Sequence[Table]
) -> Composed | None:
    """ "Which Xen versions were used in these tests?", "What were the host boots used with
    machine A and machine B?": the distinct values of the column the question's plural
    "which X" names (`_covering_column`) among the rows of one table that hold most of the
    question's names and numbers (`_names`: a row of machine A or of machine B), each value
    cited with the rows that hold it. The table is the one whose header holds most of the
    question's terms. A single value is left to the best span (it answers with one row),
    and so are values that differ in every row (a key column: the rows, listed, answer).
    Over a table of which only some rows were found, the answer says which rows it read."""
    chosen = _asked_table(asked, tables, lambda table: _covering_column(asked, table))
    if chosen is None:
        return None
    table, column, _ = chosen
    names, held = _held_rows(asked, table, column)
    most = max(count for count, _ in held)
    if names and not most:
        return None
    cited: dict[str, list[int]] = {}
    keys: dict[str, None] = {}
    for count, row in held:
        cells = dict(row.pairs)
        value = cells.get(column, "")
        if count < most or _empty(value) or _CATCH_ALL.match(row.pairs[0][1]):
            continue
        cited.setdefault(value, []).append(row.source)
        for name, other in row.pairs:
            if name != column and len(other.split()) <= KEY_WORDS and asked.found(other) & names:
                keys[other.rstrip(".;: ")] = None
    if len(cited) < 2 or len(cited) == sum(len(numbers) for numbers in cited.values()):
        return None  # one value, or one per row: the rows themselves answer (`listed_under`)
    language = _language(profile)
    values = _joined([f"{value} {_cites(sorted(set(n)))}" for value, n in cited.items()], language)
    title = table.header.split(" — ")[0]
    about = (
        f"{'für' if language == 'de' else 'for'} {_joined(list(keys)[:3], language)} "
        if keys
        else ""
    )
    if language == "de":  # a sentence naming its subject, not "Column für X in T: a und b"
        text = f"Die Werte von {column} {about}in {title} sind {values}"
    else:
        text = f"The {column} values {about}in {title} are {values}"
    used = sorted({n for numbers in cited.values() for n in numbers})
    return Composed(f"{text}{table.seen(language)}.", tuple(used))


# "Did any ... fail / pass?", "Hat irgendeine ... nicht bestanden?": a yes/no over the
# verdict column of a table's rows.
_ANY = re.compile(r"\b(any|anything|irgendeine?[nrms]?|irgendwelche[nrms]?)\b", re.I)
_NOT_PASSED = re.compile(
    r"\b(?:not|nicht|never|nie)\s+(?:\w+\s+)?(?:pass(?:ed)?|bestanden|erfolgreich)\b"
    r"|n't\s+pass\b",
    re.I,
)


def _verdict_column(table: Table) -> str:
    """The column holding most pass/fail verdicts (at least two, and at least half of its
    filled cells: "Result" with PASS, FAIL and PWE), or ""."""
    best = (1, "")
    for name in table.columns:
        values = [dict(r.pairs).get(name, "") for r in table.ordered]
        filled = [v for v in values if not _empty(v)]
        said = sum(_verdict(v) is not None for v in filled)
        if said > best[0] and 2 * said >= len(filled):
            best = (said, name)
    return best[1]


def _said_elsewhere(rows: Sequence[Row], column: str, failing: bool, language: str) -> str:
    """Where another cell of `rows` than the verdict `column` says the verdict a No denies
    (a notes cell "Power: FAIL - OXT-1591" of a row whose Result is PWE): that cell's words
    around it, quoted and cited ("a Notes/Test Data cell says "Power: FAIL - OXT-1591" [5]"),
    so the No is said of the column it read (issue 35); "" when none does."""
    words = _FAIL_WORDS if failing else _PASS_WORDS
    for row in rows:
        for name, value in row.pairs:
            for clause in re.split(r"[,;]", value):
                hit = words.search(clause)
                if name == column or hit is None or negated(clause):
                    continue
                before = clause[: hit.start()].split()[-2:]
                after = clause[hit.end() :].split()[:2]
                quoted = " ".join([*before, hit.group(0), *after]).strip(" -:")
                if language == "de":
                    return f"eine Zelle {name} sagt „{quoted}“ [{row.source}]"
                return f'a {name} cell says "{quoted}" [{row.source}]'
    return ""


def any_verdict(profile: QuestionProfile, asked: Asked, tables: Sequence[Table]) -> Composed | None:
    """ "Did any configuration fail the rc1 test?": Yes with the rows whose verdict column
    (`_verdict_column`) says fail (pass, when the question asks whether any passed), or No
    with the verdicts the rows say, over the rows of the table whose header holds most of
    the question's terms that hold most of its names and numbers (`_names`); said for the
    rows found when the table was not found whole."""
    if not _ANY.search(profile.text):
        return None
    failing = bool(_FAIL_WORDS.search(profile.text) or _NOT_PASSED.search(profile.text))
    if not failing and not _PASS_WORDS.search(profile.text):
        return None
    chosen = _asked_table(asked, tables, _verdict_column)
    if chosen is None or not chosen[2]:
        return None
    table, column, _ = chosen
    names, held = _held_rows(asked, table, column)
    most = max(count for count, _ in held)
    if names and not most:
        return None
    rows = [
        row for count, row in held if count == most and not _empty(dict(row.pairs).get(column, ""))
    ]
    if len(rows) < 2:
        return None
    language = _language(profile)
    yes, no = ("Ja", "Nein") if language == "de" else ("Yes", "No")
    title = table.header.split(" — ")[0]
    hits = [row for row in rows if _verdict(dict(row.pairs)[column]) is (not failing)]
    if hits:
        said = _rows_with_cell(hits, column, _label_column(asked, table, ""))
        return Composed(
            f"{yes}: {_joined(said[:5], language)}{table.seen(language)}.",
            tuple(sorted({r.source for r in hits})),
        )
    values = _cited_values(rows, column, language)
    said = _said_elsewhere(rows, column, failing, language)
    # Over part of a table the No says what it read: the rows found, counted (issue 35: "no
    # Result in … says failed" from 4 rows claimed the whole table).
    if language == "de":
        verdict = "fehlgeschlagen" if failing else "bestanden"
        scope = "" if table.complete else f" {len(rows)} gefundenen"
        text = f"{no}: keine der{scope} Zeilen in {title} ist {verdict} ({column}: {values})"
        if said:
            scope = "" if table.complete else f" der{scope} Zeilen"
            text = (
                f"{no}: kein {column}{scope} in {title} ist {verdict} ({column}: {values}),"
                f" aber {said}"
            )
    else:
        verdict = "failed" if failing else "passed"
        scope = "" if table.complete else f" {len(rows)}"
        found = "" if table.complete else " found"
        text = f"{no}: none of the{scope} rows{found} in {title} {verdict} ({column}: {values})"
        if said:
            scope = "" if table.complete else f" of the{scope} rows found"
            text = (
                f"{no}: no {column}{scope} in {title} says {verdict} ({column}: {values}),"
                f" but {said}"
            )
    return Composed(f"{text}{table.seen(language)}.", tuple(sorted({r.source for r in rows})))


# Words of a row's label beside its cell in a No over all rows ("Dell Optiplex 7040 ...").
LABEL_CLIP = 8


def _rows_with_cell(
    rows: Sequence[Row], column: str, label: str, clip: int | None = None
) -> list[str]:
    """Each row named by its `label` column (at most `clip` words) with its cell of
    `column` and its citation: "Dell 9010 (Result: Fail) [2]"."""
    out = []
    for row in rows:
        name = _label(row, label)
        name = clip_words(name, clip) if clip else name
        out.append(f"{name} ({column}: {dict(row.pairs)[column]}) [{row.source}]")
    return out


def _cited_values(rows: Sequence[Row], column: str, language: str) -> str:
    """The distinct cells of `column` among the rows, each with the citations of the rows
    that hold it: "Pass [3][4] and Fail [5]"."""
    cited: dict[str, list[int]] = {}
    for row in rows:
        cited.setdefault(dict(row.pairs)[column], []).append(row.source)
    return _joined([f"{v} {_cites(sorted(set(n)))}" for v, n in cited.items()], language)


# "Did all ... pass?", "Haben alle ... bestanden?": a yes/no over the verdict column of
# every row asked about.
_ALL = re.compile(r"\b(all|every|each|alle[nmrs]?|jede[nmrs]?|sämtliche[nmrs]?)\b", re.I)
# Passing said as the results' adjective: "zu bestandenen Resultaten geführt".
_PASSED_RESULTS = re.compile(r"\bbestandene[nmrs]?\b", re.I)


def all_verdict(profile: QuestionProfile, asked: Asked, tables: Sequence[Table]) -> Composed | None:
    """ "Did all GPU pass through tests with Windows 10 lead to Pass results?": over the rows
    of the asked table that hold most of the question's names (`any_verdict`), No with the
    rows whose verdict column says the opposite, Yes when every filled verdict says what is
    asked, saying how many rows it read, those with no verdict (not run) apart; None when a
    filled cell decides nothing ("PWE", "Unexecuted"), no row has a verdict, or the question
    names no rows. Over part of a table the Yes is said of the rows found (issue 35)."""
    if not _ALL.search(profile.text):
        return None
    failing = bool(_FAIL_WORDS.search(profile.text) or _NOT_PASSED.search(profile.text))
    if not failing and not _PASS_WORDS.search(profile.text):
        if not _PASSED_RESULTS.search(profile.text):
            return None
    chosen = _asked_table(asked, tables, _verdict_column)
    if chosen is None or not chosen[2]:
        return None
    table, column, _ = chosen
    names, held = _held_rows(asked, table, column)
    most = max(count for count, _ in held)
    if not names or not most:
        return None
    rows = [row for count, row in held if count == most]
    filled = [row for row in rows if not _empty(dict(row.pairs).get(column, ""))]
    verdicts = [_verdict(dict(row.pairs)[column]) for row in filled]
    if not filled or None in verdicts:
        return None
    language = _language(profile)
    yes, no = ("Ja", "Nein") if language == "de" else ("Yes", "No")
    wanted = not failing
    against = [row for row, verdict in zip(filled, verdicts, strict=True) if verdict != wanted]
    if against:
        said = _rows_with_cell(against, column, _label_column(asked, table, ""), LABEL_CLIP)
        return Composed(
            f"{no}: {_joined(said[:5], language)}.",
            tuple(sorted({r.source for r in against})),
        )
    values = _cited_values(filled, column, language)
    title = table.header.split(" — ")[0]
    unfilled = sorted(row.source for row in rows if row not in filled)
    count, empty = len(filled), len(unfilled)
    if language == "de":
        verdict = "fehlgeschlagen" if failing else "bestanden"
        found = "" if table.complete else " gefundene"
        rows_said = f"{count}{found}{'n' if count > 1 and found else ''} Zeile"
        rows_said += "n" if count > 1 else ""
        text = f"{yes}: die {rows_said} mit {column} in {title} "
        text += f"{'sind' if count > 1 else 'ist'} {verdict} ({column}: {values})"
        if empty:
            text += f"; {empty}{found} Zeile{'n' if empty > 1 else ''}"
            text += f" {'haben' if empty > 1 else 'hat'} kein {column} {_cites(unfilled)}"
    else:
        verdict = "failed" if failing else "passed"
        found = "" if table.complete else " found"
        text = f"{yes}: the {count} row{'s' if count > 1 else ''}{found} with a {column} in"
        text += f" {title} {verdict} ({column}: {values})"
        if empty:
            text += f"; {empty} row{'s' if empty > 1 else ''}{found}"
            text += f" {'have' if empty > 1 else 'has'} no {column} {_cites(unfilled)}"
    # The rows asked about are those read: they, not the whole table found, are cited.
    read = Table(table.header, table.number, {r.number: r for r in rows}, table.complete)
    return Composed(f"{text}{read.seen(language)}.", tuple(sorted({r.source for r in rows})))


# "Was the memory always 8G ...?", "War der Speicher immer 8G?": a yes/no whether one column
# holds the asked value in every row asked about.
_ALWAYS = re.compile(r"\b(always|every time|in all|immer|stets|jedes mal|in allen)\b", re.I)
# Units a value is written with or without ("8G", "8 GB"): compared without them.
_VALUE_UNIT = re.compile(r"(?<=\d)\s*([kmgt])i?b?\b", re.I)


def _same_value(cell: str, value: str) -> bool:
    """Whether a cell says the asked value however it is spaced or its unit abbreviated:
    "8 GB", "8GB" and "8G" are one value, "16G" another."""

    def plain(text: str) -> str:
        return re.sub(r"\s+", "", _VALUE_UNIT.sub(r"\1", text.strip().lower()))

    return plain(cell) == plain(value)


# A value with a digit as a question writes it ("8G", "8 GB", "2.0").
_QUANTITY = re.compile(r"\b\d+(?:[.,]\d+)*(?:\s*[kmgt]i?b?\b)?", re.I)


def _asked_value(profile: QuestionProfile, table: Table, column: str) -> str:
    """The question's value (`_QUANTITY`) that some row holds under `column` ("8G" of
    Memory, or "8 GB" against a cell "8G"); "" when none or several are."""
    cells = [dict(row.pairs).get(column, "") for row in table.ordered]
    found = {
        match.group(0)
        for match in _QUANTITY.finditer(CONTEXT.sub(" ", profile.text))
        if any(_same_value(cell, match.group(0)) for cell in cells)
    }
    return found.pop() if len(found) == 1 else ""


def always_value(
    profile: QuestionProfile, asked: Asked, tables: Sequence[Table]
) -> Composed | None:
    """ "Was the memory always 8G in Dell Haswell configurations?": over the rows of the
    table that hold most of the question's names (`_names`: Dell, Haswell), the cells of
    the column the question names (Memory) against the value it asks about (8G, a value
    with a digit that some row holds): Yes when every filled cell is that value, else No
    with the values the rows hold, each cited. One row cannot say "always": a Yes read
    from it would be a guess, and a row dump no answer. None when no column is named, the
    question names no rows, fewer than two rows hold its names, or every row found holds
    the value but the table was not found whole (`core.whole_tables` reads it whole)."""
    text = CONTEXT.sub(" ", profile.text)
    if not _ALWAYS.search(text):
        return None

    def valued(table: Table) -> str:  # the column the question names with a value of it
        named = [c for c in table.columns if asked.found(c) and _asked_value(profile, table, c)]
        return named[0] if named else ""

    chosen = _asked_table(asked, tables, valued)
    if chosen is None:
        return None
    table, column, _ = chosen
    value = _asked_value(profile, table, column)
    names = _names(asked, table, column) - asked.found(value)
    held = [(len(asked.found(_row_text(row)) & names), row) for row in table.ordered]
    most = max(count for count, _ in held)
    if not names or not most:
        return None
    rows = [
        row for count, row in held if count == most and not _empty(dict(row.pairs).get(column, ""))
    ]
    same = all(_same_value(dict(row.pairs)[column], value) for row in rows)
    if len(rows) < 2 or (same and not table.complete):
        return None  # a Yes needs every row: over rows found, only a No is sure
    return _always_said(profile, asked, table, column, value, rows, names)


def _always_said(
    profile: QuestionProfile,
    asked: Asked,
    table: Table,
    column: str,
    value: str,
    rows: Sequence[Row],
    names: set[str],
) -> Composed:
    """Yes or No whether every row's `column` cell is `value`, said of the rows' `names`,
    with the cells, cited."""
    same = all(_same_value(dict(row.pairs)[column], value) for row in rows)
    language = _language(profile)
    yes, no = ("Ja", "Nein") if language == "de" else ("Yes", "No")
    about = [
        other
        for row in rows[:1]
        for name, other in row.pairs
        if name != column and asked.found(other) & names and len(other.split()) <= KEY_WORDS
    ]
    title = table.header.split(" — ")[-1].rstrip(": ")
    label = _telling_column(asked, rows, column, names)
    cited: dict[str, list[Row]] = {}  # one value, however its rows write it ("8G", "8 GB")
    for row in rows:
        cell = dict(row.pairs)[column]
        spelled = next((v for v in cited if _same_value(v, cell)), cell)
        cited.setdefault(spelled, []).append(row)
    values = _joined(
        [
            f"{cell}{_labels(found, label, language)} {_cites(sorted({r.source for r in found}))}"
            for cell, found in cited.items()
        ],
        language,
    )
    count = len(rows)
    found = "" if table.complete else (" gefundenen" if language == "de" else " found")
    if language == "de":
        scope = f"in den {count}{found} Zeilen für {_joined(about, language)} in {title}"
        text = f"{yes if same else no}: {scope} ist {column} {'immer ' if same else ''}{values}"
    else:
        scope = f"in the {count} rows{found} for {_joined(about, language)} in {title}"
        text = f"{yes if same else no}: {scope}, {column} is {'always ' if same else ''}{values}"
    return Composed(f"{text}{table.seen(language)}.", tuple(sorted({r.source for r in rows})))


def _telling_column(asked: Asked, rows: Sequence[Row], column: str, names: set[str]) -> str:
    """The first column other than `column` whose short values tell `rows` apart, each
    saying more than the question's `names` and more than a letter or two (Model: "E7440",
    "Optiplex XE2", not T: "D", "L"); "" when none does."""
    for name, _ in rows[0].pairs:
        values = [dict(row.pairs).get(name, "") for row in rows]
        if name == column or any(_empty(v) or len(v.split()) > KEY_WORDS for v in values):
            continue
        named = any(set(terms(v)) <= asked.found(v) & names for v in values)
        short = all(len(v.strip()) <= 2 for v in values)
        if len(set(values)) == len(values) and not named and not short:
            return name
    return ""


def _labels(rows: Sequence[Row], column: str, language: str) -> str:
    """ " (E7440 and E6540)": the rows' cells of `column`, or "" without one."""
    if not column:
        return ""
    return f" ({_joined([dict(row.pairs)[column] for row in rows], language)})"


# "Were more versions of A tested, or B?", "Wurden mehr A oder B getestet?": which of two
# named kinds of rows a table holds more of.
_MORE_OR = re.compile(r"\b(more|most|mehr|meisten)\b", re.I)
_OR = re.compile(r"\s(?:or|oder)\s", re.I)


def compares_counts(question: str) -> bool:
    """Whether `question` asks which of two named kinds of rows are more ("Were more A or
    B tested?"): its answer counts every row of the table (`more_rows`); not when it asks
    which failed or passed more (each row's verdict would be needed)."""
    text = CONTEXT.sub(" ", question)
    verdicts = _PASS_WORDS.search(text) or _FAIL_WORDS.search(text)
    return bool(_MORE_OR.search(text) and _OR.search(text) and not verdicts)


def _named_run(asked: Asked, words: Sequence[str], page_names: Set[str] = frozenset()) -> set[str]:
    """The asked names and numbers of the first run of name words in `words`, as terms;
    up to `SKIPPED_WORDS` words before it that name nothing are skipped ("tested, or"). A
    word the question writes in lower case is a name when the tables write it as one
    (`page_names`: "latitudes" for "Dell Latitude 7480"; `more_rows` asks so only when the
    question writes no name there)."""
    profile = asked.profile
    found: set[str] = set()
    for position, word in enumerate(words):
        held = _name_terms(profile, asked.found(word)) | (asked.found(word) & page_names)
        if held:
            found |= held
        elif found or position >= SKIPPED_WORDS:
            break
    return found


SKIPPED_WORDS = 2


def more_rows(profile: QuestionProfile, asked: Asked, tables: Sequence[Table]) -> Composed | None:
    """ "Were more versions of Dell Latitude tested, or HP EliteDesks?": the rows of one
    table holding the names before "or" and those holding the names after it, counted and
    named, and which are more; None when the question asks about pass or fail (the rows
    would need a verdict each), when either kind has no row, or when they are as many."""
    if _PASS_WORDS.search(profile.text) or _FAIL_WORDS.search(profile.text):
        return None
    text = CONTEXT.sub(" ", profile.text)
    split = _OR.search(text)
    before, after = text[: split.start()].split(), text[split.end() :].split()
    page_names = _table_names(tables)
    first = _named_run(asked, reversed(before)) or _named_run(asked, reversed(before), page_names)
    second = _named_run(asked, after) or _named_run(asked, after, page_names)
    if not first or not second or first & second:
        return None
    language = _language(profile)
    for table in tables:
        groups: list[list[Row]] = [[], []]
        for row in table.ordered:
            held = asked.found(" ".join(v for _, v in row.pairs))
            for group, names in zip(groups, (first, second), strict=True):
                if names <= held:
                    group.append(row)
        if not all(groups) or len(groups[0]) == len(groups[1]) or set(groups[0]) & set(groups[1]):
            continue
        said = []
        for rows, names in zip(groups, (first, second), strict=True):
            named = [f"{_row_name(asked, table, row, names)} [{row.source}]" for row in rows]
            said.append(f"{len(rows)}: {_joined(named, language)}")
        more = 0 if len(groups[0]) > len(groups[1]) else 1
        words = [_words(before, first, reverse=True), _words(after, second)]
        than = "als" if language == "de" else "than"
        verdict = (
            f"{'Mehr' if language == 'de' else 'More'} {words[more]} ({said[more]})"
            f" {than} {words[1 - more]} ({said[1 - more]})"
        )
        used = [row.source for rows in groups for row in rows]
        return Composed(f"{verdict}{table.seen(language)}.", tuple(sorted(set(used))))
    return None


def _table_names(tables: Sequence[Table]) -> frozenset[str]:
    """The terms of the words the tables' cells write as names (capitalized or with a
    digit: "Latitude", "EliteDesk", "7480")."""
    words = {
        word
        for table in tables
        for row in table.ordered
        for _, value in row.pairs
        for word in value.split()
        if word[:1].isupper() or any(c.isdigit() for c in word)
    }
    return frozenset(terms(" ".join(words)))


def _row_name(asked: Asked, table: Table, row: Row, names: set[str]) -> str:
    """What a counted row is called: its cells that hold the kind's names when they say
    more than those ("Dell" and "Latitude 7480"), else its label ("Fleet Platform" for a
    row counted by its office, Berlin)."""
    said = " ".join(v for _, v in row.pairs if asked.found(v) & names)
    if set(terms(said)) - names:
        return said
    return _label(row, _label_column(asked, table, ""))


def _words(words: Sequence[str], names: set[str], reverse: bool = False) -> str:
    """The words of the question that name a kind of rows ("Dell Latitude")."""
    ordered = list(reversed(words)) if reverse else list(words)
    run: list[str] = []
    for word in ordered:
        if set(terms(word)) & names:
            run.append(word.strip(",;:?"))
        elif run:
            break
    return " ".join(reversed(run) if reverse else run)


# "Were any other vendors considered besides Dell and HP?": the values a column holds
# besides the ones named.
_OTHER = re.compile(r"\b(other|others|else|andere[nrms]?|sonst|noch)\b", re.I)
_BESIDES = re.compile(
    r"\b(?:besides|beside|apart from|other than|except|aside from|neben|außer|ausser)\s+", re.I
)
# A yes/no question without its verb ("Any other vendors besides Dell and HP?", "Noch
# andere Anbieter außer Dell?").
_ELLIPTIC_YESNO = re.compile(r"^\W*(?:any|irgendwelche[nrms]?|noch)\b", re.I)
_JOINERS = frozenset("and or und oder , & the a an der die das dem den des".split())


def _listed_names(
    asked: Asked, words: Sequence[str], page_names: Set[str] = frozenset()
) -> set[str]:
    """The asked names and numbers of the words that open `words`, joined by "and", "or"
    or commas, articles skipped ("Dell and HP in the ..." → dell, hp); a word the question
    writes in lower case is a name when the tables write it as one (`page_names`)."""
    profile = asked.profile
    found: set[str] = set()
    for word in words:
        held = _name_terms(profile, asked.found(word)) | (asked.found(word) & page_names)
        if held:
            found |= held
        elif word.lower() not in _JOINERS:
            break
    return found


def other_values(
    profile: QuestionProfile, asked: Asked, tables: Sequence[Table]
) -> Composed | None:
    """ "Were any other vendors considered besides Dell and HP?": the values of the column
    the question names (its name asked, its values holding the names after "besides") that
    are none of those names: Yes with them, or No with the values there are."""
    text = CONTEXT.sub(" ", profile.text)
    besides = _BESIDES.search(text)
    if not besides or not _OTHER.search(text):
        return None
    words = text[besides.end() :].replace(",", " , ").split()
    named = _listed_names(asked, words) or _listed_names(asked, words, _table_names(tables))
    if not named:
        return None
    language = _language(profile)
    for table in tables:
        for column in table.columns:
            if not asked.found(column) or asked.found(column) & named:
                continue
            values: dict[str, list[int]] = {}
            spelled: dict[str, str] = {}  # one value, however its rows write it ("DELL")
            for row in table.ordered:
                value = dict(row.pairs).get(column, "")
                if not _empty(value) and not _CATCH_ALL.match(value):
                    value = spelled.setdefault(value.casefold(), value)
                    values.setdefault(value, []).append(row.source)
            held = {v: asked.found(v) & named for v in values}
            if not values or not any(held.values()) or len(values) < 2:
                continue
            others = [v for v in values if not held[v]]
            cited = [f"{v} {_cites(sorted(set(values[v])))}" for v in (others or values)]
            yes, no = ("Ja", "Nein") if language == "de" else ("Yes", "No")
            if others:
                text = f"{yes}: {column} {_joined(cited, language)}"
            elif language == "de":
                text = f"{no}: {column} ist nur {_joined(cited, language)}"
            else:
                text = f"{no}: {column} is only {_joined(cited, language)}"
            used = others or list(values)
            numbers = sorted({n for v in used for n in values[v]})
            return Composed(f"{text}{table.seen(language)}.", tuple(numbers))
    return None


def compare_rows(
    profile: QuestionProfile, asked: Asked, tables: Sequence[Table]
) -> Composed | None:
    """ "Is the hotel limit in London higher than in Berlin?": the amounts of the two rows
    the question names in the column it names, Yes or No with both amounts; both amounts
    without a verdict when they are in different currencies."""
    match = _COMPARES.search(profile.text)
    if not match:
        return None
    more = bool(match.group("more"))
    language = _language(profile)
    for table in tables:
        named = _rows_in_order(asked, table, profile.text)
        if len(named) != 2:
            continue
        column = _amount_column(asked, table, _content(profile, asked, ""))
        if not column:
            continue
        label = _label_column(asked, table, "")
        first, second = (amount(dict(row.pairs).get(column, "")) for row in named)
        if first is None or second is None:
            continue
        both = (
            f"{_label(named[0], label)} {first.text} vs {_label(named[1], label)}"
            f" {second.text} ({column})"
        )
        if first.currency != second.currency:
            text = both + (
                "; verschiedene Währungen, nicht direkt vergleichbar"
                if language == "de"
                else "; different currencies, so not directly comparable"
            )
        else:
            says = first.value > second.value if more else first.value < second.value
            yes, no = ("Ja", "Nein") if language == "de" else ("Yes", "No")
            text = f"{yes if says else no}: {both}"
        return _composed(text, [row.source for row in named])
    return None


def _rows_in_order(asked: Asked, table: Table, question: str) -> list[Row]:
    """The rows whose label cell the question names, in the order the question names
    them; one row per name."""
    placed = []
    for row in table.ordered:
        label = row.pairs[0][1] if row.pairs else ""
        held = asked.found(label)
        if not held or held != set(terms(label)) & asked.terms:
            continue
        position = min(
            (m.start() for m in re.finditer(re.escape(label), question, re.I)), default=-1
        )
        if position >= 0:
            placed.append((position, row))
    placed.sort(key=lambda pair: pair[0])
    return [row for _, row in placed]


def list_steps(
    profile: QuestionProfile, asked: Asked, lists: Sequence[ItemList]
) -> Composed | None:
    """ "What are the steps to ...?": the items of the first list that, with its header and
    intro, holds every asked term but the wording (and whose header or intro holds one),
    numbered."""
    wanted = set(asked.terms) - _WORDING
    for found in lists:
        context = f"{found.header} {found.intro}"
        held = asked.found(context) | asked.found(" ".join(found.items))
        if not wanted or _held(profile, held, wanted) is None:
            continue
        if not asked.found(context) - _WORDING:
            continue
        steps = "; ".join(f"({i}) {item}" for i, item in enumerate(found.items, start=1))
        return _composed(steps, [found.source])
    return None


def two_asks(
    question: str, sources: Sequence[tuple[int, str, str]], translations: Translations
) -> Composed | None:
    """ "What is the Slack channel of Payments and who leads it?": each ask answered on its
    own (composed, or the best span), the second from the row that answered the first when
    that row answers it, else from the same page section; "X [n], and Y [m]", a bare number
    named by its column and the row by its key ("For Dell 7040: BIOS 1.14.0, and ..."); two
    cells of one row said as a sentence about the row ("For Dell Optiplex 7050, BIOS is
    1.12.2 and EFI is Pass [2].", `core.cell_sentences.cells_sentence`)."""
    match = _TWO_ASKS.match(question.strip())
    first_ask, second_ask = match.group("first") + "?", match.group("second") + "?"
    first = _part(first_ask, sources, translations)
    if first is None:
        return None
    text, numbers, top = first
    second = None
    if top is not None and top[1].kind == "row":
        number, span = top
        header, body = next((h, t) for n, h, t in sources if n == number)
        pairs = units(body)[span.position].pairs
        row = "Row 1 in Table 1: " + ", ".join(f"{name} is {value}" for name, value in pairs)
        second = _part(second_ask, [(number, header, row)], translations)
    if second is None:
        headers = {h for n, h, _ in sources if n in numbers}
        carried = f"{second_ask} (context: {first_ask.rstrip('?')})"
        second = _part(carried, [s for s in sources if s[1] in headers], translations)
    if second is not None and _plain(second[0]) == _plain(text):
        second = None  # the first ask's answer again
    if second is None and _COMMA_JOINED.search(question) and _stands_alone(second_ask):
        second = _part(second_ask, sources, translations)  # answered in another section
    if second is None or _plain(second[0]) == _plain(text):
        return None
    other, more, _ = second
    values = [v for v in re.split(r",\s*|;\s*", _plain(text)) if v]
    if values and all(v in _plain(other) for v in values):
        return Composed(other, more)  # the second answer's sentence says the first too
    if numbers == more and top is not None and second[2] is not None:
        cells = _row_cells(top[1], second[2][1])
        if cells:  # two cells of one row: a sentence about the row
            key = [k for k in top[1].row_key.split(", ") if k and k not in dict(cells).values()]
            said = cells_sentence(", ".join(key), cells, question_language(question))
            return Composed(f"{said[:-1]} {_cites(numbers)}.", tuple(numbers))
    if numbers == more:
        text = text[: -len(_cites(numbers))].rstrip()
    joiner = "und" if question_language(question) == "de" else "and"
    said = f"{text}, {joiner} {other}"
    if top is not None and top[1].row_key and not _plain(text).startswith(_plain(top[1].answer)):
        # bare numbers were labelled with their columns: say which row they are of
        key = [k for k in top[1].row_key.split(", ") if _plain(k) not in _plain(said)]
        if key:
            said = f"{'Für' if joiner == 'und' else 'For'} {', '.join(key)}: {said}"
    return Composed(said, tuple(sorted({*numbers, *more})))


def _stands_alone(ask: str) -> bool:
    """Whether the second ask of a two-part question names its own subject ("what do I do if
    UDP is blocked on hotel Wi-Fi?"), so another section of the sources may answer it: no
    pronoun points back to the first ask's ("who leads it?"; a German article before a noun,
    "das VPN", is no pointer) and it has `MIN_ALONE_WORDS` words at least."""
    bare = _ARTICLE_BEFORE_NOUN.sub("", ask)
    return not _POINTS_BACK.search(bare) and len(re.findall(r"\w+", ask)) >= MIN_ALONE_WORDS


def _row_cells(first: Span, second: Span) -> list[tuple[str, str]]:
    """The (column, value) cells of two answers that are single cells of one table row
    (the same unit), each with its column; [] otherwise."""
    if first.kind != "row" or second.kind != "row" or first.unit != second.unit:
        return []
    if not (first.label and second.label) or first.parts or second.parts:
        return []
    if first.label == second.label:
        return []
    return [(s.label, s.answer.removeprefix(f"{s.label}: ")) for s in (first, second)]


def _part(
    ask: str, sources: Sequence[tuple[int, str, str]], translations: Translations
) -> tuple[str, tuple[int, ...], tuple | None] | None:
    """One ask of a two-part question answered: (text with citations, sources used, the
    best (number, span) when a span answered), or None when its best span covers under
    `MIN_PART_SUPPORT` of its terms, is a whole table row (no cell answers it) or holds no
    value of the asked type (a person for "who", a date for "when", a version, a
    number)."""
    composed = compose(ask, sources, translations, whole=False)
    if composed is not None:
        return composed.text, composed.sources, None
    spans = best_spans(ask, sources, translations)
    if not spans or spans[0][1].support < MIN_PART_SUPPORT:
        return None
    number, span = spans[0]
    if span.kind == "row" and _plain(span.unit).startswith(_plain(span.answer)):
        return None  # the whole row: no cell answers the ask
    profile = profile_question(ask, translations)
    if profile.qtype in TYPED_VALUES and not typed_values(profile.qtype, span.answer, profile):
        return None  # "which version" answered without a version
    value = span.answer
    if span.kind == "row" and span.label and not re.search(r"[^\W\d]{2}", value):
        value = f"{span.label} {value}"  # "BIOS 1.14.0", not a bare "1.14.0"
    return f"{value} [{number}]", (number,), spans[0]


def _plain(text: str) -> str:
    """Text without citations and ellipses, in lower case, spaces collapsed."""
    return " ".join(re.sub(r"\[\d+\]|…", " ", text).lower().split())


def _numbered(items: Sequence[str]) -> str:
    """Items as "(1) …; (2) …", the first `MAX_LISTED` clipped to `LISTED_WORDS` words each,
    and how many more there are ("; (+3)")."""
    listed = "; ".join(
        f"({i}) {clip_words(item, LISTED_WORDS).rstrip('.;')}"
        for i, item in enumerate(items[:MAX_LISTED], start=1)
    )
    more = len(items) - MAX_LISTED
    return f"{listed}; (+{more})" if more > 0 else listed


def _composed(text: str, numbers: Sequence[int]) -> Composed:
    used = tuple(sorted(set(numbers)))
    return Composed(f"{text} {_cites(used)}".strip(), used)


# --------------------------------------------------------------------------- nested lists
# The most items of a list shown under its intro, and the words each keeps (set by design:
# a reply in Slack stays readable).
MAX_LISTED = 8
LISTED_WORDS = 40
# Question forms that ask for one value: a list under the best line does not answer them.
_ONE_VALUE = frozenset(("yesno", "count"))
# A question that asks for several things: "What are ...", "Which ... were", "Welche sind".
_SEVERAL = re.compile(r"\b(are|were|sind|waren|list|all|alle)\b", re.I)


@dataclass(frozen=True)
class _Line:
    """One line of an evidence: its indentation, whether it is a list item, and its text
    without the list marker."""

    indent: int
    item: bool
    text: str


def _lines(text: str) -> list[_Line]:
    out = []
    for raw in text.split("\n"):
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip())
        item = bool(_ITEM.match(raw)) and not _ROW.match(raw.strip())
        body = _ITEM.sub("", raw, count=1) if item else raw
        out.append(_Line(indent, item, " ".join(body.split())))
    return out


def _children(lines: Sequence[_Line], at: int) -> list[str]:
    """The items directly under line `at`: the items indented deeper that follow it (or,
    for a line that is no item and ends with ":", the items that follow it), up to the
    next line at its level."""
    head = lines[at]
    out: list[str] = []
    level = None
    for line in lines[at + 1 :]:
        deeper = line.indent > head.indent or (not head.item and line.item)
        if not deeper or not line.item:
            break
        level = line.indent if level is None else level
        if line.indent == level:
            out.append(line.text)
    return out


def _last_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])", text.strip())[-1]


def listed_under(
    question: str,
    sources: Sequence[tuple[int, str, str]],
    number: int,
    answer: str,
    whole: str,
    translations: Translations = (),
) -> Composed | None:
    """The items a list intro announces, when the best span (`answer`, cut from the line
    `whole` of source `number`) is that intro or one of its items: "Some PRs can get
    rejected right up front. These are ones that ...:" answers with the reasons listed
    under it; the first of "The basic approaches are:" sub-items answers "What are the
    basic approaches ...?" with all of them. An item answers alone when the question asks
    for one value (yes/no, a count), when the span is a value cut from its line, or when
    the intro holds no asked term the item lacks (or the question asks for one thing: "is",
    "was"); and a list none of whose items holds an asked term is no answer, unless its
    intro ends with ":" and holds every asked term ("Exit criteria for staging:"). An intro
    that ends with ":" is shown from its last sentence. "Intro: (1) a; (2) b [n]"."""
    profile = profile_question(question, translations)
    if profile.qtype in _ONE_VALUE or not whole:
        return None
    if len(answer.rstrip(" …").split()) < 0.8 * len(whole.split()):
        return None  # a value cut from its line answers by itself
    text = next((t for n, _, t in sources if n == number), "")
    lines = _lines(text)
    wanted = " ".join(whole.split())
    at = next((i for i, line in enumerate(lines) if wanted and wanted in line.text), None)
    if at is None:
        return None
    asked = Asked(profile, [text])
    intro, items = lines[at].text, _children(lines, at)
    # an intro ending with ":" that holds every asked term (but German words no evidence
    # holds: `Asked.unseen`) announces the answer in its items
    held = asked.found(intro)
    announces = intro.endswith(":") and held and not asked.terms - held - _WORDING - asked.unseen
    if len(items) < 2 and intro.endswith(":") and at == len(lines) - 1:
        header = next((h for n, h, _ in sources if n == number), "")
        return _rows_under(profile, asked, intro, header, sources)
    if len(items) < 2:
        announces = False
        parent = _parent(lines, at)
        if parent is None or not _SEVERAL.search(profile.text):
            return None
        intro, items = lines[parent].text, _children(lines, parent)
        if not asked.found(_last_sentence(intro)) - asked.found(lines[at].text):
            return None  # the intro adds nothing the question asks for: the item answers
    if len(items) < 2 or not (announces or asked.found(" ".join(items)) - _WORDING):
        return None
    if intro.endswith(":"):
        intro = _last_sentence(intro)
    return _composed(f"{intro.rstrip(' .:;')}: {_numbered(items)}.", [number])


def _rows_under(
    profile: QuestionProfile,
    asked: Asked,
    intro: str,
    header: str,
    sources: Sequence[tuple[int, str, str]],
) -> Composed | None:
    """The rows of the table an intro ending with ":" announces, when the intro closes its
    source and a table under the same heading follows in others ("Some endpoints have
    tighter limits ...:" over the endpoints' rows): each row named, with its cell in a
    column the question names ("limits" → Limit)."""
    table = next((t for t in read_tables(sources) if t.header == header and t.readable), None)
    if table is None:
        return None
    label = _label_column(asked, table, " ".join(profile.focus))
    named = [c for c in table.columns if c != label and asked.found(c) - _WORDING]
    listed = []
    for row in table.ordered:
        cells = dict(row.pairs)
        said = f" ({cells[named[0]]})" if named and cells.get(named[0]) else ""
        listed.append(f"{_label(row, label)}{said}")
    language = _language(profile)
    text = f"{_last_sentence(intro).rstrip(' .:;')}: {'; '.join(listed)}{table.seen(language)}"
    return _composed(text, [row.source for row in table.ordered])


def _parent(lines: Sequence[_Line], at: int) -> int | None:
    """The line an item is listed under: the nearest line before it that is indented less
    (or, for an item at the left margin, a line that is no item and ends with ":")."""
    line = lines[at]
    if not line.item:
        return None
    for index in range(at - 1, -1, -1):
        before = lines[index]
        if before.indent < line.indent or (not before.item and before.text.endswith(":")):
            return index
        if not before.item:
            return None
    return None


# --------------------------------------------------------------------------- action items
_ACTIONS = re.compile(
    r"\b(action items?|action points?|actions|to-?dos?|next steps|aktionspunkte\w*"
    r"|aufgaben|maßnahmen|nächsten schritte)\b",
    re.I,
)
# A minutes line that records an action ("ACTION: Rich to document it", "TODO: ...").
_ACTION_LINE = re.compile(
    r"^\s*(?:(?:[-*•]\s*)?(?:action(?: item)?|todo|to-do|aufgabe)\s*:|[-*•]\s*action\s)"
    r"\s*(\S.*)$",
    re.I,
)
# Who an action is for: its words before "to", "will", "should" or a colon, at most six.
_ACTION_SUBJECT = re.compile(
    r"^(?P<who>(?:\S+\s+){0,5}?\S+?)\s+(?:to|will|should|soll|wird)\b", re.I
)


def action_items(
    profile: QuestionProfile, asked: Asked, sources: Sequence[tuple[int, str, str]]
) -> Composed | None:
    """ "What were the action items for Rich in the call on 15 December?": the lines of one
    page that record an action ("ACTION: ...", "TODO: ...") or the items under an "Action
    items" heading, of the page whose title holds most asked terms; those whose subject
    (the words before "to": "Rich", "Ross and James") holds an asked name when any does,
    else all, or none when the question names a person (a name outside the page title);
    "Action items: (1) a [n]; (2) b [m]"."""
    found: dict[str, list[tuple[str, int]]] = {}
    for number, header, text in sources:
        title, _, heading = header.partition(" — ")
        under_heading = bool(_ACTIONS.fullmatch(heading.split(" > ")[-1].strip()))
        for line in text.split("\n"):
            match = _ACTION_LINE.match(line)
            item = _ITEM.match(line) and not _ROW.match(line.strip())
            if match:
                action = match.group(1).strip()
            elif under_heading and item:
                action = _ITEM.sub("", line, count=1).strip()
            else:
                continue
            if action and action not in [a for a, _ in found.get(title, [])]:
                found.setdefault(title, []).append((action, number))
    if not found:
        return None
    title = max(found, key=lambda t: len(asked.found(t)))  # first of the best, in order
    if not asked.found(title) - _WORDING:
        return None
    actions = found[title]
    subjects = [_ACTION_SUBJECT.match(a) for a, _ in actions]
    named = [
        pair
        for pair, subject in zip(actions, subjects, strict=True)
        if subject and asked.found(subject.group("who")) - asked.found(title)
    ]
    people = [n for n in _NAME.findall(profile.text) if asked.found(n) - asked.found(title)]
    if people and not named:
        return None  # the actions found are not the asked person's
    chosen = named or actions
    listed = "; ".join(
        f"({i}) {clip_words(a, LISTED_WORDS).rstrip('.')} [{n}]"
        for i, (a, n) in enumerate(chosen[:MAX_LISTED], start=1)
    )
    frame = "Aktionspunkte" if _language(profile) == "de" else "Action items"
    return Composed(f"{frame}: {listed}", tuple(sorted({n for _, n in chosen})))


# --------------------------------------------------------------------------- sections
# A question that asks what a section says rather than for one fact.
_ABOUT = re.compile(
    r"\b(tell (?:me|us) (?:\w+ ){0,3}about|background|overview|(?:what|which) information"
    r"|describe|summari[sz]e|erzähl\w*|hintergrund\w*|überblick|welche informationen"
    r"|beschreib\w*|zusammen\w*)\b",
    re.I,
)
# The most words of a paragraph shown for such a question (set by design: a Slack reply).
PARAGRAPH_WORDS = 90


def about_section(
    question: str,
    sources: Sequence[tuple[int, str, str]],
    number: int,
    whole: str,
    translations: Translations = (),
) -> Composed | None:
    """ "Tell me about the background of X", "What information is there on derivative
    works?": the paragraph the best sentence (`whole`, in source `number`) stands in, when
    the paragraph says more than that sentence and the source's heading names what is
    asked (the section is about it); cut to `PARAGRAPH_WORDS`."""
    if not _ABOUT.search(question):
        return None
    profile = profile_question(question, translations)
    asked = Asked(profile)
    header, text = next(((h, t) for n, h, t in sources if n == number), ("", ""))
    heading = header.partition(" — ")[2].split(" > ")[-1]
    wanted = " ".join(whole.split())
    line = next(
        (" ".join(raw.split()) for raw in text.split("\n") if wanted in " ".join(raw.split())), ""
    )
    if not wanted or len(line.split()) <= len(wanted.split()) or not asked.found(heading):
        return None
    return _composed(clip_words(line, PARAGRAPH_WORDS), [number])


# --------------------------------------------------------------------------- intersections
# "both A and B", "sowohl (in Bezug auf) A als auch (auf) B": the two things asked for.
_BOTH_PAIR = re.compile(
    r"\bboth\s+(?:(?:with|in|on|for|under)\s+)?(?P<a>[\w.-]+),?\s+and\s+"
    r"(?:(?:with|in|on|for|under)\s+)?(?P<b>[\w.-]+)"
    r"|\bsowohl\s+(?:(?:in bezug auf|bezüglich|für|mit|auf|im|in|unter)\s+)?(?P<c>[\w.-]+),?"
    r"\s+als auch\s+(?:(?:für|mit|auf|im|in|unter)\s+)?(?P<d>[\w.-]+)",
    re.I,
)


def in_both_tables(
    profile: QuestionProfile, asked: Asked, tables: Sequence[Table]
) -> Composed | None:
    """ "Which machines were tested with both legacy and EFI for 9.0.2?" over a page whose
    results are one table per kind under one heading ("... > OpenXT 9.0.2 > Legacy:" and
    "... > OpenXT 9.0.2 > EFI:"): the rows named in both tables (by the column the
    question's noun names), of the pair of tables whose shared heading holds most asked
    terms; each table readable (`Table.readable`)."""
    match = _BOTH_PAIR.search(profile.text)
    if not match:
        return None
    kinds = [
        set(terms(w))
        for w in (match.group("a") or match.group("c"), match.group("b") or match.group("d"))
    ]
    if not all(kinds):
        return None
    by_prefix: dict[str, list[Table | None]] = {}
    for table in tables:
        prefix, _, last = table.header.rpartition(" > ")
        last_terms = set(terms(last))
        for index, kind in enumerate(kinds):
            if kind <= last_terms and table.readable:
                pair = by_prefix.setdefault(prefix, [None, None])
                pair[index] = pair[index] or table
    pairs = [(p, t) for p, t in by_prefix.items() if all(t)]
    if not pairs:
        return None
    prefix, (first, second) = max(pairs, key=lambda pair: len(asked.found(pair[0])))
    noun = " ".join(profile.focus)
    label_a, label_b = _label_column(asked, first, noun), _label_column(asked, second, noun)
    names_b = {_label(row, label_b).lower(): row for row in second.ordered}
    both = [
        (row, names_b[_label(row, label_a).lower()])
        for row in first.ordered
        if _label(row, label_a).lower() in names_b
    ]
    if not both:
        return None
    language = _language(profile)
    names = _joined([_label(row, label_a) for row, _ in both], language)
    seen = first.seen(language) if not first.complete else second.seen(language)
    return _composed(names + seen, [r.source for pair in both for r in pair])


# --------------------------------------------------------------------------- numbered sections
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "erste": 1, "ersten": 1, "erster": 1, "erstes": 1, "zweite": 2, "zweiten": 2,
    "zweiter": 2, "dritte": 3, "dritten": 3, "dritter": 3, "vierte": 4, "vierten": 4,
}  # fmt: skip
# "my first day", "the second week", "am ersten Tag", "in week 1", "Tag 1".
_NUMBERED_ASK = re.compile(
    rf"\b(?:(?P<ordinal>{'|'.join(_ORDINALS)})\s+(?P<noun>[^\W\d_]{{3,}})"
    r"|(?P<noun2>[^\W\d_]{3,})\s+(?P<number>\d{1,2}))\b",
    re.I,
)
_NUMBERED_HEADING = re.compile(r"^(?P<noun>[^\W\d_]{3,})\s+(?P<number>\d{1,2})$")


def numbered_section(
    profile: QuestionProfile, asked: Asked, sources: Sequence[tuple[int, str, str]]
) -> Composed | None:
    """ "What should I do on my first day?" / "am ersten Tag": the items of the list under
    the numbered heading the question names ("Day 1", "Week 2", "Tag 1"), an ordinal read
    as its number; "Day 1: (1) a; (2) b [n]". Only a heading that is exactly a noun and a
    number, the noun the question's (or its translation), and a section that is a list."""
    match = _NUMBERED_ASK.search(profile.text)
    if match.group("ordinal"):
        number, noun = _ORDINALS[match.group("ordinal").lower()], match.group("noun")
    else:
        number, noun = int(match.group("number")), match.group("noun2")
    wanted = asked.found(noun) or set(terms(noun))
    for source, header, text in sources:
        heading = header.partition(" — ")[2].split(" > ")[-1].strip()
        named = _NUMBERED_HEADING.match(heading)
        if not named or int(named.group("number")) != number:
            continue
        if not wanted & (asked.found(named.group("noun")) | set(terms(named.group("noun")))):
            continue
        lines = _lines(text)
        items = [line.text for line in lines if line.item and line.indent == lines[0].indent]
        if len(items) < 2 or not all(line.item for line in lines[:1]):
            continue
        return _composed(f"{heading}: {_numbered(items)}.", [source])
    return None
