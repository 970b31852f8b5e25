"""What a question asks: its type (who, when, which version, how many, yes/no, ...), its
language, its weighted terms, the noun phrase a "which X" question asks for, whether it asks
for a definition or about the page itself, and the context an offline-completed follow-up
carries.

Pure functions of strings, shared by the offline answerer's span scorer (`core.spans`) and
everything that judges an evidence against a question through it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from core.glossary import glossary_words
from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS, detect_language, tokenize

# Names, versions and other marked words say which evidence is meant and count double
# (set by design, not tuned).
ENTITY_WEIGHT = 2.0

QUESTION_TYPES = ("who", "when", "version", "count", "yesno", "howto", "why", "where", "what")


# The wording that sets a question's type, English and German, tried in this order.
_TYPE_PATTERNS: tuple[tuple[str, re.Pattern], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        (
            "count",
            r"\b(how (many|much|tall|big|long|old|far|high|large|wide|heavy|often|fast)"
            r"|number of|wie (viele?|groß|hoch|lange?|alt|weit|schwer|oft|schnell)"
            r"|wieviele?|anzahl|was (?:kostet|kosten|kostete|kosteten)|wie teuer)\b",
        ),
        # "versions 7.x" names the version the question is about, it does not ask for one
        (
            "version",
            r"\b(which|what|welche[rsmn]?|was für)\b[^?]*\b(versions?|versionen)\b(?!\s+v?\d)"
            # German asks "Was war die Version ...?", "Wie lauteten die Versionsnummern?"
            r"|^\W*(?:was (?:war|waren|ist|sind)|wie (?:lautet|lautete|lauten|lauteten))\b"
            r"[^?]*\b(?:version|versionen|versionsnummer|versionsnummern)\b(?!\s+v?\d)",
        ),
        ("who", r"^\W*(who|whom|whose|wer|wem|wen|wessen)\b"),
        (
            "when",
            r"^\W*(when|wann|seit wann|bis wann|by when|until when|how soon)\b"
            r"|\b(what|which) (date|year|day|month|time)\b|\bwie bald\b"
            r"|\b(welche[mn]?|in welchem) (datum|jahr|tag|monat)\b",
        ),
        (
            "why",
            r"^\W*(why|warum|wieso|weshalb|weswegen|for what reason|aus welche[mn] gründen?)\b"
            r"|^\W*(what|which) (was|is|were|are) the (main |primary )?reasons?\b"
            r"|^\W*was (war|ist|waren|sind) (der|die) (haupt)?(grund|gründe)\b",
        ),
        ("where", r"^\W*(where|wo|wohin|woher)\b"),
        (
            "howto",
            r"^\W*(how|wie|inwiefern|inwieweit)\b(?! (many|much|long|old|often|viele?|lange?|alt"
            r"|hoch|oft|lautet|lautete|lauten|lauteten|heißt|hieß|heisst)\b)",
        ),
        (
            "yesno",
            r"^\W*(is|are|was|were|do|does|did|can|could|should|shall|will|would|has|have|had"
            r"|must|may|ist|sind|war|waren|hat|haben|hatte|hatten|kann|können|konnte|konnten"
            r"|gibt|gab|wird|werden|wurde|wurden|muss|müssen|soll|sollte|sollen|darf|dürfen"
            r"|unterstützt|unterstützte|funktioniert|funktionierte|braucht|brauchte|benötigt"
            r"|benötigte|besitzt|gilt|galt|läuft|lief|existiert|existierte|enthält|enthielt"
            r"|betrifft|betraf|erlaubt|erlaubte|verwendet|verwendete|nutzt|nutzte|benutzt"
            r"|gehört|gehörte|liegt|lag|kostet|kostete|dauert|dauerte|könnte|hätte|wäre)\b",
        ),
        # a verb before its subject pronoun asks yes or no in either language ("Brauche
        # ich das VPN?", "Bekommen wir …?", "Am I allowed …?")
        (
            "yesno",
            r"^\W*(?!(?:what|which|who|whom|whose|how|where|when|why|and|or|but|wie|wo|wer"
            r"|wen|wem|wessen|was|wann|warum|wieso|weshalb|woher|wohin|wozu|womit|welche[rsmn]?"
            r"|und|oder|aber)\b)[^\W\d_]{2,} (?:ich|wir|man|du|ihr|i|we|you)\b",
        ),
        # a German finite verb (-t, -en) before an article opening its subject ("Bezahlt
        # die Firma …?", "Bekommen die Tester …?"); an imperative ends otherwise ("Nenne
        # die Schritte").
        (
            "yesno",
            r"^\W*(?!(?:wie|wo|wer|wen|wem|wessen|was|wann|warum|wieso|weshalb|woher|wohin"
            r"|wozu|womit|welche[rsmn]?|und|oder|aber)\b)[^\W\d_]{2,}(?:t|en) (?:der|die|das"
            r"|den|dem|ein|eine|einen|einem|mein|meine|meinen|unser|unsere|unseren)\b",
        ),
        ("who", r"\b(who|wer)\b"),
        ("why", r"\b(why|warum|wieso|weshalb)\b"),
        # "when" (or "wann") inside a what/which question is a conjunction ("What was the
        # result when a Debian 9.9 installation was tested ...?") that sets the case asked
        # about, not a question for a date.
        ("when", r"^(?!\W*(?:what|which|was|welche[rsmn]?)\b).*\b(when|wann)\b"),
    )
)


# German "Was ..." asks what; the yes/no pattern would read it as the English "was".
_GERMAN_WHAT = re.compile(r"^\W*[Ww]as\s+(\w+)")


# Where the question says the answer is written ("as per the contributions document", "wie
# im Dokument „Beiträge“ angegeben", "If yes, how?"): words about the source or a second
# question, not about what is asked of the subject.
SOURCE_PHRASE = re.compile(
    r",?\s*\b(?:as per|according to|as (?:specified|stated|described|defined|given|"
    r"mentioned|listed) in|laut|gemäß|wie (?:im|in der|in dem|in den) .{1,60}?"
    r"(?:angegeben|beschrieben|festgelegt|definiert|genannt))\b[^?]*"
    r"|\?\s*(?:if (?:yes|so)|wenn ja|falls ja)\b.*$",
    re.IGNORECASE,
)


# The context an offline-completed question carries (`core.rephrase.OfflineCompleter`).
CONTEXT = re.compile(r"\((?:context|following up on):([^()]*)\)", re.IGNORECASE)


# "What is X?" (X at most three words) asks for a definition, and "X is a ..." gives one.
_ASKS_DEFINITION = re.compile(
    r"^\W*(?:(?:what|was|wer|who) (?:is|are|ist|sind|bedeutet|bedeuten)"
    r"|what does(?= \S+(?: \S+){0,2} mean\b)) (?:an? |the |der |die |das |eine? )?"
    r"(?P<x>[^?\s]+(?: [^?\s]+){0,2}?)(?: mean)?"
    r"(?: in (?:this|diesem) (?:context|zusammenhang))?\s*\?*\s*$",
    re.IGNORECASE,
)


_DEFINING_VERBS = frozenset("mean means bedeutet bedeuten".split())


# "Is there any information on X?" asks for the information, not for yes or no.
_ASKS_INFO = re.compile(
    r"^\W*(?:is|are) there any (?:information|info|details|documentation)\b"
    r"|^\W*is (?:anything|something) (?:documented|mentioned|said|written)\b"
    r"|^\W*gibt es (?:irgendwelche |eine |etwas )?"
    r"(?:informationen|angaben|dokumentation|hinweise)\b"
    r"|^\W*(?:ist|wird|wurde) (?:etwas|irgendetwas)\b.*\b(?:dokumentiert|erwähnt|beschrieben)\b",
    re.IGNORECASE,
)


_REQUEST = re.compile(
    r"^\W*(could|can|would|will) you\b|^\W*(könnten|kannst|können|würden) (sie|du)\b",
    re.IGNORECASE,
)


TOKEN = re.compile(r"[^\W_]+(?:[.\-_/+][^\W_]+)*", re.UNICODE)


_JOINER = re.compile(r"[.\-_/+]")


# Question words that are no terms of a question: "how many", and German question adverbs.
QUESTION_WORDS = frozenset(
    "many much viele viel wieviele wieviel worüber wofür womit wovon worauf woran wozu"
    " wodurch woraus ab wohin woher weswegen inwiefern inwieweit"
    # "in Bezug auf", "bezüglich", "hinsichtlich" say "about", "im Zuge" "during", "ich gehe
    # davon aus" "I take it": English stopwords or no words of the page
    " bezug bezüglich hinsichtlich zuge gehe"
    # German verbs and fillers of asking ("Wie lautet ...", "Ich würde gerne mehr über ...
    # erfahren"), which no page says
    " lautet lautete lauten lauteten heißt hieß gern gerne erfahren weiß eigentlich über gemäß"
    " zufolge"
    # German function words whose English counterparts are English stopwords ("any", "both",
    # "more", "same", "for it", "about it"), which the German list lacks: the English
    # question drops them, so the German one must too, or they lower every span's support
    " irgendein irgendeine irgendeinen irgendeinem irgendeiner irgendeines irgendwelche"
    " irgendwelchen irgendetwas sowohl beide beiden beides mehr meisten wenige wenigen"
    " selben gleichen eigene eigenen eigener eigenes bereits schon ebenfalls jeweils derzeit"
    " dafür darüber dabei davon daran darauf dadurch darin danach davor hierfür hierzu"
    " hierbei hierüber"
    # "verfügt über" is "has"; the modal and subjunctive forms the German list lacks are
    # "should", "could", "would", "was": English stopwords all
    " verfügt verfügen verfügte verfügten sollten sollen solltest sollst konnte konnten"
    " könnten möchte möchten hätte hätten wäre wären sei seien gab".split()
)


STOPWORDS = ENGLISH_STOPWORDS | GERMAN_STOPWORDS


@dataclass(frozen=True)
class QuestionProfile:
    """What a question asks: its `qtype` (one of `QUESTION_TYPES`), its `language`, the
    weighted stems of what it asks (`terms`: stem → weight), the stems of its carried
    context (`context`), its lower-cased words (`words`, so an answer leaves out what the
    question already says), and the wiki's stems that stand for its foreign terms
    (`aliases`: stem → the question's stem; `spelled`, those of them that spell out an
    acronym of the question, which still say something new in an answer; `glossed`, those
    the German-English glossary gives, `core.glossary`, which are as sure as the word)."""

    text: str
    qtype: str
    language: str
    terms: dict[str, float]
    context: frozenset[str]
    words: frozenset[str]
    aliases: dict[str, str] = field(default_factory=dict)
    focus: frozenset[str] = frozenset()
    plural: bool = False
    fact: str = ""
    defines: frozenset[str] = frozenset()
    spelled: frozenset[str] = frozenset()
    glossed: frozenset[str] = frozenset()

    @property
    def weight(self) -> float:
        """The total weight of the asked terms."""
        return math.fsum(self.terms.values())

    def asked_in(self, stems: frozenset[str]) -> set[str]:
        """The asked terms found among `stems`, directly or through a translation."""
        found = stems & self.terms.keys()
        found.update(self.aliases[s] for s in stems & self.aliases.keys())
        return found


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """The English Snowball stem of one plain word, as the lexical index stems it."""
    stems = tokenize(word)
    return stems[0] if stems else word


# What a contraction leaves as a word of its own: What's, don't, I'd, we'll, they're, I've.
_CONTRACTED = frozenset("s t d ll re ve m".split())


def terms(text: str, stopwords: frozenset[str] = ENGLISH_STOPWORDS) -> list[str]:
    """Matching terms of `text`: lower-cased, stemmed words without `stopwords` and the
    letters left of a contraction (the "s" of "What's"); a compound
    (`OXT-1654`, `9.0.2`, `DISTRO_FEATURE`) is kept whole, and its word parts are added
    (and its number parts when it also has letters), so `OXT 1654` still meets `OXT-1654`
    while `9.0.2` does not match every `9`."""
    out: list[str] = []
    for match in TOKEN.findall(text):
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
        elif token not in stopwords and token not in _CONTRACTED:
            out.append(token if any(c.isdigit() for c in token) else _stem(token))
            numbered = _NUMBERED_NAME.fullmatch(token)
            if numbered and numbered.group(1) not in stopwords:
                out.append(numbered.group(1))
    return out


# A name with a generation number run on ("grub2", "tpm2", "python3"): it also names the
# thing without the number, as "grub" in "What was measured about grub?".
_NUMBERED_NAME = re.compile(r"([^\W\d_]{3,})\d{1,2}")


def is_entity(word: str) -> bool:
    """A word that names something: it has a digit, an inner capital or joiner, or it is
    all capitals (OXT, TPM, BIOS). Quotes around it are no part of it (the capital after a
    German „ is no inner capital)."""
    # nor is a hyphen before it ("VM-Installation und -Konfiguration": the "-" stands for "VM")
    core = word.strip(".,;:!?\"'()[]„“”‚‘’«»").lstrip("-")
    if len(core) < 2:
        return False
    if any(c.isdigit() for c in core) or _JOINER.search(core.strip("-_./+")):
        return True
    return core.isupper() or any(c.isupper() for c in core[1:])


def question_type(text: str) -> str:
    """The type of a question (one of `QUESTION_TYPES`) from its wording; `what` when no
    pattern fits. A German question opening with "Was" asks what, not yes or no (the
    English auxiliary "was" is spelt the same); so does "Is there any information on ...?"
    (it asks for the information)."""
    asked = CONTEXT.sub(" ", text).strip()
    if _REQUEST.search(asked) or _ASKS_INFO.search(asked):
        return "what"
    asked = _SETTING.sub("", asked)
    for name, pattern in _TYPE_PATTERNS:
        if pattern.search(asked):
            if name == "yesno" and _german_what(asked, text):
                return "what"
            return name
    return "what"


# A setting said before the question ("In qemu 2.6.2 uprev testing, was the install ...?",
# "Im Test X, wurde ...?"): a prepositional phrase up to a comma, without a question word,
# after which the question's own opening word comes.
_SETTING = re.compile(
    r"^\W*(?:in|on|at|during|after|before|im|bei|beim|während|nach|vor)\s"
    r"(?![^,?]*\b(?:which|what|who|how|welche[rsmn]?|was|wer|wie)\b)[^,?]{1,80},\s*",
    re.IGNORECASE,
)


def _german_what(asked: str, text: str) -> bool:
    """Whether a question opening with "Was" is German ("Was bedeutet TBOOT?"): its language
    says so, or its opening says so (`_opens_german`)."""
    if not _GERMAN_WHAT.match(asked):
        return False
    return question_language(text) == "de" or _opens_german(asked)


def _opens_german(asked: str) -> bool:
    """Whether a question opens with "Was" and a German function word or a lower-case verb
    form that is no English word ("bedeutet", "kennzeichnen"; not "the", "it", "not")."""
    match = _GERMAN_WHAT.match(asked)
    if not match:
        return False
    following = match.group(1)
    return following in GERMAN_STOPWORDS or (
        following.islower()
        and following.endswith(("et", "t", "en", "st"))
        and following not in ENGLISH_STOPWORDS
    )


def is_followup(text: str) -> bool:
    """Whether a question is an offline-completed follow-up: it carries "(context: ...)" or
    "(following up on: ...)" from the conversation (`core.rephrase.OfflineCompleter`)."""
    return CONTEXT.search(text) is not None


def question_language(text: str) -> str:
    """The language of a question, told by its own words: the context an offline-completed
    follow-up carries is a list of content words without stopwords, which would tip a short
    German follow-up to English. The whole text decides only when the question's own words
    do not say German; nor when they are too few to say it, but the question opens with "Was"
    and a German verb ("Was bedeutet TBOOT?": "was" is a stopword of both languages), or has
    no function word and a word the glossary knows as German ("Versionsnummern?")."""
    asked = CONTEXT.sub(" ", text)
    own = detect_language(asked)
    if own == "de" or _opens_german(asked.strip()) or _german_words_only(asked):
        return "de"
    return detect_language(text)


def _german_words_only(asked: str) -> bool:
    """Whether a question of content words only (no stopword of either language) has a word
    the glossary translates into other words (`core.glossary`: "Versionsnummern" → version
    number; "Version" is the English word itself): its stopwords cannot tell its language,
    and the carried context's English titles would tip it to English."""
    words = [w.lower() for w in TOKEN.findall(asked) if w[:1].isalpha()]
    if not words or any(w in STOPWORDS for w in words):
        return False
    return any(glossary_words(w) and w not in glossary_words(w) for w in words)


# "Which X" / "what X" (and "what was the X"): the noun phrase after it names what is asked
# for, the column of a table row or the kind of value (`question_focus`).
_FOCUS = re.compile(
    r"\b(?:which|what|welche[rsmn]?|was für(?: eine?[rnms]?)?"
    # German "Was waren die geplanten Verbesserungen?" asks for several, as "What were the"
    r"|^\W*(?:und\s+)?was(?=\s+(?:waren|sind)\s+die\s))\s+"
    r"(?:(?P<aux>was|were|is|are|war|waren|ist|sind)\s+)?"
    r"(?:(?:one of|of|von)\s+)?(?:(?:the|der|die|das|den|dem|des|diesen)\s+)?(?P<phrase>[^?,;]*)",
    re.IGNORECASE,
)


_FOCUS_JOINERS = frozenset("and und / & or oder".split())
_WHICH = re.compile(r"which|what|welche[rsmn]?")


FOCUS_WORDS = 4


_PLURAL_VERBS = frozenset("were are wurden sind waren haben hatten".split())


# Endings of German plural nouns ("Verbesserungen", "Möglichkeiten", "Anwendungsfälle",
# "Gründe"): German plurals rarely end in "s", which marks English ones.
_GERMAN_PLURAL = re.compile(
    r"(?:ungen|heiten|keiten|schaften|ionen|täten|nisse|fälle|gründe|schritte|punkte)$"
)


# A number of things before the noun asks for as many ("Welche drei Dinge", "which two
# machines"): German plurals often have no plural ending.
_SEVERAL = frozenset(
    "two three four five six seven eight nine ten zwei drei vier fünf sechs sieben acht neun"
    " zehn beiden".split()
)


# A lower-case English word ending in a single "s" (a third-person verb when an article
# follows it: "owns the", "runs a"), and the articles that tell.
_VERB_S = re.compile(r"[a-z]{2,}[^s\W]s")
_ARTICLES = frozenset("the a an this that these those our its".split())
# Modal verbs, which end a which-phrase ("Which OXT JIRA issues may be encountered ...?").
_MODALS = frozenset("may might can could should must will would shall".split())
# Verbs a which-question asks with in the third person ("Which team owns tern-os?").
_VERBS_S = frozenset(
    "owns uses runs handles manages leads covers needs sends holds contains includes supports"
    " provides allows requires maintains hosts stores builds ships approves".split()
)


def question_focus(text: str) -> tuple[tuple[str, ...], bool]:
    """The words of the noun phrase a which/what question asks for ("Which Dell Latitude
    model resulted in ..." → Dell, Latitude, model), at most `FOCUS_WORDS`, ended by a
    function word or an English past participle; and whether it asks for more than one
    thing (a plural noun: "Which machines", "card(s)"; a plural verb after it: "were",
    "wurden"; or two nouns: "BIOS and Build versions")."""
    match = _FOCUS.search(CONTEXT.sub(" ", text))
    if not match:
        return (), False
    words: list[str] = []
    marked = False
    following = ""
    raws = match.group("phrase").split()
    verb_at = 0
    for position, raw in enumerate(raws):
        word = raw.strip(".:!\"'")
        after = raws[position + 1].lower() if position + 1 < len(raws) else ""
        if (
            words
            and not verb_at
            and _VERB_S.fullmatch(word)
            and (after in _ARTICLES or word in _VERBS_S)
        ):
            # "Which team owns the billing component?": a verb, not a plural noun's end; it
            # ends the phrase (what follows it says which rows) and stays in it (its words
            # are no condition on the rows)
            verb_at = len(words)
            words.append(word)
            break
        if word.lower().endswith(("(s)", "(n)")):
            word = word[:-3]
            marked = marked or word.lower() not in STOPWORDS
        lower = word.lower()
        if lower in _FOCUS_JOINERS and words:
            words.append(lower)
            continue
        if _WHICH.fullmatch(lower) and words and words[-1] in _FOCUS_JOINERS:
            continue  # "Welches BIOS und welche Build-Versionen": the which of the second
        if (
            lower in STOPWORDS
            or lower in _MODALS
            or (lower.endswith("ed") and len(lower) > 4 and not word[:1].isupper())
            or len(words) >= FOCUS_WORDS
        ):
            following = lower
            break
        words.append(word)
    while words and words[-1].lower() in _FOCUS_JOINERS:
        words.pop()
    if not words:
        return (), False
    noun = words[verb_at - 1] if verb_at else words[-1]
    head = noun.lower()
    acronym = noun.isupper()  # "BIOS", "OS": an s that makes no plural
    plural = (
        marked
        or (match.group("aux") or "").lower() in _PLURAL_VERBS
        or (head.endswith("s") and not head.endswith("ss") and len(head) > 3 and not acronym)
        or bool(_GERMAN_PLURAL.search(head))
        or following in _PLURAL_VERBS
        or any(w in ("and", "und") for w in words)
        or any(w.lower() in _SEVERAL for w in words)
    )
    return tuple(words), plural


Translations = tuple[tuple[str, tuple[str, ...]], ...]


# A comma or semicolon written straight before the next word.
_JOINED = re.compile(r"([,;])(?=[^\W\d_])")


@lru_cache(maxsize=4096)
def profile_question(text: str, translations: Translations = ()) -> QuestionProfile:
    """The type, language and weighted terms of a question. `translations` pair a foreign
    word of the question with the wiki's words for it: finding one of those counts as
    finding the word (`QuestionProfile.aliases`)."""
    language = question_language(text)
    stopwords = (STOPWORDS if language == "de" else ENGLISH_STOPWORDS) | QUESTION_WORDS
    if _ASKS_DEFINITION.match(CONTEXT.sub(" ", text)):
        # "What does X mean?", "Was bedeutet X?" ask what X is: a definition does not say "mean"
        stopwords |= _DEFINING_VERBS
    # "empfohlen,Builds": a comma with no space after it still ends a word (a capital
    # after it would mark the joined word as a name).
    asked_text = _JOINED.sub(r"\1 ", CONTEXT.sub(" ", text))
    translated = frozenset(word for word, _ in translations)
    weights: dict[str, float] = {}
    for position, word in enumerate(asked_text.split()):
        # A capital inside an English question marks a name (German capitalizes nouns).
        capitalized = position > 0 and word[:1].isupper()
        if language == "de":
            capitalized = capitalized and _foreign_name(word, translated)
        weight = ENTITY_WEIGHT if capitalized or is_entity(word) else 1.0
        for stem, stem_weight in _weighted_terms(word, weight, language, stopwords, translated):
            weights[stem] = max(weights.get(stem, 0.0), stem_weight)
    aliases: dict[str, str] = {}
    glossed: set[str] = set()
    for word, neighbours in translations:
        own = [t for t in terms(word, stopwords) if t in weights]
        # The glossary's words for it, when the answerer read the word with the glossary
        # (`core.extractive.ExtractiveLLM.translations` gives all of them).
        glossary = set(glossary_words(word))
        if not glossary <= set(neighbours):
            glossary = set()
        for neighbour in neighbours:
            for stem in terms(neighbour):
                if own and stem not in weights:
                    aliases.setdefault(stem, own[0])
                    if neighbour in glossary and aliases[stem] == own[0]:
                        glossed.add(stem)
    context = frozenset(terms(" ".join(CONTEXT.findall(text)), stopwords)) - set(weights)
    words = frozenset(w.lower() for w in TOKEN.findall(text))
    phrase, plural = question_focus(text)
    focus = frozenset(terms(" ".join(phrase), stopwords)) & weights.keys()
    return QuestionProfile(
        text,
        question_type(text),
        language,
        weights,
        context,
        words,
        aliases,
        focus,
        plural,
        page_fact(text),
        _defined(text, stopwords),
        glossed=frozenset(glossed),
    )


def _foreign_name(word: str, translated: frozenset[str]) -> bool:
    """Whether a capitalized word of a German question is a name or an English term the
    wiki uses as it is ("Ubuntu", "Xen", "Board"), which weighs as a name as it would in
    the English question: no German word the glossary or the index translates."""
    plain = word.strip(".,;:!?\"'()[]„“”")
    if not plain.isalpha() or plain.lower() in translated or plain.lower() in STOPWORDS:
        return False
    return not glossary_words(plain)


def _weighted_terms(
    word: str, weight: float, language: str, stopwords: frozenset[str], translated: frozenset[str]
) -> list[tuple[str, float]]:
    """The terms of one question word with their weights: `weight` for each, except in a
    German hyphenated compound, whose parts weigh as names only when they are names
    ("Versions-Checkliste" is a checklist, not a name, though its hyphen marks English
    compounds as one; "OpenXT-Problemnummer" keeps OpenXT's weight, "rc1-Tests" rc1's,
    "Fedora-Gast-VM" Fedora's and VM's), as the words of the English question would weigh;
    the whole compound is a term of its own only when every part is a name or number.
    Measured on ConfQuestions (dev, 20 conversations): German compounds weighted as names
    ranked rows about a software "version" first for "Software-Dokumentation ...
    Versions-Checkliste"."""
    parts = [p for p in word.strip(".,;:!?\"'()[]„“”").split("-") if p]
    if language != "de" or len(parts) < 2:
        return [(stem, weight) for stem in terms(word, stopwords)]
    named = [
        is_entity(p) or any(c.isdigit() for c in p) or _foreign_name(p, translated) for p in parts
    ]
    # The whole compound is a term only when all its parts are names or numbers
    # ("Stable-9", "OXT-1654"): a part in German makes the whole a German word no English
    # page writes ("Software-Dokumentation" is "software documentation" there), which would
    # only add weight no span can cover.
    out = [(stem, ENTITY_WEIGHT) for stem in terms(word, stopwords) if "-" in stem and all(named)]
    for part, name in zip(parts, named, strict=True):
        out += [(stem, ENTITY_WEIGHT if name else 1.0) for stem in terms(part, stopwords)]
    return out


def _defined(text: str, stopwords: frozenset[str]) -> frozenset[str]:
    """The terms of X when the question asks "What is X?", else none."""
    match = _ASKS_DEFINITION.match(CONTEXT.sub(" ", text))
    return frozenset(terms(match.group("x"), stopwords)) if match else frozenset()


PAGE_FACTS = ("owner", "updated", "updated_by")


# What a question about the page itself asks: who owns or wrote it, when it was last
# changed and by whom (English and German).
_ASKS_OWNER = re.compile(
    r"\b(own(?:s|ed|er)?|author(?:ed)?|creat(?:ed|or)|wrote|written|eigentümer|besitzer"
    r"|autor|verfasst|erstellt|geschrieben|gehört)\b",
    re.I,
)


_ASKS_UPDATE = re.compile(
    r"\b(updated|modified|changed|edited|aktualisiert|geändert|bearbeitet)\b", re.I
)


# "owns" / "gehört" with a thing as its object ("Who owns tern-os?", "Wem gehört tern-os?"),
# unlike the noun "owner" ("who's the owner?" of a page), asks about the page only when it
# names one.
_OWNS_THING = re.compile(r"\b(owns|gehört)\b", re.I)
_PAGE_NOUN = re.compile(
    r"\b(page|document|doc|article|wiki|confluence|seite|dokument|artikel)\b", re.I
)


_BY_WHOM = re.compile(r"\b(by whom|who|wer|von wem)\b", re.I)


def page_fact(text: str) -> str:
    """The `PAGE_FACTS` name a question asks for when it asks about a page itself ("Who
    owns the page on ...?", "When was ... last updated?"), else ""."""
    asked = CONTEXT.sub(" ", text)
    qtype = question_type(text)
    if _ASKS_UPDATE.search(asked):
        if qtype == "when":
            return "updated"
        if _BY_WHOM.search(asked):
            return "updated_by"
        return ""
    if _ASKS_OWNER.search(asked) and qtype == "who":
        if _OWNS_THING.search(asked) and not _PAGE_NOUN.search(asked):
            return ""  # "Who owns tern-os?": the owner of a thing the wiki names, not a page
        return "owner"
    return ""
