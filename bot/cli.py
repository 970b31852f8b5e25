"""The `confbot` command. Each subcommand imports its heavy modules only when it runs."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from core.settings import Settings, SettingsError, describe, parse_overrides

# The out-of-scope questions of the repository (tests/data), for `confbot eval --answers`.
OUT_OF_SCOPE_QUESTIONS = (
    Path(__file__).resolve().parents[1] / "tests" / "data" / "out_of_scope.json"
)


def _settings(args: argparse.Namespace) -> Settings:
    return Settings.load(overrides=parse_overrides(getattr(args, "config", None) or []))


def _add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        action="append",
        metavar="KEY=VALUE",
        help="override a setting (repeatable); see `confbot settings`",
    )


def cmd_settings(args: argparse.Namespace) -> int:
    """Print every setting with its environment variable, default and help."""
    for name, env, default, help_text in describe():
        print(f"{name}\n    {env} (default: {default!r})\n    {help_text}")
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    """Create or upgrade the state database (Alembic `upgrade head`)."""
    from core.db import upgrade

    settings = _settings(args)
    upgrade(settings.sqlalchemy_url)
    print(f"database ready: {_redacted_url(settings.sqlalchemy_url)}")
    return 0


def _redacted_url(url: str) -> str:
    """A database URL with its password masked."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def cmd_ask(args: argparse.Namespace) -> int:
    """Chat with the assistant in the terminal (see bot/terminal.py)."""
    from bot.terminal import run

    return run(args, _settings(args))


def cmd_eval(args: argparse.Namespace) -> int:
    """Run the benchmark (see bot/evaluation/)."""
    from bot.evaluation.command import run

    return run(args, _settings(args))


def cmd_sync(args: argparse.Namespace) -> int:
    """Pull changed pages into the index and print a summary per space (see connectors/sync.py)."""
    from connectors.sync import SpaceSync, make_source, spaces_to_sync
    from core.db import upgrade
    from core.embeddings import make_embedder
    from core.index import EvidenceIndex

    settings = _settings(args)
    upgrade(settings.sqlalchemy_url)
    source = make_source(settings, args.source, args.path)
    spaces = spaces_to_sync(settings, source, args.space or ())
    for name, error in getattr(source, "failures", []):
        print(f"unreadable file skipped: {name}: {error}", file=sys.stderr)
    sync = SpaceSync(settings, EvidenceIndex(settings, make_embedder(settings)), source)
    stopped = False
    for space in spaces:
        report = sync.run(space, full=args.full, progress=sys.stderr.isatty())
        print(report.summary())
        stopped |= report.error is not None
    return 1 if stopped else 0


def cmd_bot(args: argparse.Namespace) -> int:
    """Answer in Slack over Socket Mode until interrupted (see bot/slack.py)."""
    from bot.slack import run_socket_mode

    return run_socket_mode(_settings(args))


def cmd_worker(args: argparse.Namespace) -> int:
    """Sync every configured space on its schedule until SIGTERM or SIGINT."""
    from connectors.schedule import Worker
    from core.db import upgrade

    settings = _settings(args)
    upgrade(settings.sqlalchemy_url)
    Worker.from_settings(settings).serve_forever()
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the web app, the sync scheduler and Slack in one process (see bot/serve.py)."""
    from bot.serve import run

    settings = _settings(args)
    if args.host is not None:
        settings = settings.replace(web_host=args.host)
    if args.port is not None:
        settings = settings.replace(web_port=args.port)
    return run(settings, worker=not args.no_worker, socket_mode=not args.no_socket_mode)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="confbot", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("settings", help="list all settings and their environment variables")
    p.set_defaults(func=cmd_settings)

    # Subcommands register below, one block each.
    p = sub.add_parser("eval", help="run the ConfQuestions benchmark")
    p.add_argument(
        "--data", required=True, help="benchmark folder (documents/, conversations.json)"
    )
    p.add_argument("--conversations", help="conversations file (default: DATA/conversations.json)")
    p.add_argument(
        "--questions", choices=("completed", "raw", "conversational"), default="completed"
    )
    p.add_argument("--lang", choices=("en", "de", "both"), default="both")
    p.add_argument(
        "--ablation",
        choices=("context", "linearizer", "indexing", "retriever"),
        help="print one ablation table instead of the sliced figures",
    )
    p.add_argument(
        "--attribution",
        choices=("counterfactual", "naive", "citation", "all"),
        help="answer the completed questions and report attribution accuracy and citation"
        " precision/recall for this attribution method (all: the three side by side)",
    )
    p.add_argument(
        "--answers",
        action="store_true",
        help="answer the completed and the out-of-scope questions and report token F1, recall,"
        " containment, answer length and declines beside the top-1-evidence baseline",
    )
    p.add_argument(
        "--out-of-scope",
        metavar="FILE",
        default=str(OUT_OF_SCOPE_QUESTIONS),
        help="questions the wiki cannot answer, for --answers (default: %(default)s)",
    )
    p.add_argument(
        "--folds",
        type=int,
        default=0,
        metavar="K",
        help="choose what the run tunes by K-fold cross-validation over conversations and"
        " report held-out figures (0: use the configured values)",
    )
    p.add_argument("--json", metavar="OUT", help="write the figures (and per-question records)")
    _add_config_option(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("sync", help="pull changed wiki pages into the index")
    p.add_argument(
        "--space",
        action="append",
        metavar="KEY",
        help="space to sync (repeatable; default: sync_spaces, or every space of a files source)",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="re-read and re-index every page and list the space, ignoring the cursor",
    )
    p.add_argument(
        "--source",
        choices=("confluence", "files"),
        help="where pages come from (default: sync_source)",
    )
    p.add_argument(
        "--path", metavar="DIR", help="folder of the files source (default: sync_files_path)"
    )
    _add_config_option(p)
    p.set_defaults(func=cmd_sync)

    p = sub.add_parser(
        "serve", help="run the web app, the sync scheduler and Slack (when configured)"
    )
    p.add_argument("--host", help="address to listen on (default: web_host)")
    p.add_argument("--port", type=int, help="port to listen on, 0 for any (default: web_port)")
    p.add_argument("--no-worker", action="store_true", help="do not sync (a `confbot worker` does)")
    p.add_argument(
        "--no-socket-mode",
        action="store_true",
        help="do not connect to Slack in Socket Mode (a `confbot bot` does, or HTTP mode)",
    )
    _add_config_option(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "bot", help="answer in Slack over Socket Mode (SLACK_APP_TOKEN, SLACK_BOT_TOKEN)"
    )
    _add_config_option(p)
    p.set_defaults(func=cmd_bot)

    p = sub.add_parser("worker", help="sync each space on its schedule (sync_schedule)")
    _add_config_option(p)
    p.set_defaults(func=cmd_worker)

    p = sub.add_parser("init", help="create or upgrade the state database (database_url)")
    _add_config_option(p)
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("ask", help="chat with the assistant in the terminal")
    p.add_argument(
        "question", nargs="*", help="questions to ask in order, then exit (default: interactive)"
    )
    p.add_argument(
        "--thread", metavar="NAME", help="continue the named conversation (default: a new one)"
    )
    p.add_argument(
        "--space", action="append", metavar="KEY", help="search only this space (repeatable)"
    )
    _add_config_option(p)
    p.set_defaults(func=cmd_ask)

    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `confbot` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return args.func(args) or 0
    except SettingsError as exc:
        print(f"confbot: configuration error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
