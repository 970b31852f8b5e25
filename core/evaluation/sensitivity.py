"""Attribution sensitivity (CAS) and bias (CAB): an attribution test that can fail.

On ConfQuestions the answer usually comes from evidence #1, so attribution accuracy mostly
measures retrieval: "everything to evidence #1" scores as well as any method. This test,
in the spirit of PAttriEval (Abolghasemi, Azzopardi, Hashemi, de Rijke and Verberne,
"Evaluation of Attribution Bias in Generator-Aware Retrieval-Augmented Large Language
Models", ACL 2025 Findings, arXiv:2410.12380), changes what should matter and checks that
the attribution follows, with the cause known by construction. For each question:

1. Answer from the top k evidences; the answer's source is its first cited evidence s.
2. Pick a target position j (uniform over 1..k, seeded by the question). Evidence j is
   replaced by s's text in which the answer's own words (those of the most likely answer
   that the question does not contain) are swapped for counterfeit ones (`counterfeit`),
   and s's old position gets the evidence that stood at j. Only evidence j now holds the
   counterfeit answer.
3. Answer again. The trial counts when the new answer contains a counterfeit word: the
   answer changed, and evidence j caused the change.
4. Attribute the new answer with every method; the share each gives evidence j is what
   is measured (a cluster's share is split equally among its evidences).

Figures over the counted trials:
- CAS (counterfactual attribution sensitivity): the mean share on the cause j; CAS@1: how
  often the cause is the top-attributed evidence. A method that follows the cause gets 1;
  "all to evidence #1" and "uniform" get about 1/k, since j is drawn uniformly.
- CAB (counterfactual attribution bias): how much the share on the cause depends on where
  the cause sits or how long it is, though the content is the same kind in every trial.
  CAB-position: mean share when j is in the first half of the list minus in the second
  half; CAB-length: mean share when the cause is longer than the list's median evidence
  minus when it is not. 0 is unbiased; "all to evidence #1" has a positive CAB-position.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
import statistics
from collections.abc import Sequence

from core.answer import CITATION, cited_numbers, generate, split_answer
from core.attribution import attribute
from core.embeddings import Embedder
from core.evaluation.attribution import BASELINES, baseline_explanation, evidence_shares
from core.evaluation.benchmark import Question, question_fields
from core.evaluation.metrics import mean
from core.lexical import ENGLISH_STOPWORDS, GERMAN_STOPWORDS
from core.llm import LLM
from core.pages import Evidence
from core.retrieve import Retriever
from core.settings import Settings

_WORD = re.compile(r"[^\W_]+(?:[.\-][^\W_]+)*", re.UNICODE)
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"


def counterfeit(word: str) -> str:
    """A stand-in for `word` that no page contains: digits shifted by five (`1.14.0` →
    `6.69.5`), letters replaced by a pronounceable made-up word of the same length and
    capitalization; deterministic."""
    if any(c.isdigit() for c in word):
        return "".join(str((int(c) + 5) % 10) if c.isdigit() else c for c in word)
    digest = hashlib.sha256(word.lower().encode()).digest()
    letters = [
        (_CONSONANTS if i % 2 == 0 else _VOWELS)[digest[i % len(digest)] % (5 if i % 2 else 14)]
        for i in range(max(len(word), 4))
    ]
    made = "".join(letters)
    return made.capitalize() if word[:1].isupper() else made


def answer_words(answer: str, question: str, source: str) -> list[str]:
    """The words of the most likely answer that carry it: not in the question, not
    stopwords, and present in the source text."""
    parts = split_answer(answer)
    asked = {w.lower() for w in _WORD.findall(question)}
    present = {w.lower() for w in _WORD.findall(source)}
    stop = ENGLISH_STOPWORDS | GERMAN_STOPWORDS
    out: list[str] = []
    for word in _WORD.findall(CITATION.sub(" ", parts.answer)):
        lower = word.lower()
        if len(word) > 1 and lower not in stop and lower not in asked and lower in present:
            if lower not in {w.lower() for w in out}:
                out.append(word)
    return out


def edit_source(text: str, words: Sequence[str]) -> tuple[str, list[str]]:
    """`text` with each of `words` (whole words, any case) replaced by its counterfeit;
    returns the new text and the counterfeits."""
    fakes = []
    for word in words:
        fake = counterfeit(word)
        pattern = re.compile(rf"(?<![\w.]){re.escape(word)}(?![\w]|\.\w)", re.IGNORECASE)
        text, count = pattern.subn(fake, text)
        if count:
            fakes.append(fake)
    return text, fakes


@dataclasses.dataclass
class Trial:
    """One counterfactual: the evidences with the cause at `target` (1-based), the new
    answer, and the counterfeit words that make it."""

    evidences: list[Evidence]
    target: int
    answer: str
    fakes: list[str]

    @property
    def valid(self) -> bool:
        """Whether the new answer carries a counterfeit word (its cause is evidence
        `target`)."""
        answer = split_answer(self.answer).answer.lower()
        return any(fake.lower() in answer for fake in self.fakes)


def make_trial(
    llm: LLM, question: str, evidences: Sequence[Evidence], answer: str, rng: random.Random
) -> Trial | None:
    """The counterfactual of one answered question (see the module docstring), or None
    when the answer cites nothing or has no word of its own to counterfeit."""
    cited = [n for n in cited_numbers(answer) if 1 <= n <= len(evidences)]
    if not cited:
        return None
    source = cited[0]
    words = answer_words(answer, question, evidences[source - 1].text)
    if not words:
        return None
    text, fakes = edit_source(evidences[source - 1].text, words)
    if not fakes:
        return None
    target = rng.randint(1, len(evidences))
    moved = list(evidences)
    moved[source - 1], moved[target - 1] = moved[target - 1], moved[source - 1]
    cause = moved[target - 1]
    moved[target - 1] = dataclasses.replace(cause, text=text)
    (again,) = generate(llm, question, moved)
    return Trial(moved, target, again.text, fakes)


def run_sensitivity(
    retriever: Retriever,
    llm: LLM,
    embedder: Embedder,
    settings: Settings,
    items: Sequence[Question],
    methods: Sequence[str],
    k: int = 10,
    seed: int = 0,
) -> list[dict]:
    """One record per question that gave a trial (an answer citing a source with words of
    its own): the target position and whether the trial counts (`valid`); for a counted
    trial, whether the cause is longer than the median evidence, and each method's (and
    baseline's) share on the cause and whether it is the top-attributed evidence."""
    records = []
    for question in items:
        evidences = [r.evidence for r in retriever.search(question.text, k=k).results]
        if not evidences:
            continue
        (answer,) = generate(llm, question.text, evidences)
        if answer.out_of_scope:
            continue
        rng = random.Random(f"{seed}:{question.conv_id}:{question.turn_id}:{question.lang}")
        trial = make_trial(llm, question.text, evidences, answer.text, rng)
        if trial is None:
            continue
        record = {**question_fields(question), "target": trial.target, "valid": trial.valid}
        records.append(record)
        if not trial.valid:
            continue
        lengths = [len(e.text.split()) for e in trial.evidences]
        record.update(
            early=trial.target <= len(evidences) / 2,
            long=lengths[trial.target - 1] > statistics.median(lengths),
            answer=trial.answer,
        )
        for method in [*methods, *BASELINES]:
            if method in BASELINES:
                explanation = baseline_explanation(
                    method, question.text, trial.answer, len(evidences)
                )
            else:
                explanation = attribute(
                    method, settings, llm, embedder, question.text, trial.evidences, trial.answer
                )
            shares = evidence_shares(explanation, len(evidences))
            record[f"{method}_share"] = shares[trial.target - 1]
            record[f"{method}_top"] = float(
                max(range(len(shares)), key=lambda i: (shares[i], -i)) + 1 == trial.target
                and shares[trial.target - 1] > 0
            )
    return records


def summarize_sensitivity(records: Sequence[dict], methods: Sequence[str]) -> dict[str, dict]:
    """Per method and baseline: CAS (mean share on the cause), CAS@1, CAB-position and
    CAB-length (see the module docstring) over the counted trials, their number `n`, and
    the number of trials made (`tried`: a trial does not count when the new answer does
    not take the counterfeit words, e.g. because another evidence now wins)."""
    tried = len(records)
    records = [r for r in records if r.get("valid", True)]
    out = {}
    for method in [*methods, *BASELINES]:
        share = [r[f"{method}_share"] for r in records]

        def part(key: str, value: bool, share_key: str = f"{method}_share") -> float:
            return mean([r[share_key] for r in records if r[key] == value])

        out[method] = {
            "cas": round(mean(share), 4),
            "cas_at_1": round(mean([r[f"{method}_top"] for r in records]), 4),
            "cab_position": round(part("early", True) - part("early", False), 4),
            "cab_length": round(part("long", True) - part("long", False), 4),
            "n": len(records),
            "tried": tried,
        }
    return out
