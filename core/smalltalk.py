"""Greetings and chit-chat: told apart from questions about the wiki, and answered with a
short help text instead of a search.

A message is chit-chat only when the whole of it is made of known small-talk phrases
("hi", "thanks!", "who are you?", "erzähl mir einen Witz", "hello, how are you?"), in
English or German, give or take a few fillers ("please", "confbot", "bitte"). Anything
else left over makes it a question, so "Hi, who leads the Payments team?" and "Thanks,
and in Berlin?" are searched as usual. This is the rule-based intent matching of
dialogue systems (a closed list of patterns per intent, the rest passed on; Jurafsky and
Martin, "Speech and Language Processing", 3rd ed., ch. 15, frame-based and rule-based
chatbots): a missed greeting costs one useless search, a question taken for chit-chat
would cost an answer, so the list is kept short and exact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.lexical import detect_language

# (kind, language or None when the phrase is the same in both, phrases as regexes over the
# normalized text: lower case, words separated by single spaces, no punctuation).
_PHRASES: tuple[tuple[str, str | None, str], ...] = (
    (
        "help",
        "en",
        r"help(?: me)?|(?:can|could) you help(?: me)?|how (?:can|could|do) you help"
        r"(?: me)?|what can you do|what do you do|what (?:can|should) i ask(?: you)?|"
        r"what do you know|how do you work|how do i use you",
    ),
    (
        "who",
        "en",
        r"who are you|what are you|what(?: is|s) your name|are you (?:a )?(?:bot|"
        r"human|robot|person|real)|introduce yourself",
    ),
    (
        "joke",
        "en",
        r"tell (?:me |us )?(?:a )?(?:joke|funny story)|(?:a )?joke|make me laugh|"
        r"say something funny",
    ),
    (
        "wellbeing",
        "en",
        r"how are (?:you|u)(?: doing| today)?|how(?: i|)s it going|"
        r"what(?: i|)s up|how do you do|you there|are you there",
    ),
    (
        "thanks",
        "en",
        r"thanks?(?: you)?(?: (?:so|very) much| a lot)?|thx|ty|cheers|"
        r"much appreciated|great|cool|nice|awesome|perfect|got it|(?:ok|okay)(?: thanks)?|"
        r"that (?:helps|helped|was helpful)|thats helpful",
    ),
    ("bye", "en", r"(?:good ?)?bye|see (?:you|ya)(?: later)?|have a nice day"),
    (
        "greeting",
        "en",
        r"hello|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening"
        r"|day)|morning",
    ),
    ("greeting", None, r"hi|ping|test"),
    (
        "help",
        "de",
        r"hilfe|hilf mir|(?:kannst du|können sie) mir helfen|wie (?:kannst du|"
        r"können sie) (?:mir )?helfen|was kannst du|was können sie|was kann ich (?:dich|sie) "
        r"fragen|wie funktionierst du|was weißt du",
    ),
    (
        "who",
        "de",
        r"wer bist du|wer sind sie|was bist du|wie heißt du|wie heißen sie|bist du "
        r"(?:ein )?(?:bot|mensch|roboter)",
    ),
    (
        "joke",
        "de",
        r"erzähl(?:e|en sie)? (?:mir |uns )?(?:einen |nen )?witz|(?:einen |nen )?"
        r"witz|bring mich zum lachen",
    ),
    (
        "wellbeing",
        "de",
        r"wie geht(?:s| es)(?: dir| ihnen)?(?: heute)?|alles klar|"
        r"bist du da|was geht",
    ),
    (
        "thanks",
        "de",
        r"danke(?: schön| sehr| dir| ihnen)?|vielen dank|dankeschön|merci|"
        r"super|prima|toll|klasse|alles klar danke|das hilft(?: mir)?|das hat geholfen",
    ),
    ("bye", "de", r"tschüss|tschüs|ciao|bis bald|bis später|auf wiedersehen|schönen tag"),
    ("greeting", "de", r"hallo|moin|servus|guten (?:morgen|tag|abend)|grüß gott|grüezi|hallöchen"),
)
# Words that may stand beside the phrases without making a message a question.
_FILLERS = r"please|bitte|confbot|bot|there|again|lol|haha|all|everyone|zusammen|nochmal"

_PHRASE = re.compile(
    r"\s*(?:" + "|".join(f"(?P<p{i}>{p})" for i, (_, _, p) in enumerate(_PHRASES)) + r")(?:\s|$)"
)
_FILLER = re.compile(r"\s*(?:" + _FILLERS + r")(?:\s|$)")
_MENTION = re.compile(r"<@[A-Z0-9]+>|@\w+|:[a-z0-9_+-]+:")
_NON_WORD = re.compile(r"[^\w\s']|_")
MAX_WORDS = 12
"""Longer messages are questions, whatever their words."""

# Which kind of phrase the help text answers first, when a message holds several.
_PRIORITY = ("help", "who", "joke", "wellbeing", "thanks", "bye", "greeting")

GENERIC_EXAMPLES = {
    "en": "Who is responsible for the release process?",
    "de": "Wer ist für den Release-Prozess zuständig?",
}

_OPENERS = {
    "en": {
        "greeting": "Hi!",
        "thanks": "You're welcome!",
        "bye": "Bye!",
        "wellbeing": "I'm fine, thanks.",
        "joke": "I don't know any jokes, I'm afraid.",
        "who": "I'm confbot, a search assistant for this wiki.",
        "help": "",
    },
    "de": {
        "greeting": "Hallo!",
        "thanks": "Gern geschehen!",
        "bye": "Tschüss!",
        "wellbeing": "Danke, gut.",
        "joke": "Witze kenne ich leider keine.",
        "who": "Ich bin confbot, ein Suchassistent für dieses Wiki.",
        "help": "",
    },
}
_BODY = {
    "en": "I answer questions about the pages of the wiki, with links to the pages the answer"
    " comes from. Ask me, for example: “{example}”",
    "de": "Ich beantworte Fragen zu den Seiten des Wikis und verlinke die Seiten, aus denen die"
    " Antwort stammt. Frag mich zum Beispiel: „{example}“",
}


@dataclass(frozen=True)
class SmallTalk:
    """A chit-chat message: its kind (`help`, `who`, `joke`, `wellbeing`, `thanks`, `bye`
    or `greeting`, the first of these it holds) and its language (`en` or `de`)."""

    kind: str
    language: str


def normalize(text: str) -> str:
    """Lower case, without mentions, punctuation and emoji (also as `:shortcode:`), words
    separated by one space."""
    text = _MENTION.sub(" ", text).lower().replace("’", "'")
    text = _NON_WORD.sub(" ", text).replace("'", "")
    return " ".join(text.split())


def small_talk(text: str) -> SmallTalk | None:
    """The chit-chat a message is, or None when anything in it may be a question (see the
    module docstring)."""
    rest = normalize(text)
    if not rest or len(rest.split()) > MAX_WORDS:
        return None
    kinds: list[str] = []
    languages: list[str] = []
    while rest:
        filler = _FILLER.match(rest)
        if filler:
            rest = rest[filler.end() :]
            continue
        match = _PHRASE.match(rest)
        if match is None:
            return None
        kind, language, _ = _PHRASES[int(match.lastgroup[1:])]
        kinds.append(kind)
        if language:
            languages.append(language)
        rest = rest[match.end() :]
    if not kinds:
        return None
    kind = min(kinds, key=_PRIORITY.index)
    language = languages[0] if languages else detect_language(text)
    return SmallTalk(kind, language)


def help_text(talk: SmallTalk, examples: Sequence[str] = ()) -> str:
    """The reply to chit-chat in its language: a word for its kind, what confbot answers
    and one example question: the first of `examples` in that language (the sample wiki's
    questions, when that is what is indexed), else a generic one."""
    language = talk.language if talk.language in _BODY else "en"
    example = next(
        (e for e in examples if detect_language(e) == language), GENERIC_EXAMPLES[language]
    )
    opener = _OPENERS[language][talk.kind]
    body = _BODY[language].format(example=example)
    return f"{opener} {body}" if opener else body
