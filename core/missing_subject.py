"""What a question asks about that the wiki lacks: a name it never mentions ("Chromebook",
"vSphere"), or a numbered thing the evidence has only under other numbers ("Windows 11"
where the pages speak of Windows 7 and 10).

A question that names something — a product, a place, a tool — asks about that thing; when
the wiki has no word for it in any form, no span of the wiki answers it, however many of
the question's other words a span holds ("How do I install OpenXT on a Chromebook?" finds
"installing" and "OpenXT" on the installation page). Such a question is declined whatever
its support (`core.extractive.ExtractiveLLM.lacks_topic`), where a plain word the wiki lacks
("parental") only lowers the support needed to decline, since a plain word is often said
otherwise on the page.

A name is told by its form, the same in English and German questions: a word with a capital
inside it ("VirtualBox", "vSphere", "iOS"), or, in an English question, a capitalized word
that does not open a sentence ("Chromebook", "Tokyo"); a German question capitalizes every
noun, so there only the first kind counts, and a word glued from two English words that is
a word of neither language ("Chromebook", "Salesforce", `english_compound`). Reading
German names so, on ConfQuestions (dev, `confbot eval --answers --folds 5`): German decline
recall on the out-of-scope set +1 topic (the Chromebook question), no answerable question
(EN or DE, raw or completed) has such a word. Each part of a hyphenated word is read on its
own ("GitHub-Actions-Workflow"). A name one edit away from a wiki word is a typo of it
("Measuremnt"), not another thing (`core.spelling.edits1`).

An acronym ("SLA", "DSGVO") names a thing as well, in either language: when the wiki never
uses it and the evidences retrieved for the question do not spell it out ("Service Level
Agreement"), the wiki has no word for it (`absent_acronyms`).

A numbered thing ("OpenXT 12", "week 7", "Stable-9") names one of a series: when the
evidences retrieved for the question number that word only otherwise ("OpenXT 6", "OpenXT
9.0"), the one asked about is not in them (`other_numbers`), and an answer from them would
be about another member of the series; a German word is also read as the glossary's
English words ("Woche 7" → week 7). A word the evidences never number says nothing, and
dates are left to the date matching of retrieval ("July 23" is also "23 July").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from core.entities import month_number
from core.followup import is_following_up
from core.glossary import glossary_words
from core.questions import CONTEXT, QUESTION_WORDS, STOPWORDS, is_followup, question_language
from core.spelling import edits1, language_word

# A word of a question with its hyphen-joined parts, and what may stand around it.
_WORD = re.compile(r"[^\W_][\w'’-]*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+)$")
_LETTERS = re.compile(r"^[^\W\d_]+$")


def unknown_names(question: str, known: Collection[str]) -> list[str]:
    """The names of `question` (lower-cased, in order) that the wiki's vocabulary `known`
    (lower-cased words) has in no simple inflection and not one edit away, in its own words
    (`own_words`)."""
    asked = own_words(question)
    english = question_language(asked) == "en"
    in_names = set() if english else english_name_words(asked)
    out: list[str] = []
    for match in _WORD.finditer(asked):
        opens = bool(_SENTENCE_START.search(asked[: match.start()]))
        for part in match.group().strip("'’-").split("-"):
            part = part.removesuffix("'s").removesuffix("’s")  # Apple's → Apple
            if not _is_name(part, (english and not opens) or part in in_names) and (
                english or opens or not english_compound(part)
            ):
                continue
            word = part.lower()
            if len(word) < 3 or word in STOPWORDS or word in QUESTION_WORDS:
                continue
            if word in out or _known(word, known):
                continue
            # a place German names otherwise ("München" for Munich) is the wiki's name
            if not english and any(_known(w, known) for w in glossary_words(word)):
                continue
            out.append(word)
    return out


# Capitalized words in a row, each a word of its own ("Mount Everest", "Microsoft Office").
_CAPITALIZED_RUN = re.compile(r"(?<![\w'’-])[A-ZÄÖÜ][^\W\d_]+(?:\s+[A-ZÄÖÜ][^\W\d_]+)+(?![\w'’-])")


def english_name_words(asked: str) -> set[str]:
    """The words of a German question that make up an English name: capitalized words in a
    row, none opening a sentence, one of them an English word that is no German one
    ("Mount Everest", "Business Class"), less the German words beside them. German
    capitalizes its nouns, but two of them rarely stand side by side, and an English word
    among them marks the run as a name taken over as it is, whose words are read as those
    of an English name (`unknown_names`): "Wie hoch ist der Mount Everest?" asks about
    Everest as its English twin does, not about a German word the index translates to
    "ever". None of the 210 answerable German questions of ConfQuestions (dev) names a
    word the wiki lacks so."""
    out: set[str] = set()
    for match in _CAPITALIZED_RUN.finditer(asked):
        if _SENTENCE_START.search(asked[: match.start()]):
            continue
        words = match.group().split()
        # an English word written as one (not an acronym: "HID Deskriptoren")
        if any(word[1:].islower() and _english_only(word.lower()) for word in words):
            # a German noun beside the name is not part of it ("sechs Stunden Business Class")
            out.update(word for word in words if not _german_only(word.lower()))
    return out


def _english_only(word: str) -> bool:
    """Whether a lower-case word is English and no German word (nor in the glossary)."""
    return language_word(word, "en") and not language_word(word, "de") and not glossary_words(word)


def _german_only(word: str) -> bool:
    """Whether a lower-case word is German (or in the glossary) and no English word."""
    return (language_word(word, "de") or bool(glossary_words(word))) and not language_word(
        word, "en"
    )


def english_compound(word: str) -> bool:
    """Whether a word is two English words written as one, each of `SHORTEST_PART` letters
    or more, and a word of neither language itself ("Chromebook", "Salesforce"; not
    "Netzwerk", "Homepage"): in a German question, where every noun is capitalized, such a
    word is a product's name as a capitalized word inside an English question is, and it
    is one the wiki lacks when it has no form of it (`unknown_names`)."""
    lower = word.lower()
    if not _LETTERS.match(word) or language_word(lower, "de") or language_word(lower, "en"):
        return False
    return any(
        language_word(lower[:cut], "en")
        and language_word(lower[cut:], "en")
        and not language_word(lower[:cut], "de")
        and not language_word(lower[cut:], "de")
        for cut in range(SHORTEST_PART, len(lower) - SHORTEST_PART + 1)
    )


SHORTEST_PART = 4
"""Letters of the shortest part `english_compound` reads ("book"; shorter words glue onto
anything by chance)."""


def own_words(question: str) -> str:
    """A question without what a follow-up carries from the turns before it: the offline
    completion's "(context: ...)" and the earlier question a follow-up is shown with ("...
    — following up on “...”", `core.followup.following_up`)."""
    asked = CONTEXT.sub(" ", question)
    return asked.split(" — ", 1)[0] if is_following_up(asked) else asked


def _is_name(part: str, capital_names: bool) -> bool:
    """Whether one word (no hyphen) is written as a name: letters only, with a capital after
    its first letter, or (`capital_names`) a capital first letter and more lower-case ones."""
    if not _LETTERS.match(part) or len(part) < 3:
        return False
    if any(c.isupper() for c in part[1:]) and any(c.islower() for c in part):
        return True
    return capital_names and part[0].isupper() and part[1:].islower()


def _known(word: str, known: Collection[str]) -> bool:
    """Whether the wiki has the word in a simple inflection or one edit away (a typo)."""
    if word.endswith("s") and len(word) < 4:
        return True  # the plural of a two-letter word ("RCs"): the vocabulary has none
    forms = {word, f"{word}s", f"{word}es"}
    for ending in ("s", "es"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            forms.add(word[: -len(ending)])
    if any(form in known for form in forms):
        return True
    return len(word) >= 5 and any(edit in known for edit in edits1(word))


# A numbered thing: a word and the whole number after it ("OpenXT 12", "week-3", "rc2"), with
# a version's tail ("9.0.2"); longer numbers (years, models) are not series members.
_NUMBERED = re.compile(r"\b([^\W\d_]{2,})[\s-]?(\d{1,3})((?:\.\d+)*)\b", re.UNICODE)


def numbered(text: str, versions: bool = True) -> dict[str, set[str]]:
    """Each numbered word of a text (lower-cased; not a stop word or a month) → the numbers
    it is given there, a version by its leading number ("9.0.2" → 9), or, without
    `versions`, left out."""
    out: dict[str, set[str]] = {}
    for word, number, tail in _NUMBERED.findall(text):
        word = word.lower()
        if word in STOPWORDS or word in QUESTION_WORDS or month_number(word):
            continue
        if tail and not versions:
            continue
        out.setdefault(word, set()).add(str(int(number)))
    return out


def other_numbers(question: str, texts: Iterable[str]) -> list[str]:
    """The numbered things of `question` ("openxt 12") whose word the `texts` number, but
    never with the asked number: the texts speak of other members of the series. A German
    word is read as the glossary's English words too ("Woche 7" → week 7). An asked version
    counts by its leading number ("Ubuntu 24.04" is not among Ubuntu 18.04 and 16.10; "9.0"
    is 9.0.2's), except in an offline-completed follow-up: versions are carried between
    turns there (a follow-up "and Fedora?" completed with the Ubuntu version before it).
    Judging asked versions so, on ConfQuestions (dev, `confbot eval --answers`, configured
    thresholds): English decline recall 0.897 -> 0.912, no answerable question declined."""
    own = own_words(question)
    asked = numbered(own, versions=own == question and not is_followup(question))
    if not asked:
        return []
    german = question_language(own) != "en"
    names = {word: {word, *(glossary_words(word) if german else ())} for word in asked}
    found: dict[str, set[str]] = {}
    for text in texts:
        for word, numbers in numbered(text).items():
            found.setdefault(word, set()).update(numbers)
    out = []
    for word, numbers in asked.items():
        given = set().union(*(found.get(name, set()) for name in names[word]))
        if given:
            out += [f"{word} {number}" for number in sorted(numbers - given)]
    return out


# A year that names a thing: right after the thing's word ("the OpenXT Summit 2025", "die
# Wahl 2020"), not a date's ("in March 2020") or a period's ("before 2016", "seit 2019").
_NAMED_YEAR = re.compile(r"\b([^\W\d_]{2,})[\s-]((?:19|20)\d\d)(?![\d.])", re.UNICODE)
# Words before a year that make it a period, not a name (English and German).
_PERIOD_WORDS = frozenset(
    "year years since until till during early late mid end start beginning summer winter "
    "spring autumn fall quarter half jahr jahre jahres seit bis ab ende anfang mitte beginn "
    "sommer winter frühjahr frühling herbst quartal hälfte".split()
)


def absent_years(question: str, texts: Iterable[str]) -> list[str]:
    """The things a question names by a year (in its own words, `own_words`: "summit 2025")
    whose year none of the `texts` (the evidences retrieved for it, with their headers)
    mentions: they speak of other editions ("the Summit 2016"), so an answer from them
    would be about another event, release or period. A year after a month, a stop word, a
    question word or a word for a period is a date or a period, left to the date matching
    of retrieval (dates are written many ways: "20/Feb/20"). Measured on ConfQuestions
    (dev, `confbot eval --answers --folds 5`): none of the 420 answerable questions has
    one, the out-of-scope "OpenXT Summit 2025" (EN and DE) has."""
    named = _NAMED_YEAR.findall(own_words(question))
    if not named:
        return []
    said = "\n".join(texts)
    out = []
    for word, year in named:
        word = word.lower()
        if word in STOPWORDS or word in QUESTION_WORDS or word in _PERIOD_WORDS:
            continue  # a period ("before 2016", "im Jahr 2031")
        if month_number(word):
            continue  # a date ("in March 2020")
        if year not in said and f"{word} {year}" not in out:
            out.append(f"{word} {year}")
    return out


# An acronym: three to five capitals, alone or as a part of a hyphenated word ("SLA",
# "Premium-Support-SLA", "DSGVO-Löschfrist"), a plural s allowed ("SLAs"). Two capitals are
# too often a unit or an everyday short form ("VM", "OS", "HP") to name a missing thing.
_ACRONYM = re.compile(r"(?<![\w])([A-ZÄÖÜ]{3,5})s?(?![\w])")


def absent_acronyms(question: str, known: Collection[str], texts: Iterable[str]) -> list[str]:
    """The acronyms of a question in its own words (`own_words`; "SLA", "GDPR", "DSGVO",
    lower-cased) that the wiki's vocabulary `known` never uses (`_known`) and the `texts`
    (the evidences retrieved for it) never spell out ("service level agreement"): the wiki
    has no word for the thing asked about, in English and German questions alike. A
    shouted word is no acronym: stop words and question words are left out, and longer
    words ("NUTZBARE") do not match. Measured on ConfQuestions (dev): none of the 420
    answerable questions (EN and DE) has one, 5 of the 136 out-of-scope ones do ("SLA" and
    "GDPR" in English; "SLA", "DSGVO" and "WLAN" in German)."""
    asked = [
        word.lower()
        for word in _ACRONYM.findall(own_words(question))
        if word.lower() not in STOPWORDS and word.lower() not in QUESTION_WORDS
    ]
    asked = [word for word in dict.fromkeys(asked) if not _known(word, known)]
    if not asked:
        return []
    spelt = [_initials(text) for text in texts]
    return [word for word in asked if not any(word in initials for initials in spelt)]


def _initials(text: str) -> str:
    """The first letters of a text's words, stop words left out ("General Data Protection
    Regulation" → "gdpr"), lower-cased."""
    words = (w.lower() for w in re.findall(r"[^\W\d_]+", text))
    return "".join(word[0] for word in words if word not in STOPWORDS)
