"""A real server process for tests and benchmarks: a free loopback port, a process
waited for until GET /healthz answers, and stopped. One copy, for the live fault tests,
the uvicorn test, the browser tests and the benchmarks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from app.settings import ROOT

HOST = "127.0.0.1"


def children(pid: int) -> list[int]:
    """The processes `pid` started (its worker pool), from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def session_members(sid: int) -> list[int]:
    """The live processes of session `sid` (zombies left out), from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, *fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == sid and state != "Z":  # ppid, pgrp, session
            found.append(int(stat.parent.name))
    return found


def store_env(env: dict[str, str]) -> dict[str, str]:
    """A test's server keeps its rooms in memory unless `env` names a store (or Redis):
    no test writes into the checkout's ./data, and each that keeps rooms in a SQLite
    file gives it a directory of its own."""
    if "PIQUET_STORE" in env or "PIQUET_REDIS_URL" in env:
        return {}
    return {"PIQUET_STORE": "memory"}


class ServerDidNotStart(RuntimeError):
    """The process exited, or /healthz did not answer in time."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_until_healthy(
    proc: subprocess.Popen[Any],
    base: str,
    *,
    seconds: float = 30,
    details: Callable[[], str] = lambda: "",
) -> None:
    """Return once GET {base}/healthz answers; if the process exits or `seconds` pass
    first, stop it and raise ServerDidNotStart with `details()` (say, its log)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(f"{base}/healthz", trust_env=False, timeout=2).is_success:
                return
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc)
            raise ServerDidNotStart(f"the server at {base} did not start:\n{details()}")
        time.sleep(0.05)


def stop(proc: subprocess.Popen[Any], timeout: float = 10) -> int:
    """SIGTERM, then SIGKILL if it has not exited within `timeout`; its exit status."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


class AppProcess:
    """`python -m app` on a loopback port of its own, its log in a file, with the tests'
    settings (no computer delay, limits raised: every test's traffic comes from
    127.0.0.1; rooms in memory unless `env` names a store); `env` adds or overrides
    PIQUET_* settings."""

    def __init__(self, log_path: Path, port: int | None = None, *, new_session: bool = False,
                 **env: str) -> None:
        self.port = port or free_port()
        # A session of its own: everything it starts can be found by session id, even
        # once it is dead and they are orphans (`session_members`).
        self.new_session = new_session
        self.log_path = log_path
        self.env = {
            **os.environ,
            "PIQUET_HOST": HOST,
            "PIQUET_PORT": str(self.port),
            "PIQUET_COMPUTER_DELAY": "0",
            "PIQUET_COMPUTER_EXCHANGE_DELAY": "0",
            "PIQUET_RATE_LIMIT_PER_SECOND": "100000",
            "PIQUET_RATE_LIMIT_BURST": "100000",
            "PIQUET_ROOMS_BURST": "100000",
            "PIQUET_ROOMS_PER_ADDRESS": "100000",
            "PIQUET_LOG_LEVEL": "info",
            **store_env(env),
            **env,
        }
        self.http = f"http://{HOST}:{self.port}"
        self.ws = f"ws://{HOST}:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Any:
        """Start it and wait until /healthz answers; returns itself."""
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=self.env,
                                         stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=self.new_session)
        wait_until_healthy(self.proc, self.http, details=self.log)
        return self

    def kill(self) -> None:
        """kill -9: no shutdown at all."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")
