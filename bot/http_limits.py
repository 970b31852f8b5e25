"""What keeps one client from stopping the web app or filling the disk.

- `server_config`: the uvicorn configuration of `confbot serve`. `limit_concurrency`
  (`web_max_connections`) answers 503 at once beyond that many connections, instead of
  running out of file descriptors, where the accept loop fails and logs on every try; the
  open-files limit is raised to fit (`raise_open_files_limit`). Idle keep-alive connections
  close after `KEEP_ALIVE_S`; h11 (when uvicorn uses it) buffers at most `MAX_HEAD_BYTES` of
  an incomplete request head (httptools, its default, limits heads by itself).
- `deadline_protocol`: uvicorn has no timeout for reading a request, so a client that sends
  half a request head (or a body byte a minute) holds its connection forever. The protocol
  class it returns closes a connection that has not delivered a whole request (head and
  body) `web_request_timeout` seconds after connecting or after its previous response.
- `RateLimitedLog`: a logging filter that lets a burst of `BURST` records of one kind (logger
  and message template) through, then one per `EVERY_S` seconds, each saying how many were
  dropped; and cuts every record (message and traceback) to `MAX_RECORD_CHARS`. Installed
  on the loggers that write per connection (`asyncio`'s accept loop, uvicorn's), so a flood
  of bad connections writes a few lines a minute.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import threading
import time

log = logging.getLogger(__name__)

KEEP_ALIVE_S = 5
"""Seconds an idle keep-alive connection stays open (uvicorn's default)."""
MAX_HEAD_BYTES = 16 * 1024
"""Largest incomplete request head h11 buffers (its default is 16 KiB too; set explicitly
so that it stays bounded)."""
FD_MARGIN = 256
"""Open files kept beside the connections: the databases, the index, logs, Slack."""
BURST = 10
EVERY_S = 60.0
MAX_RECORD_CHARS = 2000
LIMITED_LOGGERS = ("asyncio", "uvicorn.error", "uvicorn.protocols")


def http_protocol_class() -> type[asyncio.Protocol]:
    """The HTTP protocol uvicorn would pick ("auto": httptools when installed, else h11)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        return HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol

        return H11Protocol


def deadline_protocol(base: type[asyncio.Protocol], timeout: float) -> type[asyncio.Protocol]:
    """`base` (a uvicorn HTTP protocol) with a deadline for receiving each whole request."""

    class DeadlineProtocol(base):  # type: ignore[misc, valid-type]
        _deadline: asyncio.TimerHandle | None = None
        _done_cycle = None

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            cycle = self.cycle
            if cycle is not None and cycle is not self._done_cycle and not cycle.more_body:
                self._disarm()  # the whole request is in: the app may take its time

        def on_response_complete(self) -> None:
            self._done_cycle = self.cycle
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

    DeadlineProtocol.__name__ = f"Deadline{base.__name__}"
    return DeadlineProtocol


def raise_open_files_limit(wanted: int) -> int:
    """Raise this process's soft limit of open files towards `wanted` (up to the hard
    limit); the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (OSError, ValueError) as exc:
            log.warning("could not raise the open-files limit to %d: %s", target, exc)
    return soft


def connection_limit(settings) -> int:
    """`web_max_connections`, lowered to what the open-files limit allows (with a log line
    saying so) after trying to raise that limit."""
    wanted = settings.web_max_connections
    soft = raise_open_files_limit(wanted + FD_MARGIN)
    if soft != resource.RLIM_INFINITY and soft - FD_MARGIN < wanted:
        allowed = max(1, soft - FD_MARGIN)
        log.warning(
            "CONFBOT_WEB_MAX_CONNECTIONS=%d lowered to %d: the open-files limit is %d"
            " (raise it with ulimit -n)",
            wanted,
            allowed,
            soft,
        )
        return allowed
    return wanted


def server_config(app, settings, **options):
    """The uvicorn `Config` for `app` with the limits above (`options` are passed on)."""
    import uvicorn

    protocol = deadline_protocol(http_protocol_class(), settings.web_request_timeout)
    return uvicorn.Config(
        app,
        http=protocol,
        limit_concurrency=connection_limit(settings),
        timeout_keep_alive=KEEP_ALIVE_S,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        **options,
    )


class RateLimitedLog(logging.Filter):
    """Lets `burst` records of each kind through, then one per `every` seconds (noting how
    many were dropped meanwhile); cuts each record to `max_chars`. Thread-safe."""

    def __init__(
        self, burst: int = BURST, every: float = EVERY_S, max_chars: int = MAX_RECORD_CHARS
    ):
        super().__init__()
        self.burst, self.every, self.max_chars = burst, every, max_chars
        self._seen: dict[tuple[str, str], list[float]] = {}  # kind -> [tokens, last, dropped]
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        kind = (record.name, str(record.msg)[:200])
        now = time.monotonic()
        with self._lock:
            if len(self._seen) > 1000:
                self._seen.clear()
            tokens, last, dropped = self._seen.get(kind, [float(self.burst), now, 0])
            tokens = min(float(self.burst), tokens + (now - last) / self.every)
            if tokens < 1:
                self._seen[kind] = [tokens, now, dropped + 1]
                return False
            self._seen[kind] = [tokens - 1, now, 0]
        self._bound(record, int(dropped))
        return True

    def _bound(self, record: logging.LogRecord, dropped: int) -> None:
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.exc_info = None  # the text is kept (cut below); no second formatting
        if record.exc_text and len(record.exc_text) > self.max_chars:
            record.exc_text = record.exc_text[-self.max_chars :]  # the innermost error
        if len(message) > self.max_chars:
            message = message[: self.max_chars] + f"… ({len(message)} characters)"
        if dropped:
            message += f" [{dropped} similar message(s) dropped]"
        record.msg, record.args = message, None

    def install(self, names=LIMITED_LOGGERS) -> None:
        """Add the filter to the named loggers (records are filtered where they are made)."""
        for name in names:
            logging.getLogger(name).addFilter(self)
