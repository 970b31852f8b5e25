"""Answer spans: where in an evidence the answer to a question sits, and how well the
evidence supports an answer at all.

Pure functions of strings (no index, no model), so anything that must judge an evidence
against a question can call them: the offline answerer (`core.extractive`) and a
self-check that drops unhelpful evidences.

- `profile_question(text)`: the question's type (who, when, version, count, yesno, howto,
  why, where, what) from its wording in English or German, and its weighted terms. The
  context an offline-completed question carries, "(context: ...)", counts a quarter.
- `units(text)`: the answerable units of an evidence text: a verbalized table row as its
  column → value pairs, a list item, a whole short list, a sentence of a passage. Metadata
  lines (bylines such as "Owned by ... Last updated ...", copyright and licence lines) are
  never units.
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import takewhile

from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS, detect_language, tokenize

QUESTION_TYPES = ("who", "when", "version", "count", "yesno", "howto", "why", "where", "what")

# The wording that sets a question's type, English and German, tried in this order.
_TYPE_PATTERNS: tuple[tuple[str, re.Pattern], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        (
            "count",
            r"\b(how (many|much|tall|big|long|old|far|high|large|wide|heavy|often|fast)"
            r"|number of|wie (viele?|groß|hoch|lang|alt|weit|schwer|oft|schnell)"
            r"|wieviele?|anzahl)\b",
        ),
        ("version", r"\b(which|what|welche[rsmn]?|was für)\b[^?]*\bversions?\b"),
        ("who", r"^\W*(who|whom|whose|wer|wem|wen|wessen)\b"),
        (
            "when",
            r"^\W*(when|wann|seit wann|bis wann)\b|\b(what|which) (date|year|day|month)\b"
            r"|\b(welche[mn]?|in welchem) (datum|jahr|tag|monat)\b",
        ),
        ("why", r"^\W*(why|warum|wieso|weshalb|weswegen)\b"),
        ("where", r"^\W*(where|wo|wohin|woher)\b"),
        (
            "howto",
            r"^\W*(how|wie)\b(?! (many|much|long|old|often|viele?|lange?|alt|hoch|oft)\b)",
        ),
        (
            "yesno",
            r"^\W*(is|are|was|were|do|does|did|can|could|should|shall|will|would|has|have|had"
            r"|must|may|ist|sind|war|waren|hat|haben|hatte|hatten|kann|können|konnte|konnten"
            r"|gibt|gab|wird|werden|wurde|wurden|muss|müssen|soll|sollte|sollen|darf|dürfen"
            r"|unterstützt|funktioniert|braucht|benötigt|besitzt|gilt)\b",
        ),
        ("who", r"\b(who|wer)\b"),
        ("why", r"\b(why|warum|wieso|weshalb)\b"),
        ("when", r"\b(when|wann)\b"),
    )
)

# German "Was ..." asks what; the yes/no pattern would read it as the English "was".
_GERMAN_WHAT = re.compile(r"^\W*was\b", re.IGNORECASE)
# The context an offline-completed question carries (`core.rephrase.OfflineCompleter`).
_CONTEXT = re.compile(r"\((?:context|following up on):([^()]*)\)", re.IGNORECASE)
_GENERIC_COLUMN = re.compile(r"^Column \d+$")
_ISSUE_KEY = re.compile(r"\b[A-Z][A-Z0-9]+-\d+\b")
_ASKS_KEY = re.compile(r"\b(issue|ticket|bug|jira|key)s?\b", re.IGNORECASE)
_REQUEST = re.compile(
    r"^\W*(could|can|would|will) you\b|^\W*(könnten|kannst|können|würden) (sie|du)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[^\W_]+(?:[.\-_/+][^\W_]+)*", re.UNICODE)
_JOINER = re.compile(r"[.\-_/+]")
_ROW = re.compile(r"^Row \d+ in Table \d+:\s*(.*)$")
_TABLE_HEAD = re.compile(r"^Table \d+:")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?:\[[ x]\]\s+)?")
# A sentence ends at . ! or ? before a capital, but not after an ordinal ("am 24. Dezember").
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\b\d\.)(?<!\b\d\d\.)\s+(?=[A-Z0-9\"'(\[])")
# "How many" asks to count items (unlike "how much" or "how long").
_COUNTS_ITEMS = re.compile(r"\b(how many|number of|wie viele|wieviele|anzahl)\b", re.IGNORECASE)
# A pair boundary in a verbalized row: ", " or ", and " before the next "name is value".
_PAIR_SPLIT = re.compile(r",(?: and)? (?=[^,]*? is )")
# Confluence page furniture, never an answer (bylines, copyright and licence notes).
_METADATA = re.compile(
    r"\b(owned by|created by|last updated|last modified|modified by|copyright \d{4}"
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
    r"|(?:19|20)\d{2})\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred"
    "|eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|zwanzig|hundert"
)
_COUNT = re.compile(
    rf"(?<![\w\-./])(?:\d+(?:[.,]\d+)?|{_NUMBER_WORDS})\b(?:\s*(?:to|-|–|or|bis|oder)\s*"
    rf"(?:\d+(?:[.,]\d+)?|{_NUMBER_WORDS})\b)?(?:\s*[A-Za-zÄÖÜäöüß%]+)?",
    re.IGNORECASE,
)
# Two or more capitalized words in a row (a person's name, or a product's).
_NAME = re.compile(r"\b[A-ZÄÖÜ][a-zäöüß'\-]+(?:\s+(?:[A-Z]\.\s*)?[A-ZÄÖÜ][a-zäöüß'\-]+)+\b")
# Negations that turn a statement into a "no" (a determiner "no" is not one of them).
_NEGATION = re.compile(
    r"\b(not|never|cannot|nicht|nie|niemals|keine?n?)\b|n't\b|^\W*no\b", re.IGNORECASE
)
_POSITIVE_CELL = frozenset("pass passed ok yes y true supported works working done ✓ ✔ ja".split())
_NEGATIVE_CELL = frozenset("fail failed failure no false unsupported broken ✗ ✘ nein".split())
# Question words that are no terms of a question: "how many", and German question adverbs.
_QUESTION_WORDS = frozenset(
    "many much viele viel wieviele wieviel worüber wofür womit wovon worauf woran wozu"
    " wodurch woraus ab".split()
)
_STOP = ENGLISH_STOPWORDS | GERMAN_STOPWORDS
# A `label: value` line (a definition-list entry, a minutes line "Phil: change the call").
_LABELLED = re.compile(r"^([^:]{1,60}?):\s+(\S.*)$")

# Fixed weights (set by design, not tuned): names, versions and other marked words say
# which evidence is meant and count double; the context an offline-completed question
# carries counts a quarter (as in the earlier extractive answerer); a unit holding a value of
# the asked type (a version for "which version") gains `TYPE_BONUS`; a question word found
# only through its translation counts half towards support.
ENTITY_WEIGHT = 2.0
CONTEXT_WEIGHT = 0.25
TYPE_BONUS = 0.5
TRANSLATION_CREDIT = 0.5
SUPPORT_WORDS = 25
LIST_ITEMS = 12
TYPED_VALUES = ("who", "when", "version", "count")


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
class QuestionProfile:
    """What a question asks: its `qtype` (one of `QUESTION_TYPES`), its `language`, the
    weighted stems of what it asks (`terms`: stem → weight), the stems of its carried
    context (`context`), its lower-cased words (`words`, so an answer leaves out what the
    question already says), and the wiki's stems that stand for its foreign terms
    (`aliases`: stem → the question's stem)."""

    text: str
    qtype: str
    language: str
    terms: dict[str, float]
    context: frozenset[str]
    words: frozenset[str]
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def weight(self) -> float:
        """The total weight of the asked terms."""
        return sum(self.terms.values())

    def asked_in(self, stems: frozenset[str]) -> set[str]:
        """The asked terms found among `stems`, directly or through a translation."""
        found = stems & self.terms.keys()
        found.update(self.aliases[s] for s in stems & self.aliases.keys())
        return found


@dataclass(frozen=True)
class Unit:
    """One answerable unit of an evidence: `kind` row (with its `pairs`), item, list (the
    items of a short list) or sentence; `stems` are its terms."""

    kind: str
    text: str
    stems: frozenset[str]
    words: int
    pairs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Span:
    """The answer found in one evidence: `answer` (short, shown first), `unit` (the row,
    item or sentence it came from: the supporting line), `score` (how well it answers,
    comparable across the evidences of one question), `support` in [0, 1] and the unit's
    `kind`; `topic` in [0, 1], the share of the carried context's terms (an offline-completed
    follow-up's "(context: ...)") that the unit and its header contain (0 without context)."""

    answer: str
    unit: str
    score: float
    support: float
    kind: str
    topic: float = 0.0


# --------------------------------------------------------------------------- terms
@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """The English Snowball stem of one plain word, as the lexical index stems it."""
    stems = tokenize(word)
    return stems[0] if stems else word


def terms(text: str, stopwords: frozenset[str] = ENGLISH_STOPWORDS) -> list[str]:
    """Matching terms of `text`: lower-cased, stemmed words without `stopwords`; a compound
    (`OXT-1654`, `9.0.2`, `DISTRO_FEATURE`) is kept whole, and its word parts are added
    (and its number parts when it also has letters), so `OXT 1654` still meets `OXT-1654`
    while `9.0.2` does not match every `9`."""
    out: list[str] = []
    for match in _TOKEN.findall(text):
        token = match.lower()
        if _JOINER.search(token):
            out.append(token)
            parts = [p for p in _JOINER.split(token) if p and p not in stopwords]
            letters = any(c.isalpha() for c in token)
            for part in parts:
                if part.isdigit():
                    if letters:
                        out.append(part)
                elif len(part) > 1:
                    out.append(_stem(part))
        elif token not in stopwords:
            out.append(token if any(c.isdigit() for c in token) else _stem(token))
    return out


def _is_entity(word: str) -> bool:
    """A word that names something: it has a digit, an inner capital or joiner, or it is
    all capitals (OXT, TPM, BIOS)."""
    core = word.strip(".,;:!?\"'()[]")
    if len(core) < 2:
        return False
    if any(c.isdigit() for c in core) or _JOINER.search(core.strip("-_./+")):
        return True
    return core.isupper() or any(c.isupper() for c in core[1:])


def question_type(text: str) -> str:
    """The type of a question (one of `QUESTION_TYPES`) from its wording; `what` when no
    pattern fits. A German question opening with "Was" asks what, not yes or no (the
    English auxiliary "was" is spelt the same)."""
    asked = _CONTEXT.sub(" ", text).strip()
    if _REQUEST.search(asked):
        return "what"
    for name, pattern in _TYPE_PATTERNS:
        if pattern.search(asked):
            if name == "yesno" and _GERMAN_WHAT.match(asked) and question_language(text) == "de":
                return "what"
            return name
    return "what"


def is_followup(text: str) -> bool:
    """Whether a question is an offline-completed follow-up: it carries "(context: ...)" or
    "(following up on: ...)" from the conversation (`core.rephrase.OfflineCompleter`)."""
    return _CONTEXT.search(text) is not None


def question_language(text: str) -> str:
    """The language of a question, told by its own words: the context an offline-completed
    follow-up carries is a list of content words without stopwords, which would tip a short
    German follow-up to English. The whole text decides only when the question's own words
    do not say German."""
    own = detect_language(_CONTEXT.sub(" ", text))
    return own if own == "de" else detect_language(text)


Translations = tuple[tuple[str, tuple[str, ...]], ...]


@lru_cache(maxsize=4096)
def profile_question(text: str, translations: Translations = ()) -> QuestionProfile:
    """The type, language and weighted terms of a question. `translations` pair a foreign
    word of the question with the wiki's words for it: finding one of those counts as
    finding the word (`QuestionProfile.aliases`)."""
    language = question_language(text)
    stopwords = (_STOP if language == "de" else ENGLISH_STOPWORDS) | _QUESTION_WORDS
    asked_text = _CONTEXT.sub(" ", text)
    weights: dict[str, float] = {}
    for position, word in enumerate(asked_text.split()):
        # A capital inside an English question marks a name (German capitalizes nouns).
        capitalized = language == "en" and position > 0 and word[:1].isupper()
        weight = ENTITY_WEIGHT if capitalized or _is_entity(word) else 1.0
        for stem in terms(word, stopwords):
            weights[stem] = max(weights.get(stem, 0.0), weight)
    aliases: dict[str, str] = {}
    for word, neighbours in translations:
        own = [t for t in terms(word, stopwords) if t in weights]
        for neighbour in neighbours:
            for stem in terms(neighbour):
                if own and stem not in weights:
                    aliases.setdefault(stem, own[0])
    context = frozenset(terms(" ".join(_CONTEXT.findall(text)), stopwords)) - set(weights)
    words = frozenset(w.lower() for w in _TOKEN.findall(text))
    return QuestionProfile(text, question_type(text), language, weights, context, words, aliases)


# --------------------------------------------------------------------------- units
def is_metadata(line: str) -> bool:
    """Whether a line is page furniture (byline, copyright, licence), never an answer."""
    return _METADATA.search(line) is not None


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


def _unit(kind: str, text: str, pairs: tuple[tuple[str, str], ...] = ()) -> Unit:
    return Unit(kind, text, frozenset(terms(text)), len(text.split()), pairs)


@lru_cache(maxsize=8192)
def units(text: str) -> tuple[Unit, ...]:
    """The answerable units of an evidence text, in order: verbalized table rows (with
    their pairs), list items and, for a list of at most `LIST_ITEMS` items, the whole list;
    the sentences of other lines. Metadata lines are left out."""
    out: list[Unit] = []
    items: list[str] = []

    def close_list() -> None:
        if 1 < len(items) <= LIST_ITEMS:
            out.append(_unit("list", "; ".join(items)))
        items.clear()

    for raw in text.split("\n"):
        line = " ".join(raw.split())
        if not line or _TABLE_HEAD.match(line) or is_metadata(line):
            continue
        row = _ROW.match(line)
        if _LIST_MARKER.match(line) and not row:
            item = _LIST_MARKER.sub("", line, count=1).strip()
            if item:
                items.append(item)
                out.append(_unit("item", item))
            continue
        close_list()
        if row:
            pairs = row_pairs(row.group(1))
            body = "; ".join(_cell(n, v) for n, v in pairs) or row.group(1)
            out.append(_unit("row", body, pairs))
        else:
            out.extend(_unit("sentence", s.strip()) for s in _SENTENCE_END.split(line) if s.strip())
    close_list()
    return tuple(out)


@lru_cache(maxsize=8192)
def _header_terms(header: str) -> frozenset[str]:
    return frozenset(terms(header))


# --------------------------------------------------------------------------- answers
def clip_words(text: str, limit: int) -> str:
    """`text` cut to at most `limit` words, with an ellipsis when cut."""
    words = text.split()
    return text if len(words) <= limit else " ".join(words[:limit]) + " …"


def _weight(profile: QuestionProfile, stems) -> float:
    return sum(profile.terms.get(s, 0.0) for s in stems)


def _new(candidate: str, profile: QuestionProfile) -> bool:
    """Whether a candidate answer says something the question does not already say."""
    return bool({w.lower() for w in _TOKEN.findall(candidate)} - profile.words)


def typed_values(qtype: str, text: str, profile: QuestionProfile) -> list[str]:
    """Values of the asked type in `text` (persons for who, dates for when, versions,
    counts) that the question does not already contain, nearest to the question's own
    words first."""
    if qtype == "version":
        found = [(m.start(), m.group(0)) for m in _VERSION.finditer(text)]
    elif qtype == "when":
        found = [(m.start(), m.group(0)) for m in _DATE.finditer(text)]
    elif qtype == "count":
        found = [(m.start(), m.group(0)) for m in _COUNT.finditer(text)]
    elif qtype == "who":
        found = [(m.start(), m.group(0)) for m in _NAME.finditer(text)]
    else:
        return []
    anchors = [
        m.start() for m in _TOKEN.finditer(text) if profile.asked_in(frozenset(terms(m.group(0))))
    ]
    dates = [m.span() for m in _DATE.finditer(text)] if qtype == "count" else []
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


def _trim(value: str) -> str:
    """A typed value without surrounding punctuation or a trailing stopword ("2 with")."""
    words = value.strip(" ,;:").split()
    while len(words) > 1 and words[-1].lower() in _STOP:
        words.pop()
    return " ".join(words)


def _cell_verdict(value: str) -> str | None:
    """`Yes`/`No` for a pass/fail-like table cell, else None."""
    first = value.strip().lower().split(" ")[0].strip(".,;:()[]*") if value.strip() else ""
    if first in _POSITIVE_CELL:
        return "Yes"
    if first in _NEGATIVE_CELL:
        return "No"
    return None


def _row_answer(profile: QuestionProfile, unit: Unit, words: int) -> str:
    """The cell(s) of a row that answer the question: the columns whose names carry asked
    terms the row's values do not (the row's values say which row is meant), `Column:
    value`; Yes or No for a pass/fail cell asked about by a yes/no question."""
    value_terms: set[str] = set()
    for _, value in unit.pairs:
        value_terms.update(terms(value))
    scored = []
    for position, (name, value) in enumerate(unit.pairs):
        if not value:
            continue
        name_terms = set(terms(name))
        hits = profile.asked_in(frozenset(name_terms)) - profile.asked_in(
            frozenset(value_terms - name_terms)
        )
        score = _weight(profile, hits)
        if profile.qtype in TYPED_VALUES and typed_values(profile.qtype, value, profile):
            score += TYPE_BONUS
        if profile.qtype == "yesno" and _cell_verdict(value) is not None:
            score += TYPE_BONUS
        if not _new(value, profile):
            score -= 1.0
        scored.append((score, -position, name, value))
    if not scored:
        return clip_words(unit.text, words)
    scored.sort(reverse=True)
    best = scored[0][0]
    if best <= TYPE_BONUS:
        return clip_words(unit.text, words)
    chosen = [(n, v) for s, _, n, v in scored if s >= best * 0.75][:3]
    if profile.qtype == "yesno":
        verdict = _cell_verdict(chosen[0][1])
        if verdict:
            return verdict
    return clip_words("; ".join(_cell(n, v) for n, v in chosen), words)


def _cell(name: str, value: str) -> str:
    """`Column: value`, or the value alone under a generic column name (`Column 2`)."""
    return value if _GENERIC_COLUMN.match(name) else f"{name}: {value}"


def counted_items(list_text: str) -> str:
    """A whole-list unit (items joined by "; ") as a count and its items: `3: a; b; c`."""
    items = list_text.split("; ")
    return f"{len(items)}: {list_text}"


def _announced_items(
    profile: QuestionProfile, found: Sequence[Unit], position: int, words: int
) -> str:
    """The items that the sentence at `position` announces with a closing colon ("The
    basic approaches are:"), as the answer (counted for "how many"); "" when it is no such
    sentence, no items follow it, or the question asks yes or no."""
    unit = found[position]
    if unit.kind != "sentence" or not unit.text.endswith(":") or profile.qtype == "yesno":
        return ""
    items = [u.text for u in takewhile(lambda u: u.kind == "item", found[position + 1 :])]
    if not items:
        return ""
    listed = "; ".join(items)
    if _COUNTS_ITEMS.search(profile.text):
        listed = counted_items(listed)
    return clip_words(listed, words)


def _unit_answer(profile: QuestionProfile, unit: Unit, words: int) -> str:
    """The short answer inside a unit, by question type."""
    if unit.kind == "row":
        return _row_answer(profile, unit, words)
    labelled = _LABELLED.match(unit.text)
    if labelled and len(labelled.group(1).split()) <= 6 and profile.qtype != "yesno":
        label, value = labelled.groups()
        label_terms = frozenset(set(terms(label)) - set(terms(value)))
        if profile.asked_in(label_terms) and _new(value, profile):
            return clip_words(value, words)
    if unit.kind == "list" and _COUNTS_ITEMS.search(profile.text):
        return clip_words(counted_items(unit.text), words)
    typed = typed_values(profile.qtype, unit.text, profile)
    if typed:
        return ", ".join(typed[: 2 if profile.qtype in ("version", "who") else 1])
    if profile.qtype == "what" and _ASKS_KEY.search(profile.text):
        keys = [k for k in _ISSUE_KEY.findall(unit.text) if k.lower() not in profile.words]
        if keys:
            return ", ".join(dict.fromkeys(keys))
    if profile.qtype == "yesno":
        return "No" if _NEGATION.search(unit.text) else "Yes"
    return clip_words(unit.text, words)


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
    `TRANSLATION_CREDIT` of its weight: word translations are often wrong)."""
    # A whole list answers questions about the list (its heading) or its size, not about
    # one of its items.
    counting = profile.qtype == "count" and _COUNTS_ITEMS.search(profile.text) is not None
    own = profile.asked_in(unit.stems) if unit.kind != "list" or counting else set()
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
    score /= 1 + weights.length_penalty * math.log2(1 + unit.words / 16)
    total = profile.weight
    found = own | header_only
    direct = found & ((unit.stems if unit.kind != "list" or counting else set()) | header_terms)
    credit = _weight(profile, direct) + TRANSLATION_CREDIT * _weight(profile, found - direct)
    return score, credit / total if total else 0.0


def best_span(
    profile: QuestionProfile,
    header: str,
    text: str,
    number: int = 1,
    weights: SpanWeights = DEFAULT_WEIGHTS,
) -> Span | None:
    """The best answer span of one evidence (`header`: its title and heading; `number`: its
    rank among the sources, 1 = best), or None when no unit shares a term with the
    question. The score carries a mild prior for better-ranked sources,
    1 / (1 + `weights.rank_prior` (number - 1)); it depends on this source alone, so leaving
    another source out never changes it."""
    header_terms = _header_terms(header)
    wanted = profile.terms.keys() | profile.context | profile.aliases.keys()
    titled = bool(header_terms & wanted)
    best: tuple[float, float, Unit, int] | None = None
    found = units(text)
    for position, unit in enumerate(found):
        # A unit must share a term with the question (a whole list may share it through
        # its heading: "Preconditions:" over its items) and, unless the question asks yes
        # or no, say something the question does not.
        if profile.qtype != "yesno" and unit.stems <= wanted:
            continue
        if not (unit.stems & wanted or (titled and unit.kind == "list")):
            continue
        score, covered = score_unit(profile, header_terms, unit, weights)
        if best is None or score > best[0]:
            best = (score, covered, unit, position)
    if best is None:
        return None
    score, covered, unit, position = best
    carried = profile.context
    topic = len(carried & (unit.stems | header_terms)) / len(carried) if carried else 0.0
    return Span(
        answer=_announced_items(profile, found, position, weights.answer_words)
        or _unit_answer(profile, unit, weights.answer_words),
        unit=clip_words(unit.text, SUPPORT_WORDS),
        score=score / (1 + weights.rank_prior * (number - 1)),
        support=covered,
        kind=unit.kind,
        topic=topic,
    )


def support(question: str, header: str, text: str) -> float:
    """How well an evidence (`header`: its title and heading) supports an answer to
    `question`, in [0, 1]: 0 when no unit shares a term with it."""
    span = best_span(profile_question(question), header, text)
    return span.support if span else 0.0


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
    that held it alone goes."""
    profile = profile_question(question, translations)
    found = []
    for number, header, text in sources:
        span = best_span(profile, header, text, number, weights)
        if span is not None:
            found.append((number, span))
    found.sort(key=lambda pair: (-_tier(pair[1].support), -pair[1].score, pair[0]))
    return found


def _tier(support: float) -> float:
    """A support value rounded so that equal coverage computed by different sums ties."""
    return round(support, 9)
