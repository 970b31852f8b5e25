"""`confbot eval`: read the benchmark, run the presenter the arguments ask for, write JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from connectors.files import FilesSource
from core.evaluation.benchmark import duplicate_groups, load_conversations, questions
from core.settings import Settings

LANGS = {"en": ("en",), "de": ("de",), "both": ("en", "de")}


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Run the benchmark the arguments describe; print tables and optionally write JSON."""
    data = Path(args.data)
    pages = list(FilesSource(data / "documents").pages.values())
    conversations = load_conversations(Path(args.conversations or data / "conversations.json"))
    langs = LANGS[args.lang]
    groups = duplicate_groups(pages)
    output: dict = {"pages": len(pages), "questions": args.questions, "lang": args.lang}

    if args.ablation:
        from bot.evaluation.retrieval import run_ablation_eval

        items = questions(conversations, args.questions, langs)
        output.update(
            run_ablation_eval(settings, pages, items, groups, args.ablation, langs, args.questions)
        )
    elif args.answers:
        from bot.evaluation.answers import run_answers_eval

        output.update(
            run_answers_eval(
                settings, pages, conversations, langs, args.folds, Path(args.out_of_scope)
            )
        )
    elif args.attribution:
        from bot.evaluation.attribution import run_attribution_eval

        output.update(
            run_attribution_eval(settings, pages, conversations, langs, groups, args.attribution)
        )
    elif args.questions == "conversational":
        from bot.evaluation.conversational import run_conversational_eval

        output.update(run_conversational_eval(settings, pages, conversations, langs, groups))
    else:
        from bot.evaluation.retrieval import run_retrieval_eval

        items = questions(conversations, args.questions, langs)
        output.update(run_retrieval_eval(settings, pages, items, groups, args.questions))
    if args.json:
        Path(args.json).write_text(json.dumps(output, indent=1, ensure_ascii=False))
    return 0
