"""How far the offline answerer is from the best answer its sources allow.

Retrieves the top 10 evidences of every completed ConfQuestions question once and answers
it as `confbot serve` does (no decline threshold). For each question it takes the oracle:
the best token F1 that any single unit (table row, list item, whole list, sentence;
`core.spans.units`) or table cell (`value` and `Column: value`) of the ten evidences
reaches against the gold answer, and the same inside the evidence the answer came from.
It prints the means per language and counts where the answer falls short:

- `no unit`: no unit or cell of the ten reaches F1 0.5 (the gold answer is a count, a
  comparison or a summary that no single passage states);
- `other evidence`: one does, but not in the evidence the answer came from;
- `other unit`: the answer's evidence holds one, and the answer (and its supporting line)
  stays more than 0.2 below it;
- `answered`: the answer reaches F1 0.5.

    CONFBOT_DATA_DIR=/tmp/bench .venv/bin/python benchmarks/answer_oracle.py
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import DATA, benchmark_pages  # noqa: E402
from core.answer import CITATION, source_header, source_text, split_answer  # noqa: E402
from core.assistant import make_llm  # noqa: E402
from core.evaluation.answers import token_scores  # noqa: E402
from core.evaluation.benchmark import benchmark_index, load_conversations, questions  # noqa: E402
from core.extractive import render  # noqa: E402
from core.retrieve import Retriever  # noqa: E402
from core.settings import Settings  # noqa: E402
from core.spans import units  # noqa: E402

GOOD = 0.5


def oracle_f1(gold: str, text: str) -> float:
    """The best token F1 of one unit or table cell of `text` against `gold`."""
    best = 0.0
    for unit in units(text):
        candidates = [unit.text]
        for name, value in unit.pairs:
            candidates += [value, f"{name}: {value}"]
        best = max([best, *(token_scores(gold, c)[0] for c in candidates)])
    return best


def main() -> None:
    settings = Settings.load().replace(llm_base_url="")
    index, embedder, _ = benchmark_index(settings, benchmark_pages())
    retriever = Retriever.from_settings(index, embedder, settings)
    served = make_llm(settings, index)
    llm = served.unthresholded()
    items = questions(load_conversations(DATA / "conversations.json"), "completed", ("en", "de"))
    rows: dict[str, list[tuple[float, float, float]]] = {}
    outcomes: dict[str, Counter] = {}
    for item in items:
        evidences = [r.evidence for r in retriever.search(item.text, k=10).results]
        texts = [source_text(e) for e in evidences]
        sources = [
            (n, source_header(e), t)
            for n, (e, t) in enumerate(zip(evidences, texts, strict=True), 1)
        ]
        spans = llm.spans(item.text, sources)
        everywhere = max((oracle_f1(item.answer, t) for t in texts), default=0.0)
        count = outcomes.setdefault(item.lang, Counter())
        if not spans:
            rows.setdefault(item.lang, []).append((0.0, 0.0, everywhere))
            count["no span"] += 1
            continue
        number, span = spans[0]
        shown = " ".join(
            CITATION.sub(" ", split_answer(render(item.text, spans, 0)).answer).split()
        )
        f1 = token_scores(item.answer, shown)[0]
        chosen = oracle_f1(item.answer, texts[number - 1])
        rows.setdefault(item.lang, []).append((f1, chosen, everywhere))
        if f1 >= GOOD:
            count["answered"] += 1
        elif everywhere < GOOD:
            count["no unit"] += 1
        elif chosen < GOOD:
            count["other evidence"] += 1
        elif max(f1, token_scores(item.answer, span.unit)[0]) < chosen - 0.2:
            count["other unit"] += 1
        else:
            count["close"] += 1
    for lang, values in sorted(rows.items()):
        answer, chosen, everywhere = (statistics.mean(v[i] for v in values) for i in range(3))
        print(
            f"{lang}: answer F1 {answer:.3f} (no threshold); oracle inside the answer's"
            f" evidence {chosen:.3f}; oracle over the top 10 {everywhere:.3f};"
            f" {dict(sorted(outcomes[lang].items()))} of {len(values)}"
        )


if __name__ == "__main__":
    main()
