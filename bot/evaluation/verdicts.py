"""The judged share of `confbot eval --answers`: verdicts by reading looked up per reply.

After the answers are taken, each reply to a benchmark turn is looked up in the verdict store
(`core.evaluation.verdicts`): the figures of the judged replies are printed per language,
with the count of replies that need a verdict; `--unjudged FILE` writes those (with the
question, reply and gold answer, for the person judging; a file outside the repository),
and `--verdicts-in FILE` merges a judged file into the store before the lookup.
"""

from __future__ import annotations

import json
from pathlib import Path

from bot.evaluation.tables import format_table
from core.evaluation.metrics import page_id_of
from core.evaluation.verdicts import (
    gold_answers,
    load_verdicts,
    merge_verdicts,
    parse_judged,
    record_key,
    save_verdicts,
    summarize_verdicts,
    to_judge,
)

COLUMNS = (
    ("Judged", "judged"),
    ("Need", "unjudged"),
    ("Correct", "correct_share"),
    ("Partly", "partly_share"),
    ("Wrong", "wrong_share"),
    ("Declined", "declined_share"),
    ("Decl ok", "declined_right"),
    ("Cryptic", "cryptic_share"),
)


def merge_judged(store: Path, judged: Path) -> None:
    """Merge a judged file into the store and say what changed."""
    with open(judged, encoding="utf-8") as handle:
        merge = merge_verdicts(load_verdicts(store), parse_judged(handle))
    save_verdicts(store, merge.verdicts)
    print(
        f"verdicts: {len(merge.added)} added, {len(merge.replaced)} replaced from {judged}"
        f" into {store} ({len(merge.verdicts)} in all)\n"
    )


def report_verdicts(
    records, form: str, langs, store: Path, conversations, pages, unjudged: Path | None
) -> dict:
    """Print the judged figures of the benchmark turns' replies in `records` (answerable and
    scored; each with `conv_id`, `turn_id`, `lang`, `question`, `reply`, `declined`) per
    language and the count that needs a verdict; write those to `unjudged` when given.
    Returns the figures per language."""
    verdicts = load_verdicts(store)
    turns = [r for r in records if r["answerable"] and r.get("scored", True)]
    keyed = [(r, verdicts.get(record_key(r))) for r in turns]
    figures = {
        lang: summarize_verdicts([v for r, v in keyed if r["lang"] == lang]) for lang in langs
    }
    title = f"\nJudged by reading ({form} questions; verdicts in {store})"
    print(format_table(title, [(f"lang={lang}", f) for lang, f in figures.items()], COLUMNS, 18))
    for lang, summary in figures.items():
        if summary["failures"]:
            shown = ", ".join(f"{name} {count}" for name, count in summary["failures"].items())
            print(f"failure classes ({lang}): {shown}")
    missing = [r for r, v in keyed if v is None]
    line = f"{len(missing)} replies need a verdict"
    if unjudged is not None:
        titles = {page_id_of(p.url): p.title for p in pages}
        gold = gold_answers(conversations, titles)
        with open(unjudged, "w", encoding="utf-8") as handle:
            for record in missing:
                handle.write(json.dumps(to_judge(record, form, gold), ensure_ascii=False) + "\n")
        line += f" (written to {unjudged})"
    print(line)
    return figures
