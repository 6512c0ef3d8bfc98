"""The first thing a computer worker process does: arrange to end when its server does.

A worker of a `ProcessPoolExecutor` waits on its call queue. Started with "spawn", it
holds both ends of that queue's pipe, so when the server dies without shutting the pool
down (SIGKILL, the kernel's out-of-memory killer) the worker never reads an end of file:
it waits for ever, ~26 MB each, and a service manager that restarts the server piles
them up. So each worker is told the server's pid when it is made, ends at once if its
parent is already another process (the server died while the worker was still starting:
a spawned worker re-imports before its initializer runs), and otherwise watches its
parent's pid from a daemon thread and exits when it changes (the orphan is adopted by
init or a subreaper). This module imports nothing of the server, so a worker stays as
light as the engine.
"""

from __future__ import annotations

import os
import threading
import time


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
TEACHING_NICE = 10


def computer_worker(server: int) -> None:
    """A computer worker's initializer (app/main.py): as `die_with_parent`, at a lower
    priority than the server, so that a machine full of searches still answers every
    table's message at once, and a quick decision (the good level's) is not held behind
    the server's loop waiting for the CPU."""
    die_with_parent(server)
    os.nice(COMPUTER_NICE)


def teaching_worker(server: int) -> None:
    """A teaching worker's initializer (app/coach.py): as `die_with_parent`, and a lower
    priority, so that reviews worked out as deals end never take the CPU from the
    computer's moves or the event loop (its hints still come within their time when the
    computer is not thinking)."""
    die_with_parent(server)
    os.nice(TEACHING_NICE)
