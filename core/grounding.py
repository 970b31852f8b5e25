"""A model's answer checked against its sources, sentence by sentence.

A real small model (issue 35) cited a source in 5 of 34 replies, sometimes the wrong one,
replied "is [2]." twice, pasted a source block into the reply twice and made up values the
sources never held. `ground` reads a reply back against the numbered sources it was given:

1. Pasted source blocks (a line `[n] <that source's header>`, or the `Sources:` label) are
   cut off; citation-only replies ("is [2].") and declines in other words
   (`core.declines`) are recognised, so the caller can decline or answer otherwise.
2. Each remaining sentence is aligned to the sources: its terms (`core.lexical.tokenize`:
   stemmed content words, numbers, dates), less the question's own terms when any are
   left (echoing the question proves nothing), are looked up in each source. A sentence is
   supported by a source when that source holds at least `MIN_COVERAGE` of those terms and
   every number and name the sentence states beyond the question (the facts a model makes
   up: "week 3", "Sophie Brandt", "5 days"); a German sentence read against an English
   source needs `CROSS_LANGUAGE_COVERAGE`. When no single source does, the two best
   together may (a sentence that joins a row and its table's heading). The sentence must
   agree in negation with the line or sentence of the source that holds most of its terms
   (`negated`): a model that turns "There is no set guideline" into "There are set
   guidelines", or "Someone makes a request" into "They should not … and someone makes a
   request", uses the source's words to say what it does not. A superlative ("the most
   failures", "the lowest") must stand in the supporting line as well: one row does not
   say it is the most. So must a quantifier ("all", "any", "every", "both", "always"),
   in a line that holds most of the sentence's new terms as well: a model's "initiated by
   any member of the community creating a ticket" read from "Action is initiated by creating
   a ticket" (the page's "Any member can abstain" is another line) claims who may act; "both
   A and B" is held by a line holding A and B (a row of the EFI table does not say a machine
   was tested with both legacy and EFI, though the question asked exactly that). A
   sentence that denies a predicate of every row ("none of the rows failed") is not held
   by a page one of whose rows states it in any cell, its notes included
   (`denying_cells`). The names of the question a sentence repeats (its subject, "the
   Technical Advisory Board") must stand in the supporting line with its header, all but
   `NAME_TERMS_MISSING`: a draft charter's "Governance Board" line reads the same but is
   about another board. A sentence that attributes something to a person or team (a label
   the sources say lines of, "Phil:", or a possessive, "Phil's") is held only by a line said
   of them (`core.line_owners.said_of`): the agenda item under "Rich:" does not give Phil
   an action item, though it holds the words. A sentence that quotes a source ("… are
   listed in the source, which states: \"…\"") claims the quote answers the question, so
   its source must hold the question's content words; when it does not, the quote's
   sentences go with it.
3. The citations are repaired: a supported sentence cites the sources that support it,
   the model's own citations kept when they are among them, replaced when they are not (a
   wrong citation is worse than none), added when there were none.
4. A sentence no source supports is dropped (or, with `unsupported="mark"`, kept with
   `UNSUPPORTED_MARK`), so what the user reads is what the sources say.

Everything is a pure function of strings, so it runs on every reply, streamed sentence by
sentence or whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from core.answer import CITATION, OUT_OF_SCOPE, SOURCES_HEADER, cited_numbers
from core.declines import is_decline_sentence
from core.lexical import detect_language, tokenize
from core.line_owners import Line, labels, owned_lines, persons, said_of

MIN_COVERAGE = 0.6
"""Share of a sentence's new terms a source must hold to support it. Set before measuring
as "more than half", so one stray paraphrased word does not drop a sentence, while a
sentence that is mostly the model's own is dropped."""

CROSS_LANGUAGE_COVERAGE = 0.3
"""The same share for a German sentence read against an English source (a German question
over an English wiki): its own words are translations the source cannot hold, so only its
names, numbers and technical terms can match. Half of `MIN_COVERAGE`, set before measuring;
its numbers must still stand in the source."""

NAME_TERMS_MISSING = 1
"""Terms of the question's names a sentence repeats that its supporting line (with its
header) may lack: one name written otherwise ("Open XT" for OpenXT) or said elsewhere on the
page ("the UEFI OTA upgrade" of a line on the UEFI upgrade under "Known Issues"); a line
lacking two ("Technical Advisory") is about something else. Set by design, issue 35."""

UNSUPPORTED_MARK = "(not found in the sources)"
UNSUPPORTED_CHOICES = ("drop", "mark")

SENTENCE_BREAK = re.compile(r"(?<=[.!?])(?<!\b\d\.)(?<!\b\d\d\.)\s+|\n+")
"""Where a reply's sentences end: after . ! or ? (not a list number "1.") and at line ends."""
_LEADING_CITATIONS = re.compile(r"^(?:\s*" + CITATION.pattern + r")+[.,;:]?\s*", re.IGNORECASE)
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*")
_NAME = re.compile(r"[A-ZÄÖÜ][\w'\-]*[a-zäöüß][\w'\-]*")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|neither|nor|cannot|without|"
    r"kein\w*|nicht|nie|niemand|ohne)\b|n't\b|\bshould have (?:had|been|\w+ed)\b",
    re.IGNORECASE,
)
_SUPERLATIVE = re.compile(
    r"\b(?:most|least|fewest|highest|lowest|largest|smallest|maximum|minimum|"
    r"meisten|wenigsten|höchste\w*|niedrigste\w*)\b",
    re.IGNORECASE,
)
_QUANTIFIERS = {
    "all": r"all|every|everyone|everybody|everything|each|alle[nmrs]?|jede[nmrs]?|sämtliche[nmrs]?",
    "any": r"any|anyone|anybody|anything|irgendein\w*|jedermann",
    "both": r"both|beide[nmrs]?|sowohl",
    "always": r"always|immer",
}
"""Words that claim something of every case, or of whichever case (a kind each, by the
words of its kind): a supporting line must say the same kind."""
_QUANTIFIER = {
    kind: re.compile(rf"\b(?:{words})\b", re.IGNORECASE) for kind, words in _QUANTIFIERS.items()
}
_BOTH_AND = re.compile(
    r"\b(?:both|sowohl)\s+((?:[\w.\-]+\s+){0,3}?[\w.\-]+)\s+(?:and|als auch|und)\s+([\w.\-]+)",
    re.IGNORECASE,
)
_DENIES_ALL = re.compile(
    r"\b(?:none|nobody|nothing|no one|keine[rsnm]?|niemand|nichts)\b", re.IGNORECASE
)
"""A denial of every case: "none of the rows failed", "keine der Zeilen"."""
_DENIED_SUBJECT = re.compile(
    r"^\s*(?:of|der|von)\s+(?:(?:the|these|those|its|their|den|diesen)\s+)?"
    r"(?:\d+\s+)?(?:gefundenen\s+)?(?:[\w\-]+\s+){0,2}?[\w\-]+(?:s|en|n)\b(?:\s+found\b)?",
    re.IGNORECASE,
)
"""The cases a denial is about ("of the rows", "of the tested configurations", "of the 4 rows
found", "der 4 gefundenen Zeilen"): its subject,
which every row holds; the rest is what it denies of them."""
_DENIAL_END = re.compile(r";|,?\s+\b(?:but|though|although|however|aber|doch|jedoch)\b", re.I)
"""Where a denial's scope ends: the clause after it says what is left ("…, but a notes cell
says \"FAIL\"")."""
_ROW_LEAD = re.compile(r"^(?:Row \d+ in )?Table \d+:\s*")
_COLUMN = re.compile(r"(?:^|,\s+(?:and\s+|und\s+)?)([^,]{1,40}?)\s+(?:is|ist)\s")
_ENUMERATION = re.compile(r"\(\d{1,2}\)(?=\s)")
"""An item's number in a run-on list ("(1) Device firmware; (2) BIOS …"): no stated fact."""
_QUOTE = re.compile(r"[\"“”„]")
_ANSWER_WORD = re.compile(r"^\W*(?:yes|no|ja|nein)\b[\s,.:;!-]*", re.IGNORECASE)


@dataclass(frozen=True)
class SentenceCheck:
    """One sentence of a reply: its text without citations, the numbers the model cited,
    the sources that support it (best first, empty: unsupported) and the share of its new
    terms the best one holds."""

    text: str
    cited: list[int]
    supported_by: list[int]
    coverage: float
    decline: bool = False
    content: bool = True


@dataclass
class Grounding:
    """A reply checked against its sources.

    `kind`: `answer` (at least one supported sentence; `text` is the checked answer),
    `decline` (every sentence declines), `citation_only` (no words but citations, "is
    [2]."), `pasted_source` (nothing but a copy of the sources), `unsupported` (sentences,
    none supported), `empty`. `dropped` are the sentences left out, `repaired` how many
    sentences' citations were added or replaced."""

    kind: str
    text: str
    sentences: list[SentenceCheck] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    repaired: int = 0
    pasted: bool = False

    @property
    def supported(self) -> bool:
        """Whether the reply stated something its sources hold."""
        return self.kind == "answer"

    def to_dict(self) -> dict:
        """The check as stored in a turn's trace."""
        return asdict(self)


def _terms(text: str) -> set[str]:
    return set(tokenize(text, "de"))


def stated_facts(text: str, question: str) -> set[str]:
    """The numbers and names `text` (less its citations) states that the question does not:
    the values a model makes up. Names are capitalized words (a sentence's first word only
    before another capitalized one), in English text only (German capitalizes nouns)."""
    text = without_enumeration(CITATION.sub(" ", text))
    asked = question.casefold()
    facts = {n for n in NUMBER.findall(text) if n not in asked}
    if detect_language(text) == "de":
        return facts
    for sentence in split_sentences(text):
        words = sentence.split()
        for i, word in enumerate(words):
            name = _NAME.fullmatch(word.strip(".,;:!?()\"'"))
            if name is None or name.group(0).casefold() in asked:
                continue
            if name.group(0).casefold() in _COMMON_CAPITALS:
                continue
            # A sentence's first word is a name only when a capitalized word follows it.
            if i == 0 and not (len(words) > 1 and words[1][:1].isupper()):
                continue
            facts.add(name.group(0))
    return facts


_YES_NO = frozenset({"yes", "ja", "nein"})
"""The answer words of a yes/no question (stemmed; "no" is a stop word already): the reply's
answer, not a term a source can hold."""

# Capitalized words that are no names: German nouns are capitalized, and so are "I" and the
# months and weekdays the date tokens already check.
_COMMON_CAPITALS = frozenset("i monday tuesday wednesday thursday friday saturday sunday".split())


def counted_items(text: str) -> set[str]:
    """The numbers in `text` that count the items it lists after them ("7 people: Phil
    White, …, Chris Patterson and Jed Lejosne", "4 statuses: Open, In Progress, Review and
    Done", "1 person: Earl Wong"): a count read off the list it states, which no source need
    hold; the items are checked as the sentence's other facts. Items are split at
    semicolons when the list has any (an item may hold commas: "2: Copyrights: …; Authors:
    names, emails and contact information"), else at commas and "and". One item is counted
    only after a noun ("1 person:"), not a label's number ("Week 2: Sophie Brandt")."""
    text = CITATION.sub(" ", text)
    out = set()
    for match in re.finditer(r"(?<![\w.])(\d+)\b([^:\d]{0,40}):(.+)", text):
        listed = match.group(3)
        breaks = r";" if ";" in listed else r",|;|\band\b|\bund\b"
        items = [i for i in re.split(breaks, listed) if i.strip()]
        noun = re.search(r"[^\W\d]", match.group(2)) is not None
        if (len(items) > 1 or noun) and int(match.group(1)) == len(items):
            out.add(match.group(1))
    return out


def without_enumeration(text: str) -> str:
    """`text` without the numbers of its run-on list's items ("(1) … (2) …")."""
    return _ENUMERATION.sub(" ", text)


def asked_names(question: str, text: str) -> set[str]:
    """The terms of the names an English `question` asks about (its capitalized words but
    the first) that `text` repeats: the subject a sentence answers about, which its source
    must be about too ("the OpenXT Technical Advisory Board", not a draft charter's
    "Governance Board" whose line reads the same). German capitalizes every noun: none."""
    if detect_language(question) != "en":
        return set()
    words = [w.strip(".,;:!?()\"'") for w in question.split()[1:]]
    names = [w for w in words if w[:1].isupper() and w.casefold() not in _COMMON_CAPITALS]
    return _terms(" ".join(names)) & _terms(text)


def superlatives(text: str) -> set[str]:
    """The superlatives `text` states ("most", "lowest", "meisten")."""
    return {w.casefold() for w in _SUPERLATIVE.findall(text)}


def quantifiers(text: str) -> set[str]:
    """The kinds of quantifier `text` states (`_QUANTIFIERS`: "all", "any", "both",
    "always")."""
    plain = CITATION.sub(" ", text)
    return {kind for kind, pattern in _QUANTIFIER.items() if pattern.search(plain)}


def holds_quantifiers(text: str, line: str) -> bool:
    """Whether `line` says every kind of quantifier `text` states: the same kind of word,
    or, for "both A and B", A's and B's terms."""
    wanted = quantifiers(text)
    both = _BOTH_AND.search(CITATION.sub(" ", text))
    if "both" in wanted and both is not None:
        if _terms(f"{both.group(1)} {both.group(2)}") <= _terms(line):
            wanted.discard("both")
    return wanted <= quantifiers(line)


def denying_cells(text: str, sources: Sequence[str]) -> list[str]:
    """The cells (clauses of a line) of `sources` (each its header line, then its text)
    that state, not negated, what `text` denies of every case ("No: none of the rows in the
    rc1 matrix failed (Result: PWE and PASS)" against a notes cell "Power: FAIL - OXT-1591"):
    every term the denial states after its subject ("of the rows"), less what it states in
    brackets (the values it read) and the source's header and column names (which every
    row holds), in one clause. A cell `text` quotes itself ("…, but a notes cell says
    \"Power: FAIL\"") is said, not contradicted. Empty when `text` denies nothing of every
    case."""
    plain = _ANSWER_WORD.sub("", CITATION.sub(" ", text))
    quoted = [q.casefold() for q in re.findall(r"[\"“„]([^\"“”„]+)[\"“”]", plain)]
    plain = re.sub(r"\([^()]*\)", " ", plain)
    match = _DENIES_ALL.search(plain)
    if match is None:
        return []
    scope = _DENIAL_END.split(plain[match.end() :], maxsplit=1)[0]
    denied = _terms(_DENIED_SUBJECT.sub(" ", scope, count=1))
    found: list[str] = []
    for source in sources:
        header, _, body = source.partition("\n")
        lines = [_ROW_LEAD.sub("", line) for line in body.split("\n")]
        columns = {name for line in lines for name in _COLUMN.findall(line)}
        columns |= {line for line in body.split("\n") if re.match(r"Table \d+:", line)}
        wanted = denied - _terms(header) - _terms(" ".join(columns))
        if not wanted:
            continue
        for line in lines:
            for cell in re.split(r"[,;]", line):
                cell = re.sub(r"^\s*(?:and|und)\s+", "", cell).strip()
                if wanted <= _terms(cell) and not negated(cell) and cell not in found:
                    if not any(q.strip(" .…") in cell.casefold() for q in quoted):
                        found.append(cell)
    return found


def opens_quote(text: str) -> bool:
    """Whether `text` opens a quotation it does not close (a quote running over sentences)."""
    return len(_QUOTE.findall(text)) % 2 == 1


def _quotes(text: str) -> bool:
    """Whether `text` quotes four words or more ("which states: \"Derivative Works …")."""
    return re.search(r"[\"“„]\s*(?:\S+\s+){3,}", text) is not None


def negated(text: str) -> bool:
    """Whether `text` states something negated ("does not", "no", "never", "kein", "nicht",
    and the counterfactual "should have had", which says it was not done): a leading yes/no
    answer word is the reply's answer, not its statement's polarity."""
    return _NEGATION.search(_ANSWER_WORD.sub("", CITATION.sub(" ", text))) is not None


def holds_fact(fact: str, source: str) -> bool:
    """Whether `source` states `fact`: a number as a whole number ("12" not in "2012"), a
    name in any case."""
    if fact[0].isdigit():
        return re.search(r"(?<![\d])" + re.escape(fact) + r"(?![\d])", source) is not None
    return fact.casefold() in source.casefold()


def _strip_pasted(reply: str, headers: Sequence[str]) -> tuple[str, bool]:
    """The reply with pasted source blocks cut: from a line that is `Sources:` or starts
    `[n] header` of a prompt source, to the next blank line."""
    lines = reply.split("\n")
    out: list[str] = []
    pasting = pasted = False
    for line in lines:
        stripped = line.strip()
        match = re.match(r"\[(\d+)\]\s*(.*)", stripped)
        starts_block = stripped.rstrip(":") == SOURCES_HEADER.rstrip(":") or (
            match is not None
            and 1 <= int(match.group(1)) <= len(headers)
            and match.group(2).strip()
            and headers[int(match.group(1)) - 1].startswith(match.group(2).strip()[:40])
        )
        if starts_block:
            pasting = pasted = True
            continue
        if pasting and not stripped:
            pasting = False
            continue
        if not pasting:
            out.append(line)
    return "\n".join(out).strip(), pasted


def split_sentences(text: str) -> list[str]:
    """The sentences of a reply, each with the citations the model put right after its full
    stop ("… Brandt. [4]") moved back onto it."""
    pieces = [p for p in SENTENCE_BREAK.split(text.strip()) if p.strip()]
    out: list[str] = []
    for piece in pieces:
        lead = _LEADING_CITATIONS.match(piece)
        if lead and out:
            out[-1] = out[-1] + " " + lead.group(0).strip()
            piece = piece[lead.end() :]
        if piece.strip():
            out.append(piece.strip())
    return out


def _segments(header: str, source: str) -> list[Line]:
    """A source's lines and sentences, each with the source's header (the page title and
    heading apply to all of it) and the label its line is said of (`core.line_owners`): the
    stretches a stated fact must fall in together. A list whose items describe one thing
    (`_one_thing_list`) is one stretch as well."""
    body = [
        Line(f"{header}\n{seg}", line.owner, line.inline)
        for line in owned_lines(source)
        for seg in split_sentences(line.text)
    ]
    if _one_thing_list(source):
        body.append(Line(f"{header}\n{source}"))
    return body or [Line(header)]


def _one_thing_list(source: str) -> bool:
    """Whether `source` is a list of two or more items that begin with different words: the
    attributes of one thing ("Hardware used: - Dell Optiplex 7040 - BIOS: 1.14.0", where a
    model's "a Dell Optiplex 7040 with BIOS 1.14.0" joins two items; a real model's reply,
    issue 35). Items that begin alike ("Week 2: …", "Week 3: …") are records of the same
    kind, whose values must not be joined across items."""
    lines = [line for line in source.split("\n") if line.strip()]
    if len(lines) < 2 or not all(_BULLET.match(line) for line in lines):
        return False
    firsts = [
        _BULLET.sub("", line).split()[0].casefold()
        for line in lines
        if _BULLET.sub("", line).split()
    ]
    return len(firsts) == len(lines) and len(set(firsts)) == len(firsts)


def check_sentence(
    sentence: str, question: str, sources: Sequence[str], headers: Sequence[str] = ()
) -> SentenceCheck:
    """Which `sources` (numbered from 1, with their `headers`) support `sentence`.

    Of the sources that hold its new terms and facts, the sentence is given the one that
    also holds most of its other terms (the rotation table, not the staff directory, for
    "Sophie Brandt is on call in week 2"); the model's own citation stays when it is as good.
    The facts, with the numbers the question asked about, must stand in one line or
    sentence of the source together, so "Lena Vogel is on call in week 2" is not supported
    by a rotation that gives Lena Vogel week 3."""
    cited = cited_numbers(sentence)
    text = " ".join(CITATION.sub(" ", _BULLET.sub("", sentence)).split())
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    if is_decline_sentence(text):
        return SentenceCheck(text, cited, [], 0.0, decline=True)
    terms = _terms(text) - _YES_NO
    new = terms - _terms(question)
    # A sentence that only echoes the question ("Yes, anyone may create new tickets" to "Is
    # anyone allowed to create a new ticket?") is supported only by a stretch of one source
    # that says all of it: the question's words are in many sources, scattered.
    echo = not new
    new = new or terms
    facts = stated_facts(text, question)
    numbers = set(NUMBER.findall(without_enumeration(text)))
    together = (facts | numbers) - counted_items(text)
    if not new and not facts:
        return SentenceCheck(text, cited, [], 0.0, content=False)
    if text.endswith(":") and not facts and len(terms - _terms(question)) <= 1:
        # A list intro that restates the question, with at most a listing verb of its own
        # ("The use cases … include:"), states nothing; cited, it pointed at whichever
        # source held the question's words.
        return SentenceCheck(text, cited, [], 0.0, content=False)
    headers = list(headers) + [""] * (len(sources) - len(headers))
    source_terms = [_terms(f"{h}\n{s}") for h, s in zip(headers, sources, strict=False)]
    segments = [_segments(h, s) for h, s in zip(headers, sources, strict=False)]

    def coverage(numbers: Sequence[int], wanted: set[str]) -> float:
        held = set().union(*(source_terms[n - 1] for n in numbers))
        return len(wanted & held) / len(wanted) if wanted else 1.0

    def held_by(n: int) -> set[str]:
        """The new terms and facts source `n` holds."""
        facts_held = {f for f in together if any(holds_fact(f, g.text) for g in segments[n - 1])}
        return (new & source_terms[n - 1]) | facts_held

    stated_superlatives = superlatives(text)
    named = asked_names(question, text)
    attributed = persons(text, labels(sources))
    quantified = bool(quantifiers(text))
    quoting = _quotes(text)
    asked = _terms(question) - _YES_NO
    german = detect_language(text) == "de"
    bars = [
        CROSS_LANGUAGE_COVERAGE if german and detect_language(s) == "en" else MIN_COVERAGE
        for s in sources
    ]

    def quantified_in(line: str, bar: float) -> bool:
        """Whether `line` says the sentence's quantifiers and holds its new terms (the
        line the claim is read from, not another line that happens to say "any")."""
        return holds_quantifiers(text, line) and len(new & _terms(line)) >= bar * len(new)

    def agrees(numbers: Sequence[int]) -> bool:
        """Whether the sentence's negation matches that of the line or sentence of `numbers`
        holding most of its terms (the shortest of equals)."""
        stretches = [g.text for n in numbers for g in segments[n - 1]]
        closest = max(stretches, key=lambda g: (len(terms & _terms(g)), -len(g)))
        return negated(text) == negated(closest.split("\n", 1)[-1])

    def same_page(numbers: Sequence[int]) -> list[str]:
        """The sources of the pages of `numbers` (by their headers' page titles)."""
        titles = {headers[n - 1].split(" — ")[0] for n in numbers}
        return [
            f"{h}\n{s}"
            for n, (h, s) in enumerate(zip(headers, sources, strict=False), start=1)
            if n in numbers or (h and h.split(" — ")[0] in titles)
        ]

    def holds(numbers: Sequence[int]) -> bool:
        if coverage(numbers, new) < min(bars[n - 1] for n in numbers):
            return False
        if not agrees(numbers):
            return False
        if denying_cells(text, same_page(numbers)):
            return False
        if len(numbers) == 1:
            if quoting and not asked <= source_terms[numbers[0] - 1]:
                return False
            bar = bars[numbers[0] - 1]
            return any(
                all(holds_fact(f, g.text) for f in together)
                and (not echo or new <= _terms(g.text))
                and stated_superlatives <= superlatives(g.text)
                and (not quantified or quantified_in(g.text, bar))
                and len(named - _terms(g.text)) <= NAME_TERMS_MISSING
                and said_of(attributed, text, g)
                for g in segments[numbers[0] - 1]
            )
        if stated_superlatives or quoting or quantified:
            return False
        if len(named - set().union(*(source_terms[n - 1] for n in numbers))) > NAME_TERMS_MISSING:
            return False
        if not all(
            any(said_of({p}, text, g) for n in numbers for g in segments[n - 1]) for p in attributed
        ):
            return False
        if echo:
            return False
        # Two sources: every fact in one of them, and each adds something the other lacks.
        a, b = (held_by(n) for n in numbers[:2])
        return together <= a | b and bool(a - b) and bool(b - a)

    valid_cited = [n for n in cited if 1 <= n <= len(sources)]
    singles = [n for n in range(1, len(sources) + 1) if holds([n])]
    if singles:
        best = max(coverage([n], terms) for n in singles)
        good = [n for n in valid_cited if n in singles and coverage([n], terms) >= best]
        chosen = good or [min(singles, key=lambda n: (-coverage([n], terms), n))]
        return SentenceCheck(text, cited, chosen, round(coverage(chosen, new), 4))
    ranked = sorted(range(1, len(sources) + 1), key=lambda n: (-coverage([n], new), n))
    for pair in (valid_cited, ranked[:2]):
        if len(pair) > 1 and holds(pair):
            return SentenceCheck(text, cited, sorted(pair), round(coverage(pair, new), 4))
    best_coverage = coverage(ranked[:1], new) if ranked else 0.0
    return SentenceCheck(text, cited, [], round(best_coverage, 4))


def ground(
    reply: str,
    question: str,
    sources: Sequence[str],
    headers: Sequence[str] = (),
    unsupported: str = "drop",
) -> Grounding:
    """`reply` checked against the numbered `sources` (their texts, in prompt order, and
    their `headers`, which also recognise a pasted source block): see the module
    docstring."""
    if unsupported not in UNSUPPORTED_CHOICES:
        raise ValueError(
            f"unknown handling of unsupported sentences {unsupported!r}; "
            f"choose one of {', '.join(UNSUPPORTED_CHOICES)}"
        )
    body, pasted = _strip_pasted(reply, headers)
    sentences = split_sentences(body)
    if not sentences:
        return Grounding("pasted_source" if pasted else "empty", "", pasted=pasted)
    checks = [check_sentence(s, question, sources, headers) for s in sentences]
    if not any(c.content for c in checks):
        kind = "citation_only" if any(c.cited for c in checks) else "empty"
        return Grounding(kind, "", checks, sentences, pasted=pasted)
    if all(c.decline for c in checks if c.content):
        return Grounding("decline", OUT_OF_SCOPE, checks, [], pasted=pasted)
    kept: list[str] = []
    dropped: list[str] = []
    repaired = 0
    quote_dropped = False
    for i, (sentence, check) in enumerate(zip(sentences, checks, strict=True)):
        if quote_dropped:
            # The rest of a quotation whose framing sentence was dropped.
            checks[i] = check = SentenceCheck(check.text, check.cited, [], check.coverage)
            quote_dropped = not opens_quote(sentence)
        elif not check.supported_by and opens_quote(sentence):
            quote_dropped = True
        if not check.content:
            continue
        # A list item stays one, on its own line (a list read as one paragraph is hard to
        # follow: a real model's five use cases, issue 35).
        lead = "\n- " if _BULLET.match(sentence) else " "
        if check.supported_by:
            if sorted(check.cited) != sorted(check.supported_by):
                repaired += 1
            kept.append(lead + cite(check.text, check.supported_by))
        elif unsupported == "mark" and not check.decline:
            kept.append(f"{lead}{check.text} {UNSUPPORTED_MARK}")
            dropped.append(sentence)
        else:
            dropped.append(sentence)
    if not any(c.supported_by for c in checks):
        return Grounding("unsupported", "", checks, dropped, pasted=pasted)
    return Grounding("answer", "".join(kept).strip(), checks, dropped, repaired, pasted)


def cite(text: str, numbers: Sequence[int]) -> str:
    """`text` with `[n]` citations before its closing punctuation (a list intro's colon
    too)."""
    marks = "".join(f"[{n}]" for n in numbers)
    stem = text.rstrip()
    end = stem[-1] if stem and stem[-1] in ".!?:" else ""
    stem = stem[: len(stem) - len(end)].rstrip()
    return f"{stem} {marks}{end}"
