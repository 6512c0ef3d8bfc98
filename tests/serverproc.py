"""A real server process for tests and benchmarks: a free loopback port, a process
waited for until GET /healthz answers, and stopped. One copy, for the live fault tests,
the uvicorn test, the browser tests and the benchmarks."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from typing import Any

import httpx

HOST = "127.0.0.1"


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
