"""`confbot serve`: the web app, the sync scheduler and (with Slack tokens) the Slack bot in one
process, for a single-machine deployment and for `make run`.

Startup:
1. the port is bound (a busy port is a clear error naming the setting, before anything
   else starts);
2. the assistant is wired from the settings (state database migrated, index opened);
3. with no sync source configured (no `confluence_url`, or the files source without a
   folder), the packaged sample wiki (`bot/sample_wiki/pages`, a fictional company's
   Confluence pages) becomes the source, as long as the index holds nothing else: it is
   indexed at once when the index is empty, so a new user can ask straight away;
4. the scheduler (`connectors.schedule.Worker`) syncs each space on its schedule, on the
   same index the web app reads;
5. Slack: Socket Mode runs in this process when `SLACK_BOT_TOKEN` and `SLACK_APP_TOKEN` are
   set; with `SLACK_SIGNING_SECRET` the web app also serves Slack's HTTP mode at
   `/slack/events`. Slack starts in the background (`SlackStarter`): while it is
   unreachable or rejects the token, the web page and the scheduler run on, a log line says
   what is wrong, and it is tried again with backoff;
6. uvicorn serves the web app on the bound socket and the URL is printed; connections,
   request read times and per-connection log lines are bounded (`bot.http_limits`).

SIGINT or SIGTERM stops it cleanly: uvicorn stops accepting and finishes the requests in
flight, the Slack connection closes, a running sync stops at its next batch boundary (its
state is then consistent) and background explanations finish. Split deployments run the
parts as separate processes instead (`Procfile`: web, worker and bot).
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from core.settings import Settings, SettingsError

log = logging.getLogger(__name__)

SAMPLE_WIKI = Path(__file__).resolve().parent / "sample_wiki"
SAMPLE_PAGES = SAMPLE_WIKI / "pages"


def source_configured(settings: Settings) -> bool:
    """Whether the settings name somewhere to sync pages from."""
    if settings.sync_source == "files":
        return bool(settings.sync_files_path)
    if settings.sync_source == "confluence":
        return bool(settings.confluence_url)
    return True  # an unknown source: let the worker report it


def sample_settings(settings: Settings) -> Settings:
    """`settings` with the packaged sample wiki as a files source (every space in it)."""
    return settings.replace(sync_source="files", sync_files_path=str(SAMPLE_PAGES), sync_spaces=[])


def sample_page_ids() -> set[str]:
    """Ids of the sample wiki's pages."""
    from connectors.files import FilesSource

    return set(FilesSource(SAMPLE_PAGES).pages)


def sync_sample_wiki(settings: Settings, index) -> list:
    """Index the sample wiki into `index` (one sync run per space); the `SyncReport`s."""
    from connectors.files import FilesSource
    from connectors.sync import SpaceSync

    source = FilesSource(SAMPLE_PAGES)
    sync = SpaceSync(sample_settings(settings), index, source)
    return [sync.run(space) for space in source.spaces()]


def sample_questions() -> list[str]:
    """The sample wiki's example questions."""
    records = json.loads((SAMPLE_WIKI / "questions.json").read_text(encoding="utf-8"))
    return [r["question"] for r in records]


def example_questions(index) -> list[str]:
    """The example questions the help text may quote: the sample wiki's when only its pages
    are indexed, else none (a generic example is used)."""
    indexed = index.page_ids()
    return sample_questions() if indexed and indexed <= sample_page_ids() else []


def display_url(host: str, port: int) -> str:
    """The URL to print for a bound address (a wildcard address is shown as 127.0.0.1)."""
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


@dataclass
class Parts:
    """What one `confbot serve` process runs, and how to stop each part (last started,
    first stopped)."""

    notes: list[str] = field(default_factory=list)
    stops: list[tuple[str, Callable[[], None]]] = field(default_factory=list)

    def stop_all(self) -> None:
        for name, stop in reversed(self.stops):
            try:
                stop()
            except Exception:  # keep stopping the others
                log.exception("stopping %s failed", name)
        self.stops.clear()


SLACK_RETRY_FIRST = 5.0
SLACK_RETRY_MAX = 300.0
"""Seconds before the first retry of a Slack start-up that failed, doubled each time up to
the maximum (a token fixed in Slack's admin pages is picked up within five minutes)."""


class SlackStarter:
    """Starts Slack for `confbot serve` in a background thread and retries until it works:
    builds the bolt App (which checks the bot token with `auth.test`), connects Socket Mode
    when asked for, and hands the App to the web app for HTTP mode. A failure is a log line
    (what failed and which settings to check) and a retry, never the end of the process."""

    def __init__(
        self, settings: Settings, assistant, web, socket_mode: bool, first_delay=SLACK_RETRY_FIRST
    ):
        self.settings = settings
        self.first_delay = first_delay
        self.assistant = assistant
        self.web = web
        self.socket_mode = socket_mode and bool(settings.slack_app_token)
        self.stop = threading.Event()
        self.connected = threading.Event()
        self.attempts = 0
        self._handler = None
        self._thread = threading.Thread(target=self._run, name="slack-start", daemon=True)

    def start(self) -> None:
        """Try in the background; returns at once."""
        self._thread.start()

    def _run(self) -> None:
        delay = self.first_delay
        while not self.stop.is_set():
            self.attempts += 1
            try:
                self._connect()
            except Exception as exc:
                log.warning(
                    "Slack could not be started (%s: %s); check SLACK_BOT_TOKEN%s and that"
                    " Slack can be reached. The web page and the sync keep running; trying"
                    " again in %.0f s",
                    type(exc).__name__,
                    exc,
                    " and SLACK_APP_TOKEN" if self.socket_mode else "",
                    delay,
                )
                self.stop.wait(delay)
                delay = min(delay * 2, SLACK_RETRY_MAX)
                continue
            self.connected.set()
            return

    def _connect(self) -> None:
        from bot.slack import build_app, socket_mode_handler

        app = build_app(self.settings, self.assistant)
        if self.socket_mode:
            handler = socket_mode_handler(app, self.settings.slack_app_token)
            handler.connect()
            self._handler = handler
            log.info("Slack: Socket Mode connected")
        if self.settings.slack_signing_secret:
            self.web.slack_app = app
            log.info("Slack: HTTP mode ready at /slack/events")

    def close(self) -> None:
        """Stop retrying and close the Socket Mode connection."""
        self.stop.set()
        self._thread.join(timeout=5)
        if self._handler is not None:
            self._handler.close()


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host`:`port`; a clear error naming the settings when the
    address cannot be used (port taken, address not on this machine)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(2048)
        except OSError:
            sock.close()
            raise
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise SettingsError(
            f"cannot listen on {host}:{port} ({reason}). Another program may be using the"
            " port: set CONFBOT_WEB_PORT (or --port) to a free one, or CONFBOT_WEB_HOST"
            " (--host) to an address of this machine"
        ) from None
    return sock


def run(
    settings: Settings,
    *,
    worker: bool = True,
    socket_mode: bool = True,
    out: TextIO = sys.stdout,
) -> int:
    """Run until SIGINT or SIGTERM; the exit status."""
    import uvicorn

    from bot.http_limits import RateLimitedLog, server_config
    from bot.logs import access_log_wanted
    from bot.metrics import serve_metrics
    from bot.setting_checks import validate
    from bot.web import WebApp
    from core.assistant import Assistant

    validate(settings)  # a bad schedule or choice is one line now, not a traceback later
    parts = Parts()
    server: uvicorn.Server | None = None

    def on_signal(signum, _frame) -> None:
        if server is None:  # still starting: unwind through the finally below
            raise _Stopped(signal.Signals(signum).name)
        server.should_exit = True  # uvicorn has its own handlers while it serves

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        sock = bind_socket(settings.web_host, settings.web_port)  # a busy port fails first
        parts.stops.append(("the listening socket", sock.close))
        assistant = Assistant.from_settings(settings)
        parts.stops.append(("the index", assistant.index.close))
        parts.stops.append(("background explanations", assistant.close))
        sync_settings = settings
        synced: list[str] = []  # spaces indexed just now: the scheduler waits a period
        if not source_configured(settings):
            indexed = assistant.index.page_ids()
            if indexed <= sample_page_ids():
                sync_settings = sample_settings(settings)
                if not indexed:
                    print("No sync source configured: indexing the sample wiki…", file=out)
                    for report in sync_sample_wiki(settings, assistant.index):
                        print(f"  {report.summary()}", file=out)
                        synced.append(report.space)
                parts.notes.append(f"sample wiki ({SAMPLE_PAGES})")
            else:
                worker = False
                parts.notes.append("no sync source configured: serving the pages indexed")
        assistant.examples = example_questions(assistant.index)
        assistant.warm_up()  # before the URL is shown

        metrics_server = serve_metrics(settings)
        if metrics_server is not None:
            parts.stops.append(("the metrics server", metrics_server.shutdown))
            host, port = metrics_server.server_address[:2]
            parts.notes.append(f"Prometheus metrics: {display_url(host, port)}/metrics")
        if worker:
            from bot.gaps import weekly_jobs
            from bot.retention import retention_jobs
            from connectors.schedule import Worker

            jobs = weekly_jobs(settings, assistant.index) + retention_jobs(settings)
            sync_worker = Worker(sync_settings, assistant.index, jobs)
            sync_worker.start(synced)
            parts.stops.append(("the sync scheduler", sync_worker.shutdown))
            parts.notes.append(f"sync scheduler: {', '.join(sync_worker.schedules())}")
            if jobs:
                parts.notes.append(f"scheduled: {', '.join(j.name for j in jobs)}")
        if settings.admin_token:
            parts.notes.append("admin page at /admin and metrics at /metrics (admin token)")

        http_mode = bool(settings.slack_bot_token and settings.slack_signing_secret)
        web = WebApp(assistant, slack_http=http_mode)
        slack = SlackStarter(settings, assistant, web, socket_mode)
        if settings.slack_bot_token and (slack.socket_mode or http_mode):
            slack.start()
            parts.stops.append(("Slack", slack.close))
            modes = ["Socket Mode"] if slack.socket_mode else []
            modes += ["HTTP mode at /slack/events"] if http_mode else []
            parts.notes.append(f"Slack: {' and '.join(modes)} (connecting in the background)")
        RateLimitedLog().install()  # a flood of bad connections writes a few lines
        config = server_config(
            web.app,
            settings,
            log_config=None,
            access_log=access_log_wanted(),
            lifespan="off",
            timeout_graceful_shutdown=30,
        )
        server = uvicorn.Server(config)

        def ready(port: int) -> None:
            url = display_url(settings.web_host, port)
            for note in parts.notes:
                print(f"  {note}", file=out)
            print(f"confbot is ready: {url}/ask", file=out, flush=True)
            if sync_settings is not settings:
                print(f"  try: {sample_questions()[0]}", file=out, flush=True)

        asyncio.run(_serve(server, ready, sock))
        return 0 if server.started else 1
    except _Stopped as stopped:
        print(f"{stopped} received while starting: stopped", file=out)
        return 0
    finally:
        parts.stop_all()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class _Stopped(BaseException):
    """A stop signal arrived before the web server was up (a BaseException, like
    KeyboardInterrupt, so that no `except Exception` on the way swallows it)."""


async def _serve(server, ready: Callable[[int], None], sock: socket.socket) -> None:
    """Run the uvicorn server on `sock`, calling `ready(port)` once it listens."""
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if server.started:
        ready(server.servers[0].sockets[0].getsockname()[1])
    await task


class BackgroundServer:
    """An ASGI app served by uvicorn in a background thread on 127.0.0.1 (port 0: a free
    one), for tests and benchmarks that need a real HTTP server in-process (with
    `settings`, under the connection limits `confbot serve` applies):

        with BackgroundServer(app) as server:
            httpx.get(server.url + "/healthz")
    """

    def __init__(
        self, app, host: str = "127.0.0.1", port: int = 0, timeout: float = 30.0, settings=None
    ):
        import uvicorn

        from bot.http_limits import server_config

        options = dict(host=host, port=port, log_level="warning", lifespan="off")
        if settings is not None:  # with the limits of `confbot serve`
            config = server_config(app, settings, **options)
        else:
            config = uvicorn.Config(app, **options)
        self.server = uvicorn.Server(config)
        self.timeout = timeout
        self.url = ""
        self._thread: threading.Thread | None = None

    def __enter__(self) -> BackgroundServer:
        self._thread = threading.Thread(target=self.server.run, name="uvicorn", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + self.timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the web server did not start")
            time.sleep(0.01)
        host, port = self.server.servers[0].sockets[0].getsockname()[:2]
        self.url = display_url(host, port)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self._thread.join(self.timeout)
