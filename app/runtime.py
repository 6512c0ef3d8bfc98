"""How the process runs: the cyclic collector's settings, and the event loop's health.

One process holds every room on one event loop, so anything that holds the loop holds
every table at once. The largest such hold was the cyclic garbage collector's full
pass: it traces every tracked object (~450 a room: each socket's tasks, coroutines and
buffers, and the engine's state), over a second at 5,000 rooms, once or twice a minute
at a human pace (docs/reliability.md, "Five thousand rooms"). Play makes no reference
cycles (tests/app/test_cycles.py), so those passes found nothing to free.

`settle_collector` freezes what start-up made (never traced again) and makes full
passes rare; `collect_on_a_clock` runs the young passes every 50 ms, so each sees little,
and freezes what they leave; `LoopMonitor` measures how late the loop runs its timers
and how long the collector's passes take, for /healthz?detail=1 and a log line a minute."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

log = logging.getLogger("piquet.runtime")

# The collector's thresholds (Python's defaults are 700, 10, 10). The youngest
# generation is collected once 700 more tracked objects are made than freed, the middle
# one every 10 of those, and the oldest (a full pass) once the middle one has been
# collected FULL_EVERY times, and only if the objects moved into the oldest since the
# last full pass are a quarter of those there. With 10, the quarter was the only limit:
# each action's new State lives until the room's next action, long enough to get there,
# and at 5,000 rooms a full pass came once or twice a minute. The middle generation is
# collected 30-70 times a minute at that load: with 1,000, a full pass every ~15-30
# minutes. Cycles still get freed, by those passes; the server makes none as it plays
# (tests/app/test_cycles.py), and whatever a path we have not found makes waits for at
# most ~7 million new objects (1,000 x 10 x 700).
YOUNG_THRESHOLD = 700
MIDDLE_THRESHOLD = 10
FULL_EVERY = 1000


def settle_collector() -> int:
    """After start-up: collect once, move everything left to the collector's permanent
    generation (never traced again; still freed when its count drops to 0), and set
    the thresholds. Returns how many objects were frozen (counting them walks them all:
    done once here, never on a request)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, FULL_EVERY)
    return gc.get_freeze_count()


# Young passes on a clock. The thresholds count tracked objects made *less those freed*,
# and every action frees about as many old objects (the room's previous State and what
# its views worked out) as it makes: so the young generations were collected only once
# 10-110 thousand new objects had piled up behind a count of 700, and each of those
# passes held the loop 5-100 ms at 5,000 rooms (docs/reliability.md, "Five thousand
# rooms", second finding). A pass every YOUNG_EVERY seconds sees only what was made
# since the last one; what it leaves alive is long-lived (a room's state, a socket) and
# is frozen, never traced again. Cycles that die young are still freed; a cycle that
# outlives a pass waits for the full pass every `full_every` seconds (an hour by
# default; about a second at 5,000 rooms). The table makes none (tests/app/test_cycles.py).
YOUNG_EVERY = 0.05


async def collect_on_a_clock(young_every: float = YOUNG_EVERY,
                             full_every: float = 3600.0) -> None:
    """Until cancelled: a young pass every `young_every` s, its survivors frozen; every
    `full_every` s, everything thawed and one full pass, then frozen again."""
    loop = asyncio.get_running_loop()
    next_full = loop.time() + full_every
    while True:
        await asyncio.sleep(young_every)
        if loop.time() >= next_full:
            gc.unfreeze()
            gc.collect()
            next_full = loop.time() + full_every
        else:
            gc.collect(1)
        gc.freeze()


@dataclass(slots=True)
class LoopReport:
    """One window of the loop's health (times in milliseconds)."""

    window_s: float
    lag_p99_ms: float
    lag_max_ms: float
    full_passes: int
    full_pass_max_ms: float
    young_passes: int  # generations 0 and 1
    young_pass_max_ms: float
    middle_passes: int  # generation 1 alone

    def as_dict(self) -> dict[str, Any]:
        return {
            "window_s": round(self.window_s, 1),
            "lag_p99_ms": round(self.lag_p99_ms, 1),
            "lag_max_ms": round(self.lag_max_ms, 1),
            "gc_full_passes": self.full_passes,
            "gc_full_pass_max_ms": round(self.full_pass_max_ms, 1),
            "gc_young_passes": self.young_passes,
            "gc_young_pass_max_ms": round(self.young_pass_max_ms, 1),
            "gc_middle_passes": self.middle_passes,
        }

    def line(self) -> str:
        return (f"event loop over {self.window_s:.0f} s: lag p99 {self.lag_p99_ms:.1f} ms, "
                f"max {self.lag_max_ms:.1f} ms; collector: {self.full_passes} full passes "
                f"(longest {self.full_pass_max_ms:.1f} ms), {self.young_passes} young "
                f"(longest {self.young_pass_max_ms:.1f} ms)")


ROOT = Path(__file__).resolve().parent.parent
STALL_THRESHOLD = 0.05  # the loop not coming round for this long is a stall
STALL_FRAMES = 8  # frames kept of what a stall was running, innermost first


def where(frame: FrameType | None, depth: int = STALL_FRAMES) -> str:
    """A stack, innermost first, as `app/registry.py:sweep:212 < ...`: paths under the
    project relative to it, others by their last two parts."""
    parts: list[str] = []
    while frame is not None and len(parts) < depth:
        path = Path(frame.f_code.co_filename)
        try:
            name = str(path.relative_to(ROOT))
        except ValueError:
            name = "/".join(path.parts[-2:])
        parts.append(f"{name}:{frame.f_code.co_name}:{frame.f_lineno}")
        frame = frame.f_back
    return " < ".join(parts) or "?"


@dataclass(slots=True)
class Stall:
    """The event loop did not come round for `ms`; `where` is what its thread was running
    most of that time (sampled), `samples` how many looks saw it."""

    at_s: float  # seconds since the watch started
    ms: float
    where: str
    samples: int

    def as_dict(self) -> dict[str, Any]:
        return {"at_s": round(self.at_s, 1), "ms": round(self.ms, 1), "where": self.where,
                "samples": self.samples}


class StallWatch:
    """A thread that asks the event loop to run a callback every `every` seconds and, while
    the loop does not get to it, samples what the loop's thread is running. Each time the
    loop came round more than `threshold` late is a `Stall`, kept (the worst `keep` and
    the latest `keep`) with the stack seen most often during it: so a stall names the code
    that held every table, not only how long (issue 29). The cost is one wake-up of the
    loop per `every`, and nothing while it is not late."""

    def __init__(self, loop: asyncio.AbstractEventLoop, *, threshold: float = STALL_THRESHOLD,
                 every: float = 0.01, keep: int = 10) -> None:
        self.loop = loop
        self.threshold = threshold
        self.every = every
        self.keep = keep
        self.count = 0
        self.total_ms = 0.0
        self.worst: list[Stall] = []
        self.latest: deque[Stall] = deque(maxlen=keep)
        self._started = time.monotonic()
        self._thread_id = threading.get_ident()  # made on the loop's thread
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="stall-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            came = threading.Event()
            sent = time.monotonic()
            try:
                self.loop.call_soon_threadsafe(came.set)
            except RuntimeError:  # the loop is closed
                return
            stacks: Counter[str] = Counter()
            while not came.wait(self.every):
                if self._stop.is_set():
                    return
                if time.monotonic() - sent >= self.threshold:
                    stacks[where(sys._current_frames().get(self._thread_id))] += 1
            late = time.monotonic() - sent
            if late >= self.threshold:
                top, samples = stacks.most_common(1)[0] if stacks else ("?", 0)
                self._note(Stall(sent - self._started, late * 1000, top, samples))
            self._stop.wait(self.every)

    def _note(self, stall: Stall) -> None:
        self.count += 1
        self.total_ms += stall.ms
        self.latest.append(stall)
        self.worst.append(stall)
        self.worst.sort(key=lambda x: -x.ms)
        del self.worst[self.keep:]

    def snapshot(self) -> dict[str, Any]:
        return {"uptime_s": round(time.monotonic() - self._started, 1),
                "count": self.count, "total_ms": round(self.total_ms, 1),
                "threshold_ms": round(self.threshold * 1000),
                "worst": [x.as_dict() for x in list(self.worst)],
                "latest": [x.as_dict() for x in list(self.latest)]}


class LoopMonitor:
    """Lag: a timer every `tick` seconds, and how much later than asked it ran (anything
    that holds the loop, the collector or a slow handler, shows there). Collector: how
    many passes and the longest, from `gc.callbacks`. Reported by window of `window` s.
    """

    # Lag above this in a window is logged as a warning, not info.
    WARN_LAG_MS = 250.0

    def __init__(self, *, tick: float = 0.1, window: float = 60.0,
                 name: str = "server", logger: logging.Logger | None = log) -> None:
        self.tick = tick
        self.window = window
        self.name = name
        self.log = logger
        self._lags: list[float] = []
        self._started = time.monotonic()
        self._gc_start = 0.0
        self._passes = [0, 0]  # young (generations 0 and 1), full (2)
        self._pass_max = [0.0, 0.0]
        self._middle = 0
        self.last: LoopReport | None = None  # the last complete window
        self.windows = 0  # how many windows are complete
        self.history: deque[LoopReport] = deque(maxlen=60)
        # Objects frozen at start-up (settle_collector); 0 if the collector is left alone.
        self.frozen_at_start = 0
        self.stalls: StallWatch | None = None  # made by `run` when asked to watch

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
            return
        took = (time.perf_counter() - self._gc_start) * 1000
        full = 1 if info["generation"] == 2 else 0
        self._middle += info["generation"] == 1
        self._passes[full] += 1
        self._pass_max[full] = max(self._pass_max[full], took)

    def current(self) -> LoopReport:
        """The window so far."""
        lags = sorted(self._lags)
        p99 = lags[min(len(lags) - 1, int(0.99 * len(lags)))] if lags else 0.0
        return LoopReport(
            window_s=time.monotonic() - self._started,
            lag_p99_ms=p99 * 1000,
            lag_max_ms=(lags[-1] if lags else 0.0) * 1000,
            full_passes=self._passes[1],
            full_pass_max_ms=self._pass_max[1],
            young_passes=self._passes[0],
            young_pass_max_ms=self._pass_max[0],
            middle_passes=self._middle,
        )

    def _close_window(self) -> LoopReport:
        report = self.current()
        self._lags = []
        self._started = time.monotonic()
        self._passes = [0, 0]
        self._pass_max = [0.0, 0.0]
        self._middle = 0
        self.last = report
        self.windows += 1
        self.history.append(report)
        return report

    def snapshot(self) -> dict[str, Any]:
        """For /healthz?detail=1: the last complete window, the one under way, and how
        the collector is set (objects frozen, thresholds)."""
        return {
            "last": self.last.as_dict() if self.last is not None else None,
            "now": self.current().as_dict(),
            "windows": self.windows,
            "gc_frozen": self.frozen_at_start,
            "gc_thresholds": list(gc.get_threshold()),
            "stalls": self.stalls.snapshot() if self.stalls is not None else None,
        }

    async def run(self, extra: Callable[[], str] | None = None, *,
                  watch_stalls: bool = False) -> None:
        """Probe until cancelled; `extra()` (if given) adds to each window's log line.
        `watch_stalls`: also a `StallWatch`, whose stalls are logged as they end."""
        loop = asyncio.get_running_loop()
        self._started = time.monotonic()
        gc.callbacks.append(self._on_gc)
        if watch_stalls:
            self.stalls = StallWatch(loop)
            self.stalls.start()
        try:
            while True:
                asked = loop.time() + self.tick
                await asyncio.sleep(self.tick)
                self._lags.append(max(0.0, loop.time() - asked))
                if time.monotonic() - self._started >= self.window:
                    report = self._close_window()
                    slow = report.lag_max_ms >= self.WARN_LAG_MS
                    level = logging.WARNING if slow else logging.INFO
                    more = f"; {extra()}" if extra is not None else ""
                    if self.stalls is not None and self.stalls.worst:
                        worst = self.stalls.worst[0]
                        more += (f"; stalls {self.stalls.count} in all, the worst "
                                 f"{worst.ms:.0f} ms in {worst.where}")
                    if self.log is not None:
                        self.log.log(level, "%s %s%s", self.name, report.line(), more)
        finally:
            gc.callbacks.remove(self._on_gc)
            if self.stalls is not None:
                self.stalls.stop()
