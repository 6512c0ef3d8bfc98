"""The review's time (issue 26): `engine.review.review_deal` over every deal of parties
between the good level (the seat whose record is reviewed: it chooses otherwise than the
strong level often enough to give the review work) and the strong level, each deal timed
on its own.

Run by hand: `.venv/bin/python tests/bench/review.py [parties] [--cpu]`. The last line
prints the median, 99th percentile and worst time a deal, and the load average (target:
99th percentile under 5 s).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine
from engine.computer import decide
from engine.record import RecordBuilder
from engine.review import review_deal
from engine.selfplay import _who_acts
from engine.state import Step


def records(parties: int, seed: int, level: str) -> list[dict[str, Any]]:
    """Seat 0's record of each partie, seat 0 at `level`, seat 1 strong."""
    rng = random.Random(seed)
    out = []
    for _ in range(parties):
        s = engine.new_partie(rng.getrandbits(64))
        builder = RecordBuilder(0, ["you", "strong"])
        builder.start(s)
        while s.step is not Step.PARTIE_OVER:
            seat = _who_acts(s)
            action = decide(level if seat == 0 else "strong", engine.view(s, seat), True)
            s = engine.apply(s, seat, action)
            builder.add(seat, action, s)
        out.append(builder.record())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("parties", type=int, nargs="?", default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="good", help="the reviewed seat's level")
    parser.add_argument("--cpu", action="store_true",
                        help="time the process's CPU, not the wall clock (on a busy machine)")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    times = []
    items = 0
    for record in records(args.parties, args.seed, args.level):
        for i in range(len(record["deals"])):
            start = clock()
            items += len(review_deal(record, i)["items"])
            times.append(clock() - start)
    times.sort()
    p99 = times[int(len(times) * 0.99)]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{len(times)} deals in {args.parties} parties, {items} items, "
          f"mean {statistics.fmean(times):.2f} s")
    print(f"review ({'CPU' if args.cpu else 'wall'}): median {statistics.median(times):.2f} s, "
          f"99th percentile {p99:.2f} s, worst {times[-1]:.2f} s a deal (load average {load})")


if __name__ == "__main__":
    main()
