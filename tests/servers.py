"""A PostgreSQL cluster and a Chroma server of a test's own, on free ports of 127.0.0.1, that
the test can stop and start again (an outage, a restart), unlike the shared servers CI
starts for the whole suite. Each skips the test, saying why, when its program is missing."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _postgres_bin() -> Path | None:
    """The newest /usr/lib/postgresql/N/bin holding initdb (Debian's layout), else the
    folder of an `initdb` on the PATH."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class PostgresCluster:
    """A throwaway cluster made by `initdb` (trust authentication, user `postgres`), as
    .ci/run makes the shared one: as root its files and processes belong to the `postgres`
    user, since PostgreSQL refuses to run as root."""

    def __init__(self):
        self.bin = _postgres_bin()
        if self.bin is None:
            pytest.skip("initdb not found (install PostgreSQL; .ci/run does)")
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no postgres user to run PostgreSQL")
        self.folder = Path(tempfile.mkdtemp(prefix="confbot-pg-"))
        self.folder.chmod(0o755)
        if self.as_postgres:
            shutil.chown(self.folder, "postgres")
        self.data = self.folder / "data"
        self.port = free_port()
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres")
        self.url = f"postgresql+psycopg2://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self.as_postgres:
            command = ["su", "postgres", "-c", subprocess.list2cmdline(command)]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
        log = str(self.folder / "postgres.log")  # not our pipe: the server outlives pg_ctl
        self._run("pg_ctl", "-D", str(self.data), "-l", log, "-o", options, "-w", "start")

    def stop(self) -> None:
        """A fast shutdown: open connections are cut, as in a restart by an operator."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def close(self) -> None:
        try:
            self.stop()
        except subprocess.CalledProcessError:
            pass  # already stopped
        shutil.rmtree(self.folder, ignore_errors=True)


class ChromaServer:
    """`chroma run` on a free port with its data in a temporary folder; `stop` and `start`
    again keep the data, as a restarted server does."""

    def __init__(self):
        beside = Path(sys.executable).parent / "chroma"
        program = str(beside) if beside.exists() else shutil.which("chroma")
        if program is None:
            pytest.skip("the `chroma` command (chromadb's server) is not installed")
        self.program = program
        self.folder = Path(tempfile.mkdtemp(prefix="confbot-chroma-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> None:
        command = [self.program, "run", "--path", str(self.folder / "data")]
        command += ["--host", "127.0.0.1", "--port", str(self.port)]
        with open(self.folder / "chroma.log", "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=2)
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.2)
        raise AssertionError("chroma run did not answer:\n" + self.log())

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def log(self) -> str:
        return (self.folder / "chroma.log").read_text(errors="replace")

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
