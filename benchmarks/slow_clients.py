"""Slow clients against a real `confbot serve`: does `/healthz` still answer while thousands
of half-sent requests are held open? (issue 34: within 1 s with 2,000 held.)

Starts `confbot serve --port 0 --no-worker` on a fresh data folder (it indexes the packaged
sample wiki first), on 127.0.0.1 only. Then opens `--connections` TCP connections that each
send the start of a request head and then one more header line every few seconds and never
finish (a "slowloris" client); a connection the server closes is opened again at once, so
that many stay held. Meanwhile it asks `GET /healthz` every `--probe-every` seconds on a new
connection and prints the median and worst latency, how many probes failed or got a
status other than 200, how many half-open connections were held, how often the server
closed one (the request deadline), and how many bytes the server logged.

    .venv/bin/python benchmarks/slow_clients.py [--connections 2000] [--seconds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import percentile  # noqa: E402

READY = re.compile(r"confbot is ready: http://([\d.]+):(\d+)/ask")
TARGET_S = 1.0


def start_server(data_dir: Path) -> tuple[subprocess.Popen, str, int, list[bytes]]:
    """`confbot serve` on a free loopback port; (process, host, port, its output so far,
    which a thread keeps appending to)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", str(data_dir)),
        "CONFBOT_DATA_DIR": str(data_dir),
        "CONFBOT_WEB_HOST": "127.0.0.1",
        "PYTHONUNBUFFERED": "1",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve", "--port", "0", "--no-worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output: list[bytes] = []
    for line in process.stdout:
        output.append(line)
        match = READY.search(line.decode("utf-8", "replace"))
        if match:
            threading.Thread(target=lambda: output.extend(process.stdout), daemon=True).start()
            return process, match.group(1), int(match.group(2)), output
    raise SystemExit(f"confbot serve exited ({process.wait()}) before printing its URL")


class Slowloris:
    """`count` connections, each kept sending an unfinished request head."""

    def __init__(self, host: str, port: int, count: int, drip_s: float):
        self.host, self.port, self.count, self.drip_s = host, port, count, drip_s
        self.open = 0
        self.closed_by_server = 0
        self.refused = 0
        self.stop = asyncio.Event()

    async def one(self, number: int) -> None:
        while not self.stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port)
            except OSError:
                self.refused += 1
                await asyncio.sleep(0.2)
                continue
            self.open += 1
            try:
                writer.write(f"GET /ask?n={number} HTTP/1.1\r\nHost: x\r\n".encode())
                while not self.stop.is_set():
                    await writer.drain()
                    try:  # EOF from the server means it closed the connection
                        if await asyncio.wait_for(reader.read(1024), self.drip_s) == b"":
                            self.closed_by_server += 1
                            break
                    except TimeoutError:
                        writer.write(b"X-Slow: 1\r\n")
            except OSError:
                self.closed_by_server += 1
            finally:
                self.open -= 1
                writer.close()


def probe(host: str, port: int) -> tuple[float, int | None]:
    """One `GET /healthz` on a new connection: (seconds, status or None when it failed).
    Blocking, on its own thread: the attack's event loop never delays the measurement."""
    started = time.perf_counter()
    try:
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            head = sock.recv(64)
        status = int(head.split()[1]) if head.startswith(b"HTTP/") else None
    except (OSError, ValueError, IndexError):
        status = None
    return time.perf_counter() - started, status


def probes(host: str, port: int, args, attack: Slowloris, found: dict) -> None:
    """Probe `/healthz` every `args.probe_every` seconds for `args.seconds`."""
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        found["held"].append(attack.open)
        seconds, status = probe(host, port)
        found["latencies"].append(seconds)
        found["statuses"].append(status)
        time.sleep(args.probe_every)


async def run(host: str, port: int, args) -> dict:
    attack = Slowloris(host, port, args.connections, args.drip)
    tasks = [asyncio.create_task(attack.one(n)) for n in range(args.connections)]
    deadline = time.monotonic() + 3
    while attack.open < args.connections and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    found: dict = {"latencies": [], "statuses": [], "held": []}
    await asyncio.to_thread(probes, host, port, args, attack, found)
    attack.stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return found | {"closed": attack.closed_by_server, "refused": attack.refused}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to hold them")
    parser.add_argument("--probe-every", type=float, default=0.25)
    parser.add_argument("--drip", type=float, default=2.0, help="seconds between header lines")
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with tempfile.TemporaryDirectory() as scratch:
        process, host, port, output = start_server(Path(scratch))  # with the limit of the shell
        # this client holds the connections: it needs the files (the server got `soft`)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.connections + 512), hard))
        logged_before = sum(map(len, output))
        try:
            found = asyncio.run(run(host, port, args))
        finally:
            process.terminate()
            process.wait(60)
    logged = sum(map(len, output)) - logged_before
    lines = b"".join(output[-3:]).decode("utf-8", "replace").strip()

    latencies = found["latencies"]
    ok = sum(status == 200 for status in found["statuses"])
    other = [s for s in found["statuses"] if s not in (200, None)]
    print(
        f"{args.connections} half-open connections (a header line every {args.drip:g} s),"
        f" held for {args.seconds:g} s against confbot serve on 127.0.0.1 (started with an"
        f" open-files limit of {soft}, hard {hard})"
    )
    print(
        f"held at each probe: median {statistics.median(found['held']):.0f},"
        f" min {min(found['held'])}; closed by the server (request deadline):"
        f" {found['closed']}, connects refused: {found['refused']}"
    )
    print(
        f"/healthz: {len(latencies)} probes, {ok} answered 200, {len(other)} other statuses"
        f" {sorted(set(other))}, {found['statuses'].count(None)} failed;"
        f" median {statistics.median(latencies) * 1000:.0f} ms,"
        f" p95 {percentile(latencies, 95) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
        f" (target: every probe within {TARGET_S:g} s)"
    )
    print(f"server log while held: {logged} bytes; its last lines:\n{lines[-600:]}")


if __name__ == "__main__":
    main()
