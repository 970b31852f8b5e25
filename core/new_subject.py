"""A question that names its own subject: words the current topic's pages never say.

"Wie viele Urlaubstage gibt es in Deutschland?" after two questions about the on-call
rotation says what it asks (it is no ellipsis and points back at nothing), its subject,
leave days, is nowhere on the rotation page, and it names the page it finds alone ("Annual
leave" on Offices and Public Holidays): it starts a new topic, though it shares no word
with that page's English title (`core.rephrase.OfflineCompleter` compares the title's words
too). A question whose new words the topic's pages do say ("What was the issue number for
switcher keys?" over a test matrix that lists them) stays on the topic.

A word is said by a text when the text holds its stem, or a stem that starts with it or
with which it starts (`PREFIX_MATCH` letters at least: "attended" / "Attendees"), or, for
a German word, one of the English words the glossary gives for it (`core.glossary`). A
German word is a new subject when the found page says one of its English words that the
topic does not: "Urlaubstage" (leave days) after a travel-policy thread whose meal
allowance is "per day" names leave, which only the found page says.

A question that opens by announcing an aside ("By the way, ...", "Übrigens, ...") names a
new subject by its asker's word (`aside`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.followup import content_words, needs_topic, references, words_of
from core.glossary import glossary_words
from core.lexical import tokenize
from core.questions import QUESTION_WORDS

# The shortest stem that is taken for a longer one it starts ("attend" / "attende").
PREFIX_MATCH = 5


def _forms(word: str, german: bool) -> set[str]:
    """The stems that say `word`: its own, and for a German word its glossary words'."""
    words = [word, *(glossary_words(word) if german else [])]
    return {stem for w in words for stem in tokenize(w)}


def _said(forms: set[str], stems: set[str]) -> bool:
    if forms & stems:
        return True
    for form in forms:
        for stem in stems:
            short, long = sorted((form, stem), key=len)
            if len(short) >= PREFIX_MATCH and long.startswith(short):
                return True
    return False


def codes(words: Iterable[str]) -> list[str]:
    """The words (or parts of hyphenated words) written as codes: in capitals ("AIS",
    "USB-Gerät" → USB) or with letters and digits ("rc1", "OXT-1583"). A code names one
    thing; a common word ("team") may be any page's."""
    out = []
    for word in words:
        for part in word.split("-"):
            letters = [c for c in part if c.isalpha()]
            digits = any(c.isdigit() for c in part)
            if len(part) >= 2 and letters and (all(c.isupper() for c in letters) or digits):
                out.append(part)
    return out


def unseen_subject(
    question: str, language: str, topic_texts: Iterable[str], found_text: str
) -> list[str]:
    """The words of `question` that no text of the current topic says (its questions,
    answers and pages, `topic_texts`) and `found_text` does (the title and heading of what
    it finds alone); a word neither says (a typo, a verb of asking: "get") is none. []
    when there are none, or when the question names a code (`codes`) that the topic says
    or that `found_text` does not: the question may then follow the topic."""
    topic_stems = {stem for text in topic_texts for stem in tokenize(text)}
    found_stems = set(tokenize(found_text))
    german = language == "de"
    words = content_words(question)
    for code in codes(words):
        stems = set(tokenize(code))
        if _said(stems, topic_stems) or not _said(stems, found_stems):
            # it asks about a thing the topic names, or one the found page's title does
            # not name either: "How many were from the AIS team?" after the attendees of
            # a call is no question about a page headed "team"
            return []
    unseen: list[str] = []
    named = _after_said_names(question, topic_stems, german)
    for word in words:
        if word.isdigit() or word.lower() in QUESTION_WORDS or word in named:
            continue
        forms = _forms(word, german)
        if _said(set(tokenize(word)), topic_stems):
            continue
        # each form on its own: a German compound's glossary words name its parts, and the
        # topic saying one of them ("day" of "Meals per day" for Urlaubstage, leave days)
        # does not say the word when the found page says another ("leave") the topic lacks
        if any(_said({f}, found_stems) and not _said({f}, topic_stems) for f in forms):
            unseen.append(word)
    return unseen


# Words of asking for an amount ("how many", "wie viele"), no word of the subject.
_AMOUNT = frozenset("many much viele viel".split())


def says_all(question: str, language: str, text: str) -> bool:
    """Whether `text` says every word of `question`'s own (at least one), a German word by
    its glossary words too: the question asks about what `text` is about."""
    stems = set(tokenize(text))
    words = [w for w in content_words(question) if not w.isdigit() and w.lower() not in _AMOUNT]
    german = language == "de"
    return bool(words) and all(_said(_forms(w, german), stems) for w in words)


def _after_said_names(question: str, topic_stems: set[str], german: bool) -> set[str]:
    """The lower-case words right after a name the topic says ("team" in "How many were
    from the AIS team?" after an attendee list of AIS people): the kind of thing the name
    is, so the name, not the word, is the question's subject (the word alone named a
    heading elsewhere, "GitHub Teams", and took the question off its topic)."""
    words = words_of(question)
    out = set()
    for position in range(1, len(words) - 1):
        name, word = words[position], words[position + 1]
        if name[:1].isupper() and word[:1].islower() and _said(_forms(name, german), topic_stems):
            out.add(word)
    return out


# Openings that announce a question aside from the conversation's thread ("By the way, what
# is TBOOT?", "Übrigens, ...", "Apropos: ..."), EN and DE; "also" is left out: it adds to
# the thread as often ("Also, who approved it?"), and in German it means "so".
_ASIDE = re.compile(
    r"^\W*(?:by the way|btw|on another note|on a different note|unrelated(?: question)?"
    r"|(?:a |one )?(?:different|another|other) (?:question|topic)|changing the (?:subject|topic)"
    r"|übrigens|nebenbei(?: bemerkt| gefragt)?|apropos|(?:eine )?andere frage"
    r"|(?:ein )?anderes thema|themenwechsel)\b\W*",
    re.IGNORECASE,
)


def aside(question: str) -> str:
    """The question without its opening that announces an aside ("By the way, what is
    TBOOT?" → "what is TBOOT?"), when it has one and says what it asks (nothing pointed
    back at, no ellipsis); "" otherwise. An aside starts a new topic: its asker says it
    leaves the thread, whose pages, carried along, would pull it back (replayed dev
    conversations: "By the way, what is TBOOT?" after seven questions on a TBOOT test
    page found the test page, and the questions after it followed the test page too)."""
    found = _ASIDE.match(question)
    if not found:
        return ""
    rest = question[found.end() :].strip()
    if not rest or needs_topic(rest) or references(rest):
        return ""
    return rest[:1].upper() + rest[1:]
