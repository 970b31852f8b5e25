"""Verdicts by reading (`../shared/JUDGING.md`), kept in the repository and looked up by reply.

A person reads a benchmark reply against the gold answer and records a verdict: CORRECT,
PARTLY, WRONG or DECLINED, whether it is cryptic, and for a reply that is not correct its
failure class. The store (`tests/data/verdicts.json`) holds no benchmark text: an entry is
keyed by a hash of the turn (conversation and turn id), the question as asked and the reply
as shown, and keeps the ids, language and question form beside the verdict. A reply that
changes gets a new key and needs a new verdict; an unchanged one keeps its old verdict.

The reply as shown is the answer text the turn stores (`core.assistant.Turn.answer`, the
same text `core.answer.generate` returns), or `DECLINED_REPLY` when the answer declines
(every surface shows its decline message then). Two changes that do not change what a
reader can judge leave the key alone: whitespace (collapsed to single spaces), and the
numbers of the citations, renumbered 1..n by order of first appearance, so that a surface
renumbering its sources at display time does not invalidate a verdict. The turn ids are
hashed in because the same words can be right for one turn and wrong for another: "Yes
[1]." to "and in week 3?" depends on the conversation.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from core.answer import CITATION, cited_numbers
from core.evaluation.metrics import page_id_of

VERDICTS = ("CORRECT", "PARTLY", "WRONG", "DECLINED")
# JUDGING.md's failure classes of a reply that is not correct: wrong page; right page,
# wrong span; needs counting/comparing/filtering/summarising; declined wrongly; language;
# not in the pages (a DECLINED reply with this class is a right decline).
FAILURES = (
    "wrong_page",
    "wrong_span",
    "composition",
    "declined_wrongly",
    "language",
    "not_in_pages",
)
FORMS = ("completed", "raw")
DECLINED_REPLY = "DECLINED-REPLY"
STORE_FORMAT = 1


@dataclass(frozen=True)
class Verdict:
    """One judged reply: which turn, language and question form it answered, the verdict,
    whether it is cryptic, its failure class (None exactly when CORRECT), a short note, who
    judged it and when (an ISO date)."""

    conv_id: str
    turn_id: str
    lang: str
    form: str
    verdict: str
    cryptic: bool
    failure: str | None
    judge: str
    date: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of: {', '.join(VERDICTS)}")
        if self.form not in FORMS:
            raise ValueError(f"question form {self.form!r} is not one of: {', '.join(FORMS)}")
        if self.verdict == "CORRECT" and self.failure is not None:
            raise ValueError("a CORRECT reply has no failure class")
        if self.verdict != "CORRECT" and self.failure not in FAILURES:
            raise ValueError(
                f"a {self.verdict} reply needs a failure class, one of: {', '.join(FAILURES)}"
            )
        if not self.judge:
            raise ValueError("a verdict says who judged it")


def renumber_citations(text: str) -> str:
    """`text` with its citations numbered 1..n by order of first appearance ("[4] … [2, 4]"
    → "[1] … [2, 1]"); every citation form of `core.answer.CITATION` is written "[a, b]"."""
    order: dict[int, int] = {}

    def renumber(match: re.Match) -> str:
        numbers = cited_numbers(match.group(0))
        if not numbers:
            return match.group(0)
        for number in numbers:
            order.setdefault(number, len(order) + 1)
        return "[" + ", ".join(str(order[n]) for n in numbers) + "]"

    return CITATION.sub(renumber, text)


def shown_reply(answer: str, declined: bool) -> str:
    """The reply as shown, normalised for its key: `DECLINED_REPLY` for a decline, else the
    answer with its citations renumbered and its whitespace collapsed."""
    if declined:
        return DECLINED_REPLY
    return " ".join(renumber_citations(answer).split())


def verdict_key(conv_id: str, turn_id: str, question: str, answer: str, declined: bool) -> str:
    """The store key of a reply: a SHA-256 (first 24 hex digits) of the turn ids, the
    question as asked (whitespace collapsed) and `shown_reply`."""
    parts = [str(conv_id), str(turn_id), " ".join(question.split()), shown_reply(answer, declined)]
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:24]


def record_key(record: Mapping) -> str:
    """`verdict_key` of an evaluation record (`conv_id`, `turn_id`, `question`, `reply`,
    `declined`)."""
    ids = (record["conv_id"], record["turn_id"])
    return verdict_key(*ids, record["question"], record["reply"], record["declined"])


def load_verdicts(path: Path) -> dict[str, Verdict]:
    """The verdicts of a store file by key; none when the file does not exist."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != STORE_FORMAT:
        raise ValueError(f"{path}: verdict store format {data.get('format')!r} is not 1")
    return {key: Verdict(**entry) for key, entry in data["verdicts"].items()}


def _natural(value: str) -> tuple:
    """A sort key that orders "2" before "10"."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", value))


def save_verdicts(path: Path, verdicts: Mapping[str, Verdict]) -> None:
    """Write the store, entries ordered by question form, language, conversation and turn
    (so that a judging pass shows as a readable diff)."""

    def order(item: tuple[str, Verdict]):
        key, v = item
        return (v.form, v.lang, _natural(v.conv_id), _natural(v.turn_id), key)

    entries = {key: asdict(v) for key, v in sorted(verdicts.items(), key=order)}
    text = json.dumps({"format": STORE_FORMAT, "verdicts": entries}, indent=1, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")


@dataclass
class Merge:
    """What a merge did: the merged verdicts, and the keys added and replaced."""

    verdicts: dict[str, Verdict]
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)


def parse_judged(lines: Iterable[str], today: str | None = None) -> dict[str, Verdict]:
    """Verdicts from judged JSONL lines (lines of an `--unjudged` file with `verdict`,
    `cryptic`, `failure`, `judge` and optionally `note` and `date` filled in; lines without
    a verdict are skipped). Only the key, ids and verdict fields are kept: the question,
    reply and gold text stay out of the store. A line without a date gets `today`."""
    today = today or datetime.now(UTC).date().isoformat()
    out = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        item = json.loads(line)
        if not item.get("verdict"):
            continue
        try:
            out[item["key"]] = Verdict(
                conv_id=str(item["conv_id"]),
                turn_id=str(item["turn_id"]),
                lang=item["lang"],
                form=item["form"],
                verdict=item["verdict"],
                cryptic=bool(item.get("cryptic", False)),
                failure=item.get("failure") or None,
                judge=item.get("judge", ""),
                date=item.get("date") or today,
                note=item.get("note", ""),
            )
        except (KeyError, ValueError) as error:
            raise ValueError(f"judged line {number}: {error}") from error
    return out


def merge_verdicts(store: Mapping[str, Verdict], judged: Mapping[str, Verdict]) -> Merge:
    """The store with the judged verdicts added; a judged key already in the store replaces
    its verdict (a second reading wins)."""
    merged = dict(store)
    result = Merge(merged)
    for key, verdict in judged.items():
        (result.replaced if key in store else result.added).append(key)
        merged[key] = verdict
    return result


def choose_conversations(conversations: Sequence[dict], limit: int, seed: int = 0) -> list[dict]:
    """`limit` conversations drawn by a seeded shuffle, in their file order. A smaller
    limit draws a subset of a larger one's, so a short judging pass is part of a long one."""
    if limit <= 0 or limit >= len(conversations):
        return list(conversations)
    order = list(range(len(conversations)))
    random.Random(seed).shuffle(order)
    return [conversations[i] for i in sorted(order[:limit])]


def gold_answers(
    conversations: Sequence[dict], titles: Mapping[str, str]
) -> dict[tuple[str, str], dict]:
    """(conversation id, turn id) → the gold answer and gold page titles (`titles`: page
    id → title), for the file of replies to judge."""
    return {
        (str(c["conv_id"]), str(t["turn_id"])): {
            "gold": t.get("a", ""),
            "gold_pages": [titles.get(page_id_of(u), u) for u in t.get("a_url", [])],
        }
        for c in conversations
        for t in c["turns"]
    }


def to_judge(record: Mapping, form: str, gold: Mapping[tuple[str, str], dict]) -> dict:
    """One line of the file of replies to judge: key, ids, language, form, the question, the
    reply as the user reads it (the answer text, or `DECLINED_REPLY`), the completed
    question when the answerer completed a raw one, the gold answer and page titles, and
    empty verdict fields to fill in."""
    item = {
        "key": record_key(record),
        "conv_id": record["conv_id"],
        "turn_id": record["turn_id"],
        "lang": record["lang"],
        "form": form,
        "question": record["question"],
    }
    completed = record.get("completed_question")
    if completed and completed != record["question"]:
        item["completed_question"] = completed
    item["reply"] = DECLINED_REPLY if record["declined"] else record["reply"]
    item |= gold.get((record["conv_id"], record["turn_id"]), {"gold": "", "gold_pages": []})
    return item | {"verdict": "", "cryptic": False, "failure": None, "note": "", "judge": ""}


def summarize_verdicts(verdicts: Sequence[Verdict | None]) -> dict:
    """Figures over a set of replies, each with its verdict or None (not judged yet): `n`,
    `judged`, `unjudged`, `judged_share`; over the judged ones, the count and share of each
    verdict (`correct`, `correct_share`, …), `declined_right` (DECLINED, not in the pages),
    `cryptic` and `cryptic_share`, and the count of each failure class."""
    judged = [v for v in verdicts if v is not None]
    n = len(judged)

    def share(count: int) -> float | None:
        return round(count / n, 4) if n else None

    out: dict = {
        "n": len(verdicts),
        "judged": n,
        "unjudged": len(verdicts) - n,
        "judged_share": round(n / len(verdicts), 4) if verdicts else None,
    }
    counts = Counter(v.verdict for v in judged)
    for name in VERDICTS:
        out[name.lower()] = counts[name]
        out[f"{name.lower()}_share"] = share(counts[name])
    out["declined_right"] = sum(
        v.verdict == "DECLINED" and v.failure == "not_in_pages" for v in judged
    )
    out["cryptic"] = sum(v.cryptic for v in judged)
    out["cryptic_share"] = share(out["cryptic"])
    failures = Counter(v.failure for v in judged if v.failure)
    out["failures"] = {name: failures[name] for name in FAILURES if failures[name]}
    return out
