"""`confbot eval`: read the benchmark, run the presenter the arguments ask for, write JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from connectors.files import FilesSource
from core.evaluation.benchmark import duplicate_groups, load_conversations, questions
from core.evaluation.verdicts import choose_conversations
from core.settings import Settings, SettingsError

LANGS = {"en": ("en",), "de": ("de",), "both": ("en", "de")}


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Run the benchmark the arguments describe; print tables and optionally write JSON."""
    data = Path(args.data)
    pages = list(FilesSource(data / "documents").pages.values())
    conversations = load_conversations(Path(args.conversations or data / "conversations.json"))
    conversations = choose_conversations(conversations, args.conversations_limit)
    langs = LANGS[args.lang]
    groups = duplicate_groups(pages)
    output: dict = {"pages": len(pages), "questions": args.questions, "lang": args.lang}

    if args.self_check and not args.answers:
        raise SettingsError("--self-check measures answers: add --answers")
    judging = args.unjudged or args.verdicts_in
    if judging and not args.answers:
        raise SettingsError("--unjudged and --verdicts-in judge replies: add --answers")
    if judging and args.self_check:
        raise SettingsError("--unjudged and --verdicts-in judge the replies without --self-check")
    if args.verdicts_in:
        from bot.evaluation.verdicts import merge_judged

        merge_judged(Path(args.verdicts), Path(args.verdicts_in))
    if args.answers and args.questions == "conversational":
        if args.self_check:
            raise SettingsError("--self-check is measured on completed questions")
        from bot.evaluation.followups import run_followups_eval

        output.update(
            run_followups_eval(
                settings,
                pages,
                conversations,
                langs,
                args.folds,
                Path(args.out_of_scope_followups),
            )
        )
    elif args.answers and args.self_check:
        from bot.evaluation.selfcheck import run_self_check_eval

        output.update(
            run_self_check_eval(
                settings, pages, conversations, langs, args.folds, Path(args.out_of_scope)
            )
        )
    elif args.answers:
        from bot.evaluation.answers import run_answers_eval

        output.update(
            run_answers_eval(
                settings, pages, conversations, langs, args.folds, Path(args.out_of_scope)
            )
        )
    elif args.suggestions:
        from bot.evaluation.suggestions import run_suggestions_eval

        output.update(run_suggestions_eval(settings, pages, conversations, langs))
    elif args.folds:
        output.update(_cross_validate(args, settings, pages, conversations, langs, groups))
    elif args.ablation:
        from bot.evaluation.retrieval import run_ablation_eval

        items = questions(conversations, args.questions, langs)
        output.update(
            run_ablation_eval(settings, pages, items, groups, args.ablation, langs, args.questions)
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
    if args.answers and not args.self_check:
        from bot.evaluation.verdicts import report_verdicts

        form = "raw" if args.questions == "conversational" else "completed"
        unjudged = Path(args.unjudged) if args.unjudged else None
        output["verdicts"] = report_verdicts(
            output["records"], form, langs, Path(args.verdicts), conversations, pages, unjudged
        )
    if args.json:
        Path(args.json).write_text(json.dumps(output, indent=1, ensure_ascii=False))
    return 0


def _cross_validate(args, settings: Settings, pages, conversations, langs, groups) -> dict:
    """`--folds K`: the tuning grid (or the ablation's rows) cross-validated by conversation."""
    from bot.evaluation.folds import run_folds_eval
    from core.evaluation.ablations import OBJECTIVES, ablation_rows
    from core.evaluation.tuning import candidates

    if args.attribution:
        raise SettingsError("--folds cross-validates retrieval, not --attribution")
    if args.questions == "conversational":
        if args.ablation:
            raise SettingsError("--ablation with --folds needs --questions completed or raw")
        from bot.evaluation.conversational import conversational_runner
        from bot.evaluation.folds import run_conversational_folds
        from bot.evaluation.retrieval import tuning_runner

        items = questions(conversations, "completed", langs)
        tune = tuning_runner(settings, pages, items, groups)
        replay = conversational_runner(settings, pages, langs, groups)
        grid = candidates(settings)
        return run_conversational_folds(args.folds, grid, tune, replay, conversations, langs)
    from bot.evaluation import retrieval

    items = questions(conversations, args.questions, langs)
    if args.ablation:
        run = retrieval.ablation_runner(settings, pages, items, groups, args.ablation)
        grid = ablation_rows(args.ablation)
    else:
        run = retrieval.tuning_runner(settings, pages, items, groups)
        grid = candidates(settings)
    title = f"ConfQuestions {args.questions}"
    if args.ablation:
        title += f", ablation {args.ablation}"
    first = grid[0][0] if args.ablation else "default"
    metric = OBJECTIVES.get(args.ablation, "p_at_1")
    return run_folds_eval(args.folds, grid, run, langs, title, first=first, metric=metric)
