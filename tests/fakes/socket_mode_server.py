"""A Slack Socket Mode server for tests: a real WebSocket server (the `websockets` package)
on 127.0.0.1, on a free port, in a background thread.

Slack's side of the protocol (api.slack.com/apis/socket-mode): the app asks the Web API's
`apps.connections.open` for a `wss://` URL (`FakeSlack` answers with this server's `url`),
connects, and gets a `hello`; then envelopes arrive (`events_api`, `interactive`), each with
an `envelope_id` the app must send back within 3 s to acknowledge it, or Slack delivers it
again (`retry_attempt` counts up). Every acknowledgement is recorded.

    with FakeSocketMode() as socket_mode:
        slack.socket_mode_url = socket_mode.url
        ...
        envelope_id = socket_mode.send_event(event_body)
        socket_mode.wait_for_acks({envelope_id})
        socket_mode.drop()            # the connection dies without a goodbye
        socket_mode.wait_for_connections(2)

The tests' own WebSocket client is the real one: slack-sdk's built-in `SocketModeClient`,
through slack-bolt's `SocketModeHandler`.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Self

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import Server, ServerConnection, serve


@dataclass(frozen=True)
class Ack:
    """An acknowledgement the app sent: the envelope id, the connection it came on (1 for
    the first connection) and the payload it carried, if any."""

    envelope_id: str
    connection: int
    payload: dict | None
    at: float


class FakeSocketMode:
    """The server. Start with `start()` or a `with` block; stop with `stop()`."""

    def __init__(self, app_id: str = "A0APP"):
        self.app_id = app_id
        self.acks: list[Ack] = []
        self.sent: list[dict] = []
        self.connected_at: list[float] = []
        """When each connection (1, 2, ...) said hello."""
        self.dropped_at: list[float] = []
        self._current: ServerConnection | None = None
        self._server: Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Self:
        self._server = serve(self._serve, "127.0.0.1", 0, compression=None, ping_interval=None)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The URL `apps.connections.open` hands out."""
        assert self._server is not None, "server not started"
        port = self._server.socket.getsockname()[1]
        return f"ws://127.0.0.1:{port}/link/?ticket={uuid.uuid4()}&app_id={self.app_id}"

    # ------------------------------------------------------------------ Slack's side
    def send_event(self, body: dict, retry_attempt: int = 0) -> str:
        """Deliver an Events API body (`event_callback`) in an `events_api` envelope;
        its envelope id. A redelivery has the same body and a new envelope id."""
        return self._send(
            "events_api",
            body,
            retry_attempt=retry_attempt,
            retry_reason="timeout" if retry_attempt else "",
        )

    def send_command(self, payload: dict) -> str:
        """Deliver a slash command (its fields as a JSON object); its envelope id."""
        return self._send("slash_commands", payload)

    def send_interactive(self, payload: dict) -> str:
        """Deliver an interactivity payload (`block_actions`...); its envelope id."""
        return self._send("interactive", payload)

    def _send(self, kind: str, payload: dict, **extra) -> str:
        envelope = {
            "envelope_id": str(uuid.uuid4()),
            "type": kind,
            "payload": payload,
            "accepts_response_payload": False,
            **extra,
        }
        with self._lock:
            connection = self._current
            self.sent.append(envelope)
        assert connection is not None, "no app is connected"
        connection.send(json.dumps(envelope))
        return envelope["envelope_id"]

    def ask_to_reconnect(self) -> None:
        """Send a `disconnect` message, as Slack does before it refreshes a connection."""
        with self._lock:
            connection = self._current
        assert connection is not None, "no app is connected"
        connection.send(json.dumps({"type": "disconnect", "reason": "refresh_requested"}))

    def drop(self, reset: bool = True) -> None:
        """Kill the current connection without a WebSocket close frame, the way a crashed
        server or a proxy does: with a TCP reset (`reset`), else with a bare FIN."""
        with self._lock:
            connection, self._current = self._current, None
            self.dropped_at.append(time.monotonic())
        assert connection is not None, "no app is connected"
        raw = connection.socket
        if reset:
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        raw.shutdown(socket.SHUT_RDWR)

    # ------------------------------------------------------------------ assertions
    @property
    def connections(self) -> int:
        """Connections the app has opened so far."""
        with self._lock:
            return len(self.connected_at)

    def wait_for_connections(self, count: int, timeout: float = 30.0) -> None:
        """Wait until the app has opened `count` connections."""
        self._wait(lambda: len(self.connected_at) >= count, timeout, f"{count} connection(s)")

    def wait_for_acks(self, envelope_ids: set[str], timeout: float = 30.0) -> None:
        """Wait until every envelope in `envelope_ids` has been acknowledged."""

        def done() -> bool:
            return envelope_ids <= {a.envelope_id for a in self.acks}

        self._wait(done, timeout, f"acknowledgements of {len(envelope_ids)} envelope(s)")

    def _wait(self, condition, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition():
                left = deadline - time.monotonic()
                assert left > 0, f"timed out waiting for {what}"
                self._changed.wait(left)

    # ------------------------------------------------------------------ serving
    def _serve(self, connection: ServerConnection) -> None:
        with self._changed:
            self._current = connection
            self.connected_at.append(time.monotonic())
            number = len(self.connected_at)
            self._changed.notify_all()
        connection.send(
            json.dumps(
                {
                    "type": "hello",
                    "num_connections": 1,
                    "debug_info": {"host": "fake-socket-mode", "approximate_connection_time": 3600},
                    "connection_info": {"app_id": self.app_id},
                }
            )
        )
        try:
            for message in connection:
                data = json.loads(message)
                if "envelope_id" in data:
                    ack = Ack(data["envelope_id"], number, data.get("payload"), time.monotonic())
                    with self._changed:
                        self.acks.append(ack)
                        self._changed.notify_all()
        except (ConnectionClosed, OSError):
            pass
        finally:
            with self._lock:
                if self._current is connection:
                    self._current = None
