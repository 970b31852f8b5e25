"""Follow-ups that change one thing, offline: what kind of thing each mention of a question
is, the substitution of one mention by another of the same kind, references back ("it",
"that team"), and the shape of a follow-up (elliptical, anaphoric, or standing on its own).

Kinds come from three places, so they carry over to wikis never seen:
- the wiki's own tables, as the index linearizes a row ("City: Amsterdam; Country:
  Netherlands; Hotel per night: €190; Meals per day: €40"): the values of one column are
  one kind (`column:city` holds Amsterdam and Chicago), and the columns of one table are
  one kind (hotel and meals, primary and secondary, Germany and United Kingdom);
- numbered things, "<noun> <number>": week 3 and week 2 are of kind `numbered:week`
  (German nouns through `NUMBERED_NOUNS`);
- dates, release candidates and versions (`core.entities`).
`ALIASES` maps the few short forms of country names a question uses for the names a
table writes (UK → United Kingdom); it is a hand list, as the tables cannot teach it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.answer import CITATION, RELATED
from core.entities import entities, month_number
from core.glossary import glossary_words
from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS, detect_language

STOPWORDS = ENGLISH_STOPWORDS | GERMAN_STOPWORDS

# Short forms of country names as questions write them, to the form tables write.
ALIASES = {
    "uk": "united kingdom",
    "u.k.": "united kingdom",
    "great britain": "united kingdom",
    "britain": "united kingdom",
    "england": "united kingdom",
    "großbritannien": "united kingdom",
    "vereinigtes königreich": "united kingdom",
    "vereinigten königreich": "united kingdom",
    "us": "united states",
    "u.s.": "united states",
    "usa": "united states",
    "vereinigte staaten": "united states",
    "deutschland": "germany",
    "niederlande": "netherlands",
    "holland": "netherlands",
    "münchen": "munich",
}

# German nouns of numbered things, to the English noun a kind is named by.
NUMBERED_NOUNS = {"woche": "week", "kw": "week", "schritt": "step", "stufe": "level", "tag": "day"}

_NUMBERED = re.compile(r"\b([^\W\d_]{2,})\s+(\d{1,4})\b(?![.,]\d)")
_WORD = re.compile(r"[^\W_]+(?:[.\-/'’][^\W_]+)*", re.UNICODE)
_MAX_VALUE_WORDS = 4
_MAX_PHRASE_WORDS = 4

# Words that point back at something named before (English; German ones are told apart by
# `GERMAN_REFERENCES`, as their case endings make rewriting unsafe).
PRONOUNS = frozenset("it its they them their this these those he she him her his".split())
DEMONSTRATIVES = frozenset("this that these those".split())
GERMAN_REFERENCES = frozenset(
    """es dies dieser diese dieses diesen diesem dort dafür darüber davon dabei daran
    darauf dazu deren dessen ihm ihn ihr ihre jene jener jenes""".split()
)

# "is there", "are there": no reference to a place.
_EXISTENTIAL = frozenset("is are was were be been being isn't aren't wasn't weren't".split())

# Openings of an elliptical follow-up ("and in week 3?", "what about TPM?", "und für ...").
_ELLIPSIS = re.compile(
    r"^\W*(?:and|und|also|sowie|what about|how about|and what about|was ist mit|wie ist es mit"
    r"|wie sieht es mit|und was ist mit)\b",
    re.IGNORECASE,
)

# Words of a question that say what is asked, not about what (EN and DE).
QUESTION_WORDS = frozenset(
    """what which who whom whose when where why how wer wen wem wessen was welche welcher
    welches welchen welchem wann wo warum wieso weshalb wie wohin woher wofür wozu womit
    wovon worüber woran worauf""".split()
)


# The English possessive ending of a word ("SEV2's", "Harbor’s").
_POSSESSIVE = re.compile(r"['’]s$")


@dataclass(frozen=True)
class Mention:
    """A phrase of a question (`text`, at `start`:`end`) with the kinds it is of; `key` is
    its normalized form (aliases resolved), so two spellings of one thing compare equal."""

    text: str
    start: int
    end: int
    key: str
    kinds: frozenset[str]


# --------------------------------------------------------------------------- kinds
_ROW = re.compile(r"^Row \d+ in Table \d+:\s*(.*)$")
_TABLE = re.compile(r"^Table \d+:\s*(.*)$")


def table_rows(text: str) -> list[list[tuple[str, str]]]:
    """The (header, value) pairs of each table row in `text`, in the two forms the wiki's
    rows come in: an indexed row ("Row 8 in Table 1: City is Chicago, Country is United
    States, and Meals per day is US$65"), with its table's header line ("Table 1: City,
    Country, ...", pairs with empty values), and a row as an answer quotes it ("City:
    Chicago; Country: United States"; citation markers and the `Related:` label removed).
    Rows of two pairs or more."""
    rows = []
    for line in text.splitlines():
        line = CITATION.sub("", line).strip()
        if line.startswith(RELATED):
            line = line[len(RELATED) :].strip()
        if match := _ROW.match(line):
            pairs: list[tuple[str, str]] = []
            for part in re.split(r",\s+(?:and\s+)?", match.group(1)):
                header, sep, value = part.partition(" is ")
                if sep and 0 < len(header) <= 60:
                    pairs.append((header.strip(), value.strip()))
                elif pairs:  # a comma inside a value
                    pairs[-1] = (pairs[-1][0], f"{pairs[-1][1]}, {part}")
        elif match := _TABLE.match(line):
            pairs = [(h.strip(), "") for h in match.group(1).split(", ") if h.strip()]
        else:
            pairs = []
            for part in line.split("; "):
                header, sep, value = part.partition(": ")
                if sep and 0 < len(header) <= 60 and value.strip():
                    pairs.append((header.strip(), value.strip()))
        if len(pairs) >= 2:
            rows.append(pairs)
    return rows


def header_core(header: str) -> str:
    """What a column header names: its last part after " / " (a grouped header such as
    "On-call / Secondary"), without a parenthesis or a "per ..." unit ("Germany (per
    week)" → Germany, "Meals per day" → Meals)."""
    core = header.split(" / ")[-1]
    core = re.sub(r"\(.*?\)", " ", core)
    core = re.split(r"\s+(?:per|pro|je)\s+", core)[0]
    return " ".join(core.split())


def normalize(phrase: str) -> str:
    """A phrase's key: lower-cased, spaces squeezed, a known alias resolved."""
    key = " ".join(phrase.lower().split()).strip(".,;:!?\"'“”„")
    return ALIASES.get(key, key)


def _useful(phrase: str) -> bool:
    """A phrase that can name a thing: a few words, not a stopword, not a bare number."""
    words = phrase.split()
    return (
        0 < len(words) <= _MAX_VALUE_WORDS
        and any(c.isalpha() for c in phrase)
        and phrase not in STOPWORDS
        and len(phrase) > 1
    )


def learn_kinds(texts: Iterable[str]) -> dict[str, set[str]]:
    """Kinds learned from the table rows in `texts` (answers, evidence texts): each value
    is of kind `column:<header>`, each header of kind `columns:<the row's headers>`."""
    lexicon: dict[str, set[str]] = {}
    for text in texts:
        for row in table_rows(text):
            cores = [normalize(header_core(h)) for h, _ in row]
            signature = "columns:" + "|".join(sorted(set(cores)))
            for (_, value), core in zip(row, cores, strict=True):
                if _useful(core):
                    lexicon.setdefault(core, set()).add(signature)
                for form in (value, re.sub(r"\(.*?\)", " ", value)):  # "Whit Monday (...)"
                    key = normalize(form)
                    if form and _useful(key):
                        lexicon.setdefault(key, set()).add(f"column:{core}")
    return lexicon


def mentions(text: str, lexicon: dict[str, set[str]]) -> list[Mention]:
    """The phrases of `text` that have a kind, longest first where they overlap, in order:
    numbered things, dates and versions, and the lexicon's phrases (up to four words)."""
    found: list[Mention] = []
    for match in _NUMBERED.finditer(text):
        noun = match.group(1).lower()
        if (noun in STOPWORDS and noun not in NUMBERED_NOUNS) or month_number(noun):
            continue
        noun = NUMBERED_NOUNS.get(noun, noun)
        kind = f"numbered:{noun.rstrip('s') if len(noun) > 3 else noun}"
        key = f"{noun} {int(match.group(2))}"
        found.append(Mention(match.group(0), match.start(), match.end(), key, frozenset({kind})))
    for entity in entities(text):
        if entity.kind in ("version", "rc"):
            at = text.lower().find(entity.value)
            if at >= 0:
                end = at + len(entity.value)
                found.append(Mention(text[at:end], at, end, entity.value, frozenset({entity.kind})))
    words = list(_WORD.finditer(text))
    for size in range(_MAX_PHRASE_WORDS, 0, -1):
        for i in range(len(words) - size + 1):
            start, end = words[i].start(), words[i + size - 1].end()
            if _POSSESSIVE.search(text[start:end]):
                end -= 2  # "SEV2's postmortem": the thing is SEV2
            key = normalize(text[start:end])
            kinds = lexicon.get(key)
            if not kinds and key.endswith("s") and len(key) > 4:
                kinds = lexicon.get(key[:-1])  # meals ~ meal
            if not kinds and not key.endswith("s"):
                kinds = lexicon.get(key + "s")
            if kinds:
                found.append(Mention(text[start:end], start, end, key, frozenset(kinds)))
    if detect_language(text) == "de":
        found += _german_mentions(text, words, lexicon)
    kept: list[Mention] = []
    for mention in sorted(found, key=lambda m: (-(m.end - m.start), m.start)):
        same = [m for m in kept if (m.start, m.end) == (mention.start, mention.end)]
        if same:  # one phrase of two kinds ("week 2": numbered, and a column's value)
            merged = Mention(
                same[0].text, same[0].start, same[0].end, same[0].key, same[0].kinds | mention.kinds
            )
            kept[kept.index(same[0])] = merged
        elif not any(m.start < mention.end and mention.start < m.end for m in kept):
            kept.append(mention)
    return sorted(kept, key=lambda m: m.start)


# The shortest front of a German compound taken for a thing the rows name ("Hotel" in
# "Hotellimit"): shorter fronts are word pieces ("Tag" in "Tagung").
_COMPOUND_FRONT = 4


def _german_mentions(
    text: str, words: Sequence[re.Match], lexicon: dict[str, set[str]]
) -> list[Mention]:
    """The things a German question names in the wiki's (English) rows' words: a word the
    glossary translates to a phrase of the lexicon ("Mahlzeiten" → meals, a column), keyed
    by that phrase; and a compound whose front the rows name ("Hotel" in "Hotellimit", the
    column "Hotel per night"), the front alone, so a follow-up can replace it ("und für
    Mahlzeiten?" → "Mahlzeitenlimit")."""
    found = []
    for word in words:
        lower = word.group(0).lower()
        if lower in lexicon or lower in STOPWORDS:
            continue
        english = [normalize(e) for e in glossary_words(lower)]
        kinds = set().union(*(lexicon.get(e, set()) for e in english)) if english else set()
        if kinds:
            key = next(e for e in english if e in lexicon)
            found.append(Mention(word.group(0), word.start(), word.end(), key, frozenset(kinds)))
            continue
        if "-" in lower:
            found += _hyphen_front(word, lexicon)
            continue
        for size in range(len(lower) - _COMPOUND_FRONT, _COMPOUND_FRONT - 1, -1):
            front = lower[:size]
            if front in lexicon and lower[size:] not in STOPWORDS:
                end = word.start() + size
                found.append(
                    Mention(
                        text[word.start() : end],
                        word.start(),
                        end,
                        front,
                        frozenset(lexicon[front]),
                    )
                )
                break
    return found


def _hyphen_front(word: re.Match, lexicon: dict[str, set[str]]) -> list[Mention]:
    """The name before the noun of a hyphenated German compound, when the rows name it
    ("Payments" in "Payments-Team", "Fleet-Platform" in "Fleet-Platform-Team": the value
    "Fleet Platform"), the longest such front; none otherwise."""
    parts = word.group(0).split("-")
    for size in range(len(parts) - 1, 0, -1):
        key = normalize(" ".join(parts[:size]))
        if key in lexicon:
            end = word.start() + len("-".join(parts[:size]))
            text = word.string[word.start() : end]
            return [Mention(text, word.start(), end, key, frozenset(lexicon[key]))]
    return []


# --------------------------------------------------------------------------- substitution
@dataclass(frozen=True)
class Substitution:
    """`old` (a mention of the earlier question) replaced by `new` (the follow-up's); with
    no `old`, `new` (a place after a preposition) is added to the question."""

    old: Mention | None
    new: Mention


def substitutions(
    followup: str, previous: str, lexicon: dict[str, set[str]], wiki_text: str = ""
) -> list[Substitution]:
    """Each mention the follow-up names in place of a different one of the same kind in
    the earlier question ("week 3" for "week 2", "Chicago" for "Amsterdam"); a mention the
    earlier question already names changes nothing. `wiki_text` (the topic's answers and
    evidence) tells the earlier question's names from its capitalized German nouns."""
    olds = mentions(previous, lexicon)
    out: list[Substitution] = []
    used: set[int] = set()
    news = mentions(followup, lexicon)
    for new in news:
        if any(o.key == new.key for o in olds):
            continue
        alike = [p for p, old in enumerate(olds) if p not in used and old.kinds & new.kinds]
        if alike:
            position = min(alike, key=lambda p: _unlike(previous, olds[p], followup, new))
            out.append(_whole_phrases(previous, followup, olds[position], new))
            used.add(position)
    taken = [(s.old.start, s.old.end) for s in out]
    done = [(s.new.start, s.new.end) for s in out]
    added: list[Mention] = []
    for new in _names_after(followup):
        if any(a < new.end and new.start < b for a, b in done):
            continue  # replaced above
        old = _same_place(previous, new.kinds, taken)
        if old is not None and old.key != new.key:
            out.append(Substitution(old, new))
            taken.append((old.start, old.end))
        elif old is None and new.key not in previous.lower():
            added.append(new)
    if out:  # a place the earlier question has none of is added to it ("... in Bristol?")
        out += [Substitution(None, new) for new in added]
    elif (name := bare_name(followup)) is not None and name.key not in lexicon:
        # "and Quality Assurance?": a name no row taught, in place of the earlier question's
        # one named value (a word in capitals, no number: not "TPM" for "Optiplex 7040")
        values = [o for o in olds if _named_value(o)]
        if len(values) == 1 and values[0].key != name.key and not name.text.isupper():
            out.append(Substitution(values[0], name))
        elif not values:
            # "And Kevin?" after "What did Eric have on the agenda?": the earlier question's
            # one name of the same shape that the wiki writes
            names = [n for n in _wiki_names(previous, wiki_text) if _same_shape(n.text, name.text)]
            if len(names) == 1 and names[0].key != name.key:
                out.append(Substitution(names[0], name))
    return out


def names_in(question: str) -> list[Mention]:
    """The runs of capitalized words of a question after its first word (names, and in
    German nouns too), without question words and stopwords."""
    out = []
    for match in re.finditer(r"(?<!^)\b[A-ZÄÖÜ][\w\-]*(?:\s+[A-ZÄÖÜ][\w\-]*)*", question):
        words = match.group(0).split()
        if any(w.lower() in STOPWORDS or w.lower() in QUESTION_WORDS for w in words):
            continue
        text = match.group(0)
        front, hyphen, _ = text.partition("-")
        if hyphen and front.isupper() and " " not in front:
            text = front  # "AIS-Team": the name is the acronym, the noun after it says what
        end = match.start() + len(text)
        out.append(Mention(text, match.start(), end, normalize(text), frozenset({"name"})))
    return out


def _wiki_names(question: str, wiki_text: str) -> list[Mention]:
    """The names of a question (`names_in`) that the wiki writes (`wiki_text`; all of
    them when none is given). A run the wiki does not write is looked at word by word: a
    German question capitalizes its nouns, so "Welche Ubuntu Versionen ..." runs the name
    Ubuntu into the noun Versionen."""
    if not wiki_text:
        return names_in(question)
    out = []
    for name in names_in(question):
        if name.text in wiki_text:
            out.append(name)
            continue
        for word in re.finditer(r"\S+", name.text):
            if word.group(0) in wiki_text:
                start = name.start + word.start()
                end = start + len(word.group(0))
                out.append(Mention(word.group(0), start, end, normalize(word.group(0)), name.kinds))
    return out


def _unlike(previous: str, old: Mention, followup: str, new: Mention) -> tuple[int, int]:
    """How little an earlier mention of the follow-up's kind stands where the follow-up's
    does, for choosing which of several to replace: "and in Berlin?" after "Is Good Friday
    a holiday in Bristol?" replaces "Bristol" (after the same preposition, a name for a
    name), not "holiday" (the header of the column Berlin and Bristol head too)."""
    before_old = _word_before(previous, old.start)
    before_new = _word_before(followup, new.start)
    same_place = before_new in _PREPOSITIONS and before_old == before_new
    return (not same_place, old.text[:1].isupper() != new.text[:1].isupper())


def _word_before(text: str, start: int) -> str:
    """The word right before `start`, lower-cased ("" at the start)."""
    words = re.findall(r"[^\W\d_]+", text[:start])
    return words[-1].lower() if words else ""


def _same_shape(one: str, other: str) -> bool:
    """Two names written alike: as many words, both in capitals or neither ("AIS" and
    "BAH", "Eric" and "Kevin"; not "TPM" and "Optiplex")."""
    return len(one.split()) == len(other.split()) and one.isupper() == other.isupper()


def _whole_phrases(previous: str, followup: str, old: Mention, new: Mention) -> Substitution:
    """`old` replaced by `new`, each with the words that follow it in its noun phrase when
    both are column headers and the follow-up names one that way: "hotel limit" in place of
    "meal allowance" (the columns "Hotel per night" and "Meals per day"), not "hotel
    allowance"; "and the primary?" still replaces the header word alone. A unit after the
    earlier header ("requests per minute") goes with it."""
    if not any(kind.startswith("columns:") for kind in old.kinds & new.kinds):
        return Substitution(old, new)
    new_end = _phrase_end(followup, new.end)
    old_end = _phrase_end(previous, old.end) if new_end > new.end else old.end
    # The header's unit goes with it: "burst" in place of "requests per minute".
    unit = _HEADER_UNIT.match(previous, old_end)
    old_end = unit.end() if unit else old_end
    return Substitution(
        Mention(previous[old.start : old_end], old.start, old_end, old.key, old.kinds),
        Mention(followup[new.start : new_end], new.start, new_end, new.key, new.kinds),
    )


_HEADER_UNIT = re.compile(r"\s+(?:per|pro|je)\s+[^\W\d_]+", re.IGNORECASE)


def _phrase_end(text: str, end: int) -> int:
    """Where the noun phrase that a word at `end` is part of ends: over up to two more
    words that are no stopwords or question words ("limit" after "hotel")."""
    for _ in range(2):
        match = re.match(r"\s+([^\W\d_][\w\-]*)", text[end:])
        if not match or match.group(1).lower() in STOPWORDS | QUESTION_WORDS:
            break
        end += match.end()
    return end


def _named_value(mention: Mention) -> bool:
    """A mention that is a table column's value written as a name ("Payments")."""
    return (
        mention.text[:1].isupper()
        and not any(c.isdigit() for c in mention.text)
        and any(kind.startswith("column:") for kind in mention.kinds)
    )


def bare_name(text: str) -> Mention | None:
    """The name an elliptical follow-up consists of ("and Quality Assurance?"), if so."""
    opening = _ELLIPSIS.match(text)
    if opening is None:
        return None
    rest = text[opening.end() :].strip()
    name = rest.rstrip(" ?!.")
    words = name.split()
    if not 0 < len(words) <= 3 or not all(w[:1].isupper() for w in words):
        return None
    start = opening.end() + (len(text[opening.end() :]) - len(text[opening.end() :].lstrip()))
    return Mention(name, start, start + len(name), normalize(name), frozenset({"name"}))


_PREPOSITIONS = frozenset("in for at on from of im in für bei am aus von".split())
_NAME_AFTER = re.compile(
    r"\b(?P<prep>[a-zäöü]+)\s+(?:(?P<article>the|der|die|das|dem|den)\s+)?"
    r"(?P<name>[A-ZÄÖÜ][\w\-]*(?:\s+[A-ZÄÖÜ][\w\-]*){0,2})"
)


def _names_after(text: str) -> list[Mention]:
    """Names (capitalized runs) right after a preposition ("in Chicago", "for Fleet
    Platform"), their kind the preposition: a follow-up's name of a kind no table taught."""
    out = []
    for match in _NAME_AFTER.finditer(text):
        prep = match.group("prep")
        if prep not in _PREPOSITIONS:
            continue
        name = match.group("name")
        if month_number(name.split()[0]):
            continue  # a date: release candidates and dates are compared as entities
        if (match.group("article") or "the") != "the" and _german_noun(name):
            continue  # "für das Treffen": a German noun, not a name
        start = match.start("name")
        kind = frozenset({f"after:{prep}"})
        out.append(Mention(name, start, start + len(name), normalize(name), kind))
    return out


def added_places(followup: str, latest: str, subs: Sequence[Substitution]) -> list[Substitution]:
    """The substitutions `subs` (made on an older question of the topic) as names added to
    `latest`, the topic's latest question, when each puts in a name the follow-up writes
    after a preposition ("und für SEV1?") and `latest` names neither it nor the one it
    replaced: the follow-up changes the question it follows ("und wann ist der
    Postmortem-Entwurf fällig?" → "... fällig für SEV1?"), not an older one; [] otherwise."""
    placed = {(m.start, m.end): m for m in _names_after(followup)}
    lowered = latest.lower()
    out = []
    for sub in subs:
        new = placed.get((sub.new.start, sub.new.end))
        if new is None or sub.new.key in lowered or (sub.old and sub.old.key in lowered):
            return []
        out.append(Substitution(None, new))
    return out


def without_conjunction(question: str) -> str:
    """A question without the "and" / "und" that opened the follow-up it was made from
    ("und wann ist ...?" → "Wann ist ...?"), when what follows asks a whole question."""
    opening = _CONJUNCTION.match(question)
    if opening is None:
        return question
    rest = question[opening.end() :]
    return rest[:1].upper() + rest[1:]


def _german_noun(word: str) -> bool:
    """Whether a word after a German article may be a common noun, which German writes
    capitalized: one word, no capital inside, no digit ("Treffen"; not "OpenXT", "SEV1")."""
    return " " not in word and word[1:].islower() and not any(c.isdigit() for c in word)


def _same_place(previous: str, kinds: frozenset[str], taken: list[tuple[int, int]]):
    """The earlier question's name after the same preposition (the last one), if not
    replaced already."""
    found = [m for m in _names_after(previous) if m.kinds == kinds]
    for mention in reversed(found):
        if not any(a < mention.end and mention.start < b for a, b in taken):
            return mention
    return None


_ARTICLES = frozenset("the a an der die das den dem des".split())


def substitute(previous: str, followup: str, subs: Sequence[Substitution]) -> str:
    """The earlier question with each substitution made. A name put in (capitalized) at
    the end of a noun phrase takes the follow-up's article, or none ("in the UK" → "in
    Germany", "in Germany" → "in the UK")."""
    text = previous
    for sub in (s for s in subs if s.old is None):
        prep = next(iter(sub.new.kinds)).removeprefix("after:")
        body = text.rstrip().rstrip("?").rstrip()
        text = f"{body} {prep} {sub.new.text}?"
    for sub in sorted((s for s in subs if s.old is not None), key=lambda s: -s.old.start):
        start, new = sub.old.start, sub.new.text
        before = text[:start]
        words_before = followup[: sub.new.start].split()
        own = words_before[-1] if words_before and words_before[-1].lower() in _ARTICLES else ""
        after = text[sub.old.end :].split()
        ends_phrase = not after or not after[0][:1].isalpha() or after[0].lower() in STOPWORDS
        ends_phrase = ends_phrase and not text[sub.old.end :].startswith("-")  # "AIS-Team"
        if new[:1].isupper() and ends_phrase:
            kept = before.rstrip().split(" ")
            if kept and kept[-1].lower() in _ARTICLES:
                before = " ".join(kept[:-1]) + " " if len(kept) > 1 else ""
            if own:
                before = f"{before}{own.lower()} "
        if start == 0 and not new[:1].isupper():
            new = new[:1].upper() + new[1:]
        end = sub.old.end
        if text[end:].startswith("-"):
            new = new.replace(" ", "-")  # "Fleet Platform" before "-Team": Fleet-Platform-Team
        head = _COMPOUND_HEAD.match(text, end)
        if head:  # the front of a German compound: "das Hotellimit" → "das Limit für Mahlzeiten"
            new, end = f"{head.group(0).capitalize()} für {new}", head.end()
        text = before + new + text[end:]
    return text


# The rest of a German compound after its front (`_german_mentions`).
_COMPOUND_HEAD = re.compile(r"[^\W\d_]+")


# --------------------------------------------------------------------------- shape
def words_of(text: str) -> list[str]:
    """The words of `text`, in order."""
    return _WORD.findall(text)


def content_words(text: str) -> list[str]:
    """Words that say what a question is about: not stopwords, question words, pronouns or
    bare numbers."""
    out = []
    for word in words_of(text):
        lower = word.lower()
        if (
            lower in STOPWORDS
            or lower in QUESTION_WORDS
            or lower in PRONOUNS
            or lower in GERMAN_REFERENCES
            or lower.isdigit()
        ):
            continue
        out.append(word)
    return out


def is_elliptical(text: str) -> bool:
    """An elliptical question: opened like "and ..." / "what about ..." with at most three
    words of its own, or no word of its own at all ("who?")."""
    own = content_words(text)
    return not own or (_ELLIPSIS.search(text) is not None and len(own) <= 3)


def references(text: str) -> list[str]:
    """The words of `text` that point back at something named before ("it", "this",
    "dafür"); "that" only before a noun or at the end ("that team", "what about that?")."""
    words = [w.lower() for w in words_of(text)]
    found = []
    for position, word in enumerate(words):
        previous = words[position - 1] if position else ""
        if word == "es" and previous in ("gibt", "gab"):
            continue  # "gibt es": there is
        if word in ("it", "es") and _expletive(words, position):
            continue  # "is it possible to ...", "ist es möglich, ... zu ...": no reference
        last = position + 1 == len(words)
        if word in PRONOUNS or word in GERMAN_REFERENCES or (last and word == "das"):
            found.append(word)
        elif word == "there" and previous not in _EXISTENTIAL:
            found.append(word)
        elif word == "that":
            following = words[position + 1] if position + 1 < len(words) else ""
            if not following or (following not in STOPWORDS and not following.endswith("ed")):
                found.append(word)
        elif word == "one" and last and previous not in _NOT_ONE_OF_A_KIND:
            found.append(word)  # "how do I book one?": one of the things asked about before
    return found


# Words before a final "one" that make it no stand-in for an earlier noun ("which one",
# "the one", "no one", "number one", "at one", "the next one").
_NOT_ONE_OF_A_KIND = frozenset(
    """which the this that each every any no some another other number at next last first
    new old same only""".split()
)


_BE = frozenset("is was isn't wasn't would will ist war wäre".split())


def _expletive(words: Sequence[str], position: int) -> bool:
    """Whether the "it" / "es" at `position` is a placeholder subject that an infinitive
    later fills ("why is it recommended to archive builds?", "ist es möglich, Builds zu
    archivieren?"), not a reference."""
    previous = words[position - 1] if position else ""
    rest = words[position + 2 :]
    return previous in _BE and ("to" in rest[:2] or "zu" in rest)


def is_thin(text: str) -> bool:
    """A question with at most one word of its own ("What was the reason?", "And Xen?"):
    too little to stand on its own."""
    return len(content_words(text)) <= 1


def needs_topic(text: str) -> bool:
    """Whether `text` cannot be answered without an earlier turn: it is elliptical, or it
    points back ("What does it stand for?", "Wofür steht das?") or asks about "the X" with
    nothing else of its own ("What was the reason?")."""
    if is_elliptical(text):
        return True
    refs = references(text)
    own = [w for w in content_words(text) if w.lower() != "one" or "one" not in refs]
    if len(own) > 1:
        return False
    if refs:
        return True
    lowered = f" {text.lower()} "
    return (
        bool(own)
        and own[0].islower()
        and any(
            f" {article} {own[0].lower()}" in lowered for article in ("the", "der", "die", "das")
        )
    )


def whole_after_and(text: str) -> bool:
    """Whether `text` is "and"/"und" before a whole question opened by a question word
    ("and how many days can I carry over?") with at least two words of its own. One opened
    by a verb ("And is there a parking allowance for the lab?") still leans on the turn
    before ("the lab")."""
    found = _CONJUNCTION.match(text)
    if found is None or len(content_words(text)) < 2:
        return False
    opener = words_of(text[found.end() :])[:1]
    return bool(opener) and opener[0].lower() in QUESTION_WORDS


# --------------------------------------------------------------------------- references
def subject(question: str) -> str:
    """The thing an earlier question is about: its first run of names (capitalized after
    the first word, all capitals, or with a digit: "Optiplex 7060", "BATS"), with the noun
    after a one-word name and its article ("the XT shield", "the Payments team")."""
    tokens = list(re.finditer(r"\S+", question))
    run: list[int] = []
    for position, token in enumerate(tokens):
        word = token.group(0).strip(",.;:!?()\"'“”")
        named = position > 0 and word[:1].isupper() or any(c.isdigit() for c in word)
        if named and word.lower() not in STOPWORDS and word.lower() not in QUESTION_WORDS:
            run.append(position)
        elif run:
            break
    if not run:
        return ""
    first, last = run[0], run[-1]
    article = tokens[first - 1].group(0).lower() if first > 0 else ""
    if len(run) == 1 and article in ("the", "a", "an") and last + 1 < len(tokens):
        noun = re.sub(r"['’]s$", "", tokens[last + 1].group(0).strip(",.;:!?()\"'“”"))
        if noun.isalpha() and noun.islower() and noun not in STOPWORDS and not noun.endswith("ed"):
            last += 1
    after = tokens[last + 1].group(0).lower() if last + 1 < len(tokens) else ""
    if article == "the" and after in ATTRIBUTE_OF and last + 2 < len(tokens):
        # "the Acknowledge time for a SEV2": a column asked of a row; the row is the subject
        of = subject(" ".join(t.group(0) for t in tokens[last + 1 :]))
        if of:
            return of
    phrase = question[tokens[first].start() : tokens[last].end()].strip(",.;:!?()\"'“”")
    phrase = re.sub(r"['’]s$", "", phrase)  # "the SRE team's Slack channel": the team
    if article == "the":
        phrase = "the " + phrase
    return phrase


# The prepositions after an attribute that name what it is of ("the Acknowledge time for a
# SEV2", "the Owner of Harbor").
ATTRIBUTE_OF = frozenset("for of".split())


def noun_phrase(question: str, noun: str) -> str:
    """The phrase of an earlier question that ends in `noun` (or its plural / singular),
    with its named modifiers and the article "the" ("the Payments team" for "team"); ""
    when the question does not name it with a modifier."""
    forms = {noun, noun + "s", noun[:-1] if noun.endswith("s") else noun}
    tokens = [t.strip(",.;:!?()\"'“”") for t in question.split()]
    for position, token in enumerate(tokens):
        if token.lower() in forms and position > 0:
            start = position
            while start > 0 and (
                tokens[start - 1][:1].isupper() or any(c.isdigit() for c in tokens[start - 1])
            ):
                start -= 1
            if start < position and tokens[start].lower() not in STOPWORDS:
                return "the " + " ".join(tokens[start : position + 1])
    return ""


# German demonstratives before a noun, to the definite article of the same case and gender.
GERMAN_DEMONSTRATIVES = {
    "diese": "die",
    "dieser": "der",
    "diesem": "dem",
    "diesen": "den",
    "dieses": "das",
}


def german_subject(question: str) -> str:
    """The name a German question is about: its first run of words with a capital inside
    or a digit ("BATS", "XT Shield", "OpenXT"; German capitalizes every noun, so "Farbe" is
    none), with the following capitalized words, after "das" when the question writes it
    ("das XT Shield": "es" and "das" stand for a neuter thing)."""
    tokens = [t.strip(",.;:!?()\"'“”„") for t in question.split()]
    for position in range(1, len(tokens)):
        token = tokens[position]
        if any(c.isdigit() for c in token) or any(c.isupper() for c in token[1:]):
            end = position + 1
            while end < len(tokens) and tokens[end][:1].isupper():
                end += 1
            name = " ".join(tokens[position:end])
            return f"das {name}" if tokens[position - 1].lower() == "das" else name
    return ""


# What an earlier question asks for, when its answer names the thing a follow-up's pronoun
# points at: "Which team owns tern-os?" (answered "Robot Firmware") → "who leads it?";
# "Who is the VP Engineering?" (answered "Karin Vogel") → "where is she based?".
_ASKS_WHICH = re.compile(r"^\W*(?:and\s+|und\s+)?(?:which|welche[rsmn]?)\s+\w", re.IGNORECASE)
_ASKS_WHO = re.compile(r"^\W*(?:and\s+|und\s+)?(?:who|wer)\b", re.IGNORECASE)
_NAME_RUN = r"[A-ZÄÖÜ][\w\-]*(?:\s+[A-ZÄÖÜ][\w\-]*){0,3}"
_LEADING_NAME = re.compile(rf"^({_NAME_RUN})(?=\s*(?:\(|\[|,|;|\.?$))")
# (a parenthesis after the name says where or what it is: "Maren Lindqvist (Berlin)")
_STATED_NAME = re.compile(rf"\b(?:is|are|ist|sind)\s+({_NAME_RUN})\s*(?:\([^()]*\))?\s*\.?$")
# Pronouns for a person, English (German "sie" is also "they" and "you": left alone).
PERSONAL = frozenset("he she him her his".split())
# Plural pronouns, which stand for a named group ("the Payments team") or an answered name.
PLURAL = frozenset("they them their".split())


def answered_name(question: str, answer: str) -> str:
    """The name an earlier turn's answer gives for what its question asked ("Robot
    Firmware" for "Which team owns tern-os?" answered "Robot Firmware (Team for ...)",
    "Karin Vogel" for "Who is the VP Engineering?" answered "The VP Engineering is Karin
    Vogel."): the answer's first line opening with a name, or a statement ending in one;
    "" when the question asks for no thing or the answer names none."""
    if not (_ASKS_WHICH.match(question) or _ASKS_WHO.match(question)):
        return ""
    lines = answer.strip().splitlines()
    line = CITATION.sub("", lines[0]).strip() if lines else ""
    found = _LEADING_NAME.match(line) or _STATED_NAME.search(line)
    return found.group(1).strip() if found else ""


# "which of these ...", "and which one of those ...": one of the things the earlier question
# asked for.
_ONE_OF = re.compile(
    r"^\W*(?:and\s+)?(?P<which>which|what)\s+(?:one\s+)?of\s+(?:these|those|them)\b", re.I
)
# What an earlier question asks for: the noun after "which" / "what" ("Which OS was used
# ...?"), or the noun a clipped question opens with before a participle ("os used in the OEM
# N config?").
_WHICH_NOUN = re.compile(r"^\W*(?:and\s+)?(?:which|what)\s+([^\W\d_][\w-]*)", re.I)
_CLIPPED_NOUN = re.compile(r"^\W*([^\W\d_][\w-]*)\s+[^\W\d_]+ed\b")


def asked_noun(question: str) -> str:
    """The noun of what an earlier question asks for ("OS" in "Which OS was used for ...?"
    and in "OS used in the OEM N config?"), as it writes it; "" when it names none."""
    found = _WHICH_NOUN.match(question) or _CLIPPED_NOUN.match(question)
    if not found:
        return ""
    noun = found.group(1)
    lower = noun.lower()
    if lower in STOPWORDS or lower in QUESTION_WORDS or lower in _OPENING_VERBS:
        return ""
    return noun


# "how many desks", "a desk": the thing an earlier question counts or names one of.
_HOW_MANY = re.compile(r"\bhow many\s+([^\W\d_]+)", re.I)
_INDEFINITE = re.compile(r"\b(?:a|an)\s+([^\W\d_]+)", re.I)


def counted_thing(question: str) -> str:
    """One of the things an earlier question is about, with its article, for a final "one"
    of a follow-up ("how do I book one?" after "How many desks does the Bristol office
    have?" or "Where can I book a desk?" → "a desk"): the noun it counts, else the first
    noun after "a"/"an", else the noun it asks which of; "" when it names none."""
    found = _HOW_MANY.search(question) or _INDEFINITE.search(question)
    noun = found.group(1) if found else asked_noun(question)
    if not noun or noun.lower() in STOPWORDS or noun.lower() in QUESTION_WORDS:
        return ""
    lower = noun.lower()
    if lower.endswith("ies") and len(lower) > 4:
        noun = noun[:-3] + "y"
    elif lower.endswith("s") and not lower.endswith("ss") and len(lower) > 3:
        noun = noun[:-1]
    article = "an" if noun[:1].lower() in "aeiou" else "a"
    return f"{article} {noun}"


_DEFINITE = frozenset("the der die das den dem des".split())


def definite_noun(question: str, previous: str) -> str:
    """The noun a follow-up names with a definite article that the earlier question names
    too ("the old channel" after "Which Slack channel does the Payments team use?", "das
    Team" after "Welches Team kümmert sich um Billing?"): the article says it is the one
    spoken of, so the earlier question says which; "" when there is none."""
    earlier = {_singular(w.lower()) for w in words_of(previous)}
    words = words_of(question)
    for position, word in enumerate(words):
        if word.lower() not in _DEFINITE:
            continue
        for noun in words[position + 1 : position + 3]:
            lower = noun.lower()
            if lower in STOPWORDS or lower in QUESTION_WORDS:
                break
            if _singular(lower) in earlier:
                return noun
    return ""


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


# Nouns for a wiki page: "this document" is the page the conversation's answers cite.
PAGE_NOUNS = frozenset("document doc page article dokument seite artikel".split())


def _page_phrase(noun: str, title: str, article: str = "the") -> str:
    """A page named by its title in a follow-up's words ("the document “Release Checklist”",
    "das Dokument „Release Checklist“")."""
    if article == "the":
        return f"the {noun} “{title}”"
    return f"{article} {noun} „{title}“"


def resolve_references(
    followup: str, previous: str, answer: str = "", title: str = ""
) -> str | None:
    """The follow-up with its references replaced from the earlier question: "this
    upgrade" / "that team" / "diesem Upgrade" by the earlier phrase ending in that noun, "it"
    and a "this" or "that" standing alone by the earlier question's subject, a German "es"
    or a final "das" by the name the earlier question is about; None when a reference is
    left (other German ones, plural ones) or nothing was replaced.

    With the earlier question's `answer`, a question that asked which thing ("Which team
    owns tern-os?") has "it", "they" and "es" point at the thing its answer names, and one
    that asked who has "he" and "she" point at the person its answer names
    (`answered_name`). "they" and "their" otherwise stand for the earlier question's
    subject only when it names a group ("the Payments team"). "this document" / "diese
    Seite" with no such phrase in the earlier question is the page of `title` (the page the
    conversation's latest answer cited)."""
    chosen = _ONE_OF.match(followup)
    if chosen:
        noun = asked_noun(previous)
        if not noun:
            return None
        text = f"{chosen.group('which')} {noun}{followup[chosen.end() :]}"
        return None if references(text) else without_conjunction(text)
    named = answered_name(previous, answer) if answer else ""
    which = bool(named) and _ASKS_WHICH.match(previous) is not None
    thing = named if which else subject(previous)
    person = named if named and not which else ""
    group = thing if which or re.fullmatch(r"the \S+(?: \S+)* [a-z]+", thing) else ""
    tokens = list(re.finditer(r"[^\W_]+(?:[.\-/'’][^\W_]+)*", followup))
    edits: list[tuple[int, int, str]] = []
    skip = -1
    for position, token in enumerate(tokens):
        if position <= skip:
            continue
        word = token.group(0).lower()
        following = tokens[position + 1] if position + 1 < len(tokens) else None
        nxt = following.group(0).lower() if following else ""
        alone = not nxt or nxt in STOPWORDS or nxt.endswith("ed")
        # "Is this compulsory?": after an opening verb, before the last word (a predicate)
        alone = alone or (position == 1 and position + 2 == len(tokens) and word in DEMONSTRATIVES)
        if word in DEMONSTRATIVES and not alone:
            phrase = noun_phrase(previous, nxt)
            if not phrase and title and nxt in PAGE_NOUNS:
                phrase = _page_phrase(following.group(0), title)
            if not phrase:
                return None
            edits.append((token.start(), following.end(), phrase))
            skip = position + 1
        elif word in GERMAN_DEMONSTRATIVES and following and following.group(0)[:1].isupper():
            article = GERMAN_DEMONSTRATIVES[word]
            phrase = noun_phrase(previous, nxt)
            if phrase:
                phrase = f"{article} {phrase[4:]}"
            elif title and nxt in PAGE_NOUNS:
                phrase = _page_phrase(following.group(0), title, article)
            else:
                return None
            edits.append((token.start(), following.end(), phrase))
            skip = position + 1
        elif word == "es" or (word == "das" and following is None):
            lowered = [t.group(0).lower() for t in tokens]
            if position and lowered[position - 1] in ("gibt", "gab"):
                continue  # "gibt es": there is
            if _expletive(lowered, position):
                continue
            name = thing if which else german_subject(previous)
            if not name:
                return None
            edits.append((token.start(), token.end(), name))
        elif word in ("it", "its") or (word in ("this", "that") and alone):
            if not thing:
                return None
            edits.append((token.start(), token.end(), f"{thing}'s" if word == "its" else thing))
        elif word == "one" and following is None:
            noun = counted_thing(previous)
            if not noun:
                return None
            edits.append((token.start(), token.end(), noun))
        elif word in PLURAL or word in PERSONAL:
            put = group if word in PLURAL else person
            if not put:
                return None
            possessive = word in ("their", "his") or (word == "her" and not alone)
            edits.append((token.start(), token.end(), f"{put}'s" if possessive else put))
    if not edits:
        return None
    text = followup
    for start, end, put in reversed(edits):
        if not text[:start].strip(" ¿¡\"'“„"):
            put = put[:1].upper() + put[1:]
        text = text[:start] + put + text[end:]
    if references(text):
        return None
    # "and when is its draft due?" → "When is SEV2's draft due?": a question of its own
    return without_conjunction(text)


# Verbs that open a question ("and is it ...?", "und gibt es ...?").
_OPENING_VERBS = frozenset(
    """is are was were do does did can could will would should has have ist sind war waren
    gibt gab kann können muss müssen hat haben wird werden""".split()
)
_OPENERS = "|".join(sorted(QUESTION_WORDS | _OPENING_VERBS, key=len, reverse=True))
# An "and" opening a follow-up that asks a whole question ("and when is ...?", "und wer
# ...?"), which the resolved question goes without.
_CONJUNCTION = re.compile(rf"^\W*(?:and|und)\s+(?=(?:{_OPENERS})\b)", re.IGNORECASE)


# --------------------------------------------------------------------------- wording
# How a follow-up that cannot be folded into a sentence is shown: the follow-up, then the
# earlier question it follows, in the follow-up's language.
FOLLOWING_UP = {
    "en": "{question} — following up on “{previous}”",
    "de": "{question} — Bezug: „{previous}“",
}
_FOLLOWING_UP_MARKS = (" — following up on “", " — Bezug: „")


def following_up(question: str, previous: str, language: str) -> str:
    """A follow-up shown with the earlier question it follows (see `FOLLOWING_UP`)."""
    template = FOLLOWING_UP.get(language, FOLLOWING_UP["en"])
    return template.format(question=question, previous=previous)


def is_following_up(text: str) -> bool:
    """Whether `text` was made by `following_up` (it is no question to fold into)."""
    return any(mark in text for mark in _FOLLOWING_UP_MARKS)


_ASK_WHOLE = {"en": "Please ask the whole question.", "de": "Bitte stellen Sie die ganze Frage."}


def clarification(question: str, language: str) -> str:
    """The reply to a question that needs an earlier turn when there is none: what it
    leaves open, and a request for the whole question ("Week 3 of what? Please ask the
    whole question."), in the question's language."""
    german = language == "de"
    ask = _ASK_WHOLE["de" if german else "en"]
    refs = references(question)
    if refs and len([w for w in content_words(question) if w.lower() not in refs]) <= 1:
        word = refs[0]
        if german:
            return f"Worauf bezieht sich „{word}“? {ask}"
        return f"What does “{word}” refer to? {ask}"
    rest = _ELLIPSIS.sub("", question).strip(" ?!.,;:")
    rest = re.sub(r"^(?:in|for|at|on|of|im|in der|für|bei|am|zum|zur)\s+", "", rest, flags=re.I)
    rest = re.sub(r"^(?:the|a|an|der|die|das|den|dem)\s+", "", rest, flags=re.I)
    if content_words(rest):
        rest = rest[:1].upper() + rest[1:]
        return f"{rest} – wovon? {ask}" if german else f"{rest} of what? {ask}"
    return f"Worum geht es? {ask}" if german else f"About what? {ask}"
