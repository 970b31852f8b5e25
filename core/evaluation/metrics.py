"""Page-level retrieval metrics of the ConfQuestions benchmark, as pure functions.

Gold answers name pages by URL; URLs differ in punctuation between the gold answers and the
documents, so pages are matched by the numeric id in `/pages/<id>/` (ConfQuestions README).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

_PAGE_ID = re.compile(r"/pages/(\d+)")
_WORD = re.compile(r"[^\W_]+(?:[.\-][^\W_]+)*", re.UNICODE)

# Function words left out of answer token recall: they say nothing about the answer.
_STOP = frozenset(
    """a an and are as at be by for from has have in is it its of on or that the this to was
    were will with which who what when where how der die das und ist ein eine zu von mit für
    den dem des im auf""".split()
)


# Numbers written as words count as their digits: gold answers write "Nine" where an answer
# counts "9" (English and German, zero to twenty; "ein"/"eine" are German articles).
_NUMBER_WORDS = {
    word: str(value)
    for words in (
        "zero one two three four five six seven eight nine ten eleven twelve thirteen"
        " fourteen fifteen sixteen seventeen eighteen nineteen twenty",
        "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn"
        " vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn zwanzig",
    )
    for value, word in enumerate(words.split())
}


def page_id_of(url: str) -> str:
    """The numeric Confluence page id in a URL, or the URL itself when it has none."""
    match = _PAGE_ID.search(url or "")
    return match.group(1) if match else url


# The benchmark's gold answers are English; a reply to a German question says Ja or Nein.
_SAME_AS = {"ja": "yes", "nein": "no"}


def content_tokens(text: str) -> list[str]:
    """Lower-cased words and version-like tokens of `text`, function words removed, number
    words as digits ("Nine" → 9) and German Ja and Nein as yes and no."""
    words = (m.lower() for m in _WORD.findall(text or ""))
    return [_SAME_AS.get(t, _NUMBER_WORDS.get(t, t)) for t in words if t not in _STOP]


def answer_recall(gold_answer: str, texts: Iterable[str]) -> float:
    """Share of the gold answer's distinct content tokens found in `texts`."""
    gold = set(content_tokens(gold_answer))
    if not gold:
        return 1.0
    found = set()
    for text in texts:
        found.update(content_tokens(text))
    return len(gold & found) / len(gold)


def precision_at_1(ranked_pages: Sequence[str], gold: set[str]) -> float:
    """1 when the top-ranked evidence comes from a gold page."""
    return float(bool(ranked_pages) and ranked_pages[0] in gold)


def recall_at_k(ranked_pages: Sequence[str], gold: set[str], k: int = 10) -> float:
    """Share of gold pages that have an evidence among the top `k`."""
    if not gold:
        return 0.0
    return len(gold & set(ranked_pages[:k])) / len(gold)


def reciprocal_rank(ranked_pages: Sequence[str], gold: set[str], k: int = 10) -> float:
    """1 / rank of the first evidence from a gold page within the top `k`, else 0."""
    for rank, page in enumerate(ranked_pages[:k], start=1):
        if page in gold:
            return 1.0 / rank
    return 0.0


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean (0 for no values)."""
    return sum(values) / len(values) if values else 0.0


def summarize(records: Sequence[dict], metrics: Sequence[str]) -> dict[str, float]:
    """Mean of each metric over the records, plus `n`."""
    out = {m: round(mean([r[m] for r in records if r.get(m) is not None]), 4) for m in metrics}
    out["n"] = len(records)
    return out


def slices(records: Sequence[dict], keys: Sequence[str], metrics: Sequence[str]) -> dict:
    """Per-slice summaries: {key: {value: summary}} for each slicing key."""
    out: dict[str, dict[str, dict]] = {}
    for key in keys:
        groups: dict[str, list[dict]] = defaultdict(list)
        for r in records:
            groups[str(r.get(key))].append(r)
        out[key] = {value: summarize(group, metrics) for value, group in sorted(groups.items())}
    return out
