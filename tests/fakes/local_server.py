"""The lifecycle every fake server shares: a `ThreadingHTTPServer` on 127.0.0.1, on a free
port, serving from a daemon thread; usable as a context manager.

Its handlers write the headers and the body of a response in two sends; with Nagle's
algorithm on, the body waits for the client's delayed ACK of the headers (about 40 ms on
Linux) on every keep-alive request, so Nagle is switched off (TCP_NODELAY)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LocalServer:
    """Base of the fake servers; a subclass says which request handler serves it."""

    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        """The request handler class, bound to this fake."""
        raise NotImplementedError

    @property
    def port(self) -> int:
        """The port the server listens on."""
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    def start(self) -> Self:
        """Listen on a free port in a daemon thread."""
        handler = self.handler_class()
        no_delay = type(handler.__name__, (handler,), {"disable_nagle_algorithm": True})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), no_delay)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and wait for the serving thread."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
