"""Spelling correction on ConfQuestions: what it changes, what it recovers, what it costs.

1. The completed questions as written (English and German): how many the speller changes
   (each change printed, to read), and retrieval P@1 with the correction off and on, as
   `confbot eval` computes it (it must not drop).
2. The same questions with one typo made in each (seeded): in one word of 5+ letters that
   the wiki's vocabulary holds, two adjacent letters swapped, a letter dropped or a letter
   doubled. P@1 of the misspelt questions without and with correction, and how many typos
   were undone exactly. German questions are corrected only for swaps (`core.spelling`),
   so their other typos are counted as left alone, by design.
3. Time: loading the vocabulary (`EvidenceIndex.speller`, once per index change) and
   `Speller.correct` per question, on the questions of part 2. Prints the machine load
   beside the figures, since other processes skew them.

    CONFBOT_DATA_DIR=/tmp/bench .venv/bin/python benchmarks/spelling.py
"""

from __future__ import annotations

import os
import random
import re
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import DATA, benchmark_pages, summary_ms  # noqa: E402
from core.evaluation.benchmark import (  # noqa: E402
    benchmark_index,
    duplicate_groups,
    load_conversations,
    questions,
    report,
    run_retrieval,
)
from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS, detect_language  # noqa: E402
from core.retrieve import Retriever  # noqa: E402
from core.settings import Settings  # noqa: E402

SEED = 29
_WORD = re.compile(r"[^\W\d_]{5,}")


def make_typo(word: str, rng: random.Random) -> str:
    """`word` with one typo: an adjacent swap, a dropped letter or a doubled letter."""
    i = rng.randrange(1, len(word) - 1)
    kind = rng.choice(("swap", "drop", "double"))
    if kind == "swap" and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "double":
        return word[: i + 1] + word[i] + word[i + 1 :]
    return word[:i] + word[i + 1 :]


def misspell(text: str, vocabulary, rng: random.Random) -> tuple[str, str, str] | None:
    """(misspelt text, the word, its typo) for one vocabulary word of `text`, or None."""
    stop = ENGLISH_STOPWORDS | GERMAN_STOPWORDS
    words = [
        m for m in _WORD.finditer(text) if m.group().lower() in vocabulary and m.group() not in stop
    ]
    if not words:
        return None
    match = rng.choice(words)
    typo = make_typo(match.group(), rng)
    if typo.lower() in vocabulary:
        return None
    return text[: match.start()] + typo + text[match.end() :], match.group(), typo


def p_at_1(retriever, items, groups) -> dict[str, float]:
    records = run_retrieval(retriever, items, groups)
    return {
        lang: round(report([r for r in records if r["lang"] == lang])["p_at_1"], 4)
        for lang in ("en", "de")
    }


def main() -> None:
    settings = Settings.load().replace(llm_base_url="")
    pages = benchmark_pages()
    groups = duplicate_groups(pages)
    index, embedder, _ = benchmark_index(settings, pages)
    retriever = Retriever.from_settings(index, embedder, settings)
    items = questions(load_conversations(DATA / "conversations.json"), "completed", ("en", "de"))

    start = time.perf_counter()
    speller = index.speller()
    load_ms = (time.perf_counter() - start) * 1000
    print(f"vocabulary: {len(speller.counts)} words, loaded in {load_ms:.0f} ms")

    def corrected(item):
        return replace(item, text=speller.correct(item.text, detect_language(item.text)).text)

    print("\n1. Completed questions as written")
    changed = [(i, speller.correct(i.text, detect_language(i.text))) for i in items]
    changed = [(i, c) for i, c in changed if c.changes]
    for item, correction in changed:
        print(f"  [{item.lang}] {item.text}  ->  {correction.changes}")
    print(f"  changed: {len(changed)} of {len(items)}")
    print(f"  P@1 correction off: {p_at_1(retriever, items, groups)}")
    print(f"  P@1 correction on:  {p_at_1(retriever, [corrected(i) for i in items], groups)}")

    print("\n2. One typo per question")
    rng = random.Random(SEED)
    typed, undone, times = [], {"en": 0, "de": 0}, []
    for item in items:
        made = misspell(item.text, speller.counts, rng)
        if made is None:
            continue
        text, word, typo = made
        typed.append(replace(item, text=text))
        start = time.perf_counter()
        correction = speller.correct(text, detect_language(text))
        times.append((time.perf_counter() - start) * 1000)
        undone[item.lang] += correction.changes.get(typo, "").lower() == word.lower()
    per_lang = {lang: sum(i.lang == lang for i in typed) for lang in ("en", "de")}
    print(f"  misspelt questions: {per_lang}; typos undone exactly: {undone}")
    print(f"  P@1 misspelt, correction off: {p_at_1(retriever, typed, groups)}")
    fixed = [corrected(i) for i in typed]
    print(f"  P@1 misspelt, correction on:  {p_at_1(retriever, fixed, groups)}")

    print("\n3. Cost")
    print(
        f"  Speller.correct per misspelt question: {summary_ms(times)}"
        f" (mean {statistics.mean(times):.2f} ms); load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
