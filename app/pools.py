"""The server's two pools of worker processes, and what each worker does first.

`ComputerPool`: where the good and strong levels think, fed earliest deadline first.
Each decision comes with the moment its move is due (the computer's pace after the
change it answers). The pool runs as many decisions at once as it has workers; the rest
wait in a heap by deadline, so a good table's quick decision, due in 0.6 s, is not queued
behind strong tables' searches due later, and a busy machine makes every table a little
late rather than some very late. A table has one decision in flight at most (its
ComputerSeat runs one task), so what one table may queue is bounded by itself. Its
processes are made, and warmed, when the first good or strong table is.

`CoachPool`: where hints, reviews and records are worked out (app/coach.py), apart from
the computer's so a hint never delays a computer's move; made on first use (none: in the
event loop, for tests).

A worker's first call (`computer_worker`, `coach_worker`) arranges for it to end when its
server does. A worker of a `ProcessPoolExecutor` waits on its call queue. Started with
"spawn", it holds both ends of that queue's pipe, so when the server dies without
shutting the pool down (SIGKILL, the kernel's out-of-memory killer) the worker never
reads an end of file: it waits for ever, ~26 MB each, and a service manager that
restarts the server piles them up. So each worker is told the server's pid when it is
made, ends at once if its parent is already another process (the server died while the
worker was still starting: a spawned worker re-imports before its initializer runs), and
otherwise watches its parent's pid from a daemon thread and exits when it changes (the
orphan is adopted by init or a subreaper). This module imports nothing of the server, so
a worker stays as light as the engine.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

# (deadline, order of arrival, the work, its answer): the heap compares the first two.
Waiting = tuple[float, int, Callable[[], Any], "asyncio.Future[Any]"]


class ComputerPool:
    """The computer's workers: `make` builds the executor, with `workers` processes, when
    the first table that thinks apart is made (`start`); a server that never has one
    starts no process."""

    def __init__(self, make: Callable[[], Executor], workers: int) -> None:
        self.make = make
        self.pool: Executor | None = None
        self.workers = max(1, workers)
        self.running = 0
        self._waiting: list[Waiting] = []
        self._order = itertools.count()

    def start(self) -> Executor:
        """The executor, made and its workers started the first time (so that no decision
        waits on their start)."""
        if self.pool is None:
            from engine.computer import warm

            self.pool = self.make()
            for _ in range(self.workers):
                self.pool.submit(warm)
        return self.pool

    async def decide(self, level: str, view: dict[str, Any], deadline: float) -> Any:
        """The level's decision for `view`, worked out in a worker; `deadline`: when the
        move is due (the event loop's clock)."""
        from engine.computer import decide

        return await self.run(functools.partial(decide, level, view), deadline)

    async def run(self, work: Callable[[], Any], deadline: float) -> Any:
        """`work()` in a worker, once every piece of work due before it has started."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()
        entry: Waiting = (deadline, next(self._order), work, answer)
        heapq.heappush(self._waiting, entry)
        self._pump(loop)
        return await answer

    def _pump(self, loop: asyncio.AbstractEventLoop) -> None:
        while self.running < self.workers and self._waiting:
            _, _, work, answer = heapq.heappop(self._waiting)
            if answer.done():  # (its table stopped waiting: cancelled)
                continue
            self.running += 1
            running = loop.run_in_executor(self.start(), work)
            running.add_done_callback(functools.partial(self._done, loop, answer))

    def _done(self, loop: asyncio.AbstractEventLoop, answer: asyncio.Future[Any],
              running: asyncio.Future[Any]) -> None:
        self.running -= 1
        if not answer.done():
            if running.cancelled():
                answer.cancel()
            elif running.exception() is not None:
                answer.set_exception(running.exception())  # type: ignore[arg-type]
            else:
                answer.set_result(running.result())
        self._pump(loop)

    def shutdown(self) -> None:
        for *_, answer in self._waiting:
            answer.cancel()
        self._waiting.clear()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


class CoachPool:
    """Where hints, reviews and records are worked out: `workers` processes, made on first
    use (0: in the event loop)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: Executor | None = None
        self.pending = 0  # reviews worked out as deals ended, not yet done
        # Hints and reviews being answered (kept, so none is collected).
        self.answering: set[asyncio.Future[None]] = set()

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        if self.workers <= 0:
            return fn(*args)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=coach_worker, initargs=(os.getpid(),))
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args))

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def die_with_parent(server: int, interval: float = 0.5) -> None:
    """The pool's initializer: `server` is the pid of the process that made the pool,
    read there (reading `os.getppid()` here would find init if the server is gone)."""
    if os.getppid() != server:
        os._exit(0)

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(interval)
        os._exit(0)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


# Niceness: the event loop serves every table, so it comes first; the computer's thinking
# next; hints and reviews last. (With the machine full, a nice-5 worker gets about a third
# of the CPU the loop gets, a nice-10 one about a tenth.)
COMPUTER_NICE = 5
COACH_NICE = 10


def computer_worker(server: int) -> None:
    """A computer worker's initializer (app/main.py): as `die_with_parent`, at a lower
    priority than the server, so that a machine full of searches still answers every
    table's message at once, and a quick decision (the good level's) is not held behind
    the server's loop waiting for the CPU."""
    die_with_parent(server)
    os.nice(COMPUTER_NICE)


def coach_worker(server: int) -> None:
    """A coach worker's initializer (CoachPool): as `die_with_parent`, and a lower
    priority, so that reviews worked out as deals end never take the CPU from the
    computer's moves or the event loop (its hints still come within their time when the
    computer is not thinking)."""
    die_with_parent(server)
    os.nice(COACH_NICE)
