"""The hint's time (issue 26): `engine.computer.advice.hint` over every decision view of
parties between two strong players (the strong level's own views: every kind of decision,
the exchange and the play above all), each view timed on its own.

Run by hand: `.venv/bin/python tests/bench/hint.py [parties] [--cpu]`. The last line
prints the median, 99th percentile and worst hint time, and the load average (target:
99th percentile under 1.5 s).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine
from engine.computer import strong
from engine.computer.advice import hint
from engine.selfplay import _who_acts
from engine.state import Step


def decision_views(parties: int, seed: int) -> list[dict[str, Any]]:
    """Every view that offered a seat something, in `parties` strong-v-strong parties."""
    rng = random.Random(seed)
    views = []
    for _ in range(parties):
        s = engine.new_partie(rng.getrandbits(64))
        while s.step is not Step.PARTIE_OVER:
            seat = _who_acts(s)
            v = engine.view(s, seat)
            if v["legal"]:
                views.append(v)
            s = engine.apply(s, seat, strong.choose(v, True))
    return views


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("parties", type=int, nargs="?", default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cpu", action="store_true",
                        help="time the process's CPU, not the wall clock (on a busy machine)")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    views = decision_views(args.parties, args.seed)
    times: dict[str, list[float]] = {}
    for v in views:
        start = clock()
        kind = hint(v)["kind"]
        times.setdefault(kind, []).append(clock() - start)
    every = sorted(t for ts in times.values() for t in ts)
    kinds = Counter({k: len(ts) for k, ts in times.items()})
    for kind, ts in sorted(times.items()):
        ts.sort()
        print(f"{kind:14} {len(ts):5} views: median {1000 * statistics.median(ts):7.1f} ms, "
              f"worst {1000 * ts[-1]:7.1f} ms")
    p99 = every[int(len(every) * 0.99)]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{len(every)} views in {args.parties} parties ({dict(kinds)})")
    what = "CPU" if args.cpu else "wall"
    print(f"hint ({what}): median {1000 * statistics.median(every):.1f} ms, "
          f"99th percentile {1000 * p99:.1f} ms, worst {1000 * every[-1]:.1f} ms "
          f"(load average {load})")


if __name__ == "__main__":
    main()
