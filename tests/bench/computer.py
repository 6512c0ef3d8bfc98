"""The computer seat's decision time: every decision it makes in random parties
against a random player, each timed on its own (the view is built beforehand and
not timed: the server builds it anyway to send it).

Run by hand, on one core: `taskset -c 1 .venv/bin/python tests/bench/computer.py
[parties] [--level basic|good|strong] [--rules NAMES]` (`--rules`: the variants, as
`python -m engine.selfplay --rules`). The last line prints the level's median, 99th
percentile and worst decision time (targets: basic and good median under 1 ms; strong
median under 50 ms, 99th percentile under 500 ms, worst under 1.5 s).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.computer import LEVELS
from engine.selfplay import play_partie, random_policy, rules_argument
from engine.variants import RUBICON, Rules


def decision_times(parties: int, seed: int = 1, level: str = "basic",
                   clock: Callable[[], float] = time.perf_counter,
                   rules: Rules = RUBICON) -> list[float]:
    """Seconds per decision, over every decision the computer made in `parties` parties."""
    times: list[float] = []
    choose = LEVELS[level].choose

    def timed(view: dict[str, Any]) -> dict[str, Any]:
        start = clock()
        action = choose(view, press_next_deal=True)
        times.append(clock() - start)
        return action

    rng = random.Random(seed)
    for i in range(parties):
        other = random_policy(random.Random(rng.getrandbits(64)))
        seats = (timed, other) if i % 2 == 0 else (other, timed)
        record = play_partie(seats, rng.getrandbits(64), rules)
        if record.errors:
            raise SystemExit(f"an error in self-play: {record.errors[0]}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("parties", type=int, nargs="?", default=300)
    parser.add_argument("--level", choices=sorted(LEVELS), default="basic")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", type=rules_argument, default=RUBICON, metavar="NAMES")
    parser.add_argument("--cpu", action="store_true",
                        help="time the process's CPU, not the wall clock (on a busy machine)")
    args = parser.parse_args()
    parties = args.parties
    clock = time.process_time if args.cpu else time.perf_counter
    times = sorted(decision_times(parties, args.seed, args.level, clock, args.rules))
    ms = [t * 1000 for t in times]
    p99 = ms[int(len(ms) * 0.99)]
    print(f"{len(ms)} decisions in {parties} parties; mean {statistics.fmean(ms):.3f} ms, "
          f"99th percentile {p99:.3f} ms")
    kind = "CPU" if args.cpu else "wall"
    print(f"{args.level} ({kind}): median {statistics.median(ms):.3f} ms, "
          f"99th percentile {p99:.3f} ms, "
          f"worst {ms[-1]:.3f} ms per decision")


if __name__ == "__main__":
    main()
