"""Where the good and strong levels think: a pool of worker processes, fed earliest
deadline first.

Each decision comes with the moment its move is due (the computer's pace after the
change it answers). The pool runs as many decisions at once as it has workers; the
rest wait in a heap by deadline, so a good table's quick decision, due in 0.6 s, is not
queued behind strong tables' searches due later, and a busy machine makes every table a
little late rather than some very late (issue 25: on one shared worker, strong moves
came up to 6 s after a 1.5 s pace, and good ones 2.5 s behind). A table has one decision
in flight at most (its ComputerSeat runs one task), so what one table may queue is
bounded by itself.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

# (deadline, order of arrival, the work, its answer): the heap compares the first two.
Waiting = tuple[float, int, Callable[[], Any], "asyncio.Future[Any]"]


class Thinking:
    def __init__(self, pool: Executor, workers: int) -> None:
        self.pool = pool
        self.workers = max(1, workers)
        self.running = 0
        self._waiting: list[Waiting] = []
        self._order = itertools.count()

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

    def warm(self, fn: Callable[[], Any]) -> None:
        """Start a worker (the pool's processes start on their first work)."""
        self.pool.submit(fn)

    def _pump(self, loop: asyncio.AbstractEventLoop) -> None:
        while self.running < self.workers and self._waiting:
            _, _, work, answer = heapq.heappop(self._waiting)
            if answer.done():  # (its table stopped waiting: cancelled)
                continue
            self.running += 1
            running = loop.run_in_executor(self.pool, work)
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
        self.pool.shutdown(wait=False, cancel_futures=True)
