"""The offline answerer: answers from the sources of our answer prompt, without a model.

It implements the `core.llm.LLM` protocol, so it stands wherever a model does (answering,
and regenerating answers for counterfactual attribution). It reads the question and the
numbered sources back from the answer prompt (`core.answer.parse_prompt`), finds the best
answer span of every source (`core.spans.best_spans`) and answers with the best one in a
headline (`headline`): the question as a statement with the value ("The X is value [n]."),
the value labelled with its column and row, Yes or No with the sentence that decides it, or
the sentence the value came from; a `Related:` line only when the headline is a value cut
from a longer sentence. When the best span's support (the share of the question's terms it
covers, `core.spans`) is under the decline threshold of the question's language, it replies
with the `OUT_OF_SCOPE` sentence, as a model is told to. A question that asks to count,
filter or compare rows or list items is answered by their composition instead, when
`core.compose` finds one (the same at every temperature); one that asks who commented on a
page, or how many people did, by the authors of its comments (`core.commenters`).

A follow-up completed offline ("What was the reason? (context: OTA, upgrade, 9.0.0, ...)")
asks in few words of its own ("reason"), and the words it leaves out are the topic it
carries; the answer sentence rarely repeats the own words. Its support is therefore measured
on both: the share of its own terms the span covers and the share of the carried topic's
terms the span (with its title and heading) covers, weighted `topic_weight` : 1
(`followup_support`), against a threshold of its own. A follow-up that drifts from a covered
topic to one the wiki lacks ("And is there a parking allowance?") still finds the topic but
none of its own terms; one in a conversation about an absent topic finds neither.

The thresholds are settings chosen by cross-validation over conversations
(`confbot eval --answers --folds 5` prints the choice for questions,
`confbot eval --questions conversational --answers --folds 5` for follow-ups). They differ
by language because the support of a German question over an English wiki is lower: its own
words rarely occur in the pages, only its names and technical terms do.

A span's score and support depend on its own source alone (and that source's number), as
a model's reading of a source does not depend on which unrelated sources sit beside it; the
answer is the best-scored of the best-supported spans (`core.spans.best_spans`), so leaving
a source out of the prompt (counterfactual attribution) changes the answer only when that
source supplied it. Deterministic at temperature 0; at T > 0 the answer span is drawn by
the Gumbel-max trick over -rank / T, the rank in that order (Gumbel 1954; Kool, van Hoof and
Welling, ICML 2019): the first span is the most likely at every T, each next one e^(1/T)
times less likely, so n samples vary and Monte-Carlo attribution sees a distribution.
"""

from __future__ import annotations

import math
import random
import re
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache

from core.answer import OUT_OF_SCOPE, RELATED, parse_prompt
from core.cell_sentences import (
    cell_sentence,
    cells_sentence,
    item_sentence,
    lowered,
    naming_cell,
    row_cells,
    subject,
)
from core.commenters import commenters
from core.compose import about_section, compose, listed_under
from core.counted_answer import counts_asked
from core.deciding_clause import asks_every, decides, undecided
from core.full_names import with_full_name
from core.glossary import glossary_words, head_words
from core.lexical import GERMAN_STOPWORDS
from core.missing_subject import absent_acronyms, absent_years, other_numbers, unknown_names
from core.phrasing import (
    answering_cell,
    asked_item,
    counted_list,
    either_or,
    issue_list_only,
    issue_list_reply,
    opened,
    row_line,
    statement,
    unverdicted,
    verdict,
)
from core.questions import (
    CONTEXT,
    ENTITY_WEIGHT,
    QUESTION_WORDS,
    STOPWORDS,
    Translations,
    is_followup,
    profile_question,
    question_language,
    terms,
)
from core.settings import Settings
from core.spans import (
    DEFAULT_WEIGHTS,
    SENTENCE_END,
    Span,
    SpanWeights,
    answers_type,
    best_spans,
    cell_verdict,
    clip_words,
    deciding_sentence,
    expansion,
    problem_column,
    typed_values,
)
from core.spelling import edits1, language_word
from core.translate import query_words
from core.word_translation import cognate_of_known, english_translation, spelled_like

# Translate: a non-English question → each of its words the wiki lacks → the wiki's words
# nearest to it (`core.index.EvidenceIndex.translations`).
Translate = Callable[[str], Mapping[str, Sequence[str]]]


class ExtractiveLLM:
    """The embedded default answerer (see the module docstring).

    `min_support` maps a question language (`en`, `de`) to the decline threshold; languages
    not listed use the English one. `followup_min_support` does the same for offline-completed
    follow-ups, whose support is `followup_support` with `topic_weight`; without it,
    follow-ups are judged like questions (on their own terms' support). `translate`
    (optional) supplies the wiki's words for a non-English question's words, so its spans
    can match an English wiki; `glossary` adds the German-English glossary's words
    (`core.glossary`). `weights` are the span scorer's tuned weights
    (`core.spans.SpanWeights`).
    """

    name = "extractive"

    def __init__(
        self,
        min_support: Mapping[str, float] | None = None,
        translate: Translate | None = None,
        seed: int | None = None,
        weights: SpanWeights = DEFAULT_WEIGHTS,
        followup_min_support: Mapping[str, float] | None = None,
        topic_weight: float = 0.0,
        glossary: bool = False,
        vocabulary: Callable[[], Collection[str]] | None = None,
    ):
        self.min_support = dict(min_support or {"en": 0.0})
        self.glossary = glossary
        self.followup_min_support = dict(followup_min_support or {})
        self.topic_weight = topic_weight
        self.translate = translate
        self.vocabulary = vocabulary
        self.weights = weights
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        translate: Translate | None = None,
        vocabulary: Callable[[], Collection[str]] | None = None,
    ):
        """The answerer with the decline thresholds of `answer_min_support` (English
        questions) and `answer_min_support_de` (German ones), and for follow-ups
        `answer_min_support_followup` and `answer_min_support_followup_de` with
        `answer_topic_weight`, and the glossary when `answer_glossary` is on."""
        thresholds = {"en": settings.answer_min_support, "de": settings.answer_min_support_de}
        followups = {
            "en": settings.answer_min_support_followup,
            "de": settings.answer_min_support_followup_de,
        }
        return cls(
            thresholds,
            translate,
            followup_min_support=followups,
            topic_weight=settings.answer_topic_weight,
            glossary=settings.answer_glossary,
            vocabulary=vocabulary,
        )

    def unthresholded(self, weights: SpanWeights | None = None) -> ExtractiveLLM:
        """The same answerer (translations, glossary) without any decline threshold, with
        these span `weights` (default: its own): evaluation answers every question and
        applies thresholds afterwards."""
        return ExtractiveLLM(
            {},
            self.translate,
            weights=weights or self.weights,
            glossary=self.glossary,
            vocabulary=self.vocabulary,
        )

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> list[str]:
        """Answers to the answer prompt in `messages` (`max_tokens` is ignored); the
        out-of-scope sentence for anything else."""
        parsed = parse_prompt(messages)
        if parsed is None:
            return [OUT_OF_SCOPE] * n
        question, sources = parsed
        given = [(s.number, s.header, s.text) for s in sources]
        translations = self.translations(question)
        spans = best_spans(question, given, translations, self.weights)
        if not spans or self.declines(question, spans[0][1]):
            return [OUT_OF_SCOPE] * n
        said = commenters(question, given)
        if said is not None:  # who commented on a page, and how many: its comments' authors
            return [said] * n
        # Counts, filters and comparisons over rows and lists (deterministic at every T).
        composed = compose(question, given, translations)
        if composed is not None:
            return [composed.text] * n
        spelled = expansion(question, given)
        if spelled is not None:
            return [f"{spelled[1]} [{spelled[0]}]"] * n
        if self.lacks_topic(question, spans, given) or wrong_kind(question, spans[0][1]):
            return [OUT_OF_SCOPE] * n
        if not spans[0][1].answer.strip():  # other things than those counted or asked about
            return [OUT_OF_SCOPE] * n
        query = issue_list_only(spans[0][1].unit)
        if query:  # the issues asked about are not in the wiki's text: say so
            said = issue_list_reply(query, question_language(question))
            return [f"{said} [{spans[0][0]}]"] * n
        top, best = spans[0]
        if best.kind in ("item", "sentence"):
            listed = listed_under(
                question, given, top, best.answer, best.whole or best.unit, translations
            )
            if listed is not None:
                return [listed.text] * n
        if best.kind == "sentence":
            section = about_section(question, given, top, best.whole or best.unit, translations)
            if section is not None:
                return [section.text] * n
        headings = {number: header for number, header, _ in given}
        spans = with_full_name(question, spans, given)  # "Ross" → "Ross Philipson"
        if temperature <= 0:
            return [render(question, spans, 0, headings, translations)] * n
        with self._lock:
            draws = [[self._rng.random() for _ in spans] for _ in range(n)]
        out = []
        for uniforms in draws:
            keys = [
                -rank / temperature - math.log(-math.log(u))
                for rank, u in enumerate(_open_unit(uniforms))
            ]
            chosen = max(range(len(spans)), key=keys.__getitem__)
            out.append(render(question, spans, chosen, headings, translations))
        return out

    def spans(self, question: str, sources: Sequence[tuple[int, str, str]]):
        """(source number, span) of every source with a span, best first. A German
        question's words are read through the index's translations and, with `glossary`,
        the German-English glossary (`core.glossary`)."""
        return best_spans(question, sources, self.translations(question), self.weights)

    def translations(self, question: str) -> Translations:
        """The wiki's words for a German question's words: the index's translations and,
        with `glossary`, the German-English glossary's (`core.glossary`)."""
        found: dict[str, list[str]] = {}
        if question_language(question) != "en":
            if self.translate is not None:
                found = {word: list(words) for word, words in self.translate(question).items()}
            if self.glossary:
                for word in query_words(question):
                    english = glossary_words(word)
                    if english and word not in GERMAN_STOPWORDS:
                        found[word] = list(dict.fromkeys([*english, *found.get(word, [])]))
        return tuple((word, tuple(found[word])) for word in sorted(found))

    def unknown_words(self, question: str) -> list[str]:
        """The question's content words that occur nowhere in the wiki, in any simple
        inflection: what it asks about that the wiki has no word for ("parental", "weather",
        "Tokyo"); a German question's words through the glossary. None without a
        vocabulary."""
        if self.vocabulary is None:
            return []
        known = self.vocabulary()
        asked = _UNJUDGED.sub(" ", CONTEXT.sub(" ", question))
        words = [w.lower() for w in _WORD.findall(asked)]
        if question_language(question) != "en":
            # A German word stands for the glossary's first English word for it, when the
            # glossary has it ("Elternzeit" → parental; a compound it lacks for its head's:
            # "Mitarbeiterausweis" → badge), and is known when the wiki has that word in any
            # form the glossary lists ("Anpassung" → customized, customization); a German
            # noun the glossary lacks counts as unknown when the wiki has neither it nor a
            # word standing for it, or only a neighbour of a word that is no German word
            # (a name: "Azure" lands on "apertus", `_untranslated_nouns`).
            glossed = [found for found in map(head_words, words) if found]
            words = [found[0] for found in glossed if not _known_form(found, known)]
            words += self._untranslated_nouns(question, asked, known)
        # a word under 3 letters is in no vocabulary ("Großbritannien" → uk): not judged
        return [
            w
            for w in words
            if len(w) >= 3
            and w not in STOPWORDS
            and w not in QUESTION_WORDS
            and not any(f in known for f in _inflections(w))
        ]

    def _untranslated_nouns(self, question: str, asked: str, known: Collection[str]) -> list[str]:
        """The German nouns of a question (capitalized, not opening a sentence) that the
        glossary lacks, the wiki does not use, the index's translation maps to no wiki word
        and that does not end in a known word (`_known_compound`): "Parkplatzzuschuss",
        "Kleiderordnung"; of a hyphenated noun, each such part, but beside a known part
        only one that is no German word ("Slack-Kanal" → slack). The translation stands
        for a German noun only (`_german_spelling`): a name has none, whatever wiki word
        it lands on ("Azure" → apertus). Measured on ConfQuestions (dev), German: 3 of 210
        answerable questions have one (two of them translate "community call" word by
        word), 16 of 56 out-of-scope ones; reading names so, decline recall (configured
        thresholds, `confbot eval --answers`) 0.824 -> 0.868 at the same 3.8% of
        answerable questions declined."""
        translated = dict(self.translate(question)) if self.translate is not None else {}
        out = []
        for noun in _GERMAN_NOUN.findall(asked):
            parts = noun.lower().split("-")
            unknown = [
                part
                for part in parts
                if part not in known
                and not glossary_words(part)
                and not _known_noun(part, known, translated, self._head_translation)
            ]
            if len(unknown) < len(parts):
                # Beside a known part, a German word is the kind of thing the known part
                # names ("Exit-Kriterien"); a name or foreign word is what is asked about
                # ("Slack-Kanal").
                unknown = [part for part in unknown if not language_word(part, "de")]
            out += unknown
        return out

    def _head_translation(self, head: str) -> Sequence[str]:
        """The index's translation of a compound's head on its own (none without one)."""
        if self.translate is None:
            return ()
        return tuple(self.translate(head).get(head, ()))

    def lacks_topic(
        self,
        question: str,
        spans: Sequence[tuple[int, Span]],
        sources: Sequence[tuple[int, str, str]] = (),
    ) -> bool:
        """Whether to decline because the question asks about something the wiki lacks: a
        name it never mentions, an acronym it neither uses nor the `sources` spell out
        ("SLA"), or a numbered thing the `sources` number only otherwise
        ("Windows 11" among Windows 7 and 10; `core.missing_subject`), at any support; or a
        word it never mentions when the best span covers less than `UNKNOWN_SUPPORT` of the
        question: the wiki has near-topic evidence ("annual leave" for "parental leave") but
        not the answer. Measured on ConfQuestions (dev): 30 of 34 English out-of-scope
        questions have such a word, 8 of 210 answerable ones (4 of them typos); German decline
        recall 0.882 -> 0.912 at no cost. The names and numbered things: none of the 420
        answerable questions (EN and DE) has one, 24 of the 112 out-of-scope ones do."""
        texts = [f"{header}\n{text}" for _, header, text in sources]
        if self.vocabulary is not None:
            known = self.vocabulary()
            if unknown_names(question, known) or absent_acronyms(question, known, texts):
                return True
        if other_numbers(question, texts) or absent_years(question, texts):
            return True
        unknown = [w for w in self.unknown_words(question) if not spelled_apart(w, texts)]
        return bool(unknown) and self._own_support(question, spans, sources, unknown) < (
            UNKNOWN_SUPPORT
        )

    def _own_support(
        self,
        question: str,
        spans: Sequence[tuple[int, Span]],
        sources: Sequence[tuple[int, str, str]],
        unknown: Collection[str],
    ) -> float:
        """The best span's support with the words the wiki lacks read as themselves: a German
        word found `unknown` (no translation stands for it) lends no support through the
        wiki word its translation landed on. "Wer verkauft kommerzielle Supportverträge für
        OpenXT?" held 0.6 of its words on a sentence about "operational support", its English
        twin's "contracts" on none. Measured on ConfQuestions (dev, `confbot eval --answers
        --folds 5`): German decline recall +1 topic (that question), no answerable question
        declined."""
        translations = self.translations(question)
        # an unknown word keeps no translation, but stays a translated word: it weighs as a
        # plain word, not as a name (`core.questions.profile_question`)
        kept = tuple(
            (word, () if _lacked(word, unknown) else found) for word, found in translations
        )
        if kept == translations or not sources:
            return spans[0][1].support
        again = best_spans(question, sources, kept, self.weights)
        return again[0][1].support if again else 0.0

    def threshold(self, question: str) -> float:
        """The decline threshold for the question's language (and, when follow-up thresholds
        are set, for a follow-up)."""
        language = question_language(question)
        thresholds = self.min_support
        if self.followup_min_support and is_followup(question):
            thresholds = self.followup_min_support
        return language_threshold(thresholds, language)

    def support(self, question: str, span: Span) -> float:
        """The support the decline threshold is held against: `followup_support` for a
        follow-up when follow-up thresholds are set, else the span's own support."""
        if self.followup_min_support and is_followup(question):
            return followup_support(span.support, span.topic, self.topic_weight)
        return span.support

    def declines(self, question: str, span: Span) -> bool:
        """Whether the best span is too weakly supported to answer with."""
        return self.support(question, span) < self.threshold(question)


# A question that opens by asking for a person, a time or a quantity.
_OPENS_TYPED = re.compile(
    r"^\W*(?:who|whom|when|by when|how (?:much|many|soon|long)|wer|wann|bis wann"
    r"|wie (?:viele?|lange|bald))\b",
    re.IGNORECASE,
)


# "When can/must/should ...?" asks under which conditions, not for a date ("When can a pull
# request be rejected upfront?": "when it has obvious issues ..."), English and German.
_ASKS_CONDITION = re.compile(
    r"^\W*(?:when|wann)\s+(?:can|could|may|might|must|should|shall|would|kann|können|könnte"
    r"|darf|dürfen|muss|müssen|soll|sollte|sollen)\b",
    re.IGNORECASE,
)


def wrong_kind(question: str, span: Span) -> bool:
    """Whether the best span fails a question that opens by asking for a person, a time or
    a quantity: it holds no value of that kind, so presenting it as the answer would answer
    another question (`core.spans.answers_type`). Such a question is declined: tried, the
    best span of its kind below it answered 1 of 6 such dev questions right and 5 with
    confident junk ("Installed Windows, Device Manager" for a who question). A when
    question with a modal verb asks for a condition (`_ASKS_CONDITION`), any span's kind.
    A "how many X" question is declined when the span names no X (`core.counted_answer`)."""
    asked = CONTEXT.sub(" ", question).strip()
    if not _OPENS_TYPED.match(asked) or _ASKS_CONDITION.match(asked):
        return False
    # "How many people attended? Who?": a span of either question's kind answers it
    questions = [part for part in re.split(r"(?<=\?)\s+", asked) if part.strip()]
    if len(questions) > 1:
        return not any(answers_type(profile_question(part), span) for part in questions)
    if not answers_type(profile_question(question), span):
        return True
    # "How many people ...?" over "UDP port 51820": a number, but not a count of the asked
    texts = [span.answer, span.unit, span.whole, span.label, *(value for _, value in span.parts)]
    return not counts_asked(asked, question_language(asked), texts)


def _lacked(word: str, unknown: Collection[str]) -> bool:
    """Whether a German word of a question is one of its `unknown` words
    (`ExtractiveLLM.unknown_words`): itself, or the glossary's first word for what it names."""
    named = head_words(word)
    return word in unknown or bool(named) and named[0] in unknown


# Support under which a question naming a word the wiki lacks is declined (the trade-off
# on ConfQuestions dev, English: 0.5 adds no decline, 0.6 declines 1 more answerable question
# of 210 and every out-of-scope one, 0.7 costs 3 more).
UNKNOWN_SUPPORT = 0.6
_WORD = re.compile(r"[^\W\d_]{3,}")
# Words the vocabulary (whole words of 3+ letters) cannot judge, so they name nothing the
# wiki lacks: the plural of a two-letter acronym ("RCs", whose "RC" is too short to be in
# the vocabulary). Abbreviations written with their period ("version nos.?") were tried
# too: the 2 follow-ups they no longer declined were answered with a wrong row.
_UNJUDGED = re.compile(r"\b[A-Z]{2}s\b")


# A German noun inside a question: capitalized, the rest lower case (not a product name
# such as "FirePro"), after a space that does not end a sentence.
_GERMAN_NOUN = re.compile(
    r"(?<=\s)(?<![.?!:;]\s)([A-ZÄÖÜ][a-zäöüß]{3,}(?:-[A-ZÄÖÜa-zäöüß][a-zäöüß]+)*)\b"
)


def spelled_apart(word: str, texts: Sequence[str]) -> bool:
    """Whether the `texts` write `word` as two words or hyphenated ("upfront" as "up front",
    "dialin" as "dial-in"): the wiki has it, spelt otherwise (a when-follow-up asking when a
    PR "gets rejected upfront" was declined beside "rejected right up front")."""
    lowered = [text.lower() for text in texts]
    for cut in range(2, len(word) - 1):
        pattern = re.compile(rf"\b{re.escape(word[:cut])}[\s-]{re.escape(word[cut:])}\b")
        if any(pattern.search(text) for text in lowered):
            return True
    return False


def _known_compound(word: str, known: Collection[str]) -> bool:
    """Whether a German compound is a known head narrowed by a German word
    ("Ruhezustandsproblem" → Ruhezustand + s + problem): a compound means its last word,
    narrowed, so the wiki may hold it under that word. The head, four letters or more, is a
    word of the glossary, or a German dictionary word the wiki knows; the part before it,
    less a linking s, es, n or en, is a German word itself (`_german_part`). So a wrong
    split does not count: "Kantine" does not end in "tine", "Everest" in "rest", nor
    "Chromebook" in an English "book" glued on. Measured on ConfQuestions, German replayed
    conversations (configured): out-of-scope follow-ups declined 0.565 -> 0.609, answerable
    follow-ups declined 0.071 -> 0.077; completed questions unchanged."""
    return any(
        _known_head(word[cut:], known) and _german_part(word[:cut], known)
        for cut in range(3, len(word) - 3)
    )


def _known_noun(
    noun: str,
    known: Collection[str],
    translated: Mapping[str, Sequence[str]],
    translate: Callable[[str], Sequence[str]],
) -> bool:
    """Whether the wiki has a word for a German noun it does not use itself: not for a
    compound whose head it lacks (`_wiki_names_head`); else when the noun ends in a known
    word (`_known_compound`), is a wiki word written with k or z for c, or has a
    translation that stands for it (`_translated`). (A known head alone does not make the compound
    known: "Interviewrunden", "Homeoffice" end in words the wiki has, rounds and office,
    and counting them known cost German decline recall 0.897 -> 0.882 on the dev
    out-of-scope set.)"""
    if _wiki_names_head(noun, known, translate) is False:
        return False
    return (
        _known_compound(noun, known)
        or cognate_of_known(noun, known)
        or _translated(noun, translated.get(noun, ()))
    )


def _wiki_names_head(
    word: str, known: Collection[str], translate: Callable[[str], Sequence[str]]
) -> bool | None:
    """Whether the wiki has a word for the head of a German compound; None for a word that
    is no compound of a German head after a front the wiki or German knows. A compound
    names its head, whatever its front ("Supportvertrag" is a contract), and the index's
    translation of the whole lands on its front as often ("support"). The head,
    `SHORTEST_HEAD` letters or more, is the longest German word that ends the compound; it
    is known when the wiki uses it, the glossary's first word for it (`_said`: "Vertrag" is
    a contract, though the wiki's "agreement" is listed too), or its own
    translation (`translate`) when that is its cognate ("Kandidaten" → candidates; not
    "Zuschuss" → committee, `core.word_translation.spelled_like`)."""
    if _german_word(word, known):
        return None  # a word of its own ("Diskussionen"), no compound
    for cut in range(3, len(word) - SHORTEST_HEAD + 1):
        front, head = word[:cut], word[cut:]
        if not _german_word(head, known):
            continue
        if not (front in known or _german_part(front, known)):
            return None
        english = glossary_words(head)
        said = head in known or bool(english) and _said(english, known)
        return said or any(spelled_like(head, found) for found in translate(head))
    return None


SHORTEST_HEAD = 4
"""Letters of the shortest head `_wiki_names_head` reads: shorter words end too many nouns
by chance ("Kantine" in "tine")."""


def _known_head(head: str, known: Collection[str]) -> bool:
    """Whether the last word of a German compound is one the glossary or the wiki knows as
    a German word."""
    return bool(glossary_words(head)) or (head in known and _german_word(head, known))


_LINKS = ("", "s", "es", "n", "en")
"""Linking elements between the parts of a German compound (Ruhezustand-s-problem)."""


def _german_part(part: str, known: Collection[str], depth: int = 1) -> bool:
    """Whether the front of a German compound, less a linking element, is a German word or
    itself two of them ("Mitarbeiterparkplatz")."""
    for link in _LINKS:
        stem = part[: len(part) - len(link)]
        if not part.endswith(link) or len(stem) < 3:
            continue
        if _german_word(stem, known):
            return True
        if depth and any(
            _german_word(stem[cut:], known) and _german_part(stem[:cut], known, depth - 1)
            for cut in range(3, len(stem) - 2)
        ):
            return True
    return False


def _translated(noun: str, translations: Sequence[str]) -> bool:
    """Whether the index's translations of a German noun stand for it: it has some, and it
    is German (`_german_spelling`) and one of them is an English word
    (`core.word_translation.english_translation`: "Kantine" → cee is none), or one of
    them is its cognate, the same first `COGNATE_PREFIX` letters ("Parsen" → parsing). A
    name or foreign word has no translation: word translation lands it on whatever wiki
    word is nearest ("Azure" → apertus), or on two wiki words it happens to spell
    ("Offsite" → off, site)."""
    if not translations:
        return False
    if len(translations) == 1 and _cognate(noun, translations[0]):
        return True
    if _german_part(noun, ()):
        return english_translation(translations)
    return _german_spelling(noun)  # a typo of a German word: its translation stands


COGNATE_PREFIX = 4
"""First letters a noun shares with its translation to be read as its cognate."""


def _cognate(word: str, other: str) -> bool:
    """Whether two words share their first `COGNATE_PREFIX` letters ("parsen", "parsing")."""
    return len(word) >= COGNATE_PREFIX and word[:COGNATE_PREFIX] == other[:COGNATE_PREFIX]


TYPO_LENGTH = 8
"""Letters from which a noun one edit from a German word is read as its typo: shorter
ones are too often a name one letter off a German word ("Azure", Azur; "Everest")."""


@lru_cache(maxsize=4096)
def _german_spelling(word: str) -> bool:
    """Whether a lower-case noun is German, so its translation can stand for it: a German
    word, a compound of German words (`_german_part`), or a typo one edit from a German
    word ("Kolletion", `TYPO_LENGTH` letters or more) or a compound with one letter too
    many. Any other noun is a name or a foreign word ("Azure", "Salesforce"). Remembered
    per word: the look-ups of a long word's edits take milliseconds."""
    if _german_part(word, ()):
        return True
    if len(word) < TYPO_LENGTH:
        return False
    if any(language_word(edit, "de") for edit in edits1(word)):
        return True
    # a compound with a letter too many ("Zugriffsberechtigunngen"); deletions only, as
    # splitting every edit of a long word would cost too much
    return any(_german_part(word[:i] + word[i + 1 :], ()) for i in range(len(word)))


def _german_word(word: str, known: Collection[str]) -> bool:
    """Whether a lower-case word is German: in the glossary or pyspellchecker's German
    dictionary."""
    return bool(glossary_words(word)) or language_word(word, "de")


def _said(english: Sequence[str], known: Collection[str]) -> bool:
    """Whether the wiki has the glossary's first English word for a German word (each of
    its words, for a phrase: "time off"), in any simple inflection, or another form the
    glossary lists of it (`_known_form`). The first word is what the German word names;
    the later ones are neighbours ("Vertrag" = contract, also agreement), which a wiki about
    other things has as often ("contributor license agreement")."""
    first = english[0].split()
    return all(any(f in known for f in _inflections(w)) for w in first) or _known_form(
        english, known
    )


def _known_form(english: Sequence[str], known: Collection[str]) -> bool:
    """Whether the wiki knows another form the glossary lists of its first English word for
    a German word (same stem: customized → customization), in any simple inflection."""
    head = terms(english[0])
    return any(
        terms(word) == head and any(f in known for f in _inflections(word)) for word in english[1:]
    )


def _inflections(word: str) -> set[str]:
    """A word and the forms a wiki may use instead (plural, past, -ing, without them; a
    final consonant's "y" as "ie": "carry" is known from "carried" over)."""
    forms = {word, f"{word}s", f"{word}es", f"{word}ed", f"{word}d", f"{word}ing"}
    for ending in ("s", "es", "ed", "d", "ing", "ly"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            forms.add(word[: -len(ending)])
    if len(word) >= 4 and word.endswith("y") and word[-2] not in "aeiou":
        forms |= {f"{word[:-1]}ies", f"{word[:-1]}ied"}
    if len(word) >= 6 and word[-3:] in ("ies", "ied"):
        forms |= {f"{word[:-3]}y", f"{word[:-3]}ies", f"{word[:-3]}ied"}
    return forms


def followup_support(support: float, topic: float, topic_weight: float) -> float:
    """The support of a follow-up's span: its own terms' `support` and the carried topic's
    coverage (`Span.topic`), weighted 1 : `topic_weight` (chosen by cross-validation over
    conversations with out-of-scope follow-ups, `core.evaluation.followups`), rounded to
    `SUPPORT_DIGITS`: a support exactly at a threshold is not under it by a float's last bit
    ((0.6 + 2 * 0) / 3 is 0.19999999999999998, which a threshold of 0.2 declined)."""
    return round((support + topic_weight * topic) / (1 + topic_weight), SUPPORT_DIGITS)


SUPPORT_DIGITS = 6
"""Digits a follow-up's support keeps (far finer than any threshold cross-validation tries)."""


def language_threshold(thresholds: Mapping[str, float], language: str) -> float:
    """The decline threshold of `language` in `thresholds`: the English one for a language
    not listed (0 without either)."""
    return thresholds.get(language, thresholds.get("en", 0.0))


def _open_unit(uniforms: Sequence[float]) -> list[float]:
    """Uniform draws kept inside (0, 1), so the Gumbel noise -log(-log u) is finite."""
    return [min(max(u, 1e-12), 1 - 1e-12) for u in uniforms]


def render(
    question: str,
    spans: Sequence[tuple[int, Span]],
    chosen: int,
    headers: Mapping[int, str] | None = None,
    translations: Translations = (),
) -> str:
    """The answer text for the chosen span: a headline that answers the question in a
    sentence where the question allows one (`headline`; `headers`, the sources' headers by
    number, whose heading names a table), cited `[n]`; then a `Related:`
    line only when the headline is a value cut from a sentence that says more (the
    sentence). A table row needs no such line: the source excerpt shows the row.
    `translations` read a German question's words (`core.deciding_clause`)."""
    chosen = _supporting(question, spans, chosen, translations)
    number, span = spans[chosen]
    span = replace(
        span,
        answer=_unmarked(span.answer),
        unit=_unmarked(span.unit),
        whole=_unmarked(span.whole),
        label=_unmarked(span.label),
        row_key=_unmarked(span.row_key),
        parts=tuple((n, _unmarked(v)) for n, v in span.parts),
    )
    header = (headers or {}).get(number, "")
    line = headline(question, number, span, header.rpartition(" — ")[2], translations)
    if (
        span.kind == "sentence"
        and span.answer not in ("Yes", "No")
        and _plain(span.unit) not in _plain(line)
    ):
        if len(span.answer.split()) < len(span.unit.split()) and not span.parts:
            return f"{line}\n{RELATED} {span.unit} [{number}]"
    return line


def _supporting(
    question: str,
    spans: Sequence[tuple[int, Span]],
    chosen: int,
    translations: Translations = (),
) -> int:
    """For a Yes or No whose span only restates the question's own words ("Debian jessie
    x64 from PXE" for "was the installation of Debian jessie x64 successful?") or is no
    clause (`_no_clause`; an editor's note in brackets is one), the next span with the same
    verdict that says more (a row with its result cell) and holds at least as many of the
    question's terms, so the verdict comes with what decides it; `chosen` when there is
    none or the answer is no verdict. A sentence that does not decide the question
    (`core.deciding_clause.decides`) gives way to a later one with the same verdict that
    does, else to the sentence closest to the question, shown without a verdict
    (`_closest`). A row whose Yes rests on no pass/fail cell (`_flagged`) gives way to a
    sentence that decides, whatever its verdict."""
    profile = profile_question(question)
    answer = spans[chosen][1].answer
    if profile.qtype != "yesno" or answer not in ("Yes", "No"):
        return chosen

    def fragment(span: Span) -> bool:
        return _restates(profile, span) or _no_clause(span)

    def weak(span: Span) -> bool:
        return fragment(span) or not _decided(question, span, translations)

    first = spans[chosen][1]
    held = _asked_count(profile, first)

    if first.kind == "row" and not weak(first) and not _flagged(first):
        # a clause that decides outranks a row whose Yes only says that it was found,
        # whatever verdict it gives: "No: DEV events are not subject to Synchronization
        # events" over a DEV_RESET row
        for position, (_, span) in enumerate(spans[chosen + 1 :], start=chosen + 1):
            if span.kind not in ("sentence", "item") or span.answer not in ("Yes", "No"):
                continue
            if not weak(span) and _asked_count(profile, span) >= held:
                return position
        return chosen
    for shows_nothing in (weak, fragment):  # one that decides, else one that is a clause
        if not shows_nothing(first):
            return chosen
        for position, (_, span) in enumerate(spans[chosen + 1 :], start=chosen + 1):
            if span.answer != answer or shows_nothing(span):
                continue
            if _asked_count(profile, span) >= held:  # at least as much about the question
                return position
        if shows_nothing is weak and not fragment(first):
            closest = profile_question(question, translations)
            return _closest(closest, spans, chosen, lambda s: fragment(s) or not weak(s))
    return chosen


def _closest(profile, spans: Sequence[tuple[int, Span]], chosen: int, unfit) -> int:
    """Where no span decides a yes/no question, the sentence or item closest to it: the
    one holding the most of its plain (non-name) terms, what it asks of its subject, the
    earliest of equals ("Structure of the Governance Board: 7 positions on the board."
    before "Discuss the RFC on the monthly OpenXT community call." for "Were changes to the
    board structure discussed ...?"), so the reply says what the wiki says of that rather
    than of something else. A span that decides (with fewer of the question's terms), or
    is no clause, is `unfit`: it would read as a verdict, or say nothing."""

    def plain(span: Span) -> int:
        held = profile.asked_in(frozenset(terms(span.whole or span.unit)))
        return sum(1 for term in held if profile.terms.get(term, 0.0) < ENTITY_WEIGHT)

    best, held = chosen, plain(spans[chosen][1])
    for position, (_, span) in enumerate(spans[chosen + 1 :], start=chosen + 1):
        if span.kind not in ("sentence", "item") or span.answer not in ("Yes", "No"):
            continue  # a page's own answer line ("Yes: VM display driver ...") reads as one
        if unfit(span):
            continue
        count = plain(span)
        if count > held:
            best, held = position, count
    return best


def _flagged(span: Span) -> bool:
    """Whether a row span's verdict rests on a pass/fail-like cell (`_verdict_cells` without
    its label) or on a cell that denies what is asked (its No); a row found for the
    question's terms says Yes only because it was found."""
    if span.kind != "row":
        return False
    if span.answer == "No":
        return True
    label_value = span.label.partition(": ")[2]
    if label_value and cell_verdict(label_value) is not None:
        return True
    return any(
        len(value.split()) <= VERDICT_CELL_WORDS
        and any(_flag(w) is not None for w in value.split())
        for _, value in row_cells(span.whole or span.unit)
    )


def _decided(question: str, span: Span, translations: Translations = ()) -> bool:
    """Whether a sentence or item span's clause decides a yes/no question (a row is
    decided by its cells: `_deciding_cell`)."""
    if span.kind not in ("sentence", "item"):
        return True
    profile = profile_question(question)
    return decides(question, deciding_sentence(profile, span.whole or span.unit), translations)


def _asked_count(profile, span: Span) -> int:
    return len(profile.asked_in(frozenset(terms(span.whole or span.unit))))


# A line that is no clause: cut at a comma or opening a list (":"), in brackets, or code
# (a word with a path, a variable or a URL in it).
_OPEN_END = re.compile(r"[,:;]\s*$")
_BRACKETED = re.compile(r"^\s*[\[(<{]")
# An editor's note, a whole sentence in brackets: "<< Document needs significant work. >>".
_NOTE = re.compile(r"^\s*(?:<<|\[|\()\s*[A-ZÄÖÜ][^<>\[\]()]*\w[^<>\[\]()]*[.!]\s*(?:>>|\]|\))\s*$")
_CODE_WORD = re.compile(r"\\\S|\$\w|://|^-{1,2}\w|^\S+=|\w/\w+/")
HEADING_WORDS = 8


def _no_clause(span: Span) -> bool:
    """Whether a sentence or item span cannot support a Yes or No as its clause: a line cut
    at a comma or ending in ":" ("If the guest has more displays than the host,"), a
    bracketed fragment, a command or path ("mklink /D xeninp C:\\..."), or a heading (at
    most `HEADING_WORDS` words, no sentence end, every word but the small ones capitalized:
    "Revision History of this Document"). After "Yes:" each reads as a fragment."""
    if span.kind not in ("sentence", "item"):
        return False
    text = (span.whole or span.unit).strip()
    words = text.split()
    if not words:
        return True
    if _OPEN_END.search(text) or (_BRACKETED.match(text) and not _NOTE.match(text)):
        return True
    if any(_CODE_WORD.search(w) for w in words[:4]):
        return True
    big = [w for w in words if w.lower() not in STOPWORDS]
    return (
        len(words) <= HEADING_WORDS
        and not text.endswith((".", "!", "?"))
        and all(w[:1].isupper() or w[:1].isdigit() for w in big)
    )


def _restates(profile, span: Span) -> bool:
    """Whether a span's text is a short line (a heading, a list item of `RESTATING_WORDS`
    words or fewer) that adds at most one term to the question's: an echo of its names
    ("Debian jessie x64 from PXE"), which shows nothing that decides a Yes or No."""
    text = span.whole or span.unit
    said = set(terms(text))
    new = said - set(profile.asked_in(frozenset(said)))
    if any(any(c.isdigit() for c in term) for term in new):
        return False  # "Ubuntu 18.04" for "Ubuntu 24.04": another version, not an echo
    return bool(said) and len(text.split()) <= RESTATING_WORDS and len(new) <= 1


RESTATING_WORDS = 6


def headline(
    question: str, number: int, span: Span, heading: str = "", translations: Translations = ()
) -> str:
    """The first line of an answer (`core.phrasing`): for yes/no, Yes or No and the clause
    that decides it; for a value, the question as a statement ("The X is value [n].") or,
    from a table, a sentence naming the value's row and column (`core.cell_sentences`; the
    source's `heading` names the table); otherwise the span itself, each value cited."""
    language = question_language(question)
    profile = profile_question(question)
    asked = CONTEXT.sub(" ", question).strip()  # without a follow-up's carried topic
    values = [(number, span.answer), *span.parts]
    if profile.qtype == "yesno" and span.answer in ("Yes", "No") and either_or(asked):
        # which of two alternatives: what the evidence says, not a Yes or No
        if span.kind == "row":
            said = unverdicted(row_line(profile, span.unit, language, span.answer == "Yes"))
            return _cite(said or clip_words(span.unit.replace("; ", ", "), 16), number)
        return opened(
            f"{clip_words(deciding_sentence(profile, span.whole or span.unit), 30)} [{number}]"
        )
    if profile.qtype == "yesno" and span.answer in ("Yes", "No"):
        clause = deciding_sentence(profile, span.whole or span.unit)
        if span.kind == "row":
            line = _row_verdict(profile, span, number, language, heading)
            if span.answer == "Yes" and (
                asks_every(asked)
                or (not _verdict_cells(span) and not decides(question, span.unit, translations))
            ):
                # one row cannot show that every row says yes, and a row with no deciding
                # cell that holds too little of the question decides nothing: what it says
                return undecided(unverdicted(line), language)
            return line
        whole = span.whole or span.unit
        before = f"{heading} {whole[: max(whole.find(clause), 0)]}"  # what "It" names
        if not decides(question, clause, translations, before):
            # a clause that says nothing of what is asked: what the wiki says, no Yes or No
            return f"{undecided(clip_words(clause, 30), language)} [{number}]"
        return f"{verdict(span.answer == 'Yes', clip_words(clause, 30), language)} [{number}]"
    if profile.qtype == "yesno" and span.kind in ("sentence", "item") and not span.parts:
        # a clause whose condition the question leaves open: what it says, no Yes or No
        return f"{span.answer} [{number}]"
    cited = _cited(values)
    if span.kind == "row" and span.label and not span.parts:
        said = _item_said(profile, span, language, heading)
        if said:  # a cell listing several things, one of them asked about: that one
            return _cite(said, number)
    if _is_value(profile, span) and span.support >= STATEMENT_SUPPORT and not asks_several(asked):
        value = span.answer.removeprefix(f"{span.label}: ") if span.label else span.answer
        said = statement(asked, _cited([(number, value), *span.parts]), language, span.label)
        if said:
            return said
    if span.kind == "row" and span.label and not span.parts:
        value = span.answer.removeprefix(f"{span.label}: ")
        row = span.whole or span.unit
        column, about, names_row = subject(row, span.label, span.row_key, heading, language)
        place = asked_in_place(profile.text, column)
        said = cell_sentence(value, column, about, language, names_row=names_row, place=place)
        return _cite(said, number)
    if span.kind == "row" and not span.parts and len(span.answer.split("; ")) >= ROW_DUMP:
        said = answering_cell(
            span.unit,
            lambda text: profile.asked_in(frozenset(terms(text))),
            lambda text: bool(typed_values(profile.qtype, text, profile)),
        )
        if said:  # a row dump holding the answer in one cell: that cell, with its subject
            return f"{said[:-1]} [{number}]."
        said = row_line(profile, span.unit, language)  # a row dump: say what names it
        if said:
            return _cite(said, number)
    if span.kind == "row" and not span.parts:
        said = _cells_said(span, language)
        if said:  # a few cells of a row: said of the row's name
            return _cite(said, number)
    if span.kind == "row" and span.parts:
        row, cells = row_cells(span.whole or span.unit), row_cells(span.answer)
        said = _rows_said(values, language, bool(row) and cells[:1] == row[:1])
        if said:  # several rows' cells: a sentence per row
            return said
    if span.kind == "list" and not span.parts:
        said = counted_list(span.answer, language, span.whole)
        if said:  # "4: a; b; c; d" said as a count of what is listed
            return f"{said} [{number}]"
    if span.kind not in ("sentence", "item") or span.parts:
        return cited
    if span.answer != span.whole and span.answer in SENTENCE_END.split(span.whole):
        return cited  # one whole sentence of several: the one that answers
    if span.answer.endswith("…") and _plain(span.answer) in _plain(span.whole):
        # a sentence cut before its end may be cut before the fact: show it whole
        return opened(f"{clip_words(span.whole, LONG_WORDS)} [{number}]")
    if _plain(span.answer) in _plain(span.unit) and len(span.unit.split()) <= SENTENCE_WORDS:
        # A value cut from a sentence, with no statement to put it in: the sentence says
        # what the value is ("It must be done within your first 14 days, ...").
        return opened(f"{span.unit} [{number}]")
    return opened(cited)


def _verdict_cells(span: Span) -> bool:
    """Whether a row span has a deciding cell: its label, or a short cell with a
    pass/fail-like word (`_flag`: "INST: Y", "Tools: installation OK")."""
    cells = row_cells(span.whole or span.unit)
    return bool(span.label) or any(
        len(value.split()) <= VERDICT_CELL_WORDS
        and any(_flag(w) is not None for w in value.split())
        for _, value in cells
    )


# The most words of a cell whose pass/fail-like word decides a row ("installation OK").
VERDICT_CELL_WORDS = 4


def _row_verdict(profile, span: Span, number: int, language: str, heading: str) -> str:
    """Yes or No for a yes/no answered by a row, with the cell that decides it said of its
    row (`_abbreviated_cell`, `_deciding_cell`), else with the row's cells, cited."""
    named = _abbreviated_cell(profile, span, language, heading)
    if named:  # the column the question spells out ("audio" for AUD) decides
        yes, said = named
        return _cite(verdict(yes, lowered(said), language), number)
    said = _deciding_cell(span, language, heading, profile.text)
    if said:
        said = _problem_said(span, said, language)
        return _cite(verdict(span.answer == "Yes", lowered(said), language), number)
    clause = f"{span.label} ({span.row_key})" if span.row_key else span.label
    said = "" if clause else row_line(profile, span.unit, language, span.answer == "Yes")
    if said:
        return _cite(said, number)
    clause = clause or clip_words(span.unit.replace("; ", ", "), 16)
    return f"{verdict(span.answer == 'Yes', clip_words(clause, 30), language)} [{number}]"


_PROBLEM_SHOWED = {
    "en": ("so the problem did not occur", "so the problem occurred"),
    "de": ("das Problem trat also nicht auf", "das Problem trat also auf"),
}


def _problem_said(span: Span, said: str, language: str) -> str:
    """A deciding cell's sentence with what it means when its column records a problem
    (`core.spans.problem_column`) and so gives the opposite of its own Yes or No ("No: the
    OXT-243 Repro for HP 8300 is Yes, so the problem occurred."); else `said` unchanged."""
    column, _, value = span.label.partition(": ")
    showed = cell_verdict(value)
    if showed is None or not problem_column(column) or showed == span.answer:
        return said
    words = _PROBLEM_SHOWED["de" if language == "de" else "en"][showed == "Yes"]
    return f"{said.rstrip('.')}, {words}."


def _cite(sentence: str, number: int) -> str:
    """A headline with its citation: before a sentence's closing period ("... is 2.0
    [4]."), after anything else."""
    if sentence.endswith(".") and not sentence.endswith(".."):
        return f"{sentence[:-1]} [{number}]."
    return f"{sentence} [{number}]"


# A column header that abbreviates a word ("AUD", "INST", "UPG"): capitals only, this many.
_ABBREVIATION = re.compile(r"^[A-Z]{3,5}$")


def _abbreviated_cell(profile, span: Span, language: str, heading: str) -> tuple[bool, str] | None:
    """For a yes/no answered by a row whose pass/fail cells sit under abbreviated headers
    ("AUD: Y", "INST: Y"), the one cell whose header opens a word of the question ("Was
    audio playback tested ...?" → AUD) with its verdict, said of its row ("the AUD for OEM,
    Model N is Y"). Test matrices abbreviate their columns, and a cell under another
    column (the row's name, an install check) neither says nor decides what was asked.
    None unless exactly one such cell holds a verdict."""
    row = span.whole or span.unit
    words = {w.lower() for w in re.findall(r"[^\W\d_]{4,}", CONTEXT.sub(" ", profile.text))}
    found = []
    for column, value in row_cells(row):
        prefix = column.lower()
        if not _ABBREVIATION.match(column) or _flag(value) is None:
            continue
        if any(w.startswith(prefix) and w != prefix for w in words):
            found.append((column, value))
    if len(found) != 1:
        return None
    column, value = found[0]
    naming = []  # the row's leading short cells name it ("OEM", "Model N")
    for _, cell in row_cells(row)[:2]:
        if len(cell.split()) > 6 or cell_verdict(cell) is not None:
            break
        naming.append(cell)
    about = " ".join(naming) or subject(row, column, span.row_key, heading, language)[1]
    return _flag(value) == "Yes", cell_sentence(value, column, about, language)


def _flag(value: str) -> str | None:
    """`Yes`/`No` of a pass/fail-like cell (`core.spans`), "N" included: under an
    abbreviated header beside "Y" cells it is the matrix's No."""
    if value.strip().upper() == "N":
        return "No"
    return cell_verdict(value)


def _deciding_cell(span: Span, language: str, heading: str, question: str) -> str:
    """The cell that decides a yes/no answered by a row (`span.label`, "Column: value"),
    said as a sentence about its row ("the UEFI OTA upgrade 8.0.1 → 9.0.0 for Dell
    OptiPlex 7060 is Fail OXT-1654."); "" when the label is no cell of the row."""
    row = span.whole or span.unit
    for column, value in row_cells(row):
        if span.label == f"{column}: {value}":
            said, about, names_row = subject(row, column, span.row_key, heading, language)
            place = asked_in_place(question, said)
            return cell_sentence(value, said, about, language, names_row=names_row, place=place)
    return ""


# A preposition of place before a name ("in Bristol", "im Büro", "at HQ").
_PLACE_BEFORE = r"\b(?:in|at|im|am|bei)\s+"


def asked_in_place(question: str, column: str) -> bool:
    """Whether `question` asks in the place `column` names ("Is Whit Monday a holiday in
    Bristol?" of the column "Bristol"): a column named that way is a place, not the thing
    the cell is ("the Bristol for Whit Monday")."""
    if not column or not column[:1].isupper():
        return False
    pattern = _PLACE_BEFORE + re.escape(column) + r"\b"
    return re.search(pattern, question, re.IGNORECASE) is not None


def _item_said(profile, span: Span, language: str, heading: str) -> str:
    """The one asked item of an answering cell that lists several (`core.phrasing.
    asked_item`), said with its column and row (`core.cell_sentences.item_sentence`); ""
    when the cell is one item or none stands out."""
    value = span.answer.removeprefix(f"{span.label}: ")
    item = asked_item(value, lambda text: profile.asked_in(frozenset(terms(text))))
    if not item:
        return ""
    column, about, _ = subject(span.whole or span.unit, span.label, span.row_key, heading, language)
    return item_sentence(item, column, about, language)


def _cells_said(span: Span, language: str) -> str:
    """An answer of two or more cells of a row ("OS: Debian; Tools: installation OK"),
    said of the row's name (its first cell, `naming_cell`): "For Debian, Tools is
    installation OK."; "" for an answer that is not cells or was cut."""
    cells = row_cells(span.answer)
    if len(cells) < 2 or span.answer.endswith("…"):
        return ""
    row = row_cells(span.whole or span.unit) or cells
    if cells[0] == row[0]:
        return cells_sentence(naming_cell(cells, language), cells[1:], language)
    return cells_sentence(naming_cell(row, language), cells, language)


def _rows_said(values: Sequence[tuple[int, str]], language: str, named: bool) -> str:
    """Answers of several rows of a table, each two or more cells, a sentence per row: said
    of its first cell when the answers open with the cell that names their row (`named`,
    `naming_cell`: "For Install Debian guest VM with Tools, TPM is 2.0 and Result is Pass
    [1]. ..."), else the cells alone ("BIOS is A25 and Build is 6768 [2]."), as the row's
    name is not among them; "" when a value is not cells or was cut."""
    said = []
    for number, value in values:
        cells = row_cells(value)
        if len(cells) < 2 or value.endswith("…"):
            return ""
        if named:
            sentence = cells_sentence(naming_cell(cells, language), cells[1:], language)
        else:
            sentence = cells_sentence("", cells, language)
        said.append(_cite(sentence, number))
    return " ".join(said)


SENTENCE_WORDS = 35
# An answer of this many cells of a row is a dump of it, said by `core.phrasing.row_line`.
ROW_DUMP = 4
# The longest sentence shown whole as an answer (a longer one is cut there).
LONG_WORDS = 60
# A statement ("The X is value.") reads as certain: it is made only when the span covers
# most of what the question asks; a weaker span is shown in its own words, so the reader
# sees what the wiki says instead of a confident answer to another question.
STATEMENT_SUPPORT = 0.7
VALUE_WORDS = 8


def _is_value(profile, span: Span) -> bool:
    """Whether a span's answer is a value a statement can be made of: one table cell, a
    byline fact, or a short value of the asked kind cut from a sentence (not a clause)."""
    if len(span.answer.split()) > VALUE_WORDS and span.kind != "row":
        return False
    if span.kind == "row":
        return bool(span.label)
    if span.kind == "byline":
        return True
    return bool(typed_values(profile.qtype, span.answer, profile))


_WH_WORDS = re.compile(
    r"\b(?:who|what|when|where|which|why|how|wer|was|wann|wo|welche[rsmn]?|warum|wie)\b",
    re.IGNORECASE,
)


def asks_several(question: str) -> bool:
    """Whether a question asks two things ("Which ticket ..., and when was it finished?")."""
    return len(_WH_WORDS.findall(question)) > 1


_FOOTNOTE = re.compile(r"\s*\[\d+\]")


def _unmarked(text: str) -> str:
    """Text without the page's footnote marks ("Fail [1] OXT-1654"), which would read as
    citations of the answer's sources."""
    return _FOOTNOTE.sub("", text)


def _cited(values: Sequence[tuple[int, str]]) -> str:
    """Values joined by "; ", each run of values from one source followed by its citation:
    `a; b [1]; c [3]`."""
    out = []
    for position, (number, value) in enumerate(values):
        last = position + 1 == len(values) or values[position + 1][0] != number
        out.append(f"{value} [{number}]" if last else value)
    return "; ".join(out)


def _plain(text: str) -> str:
    return " ".join(text.replace("…", " ").lower().split())
