"""The event loop's health probe (app/runtime.py), as an operator reads it: how late the
loop ran, and the collector's passes, in /healthz?detail=1 and a log line a window."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
import weakref

import pytest
from tablekit import TestClient

from app.runtime import LoopMonitor, collect_on_a_clock


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


def test_a_stall_names_the_code_that_held_the_loop() -> None:
    """The stall watch says how long the loop was held and what held it (issue 29)."""
    monitor = LoopMonitor(tick=0.01, window=60, name="test", logger=None)

    def a_step_proportional_to_every_room() -> None:
        time.sleep(0.3)

    async def hold_the_loop() -> None:
        task = asyncio.create_task(monitor.run(watch_stalls=True))
        await asyncio.sleep(0.1)
        a_step_proportional_to_every_room()
        await asyncio.sleep(0.1)
        task.cancel()

    asyncio.run(hold_the_loop())
    assert monitor.stalls is not None
    stalls = monitor.stalls.snapshot()
    assert stalls["count"] >= 1
    worst = stalls["worst"][0]
    assert worst["ms"] >= 250
    assert "a_step_proportional_to_every_room" in worst["where"]
    assert "tests/app/test_runtime.py" in worst["where"]


def test_healthz_detail_shows_the_loop_and_the_collector(client: TestClient) -> None:
    assert "loop" not in client.get("/healthz").json()
    operator = TestClient(client.app, client=("127.0.0.1", 5000))  # (for operators only)
    detail = operator.get("/healthz", params={"detail": 1}).json()
    assert detail["status"] == "ok" and detail["rooms"] == 0
    loop = detail["loop"]
    assert set(loop["now"]) >= {"lag_p99_ms", "lag_max_ms", "gc_full_passes",
                                "gc_full_pass_max_ms"}
    assert loop["last"] is None  # no window has ended yet
    assert len(loop["gc_thresholds"]) == 3


class _Cycle:
    """An object that refers to itself: freed only by the cyclic collector."""

    def __init__(self) -> None:
        self.me = self


def test_the_collector_clock_frees_young_cycles_and_full_passes_free_old_ones() -> None:
    """`collect_on_a_clock`: young passes on a timer (then what they leave is frozen), and
    a full pass (everything thawed) every `full_every` s, which frees a cycle that had
    been frozen. Automatic passes are off here, so only the clock can free them."""
    gc.collect()
    thresholds = gc.get_threshold()
    full_passes = 0

    def count_full(phase: str, info: dict[str, int]) -> None:
        nonlocal full_passes
        full_passes += phase == "stop" and info["generation"] == 2

    gc.disable()
    gc.callbacks.append(count_full)
    try:
        async def run() -> tuple[bool, bool, bool]:
            clock = asyncio.create_task(collect_on_a_clock(young_every=0.01, full_every=1.5))
            young = _Cycle()
            dies_young = weakref.ref(young)
            del young
            await asyncio.sleep(0.1)  # a few young passes
            freed_young = dies_young() is None
            old = _Cycle()
            dies_old = weakref.ref(old)
            await asyncio.sleep(0.1)  # it survives young passes: frozen, kept...
            del old
            await asyncio.sleep(0.1)
            # (Unless the full pass, due 1.5 s after the start, has already run: a machine
            # busy enough to hold this test that long.)
            kept_while_frozen = dies_old() is not None or full_passes > 0
            for _ in range(100):  # ...until the full pass (due 1.5 s after the start)
                if dies_old() is None:
                    break
                await asyncio.sleep(0.05)
            clock.cancel()
            return freed_young, kept_while_frozen, dies_old() is None

        freed_young, kept_while_frozen, freed_old = asyncio.run(run())
    finally:
        gc.callbacks.remove(count_full)
        gc.unfreeze()
        gc.enable()
        gc.set_threshold(*thresholds)
    assert freed_young
    assert kept_while_frozen
    assert freed_old
