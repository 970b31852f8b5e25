"""A `confbot` command run as a real process by a test, its output read line by line."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READY = re.compile(r"confbot is ready: (http://\S+)/ask")


class Confbot:
    """`confbot ARGS` in a subprocess with a clean environment: PATH, `environ` and
    unbuffered output, nothing else of the test runner's environment."""

    def __init__(self, args: list[str], environ: dict[str, str]):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONUNBUFFERED": "1", **environ}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._ended = False  # the output's end was read
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self._queue.put(line)
        self._queue.put(None)

    def wait_for(self, pattern: re.Pattern, timeout: float) -> re.Match:
        """The first output line matching `pattern` (kills the process when none comes)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=0.5)
            except queue.Empty:
                continue
            if line is None:
                self._ended = True
                break
            self.lines.append(line)
            match = pattern.search(line)
            if match:
                return match
        self.process.kill()
        raise AssertionError(f"no line matched {pattern.pattern}:\n" + "".join(self.lines))

    def drain(self) -> str:
        """Everything printed so far, without waiting (what no `wait_for` has read yet
        included)."""
        while not self._ended:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is None:
                self._ended = True
            else:
                self.lines.append(line)
        return self.output

    def stop(self, signum: int, timeout: float = 60) -> int:
        """Send `signum`, wait for the exit and collect the rest of the output."""
        self.process.send_signal(signum)
        return self.finish(timeout)

    def finish(self, timeout: float = 60) -> int:
        """Wait for the exit (killing the process after `timeout` s) and collect the rest of
        the output."""
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        while not self._ended and (line := self._queue.get(timeout=5)) is not None:
            self.lines.append(line)
        self._ended = True
        return code

    @property
    def output(self) -> str:
        """Everything printed so far (as read by `wait_for` and `stop`)."""
        return "".join(self.lines)
