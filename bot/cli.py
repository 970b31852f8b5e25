"""The `confbot` command. Each subcommand imports its heavy modules only when it runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.logs import configure as configure_logging
from core.bounds import MAX_LOOKBACK_DAYS, ascii_int, days
from core.redact import SecretMasker, redact_url, secret_values
from core.settings import Settings, SettingsError, parse_overrides, unknown_variables

# The out-of-scope questions of the repository (tests/data), for `confbot eval --answers`.
OUT_OF_SCOPE_QUESTIONS = (
    Path(__file__).resolve().parents[1] / "tests" / "data" / "out_of_scope.json"
)
# The conversations that leave the wiki, for `confbot eval --questions conversational
# --answers`.
OUT_OF_SCOPE_FOLLOWUPS = (
    Path(__file__).resolve().parents[1] / "tests" / "data" / "out_of_scope_followups.json"
)
# The verdicts by reading of benchmark replies (no benchmark text), for `confbot eval
# --answers`.
VERDICTS = Path(__file__).resolve().parents[1] / "tests" / "data" / "verdicts.json"


def _settings(args: argparse.Namespace) -> Settings:
    """The settings of this run; from here on no log line shows one of their secrets, and
    database pools open at most `database_connections` connections each."""
    from core.db import limit_connections

    for warning in unknown_variables():
        print(f"confbot: warning: {warning}", file=sys.stderr)
    settings = Settings.load(overrides=parse_overrides(getattr(args, "config", None) or []))
    SecretMasker(secret_values(settings)).install()
    limit_connections(settings.database_connections)
    return settings


def _add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        action="append",
        metavar="KEY=VALUE",
        help="override a setting (repeatable); see `confbot settings`",
    )


def cmd_settings(args: argparse.Namespace) -> int:
    """Print every setting by area with the value in effect, its origin and its help."""
    from bot.settings_view import settings_lines

    overrides = parse_overrides(args.config or [])
    print("\n".join(settings_lines(_settings(args), overrides=overrides, help_text=not args.brief)))
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    """Create or upgrade the state database (Alembic `upgrade head`)."""
    from core.db import upgrade

    settings = _settings(args)
    upgrade(settings.sqlalchemy_url)
    print(f"database ready: {redact_url(settings.sqlalchemy_url)}")
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    """Chat with the assistant in the terminal (see bot/terminal.py)."""
    from bot.terminal import run

    return run(args, _settings(args))


def cmd_eval(args: argparse.Namespace) -> int:
    """Run the benchmark (see bot/evaluation/)."""
    from bot.evaluation.command import run

    return run(args, _settings(args))


def cmd_sync(args: argparse.Namespace) -> int:
    """Pull changed pages into the index: a progress display, a summary per space and a total
    (see bot/sync_command.py and connectors/sync.py)."""
    from bot.sync_command import run
    from connectors.priority import lower_priority

    settings = _settings(args)
    lower_priority(settings)
    return run(args, settings)


def cmd_bot(args: argparse.Namespace) -> int:
    """Answer in Slack over Socket Mode until interrupted (see bot/slack.py)."""
    from bot.metrics import serve_metrics
    from bot.setting_checks import validate
    from bot.slack import run_socket_mode

    settings = _settings(args)
    validate(settings)
    serve_metrics(settings)
    return run_socket_mode(settings)


def cmd_worker(args: argparse.Namespace) -> int:
    """Sync every configured space on its schedule until SIGTERM or SIGINT, and post the
    weekly gaps reports (see bot/gaps.py)."""
    from bot.gaps import weekly_jobs
    from bot.metrics import serve_metrics
    from bot.retention import retention_jobs
    from bot.setting_checks import validate
    from connectors.priority import lower_priority
    from connectors.schedule import Worker
    from core.db import upgrade
    from core.embeddings import make_embedder
    from core.index import EvidenceIndex

    settings = _settings(args)
    validate(settings)
    lower_priority(settings)
    upgrade(settings.sqlalchemy_url)
    index = EvidenceIndex(settings, make_embedder(settings))
    serve_metrics(settings)
    jobs = weekly_jobs(settings, index) + retention_jobs(settings)
    Worker(settings, index, jobs).serve_forever()
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check every configured integration, one line each (see bot/doctor.py)."""
    from bot.doctor import run

    return run(_settings(args), sys.stdout)


def cmd_status(args: argparse.Namespace) -> int:
    """Print per space the last and next sync, what is indexed and what failed, and the
    questions of the last days (see bot/status.py)."""
    import json

    from bot.status import collect_status, status_json, status_lines
    from core.db import upgrade
    from core.embeddings import make_embedder
    from core.index import EvidenceIndex

    settings = _settings(args)
    upgrade(settings.sqlalchemy_url)
    index = EvidenceIndex(settings, make_embedder(settings))
    try:
        status = collect_status(settings, index, days=args.days)
    finally:
        index.close()
    if args.json:
        print(json.dumps(status_json(status), indent=2))
    else:
        print("\n".join(status_lines(status)))
    return 0


def _argument(parse):
    """An argparse `type` from a parser that raises ValueError: its message becomes the
    usage error (no traceback)."""

    def parsed(text: str):
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parsed.__name__ = parse.__name__
    return parsed


def cmd_gaps(args: argparse.Namespace) -> int:
    """Print the questions the wiki did not answer, grouped (see bot/gaps.py)."""
    from bot.gaps import gap_reports, parse_since, report_lines
    from core import audit
    from core.db import upgrade
    from core.embeddings import make_embedder
    from core.index import EvidenceIndex

    try:
        since = parse_since(args.since)
    except ValueError as exc:
        print(f"confbot gaps: --since: {exc}", file=sys.stderr)
        return 2
    settings = _settings(args)
    upgrade(settings.sqlalchemy_url)
    embedder = make_embedder(settings)
    index = EvidenceIndex(settings, embedder)
    indexed = index.spaces()
    if args.space and args.space not in indexed:
        index.close()
        known = ", ".join(sorted(indexed)) or "none: run `confbot sync`"
        print(
            f"confbot gaps: --space: no indexed page is in {args.space} (spaces: {known})",
            file=sys.stderr,
        )
        return 2
    try:
        reports = gap_reports(settings, index, embedder, args.space, since)
    finally:
        index.close()
    audit.record(
        settings.sqlalchemy_url, _cli_actor(), "gaps.report", space=args.space, since=args.since
    )
    if not reports:
        print(f"nothing unanswered in the last {args.since}")
    for report in reports:
        print("\n".join(report_lines(report)))
    return 0


def _cli_actor() -> str:
    """Who runs this command, for the audit log: `cli:<login name>`."""
    import getpass

    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no login name (a container's numeric user)
        return "cli:unknown"


def cmd_retention(args: argparse.Namespace) -> int:
    """Delete the questions older than retention_days (or --days) now (see bot/retention.py)."""
    from bot.retention import apply_retention
    from core.db import upgrade
    from core.retention import cutoff_for

    settings = _settings(args)
    days = args.days if args.days is not None else settings.retention_days
    if days <= 0:
        print(
            "confbot retention: nothing to do: CONFBOT_RETENTION_DAYS is 0 (keep everything);"
            " set it or pass --days",
            file=sys.stderr,
        )
        return 2
    upgrade(settings.sqlalchemy_url)
    if args.dry_run:
        from sqlalchemy import func, select

        from core.conversation import TurnRecord
        from core.db import session_factory

        cutoff = cutoff_for(days)
        with session_factory(settings.sqlalchemy_url)() as db:
            count = db.scalar(select(func.count()).where(TurnRecord.created_at < cutoff))
        print(f"{count} turn(s) older than {cutoff:%Y-%m-%d %H:%M} UTC would be deleted")
        return 0
    print(apply_retention(settings, days, _cli_actor()).summary())
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    """Print the latest entries of the audit log (see core/audit.py)."""
    from core import audit
    from core.db import upgrade

    settings = _settings(args)
    upgrade(settings.sqlalchemy_url)
    for entry in audit.recent(settings.sqlalchemy_url, args.limit):
        detail = ", ".join(f"{k}={v}" for k, v in entry.detail.items())
        print(f"{entry.at:%Y-%m-%d %H:%M:%S} {entry.actor} {entry.action} {detail}".rstrip())
    return 0


def cmd_access(args: argparse.Namespace) -> int:
    """Map people to Confluence accounts, show recorded permissions (bot/access_admin.py)."""
    from bot.access_admin import run

    return run(args, _settings(args))


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
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log debug messages, the libraries' too"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser(
        "settings", help="list all settings by area: the value in effect, where it comes from"
    )
    p.add_argument("--brief", action="store_true", help="one line a setting, without its help")
    _add_config_option(p)
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
        choices=("context", "linearizer", "indexing", "retriever", "redundancy"),
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
        " containment, answer length and declines beside the top-1-evidence baseline; with"
        " --questions conversational, replay the conversations and the out-of-scope"
        " follow-ups and report the offline answerer's declines",
    )
    p.add_argument(
        "--self-check",
        action="store_true",
        help="with --answers: citation precision and answer F1 with the evidence self-check"
        " off and on (with --folds, its thresholds cross-validated)",
    )
    p.add_argument(
        "--suggestions",
        action="store_true",
        help="suggest follow-ups after every completed question that has a next turn and"
        " report how often one retrieves the next question's gold page",
    )
    p.add_argument(
        "--out-of-scope",
        metavar="FILE",
        default=str(OUT_OF_SCOPE_QUESTIONS),
        help="questions the wiki cannot answer, for --answers (default: %(default)s)",
    )
    p.add_argument(
        "--out-of-scope-followups",
        metavar="FILE",
        default=str(OUT_OF_SCOPE_FOLLOWUPS),
        help="conversations that leave the wiki, for --questions conversational --answers"
        " (default: %(default)s)",
    )
    p.add_argument(
        "--folds",
        type=int,
        default=0,
        metavar="K",
        help="cross-validate over K folds of conversations: each tuned parameter (retrieval's"
        " grid, the ablation's setting, with --answers the span weights and decline"
        " thresholds, or the follow-ups' topic weight and thresholds) is chosen on K-1 folds"
        " and scored on the other (0: no tuning)",
    )
    p.add_argument(
        "--conversations-limit",
        type=int,
        default=0,
        metavar="N",
        help="use N conversations drawn by a seeded shuffle (a smaller N draws a subset of a"
        " larger one's; 0: all)",
    )
    p.add_argument(
        "--verdicts",
        metavar="FILE",
        default=str(VERDICTS),
        help="with --answers: the store of verdicts by reading, looked up per reply to report"
        " the judged share (default: %(default)s)",
    )
    p.add_argument(
        "--unjudged",
        metavar="OUT",
        help="with --answers: write the replies that need a verdict as JSONL (question, reply,"
        " gold answer: keep it outside the repository)",
    )
    p.add_argument(
        "--verdicts-in",
        metavar="FILE",
        help="with --answers: merge a judged --unjudged file into the --verdicts store first",
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

    p = sub.add_parser(
        "doctor", help="check every configured integration; exit 1 when anything is wrong"
    )
    _add_config_option(p)
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser(
        "status", help="per space the last and next sync, pages indexed and failed; questions"
    )
    p.add_argument(
        "--days",
        type=_argument(days),
        default=14,
        help=f"days of questions shown, 1 to {MAX_LOOKBACK_DAYS} (default 14)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    _add_config_option(p)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser(
        "gaps", help="questions the wiki did not answer (declined or 👎), grouped by topic"
    )
    p.add_argument("--space", metavar="KEY", help="one space (default: every space)")
    p.add_argument(
        "--since", default="30d", metavar="SPAN", help="how far back: 30d, 2w, 12h (default 30d)"
    )
    _add_config_option(p)
    p.set_defaults(func=cmd_gaps)

    p = sub.add_parser(
        "retention", help="delete questions older than retention_days now (with their ratings)"
    )
    p.add_argument(
        "--days",
        type=_argument(lambda text: ascii_int(text, 1, 36600, "days")),
        help="keep this many days instead of retention_days",
    )
    p.add_argument("--dry-run", action="store_true", help="only count what would be deleted")
    _add_config_option(p)
    p.set_defaults(func=cmd_retention)

    p = sub.add_parser("audit", help="the latest admin actions and filtered answers (audit log)")
    p.add_argument(
        "--limit",
        type=_argument(lambda text: ascii_int(text, 1, 10_000, "limit")),
        default=50,
        help="entries shown (default 50)",
    )
    _add_config_option(p)
    p.set_defaults(func=cmd_audit)

    from bot.access_admin import add_parser as add_access_parser

    p = add_access_parser(sub)
    _add_config_option(p)
    p.set_defaults(func=cmd_access)

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
    p.add_argument(
        "--as",
        dest="as_",
        metavar="EMAIL",
        help="answer from what this person may read (default: public pages only)",
    )
    _add_config_option(p)
    p.set_defaults(func=cmd_ask)

    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `confbot` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(args.verbose)
    try:
        return args.func(args) or 0
    except SettingsError as exc:
        print(f"confbot: configuration error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
