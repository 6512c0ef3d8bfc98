"""The event loop's health probe (app/runtime.py), as an operator reads it: how late the
loop ran, and the collector's passes, in /healthz?detail=1 and a log line a window."""

from __future__ import annotations

import asyncio
import gc
import logging
import time

import pytest
from tablekit import TestClient

from app.runtime import LoopMonitor


def test_a_held_loop_shows_as_lag_and_a_full_pass_is_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    monitor = LoopMonitor(tick=0.01, window=0.5, name="test")

    async def hold_the_loop() -> None:
        task = asyncio.create_task(monitor.run(lambda: "rooms 7"))
        await asyncio.sleep(0.05)
        time.sleep(0.3)  # a handler that holds the loop (as a full collector pass does)
        gc.collect()
        while monitor.windows == 0:
            await asyncio.sleep(0.05)
        task.cancel()

    with caplog.at_level(logging.INFO, logger="piquet.runtime"):
        asyncio.run(hold_the_loop())
    report = monitor.history[0]
    # The timer due 0.01 s after the hold began ran only after it: at least ~0.29 s late.
    assert report.lag_max_ms >= 250
    assert report.full_passes >= 1
    line = caplog.records[0]
    assert line.levelno == logging.WARNING  # lag above WARN_LAG_MS is a warning
    assert "test event loop over" in line.getMessage() and "rooms 7" in line.getMessage()
    assert gc.callbacks.count(monitor._on_gc) == 0  # the probe removed its hook


def test_healthz_detail_shows_the_loop_and_the_collector(client: TestClient) -> None:
    assert "loop" not in client.get("/healthz").json()
    detail = client.get("/healthz", params={"detail": 1}).json()
    assert detail["status"] == "ok" and detail["rooms"] == 0
    loop = detail["loop"]
    assert set(loop["now"]) >= {"lag_p99_ms", "lag_max_ms", "gc_full_passes",
                                "gc_full_pass_max_ms"}
    assert loop["last"] is None  # no window has ended yet
    assert len(loop["gc_thresholds"]) == 3
