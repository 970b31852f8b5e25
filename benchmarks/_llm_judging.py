"""Replies of the LLM harness written for judging by reading, with a mechanical check.

`benchmarks/llm_endpoint_eval.py --judging DIR` records every answer check the model's
replies go through (`CheckRecorder`) and then writes, per question of the run
(`write_judging`):

- `DIR/offline.jsonl`, `DIR/model.jsonl`, `DIR/combined.jsonl`: one line per question in
  the form of `confbot eval --unjudged` (`core.evaluation.verdicts.to_judge`: the key, the
  reply as shown, the gold answer and pages, empty verdict fields), so a judge's filled-in
  file merges with `confbot eval --verdicts-in`. The combined lines add the model's raw
  reply, the offline answerer's, where the shown reply came from (`origin`, `reason`), the
  sentences grounding dropped, and the sources its citations point at (number, header,
  text) so the judge can read whether a cited source holds the fact.
- `DIR/mechanical.json`: each file's replies' sentences checked by string matching only
  (`mechanical_check`): which numbers and names a sentence states beyond the question and
  whether its cited sources, or any source, hold them (a count of the items it lists
  needs no source). It cannot see meaning (a flipped
  negation, a yes or no, a count): it is a floor on the errors, not a verdict.

Keep DIR outside the repository: it holds gold answers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from core.answer import CITATION, cited_numbers, parse_prompt, split_follow_ups
from core.combine import NOTES, CheckedLLM, without_row_count
from core.evaluation.verdicts import gold_answers, to_judge
from core.grounding import counted_items, holds_fact, split_sentences, stated_facts

FILES = {"offline": "offline", "off": "model", "combined": "combined"}
"""The harness's answerers whose replies are written, and the file each goes to."""

_NOTE_LINES = {text for reason in NOTES.values() for text in reason.values()}


class CheckRecorder:
    """Records each answer check `CheckedLLM.check` makes (patched while the recorder is on),
    by question: the model's raw reply, the reply shown, its origin and the prompt's
    sources."""

    def __init__(self) -> None:
        self.checks: dict[str, dict] = {}
        self._check: Callable | None = None

    def start(self) -> CheckRecorder:
        recorder, check = self, CheckedLLM.check
        self._check = check

        def recorded(self, reply, messages):
            checked = check(self, reply, messages)
            question, sources = parse_prompt(messages) or ("", [])
            recorder.checks[" ".join(question.split())] = {
                "model_reply": reply,
                "shown": checked.text,
                "origin": checked.origin,
                "reason": checked.reason,
                "dropped": checked.grounding.dropped if checked.grounding else [],
                "sources": [{"n": s.number, "header": s.header, "text": s.text} for s in sources],
            }
            return checked

        CheckedLLM.check = recorded
        return self

    def stop(self) -> None:
        if self._check is not None:
            CheckedLLM.check = self._check
            self._check = None


def _facts(sentence: str, question: str) -> list[str]:
    """Numbers and names beyond the question, less a count of the items the sentence lists
    and a leading yes or no (flagged apart: string matching cannot check either's truth),
    and the count of the table rows it says it read ("the 4 rows found")."""
    sentence = without_row_count(sentence)
    facts = stated_facts(sentence, question) - counted_items(sentence)
    return sorted(f for f in facts if f.casefold() not in ("yes", "no", "ja", "nein"))


def mechanical_check(shown: str, question: str, sources: Sequence[dict]) -> list[dict]:
    """The sentences of a shown reply (its note line and follow-ups left out), each with its
    citations (else its line's), the numbers and names it states beyond the question
    (`stated_facts`), those its cited sources do not hold, those no source holds, and whether
    it begins with a yes or no (which string matching cannot check)."""
    body = split_follow_ups(shown)[0]
    lines = [line for line in body.split("\n") if line.strip() not in _NOTE_LINES]
    texts = {s["n"]: f"{s['header']}\n{s['text']}" for s in sources}
    out = []
    pieces = [(s, line) for line in lines for s in split_sentences(line)]
    for sentence, line in pieces:
        plain = " ".join(CITATION.sub(" ", sentence).split())
        if not re.search(r"\w", plain):
            continue
        # A sentence without a citation of its own is read against its line's (an offline
        # answer quotes a paragraph and cites it once, at its end).
        cited = [n for n in cited_numbers(sentence) or cited_numbers(line) if n in texts]
        facts = _facts(plain, question)
        first = plain.split(maxsplit=1)[0].strip(".,:;!").casefold() if plain else ""
        out.append(
            {
                "sentence": sentence,
                "cited": cited,
                "facts": facts,
                "not_in_cited": [
                    f for f in facts if not any(holds_fact(f, texts[n]) for n in cited)
                ]
                if cited
                else facts,
                "in_no_source": [
                    f for f in facts if not any(holds_fact(f, t) for t in texts.values())
                ],
                "yes_no": first in ("yes", "no", "ja", "nein"),
            }
        )
    return out


def summarize_mechanical(checks: dict[str, list[dict]]) -> dict:
    """Counts over the checked sentences of every reply (`mechanical_check` by key)."""
    sentences = [s for reply in checks.values() for s in reply]
    cited = [s for s in sentences if s["cited"]]
    held = [s for s in cited if not s["not_in_cited"]]
    return {
        "replies": len(checks),
        "sentences": len(sentences),
        "cited_sentences": len(cited),
        "cited_sentences_whose_sources_hold_their_facts": len(held),
        "mechanical_citation_precision": round(len(held) / len(cited), 3) if cited else None,
        "sentences_with_facts_in_no_source": sum(1 for s in sentences if s["in_no_source"]),
        "sentences_without_citation": len(sentences) - len(cited),
        "yes_no_sentences_not_checkable": sum(1 for s in sentences if s["yes_no"]),
    }


def write_judging(
    out: Path,
    records: dict[str, list[dict]],
    checks: dict[str, dict],
    conversations: Sequence[dict],
    titles: dict[str, str],
) -> dict:
    """Write the files of the module docstring from the harness's eval `records` by
    answerer and the recorded `checks`; returns the mechanical figures."""
    out.mkdir(parents=True, exist_ok=True)
    gold = gold_answers(conversations, titles)
    by_question = {
        answerer: {" ".join(r["question"].split()): r for r in rows}
        for answerer, rows in records.items()
    }
    mechanical: dict[str, dict[str, list[dict]]] = {}
    for answerer, name in FILES.items():
        if answerer not in records:
            continue
        mechanical[name] = {}
        with open(out / f"{name}.jsonl", "w", encoding="utf-8") as handle:
            for record in records[answerer]:
                line = to_judge(record, "completed", gold)
                line["answerable"] = record["answerable"]
                if not record["answerable"]:
                    line["gold"] = "(out of scope: the wiki does not answer it)"
                question = " ".join(record["question"].split())
                check = checks.get(question)
                if answerer == "combined" and check is not None:
                    offline = by_question.get("offline", {}).get(question)
                    cited = set(cited_numbers(line["reply"]))
                    line |= {
                        "model_reply": check["model_reply"],
                        "offline_reply": offline["reply"] if offline else None,
                        "origin": check["origin"],
                        "reason": check["reason"],
                        "dropped_sentences": check["dropped"],
                        "cited_sources": [s for s in check["sources"] if s["n"] in cited],
                    }
                if check is not None and not record["declined"]:
                    found = mechanical_check(line["reply"], record["question"], check["sources"])
                    mechanical[name][line["key"]] = found
                    line["mechanical_check"] = found
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    summary = {name: summarize_mechanical(found) for name, found in mechanical.items()}
    (out / "mechanical.json").write_text(
        json.dumps({"summary": summary, "replies": mechanical}, indent=1, ensure_ascii=False)
    )
    return summary
