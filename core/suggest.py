"""Suggested follow-up questions: up to three questions the user may want to ask next.

With an LLM configured the model proposes them in the answer call (`core.answer`,
`Answer.suggestions`); `follow_ups` keeps the in-scope ones and, when the model proposed
none or none is in scope, falls back to questions built offline from the cited page.

Offline, the questions are made from facts of the cited page that the conversation has not
touched yet, in the question's language (`core.questions.question_language`), each a
self-contained question a click can ask as a normal turn:

- the neighbouring row of the table the question asked about: the row that differs in one
  of the cells the question named (its key cells), the next one first ("... in week 2?" →
  "... in week 3?");
- another column of the same row ("Who is the secondary ...?" → "Who is the primary ...?");
- another item of a list of `label: text` items ("... in Berlin?" → "... in Bristol?");
- a section of the page the question did not touch ("What are the Hotel and meal limits?").

A row or item question is the user's own question with the named value changed (only the
words in which the two values differ, so "Woche 2" becomes "Woche 3" for the page's "Week 3"),
when the question names it literally and stands on its own; otherwise a generic question
from the row's key cells and the column's name, worded by the type of the value it asks for
(a person: "Who is the <column> for <keys>?", a date: "When ...", an amount: "How much ...",
else "What ..."; German "Wer/Wann/Wie hoch/Was ist <column> für <keys>?"), with the page
title when the question named it. Page values are quoted as the page wrote them.

A fact the conversation already asked or was offered (the earlier questions and suggestions,
`earlier`) is not suggested again, so the suggestions change from turn to turn.

A suggestion is shown only when it is in scope: its own retrieval (`search`, top
`SEARCH_K`) must find the row, item or section it asks about, and the best span of those
results, ranked as the offline answerer ranks them (`core.spans.best_spans`), must come
from that page and support an answer at least as well as the answerer's decline threshold
(the `answer_min_support` settings), so a click does not lead to "I could not find that"
or to another page. A model's free-text question names no row or section, so it is in
scope when the best span of its own top results supports it that well. At most
`MAX_CHECKS` candidates are checked (one search each).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import zip_longest

from core.entities import entities
from core.extractive import language_threshold
from core.index import EvidenceIndex
from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS
from core.pages import Evidence
from core.questions import CONTEXT, question_language, terms
from core.retrieve import Retriever, ScoredEvidence
from core.spans import best_spans, row_pairs

__all__ = [
    "MAX_SUGGESTIONS",
    "Candidate",
    "candidates",
    "follow_ups",
    "in_scope",
    "suggest",
    "suggest_from_page",
]

# Limits set by design, not tuned (no figure was used to choose them).
MAX_SUGGESTIONS = 3
MAX_CHECKS = 6  # candidates checked against retrieval per answer: each check is one search
SEARCH_K = 3  # a suggestion is in scope when its row or section is among the top results
MAX_HEADING_WORDS = 8
SHORT_HEADING_WORDS = 3  # a heading this short is named with its page title
MAX_LABEL_WORDS = 5
MAX_COLUMN_WORDS = 6
MAX_TITLE_WORDS = 6
MAX_KEY_WORDS = 8  # a generic question names its row by at most this many words
NEIGHBOURS = 2  # rows (or items) offered per changed cell: the next, then the previous

Search = Callable[[str], Sequence[ScoredEvidence]]

_ROW = re.compile(r"^Row (\d+) in Table (\d+):\s*(.*)$")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_LABELLED = re.compile(r"^([^:]{1,60}?):\s+\S")
_GENERIC_COLUMN = re.compile(r"^Column \d+$")
_TRAILING = re.compile(r"[\s:;,.!?]+$")
# A day and a month name ("Mon 12 Oct", "12. Oktober", "Oct 12"); not "may" in a sentence.
_MONTH_NAMES = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june"
    "|july|august|september|october|november|december|januar|februar|märz|mai|juni|juli"
    "|oktober|okt|dezember|dez"
)
_DAY_MONTH = re.compile(
    rf"\b\d{{1,2}}\.?\s+(?:{_MONTH_NAMES})\b|\b(?:{_MONTH_NAMES})\.?\s+\d{{1,2}}\b",
    re.IGNORECASE,
)
_VERDICTS = frozenset("pass passed fail failed failure ok yes no true false done".split())
_EMPTY_VALUES = frozenset({"", "-", "–", "—", "n/a", "na", "none", "tbd", "?"})
_PERSON = re.compile(r"[A-ZÄÖÜ][a-zäöüß'\-]+(?: [A-ZÄÖÜ][a-zäöüß'\-]+){1,2}")
_AMOUNT = re.compile(
    r"(?:[€£$¥]|\b(?:EUR|USD|GBP|CHF)\b)\s*\d|\d\s*(?:[€£$¥]|\b(?:EUR|USD|GBP|CHF)\b)"
)
_LOWER_WORD = re.compile(r"(?<![\w])[a-zäöüß]+")
# A follow-up that does not stand alone ("and in week 3?"): changing a value in it would not
# make a question a click can ask on its own.
_ELLIPTICAL = re.compile(
    r"^\W*(and|und|or|oder|also|auch|what about|how about|und was ist mit|was ist mit)\b",
    re.IGNORECASE,
)
_MIN_STANDALONE_WORDS = 4
_QUESTION_START = re.compile(
    r"^(what|when|who|why|where|which|how|was|wann|wer|warum|wo|wie|welche[rsmn]?)\b",
    re.IGNORECASE,
)
_QUESTION_VERB = re.compile(
    r"^\w+\s+(is|are|do|does|did|can|should|to|was|were|ist|sind|kann|muss|soll)\b",
    re.IGNORECASE,
)

# Question wordings per language: by the type of the value asked for, and for a section.
_ROW_WORDING = {
    "en": {
        "who": "Who {be} the {column} for {keys}{context}?",
        "when": "When {be} the {column} for {keys}{context}?",
        "amount": "How much {be} the {column} for {keys}{context}?",
        "what": "What {be} the {column} for {keys}{context}?",
    },
    "de": {
        "who": "Wer {be} {column} für {keys}{context}?",
        "when": "Wann {be} {column} für {keys}{context}?",
        "amount": "Wie hoch {be} {column} für {keys}{context}?",
        "what": "Was {be} {column} für {keys}{context}?",
    },
}
_SECTION_WORDING = {
    "en": "What {be} {the}{heading}{context}?",
    "de": "Was gilt für {heading}{context}?",
}
_ACTIVITY_WORDING = {"en": "How does {heading} work?", "de": "Wie funktioniert {heading}?"}
_CLAUSE_STARTS = frozenset(
    "before after during if unless while since until for with without about".split()
)
_FILE_NAME = re.compile(r"\w[./_]\w")
_GERMAN_OPENERS = frozenset(
    "wer wie wieso weshalb welche welcher welches welchen welchem wann warum wo woher wohin"
    " gibt ist sind hat haben kann können muss müssen nenne".split()
)
_DETERMINERS = frozenset("our my your the a an this these".split())
_BE = {"en": ("is", "are"), "de": ("ist", "sind")}
_AND = {"en": " and ", "de": " und "}


@dataclass(frozen=True)
class Candidate:
    """A follow-up question; `page_id`, `heading` and `line` say where its answer is (the
    page and section it asks about, a row or list item its evidence must hold; empty for a
    model's free-text question), `fact` what it asks for, so the same fact is not suggested
    twice."""

    question: str
    heading: str = ""
    line: str = ""
    fact: tuple = ()
    page_id: str = ""


@dataclass(frozen=True)
class _Row:
    table: int
    number: int
    heading: str
    line: str
    pairs: tuple[tuple[str, str], ...]

    def value(self, column: str) -> str:
        return dict(self.pairs).get(column, "")


@dataclass(frozen=True)
class _Item:
    group: str  # the evidence the list is in
    label: str
    line: str


@dataclass(frozen=True)
class _Page:
    """The parts of one page that suggestions are made from."""

    title: str
    tables: dict[int, list[_Row]]
    items: list[_Item]
    headings: list[str]
    lower_words: frozenset[str]


def _heading(evidence: Evidence) -> str:
    """An evidence's innermost heading without trailing punctuation ("Contacts:")."""
    if not evidence.heading:
        return ""
    return _TRAILING.sub("", evidence.heading.split(" > ")[-1].strip())


def _read_page(evidences: Sequence[Evidence]) -> _Page:
    """Tables (rows by table and number), labelled items and headings of one page's
    evidences, in page order."""
    rows: dict[tuple[int, int], _Row] = {}
    items: list[_Item] = []
    headings: list[str] = []
    lower: set[str] = set()
    for evidence in evidences:
        heading = _heading(evidence)
        if heading and heading not in headings:
            headings.append(heading)
        lower.update(_LOWER_WORD.findall(evidence.text))
        for raw in evidence.text.split("\n"):
            line = raw.strip()
            row = _ROW.match(line)
            if row:
                key = (int(row.group(2)), int(row.group(1)))
                pairs = row_pairs(row.group(3))
                rows.setdefault(key, _Row(key[0], key[1], heading, line, pairs))
                continue
            label = _LABELLED.match(_LIST_MARKER.sub("", line, count=1))
            if (
                label
                and label.group(1)[:1].isupper()  # a name ("Berlin:"), not "purpose:"
                and len(label.group(1).split()) <= MAX_LABEL_WORDS
                and evidence.kind != "table"
            ):
                item = _Item(evidence.id, label.group(1).strip(), line)
                if item not in items:
                    items.append(item)
    tables: dict[int, list[_Row]] = {}
    for key in sorted(rows):
        tables.setdefault(key[0], []).append(rows[key])
    title = evidences[0].title if evidences else ""
    return _Page(title, tables, items, headings, frozenset(lower))


def _asked(question: str) -> frozenset[str]:
    """The stems a question names (with German stopwords dropped as well, so a German
    question's function words match nothing)."""
    text = CONTEXT.sub(" ", question)
    return frozenset(terms(text)) | frozenset(terms(text, GERMAN_STOPWORDS))


def _named(value: str, asked: frozenset[str]) -> int:
    """How many of a value's stems the question names, when it names the value: all its
    stems, or at least half of them with a number among those named ("Woche 2" names "Week
    2", "Dell 7040" names "Dell Optiplex 7040"; "week 3" does not name "Week 2", nor "days"
    "Company day off"); 0 otherwise."""
    stems = set(terms(value))
    hit = stems & asked
    if not hit:
        return 0
    numbers = any(any(c.isdigit() for c in s) for s in hit)
    if hit == stems or (numbers and len(hit) * 2 >= len(stems)):
        return len(hit)
    return 0


def _usable(name: str, value: str) -> bool:
    """Whether a cell can be asked for: a column with a name (not "Column 2", not a
    sentence the table's parse ran into) and a value."""
    return (
        not _GENERIC_COLUMN.match(name)
        and len(name.split()) <= MAX_COLUMN_WORDS
        and ". " not in name
        and value.strip().casefold() not in _EMPTY_VALUES
    )


@dataclass(frozen=True)
class _RowMatch:
    row: _Row
    keys: tuple[str, ...]  # the columns whose cells the question names, in column order
    column: str  # the column the question asks for ("" when it names none)


def _identifies(value: str) -> bool:
    """Whether a named cell can say which row is meant: no verdict ("did it pass", "ML
    fail") and not without letters or digits ("?")."""
    words = set(value.casefold().split())
    return not words & _VERDICTS and any(c.isalnum() for c in value)


def _match_row(page: _Page, asked: frozenset[str]) -> _RowMatch | None:
    """The row the question asks about (the one whose cells it names most; the first of
    equals), its key columns and the asked column (the unnamed column whose name shares
    most stems with the question)."""
    best: tuple[int, _Row, tuple[str, ...]] | None = None
    for rows in page.tables.values():
        for row in rows:
            named = [(name, _named(value, asked)) for name, value in row.pairs]
            score = sum(n for _, n in named)
            if score and (best is None or score > best[0]):
                best = (score, row, tuple(name for name, n in named if n))
    if best is None:
        return None
    _, row, named = best
    if not any(_identifies(row.value(k)) for k in named):
        return None
    column, overlap = "", 0
    for name, _ in row.pairs:
        shared = len(set(terms(name)) & asked)
        if name not in named and not _GENERIC_COLUMN.match(name) and shared > overlap:
            column, overlap = name, shared
    keys = tuple(k for k in named if _usable(k, row.value(k)) and _identifies(row.value(k)))
    return _RowMatch(row, keys, column)


def _person(value: str, lower_words: frozenset[str]) -> bool:
    """Two or three capitalized words none of which the page writes in lower case (a
    person's name; not "Robot Firmware" on a page that speaks of "firmware")."""
    value = value.strip()
    return bool(_PERSON.fullmatch(value)) and not {w.lower() for w in value.split()} & lower_words


def _value_type(value: str, column: Sequence[str], lower_words: frozenset[str]) -> str:
    """What a value is, for the question word: `amount` (money), `when` (a date), `who`
    (a person's name in a column of mostly names, so a country column's "United Kingdom"
    is no person), else `what`. `column` holds the values of its column."""
    value = value.strip()
    if _AMOUNT.search(value):
        return "amount"
    if any(e.kind == "date" and len(e.value) > 4 for e in entities(value)) or _DAY_MONTH.search(
        value
    ):
        return "when"
    filled = [v for v in column if v.strip().casefold() not in _EMPTY_VALUES]
    people = sum(_person(v, lower_words) for v in filled)
    if _person(value, lower_words) and people * 2 > len(filled):
        return "who"
    return "what"


def _type_of(page: _Page, row: _Row, column: str) -> str:
    """The type of `row`'s value in `column` (`_value_type`)."""
    values = [r.value(column) for r in page.tables[row.table]]
    return _value_type(row.value(column), values, page.lower_words)


def _plural(name: str) -> bool:
    """Whether a name reads as a plural ("Dates (2026)", "Hotel and meal limits")."""
    words = re.sub(r"\([^)]*\)", " ", name).split()
    last = words[-1].lower() if words else ""
    plain = bool(words) and not words[-1].isupper()  # "BIOS" is no plural
    return plain and len(last) > 3 and last.endswith("s") and not last.endswith("ss")


def _short_title(title: str) -> bool:
    """Whether a title is short enough to name in a question (not "Gov1: OpenXT Project
    Governance Charter [ DRAFT ] [ xtopher-v2 ]")."""
    return len(title.split()) <= MAX_TITLE_WORDS


def _context(question: str, title: str, named: str) -> str:
    """ " in <title>" when the question names more than half of the page title's stems
    (it said which page) and `named` (the rest of the new question) does not already."""
    stems = set(terms(title))
    if not stems or stems <= set(terms(named)) or not _short_title(title):
        return ""
    named_page = len(stems & _asked(question)) * 2 > len(stems)
    return f" in {_TRAILING.sub('', title)}" if named_page else ""


def _row_question(
    language: str, question: str, page: _Page, row: _Row, column: str, keys: Sequence[str]
) -> str | None:
    """The generic question for `row`'s value in `column`, naming the row by its `keys`."""
    key_values = [row.value(k) for k in keys[:2]]
    value = row.value(column)
    if not all(key_values) or not _usable(column, value):
        return None
    if sum(len(v.split()) for v in key_values) > MAX_KEY_WORDS:
        return None
    named = " ".join(key_values)
    return _ROW_WORDING[language][_type_of(page, row, column)].format(
        be=_BE[language][_plural(column)],
        column=column,
        keys=_AND[language].join(key_values),
        context=_context(question, page.title, f"{column} {named}"),
    )


def _substitute(question: str, old: str, new: str, whole: bool = True) -> str | None:
    """`question` with the page value `old` it names changed to `new`: only the words in
    which the two differ when the question holds them once ("week 2" → "week 3"), else the
    whole value (unless not `whole`: a column "BIOS" is no "Result"); the question's lower
    case kept for capitalized words ("secondary" → "primary"). None when the question does
    not hold the value once."""
    before, after = old.split(), new.split()
    start = 0
    while (
        start < min(len(before), len(after)) and before[start].casefold() == after[start].casefold()
    ):
        start += 1
    end = 0
    while (
        end < min(len(before), len(after)) - start
        and before[-1 - end].casefold() == after[-1 - end].casefold()
    ):
        end += 1
    for was, becomes in (
        (before[start : len(before) - end], after[start : len(after) - end]),
        (before, after),
    ):
        if not was or not becomes or (not whole and len(was) == len(before)):
            continue
        pattern = re.compile(
            r"(?<!\w)" + r"\s+".join(re.escape(w) for w in was) + r"(?!\w)", re.IGNORECASE
        )
        found = pattern.findall(question)
        if len(found) != 1:
            continue
        replacement = " ".join(becomes)
        if re.search(rf"(?<!\w){re.escape(replacement)}(?!\w)", question, re.IGNORECASE):
            return None  # "BIOS and Build" → "BIOS and BIOS"
        simple = all(w[1:] == w[1:].lower() for w in becomes)
        if found[0].islower() and not " ".join(was).islower() and simple:
            replacement = replacement.lower()
        at = pattern.search(question)
        return f"{question[: at.start()]}{replacement}{question[at.end() :]}"
    return None


def _standalone(question: str) -> bool:
    """Whether the question stands on its own, so changing one value in it gives another
    question that does ("and in week 3?" does not)."""
    return not _ELLIPTICAL.match(question) and len(question.split()) >= _MIN_STANDALONE_WORDS


def _neighbours(rows: Sequence[_Row], match: _RowMatch, key: str) -> list[_Row]:
    """Rows of the table that agree with the matched row in every key cell but `key`,
    where they differ: the following ones first (nearest first), then the preceding ones."""
    row = match.row
    others = [k for k in match.keys if k != key]
    same = [
        r
        for r in rows
        if all(r.value(k) == row.value(k) for k in others)
        and r.value(key).casefold() not in ("", row.value(key).casefold())
    ]
    after = [r for r in same if r.number > row.number]
    before = [r for r in reversed(same) if r.number < row.number]
    return (after + before)[:NEIGHBOURS]


def _row_candidates(
    question: str, language: str, page: _Page, match: _RowMatch, standalone: bool
) -> list[list[Candidate]]:
    """One list per key column (its neighbouring rows) and one of the row's other columns,
    nearest to the asked column first."""
    row = match.row
    # A question that names its row's key cells only in carried context loses them when a
    # value in it changes.
    standalone = standalone and all(_named(row.value(k), _asked(question)) for k in match.keys)
    streams: list[list[Candidate]] = []
    rows = page.tables[row.table]
    for key in match.keys:
        stream = []
        for other in _neighbours(rows, match, key):
            text = _substitute(question, row.value(key), other.value(key)) if standalone else None
            if text is None and match.column:
                keys = match.keys
                text = _row_question(language, question, page, other, match.column, keys)
            if text:
                fact = ("row", other.table, other.number, match.column)
                stream.append(Candidate(text, other.heading, other.line, fact))
        streams.append(stream)
    names = [name for name, _ in row.pairs]
    anchor = names.index(match.column) if match.column else 0
    columns = sorted(
        (n for n in names if n != match.column and n not in match.keys),
        key=lambda n: (abs(names.index(n) - anchor), names.index(n) < anchor),
    )
    stream = []
    asked_type = _type_of(page, row, match.column) if match.column else ""
    for column in columns:
        value = row.value(column)
        if not _usable(column, value):
            continue
        text = None
        if standalone and match.column and _type_of(page, row, column) == asked_type:
            # A column named like a place ("Bristol" → "Berlin") is changed whole; another
            # only in the words that differ ("On-call / Secondary" → "On-call / Primary").
            whole = match.column[:1].isupper() and not match.column.isupper()
            text = _substitute(question, match.column, column, whole and column[:1].isupper())
        if text is None:
            text = _row_question(language, question, page, row, column, match.keys)
        if text:
            fact = ("row", row.table, row.number, column)
            stream.append(Candidate(text, row.heading, row.line, fact))
    streams.insert(1, stream)
    return streams


def _item_candidates(question: str, page: _Page, asked: frozenset[str]) -> list[Candidate]:
    """The question about the neighbouring items of the `label: text` item it names (the
    next first), by changing the label in it."""
    named = [i for i in page.items if _named(i.label, asked)]
    if not named:
        return []
    item = max(named, key=lambda i: _named(i.label, asked))
    group = [i for i in page.items if i.group == item.group]
    at = group.index(item)
    out = []
    for other in [*group[at + 1 :], *reversed(group[:at])]:
        text = _substitute(question, item.label, other.label)
        if text:
            out.append(Candidate(text, "", other.line, ("item", other.label.casefold())))
        if len(out) == NEIGHBOURS:
            break
    return out


def _section_question(language: str, heading: str, title: str) -> str | None:
    """A question about a section: the heading itself when it is a question in the
    question's language ("When do I need the VPN?"), else "What is/are the <heading>?"
    (German "Was gilt für <heading>?"), with the page title when a short heading shares no
    word with it (a section "Compensation" is the compensation of that page). A heading
    that names an activity ("Submitting expenses") asks how it works ("Wie funktioniert
    ...?"); none for a heading that is a clause ("Before you travel") or a file name
    ("nw-ber.conf")."""
    if question_language(heading) == "de" != language:
        return None  # a German heading on a page is no English question
    first, _, rest = heading.partition(" ")
    if first.lower() in _CLAUSE_STARTS or (not rest and _FILE_NAME.search(first)):
        return None
    if first.lower().endswith("ing") and len(first) > 5 and rest:
        activity = f"{first.lower()} {rest}" if language == "en" else heading
        return _ACTIVITY_WORDING[language].format(heading=activity)
    if _QUESTION_START.match(heading):
        if question_language(heading) != language:
            return None
        if heading.endswith("?"):
            return heading
        return f"{heading}?" if _QUESTION_VERB.match(heading) else None
    shared = set(terms(heading)) & set(terms(title))
    short = len(heading.split()) <= SHORT_HEADING_WORDS
    article = "the "
    if language == "en" and first.lower() in _DETERMINERS:
        heading, article = f"{first.lower()} {rest}".strip(), ""
    return _SECTION_WORDING[language].format(
        be=_BE[language][_plural(heading)],
        the=article,
        heading=heading,
        context=f" in {_TRAILING.sub('', title)}"
        if short and not shared and _short_title(title)
        else "",
    )


def _section_candidates(
    language: str, page: _Page, asked: frozenset[str], skip: str
) -> list[Candidate]:
    """Questions about the sections whose headings share no stem with the question, in
    page order, but the section `skip` (the one the question was answered from)."""
    out = []
    for heading in page.headings:
        if heading == skip or heading.casefold() == page.title.casefold():
            continue
        if len(heading.split()) > MAX_HEADING_WORDS or set(terms(heading)) & asked:
            continue
        text = _section_question(language, heading, page.title)
        if text:
            out.append(Candidate(text, heading, "", ("section", heading.casefold())))
    return out


def _touched(page: _Page, texts: Iterable[str]) -> set[tuple]:
    """The facts of the page that questions asked about: the row and column each names,
    the items it names, and the sections it names (all the heading's stems; a heading of
    one word, such as "Install", only with more than half of the title's stems and its
    numbers, as many pages have one)."""
    facts: set[tuple] = set()
    title = set(terms(page.title))
    numbers = {t for t in title if any(c.isdigit() for c in t)}  # "OpenXT 8.0" is not 9.0
    for text in texts:
        asked = _asked(text)
        match = _match_row(page, asked)
        if match is not None:
            facts.add(("row", match.row.table, match.row.number, match.column))
        facts.update(("item", i.label.casefold()) for i in page.items if _named(i.label, asked))
        on_page = len(title & asked) * 2 > len(title) and numbers <= asked
        facts.update(
            ("section", h.casefold())
            for h in page.headings
            if _named(h, asked) and (on_page or len(set(terms(h))) > 1)
        )
    return facts


def _language(question: str) -> str:
    """The question's language (`core.questions.question_language`), German also for a
    short question its function words leave undecided: one opening with a German question
    word ("Wie", "Welche", "Gibt") or with "Was" and a verb that is no English word ("Was
    bedeutet TBOOT?")."""
    language = question_language(question)
    words = CONTEXT.sub(" ", question).split()
    if language == "de" or not words:
        return language
    first = words[0].lower()
    if first in _GERMAN_OPENERS:
        return "de"
    following = words[1] if len(words) > 1 else ""
    german_verb = following.islower() and following.endswith(("t", "et", "en"))
    if first == "was" and german_verb and following not in ENGLISH_STOPWORDS:
        return "de"
    return language


def _normal(text: str) -> str:
    return " ".join(_TRAILING.sub("", text).casefold().split())


def candidates(
    question: str, page_evidences: Sequence[Evidence], earlier: Sequence[str] = ()
) -> list[Candidate]:
    """Follow-up questions to `question` about facts of one page (`page_evidences`, in page
    order) that neither it nor the `earlier` questions and suggestions of the conversation
    asked about: the neighbouring rows and other columns of the row it asked about, the
    neighbouring items of the item it named, the sections it did not touch; taken in turn
    from each kind, without repeats."""
    language = _language(question)
    page = _read_page(page_evidences)
    asked = _asked(question)
    own = " ".join(CONTEXT.sub(" ", question).split())  # the question without carried context
    standalone = _standalone(own)
    match = _match_row(page, asked)
    streams: list[list[Candidate]] = []
    if match is not None:
        streams.extend(_row_candidates(own, language, page, match, standalone))
    if standalone:
        streams.append(_item_candidates(own, page, asked))
    skip = match.row.heading if match is not None else ""
    streams.append(_section_candidates(language, page, asked, skip))
    touched = _touched(page, [question, *earlier])
    page_id = page_evidences[0].page_id if page_evidences else ""
    seen = {_normal(t) for t in [question, *earlier]}
    out: list[Candidate] = []
    for group in zip_longest(*streams):
        for candidate in group:
            if candidate is None or candidate.fact in touched:
                continue
            if _normal(candidate.question) in seen:
                continue
            seen.add(_normal(candidate.question))
            touched.add(candidate.fact)
            out.append(replace(candidate, page_id=page_id))
    return out


def in_scope(candidate: Candidate, search: Search, min_support: float) -> bool:
    """Whether the offline answerer would answer the candidate's question from what
    retrieval finds for it (`search`, the sources the answerer reads): the best span of
    the results (`core.spans.best_spans`, as the answerer ranks them) supports an answer at
    least `min_support` (above zero); for a candidate with a heading or line, the top
    `SEARCH_K` results hold an evidence under that heading and holding that line, and the
    best span comes from that evidence's page (not another page that says it as well)."""
    results = [r.evidence for r in search(candidate.question)]
    found = results[:SEARCH_K]
    sources = [
        (n, " > ".join(p for p in (e.title, e.heading) if p), e.text)
        for n, e in enumerate(results, 1)
    ]
    targeted = bool(candidate.heading or candidate.line)
    target = next(
        (
            e
            for e in found
            if (not candidate.page_id or e.page_id == candidate.page_id)
            and (not candidate.heading or _heading(e) == candidate.heading)
            and (not candidate.line or candidate.line in e.text)
        ),
        None,
    )
    if targeted and target is None:
        return False
    ranked = best_spans(candidate.question, sources)
    if not ranked:
        return False
    number, span = ranked[0]
    if span.support <= 0 or span.support < min_support:
        return False
    return not targeted or results[number - 1].page_id == target.page_id


def suggest(
    question: str,
    page_evidences: Sequence[Evidence],
    search: Search,
    min_support: float,
    earlier: Sequence[str] = (),
    limit: int = MAX_SUGGESTIONS,
) -> list[str]:
    """Up to `limit` in-scope follow-ups to `question` from the cited page's evidences,
    none about what the `earlier` questions and suggestions asked, checking at most
    `MAX_CHECKS` candidates, so a page of many sections costs a bounded number of
    searches."""
    out: list[str] = []
    for candidate in candidates(question, page_evidences, earlier)[:MAX_CHECKS]:
        if len(out) == limit:
            break
        if in_scope(candidate, search, min_support):
            out.append(candidate.question)
    return out


def _searcher(retriever: Retriever, spaces: Collection[str] | None) -> Search:
    """The search an in-scope check runs: `retriever` in `spaces`, as many results as it
    gives the answerer."""

    def search(text: str) -> Sequence[ScoredEvidence]:
        return retriever.search(text, spaces=spaces).results

    return search


def _threshold(question: str, min_support: Mapping[str, float]) -> float:
    """The decline threshold of the question's language (`en` for languages not listed)."""
    return language_threshold(min_support, question_language(question))


def suggest_from_page(
    question: str,
    page_id: str,
    index: EvidenceIndex,
    retriever: Retriever,
    min_support: Mapping[str, float],
    spaces: Collection[str] | None = None,
    earlier: Sequence[str] = (),
) -> list[str]:
    """Follow-ups to `question` from the indexed page `page_id` (the cited page), none
    about what the `earlier` questions and suggestions asked, checked against `retriever`
    (searching `spaces` when given) and the decline threshold of the question's language
    in `min_support` (`en` for languages not listed)."""
    evidences = sorted(index.get(index.page_evidence_ids(page_id)), key=lambda e: e.position)
    search = _searcher(retriever, spaces)
    return suggest(question, evidences, search, _threshold(question, min_support), earlier)


def follow_ups(
    question: str,
    proposed: Sequence[str],
    page_id: str | None,
    index: EvidenceIndex,
    retriever: Retriever,
    min_support: Mapping[str, float],
    spaces: Collection[str] | None = None,
    earlier: Sequence[str] = (),
) -> list[str]:
    """The follow-ups shown after an answer to `question`: the model's `proposed` questions
    that are in scope (`in_scope` with no row or section, each at the threshold of its own
    language) and are neither the question nor one of the `earlier` questions and
    suggestions of the conversation; when none is left, those built from the cited page
    `page_id` (`suggest_from_page`; none without a cited page). At most `MAX_SUGGESTIONS`.

    The two are not mixed: a model's questions and the page's read differently, and the
    fallback exists for a model that proposed nothing usable."""
    search = _searcher(retriever, spaces)
    seen = {_normal(t) for t in [question, *earlier]}
    kept: list[str] = []
    for text in proposed:
        if len(kept) == MAX_SUGGESTIONS:
            break
        if _normal(text) in seen or text in kept:
            continue
        if in_scope(Candidate(text), search, _threshold(text, min_support)):
            kept.append(text)
    if kept or page_id is None:
        return kept
    return suggest_from_page(question, page_id, index, retriever, min_support, spaces, earlier)
