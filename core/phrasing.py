"""The answer's headline as a sentence: the question turned into a statement that names its
subject ("Who is the secondary on-call for the Payments team in week 2?" + "Sophie Brandt" →
"The secondary on-call for the Payments team in week 2 is Sophie Brandt."), and Yes/No with
the clause that decides it, in the question's language (English or German).

A statement is made only from the question's own words, by the copular patterns every
reader can check ("Who/What/How much is X?" → "X is A."; "Wer/Was ist X?" → "X ist A."),
and only when X is a noun phrase (it opens with a determiner or a possessive), so the
sentence is grammatical without a parser; any other question gets a table value said as a
sentence about its row and column (`core.cell_sentences`), or the sentence the value came
from. Pure functions of strings.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.cell_sentences import cells_sentence, lowered
from core.cell_sentences import row_cells as merged_cells
from core.questions import STOPWORDS, QuestionProfile, profile_question, terms
from core.spans import cell_verdict

# "Who is the X?", "What are our X?", "How much is the X?", "When was the X?": the verb and X.
_STATEMENT_EN = re.compile(
    r"^\W*(?:who|what|how (?:much|many|long|often|big|large|high)|when|where)\s+"
    r"(?P<verb>is|are|was|were)\s+"
    r"(?P<subject>(?:the|a|an|our|my|your|their|its|this|that|these|those)\s+[^?]{2,}?)"
    r"\s*\?*\s*$",
    re.IGNORECASE,
)
_STATEMENT_DE = re.compile(
    r"^\W*(?:wer|was|wie (?:viel|viele|lange|oft|hoch|groß)|wann|wo)\s+"
    r"(?P<verb>ist|sind|war|waren)\s+"
    r"(?P<subject>(?:der|die|das|den|dem|des|ein|eine|einer|unser|unsere|mein|meine|dein"
    r"|deine|ihr|ihre)\s+[^?]{2,}?)\s*\?*\s*$",
    re.IGNORECASE,
)
# A subject that still holds a verb or a clause reads wrong as a sentence subject.
_CLAUSE_WORDS = re.compile(
    r"\b(?:do|does|did|can|could|should|would|will|if|when|that|which|who|used|called"
    r"|wenn|dass|welche[rsmn]?|wird|werden|kann|können)\b",
    re.IGNORECASE,
)
_WHERE = re.compile(r"^\W*(?:where|wo)\b", re.IGNORECASE)
_WHEN = re.compile(r"^\W*(?:when|wann)\b", re.IGNORECASE)
_ON_DATE = re.compile(
    r"^\d|^(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep"
    r"|oct|nov|dec)",
    re.IGNORECASE,
)

YES = {"en": "Yes", "de": "Ja"}
NO = {"en": "No", "de": "Nein"}


def statement(question: str, value: str, language: str, column: str = "") -> str:
    """The question as a statement with `value` as its answer ("The X is value."; a count
    said with what it counts, `counted_statement`), or "" when the question is neither a
    copular question about a noun phrase (see the module docstring) nor a count of that
    kind."""
    pattern = _STATEMENT_DE if language == "de" else _STATEMENT_EN
    match = pattern.match(_uncontracted(question.strip()))
    if not match:
        return counted_statement(question, value, language, column)
    subject = " ".join(match.group("subject").split())
    if _CLAUSE_WORDS.search(subject) or len(subject.split()) > 16:
        return ""
    verb = match.group("verb").lower()
    if language != "de" and _WHERE.match(question):
        # "Where is the Payments team based?": the participle goes with the verb ("is
        # based in Bristol"), not with the subject ("The Payments team based is at ...")
        words = subject.split()
        participle = words[-1] if len(words) > 1 and words[-1].lower().endswith("ed") else ""
        if participle:
            subject, verb = " ".join(words[:-1]), f"{verb} {participle}"
        preposition = "in" if participle else "at"
        value = (
            value if value.lower().startswith(("in ", "at ", "on ")) else f"{preposition} {value}"
        )
    elif language != "de" and _WHEN.match(question) and _ON_DATE.match(value):
        value = f"on {value}"
    return f"{subject[0].upper()}{subject[1:]} {verb} {value.rstrip('.')}."


# "What's the X?": "What is the X?" (the contracted copula, straight or curly apostrophe).
_CONTRACTED = re.compile(r"^(\W*(?:who|what|when|where|how much))['’]s\b", re.IGNORECASE)


def _uncontracted(question: str) -> str:
    return _CONTRACTED.sub(r"\1 is", question)


# "How many X does the Y allow?" / "Wie viele X erlaubt der Y?": the counted noun, the
# verb and its noun-phrase subject; "How many X are in the Y?" / "Wie viele X sind im Y?":
# the counted noun and the place.
_DETERMINERS_EN = r"(?:the|a|an|our|my|your|their|its|this|that|these|those)"
_DETERMINERS_DE = r"(?:der|die|das|ein|eine|unser|unsere|mein|meine|dein|deine|ihr|ihre)"
_COUNT_DOES_EN = re.compile(
    r"^\W*how many\s+(?P<noun>[^?]+?)\s+(?:does|do)\s+"
    rf"(?P<subject>{_DETERMINERS_EN}\s+[^?]+?)\s+(?P<verb>[a-z]+)"
    r"(?P<rest>\s+(?:in|on|at|for|per|of|from|to|during|within|by|with)\s+[^?]+?)?\s*\?*\s*$",
    re.IGNORECASE,
)
_COUNT_IN_EN = re.compile(
    r"^\W*how many\s+(?P<noun>[^?]+?)\s+(?P<verb>are|were)\s+(?:there\s+)?"
    r"(?P<place>(?:in|on|at)\s+[^?]+?)\s*\?*\s*$",
    re.IGNORECASE,
)
_COUNT_DOES_DE = re.compile(
    r"^\W*wie viele\s+(?P<noun>[^?]+?)\s+(?P<verb>[a-zäöü][a-zäöüß]*t)\s+"
    rf"(?P<subject>{_DETERMINERS_DE}\s+[^?]+?)\s*\?*\s*$",
    re.IGNORECASE,
)
_COUNT_IN_DE = re.compile(
    r"^\W*wie viele\s+(?P<noun>[^?]+?)\s+(?P<verb>sind|waren|gibt es|gab es)\s+"
    r"(?P<place>(?:im|in|am|an|auf|bei|beim)\s+[^?]+?)\s*\?*\s*$",
    re.IGNORECASE,
)
# A count the page gives as a bare number ("120", "50,000"), then its citations.
_BARE_COUNT = re.compile(r"^(?P<count>\d[\d,.']*)(?P<cited>(?:\s*\[\d+\])*)$")


def counted_statement(question: str, value: str, language: str, column: str = "") -> str:
    """A count question as a statement with the count said with what it counts: "How many
    requests per minute does the Starter plan allow?" + "120" → "The Starter plan allows
    120 requests per minute."; "How many people are in the SRE team?" → "There are 5
    people in the SRE team."; "Wie viele Anfragen pro Minute erlaubt der Starter-Plan?" →
    "Der Starter-Plan erlaubt 120 Anfragen pro Minute."; "Wie viele Personen sind im
    SRE-Team?" → "Im SRE-Team sind 5 Personen.". "" unless `value` is a bare number (a
    value with its own unit would say the unit twice) and the question has one of these
    shapes with a noun-phrase subject and no clause in it, or when the value's table
    `column` is not what the question counts (`counts_column`)."""
    count = _BARE_COUNT.match(value.strip())
    if not count or (column and not counts_column(question, column, language)):
        return ""
    number, cited = count.group("count"), count.group("cited")
    question = " ".join(question.split())
    if language == "de":
        match = _COUNT_DOES_DE.match(question)
        if match and _plain_phrase(match.group("subject"), match.group("noun")):
            subject = match.group("subject")
            said = f"{subject[:1].upper()}{subject[1:]} {match.group('verb')} {number}"
            return f"{said} {match.group('noun')}{cited}."
        match = _COUNT_IN_DE.match(question)
        if match and _plain_phrase(match.group("place"), match.group("noun")):
            place = match.group("place")
            said = f"{place[:1].upper()}{place[1:]} {match.group('verb')} {number}"
            return f"{said} {match.group('noun')}{cited}."
        return ""
    match = _COUNT_DOES_EN.match(question)
    if (
        match
        and _plural(match.group("noun"))
        and _plain_phrase(match.group("subject"), match.group("noun"), match.group("rest"))
    ):
        subject = match.group("subject")
        verb = _third_person(match.group("verb").lower())
        rest = match.group("rest") or ""
        said = f"{subject[:1].upper()}{subject[1:]} {verb} {number} {match.group('noun')}"
        return f"{said}{rest}{cited}."
    match = _COUNT_IN_EN.match(question)
    if (
        match
        and _plural(match.group("noun"))
        and _plain_phrase(match.group("place"), match.group("noun"))
    ):
        there = "There are" if match.group("verb").lower() == "are" else "There were"
        said = f"{there} {number} {match.group('noun')} {match.group('place')}"
        return f"{said}{cited}."
    return ""


_IRREGULAR_PLURALS = frozenset({"people", "children", "men", "women", "staff"})


def _plural(noun: str) -> bool:
    """Whether an English counted noun phrase opens with a plural ("requests per minute",
    "people"): a singular one ("How many burst ...", a follow-up's carried column) would
    read "allows 500 burst"."""
    head = noun.split()[0].lower()
    return head in _IRREGULAR_PLURALS or (head.endswith("s") and not head.endswith("ss"))


def counts_column(question: str, column: str, language: str) -> bool:
    """Whether a table column is what a count question counts, so the count may be said
    with the question's noun: every term of the column is asked ("Requests per minute" for
    "How many requests per minute ...", not for "... requests per day ..."); in German,
    whose words the column's English terms would need a translation to meet, at least one
    is ("Minute" for "Wie viele Anfragen pro Minute ...")."""
    said = frozenset(terms(column))
    asked = profile_question(question).asked_in(said)
    return bool(asked) and (language == "de" or asked >= said)


def _plain_phrase(*phrases: str | None) -> bool:
    """Whether the parts of a count question read as phrases in a statement: no clause
    word in them (`_CLAUSE_WORDS`) and not longer than a sentence's subject."""
    words = " ".join(p for p in phrases if p)
    return not _CLAUSE_WORDS.search(words) and len(words.split()) <= 16


def _third_person(verb: str) -> str:
    """An English verb in the third person singular: "allow" → "allows", "have" → "has",
    "reach" → "reaches", "carry" → "carries"."""
    if verb == "have":
        return "has"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return f"{verb}es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return f"{verb[:-1]}ies"
    return f"{verb}s"


# An either/or question: a comparative with "or" ("Were more A tested or B?"), or
# alternatives set off at its end ("..., or B?", "... - A or B?").
_EITHER_OR = re.compile(
    r"\b(?:more|most|fewer|less|mehr|meisten|weniger)\b.*\s(?:or|oder)\s"
    r"|,\s+(?:or|oder)\s+[^,?]+\?*\s*$"
    r"|\s[-–]\s+[^,?]+\s(?:or|oder)\s+[^,?]+\?*\s*$",
    re.IGNORECASE,
)


def either_or(question: str) -> bool:
    """Whether a question asks which of two alternatives holds ("Were more Latitudes
    compared or EliteDesks?", "Is overtime paid out - in money or time off?"): Yes or No
    does not answer it."""
    return bool(_EITHER_OR.search(question))


def verdict(yes: bool, clause: str, language: str) -> str:
    """Yes or No in the question's language, followed by the clause that decides it."""
    word = (YES if yes else NO).get(language, YES["en"] if yes else NO["en"])
    clause = clause.strip()
    return f"{word}: {clause}" if clause else f"{word}."


def unverdicted(said: str) -> str:
    """A sentence said after Yes or No (`verdict`) without them, capitalized: "Yes: for
    Dell E7450, INST is Y." → "For Dell E7450, INST is Y."; any other text unchanged."""
    for word in (*YES.values(), *NO.values()):
        if said.startswith(f"{word}: "):
            rest = said[len(word) + 2 :]
            return rest[:1].upper() + rest[1:]
    return said


# A table row shown as its cells ("Vendor: Dell; Model: E7450; GEN: BDW; ..."): the cells
# that name the row, and how many asked cells a summary keeps, each cut to some words (set
# by design: one line in Slack).
NAMING_CELLS = 2
NAMING_WORDS = 6
SHOWN_CELLS = 4
CELL_WORDS = 12
# A value that can be part of a row's name: a capitalized word or a number ("E7450").
_NAME_LIKE = re.compile(r"\b(?:[A-ZÄÖÜ]\w*|\w*\d\w*)")
_CELL = re.compile(r"^(?P<name>[^:;]{1,40}?):\s+(?P<value>\S.*)$")


def row_cells(row: str) -> list[tuple[str, str]]:
    """The (column, value) cells of a row shown as "Column: value; Column: value", or []
    when a part is not a cell."""
    cells = []
    for part in row.split("; "):
        match = _CELL.match(part.strip())
        if not match:
            return []
        cells.append((match.group("name").strip(), match.group("value").strip(" …")))
    return cells


def row_summary(
    cells: list[tuple[str, str]],
    asked: Callable[[str], bool],
    decides: Callable[[str], bool],
    language: str,
    yes: bool | None = None,
) -> str:
    """A row said in one line instead of all its cells: the leading short cells that name
    it ("Dell E7450"), then the cells the question asks about (`asked` of the column or the
    value) and, for a yes/no answer, the cells that decide it (`decides`: pass/fail, Y/N),
    at most `SHOWN_CELLS`, said as a sentence (`core.cell_sentences.cells_sentence`): "For
    HP EliteBook 850 G3, Notes is OXT-704. Sleep issue ..."; for yes/no "Yes: for Dell
    E7450, INST is Y and ML is Y.". "" when no cell names the row."""
    naming: list[tuple[str, str]] = []
    for name, value in cells[:NAMING_CELLS]:
        if len(value.split()) > NAMING_WORDS or decides(value):
            break
        if naming and not _NAME_LIKE.search(value):
            break  # "w/", "yes", "L": a flag, not part of a name
        naming.append((name, value))
    if not naming:
        return ""
    rest = [cell for cell in cells if cell not in naming]
    shown = [c for c in rest if asked(c[0]) or asked(c[1])]
    if yes is not None:
        shown += [c for c in rest if decides(c[1]) and c not in shown]
    shown = [(column, _clip(value)) for column, value in shown[:SHOWN_CELLS]]
    name = " ".join(value for _, value in naming)
    said = cells_sentence(name, shown, language) if shown else name
    if yes is not None:
        return verdict(yes, lowered(said), language)
    return said


# The fewest words of a cell that answers by itself as a sentence ("Tokens are valid for
# 60 minutes; cache them"), not a value that needs its column to be read.
SENTENCE_CELL_WORDS = 4


def answering_cell(row: str, asked: Callable[[str], set[str]], typed: Callable[[str], bool]) -> str:
    """The one cell of a row dump that answers by itself: a sentence (`_sentence`)
    holding a value of the asked kind (`typed`) and an asked term (`asked`); said with the
    row's first cell as its subject: "Tokens are valid for 60 minutes; cache them
    (POST /v2/auth/token)". "" when no cell or several do."""
    cells = merged_cells(row)
    if len(cells) < 2:
        return ""
    (_, subject), rest = cells[0], cells[1:]
    found = [value for _, value in rest if _sentence(value) and typed(value) and asked(value)]
    if len(found) != 1:
        return ""
    return f"{found[0].rstrip('. ')} ({subject})."


# Where a cell that lists several things splits into them: after an issue key that another
# item follows ("Duplicate VHDs OXT-1576 Issues with switcher keys OXT-1569"), at a
# sentence end, at "; ".
_ITEM_END = re.compile(r"(\b[A-Z][A-Z0-9]{1,9}-\d{1,6}|[.!?;])\s+(?=[A-Z])")


def asked_item(value: str, asked: Callable[[str], set[str]]) -> str:
    """The one item of a cell that lists several things (issues, notes, sentences) which
    holds more of the question's terms (`asked`) than any other item: for "the issue number
    for switcher keys", "Issues with switcher keys OXT-1569" out of a notes cell with three
    issues. The whole cell said as the answer buries it among items the question did not
    ask about. "" when the cell is one item or no item stands out."""
    items = [i.strip(" ;") for i in _ITEM_END.sub("\\1\n", value).split("\n") if i.strip(" ;")]
    if len(items) < 2:
        return ""
    held = sorted(((len(asked(item)), item) for item in items), reverse=True)
    if not held[0][0] or held[0][0] == held[1][0]:
        return ""
    return held[0][1]


def _sentence(value: str) -> bool:
    """Whether a cell reads as a sentence: at least `SENTENCE_CELL_WORDS` words, most in
    lower case (a title such as "OpenXT 7.0 Hardware Testing" is a name, not a sentence)."""
    words = value.split()
    lower = [w for w in words if w[:1].islower()]
    return len(words) >= SENTENCE_CELL_WORDS and 2 * len(lower) > len(words)


def _clip(value: str) -> str:
    words = value.split()
    return value if len(words) <= CELL_WORDS else " ".join(words[:CELL_WORDS]) + " …"


def row_line(profile: QuestionProfile, row: str, language: str, yes: bool | None = None) -> str:
    """`row_summary` of a row shown as its cells, the question's terms (`profile`) saying
    which cells it asks about and pass/fail-like cells deciding a yes/no; "" when the row
    is not cells or no cell names it."""
    cells = row_cells(row)
    if len(cells) < 2:
        return ""

    def asked(text: str) -> bool:
        return bool(profile.asked_in(frozenset(terms(text))))

    def decides(value: str) -> bool:
        return cell_verdict(value) is not None

    return row_summary(cells, asked, decides, language, yes)


# A Jira issue-list macro as the page text holds it (`core.extract`): "Jira issues: <JQL>".
_ISSUE_LIST = re.compile(r"^\W*Jira issues: \S")


_QUERY_WORDS = 8


def issue_list_only(text: str) -> str:
    """For a unit that is a Jira issue-list macro and nothing else, what the wiki can say
    about it (in the question's `language`, see `issue_list_reply`): its query; "" for any
    other unit. The page stores the query, not the issues (Jira lists them when the page is
    viewed), so no answer can be said from it, and the query alone is a fragment no reader
    can use as an answer."""
    match = _ISSUE_LIST.match(text)
    if not match:
        return ""
    query = text[match.end() - 1 :].split(" (columns:")[0].strip()
    words = query.split()
    return " ".join(words[:_QUERY_WORDS]) + (" …" if len(words) > _QUERY_WORDS else "")


def issue_list_reply(query: str, language: str) -> str:
    """The reply when the best evidence is a Jira issue list: the wiki holds only its query,
    not the issues, said as such, so the reader sees that the wiki does not answer and
    where the issues are listed."""
    if language == "de":
        return (
            f"Die Seite zeigt diese Jira-Vorgänge nur als Abfrage ({query}); die Vorgänge"
            " selbst stehen nicht im Wiki-Text."
        )
    return (
        f"The page shows these Jira issues only as a query ({query}); the issues themselves"
        " are not in the wiki's text."
    )


# A count of a list's items as the span scorer gives it: "3: a; b; c" (`core.spans`).
_COUNTED = re.compile(r"^(\d+): (\S.*)$", re.DOTALL)


def counted_list(answer: str, language: str, whole: str = "") -> str:
    """A list's count and items ("4: a; b; c; d", `core.spans.counted_items`) said as a
    sentence: "4 items are listed: a; b; c; d" ("Aufgeführt sind 4 Einträge: ..."); a bare
    "4:" opening the reply reads as a key, not a count. An answer cut short ("4: a; b; c
    …") takes its items from `whole`, the list uncut, when that holds all of them; items
    still cut are named as some of them ("4 items are listed, among them a, b and c"), never
    with a trailing "…". "" for any other answer."""
    match = _COUNTED.match(answer)
    if not match:
        return ""
    count, items = int(match.group(1)), match.group(2)
    if whole and len(whole.split("; ")) == count and len(whole.split()) <= LISTED_WORDS:
        items = whole
    labels = field_labels(items)
    shown = labels or [i.strip() for i in items.split("; ") if i.strip() and "…" not in i]
    some = (labels and len(labels) < count) or (not labels and items.rstrip().endswith("…"))
    if some and shown:
        listed = _listed(shown, language)
        if language == "de":
            return f"Aufgeführt sind {count} Einträge, darunter {listed}"
        return f"{count} items are listed, among them {listed}"
    if labels:  # fields: named by their labels
        items = _listed(labels, language)
    if language == "de":
        said = "Aufgeführt ist 1 Eintrag" if count == 1 else f"Aufgeführt sind {count} Einträge"
    else:
        said = "1 item is listed" if count == 1 else f"{count} items are listed"
    return f"{said}: {items}"


# The most words of an uncut list shown whole after its count (set by design: one Slack line
# or two).
LISTED_WORDS = 40


# An item that is a labelled field: "Targeted release: .neXT", "Last updates:".
_FIELD = re.compile(r"^(?P<label>[^:;]{1,40}?):(?:\s|$)")


def field_labels(items: str) -> list[str]:
    """The labels of a list whose every item is a labelled field ("Targeted release:
    .neXT; Last updates:; Jira Epic: Will be filled in ..."), in order; [] for any other
    list. Counted, such a list is named by its labels: its values run on into a dump."""
    parts = [part.strip(" …") for part in items.split("; ") if part.strip(" …")]
    matches = [_FIELD.match(part) for part in parts]
    if len(parts) < 2 or not all(matches):
        return []
    return [m.group("label").strip() for m in matches if m]


def _listed(items: list[str], language: str) -> str:
    """Items in words: "a, b and c" ("a, b und c")."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {'und' if language == 'de' else 'and'} {items[-1]}"


# A sentence that opens with a lower-case word ("user unplugs a monitor. ..."): a page's
# answer written after a label ("ANSWER: user unplugs ..."), cut from it.
_LOWER_OPENING = re.compile(r"^[a-zäöü][a-zäöüß]+\s")


def opened(reply: str) -> str:
    """A reply that is prose opening with a lower-case word, capitalized ("User unplugs a
    monitor. ..."), so it reads as a sentence, not a fragment; a command, a path or an
    identifier ("git clone ...", "usbback could ... usbback") keeps its case: the reply
    must be prose, most of its words in lower case, none of its first three words a word
    of code (with a digit, a slash, a dot or a dash inside) and its first word not
    repeated as written (a name)."""
    if not _LOWER_OPENING.match(reply):
        return reply
    words = reply.split()
    lower = [w for w in words if w[:1].islower()]
    code = [w for w in words[:3] if re.search(r"\w[\d/._-]|[\d/._-]\w", w.strip(".,;:"))]
    # a word other than "the", "a", ... repeated as written is a name ("usbback ... usbback")
    named = words[0] not in STOPWORDS and words[0] in {w.strip(".,;:()") for w in words[1:]}
    if len(words) < 4 or 2 * len(lower) <= len(words) or code or named:
        return reply
    return reply[:1].upper() + reply[1:]
