"""Seconds from a dropped Socket Mode connection to the next one, with the product's own
connection (`bot.slack.socket_mode_handler`), and for comparison with slack-bolt's adapter on
slack-sdk's built-in client (bolt's default adapter, its default 10 s ping interval).

A local Socket Mode server (`tests/fakes/socket_mode_server.py`) kills the connection
without a WebSocket close frame, `--drops` times per kind: by a TCP reset, and by a bare FIN
(a proxy or a server that went away); the Web API (`tests/fakes/slack_api_server.py`) hands
out a new URL each time. Prints each kind's reconnect times (drop → the new connection's
`hello`), median and worst, to hold against the target of at most 5 s.

    .venv/bin/python benchmarks/socket_mode_reconnect.py [--drops 10] [--builtin]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from slack_bolt import App  # noqa: E402
from slack_sdk import WebClient  # noqa: E402

from bot.slack import socket_mode_handler  # noqa: E402
from tests.fakes.slack_api_server import FakeSlack  # noqa: E402
from tests.fakes.socket_mode_server import FakeSocketMode  # noqa: E402


def builtin_handler(app: App, app_token: str):
    """slack-bolt's default Socket Mode adapter (slack-sdk's built-in client)."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    return SocketModeHandler(app, app_token)


def reconnect_times(make_handler, drops: int, reset: bool) -> list[float]:
    """Seconds from each drop to the next connection's hello."""
    with FakeSlack() as slack, FakeSocketMode() as server:
        slack.socket_mode_url = server.url
        client = WebClient(token="xoxb-benchmark", base_url=slack.base_url)
        handler = make_handler(App(client=client, signing_secret="unused"), "xapp-1-A")
        handler.connect()
        try:
            server.wait_for_connections(1)
            for number in range(drops):
                time.sleep(0.2)  # the new connection settles before it is killed again
                server.drop(reset=reset)
                server.wait_for_connections(number + 2, timeout=300)
        finally:
            handler.close()
        pairs = zip(server.dropped_at, server.connected_at[1:], strict=True)
        return [after - dropped for dropped, after in pairs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drops", type=int, default=10, help="drops per kind (default 10)")
    parser.add_argument(
        "--builtin", action="store_true", help="also measure bolt's built-in-client adapter"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)  # the clients log every drop as an error
    adapters = [("confbot (websocket-client)", socket_mode_handler)]
    if args.builtin:
        adapters.append(("bolt built-in client", builtin_handler))
    for adapter, make_handler in adapters:
        worst = 0.0
        for kind, reset in (("TCP reset", True), ("FIN, no close frame", False)):
            times = reconnect_times(make_handler, args.drops, reset)
            worst = max(worst, *times)
            print(
                f"{adapter}, {kind}: median {statistics.median(times):.2f} s,"
                f" max {max(times):.2f} s over {len(times)} drops"
            )
        print(f"{adapter}: worst reconnect {worst:.2f} s (target <= 5 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
