"""Lexical side of retrieval: a tokenizer that keeps technical tokens, and the BM25 formula.

The tokenizer keeps version numbers and issue keys (`9.0.2`, `OXT-1654`, `xen-4.9`) as
tokens and also emits their parts, so `OXT 1654` still matches `OXT-1654`. Plain words are
lower-cased and stemmed with the English Snowball stemmer (the wiki is English). German
queries drop German stopwords first: the technical terms they share with the English
corpus are then what BM25 sees. Dates also get their normalized tokens (`date:2016-08-18`,
core.entities), so "August 18, 2016" matches a title that says "Auguest 18 2016". The index
that scores with these functions is `core.store` (postings in SQL, scored by the database).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.pages import Evidence

from core.entities import date_tokens
from core.limits import MAX_EVIDENCE_TERMS, MAX_LEXICAL_CHARS, bounded_text

_TOKEN = re.compile(r"[^\W_]+(?:[.\-_/+][^\W_]+)*", re.UNICODE)
_SPLIT = re.compile(r"[.\-_/+]")

ENGLISH_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves""".split()
)

GERMAN_STOPWORDS = frozenset(
    """aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
    anderes anderm andern anderr anders auch auf aus bei bin bis bist da damit dann das dass
    daß dasselbe dazu dein deine deinem deinen deiner deines dem demselben den denn denselben
    der derer derselbe derselben des desselben dessen dich die dies diese dieselbe dieselben
    diesem diesen dieser dieses dir doch dort du durch ein eine einem einen einer eines einig
    einige einigem einigen einiger einiges einmal er es etwas euch euer eure eurem euren eurer
    eures für gegen gewesen gibt hab habe haben hat hatte hatten hier hin hinter ich ihm ihn
    ihnen ihr ihre ihrem ihren ihrer ihres im in indem ins ist jede jedem jeden jeder jedes
    jene jenem jenen jener jenes jetzt kann kein keine keinem keinen keiner keines können
    könnte machen man manche manchem manchen mancher manches mein meine meinem meinen meiner
    meines mich mir mit muss musste nach nicht nichts noch nun nur ob oder ohne sehr sein seine
    seinem seinen seiner seines selbst sich sie sind so solche solchem solchen solcher solches
    soll sollte sondern sonst um und uns unsere unserem unseren unser unseres unter viel vom
    von vor während war waren warst was weg weil weiter welche welchem welchen welcher welches
    wenn werde werden wie wieder will wir wird wirst wo wollen wollte worden wurde wurden würde
    würden zu zum zur zwar zwischen wer wem wen wessen wann warum wieso weshalb welchen gibt es
    bitte sowie bzw beim""".split()
)


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


# Letters and marks of German spelling that English words do not have: umlauts, ß and the
# low opening quote.
_GERMAN_MARKS = re.compile(r"[äöüÄÖÜß„]")


def detect_language(text: str) -> str:
    """'de' when German stopwords outnumber English ones in `text`, else 'en'; on a tie
    (a question of content words only, "Dürfen Variablennamen … enthalten?",
    "Kompatibilitätseigenschaften?") 'de' when it has an umlaut, ß or „.

    A stopword-ratio detector: short questions carry enough function words for it.
    """
    words = [w.lower() for w in _TOKEN.findall(text)]
    german = sum(w in GERMAN_STOPWORDS and w not in ENGLISH_STOPWORDS for w in words)
    english = sum(w in ENGLISH_STOPWORDS and w not in GERMAN_STOPWORDS for w in words)
    if german == english and _GERMAN_MARKS.search(text):
        return "de"
    return "de" if german > english else "en"


# Distinct words whose index form is remembered: a wiki's vocabulary is Zipfian, so most
# words of a page were seen before and tokenizing costs a dictionary look-up per word.
WORD_CACHE = 1 << 17


@lru_cache(maxsize=WORD_CACHE)
def _stem(word: str) -> str:
    """A lower-cased word stemmed (English Snowball)."""
    return _stemmer().stemWord(word)


@lru_cache(maxsize=WORD_CACHE)
def _word_form(token: str) -> str:
    """A lower-cased token without joiners as indexed: kept whole when it has a digit."""
    return token if any(c.isdigit() for c in token) else _stem(token)


def tokenize(text: str, language: str = "en") -> list[str]:
    """Tokens of `text` for BM25: compounds with digits or joiners kept whole plus their parts,
    stopwords of `language` removed, words stemmed (English Snowball), then the normalized
    tokens of the dates it names."""
    stop = GERMAN_STOPWORDS | ENGLISH_STOPWORDS if language == "de" else ENGLISH_STOPWORDS
    out: list[str] = []
    for match in _TOKEN.findall(text):
        token = match.lower()
        if _SPLIT.search(token):
            out.append(token)
            parts = [p for p in _SPLIT.split(token) if p and p not in stop]
            out.extend(p if p.isdigit() else _stem(p) for p in parts)
        elif token not in stop:
            out.append(_word_form(token))
    out.extend(date_tokens(text))
    return out


# Okapi BM25 as Lucene scores it (the variant bm25s implements, with its defaults).
K1 = 1.5
B = 0.75
# Term weights are stored as integers in [0, IMPACT_SCALE] to order each term's postings.
IMPACT_SCALE = 32767
# Longer tokens (encoded blobs, long URLs) are not indexed: a B-tree key must stay small.
MAX_TERM_LENGTH = 100


def idf(df: int, documents: int) -> float:
    """Inverse document frequency of a term in `df` of `documents` documents: the Lucene form
    ln(1 + (N - df + 0.5) / (df + 0.5)), never negative (Robertson and Zaragoza, "The
    Probabilistic Relevance Framework: BM25 and Beyond", 2009; Lucene's BM25Similarity)."""
    return math.log(1.0 + (documents - df + 0.5) / (df + 0.5))


def term_weight(tf: int, length: int, average_length: float) -> float:
    """The BM25 term-frequency part tf / (tf + k1 (1 - b + b |d| / avgdl)) (Lucene form,
    without the constant (k1 + 1) factor, which does not change the ranking)."""
    return tf / (tf + K1 * (1.0 - B + B * length / (average_length or 1.0)))


def impact(tf: int, length: int, reference_length: float) -> int:
    """A term's weight in one document as an integer in [0, IMPACT_SCALE], computed with a
    fixed reference length: the order in which a term's postings are read, best first
    (impact-ordered postings, Anh and Moffat, "Pruned query evaluation using pre-computed
    impacts", SIGIR 2006). Scores use the exact weight; only the reading order uses this."""
    return round(term_weight(tf, length, reference_length) * IMPACT_SCALE)


def term_counts(tokens: Sequence[str]) -> Counter[str]:
    """How often each indexable token occurs: tokens over MAX_TERM_LENGTH are left out, and
    of more than `core.limits.MAX_EVIDENCE_TERMS` distinct ones only the most frequent
    (the first seen among equals) are kept."""
    counts = Counter(t for t in tokens if len(t) <= MAX_TERM_LENGTH)
    if len(counts) > MAX_EVIDENCE_TERMS:
        counts = Counter(dict(counts.most_common(MAX_EVIDENCE_TERMS)))
    return counts


def evidence_tokens(evidence: Evidence) -> list[str]:
    """The lexical tokens of an evidence: the one place that decides what lexical search
    sees of it (its contextualized text, cut to `core.limits.MAX_LEXICAL_CHARS`,
    tokenized), for every store."""
    return tokenize(bounded_text(evidence.contextualized, MAX_LEXICAL_CHARS))
