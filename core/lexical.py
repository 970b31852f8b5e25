"""Lexical side of retrieval: a tokenizer that keeps technical tokens, and BM25 over bm25s.

The tokenizer keeps version numbers and issue keys (`9.0.2`, `OXT-1654`, `xen-4.9`) as
tokens and also emits their parts, so `OXT 1654` still matches `OXT-1654`. Plain words are
lower-cased and stemmed with the English Snowball stemmer (the wiki is English). German
queries drop German stopwords first: the technical terms they share with the English
corpus are then what BM25 sees. Dates also get their normalized tokens (`date:2016-08-18`,
core.entities), so "August 18, 2016" matches a title that says "Auguest 18 2016".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from core.entities import date_tokens

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


def detect_language(text: str) -> str:
    """'de' when German stopwords outnumber English ones in `text`, else 'en'.

    A stopword-ratio detector: short questions carry enough function words for it.
    """
    words = [w.lower() for w in _TOKEN.findall(text)]
    german = sum(w in GERMAN_STOPWORDS and w not in ENGLISH_STOPWORDS for w in words)
    english = sum(w in ENGLISH_STOPWORDS and w not in GERMAN_STOPWORDS for w in words)
    return "de" if german > english else "en"


def tokenize(text: str, language: str = "en") -> list[str]:
    """Tokens of `text` for BM25: compounds with digits or joiners kept whole plus their parts,
    stopwords of `language` removed, words stemmed (English Snowball), then the normalized
    tokens of the dates it names."""
    stop = GERMAN_STOPWORDS | ENGLISH_STOPWORDS if language == "de" else ENGLISH_STOPWORDS
    stemmer = _stemmer()
    out: list[str] = []
    for match in _TOKEN.findall(text):
        token = match.lower()
        if _SPLIT.search(token):
            out.append(token)
            parts = [p for p in _SPLIT.split(token) if p and p not in stop]
            out.extend(p if p.isdigit() else stemmer.stemWord(p) for p in parts)
        elif token not in stop:
            out.append(token if any(c.isdigit() for c in token) else stemmer.stemWord(token))
    out.extend(date_tokens(text))
    return out


class BM25Index:
    """Okapi BM25 over token lists (bm25s, Lucene variant, k1=1.5, b=0.75 as in bm25s).

    Built whole from (id, tokens) pairs; query scores can be restricted by a 0/1 mask.
    """

    def __init__(self, ids: Sequence[str], corpus_tokens: Sequence[Sequence[str]]):
        import bm25s

        self.ids = list(ids)
        self._model = bm25s.BM25()
        if self.ids:
            # Every document gets a sentinel token so none is empty (bm25s rejects empty docs).
            tokens = [[*t, "\x00"] for t in corpus_tokens]
            self._model.index(tokens, show_progress=False)

    def scores(self, query_tokens: Sequence[str], mask: np.ndarray | None = None) -> np.ndarray:
        """BM25 score of every document for the query (zeros when no query token is known)."""
        known = [t for t in query_tokens if t in self._model.vocab_dict] if self.ids else []
        if not known:
            return np.zeros(len(self.ids), dtype=np.float32)
        return self._model.get_scores(known, weight_mask=mask)

    def search(
        self, query_tokens: Sequence[str], k: int, mask: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """The top `k` (id, score) pairs with a positive score, best first; ties by id."""
        scores = self.scores(query_tokens, mask)
        return top_k(self.ids, scores, k)

    def save(self, folder: Path) -> None:
        """Persist the index under `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "ids.txt").write_text("\n".join(self.ids), encoding="utf-8")
        if self.ids:
            self._model.save(str(folder / "bm25"))

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        """Load an index saved by `save`."""
        import bm25s

        index = cls.__new__(cls)
        text = (folder / "ids.txt").read_text(encoding="utf-8")
        index.ids = text.split("\n") if text else []
        index._model = bm25s.BM25.load(str(folder / "bm25")) if index.ids else bm25s.BM25()
        return index


def top_k(ids: Sequence[str], scores: np.ndarray, k: int) -> list[tuple[str, float]]:
    """The `k` best positive scores as (id, score), best first, ties broken by id."""
    positive = np.flatnonzero(scores > 0)
    if positive.size > k * 4:
        cut = np.argpartition(-scores[positive], k)[: k * 4]
        positive = positive[cut]
    ranked = sorted(positive.tolist(), key=lambda i: (-float(scores[i]), ids[i]))[:k]
    return [(ids[i], float(scores[i])) for i in ranked]


def space_mask(spaces_of_docs: Sequence[str], allowed: Collection[str]) -> np.ndarray:
    """1.0 for documents whose space is allowed, else 0.0."""
    allowed = set(allowed)
    return np.fromiter((s in allowed for s in spaces_of_docs), dtype=np.float32)
