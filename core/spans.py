"""Answer spans: where in an evidence the answer to a question sits, and how well the
evidence supports an answer at all.

Pure functions of strings (no index, no model), so anything that must judge an evidence
against a question can call them: the offline answerer (`core.extractive`) and a
self-check that drops unhelpful evidences.

What a question asks (`profile_question`: its type, terms and "which X") is
`core.questions`; this module reads evidences against it:

- `units(text)`: the answerable units of an evidence text: a verbalized table row as its
  column → value pairs, a list item, a whole short list, a sentence of a passage, a page
  byline (which answers only questions about the page itself). Other metadata lines
  (copyright and licence lines) are never units.
- `best_span(profile, header, text)`: the unit that best answers the question and the short
  answer inside it: the cell under the column the question asks for, the person, date,
  version or count the question's type asks for (the one nearest the question's words),
  Yes or No, or the sentence.
- `support(question, header, text)`: how well an evidence supports an answer, in [0, 1]:
  the weighted share of the question's terms that its best unit (with the evidence's title
  and heading) contains. It is the answerer's own decline signal, independent of retrieval
  scores.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import takewhile
from typing import NamedTuple

from core.glossary import glossary_words
from core.list_counts import counted_noun, counts_list
from core.questions import (
    CONTEXT,
    ENTITY_WEIGHT,
    STOPWORDS,
    TOKEN,
    QuestionProfile,
    Translations,
    is_entity,
    profile_question,
    question_focus,
    terms,
)
from core.relations import asked_relation, states_relation
from core.yesno_polarity import excluded, other_agent

_DEFINITION = re.compile(
    r"^\W*(.{1,40}?) (?:is|are|ist|sind) (?:an?|the|one|ein|eine|der|die|das)\b", re.IGNORECASE
)
_GENERIC_COLUMN = re.compile(r"^Column \d+$")
_ISSUE_KEY = re.compile(r"\b[A-Z][A-Z0-9]+-\d+\b")
_ASKS_KEY = re.compile(r"\b(issue|ticket|bug|jira|key)s?\b", re.IGNORECASE)
_ROW = re.compile(r"^Row \d+ in Table (\d+):\s*(.*)$")
_TABLE_HEAD = re.compile(r"^Table \d+:")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?:\[[ x]\]\s+)?")
# A sentence ends at . ! or ? before a capital, but not after an ordinal ("am 24. Dezember").
SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\b\d\.)(?<!\b\d\d\.)\s+(?=[A-Z0-9\"'(\[])")
# "How many" asks to count items (unlike "how much" or "how long").
_COUNTS_ITEMS = re.compile(r"\b(how many|number of|wie viele|wieviele|anzahl)\b", re.IGNORECASE)
# "How many can I carry over?": a modal straight after "how many" asks an allowance, a
# measure whose unit the conversation named ("days"), not the number of a list's items
# ("How many were from the AIS team?" still counts).
_ALLOWANCE = re.compile(
    r"\b(?:how many|wie viele)\s+(?:can|could|may|might|must|should|kann|könnte|darf|muss|soll)\b",
    re.IGNORECASE,
)
# Units of measure, English and German: "how many days / Urlaubstage / weeks" asks a
# measure where the evidence states a number with that unit ("25 days of annual leave").
_MEASURE_UNITS = (
    r"minutes?|minuten",
    r"hours?|stunden",
    r"days?|tage[n]?",
    r"weeks?|wochen",
    r"months?|monate[n]?",
    r"years?|jahre[n]?",
)
_ASKS_MEASURE = re.compile(
    r"\b(?:how many|wie viele|wieviele)\s+(?:\w+\s+)?\w*?(?P<unit>"
    + "|".join(f"(?:{u})" for u in _MEASURE_UNITS)
    + r")\b",
    re.IGNORECASE,
)


def counts_items(question: str, text: str) -> bool:
    """Whether a question counts the items of a list ("how many teams"), not a measure the
    evidence `text` states with the asked unit ("Wie viele Urlaubstage ...?" over "25 days
    of annual leave"; "how many holidays" over a list of holidays still counts)."""
    if not _COUNTS_ITEMS.search(question) or _ALLOWANCE.search(question):
        return False
    asked = _ASKS_MEASURE.search(question)
    if not asked:
        return True
    unit = next(u for u in _MEASURE_UNITS if re.fullmatch(u, asked.group("unit"), re.I))
    return not re.search(rf"\b\d+(?:[.,]\d+)?\s+(?:{unit})\b", text, re.I)


# A pair boundary in a verbalized row: ", " or ", and " before the next "name is value".
_PAIR_SPLIT = re.compile(r",(?: and)? (?=[^,]*? is )")
# Confluence page furniture, never an answer (bylines, copyright and licence notes).
_METADATA = re.compile(
    r"\b(owned by|created by|last updated|last modified|modified by"
    r"|copyright (?:\(c\)\s*|©\s*)?\d{4}"
    r"|licensed under|go to start of metadata|skip to end of metadata)\b",
    re.IGNORECASE,
)
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+[a-z0-9\-]*(?![\w.])|\bv\d+\b", re.IGNORECASE)
_MONTHS = (
    r"jan(?:uary|uar)?|feb(?:ruary|ruar)?|mar(?:ch)?|märz|apr(?:il)?|ma[iy]|june?|juni"
    r"|july?|juli|aug(?:ust)?|sep(?:t(?:ember)?)?|o[ck]t(?:ober)?|nov(?:ember)?|de[cz](?:ember)?"
)
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\.?\s+(?:{_MONTHS})\.?,?\s+\d{{4}}"
    rf"|(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    rf"|(?:{_MONTHS})\.?\s+\d{{4}}"
    r"|\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}"
    r"|(?<![\-./])(?:19|20)\d{2}(?![\-./]\w))\b",
    re.IGNORECASE,
)
# What also answers "when" / "by when" / "how soon": a time of day, a weekday, or a deadline
# written as a duration ("within 10 business days", "innerhalb von 30 Tagen").
_UNITS_OF_TIME = (
    r"(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|minuten|stunden|tage[n]?"
    r"|wochen|monate[n]?|jahre[n]?)"
)
_DEADLINE = re.compile(
    r"\b(?:within|in|after|before|by|up to|at least|at most|no later than|innerhalb(?: von)?"
    r"|binnen|nach|vor|bis zu|spätestens)\s+(?:the\s+|der\s+|den\s+|your\s+|ihre[rn]?\s+)?"
    r"(?:first\s+|ersten\s+)?(?:\d+|one|two|three|four|five|six|seven|ten|eins|zwei|drei|vier"
    r"|fünf|zehn)\s+(?:\w+\s+)?" + _UNITS_OF_TIME + r"\b"
    r"|\b\d{1,2}[:.]\d{2}(?:\s*(?:am|pm|uhr)\b|\b)"
    r"|\b(?:(?:the\s+)?(?:first|second|third|last|every|each|jeden|ersten|letzten)\s+)?"
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch"
    r"|donnerstag|freitag|samstag|sonntag)s?\b(?:\s+of\s+(?:each|every|the)\s+month)?"
    r"(?:\s+at\s+\d{1,2}[:.]\d{2})?",
    re.IGNORECASE,
)
# A time of day: "1:00PM", "13:30", "9.30 Uhr".
_CLOCK = re.compile(
    r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*(?:am|pm|uhr)\b)?|\b\d{1,2}\.\d{2}\s*(?:am|pm|uhr)\b",
    re.IGNORECASE,
)
# A deadline question asks for a time limit or a day, never a bare year.
_ASKS_DEADLINE = re.compile(
    r"\b(by when|until when|how soon|deadline|due|bis wann|wie bald|frist)\b", re.IGNORECASE
)
_YEAR = re.compile(r"(?:19|20)\d{2}")
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred"
    "|eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|zwanzig|hundert"
)
# A unit of size, frequency or time written against its number ("4GB", "2.4GHz", "100ms").
_GLUED_UNIT = r"(?=(?:[kmgt]i?b|[kmg]hz|ms)\b)"
_COUNT = re.compile(
    rf"(?<![\w\-./:])(?:\d+(?:[.,]\d+)?|{_NUMBER_WORDS})(?:\b|{_GLUED_UNIT})"
    rf"(?:\s*(?:to|-|–|or|bis|oder)\s*"
    rf"(?:\d+(?:[.,]\d+)?|{_NUMBER_WORDS})\b)?(?:\s*[A-Za-zÄÖÜäöüß%]+)?",
    re.IGNORECASE,
)
# "How often" asks for a frequency: "every 2 seconds", "twice a week", "at 10 Hz", "daily".
_ASKS_FREQUENCY = re.compile(r"\b(how often|wie oft|wie häufig)\b", re.IGNORECASE)
_FREQUENCY = re.compile(
    r"\b(?:every|each|alle|jede[nrs]?)\s+(?:\d+(?:[.,]\d+)?\s+|other\s+|second\s+)?"
    r"[A-Za-zÄÖÜäöüß]+"
    r"|\b(?:\d+(?:[.,]\d+)?|once|twice|einmal|zweimal)(?:\s+times?|\s*mal)?"
    r"\s+(?:a|an|per|pro|im|in der)\s+[A-Za-zÄÖÜäöüß]+"
    r"|\b\d+(?:[.,]\d+)?\s*(?:hz|khz|mhz|/s|/min|/h)\b"
    r"|\b(?:hourly|daily|weekly|fortnightly|monthly|quarterly|yearly|annually|stündlich"
    r"|täglich|wöchentlich|monatlich|jährlich)\b",
    re.IGNORECASE,
)
# "How much" asks for an amount: money, or a number with its unit ("4GB", "30 %", "5 hours").
_ASKS_AMOUNT = re.compile(r"\b(how much|wie viel)\b(?!e)", re.IGNORECASE)
_MONEY = re.compile(
    r"[€£$¥]\s?\d[\d.,]*(?:\s?[km]\b)?|\b\d[\d.,]*\s?(?:€|eur|euros?|gbp|usd|chf)\b", re.I
)
_AMOUNT = re.compile(
    r"\d\s*(?:%|[kmgt]i?b\b|ms\b|s\b|secs?\b|seconds?|minutes?|mins?\b|hours?|days?|weeks?"
    r"|months?|years?|requests?|per\b|x\b|×|euros?|pounds?|dollars?|ghz|mhz|cores?|cpus?"
    r"|minuten|stunden|tage|wochen|monate|jahre)|[%€£$]",
    re.IGNORECASE,
)
# Two or more capitalized words in a row (a person's name, or a product's).
_NAME = re.compile(r"\b[A-ZÄÖÜ][a-zäöüß'\-]+(?:\s+(?:[A-Z]\.\s*)?[A-ZÄÖÜ][a-zäöüß'\-]+)+\b")
# Who a "who" question may be answered with besides a named person: a group of people.
_PEOPLE = re.compile(
    r"\b(?:all|every|any|the|each|our)?\s*\w*\s*(?:developers?|engineers?|maintainers?"
    r"|members?|users?|admins?|administrators?|owners?|everyone|anyone|managers?"
    r"|leads?|contributors?|entwickler\w*|mitarbeite\w*|jede[rsmn]?|alle)\b",
    re.IGNORECASE,
)
# A who question for whom to turn to ("Who do I ask about payroll?", "Who can I contact
# ...", "An wen wende ich mich ...", "Wen frage ich ..."): an e-mail address or a chat
# channel answers it as a person does.
_ASKS_CONTACT = re.compile(
    r"\b(?:ask|contact|reach|talk to|write to|e-?mail|wende|wenden|frage|fragen|kontaktiere"
    r"|kontaktieren|erreiche|erreichen|ansprechen|ansprechpartner\w*)\b",
    re.IGNORECASE,
)
_CONTACT = re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+|(?<![\w&])#[a-z][\w\-]+", re.IGNORECASE)
# What says a line is about whom to turn to ("Payroll questions: ...", "Contact: ...",
# "ask in #it-help", "Fragen: ...").
_CONTACT_LINE = re.compile(
    r"\b(?:questions?|contacts?|ask|reach|help|support|fragen|kontakt\w*|ansprechpartner\w*"
    r"|hilfe)\b",
    re.IGNORECASE,
)
# Negations that turn a statement into a "no" (a determiner "no" is not one of them).
_NEGATION = re.compile(
    r"\b(not|never|cannot|nicht|nie|niemals|keine?[nrms]?)\b|n't\b|^\W*no\b"
    r"|\b(?:is|are|was|were|has|have|had) no\b",
    re.IGNORECASE,
)
# A value that gives a reason or purpose ("To avoid loss of ...", "Because ...").
_REASON = re.compile(
    r"^\W*(to|because|since|so that|in order to|due to|um|weil|damit|da)\b", re.IGNORECASE
)
_POSITIVE_CELL = frozenset("pass passed ok yes y true supported works working done ✓ ✔ ja".split())
_NEGATIVE_CELL = frozenset("fail failed failure no false unsupported broken ✗ ✘ nein".split())
# A `label: value` line (a definition-list entry, a minutes line "Phil: change the call").
_LABELLED = re.compile(r"^([^:]{1,60}?):\s+(\S.*)$")

# Fixed weights (set by design, not tuned): the context an offline-completed question
# carries counts a quarter (as in the earlier extractive answerer); a unit holding a value of
# the asked type (a version for "which version") gains `TYPE_BONUS`; a question word found
# only through its translation counts half towards support.
CONTEXT_WEIGHT = 0.25
TYPE_BONUS = 0.5
TRANSLATION_CREDIT = 0.5
SUPPORT_WORDS = 25
LIST_ITEMS = 12
TYPED_VALUES = ("who", "when", "version", "count")
FOCUS_WEIGHT = 1.0
# A sentence that defines what "What is X?" asks about is the answer it asks for, as a date
# is for "when": it outranks sentences that merely mention X.
DEFINITION_BONUS = 2.0


@dataclass(frozen=True)
class SpanWeights:
    """The weights `confbot eval --answers --folds K` chooses by cross-validation (the
    defaults are its choice on the ConfQuestions development split): `header`, the weight
    of a question term found in the evidence's title or heading rather than in the unit;
    `length_penalty`, how much longer units must match more (score divided by
    1 + length_penalty * log2(1 + words / 16)); `rank_prior`, the prior for better-ranked
    sources (score divided by 1 + rank_prior * (number - 1)); `answer_words`, the longest
    answer shown."""

    header: float = 0.5
    length_penalty: float = 0.15
    rank_prior: float = 0.1
    answer_words: int = 25


DEFAULT_WEIGHTS = SpanWeights()


@dataclass(frozen=True)
class Unit:
    """One answerable unit of an evidence: `kind` row (with its `pairs`), item, list (the
    items of a short list), sentence or byline; `stems` are its terms; `group` tells which
    table of the page a row is in (its number) or which list of the evidence an item is in;
    `antecedent`, for a sentence that opens by referring back ("This variable is declared
    in local.conf"), the terms of the sentence before it that it refers to; `answers`, for
    the answer part of a question-and-answer line ("Is X planned? ANSWER: No."), which has
    the question's terms as its `antecedent`."""

    kind: str
    text: str
    stems: frozenset[str]
    words: int
    pairs: tuple[tuple[str, str], ...] = ()
    group: int = 0
    antecedent: frozenset[str] = frozenset()
    answers: bool = False


@dataclass(frozen=True)
class Span:
    """The answer found in one evidence: `answer` (short, shown first), `unit` (the row,
    item or sentence it came from: the supporting line), `score` (how well it answers,
    comparable across the evidences of one question), `support` in [0, 1] and the unit's
    `kind`; `topic` in [0, 1], the share of the carried context's terms (an offline-completed
    follow-up's "(context: ...)") that the unit and its header contain (0 without context);
    `parts`, more values of the answer from other rows of the same table (or items of the
    same list) that answer the question as well (source number, value), in source order;
    `position`, the unit's place among its evidence's units; for an answer that is one cell
    of a table row, `label` is its column and `row_key` the row's cells that say which row
    is meant (those holding the question's terms), so the answer can say what it is;
    `whole`, the unit uncut."""

    answer: str
    unit: str
    score: float
    support: float
    kind: str
    topic: float = 0.0
    parts: tuple[tuple[int, str], ...] = ()
    position: int = -1
    label: str = ""
    row_key: str = ""
    whole: str = ""


# --------------------------------------------------------------------------- units
def is_metadata(line: str) -> bool:
    """Whether a line is page furniture (byline, copyright, licence), never an answer. A
    sentence that says who owns something ("Firmware is owned by the Robot Firmware team")
    is content: the furniture phrase after "is", "are", "was" or "were" is prose, and in a
    line of more than `METADATA_WORDS` words it must open the line."""
    for match in _METADATA.finditer(line):
        before = line[: match.start()].split()
        if before and before[-1].lower() in ("is", "are", "was", "were"):
            continue
        if len(line.split()) <= METADATA_WORDS or len(before) < 3:
            return True
    return False


# Bylines and copyright notes are short; a longer line is furniture only when it opens with
# the phrase (ConfQuestions' bylines: "Owned by A Last updated: May 06, 2016 by B", 10 words).
METADATA_WORDS = 20


# A Confluence byline: "Owned by A Last updated: May 06, 2016 by B" (ConfQuestions, Cloud's
# page header), "Created by A, last modified by B on Jun 27, 2017" (Data Center).
# (the name ends at a comma, a sentence end that no initial makes: "Created by Daniel P.
# Smith. This work is licensed ...", or the update)
_OWNED = re.compile(
    r"\b(?:owned|created) by (.+?)(?=,|(?<!\b[A-Z])\.\s|\s+last (?:updated|modified)\b|$)",
    re.I,
)
_UPDATED_ON = re.compile(
    r"\blast (?:updated|modified):?\s+(?:on\s+)?(.+?)\s+by\s+(.+?)\s*$"
    r"|\blast (?:updated|modified) by (.+?) on (.+?)\s*$"
    r"|\blast (?:updated|modified):?\s+(?:on\s+)?(.+?)\s*$",
    re.I,
)


def byline_facts(line: str) -> tuple[tuple[str, str], ...]:
    """The facts of a page byline as (`PAGE_FACTS` name, value) pairs: its owner (or
    creator), when it was last updated and by whom; () for another line."""
    facts = []
    owned = _OWNED.search(line)
    if owned:
        facts.append(("owner", owned.group(1).strip(" .")))
    updated = _UPDATED_ON.search(line)
    if updated:
        when = updated.group(1) or updated.group(4) or updated.group(5)
        by = updated.group(2) or updated.group(3)
        facts.append(("updated", when.strip(" .,")))
        if by:
            facts.append(("updated_by", by.strip(" .")))
    return tuple(facts)


# The words a question about a page uses for the page and its byline ("Who owns the
# Confluence page on ...", "Wer ist der Autor der Seite ..."), which a byline stands for.
_BYLINE_WORDS = (
    "page document confluence wiki information owner own owns owned author authored"
    " created creator wrote written updated last modified changed edited seite dokument"
    " informationen eigentümer besitzer autor verfasst erstellt geschrieben gehört"
    " aktualisiert zuletzt geändert bearbeitet"
)


@lru_cache(maxsize=1024)
def _byline_stems(line: str) -> frozenset[str]:
    """A byline's terms with the words questions about a page use (`_BYLINE_WORDS`)."""
    return frozenset(terms(line)) | frozenset(terms(_BYLINE_WORDS, STOPWORDS))


def row_pairs(row: str) -> tuple[tuple[str, str], ...]:
    """The (column, value) pairs of a verbalized table row's body
    (`Member is Alice, and Task is Search`, see `core.contextualize.verbalize_row`)."""
    pairs: list[tuple[str, str]] = []
    for part in _PAIR_SPLIT.split(row):
        name, sep, value = part.partition(" is ")
        if sep and name.strip():
            pairs.append((name.strip(), value.strip()))
        elif pairs:
            pairs[-1] = (pairs[-1][0], f"{pairs[-1][1]}, {part.strip()}")
    return tuple(pairs)


def _unit(kind: str, text: str, pairs: tuple[tuple[str, str], ...] = (), group: int = 0) -> Unit:
    return Unit(kind, text, frozenset(terms(text)), len(text.split()), pairs, group)


@lru_cache(maxsize=8192)
def units(text: str) -> tuple[Unit, ...]:
    """The answerable units of an evidence text, in order: verbalized table rows (with
    their pairs), list items (after a line ending in ":" that introduces them, with its
    terms as their `antecedent`) and, for a list of at most `LIST_ITEMS` items, the whole
    list; the sentences of other lines. A byline is a `byline` unit with its facts as pairs
    (`byline_facts`), which only answers a question about the page itself; other metadata
    lines are left out."""
    out: list[Unit] = []
    items: list[str] = []
    lists = 0
    # The terms of the line that introduces the items after it ("1. OpenXT 7.0 planning:",
    # "The following items are measured:"), which read as their heading.
    intro: frozenset[str] = frozenset()

    def close_list() -> None:
        nonlocal lists
        if 1 < len(items) <= LIST_ITEMS:
            out.append(_unit("list", "; ".join(items), group=lists))
        if items:
            lists += 1
        items.clear()

    # The terms of the numbered section heading the lines below it are under.
    section: frozenset[str] = frozenset()
    for raw in text.split("\n"):
        line = " ".join(raw.split())
        if not line or _TABLE_HEAD.match(line):
            continue
        heading = section_heading(line)
        if heading:
            close_list()
            intro = frozenset()
            section = frozenset(terms(heading))
            # its number is no term: a heading that restates the question says nothing
            out.append(Unit("sentence", line, section, len(line.split())))
            continue
        start = len(out)
        if is_metadata(line):
            facts = byline_facts(line)
            if facts:
                out.append(Unit("byline", line, _byline_stems(line), len(line.split()), facts))
            continue
        row = _ROW.match(line)
        if _LIST_MARKER.match(line) and not row:
            item = _LIST_MARKER.sub("", line, count=1).strip()
            if item:
                items.append(item)
                unit = _unit("item", item, group=lists)
                out.append(replace(unit, antecedent=(intro | section) - unit.stems))
                if opens_list(item):
                    intro = unit.stems
            continue
        close_list()
        intro = frozenset()
        if row:
            pairs = row_pairs(row.group(2))
            body = "; ".join(_cell(n, v) for n, v in pairs) or row.group(2)
            out.append(_unit("row", body, pairs, int(row.group(1))))
        elif _ANSWER_MARK.search(line):
            out.extend(_answered(line, out[-1] if out else None))
        else:
            out.extend(_sentences(line))
            if opens_list(line):
                intro = out[-1].stems if out else frozenset()
        if section:
            out[start:] = [
                replace(u, antecedent=u.antecedent | (section - u.stems)) for u in out[start:]
            ]
    close_list()
    return tuple(out)


# A line that announces a list after it: a closing colon, or words that a list finishes
# ("The project includes a bunch of tools, like", "such as", "including", "wie z. B.").
_OPENS_LIST = re.compile(
    r"(?::|,?\s\b(?:like|such as|including|for example|e\.\s?g\.|as follows|wie"
    r"|z\.\s?B\.|beispielsweise|darunter|u\.\s?a\.))\s*$",
    re.IGNORECASE,
)


def opens_list(line: str) -> bool:
    """Whether a line announces the list after it (`_OPENS_LIST`)."""
    return bool(_OPENS_LIST.search(line))


# A numbered section heading on a line of its own ("4.2) Successful installation of the
# tools.", "2.3.1 Scope"): its number has two levels or more, which a list item's has not.
_SECTION_HEADING = re.compile(r"^\d+(?:\.\d+)+[.)]?\s+(\S.*?)[.:]?$")
SECTION_WORDS = 12


def section_heading(line: str) -> str:
    """The title of a numbered section heading line, or "" for another line. A heading
    names what the lines under it are about: a question that restates it ("How do I add a
    USB device ...?" over "4.7) Add a USB device and test it.") is answered by the lines
    under it, which read it as their heading (their `antecedent`), not by the heading."""
    found = _SECTION_HEADING.match(line)
    if not found or len(found.group(1).split()) > SECTION_WORDS:
        return ""
    title = found.group(1)
    return "" if len(SENTENCE_END.split(title)) > 1 else title


# A sentence that opens by referring back to the one before it: "This variable ...", "It
# ...", "These ...", "Dieser Wert ...", "Es ...".
_ANAPHORA = re.compile(
    r"^\W*(?:this|that|these|those|it|its|they|their|such|the latter|the former|dies"
    r"|diese[rsmn]?|es|sie|deren|dessen)\b",
    re.IGNORECASE,
)


def _sentences(line: str) -> list[Unit]:
    """The sentence units of a line of prose; one that opens by referring back
    (`_ANAPHORA`) carries the terms of the sentence before it (and of what that one referred
    back to) as its `antecedent`: "This variable is declared in local.conf" after "Bats is
    enabled using the DISTRO_FEATURE variable" is about DISTRO_FEATURE."""
    out: list[Unit] = []
    for sentence in (s.strip() for s in SENTENCE_END.split(line)):
        if not sentence:
            continue
        unit = _unit("sentence", sentence)
        if out and _ANAPHORA.match(sentence):
            before = out[-1]
            unit = replace(unit, antecedent=(before.stems | before.antecedent) - unit.stems)
        out.append(unit)
    return out


# A page's answer to the question before it on its line: "I assume X is not planned.
# ANSWER: Correct.", "Frage ... Antwort: Ja."
_ANSWER_MARK = re.compile(r"(?:^|\s)(?:ANSWER|Answer|ANTWORT|Antwort)\s*:\s+")


def _answered(line: str, before: Unit | None) -> list[Unit]:
    """The answer of a question-and-answer line as one unit, its question's terms as its
    `antecedent` (the question reads as its heading), with those of the unit `before` it
    when the question refers back to it ("How would this situation come about?" after "If
    the guest has more displays than the host"); the question itself, which answers
    nothing, is no unit."""
    match = _ANSWER_MARK.search(line)
    asked, answer = line[: match.start()].strip(), line[match.end() :].strip()
    if not answer:
        return _sentences(asked)
    unit = _unit("sentence", _confirmed(asked, answer))
    context = frozenset(terms(asked))
    if before is not None and _REFERS_BACK.search(asked):
        context |= before.stems
    return [replace(unit, antecedent=context - unit.stems, answers=True)]


# A bare confirmation as the whole answer of a question-and-answer line, English and German,
# and the word each says it with in the other language.
_CONFIRMATION = re.compile(r"^\W*(correct|right|yes|no|richtig|korrekt|ja|nein)\W*$", re.I)
_FRAMES = {
    "correct": ("Correct", "Richtig"),
    "right": ("Correct", "Richtig"),
    "yes": ("Yes", "Ja"),
    "no": ("No", "Nein"),
    "richtig": ("Correct", "Richtig"),
    "korrekt": ("Correct", "Richtig"),
    "ja": ("Yes", "Ja"),
    "nein": ("No", "Nein"),
}
# What opens a statement put to be confirmed: "I assume from this that ...", "Ich gehe davon
# aus, dass ...".
_ASSUMING = re.compile(
    r"^\W*(?:I|we)\s+(?:assume|think|understand|believe|gather|take it)(?:\s+from\s+this)?,?"
    r"\s+(?:that\s+)?|^\W*(?:ich|wir)\s+(?:gehe|gehen)\s+davon\s+aus,?\s+(?:dass\s+)?"
    r"|^\W*(?:ich|wir)\s+(?:nehme|nehmen)\s+an,?\s+(?:dass\s+)?",
    re.I,
)


def _confirmed(asked: str, answer: str) -> str:
    """The answer of a question-and-answer line, a bare confirmation ("ANSWER: correct.")
    said with what it confirms, the statement put to it: "I assume from this that X is
    not planned. ANSWER: correct." → "Correct: X is not planned." (a bare word answers
    nothing a reader can check); other answers, and a confirmation of a question, as
    they are."""
    bare = _CONFIRMATION.match(answer)
    statement = _ASSUMING.sub("", asked).strip().rstrip(" .")
    if not bare or not statement or asked.rstrip().endswith("?"):
        return answer
    return f"{_FRAMES[bare.group(1).lower()][0]}: {statement}."


def _framed(text: str, language: str) -> str:
    """A confirmation said with what it confirms (`_confirmed`) in `language`'s word:
    "Correct: ..." reads "Richtig: ..." in a German reply."""
    word, colon, rest = text.partition(": ")
    frames = _FRAMES.get(word.lower())
    if not colon or not frames:
        return text
    return f"{frames[1 if language == 'de' else 0]}: {rest}"


# A question that refers back to the line before it: "How would this situation come
# about?", "Is the above correct?", "Gilt das auch für ...?"
_REFERS_BACK = re.compile(
    r"^\W*(?:this|that|these|it|dies\w*|das|es)\b|\b(?:this|that|these|the above|the former"
    r"|the latter|diese[rsmn]?|obige[rsmn]?)\s+\w+",
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)
def _header_terms(header: str) -> frozenset[str]:
    return frozenset(terms(header))


# --------------------------------------------------------------------------- answers
def clip_words(text: str, limit: int) -> str:
    """`text` cut to at most `limit` words, with an ellipsis when cut."""
    words = text.split()
    return text if len(words) <= limit else " ".join(words[:limit]) + " …"


def clip_clause(text: str, limit: int) -> str:
    """An answer cut as `clip_words` cuts it, except that a cut that would end mid-clause
    goes on to the clause's end (a word ending in `.`, `;`, `,` or `:`) when that comes
    within `CLAUSE_SLACK` more words ("Closed indicates that QA has signed off on the item
    as verified completed.", not "... signed off on the …"); the whole text is kept when it
    ends there."""
    words = text.split()
    if len(words) <= limit:
        return text
    end = next(
        (
            i
            for i in range(limit - 1, min(len(words), limit + CLAUSE_SLACK))
            if words[i].endswith((".", ";", ",", ":"))
        ),
        None,
    )
    if end is None:
        return clip_words(text, limit)
    if end + 1 == len(words):
        return text
    return " ".join(words[: end + 1]).rstrip(",;:") + " …"


# How many words past its limit an answer may run to end its clause.
CLAUSE_SLACK = 12


def _weight(profile: QuestionProfile, stems) -> float:
    return math.fsum(profile.terms.get(s, 0.0) for s in stems)


def _new(candidate: str, profile: QuestionProfile) -> bool:
    """Whether a candidate answer says something the question does not already say: a word
    the question lacks, and a content word whose stem it lacks ("The release manager" says
    nothing new to "Wer ist der Backup des Release Managers?"), nor in translation ("team
    members" to "Wer sind die Mitglieder des Teams?": `QuestionProfile.aliases`)."""
    if not {w.lower() for w in TOKEN.findall(candidate)} - profile.words:
        return False
    content = set(terms(candidate))
    return not content or bool(content - set(profile.terms) - profile.aliases.keys())


def typed_values(qtype: str, text: str, profile: QuestionProfile) -> list[str]:
    """Values of the asked type in `text` (persons for who, dates for when, versions,
    counts) that the question does not already contain, nearest to the question's own
    words first."""
    if qtype == "version":
        found = [(m.start(), m.group(0)) for m in _VERSION.finditer(text)]
    elif qtype == "when":
        found = [(m.start(), m.group(0)) for m in _DATE.finditer(text)]
        if _ASKS_DEADLINE.search(profile.text):
            found = [(start, value) for start, value in found if not _YEAR.fullmatch(value)]
        found += [(m.start(), m.group(0)) for m in _DEADLINE.finditer(text)]
    elif qtype == "count" and _ASKS_FREQUENCY.search(profile.text):
        found = [(m.start(), m.group(0)) for m in _FREQUENCY.finditer(text)]
    elif qtype == "count":
        found = [(m.start(), m.group(0)) for m in _COUNT.finditer(text)]
        if _ASKS_AMOUNT.search(profile.text):
            found = [(start, value) for start, value in found if _AMOUNT.search(value)]
            found += [(m.start(), m.group(0)) for m in _MONEY.finditer(text)]
    elif qtype == "who":
        found = [(m.start(), m.group(0)) for m in _NAME.finditer(text) if not _quoted(text, m)]
        found += [(m.start(), m.group(0)) for m in _PEOPLE.finditer(text)]
        if _ASKS_CONTACT.search(profile.text):
            found += [(m.start(), m.group(0)) for m in _CONTACT.finditer(text)]
    else:
        return []
    anchors = [
        m.start() for m in TOKEN.finditer(text) if profile.asked_in(frozenset(terms(m.group(0))))
    ]
    # a number inside a date or a time of day ("July 23, 2015 at 1:00PM") counts nothing
    dates = (
        [m.span() for m in _DATE.finditer(text)] + [m.span() for m in _CLOCK.finditer(text)]
        if qtype == "count"
        else []
    )
    ranked = []
    for start, value in found:
        value = _trim(value)
        if not value or not _new(value, profile):
            continue
        if any(low <= start < high for low, high in dates):
            continue
        distance = min((abs(start - a) for a in anchors), default=0)
        ranked.append((distance, start, value))
    out: list[str] = []
    for _, _, value in sorted(ranked):
        if value not in out:
            out.append(value)
    return out


_QUOTES = "\"'“”„‘’«»"


def _quoted(text: str, found: re.Match) -> bool:
    """Whether a name stands in quotes: a label of the user interface or a title ('Click
    "Space Tools"'), not a person."""
    before, after = text[found.start() - 1 : found.start()], text[found.end() : found.end() + 1]
    return bool(before) and before in _QUOTES and bool(after) and after in _QUOTES


def _trim(value: str) -> str:
    """A typed value without surrounding punctuation or a trailing stopword ("2 with")."""
    words = value.strip(" ,;:").split()
    while len(words) > 1 and words[-1].lower() in STOPWORDS:
        words.pop()
    return " ".join(words)


def cell_verdict(value: str) -> str | None:
    """`Yes`/`No` for a pass/fail-like table cell, else None."""
    first = value.strip().lower().split(" ")[0].strip(".,;:()[]*") if value.strip() else ""
    if first in _POSITIVE_CELL:
        return "Yes"
    if first in _NEGATIVE_CELL:
        return "No"
    return None


def _gives_reason(value: str) -> bool:
    """Whether a table cell gives a reason: it opens with "because", "to", "weil" ... or it
    is a failure that says more than its verdict ("Fail OXT-1654", "Fail MLE tripped on
    reboot"), which is what a why question about a row's failure asks for."""
    if _REASON.match(value):
        return True
    return cell_verdict(value) == "No" and len(value.split()) > 1


# A column that holds places, which answer a where question about a row's subject.
_PLACE_COLUMN = re.compile(
    r"\b(?:office|location|city|site|country|region|address|room|building|floor|standort"
    r"|ort|stadt|büro|land|adresse|raum|gebäude)s?\b",
    re.IGNORECASE,
)


def _row_cells(profile: QuestionProfile, unit: Unit) -> list[tuple[str, str]]:
    """The cells of a row that answer the question, best first (at most three): the
    columns whose names carry asked terms the row's values do not (the row's values say
    which row is meant), the cell the question's "which X" names, a value of the asked type;
    [] when no cell stands out (the whole row answers)."""
    value_terms: set[str] = set()
    for _, value in unit.pairs:
        value_terms.update(terms(value))
    focus_names = {t for t in profile.focus if profile.terms.get(t, 0.0) >= ENTITY_WEIGHT}
    column_hits = [
        profile.asked_in(frozenset(terms(name)))
        - profile.asked_in(frozenset(value_terms - set(terms(name))))
        for name, _ in unit.pairs
    ]
    # (the columns of cells that say something new: "Week: Week 3" only says which row)
    shared = _shared_terms(
        [h for h, (_, v) in zip(column_hits, unit.pairs, strict=True) if v and _new(v, profile)]
    )
    scored = []
    typed_cells = 0
    for position, (name, value) in enumerate(unit.pairs):
        if not value:
            continue
        hits = column_hits[position] - shared
        typed = profile.qtype in TYPED_VALUES and bool(typed_values(profile.qtype, value, profile))
        # "where are they based?": the cell of a column of places (Office: Bristol)
        typed = typed or (profile.qtype == "where" and bool(_PLACE_COLUMN.search(name)))
        if profile.qtype in TYPED_VALUES and not typed and _names_asked(profile, value):
            # The cell names the asked thing and its column only a plain word of the
            # question ("Team: Site Reliability (SRE)" for "How big is the SRE team?"): it
            # says which row is meant, not the value asked for.
            hits = {t for t in hits if profile.terms.get(t, 0.0) >= ENTITY_WEIGHT}
        score = _weight(profile, hits)
        # The cell the question's "which X" names: X in its column or, with more, its value.
        named = profile.asked_in(frozenset(terms(name))) & profile.focus
        if _new(value, profile):
            # A value names what is asked through the names in "which X" ("Which Dell
            # model" → Dell Latitude E7490); plain words in a value ("Building opening
            # hours") say which row is meant.
            named |= _names_focus(profile, value)
        score += FOCUS_WEIGHT * _weight(profile, named)
        if typed:
            score += TYPE_BONUS
        if profile.qtype == "yesno" and cell_verdict(value) is not None:
            score += TYPE_BONUS
        if profile.qtype == "why" and _gives_reason(value):
            score += TYPE_BONUS
        if not _new(value, profile):
            score -= 1.0
        # A cell naming a name of "which X" ("Which Ubuntu versions" → Notes: Ubuntu 3.11
        # Kernel) is named more closely than one holding only its plain words (Xen Version).
        naming = 2 if named & focus_names else int(bool(named))
        scored.append((score, naming, -position, name, value))
        typed_cells += typed
    if not scored:
        return []
    # Once a cell is the one the question names, the others only say which row is meant;
    # a "why" question is answered by the cells that give a reason, when some do.
    # (before the named cells: a follow-up's carried context names the row's key cells)
    if profile.qtype == "why" and any(_gives_reason(cell[4]) for cell in scored):
        return [(n, v) for _, _, _, n, v in sorted(scored, reverse=True) if _gives_reason(v)][:3]
    joined = _joined_columns(profile, scored)
    closest = max(naming for _, naming, *_ in scored)
    if closest:
        scored = [cell for cell in scored if cell[1] == closest]
    scored.sort(reverse=True)
    best = scored[0][0]
    # The one cell of the asked kind (the only number of a row for "How big ...?") stands
    # out though no column name is asked.
    if best <= TYPE_BONUS and not (typed_cells == 1 and best == TYPE_BONUS):
        return []
    close = [(n, v) for s, _, _, n, v in scored if s >= best * 0.75][:3]
    # A cell whose value the question already says ("TPM: 2.0" for "... with TPM 2.0?")
    # only repeats which row is meant, beside a cell that says something new.
    close = [(n, v) for n, v in close if not _said(profile, v)] or close
    close += [cell for cell in joined if cell not in close][: max(0, 3 - len(close))]
    # A column that matches only part of what another matches ("On-call / Primary" beside
    # "On-call / Secondary" for "who is the secondary on-call") is not what is asked.
    asked = {n: profile.asked_in(frozenset(terms(n))) for n, _ in close}
    kept = [(n, v) for n, v in close if not any(asked[n] < asked[m] for m, _ in close)]
    return _merged(kept)


def _said(profile: QuestionProfile, value: str) -> bool:
    """Whether the question spells a cell value out as the cell has it ("2.0" in "... with
    TPM 2.0?"; not "#sre" for "the SRE team's Slack channel")."""
    pattern = r"(?<!\w)" + re.escape(value.strip()) + r"(?!\w)"
    return bool(value.strip()) and re.search(pattern, profile.text, re.IGNORECASE) is not None


def _names_asked(profile: QuestionProfile, value: str) -> bool:
    """Whether a cell value holds a name the question asks about (`ENTITY_WEIGHT`)."""
    found = profile.asked_in(frozenset(terms(value)))
    return any(profile.terms.get(t, 0.0) >= ENTITY_WEIGHT for t in found)


def _shared_terms(column_hits: Sequence[set[str]]) -> set[str]:
    """The asked terms that several of a row's column names hold ("Test" in "Test
    Description" and "Notes/Test Data" for "... tested ...?") when an asked term names one
    column alone ("Result"): a word many columns share says what the table is about, the
    one column names the cell asked for. None when no asked term names one column alone
    (both "On-call / Primary" and "On-call / Secondary" answer "Who covers on-call?")."""
    counts: dict[str, int] = {}
    for found in column_hits:
        for term in found:
            counts[term] = counts.get(term, 0) + 1
    shared = {term for term, count in counts.items() if count > 1}
    return shared if any(found - shared for found in column_hits) else set()


_FOCUS_AND = re.compile(r"\s+(?:and|und|&)\s+(?:(?:which|welche[rsmn]?)\s+)?", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _focus_parts(question: str) -> tuple[str, ...]:
    """The nouns a question's "which X" joins with "and" ("BIOS", "Build versions")."""
    phrase, _ = question_focus(question)
    return tuple(_FOCUS_AND.split(" ".join(phrase)))


def _joined_columns(profile: QuestionProfile, scored: Sequence[tuple]) -> list[tuple[str, str]]:
    """When the question's "which X" joins two nouns ("Which BIOS and Build versions",
    "Welches BIOS und welche Build-Versionen"), the best cell whose column each noun names,
    in the question's order: both are asked, though one is a name (BIOS) and the other a
    plain word (a German question capitalizes every noun, so Build weighs less there than
    in the English question); [] for a single noun."""
    parts = _focus_parts(profile.text)
    if len(parts) < 2:
        return []
    out: list[tuple[str, str]] = []
    for part in parts:
        wanted = profile.asked_in(frozenset(terms(part)))
        named = [cell for cell in scored if wanted & profile.asked_in(frozenset(terms(cell[3])))]
        if named:
            _, _, _, name, value = max(named)
            if (name, value) not in out:
                out.append((name, value))
    return out if len(out) >= 2 else []


def _merged(cells: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Cells with one value once: a cell spanning two columns ("On-call / Primary" and
    "On-call / Secondary" both "Covered by SRE ...") is named by what the columns share
    ("On-call"), or by the first."""
    out: list[tuple[str, str]] = []
    for name, value in cells:
        same = next((i for i, (_, v) in enumerate(out) if v == value), None)
        if same is None:
            out.append((name, value))
            continue
        first = out[same][0].split(" / ")
        shared = [a for a, b in zip(first, name.split(" / "), strict=False) if a == b]
        out[same] = (" / ".join(shared) or out[same][0], value)
    return out


def _names_focus(profile: QuestionProfile, value: str) -> set[str]:
    """The question's "which X" words a cell value holds when the value names a thing of
    that kind: through a name of X ("Which Dell model" → Dell ..., weighted as a name) or
    with a name or number of its own ("Dell Latitude E7490"). Plain words in a value
    ("Building opening hours") only say which row is meant."""
    found = profile.asked_in(frozenset(terms(value))) & profile.focus
    names = {t for t in found if profile.terms.get(t, 0.0) >= ENTITY_WEIGHT}
    own = [w for w in value.split() if w.lower().strip(".,;:()") not in profile.words]
    return found if names or any(is_entity(w) for w in own) else set()


def _row_answer(profile: QuestionProfile, unit: Unit, words: int) -> str:
    """The cell(s) of a row that answer the question (`_row_cells`), `Column: value`; for a
    yes/no question Yes or No by a pass/fail cell asked about, else Yes; the whole row
    when no cell stands out."""
    chosen = _row_cells(profile, unit)
    if profile.qtype == "yesno":
        # A pass/fail cell under the asked column decides; then a cell that denies what is
        # asked ("Did not run performance tests"); otherwise the row, found for the
        # question's terms, says yes (as a sentence without a negation does).
        verdict = _asked_verdict(profile, chosen[0][1]) if chosen else None
        if verdict is not None and asks_success(profile.text) and problem_column(chosen[0][0]):
            verdict = "No" if verdict == "Yes" else "Yes"  # "Repro?: Yes": it failed
        if verdict is None and _denying_cell(profile, unit):
            return "No"
        if verdict is None and chosen and _predicate_elsewhere(profile, unit, chosen[0]):
            return "No"
        if verdict is None and chosen and _closed_when_asked_open(profile, chosen[0][1]):
            return "No"
        return verdict or ("No" if _contradicts(profile, unit) else "Yes")
    if not chosen:
        return clip_clause(unit.text, words)
    if len(chosen) == 1 and _says_column(profile, *chosen[0]):
        return clip_clause(chosen[0][1], words)
    return clip_clause("; ".join(_cell(n, v) for n, v in chosen), words)


def row_label(profile: QuestionProfile, unit: Unit) -> tuple[str, str]:
    """(column, row key) of a row answered by one cell: the cell's column name and the
    values of the row's other cells that hold the question's terms ("Week 2, Payments"),
    so the answer can say what the value is; ("", "") when no single cell answers."""
    chosen = _row_cells(profile, unit)
    if profile.qtype == "yesno":
        return _yesno_label(profile, unit, chosen)
    if len(chosen) != 1:
        return "", ""
    column = chosen[0][0]
    return ("" if _GENERIC_COLUMN.match(column) else column), _row_key(profile, unit, column)


KEY_WORDS = 6


def _row_key(profile: QuestionProfile, unit: Unit, column: str) -> str:
    """The cells of a row, other than `column`'s, that say which row is meant: short values
    holding the question's terms, not pass/fail marks. A term of `column`'s own name is the
    thing asked for, not which row: "#team-payments" holds "team" of "Which team owns the
    Billing Service runbook?" but says nothing of the row the runbook picks."""
    asked = frozenset(terms(column))
    keys = [
        value
        for name, value in unit.pairs
        if name != column
        and value
        and len(value.split()) <= KEY_WORDS
        and cell_verdict(value) is None
        and profile.asked_in(frozenset(terms(value)) - asked)
    ]
    return ", ".join(dict.fromkeys(keys[:3]))


def _yesno_label(
    profile: QuestionProfile, unit: Unit, chosen: Sequence[tuple[str, str]]
) -> tuple[str, str]:
    """For a yes/no question answered by a row: the deciding cell as "column: value" and
    the cells saying which row is meant."""
    denied = _denying_cell(profile, unit)
    if not chosen and not denied:
        return "", ""
    name, value = chosen[0] if chosen else denied
    if cell_verdict(value) is None and denied:
        name, value = denied
    key = _row_key(profile, unit, name)
    noun = _asked_to_be(profile)
    if noun:  # "Public holiday" in Berlin's cell says what is asked, not which row
        key = ", ".join(k for k in key.split(", ") if not set(terms(k)) & noun)
    return _cell(name, value), key


# The asked terms a cell must hold to deny what a yes/no question asks (set by design: one
# shared word, "test", says little).
DENYING_TERMS = 2


# "Is Whit Monday a holiday in Bristol?": the noun a yes/no question asks its subject to be.
_ASKED_TO_BE = re.compile(
    r"^\W*(?:is|are|was|were|ist|sind|war|waren)\b[^?]*?\b(?:a|an|ein|eine)\s+([^\W\d_]+)",
    re.IGNORECASE,
)


def _asked_to_be(profile: QuestionProfile) -> set[str]:
    """The terms of the noun a yes/no question asks its subject to be (`_ASKED_TO_BE`)."""
    match = _ASKED_TO_BE.search(profile.text) if profile.qtype == "yesno" else None
    return set(terms(match.group(1))) if match else set()


def _predicate_elsewhere(profile: QuestionProfile, unit: Unit, cell: tuple[str, str]) -> bool:
    """Whether the noun a yes/no question asks its subject to be ("a holiday") is missing
    from the asked cell and said by another cell of the row: "Bristol: Normal day" beside
    "Berlin: Public holiday" answers "Is Whit Monday a holiday in Bristol?" with No."""
    noun = _asked_to_be(profile)
    if not noun or noun & set(terms(cell[1])):
        return False
    return any(noun & set(terms(value)) for name, value in unit.pairs if (name, value) != cell)


# "Is the office open on Whit Monday?" asks the opposite of what a "Public holiday" cell
# says; English and German, in lower case and unhyphenated ("Open XT", "open-source" ask
# nothing of the kind).
_ASKS_OPEN = re.compile(
    r"(?<![\w-])(?:open|opened|working day|work day|geöffnet|offen|Arbeitstag)(?![\w-])"
)
_SAYS_CLOSED = re.compile(
    r"\b(?:holiday|bank holiday|closed|day off|days off|shutdown|geschlossen|feiertag"
    r"|betriebsferien)\b",
    re.IGNORECASE,
)


def _closed_when_asked_open(profile: QuestionProfile, value: str) -> bool:
    """Whether a yes/no question asks if something is open (a working day) and the asked
    cell says it is closed: "Is the office open on Whit Monday in Berlin?" over "Berlin:
    Public holiday" is a No, though the row was found for the question's words."""
    return bool(
        _ASKS_OPEN.search(profile.text)
        and not _NEGATION.search(profile.text)
        and _SAYS_CLOSED.search(value)
    )


def _denying_cell(profile: QuestionProfile, unit: Unit) -> tuple[str, str] | None:
    """The cell of a row that denies what a yes/no question asks: a negation with at least
    `DENYING_TERMS` of the question's terms ("Notes: Did not run performance tests" for "Was
    a performance test run ...?"), when the question itself asks without one; or None. The
    row's other cells (its test description) say what was planned, this one what was done."""
    if _NEGATION.search(profile.text):
        return None
    for name, value in unit.pairs:
        for clause in SENTENCE_END.split(value):
            negated = _NEGATION.search(clause)
            if negated and len(profile.asked_in(frozenset(terms(clause)))) >= DENYING_TERMS:
                return name, value
    return None


def _says_column(profile: QuestionProfile, name: str, value: str) -> bool:
    """Whether the question already says what a cell's value is, so the answer needs no
    column name: the question names the column ("Which TPM version ..." → TPM: 2.0) or the
    value holds the question's "which X" words ("Which Dell model ..." → Dell Optiplex 7050)."""
    name_terms = frozenset(terms(name))
    if name_terms and len(profile.asked_in(name_terms)) == len(name_terms):
        return True
    return bool(_names_focus(profile, value))


def _cell(name: str, value: str) -> str:
    """`Column: value`, or the value alone under a generic column name (`Column 2`)."""
    return value if _GENERIC_COLUMN.match(name) else f"{name}: {value}"


def counted_items(list_text: str) -> str:
    """A whole-list unit (items joined by "; ") as a count and its items: `3: a; b; c`."""
    items = list_text.split("; ")
    return f"{len(items)}: {list_text}"


# A sentence that announces what the next one says: "... is attractive for several reasons.",
# "... works as follows.", "... aus mehreren Gründen sinnvoll."
_ANNOUNCES_NEXT = re.compile(
    r"\b(?:for|because of|with) (?:several|a number of|many|various|two|three|four|the following)"
    r" (?:reasons|benefits|advantages|purposes)\W*$|\bas follows\W*$"
    r"|\baus (?:mehreren|folgenden|verschiedenen|zwei|drei|vier) Gründen\b"
    r"|\bfolgende(?:rmaßen|n|s|r)?\W*$|\bwie folgt\W*$",
    re.IGNORECASE,
)


def _announced_items(
    profile: QuestionProfile,
    found: Sequence[Unit],
    position: int,
    words: int,
    heading: frozenset[str] = frozenset(),
) -> str:
    """The items that the sentence or list item at `position` announces with a closing
    colon ("The basic approaches are:"), as the answer (counted for "how many"), or the
    sentence after one that announces its reasons without giving them ("The approach is
    attractive for several reasons." → "First, only one extra repository ..."); "" when it
    is no such unit, nothing follows it, or the question asks yes or no."""
    unit = found[position]
    if profile.qtype == "yesno":
        return ""
    if unit.kind == "sentence" and _ANNOUNCES_NEXT.search(unit.text):
        following = found[position + 1 : position + 2]
        if following and following[0].kind == "sentence":
            return clip_clause(following[0].text, words)
    if unit.kind not in ("sentence", "item") or not opens_list(unit.text):
        return ""
    following = found[position + 1 :]
    if unit.kind == "item":  # "- The basic approaches are:" and the items under it
        following = [u for u in following if u.kind == "item"]
    items = [u.text for u in takewhile(lambda u: u.kind == "item", following)]
    if not items:
        return ""
    listed = "; ".join(items)
    if counts_items(profile.text, listed):
        if not counts_list(profile, heading | unit.stems, items):
            return ""  # a list of other things: its size answers nothing asked
        listed = counted_items(listed)
    return clip_clause(listed, words)


# Words that answer a yes/no question about their opposite with no ("Is the office open on
# 24 December?" → "the office is closed"), English and German.
_OPPOSITES = tuple(
    (frozenset(a.split()), frozenset(b.split()))
    for a, b in (
        ("open opened geöffnet offen", "closed geschlossen"),
        ("pass passed passes bestanden", "fail failed fails failure gescheitert"),
        ("enabled aktiviert", "disabled deaktiviert"),
        ("allowed permitted erlaubt", "forbidden prohibited verboten"),
        ("supported unterstützt", "unsupported"),
        ("available verfügbar", "unavailable"),
        ("required mandatory compulsory erforderlich", "optional"),
        ("public öffentlich", "private internal privat intern"),
    )
)


# A negation just before a word (at most one word between): "nicht bestanden", "not passed",
# "didn't really work".
_NEGATED = re.compile(r"(?:\b(?:not|never|nicht|nie|niemals)|n't)\s+(?:\w+\s+)?$", re.IGNORECASE)


@lru_cache(maxsize=4096)
def asked_sides(question: str) -> frozenset[tuple[int, int]]:
    """The sides of the `_OPPOSITES` pairs a yes/no question asks about, as (pair, side):
    a word of a side asks about that side, and a negated one about the other ("Hat eine
    Konfiguration den Test nicht bestanden?" asks whether one failed, as "Did any
    configuration fail the test?" does)."""
    out = set()
    for match in TOKEN.finditer(question):
        word = match.group().lower()
        for pair, sides in enumerate(_OPPOSITES):
            for side, words in enumerate(sides):
                if word in words:
                    negated = _NEGATED.search(question[: match.start()]) is not None
                    out.add((pair, side ^ negated))
    return frozenset(out)


def _contradicts(profile: QuestionProfile, unit: Unit) -> bool:
    """Whether a unit says the opposite of what the question asks about (`asked_sides`)
    and not the thing itself."""
    said = {w.lower() for w in TOKEN.findall(unit.text)}
    for pair, side in asked_sides(profile.text):
        word, opposite = _OPPOSITES[pair][side], _OPPOSITES[pair][1 - side]
        if said & opposite and not said & word:
            return True
    return False


# A column that records whether a problem showed ("OXT-243 Repro?", "Crash", "Fehler"): its
# Yes is a failure of what was tested.
_PROBLEM_COLUMN = re.compile(
    r"\b(?:repro\w*|reproduc\w*|bugs?|crash\w*|errors?|regressions?|fehler\w*|absturz)\b",
    re.IGNORECASE,
)
_PASS_PAIR = 1  # the pass/fail pair of `_OPPOSITES`
_SUCCESS = re.compile(r"\b(?:work|works|worked|succeed|succeeded|funktioniert\w*)\b", re.I)


def problem_column(column: str) -> bool:
    """Whether a table column records whether a problem showed (`_PROBLEM_COLUMN`)."""
    return _PROBLEM_COLUMN.search(column) is not None


def asks_success(question: str) -> bool:
    """Whether a yes/no question asks whether something passed or worked ("Did the
    configuration pass the OXT-243 Repro test?"), not whether it failed: a Yes in a column
    that records a problem (`problem_column`) answers it No."""
    sides = asked_sides(question)
    return (_PASS_PAIR, 0) in sides or (_SUCCESS.search(question) is not None and not sides)


def _asked_verdict(profile: QuestionProfile, value: str) -> str | None:
    """Yes/No for a pass/fail-like cell (`cell_verdict`), read against what the question
    asks: a "Pass" cell answers "Did it fail?" (or "Hat es nicht bestanden?") with No."""
    verdict = cell_verdict(value)
    first = value.strip().lower().split(" ")[0].strip(".,;:()[]*") if value.strip() else ""
    for pair, side in asked_sides(profile.text):
        for cell_side, words in enumerate(_OPPOSITES[pair]):
            if first in words:
                return "Yes" if cell_side == side else "No"
    return verdict


def cell_reading(question: str, value: str) -> str | None:
    """Yes/No that a table cell gives a yes/no `question`: a pass/fail-like cell read
    against what it asks (`_asked_verdict`: "Fail OXT-1654" to "Did it pass ...?" is No),
    or No for a cell that negates ("Did not do performance tests") when the question asks
    without a negation (`_denying_cell`); None when the cell decides nothing. For checking
    a yes/no read from a row (`core.combine`)."""
    verdict = _asked_verdict(profile_question(question), value)
    if verdict is None and _NEGATION.search(value) and not _NEGATION.search(question):
        return "No"
    return verdict


def _list_intro(found: Sequence[Unit], unit: Unit) -> frozenset[str]:
    """The terms of the line that introduces a whole-list unit's items (its items carry
    them as their `antecedent`), or none for another unit."""
    if unit.kind != "list":
        return frozenset()
    items = (u for u in found if u.kind == "item" and u.group == unit.group)
    return frozenset().union(*(u.antecedent for u in items))


def _unit_answer(
    profile: QuestionProfile, unit: Unit, words: int, named: frozenset[str] = frozenset()
) -> str:
    """The short answer inside a unit, by question type; a list is counted only when it
    holds the counted things (`counts_list`, `named`: its heading's and intro's terms)."""
    if unit.kind == "byline":
        return dict(unit.pairs)[profile.fact]
    if unit.kind == "row":
        return _row_answer(profile, unit, words)
    if unit.answers and unit.text.startswith(tuple(f"{en}: " for en, _ in _FRAMES.values())):
        return clip_clause(_framed(unit.text, profile.language), words)
    kind_named = labelled_kind(profile, unit.text)
    if kind_named and kind_named != unit.text:
        return clip_clause(kind_named, words)  # the sentence naming the asked kind's thing
    labelled = _LABELLED.match(unit.text)
    if labelled and len(labelled.group(1).split()) <= 6 and profile.qtype != "yesno":
        label, value = labelled.groups()
        label_terms = frozenset(set(terms(label)) - set(terms(value)))
        if profile.asked_in(label_terms) and _new(value, profile):
            return clip_clause(value, words)
    if unit.kind == "list" and counts_items(profile.text, unit.text):
        if counts_list(profile, named, unit.text.split("; ")):
            return clip_clause(counted_items(unit.text), words)
        return ""  # a list of other things: its size answers nothing asked
    typed = typed_values(profile.qtype, unit.text, profile)
    if typed:
        several = profile.qtype == "version" or (profile.qtype == "who" and profile.plural)
        return ", ".join(typed[: 2 if several else 1])
    if profile.qtype == "what" and _ASKS_KEY.search(profile.text):
        keys = [k for k in _ISSUE_KEY.findall(unit.text) if k.lower() not in profile.words]
        if keys:
            return ", ".join(dict.fromkeys(keys))
    if profile.qtype == "yesno":
        # The sentence that decides says Yes or No, not a negation in another sentence of
        # the item ("Premium economy is allowed for ... Business class is never reimbursed.")
        clause = deciding_sentence(profile, unit.text)
        if not profile.asked_in(frozenset(terms(clause))):
            clause = unit.text  # no sentence holds what is asked: the unit as a whole
        if not decides(profile, clause, unit.antecedent):
            return ""  # nothing in it is what is asked: it answers nothing
        said = _unit("sentence", clause) if clause != unit.text else unit
        if unchecked_condition(profile, clause):
            return clip_clause(clause, words)  # what the page says, with no Yes or No
        if other_agent(profile, clause) or excluded(profile, clause):
            return "No"  # someone else did it, or a closed list leaves it out
        return "No" if _NEGATION.search(clause) or _contradicts(profile, said) else "Yes"
    return clip_clause(without_echo(profile, unit.text), words)


def decides(
    profile: QuestionProfile, clause: str, antecedent: frozenset[str] = frozenset()
) -> bool:
    """Whether a clause can decide a yes/no question: it, or what it answers (its
    `antecedent`: "No." after "Is HDMI audio planned?"), holds at least one of the terms
    the question itself asks about (directly or through a translation). A unit found only
    through a follow-up's carried topic or its heading ("UEFI upgrade ... is known to fail"
    for "Were any of them resolved?") says nothing about what is asked: a Yes or No over it
    would be a guess, so it answers nothing."""
    return bool(profile.asked_in(frozenset(terms(clause)) | antecedent))


# Where a clause sets a condition on what it allows or requires: a threshold ("for flights
# over 6 hours", "longer than 4 hours", "ab 500 Euro") or "if", "only if", "unless",
# "wenn", "falls", "sofern", "nur wenn".
_CONDITION = re.compile(
    r"\b(?:over|above|more than|longer than|at least|under|below|less than|shorter than"
    r"|über|ab|mehr als|länger als|mindestens|unter|weniger als|kürzer als)\s+[€£$]?\d"
    r"|\b(?:if|only if|unless|provided that|wenn|falls|sofern|nur wenn)\b",
    re.IGNORECASE,
)


def unchecked_condition(profile: QuestionProfile, clause: str) -> bool:
    """Whether a yes/no question's deciding clause holds only under a condition
    (`_CONDITION`) while the question names no case of it ("Is premium economy allowed?"
    over "Premium economy is allowed for flights over 6 hours"): its Yes or No would be a
    guess, so the answer is what the clause says. A question that names a name or number
    the clause holds ("... on a flight to New York?" over "... for flights over 6 hours (for
    example Berlin–New York)", "... on Deutsche Bahn trips?" over "... allowed on Deutsche
    Bahn trips longer than 4 hours") asks about the case the clause speaks of, and is
    decided by it."""
    if _CONDITION.search(clause) is None:
        return False
    # The case is named after the clause's verb: its subject ("Premium economy", which a
    # German question capitalizes like a name) is what is allowed, not the case.
    verb = _PREDICATE.search(clause)
    subject = profile.asked_in(frozenset(terms(clause[: verb.start()]))) if verb else set()
    named = profile.asked_in(frozenset(terms(clause[verb.end() :] if verb else clause)))
    return not any(profile.terms.get(t, 0.0) >= ENTITY_WEIGHT for t in named - subject)


_PREDICATE = re.compile(
    r"\b(?:is|are|was|were|may|can|must|ist|sind|war|waren|darf|dürfen|kann|können|muss"
    r"|müssen)\b",
    re.IGNORECASE,
)


def deciding_sentence(profile: QuestionProfile, text: str) -> str:
    """The sentence of a unit that shares most terms with a yes/no question (a list item or
    passage may hold several: "Train first. ... first class is allowed on ... trips longer
    than 4 hours."): the clause behind Yes or No, which alone decides it; the first of
    equals."""
    sentences = SENTENCE_END.split(text)
    if len(sentences) < 2:
        return text
    return max(sentences, key=lambda s: len(profile.asked_in(frozenset(terms(s)))))


# Where a sentence splits into clauses: a comma, semicolon or dash before the next words.
_CLAUSE = re.compile(r"\s*(?:[,;]|\s--?\s|--)\s+")
ECHO_SHARE = 0.8


def without_echo(profile: QuestionProfile, text: str) -> str:
    """A sentence without the clauses at its start or end that only repeat the question
    ("..., which is the recommended configuration for building OpenXT" after "What is the
    recommended configuration for building OpenXT?"): a clause goes when at least
    `ECHO_SHARE` of its terms are the question's and what stays says something new."""
    clauses = [c for c in _CLAUSE.split(text) if c]
    if len(clauses) < 2:
        return text

    def echo(clause: str) -> bool:
        stems = frozenset(terms(clause))
        own = {
            s
            for s in stems
            if s in profile.terms or (s in profile.aliases and s not in profile.spelled)
        }
        return bool(own) and len(own) >= ECHO_SHARE * len(stems)

    while len(clauses) > 1 and echo(clauses[-1]):
        clauses.pop()
    while len(clauses) > 1 and echo(clauses[0]):
        clauses.pop(0)
    kept = ", ".join(clauses)
    return kept if _new(kept, profile) else text


def score_unit(
    profile: QuestionProfile,
    header_terms: frozenset[str],
    unit: Unit,
    weights: SpanWeights = DEFAULT_WEIGHTS,
) -> tuple[float, float]:
    """(score, support) of one unit: the weight of the asked terms it contains, plus
    `weights.header` times those its evidence's header (title and heading) contains,
    plus `CONTEXT_WEIGHT` per context term, plus `TYPE_BONUS` when it holds a value of the
    asked type, divided by a mild length penalty; support is the share of the asked weight
    the unit and header cover (a term found only through a translation counts
    `TRANSLATION_CREDIT` of its weight: word translations are often wrong; not the
    glossary's, `QuestionProfile.glossed`)."""
    # A whole list answers questions about the list (its heading) or its size, not about
    # one of its items.
    counting = profile.qtype == "count" and counts_items(profile.text, unit.text)
    own = profile.asked_in(unit.stems) if unit.kind != "list" or counting else set()
    # What a sentence refers back to reads as its heading does (`Unit.antecedent`).
    header_terms = header_terms | unit.antecedent
    in_header = profile.asked_in(header_terms)
    score = (
        _weight(profile, own - in_header)
        + weights.header * _weight(profile, in_header)
        + CONTEXT_WEIGHT * len(unit.stems & profile.context)
    )
    header_only = in_header - own
    if own and profile.qtype in TYPED_VALUES and typed_values(profile.qtype, unit.text, profile):
        score += TYPE_BONUS
    if unit.kind == "list" and counting and in_header:
        score += TYPE_BONUS  # "how many" over a list under a matching heading: count it
    if unit.kind == "byline":
        score += TYPE_BONUS  # it holds the page fact asked for (`scored_units`)
    score /= 1 + weights.length_penalty * math.log2(1 + unit.words / 16)
    total = profile.weight
    found = own | header_only
    held = (unit.stems if unit.kind != "list" or counting else set()) | header_terms
    # A word the glossary translates is as sure as the word itself (`QuestionProfile.glossed`).
    direct = found & (held | {profile.aliases[s] for s in held & profile.glossed})
    credit = _weight(profile, direct) + TRANSLATION_CREDIT * _weight(profile, found - direct)
    if unit.kind in ("sentence", "item") and names_only(profile, found):
        credit *= NAMES_ONLY
    return score, credit / total if total else 0.0


# The share of its support a sentence or list item keeps when it holds only the names of a
# question that also asks with plain words (`names_only`; a table row's column names say what
# its cells are, so a row is judged by its cells as before).
NAMES_ONLY = 0.8
_UNTYPED = ("what", "howto", "why")


def names_only(profile: QuestionProfile, found: set[str]) -> bool:
    """Whether a unit (with its heading) holds only the names, dates and numbers of a what,
    how or why question and none of the plain words that say what is asked about
    them ("Christopher Clark, Rich Persaud" for "What were the action items for Rich
    Persaud in the call on 15 December?"): it restates whom the question is about, not
    what it asks. (A where question's plain words are mostly verbs of finding: "Wo ist das
    XT Shield zu finden?" is answered by "At the bottom-right corner, the XT shield ...".)"""
    if profile.qtype not in _UNTYPED:
        return False
    plain = {t for t, w in profile.terms.items() if w < ENTITY_WEIGHT}
    return bool(plain) and bool(found) and not found & plain


class Scored(NamedTuple):
    """A unit of an evidence as a candidate answer: its `score` and `support`
    (`score_unit`) and its `position` among the evidence's units."""

    score: float
    support: float
    unit: Unit
    position: int


def scored_units(
    profile: QuestionProfile, header: str, text: str, weights: SpanWeights = DEFAULT_WEIGHTS
) -> list[Scored]:
    """(score, support, unit, position) of every unit of an evidence that may answer the
    question: it shares a term with the question (a whole list may share it through its
    heading: "Preconditions:" over its items) and, unless the question asks yes or no, says
    something the question does not (or announces what follows it: `_announces`)."""
    header_terms = _header_terms(header)
    wanted = profile.terms.keys() | profile.context | (profile.aliases.keys() - profile.spelled)
    titled = bool(header_terms & wanted)
    out = []
    # "What is TBOOT?" under a "TBOOT" heading: "It is the reference program ..." defines it.
    defined = bool(profile.defines) and profile.defines <= header_terms
    found = units(text)
    subject = _opening_names(profile, found)
    for position, unit in enumerate(found):
        if unit.kind == "byline" and profile.fact not in dict(unit.pairs):
            continue  # a byline answers only a question about the page itself
        definition = (
            bool(profile.defines) and unit.kind == "sentence" and _defines(profile, unit, defined)
        )
        if profile.qtype != "yesno" and unit.stems <= wanted and not _announces(profile, unit):
            continue
        if _asks(unit) or (unit.kind in ("sentence", "item") and _aside(profile, unit.text)):
            continue
        if _bare_intro(profile, found, position):
            continue
        if unit.kind == "row" and numbered_otherwise(profile, unit):
            continue
        if unit.kind == "row":
            unit = asked_block(profile, unit)
        held = unit.stems | unit.antecedent if unit.answers else unit.stems
        if not (
            held & wanted
            or (titled and unit.kind == "list")
            or definition
            or _titled_value(profile, titled, unit)
        ):
            continue
        # A stated count is of what the passage opens naming
        # ("Headcount ...: 58 people" under "Who owns what at Northwind Robotics.").
        inherited = subject if position and _states_count(profile, unit) else frozenset()
        score, covered = score_unit(profile, header_terms | inherited, unit, weights)
        if definition or labelled_kind(profile, unit.text):
            score += DEFINITION_BONUS
        out.append(Scored(score, covered, unit, position))
    return out


def _bare_intro(profile: QuestionProfile, found: Sequence[Unit], position: int) -> bool:
    """Whether a unit announces a list in words (`opens_list`, not a colon) that its
    evidence does not hold: the evidence ends with it ("The project includes a bunch of
    tools, like"), so it answers nothing but a yes or no. (A closing colon announces what
    the reply reads from the page after it: `core.compose`.)"""
    unit = found[position]
    return (
        profile.qtype != "yesno"
        and unit.kind in ("sentence", "item")
        and position == len(found) - 1
        and not unit.text.endswith(":")
        and opens_list(unit.text)
    )


def _titled_value(profile: QuestionProfile, titled: bool, unit: Unit) -> bool:
    """Whether a table row shares no term with a who, when or version question but its
    heading does and its cells hold values of the asked kind: the names in a table under
    "The team" answer "Who are the members of the team?"."""
    return (
        titled
        and unit.kind == "row"
        and profile.qtype in ("who", "when", "version")
        and bool(typed_values(profile.qtype, unit.text, profile))
    )


# A sentence that is an aside as a whole, "(... stage in the above diagram)", and a wiki
# macro's leftover ("{info:icon=None}").
_ASIDE = re.compile(r"^\s*\([^()]*\)\s*[.:;]?\s*$")
_MACRO = re.compile(r"^\s*\{[^{}]*\}\s*$")


def _aside(profile: QuestionProfile, text: str) -> bool:
    """Whether a sentence or item cannot answer the question: a macro's leftover in
    braces never does; an aside in parentheses as a whole ("(“Board votes” stage in the
    above Project Changes diagram)", pointing at a picture) does not say what, how or why,
    though it may hold a name or date asked for ("(Work in progress - Dickon Reed, 2
    September 2014)." answers who)."""
    if _MACRO.match(text):
        return True
    return profile.qtype in _UNTYPED and bool(_ASIDE.match(text))


def asked_block(profile: QuestionProfile, unit: Unit) -> Unit:
    """A row whose columns repeat in blocks ("Build is 6662, Result is PWE, Build is 6674,
    Result is PASS": one result per build) with only the block whose values hold an asked
    term the other blocks lack ("build 6662"), so its cells, not the last block's, answer;
    the row as it is when no single block is asked about."""
    names = [name for name, _ in unit.pairs]
    first = next((n for n in names if names.count(n) > 1), None)
    if first is None:
        return unit
    starts = [i for i, name in enumerate(names) if name == first]
    end = max(i for i, name in enumerate(names) if names.count(name) > 1) + 1
    blocks = list(zip(starts, [*starts[1:], end], strict=True))
    held = [
        profile.asked_in(frozenset(terms(" ".join(v for _, v in unit.pairs[a:b]))))
        for a, b in blocks
    ]
    shared = frozenset.intersection(*map(frozenset, held))
    asked = [block for block, found in zip(blocks, held, strict=True) if found - shared]
    if len(asked) != 1:
        return unit
    keep, (low, high) = asked[0], (blocks[0][0], end)
    pairs = tuple(
        pair for i, pair in enumerate(unit.pairs) if not low <= i < high or keep[0] <= i < keep[1]
    )
    return replace(unit, pairs=pairs)


def _opening_names(profile: QuestionProfile, found: Sequence[Unit]) -> frozenset[str]:
    """The asked names (`ENTITY_WEIGHT` terms: a company, a product, a team) that the
    opening sentence of an evidence holds: the passage is about them, so a later sentence of
    it that states the asked count need not repeat them (`_states_count`)."""
    if not found or found[0].kind != "sentence":
        return frozenset()
    return frozenset(
        t for t in profile.asked_in(found[0].stems) if profile.terms.get(t, 0.0) >= ENTITY_WEIGHT
    )


# A number and the (at most two) words after it: "58 people", "12 active members".
_STATED_COUNT = re.compile(
    r"(?<![\w.,])(?:\d+|" + _NUMBER_WORDS + r")\b((?:\s+[^\W\d_]+){1,2})", re.I
)


def _states_count(profile: QuestionProfile, unit: Unit) -> bool:
    """Whether a sentence or list item states a count of what a "how many" question counts
    (`core.list_counts.counted_noun`): a number right before the counted noun ("58 people"
    for "How many people work at Northwind?"; not "a +1 or -1 vote by each member" for
    "How many members ...")."""
    if unit.kind not in ("sentence", "item") or profile.qtype != "count":
        return False
    noun = frozenset(terms(counted_noun(profile.text, profile.language), STOPWORDS))
    counted = profile.asked_in(noun) if noun else set()
    return bool(counted) and any(
        profile.asked_in(frozenset(terms(m.group(1)))) & counted
        for m in _STATED_COUNT.finditer(unit.text)
    )


def _asks(unit: Unit) -> bool:
    """Whether a unit is a question the page asks (an FAQ's, an open point): it answers
    nothing. A labelled line ending in "?" is a topic ("Kevin: when are topics approved?"
    on an agenda), which a question about the label asks for."""
    return (
        unit.kind in ("sentence", "item")
        and unit.text.endswith("?")
        and not _LABELLED.match(unit.text)
    )


def _announces(profile: QuestionProfile, unit: Unit) -> bool:
    """Whether a unit that only echoes the question announces its answer: it ends with ":"
    and holds every asked term ("Exit criteria for staging:" for "What are the exit
    criteria for staging?"; not "Action items:" for "Action items for Rich?")."""
    if not opens_list(unit.text):
        return False
    held = profile.asked_in(unit.stems)
    compounds = {t for t in profile.terms if "-" in t and set(t.split("-")) <= held | {t}}
    return not set(profile.terms) - held - compounds


# A numbered thing: "week 3", "Woche 3", "rc2", "phase 1" (a word and a small number).
_NUMBERED = re.compile(r"\b([^\W\d_]{2,})[\s-]?(\d{1,3})\b", re.UNICODE)


_CARRIED_NUMBERED = re.compile(r"\b([^\W\d_]{2,}),\s(\d{1,3})\b", re.UNICODE)


def numbered_otherwise(profile: QuestionProfile, unit: Unit) -> bool:
    """Whether a table row names another number of a numbered thing the question names
    ("Week 1" in its cells for "... in week 3?"): such a row is about another week, however
    many of the question's other words it holds. The words are compared by stem, a German
    question's through its translations ("Woche 2" names the rows' "Week 2")."""
    asked = dict(_asked_numbers(profile.text))
    if not asked:
        return False
    for _, value in unit.pairs:
        for word, number in _NUMBERED.findall(value):
            stem = _word_stem(word)
            if asked.get(profile.aliases.get(stem, stem), number) != number:
                return True
    return False


@lru_cache(maxsize=1024)
def _asked_numbers(question: str) -> tuple[tuple[str, str], ...]:
    """(stem, number) of each numbered thing a question names, read once per question (not
    once per row `numbered_otherwise` looks at); its own words win over its carried topic's."""
    # a follow-up's carried topic lists "Woche, 2" for the "Woche 2" its question named
    carried = " ".join(m.group(1) for m in CONTEXT.finditer(question))
    asked = {}
    for word, number in _CARRIED_NUMBERED.findall(carried):
        # the carried words go untranslated: "Woche" names the rows' "Week" by the glossary
        for form in (word, *glossary_words(word)[:1]):
            asked[_word_stem(form)] = number
    asked.update({_word_stem(w): n for w, n in _NUMBERED.findall(CONTEXT.sub(" ", question))})
    return tuple(asked.items())


def _word_stem(word: str) -> str:
    """The stem of one word as the question's terms stem it; a stopword as it is."""
    stems = terms(word, frozenset())
    return stems[0] if stems else word.lower()


def _defines(profile: QuestionProfile, unit: Unit, defined: bool) -> bool:
    """Whether a sentence defines what a "What is X?" question asks about: "X is a ...", or
    "It is a ..." / "This is ..." under a heading that names X (`defined`)."""
    return _defining(profile, unit.text, defined)


def _gives_definition(profile: QuestionProfile, span: Span, header: str) -> bool:
    """Whether a span is a sentence that defines what a "What is X?" / "Was bedeutet X?"
    question asks about (`_defines`, under the evidence's `header`)."""
    if not profile.defines or span.kind != "sentence":
        return False
    return _defining(profile, span.whole or span.unit, profile.defines <= _header_terms(header))


def _defining(profile: QuestionProfile, text: str, defined: bool) -> bool:
    match = _DEFINITION.match(text)
    if not match:
        return False
    if match.group(1).lower() in ("it", "this", "es", "dies"):
        return defined
    return profile.defines <= frozenset(terms(match.group(1)))


def best_span(
    profile: QuestionProfile,
    header: str,
    text: str,
    number: int = 1,
    weights: SpanWeights = DEFAULT_WEIGHTS,
    scored: Sequence[Scored] | None = None,
) -> Span | None:
    """The best answer span of one evidence (`header`: its title and heading; `number`: its
    rank among the sources, 1 = best), or None when no unit shares a term with the
    question (`scored`: its `scored_units`, when already computed). The score carries a
    mild prior for better-ranked sources, 1 / (1 + `weights.rank_prior` (number - 1)); it
    depends on this source alone, so leaving another source out never changes it."""
    scored = scored_units(profile, header, text, weights) if scored is None else scored
    if not scored:
        return None
    # Within an evidence as across them (`best_spans`), a unit holding a value of the asked
    # kind ranks above one that does not, at equal support ("58 people" for "how many
    # people", not the page's opening sentence that names the company).
    best = max(
        scored,
        key=lambda c: (
            _tier(_typed_unit_support(profile, c, _header_terms(header))),
            holds_relation(profile, c.unit.text),
            c.score,
        ),
    )
    score, covered, unit, position = best
    carried = profile.context
    header_terms = _header_terms(header)
    topic = len(carried & (unit.stems | header_terms)) / len(carried) if carried else 0.0
    label, row_key = row_label(profile, unit) if unit.kind == "row" else ("", "")
    # The heading under the page title names what a list on it holds; the title does not.
    heading = _header_terms(header.partition(" — ")[2])
    return Span(
        answer=_announced_items(profile, units(text), position, weights.answer_words, heading)
        or _unit_answer(
            profile, unit, weights.answer_words, heading | _list_intro(units(text), unit)
        ),
        label=label,
        row_key=row_key,
        whole=unit.text,
        unit=clip_words(unit.text, SUPPORT_WORDS),
        score=score / (1 + weights.rank_prior * (number - 1)),
        support=covered,
        kind=unit.kind,
        topic=topic,
        position=position,
    )


def support(question: str, header: str, text: str) -> float:
    """How well an evidence (`header`: its title and heading) supports an answer to
    `question`, in [0, 1]: 0 when no unit shares a term with it."""
    span = best_span(profile_question(question), header, text)
    return span.support if span else 0.0


_ACRONYM = re.compile(r"\b[A-Z]{2,5}\b")
_CAPITALIZED_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of\s+|the\s+|and\s+)?[A-Z][a-z]+){1,4}\b")


def acronym_aliases(question: str, texts: Sequence[str]) -> dict[str, str]:
    """Stems of the capitalized words that spell out an acronym of the question in the
    sources ("UK" → United Kingdom, "TAB" → Technical Advisory Board), each mapped to the
    acronym's own term, so finding the spelled-out name counts as finding the acronym."""
    acronyms = {a for a in _ACRONYM.findall(question) if a.lower() not in STOPWORDS}
    if not acronyms:
        return {}
    aliases: dict[str, str] = {}
    for text in texts:
        for initials, name in spelled_names(text):
            if initials in acronyms:
                own = terms(initials)
                for stem in terms(name):
                    if own and stem != own[0]:
                        aliases.setdefault(stem, own[0])
    return aliases


def spelled_names(text: str) -> list[tuple[str, str]]:
    """(initials, name) of each run of capitalized words in `text` ("Bash Automated Testing
    System" → BATS; "United Kingdom" → UK), the small words inside a run left out of the
    initials ("Board of Trustees" → BT)."""
    out = []
    for run in _CAPITALIZED_RUN.finditer(text):
        initials = "".join(w[0] for w in run.group(0).split() if w[0].isupper())
        out.append((initials, run.group(0)))
    return out


_ASKS_EXPANSION = re.compile(
    r"\b(?i:what does|what do|wofür steht|wofür stehen|was bedeutet|what is)\s+(?i:the\s+)?"
    r"(?P<acronym>[A-Z][A-Za-z]{1,5})\s*(?i:stand for|mean|\?|$)",
)


def expansion(question: str, sources: Sequence[tuple[int, str, str]]) -> tuple[int, str] | None:
    """(source number, the name) when the question asks what an acronym stands for ("What
    does BATS stand for?") and a source spells it out ("Bash Automated Testing System")."""
    match = _ASKS_EXPANSION.search(question)
    if not match:
        return None
    acronym = match.group("acronym").upper()
    for number, header, text in sources:
        for initials, name in spelled_names(f"{header}\n{text}"):
            if initials.upper() == acronym:
                return number, name
    return None


def best_spans(
    question: str,
    sources: Sequence[tuple[int, str, str]],
    translations: Translations = (),
    weights: SpanWeights = DEFAULT_WEIGHTS,
) -> list[tuple[int, Span]]:
    """(source number, span) for every source `(number, header, text)` that has a span, best
    first: the best-supported spans first (those covering most of the question), the
    best-scored among them, ties kept in source order. Support first, because a span that
    scores well on a few heavy words (a name, a version) while missing what the question
    asks about is the commonest wrong answer (cross-validated: answer F1 0.269 -> 0.284 EN,
    0.192 -> 0.204 DE against score first). Leaving a source out still changes the first
    span only when that source supplied it: the best support drops only when the source
    that held it alone goes. The first span gathers the other rows of its table (or items of
    its list) that answer as well (`gather_rows`, `gather_items`)."""
    profile = profile_question(question, translations)
    spelled = acronym_aliases(question, [text for _, _, text in sources])
    if spelled:
        profile = replace(
            profile, aliases={**spelled, **profile.aliases}, spelled=frozenset(spelled)
        )
    found = []
    scored: dict[int, tuple[str, list[Scored]]] = {}
    for number, header, text in sources:
        units_of = scored_units(profile, header, text, weights)
        scored[number] = (header, units_of)
        span = best_span(profile, header, text, number, weights, units_of)
        if span is not None:
            found.append((number, span))
    found = [_completed(profile, n, span, sources, weights) for n, span in found]
    counted = counted_terms(profile)
    headers = {number: header for number, header, _ in sources}
    found.sort(
        key=lambda pair: (
            -_tier(typed_support(profile, pair[1], headers.get(pair[0], ""))),
            # a question about the page itself ("who created this doc?") is answered by its
            # byline, not by a passage naming who may create something
            not (profile.fact and pair[1].kind == "byline"),
            # a definition answers "What is X?" before any other sentence naming X
            not _gives_definition(profile, pair[1], headers.get(pair[0], "")),
            not denies(profile, pair[1]),
            not holds_relation(profile, pair[1].whole),
            not counted & set(terms(pair[1].whole)),
            # a follow-up's carried topic (the page its conversation is on) decides between
            # spans alike ("Wann begann der Call?": this call's time, not the charter's
            # monthly calls); a question asked on its own carries none
            -pair[1].topic,
            -pair[1].score,
            pair[0],
        )
    )
    if found:
        number, span = found[0]
        parts = (
            gather_rows(profile, number, span, scored)
            or gather_items(profile, number, span, scored)
            or paired_item(profile, number, span, scored)
            or sibling_codes(profile, found, headers)
        )
        if parts:
            found[0] = (number, replace(span, parts=parts))
    return found


def denies(profile: QuestionProfile, span: Span) -> bool:
    """Whether a yes/no question's span is a row that one of its cells answers No
    (`_denying_cell`): among rows that cover the question equally (a test's planned
    description repeated in every row of it), the one whose notes say it was not done
    decides, not the first."""
    if profile.qtype != "yesno" or span.kind != "row" or span.answer != "No":
        return False
    name, _, value = span.label.partition(": ")
    return bool(value) and cell_verdict(value) is None and _NEGATION.search(value) is not None


def _completed(
    profile: QuestionProfile,
    number: int,
    span: Span,
    sources: Sequence[tuple[int, str, str]],
    weights: SpanWeights,
) -> tuple[int, Span]:
    """(source number, span): a span whose unit is the last of its evidence and was cut
    there (an index chunk ends mid-item: "Xen hypervisor and the Xen") is answered from the
    whole unit and cited to the source that holds it ("Xen hypervisor and the Xen boot
    command line"), keeping its own score and support; another span is kept as it is. An
    item may be cut after a whole sentence (a passage's following context ends at a
    sentence: "- Some PRs can get rejected right up front." of an item that goes on to say
    which), a sentence is whole when it ends as one."""
    if span.kind not in ("sentence", "item"):
        return number, span
    if span.kind == "sentence" and span.whole.endswith((".", "!", "?", ":")):
        return number, span
    own = next(text for n, _, text in sources if n == number)
    if any(unit.kind != "list" for unit in units(own)[span.position + 1 :]):
        return number, span  # not the last (a whole list's unit follows its last item)
    for other, _, text in sources:
        if other == number:
            continue
        for position, unit in enumerate(units(text)):
            if unit.kind == span.kind and unit.text.startswith(span.whole + " "):
                return other, replace(
                    span,
                    answer=_unit_answer(profile, unit, weights.answer_words),
                    unit=clip_words(unit.text, SUPPORT_WORDS),
                    whole=unit.text,
                    position=position,
                )
    return number, span


# A span that holds no value of the asked type (no person for "who", no number for "how
# much", no date or deadline for "when", no version for "which version") counts this share of
# its support: the question's words around the wrong kind of value are the commonest wrong
# headline ("Week 3" for a who question, a person's name for an allowance).
TYPE_MISS = 0.6


def answers_type(profile: QuestionProfile, span: Span) -> bool:
    """Whether a span's answer holds a value of the kind the question asks for (always, for
    questions that ask for no particular kind); an empty answer (a list that does not hold
    the counted things, `_unit_answer`) holds none."""
    text = " ".join([span.answer, *(value for _, value in span.parts)])
    if not text.strip():
        return False
    if _asked_person_column(profile, span):
        return True
    return _holds_asked_kind(profile, text, span.kind) and _says_owner(
        profile, span.whole, span.kind
    )


def _asked_person_column(profile: QuestionProfile, span: Span) -> bool:
    """Whether a who question names the column of a row span's cell and the cell holds a
    name, not a number ("Reporter is Ross" for "Who was the assigned reporter?", "Wer war
    der Reporter?"): the column says the cell is the person asked for, whatever its form (a
    first name, a handle, a team), which the name patterns alone would miss."""
    if profile.qtype != "who" or span.kind != "row" or not span.label:
        return False
    if not profile.asked_in(frozenset(terms(span.label))):
        return False
    values = [span.answer, *(value for _, value in span.parts)]
    return all(re.search(r"[^\W\d_]", v) and not re.search(r"\d", v) for v in values)


# What says who owns, wrote or keeps something, English and German.
_OWNING = re.compile(
    r"\b(?:own(?:s|ed|er|ers)?|author(?:s|ed)?|creat(?:ed|or|ors)|wrote|written|maintain(?:s|ed"
    r"|er|ers)|responsible|eigentümer\w*|besitzer\w*|autor\w*|verfasst|erstellt|geschrieben"
    r"|gehört|verantwortlich\w*)\b",
    re.IGNORECASE,
)


def _says_owner(profile: QuestionProfile, whole: str, kind: str) -> bool:
    """Whether a unit (its `whole` text) can answer a question about who owns or wrote a page
    (`QuestionProfile.fact`): a byline, or a unit with a word that says so ("Document author:
    Christopher Clark"; not "Abstract Section: ... the entire document"); always for other
    questions."""
    return profile.fact != "owner" or kind == "byline" or _OWNING.search(whole) is not None


def _holds_asked_kind(profile: QuestionProfile, text: str, kind: str) -> bool:
    """Whether `text` (of a unit or span of `kind`) holds a value of the asked kind."""
    if profile.qtype not in TYPED_VALUES or kind == "byline":
        return True
    return bool(typed_values(profile.qtype, text, profile))


def typed_support(profile: QuestionProfile, span: Span, header: str = "") -> float:
    """A span's support, `TYPE_MISS` of it when its answer is not of the asked kind or its
    unit (with its source's `header`) lacks what a what/which question asks for
    (`holds_focus`), and `TYPE_MISS` of that when its unit does not state the relation a
    what or how question asks (`core.relations`: "the board votes to ..." for "What does
    the board vote on?", not "Voting can commence when the board agrees")."""
    held = frozenset(terms(span.whole)) | _header_terms(header)
    typed = answers_type(profile, span) and holds_focus(profile, held)
    return (span.support if typed else TYPE_MISS * span.support) * _relation_share(
        profile, _cell_values(span.kind, span.whole)
    )


# A question that asks for a thing of a kind it names: "What laptop do ...", "Which kernel
# does ...", "Welchen Laptop bekommen ..." (not "What is the X", whose X is an attribute a
# value may answer without naming it: "OXT-791" for "What was the JIRA issue key").
_ASKS_KIND = re.compile(
    r"^\W*(?:which|what|welche[rsmn]?|was für(?: eine?[rnms]?)?)\s+"
    r"(?!(?:is|are|was|were|will|would|can|could|should|do|does|did|has|have|had|ist|sind"
    r"|war|waren|wird|werden|wurde|wurden|kann|können|hat|haben)\b)[^\W\d_]",
    re.IGNORECASE,
)


def labelled_kind(profile: QuestionProfile, text: str) -> str:
    """The sentence of a unit that names the thing a question of a kind asks for
    (`_ASKS_KIND`) as a labelled value whose label holds that kind ("Standard engineering
    laptop: MacBook Pro 14" ..." for "What laptop do engineers get?", "Laptop für
    Entwickler: ..."), as a definition answers "What is X?"; "" when none does."""
    if profile.qtype != "what" or not profile.focus:
        return ""
    if not _ASKS_KIND.match(CONTEXT.sub(" ", profile.text)):
        return ""
    for sentence in SENTENCE_END.split(text):
        labelled = _LABELLED.match(sentence)
        if not labelled or len(labelled.group(1).split()) > LABEL_WORDS:
            continue
        label, value = labelled.groups()
        if profile.asked_in(frozenset(terms(label))) & profile.focus and _new(value, profile):
            return sentence
    return ""


# The longest label of a labelled value ("Standard engineering laptop: ...").
LABEL_WORDS = 6


def holds_focus(profile: QuestionProfile, stems: frozenset[str]) -> bool:
    """Whether a unit's `stems` (with its heading's) hold the kind of thing a question asks
    for when it names one (`_ASKS_KIND`, its "which X", `QuestionProfile.focus`: "laptop"
    in "What laptop do engineers get?"); a unit that shares only the rest ("Engineers also
    get a second monitor") answers another question. Always true for other questions."""
    if profile.qtype != "what" or not profile.focus:
        return True
    if not _ASKS_KIND.match(CONTEXT.sub(" ", profile.text)):
        return True
    return bool(profile.asked_in(stems) & profile.focus)


# The column label opening each cell of a row's text ("Name: DEV_SET; Description: ...").
_CELL_LABEL = re.compile(r"(?:^|(?<=;))\s*[^:;]{1,60}:\s")


def _cell_values(kind: str, text: str) -> str:
    """A row's text without its column labels (a label is no statement of the row: the
    column "Description" beside "Events after this event ..." does not say that events
    describe anything); any other unit's text as it is."""
    return _CELL_LABEL.sub(" ", text) if kind == "row" else text


def _relation_share(
    profile: QuestionProfile, text: str, held: frozenset[str] | None = None
) -> float:
    """1, or `TYPE_MISS` when `text` (with its terms `held`, when known) does not state the
    relation the question asks."""
    return 1.0 if states_relation(asked_relation(profile), text, held) else TYPE_MISS


# What answers a where, why or how question besides the question's own words: a place (a
# file, a path, a location phrase), a reason clause, a means or procedure. English and
# German.
_RELATIONS = {
    "where": re.compile(
        r"[\w-]+\.(?:conf|cfg|ini|xml|json|ya?ml|txt|sh|py|bb|bbappend|inc|md|toml|env"
        r"|properties|service|html?|csv|pdf|docx?|xlsx?)\b|(?<![\w/])(?:~|\.{1,2})?/\w[\w.\-]*/"
        r"|https?://|\b(?:located|stored|kept|found|declared|defined|configured|placed|saved"
        r"|hosted|installed|lives?|sits?|set|listed|available)\s+(?:in|at|under|on|inside)\b"
        r"|\b(?:in|at|under|inside|on)\s+(?:the\s+|your\s+|our\s+)?(?:[\w.'\-]+\s+){0,2}"
        r"(?:file|folder|directory|repo|repository|branch|page|section|menu|tab|server|building"
        r"|floor|office|room|channel|drive|share|wiki|space|bucket|cluster|region)s?\b"
        r"|\b(?:befindet|liegt|liegen|gespeichert|abgelegt|definiert|deklariert)\b"
        r"|\b(?:in der|im|unter dem|auf der|auf dem)\s+(?:\w+\s+)?(?:datei|ordner"
        r"|verzeichnis|repository|seite|abschnitt|menü|server|gebäude|büro|raum|kanal)\b",
        re.IGNORECASE,
    ),
    "why": re.compile(
        r"\b(?:because|since|as a result|due to|owing to|so that|in order to|the reason"
        r"|reasons?|therefore|thus|hence|otherwise|to (?:avoid|prevent|ensure|allow|enable"
        r"|reduce|keep|make sure|simplify|support)|weil|denn|damit|deshalb|daher|darum"
        r"|aufgrund|wegen|grund|gründen|sonst)\b",
        re.IGNORECASE,
    ),
    "howto": re.compile(
        r"\bby (?:\w+ing|means of)\b|\b(?:using|via|through|run|running|execute|click"
        r"|select|navigate|go to|type|enter|step|steps|command|first|then|indem|mittels"
        r"|durch|über|anhand|schritt|schritte|klicken|wählen|führen sie)\b",
        re.IGNORECASE,
    ),
}


def holds_relation(profile: QuestionProfile, text: str) -> bool:
    """Whether `text` holds what a where, why or how question asks beyond its words (a
    place, a reason, a means: `_RELATIONS`); always true for other questions. Among spans
    that cover the question equally, one that holds it answers the question; one that does
    not only restates its premise ("Bats is enabled using the DISTRO_FEATURE variable" for
    "Where is the DISTRO_FEATURE variable declared?")."""
    if profile.qtype == "who" and _ASKS_CONTACT.search(profile.text):
        return _CONTACT_LINE.search(text) is not None  # a line about whom to turn to
    relation = _RELATIONS.get(profile.qtype)
    return relation is None or relation.search(text) is not None


GATHERED = 5
# Cells that hold no value ("n/a", "-", "?", "TBD").
_EMPTY_CELL = re.compile(r"^\W*(n/?a|none|tbd|tba|unknown|-+|\?+)?\W*$", re.IGNORECASE)


def gather_rows(
    profile: QuestionProfile,
    number: int,
    span: Span,
    scored: Mapping[int, tuple[str, Sequence[Scored]]],
) -> tuple[tuple[int, str], ...]:
    """More values for an answer cut from a table row: the same columns of the other rows
    of that table (any source with the same title and heading) that meet every condition
    the answer's row meets (the asked terms in its other cells: "Which machines ... fail"
    → the rows whose cells say it fails) and whose value names what the answer's names of
    the question's "which X" ("Which Dell models": Dell ones), at most `GATHERED`, each
    with its source number."""
    if span.kind != "row" or profile.qtype in ("yesno", "count"):
        return ()
    header, units_of = scored[number]
    first = next((c.unit for c in units_of if c.position == span.position), None)
    if first is None:
        return ()
    columns = [name for name, _ in _row_cells(profile, first)]
    if not columns:
        return ()
    header_asked = profile.asked_in(_header_terms(header))
    conditions = _row_conditions(profile, first, columns) - header_asked
    if profile.plural and profile.qtype == "what":
        # For "which X (plural)": the names and numbers the row holds ("OXT-704") say which
        # rows are meant; a plain word its notes happen to share with the question ("Sleep
        # issue") does not.
        names = {t for t in conditions if profile.terms.get(t, 0) >= ENTITY_WEIGHT or _has_digit(t)}
        conditions = names or conditions
    needed = _weight(profile, conditions)
    if not needed:
        return ()
    answer = _row_value(first, columns)
    named = profile.asked_in(frozenset(terms(answer))) & profile.focus
    values = {answer}
    parts: list[tuple[int, str]] = []
    for other, (other_header, others) in sorted(scored.items()):
        if other_header != header:
            continue
        for candidate in others:
            unit = candidate.unit
            if unit.kind != "row" or unit.group != first.group:
                continue
            met = _row_conditions(profile, unit, columns) & conditions
            value = _row_value(unit, columns)
            if not value or value in values or _weight(profile, met) < needed - 1e-9:
                continue
            if value.split(", ")[0] in {v.split(", ")[0] for v in values}:
                continue  # "Ubuntu 3.11 Kernel, PCI passthrough fails": one named already
            if not named <= profile.asked_in(frozenset(terms(value))):
                continue
            values.add(value)
            parts.append((other, value))
    return tuple(parts[:GATHERED])


def gather_items(
    profile: QuestionProfile,
    number: int,
    span: Span,
    scored: Mapping[int, tuple[str, Sequence[Scored]]],
) -> tuple[tuple[int, str], ...]:
    """More items for an answer that is one item of a list, when the question asks for
    several things ("What are the compatibility properties?"): the other items of that
    list that are as well supported and hold the question's "which X" words the answer
    holds, at most `GATHERED`."""
    if span.kind != "item" or not profile.plural or profile.qtype in ("yesno", "count"):
        return ()
    _, units_of = scored[number]
    first = next((c for c in units_of if c.position == span.position), None)
    if first is None:
        return ()
    named = profile.asked_in(first.unit.stems) & profile.focus
    parts = []
    for candidate in units_of:
        unit = candidate.unit
        if unit.kind != "item" or unit.group != first.unit.group or unit.text == first.unit.text:
            continue
        if _tier(candidate.support) == _tier(first.support) and named <= profile.asked_in(
            unit.stems
        ):
            parts.append((number, unit.text))
    return tuple(parts[:GATHERED])


def _has_digit(term: str) -> bool:
    return any(c.isdigit() for c in term)


# Two names a question joins ("Qemu and LibXL", "Qemu und LibXL").
_NAME_PAIR = re.compile(r"\b([A-ZÄÖÜ][\w.\-]*)\s+(?:and|und|&)\s+([A-ZÄÖÜ][\w.\-]*)")


# An issue key or a code as a whole answer ("OXT-806", "CVE-2016-2270").
_CODE_ANSWER = re.compile(r"^[A-Z][A-Z0-9]{1,9}-\d{1,6}$")


def sibling_codes(
    profile: QuestionProfile,
    found: Sequence[tuple[int, Span]],
    headers: Mapping[int, str],
) -> tuple[tuple[int, str], ...]:
    """For a plural which-question ("Which OXT JIRA issues may be encountered during a
    Fedora 24 - 25 installation?") whose best span is an issue key alone under a section of
    a page, the other keys alone that spans of sibling sections of that page give with as
    much support ("OXT-808" under the next step): each section names one, the question asks
    for all. () otherwise."""
    number, span = found[0]
    if not profile.plural or profile.qtype != "what" or not _CODE_ANSWER.match(span.answer):
        return ()
    page = headers.get(number, "").split(" — ")[0]
    out = []
    for other, candidate in found[1:]:
        if candidate.support < span.support - 1e-9:
            break
        same_page = headers.get(other, "").split(" — ")[0] == page
        if same_page and _CODE_ANSWER.match(candidate.answer) and candidate.answer != span.answer:
            out.append((other, candidate.answer))
    return tuple(dict.fromkeys(out))[:GATHERED]


def paired_item(
    profile: QuestionProfile,
    number: int,
    span: Span,
    scored: Mapping[int, tuple[str, Sequence[Scored]]],
) -> tuple[tuple[int, str], ...]:
    """For a question about two things it names ("What was common to the discussion on Qemu
    and LibXL?") answered by a list item that names one of them ("LibXL merge"), the item
    of the same list that names the other ("Qemu 2.6 merge"); () otherwise."""
    if span.kind != "item" or profile.qtype in ("yesno", "count"):
        return ()
    _, units_of = scored[number]
    first = next((c.unit for c in units_of if c.position == span.position), None)
    if first is None:
        return ()
    for match in _NAME_PAIR.finditer(CONTEXT.sub(" ", profile.text)):
        one, other = (frozenset(terms(name)) for name in match.groups())
        if not one or not other or one & other:
            continue
        if first.stems & other and not first.stems & one:
            one, other = other, one
        if not first.stems & one or first.stems & other:
            continue
        for candidate in units_of:
            unit = candidate.unit
            if unit.kind == "item" and unit.group == first.group and unit.stems & other:
                if not unit.stems & one:
                    return ((number, unit.text),)
    return ()


def _row_conditions(profile: QuestionProfile, unit: Unit, columns: Sequence[str]) -> set[str]:
    """The asked terms a row's cells hold outside `columns` (what makes it the row meant)."""
    stems: set[str] = set()
    for name, value in unit.pairs:
        if name not in columns:
            stems.update(terms(f"{name} {value}"))
    return profile.asked_in(frozenset(stems))


def _row_value(unit: Unit, columns: Sequence[str]) -> str:
    """The values of a row under `columns` ("" when it lacks one): `value`, or `Column:
    value; ...` for more than one column."""
    cells = dict(unit.pairs)
    if not all(cells.get(c) and not _EMPTY_CELL.match(cells[c]) for c in columns):
        return ""
    if len(columns) == 1:
        return cells[columns[0]]
    return "; ".join(_cell(c, cells[c]) for c in columns)


_COUNTED = re.compile(
    r"\b(?:how many|number of|wie viele|wieviele|anzahl(?: der| an)?)\s+(\S+)", re.IGNORECASE
)


def counted_terms(profile: QuestionProfile) -> set[str]:
    """The terms of what a "how many" question counts ("people" in "How many people work
    at Northwind?"): at equal support, a span that names it ("58 people") goes before one
    that holds another number ("UDP port 51820")."""
    match = _COUNTED.search(profile.text) if profile.qtype == "count" else None
    if match is None:
        return set()
    return set(terms(match.group(1))) & set(profile.terms)


def _typed_unit_support(
    profile: QuestionProfile, candidate: Scored, header_terms: frozenset[str] = frozenset()
) -> float:
    """A unit's support, `TYPE_MISS` of it when it holds no value of the asked kind or,
    with its heading's `header_terms`, not what a what/which question asks for (as
    `typed_support` weighs a span)."""
    unit = candidate.unit
    typed = (
        _holds_asked_kind(profile, unit.text, unit.kind)
        and _says_owner(profile, unit.text, unit.kind)
        and holds_focus(profile, unit.stems | unit.antecedent | header_terms)
    )
    support = candidate.support if typed else TYPE_MISS * candidate.support
    return support * _relation_share(profile, _cell_values(unit.kind, unit.text), unit.stems)


def _tier(support: float) -> float:
    """A support value rounded so that equal coverage computed by different sums ties."""
    return round(support, 9)
