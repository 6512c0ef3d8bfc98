"""The first thing a computer worker process does: arrange to end when its server does.

A worker of a `ProcessPoolExecutor` waits on its call queue. Started with "spawn", it
holds both ends of that queue's pipe, so when the server dies without shutting the pool
down (SIGKILL, the kernel's out-of-memory killer) the worker never reads an end of file:
it waits for ever, ~26 MB each, and a service manager that restarts the server piles
them up. So each worker watches its parent's pid from a daemon thread and exits when it
changes (the orphan is adopted by init or a subreaper). This module imports nothing of
the server, so a worker stays as light as the engine.
"""

from __future__ import annotations

import os
import threading
import time


def die_with_parent(interval: float = 0.5) -> None:
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(0)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()
