"""The computer seat's decision time: every decision it makes in random parties
against a random player, each timed on its own (the view is built beforehand and
not timed: the server builds it anyway to send it).

Run by hand: `.venv/bin/python tests/bench/computer.py [parties]`. The last line
prints the median and worst decision time (target: median under 1 ms, worst under
10 ms).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.computer import choose
from engine.selfplay import play_partie, random_policy


def decision_times(parties: int, seed: int = 1) -> list[float]:
    """Seconds per decision, over every decision the computer made in `parties` parties."""
    times: list[float] = []

    def timed(view: dict[str, Any]) -> dict[str, Any]:
        start = time.perf_counter()
        action = choose(view, press_next_deal=True)
        times.append(time.perf_counter() - start)
        return action

    rng = random.Random(seed)
    for i in range(parties):
        other = random_policy(random.Random(rng.getrandbits(64)))
        seats = (timed, other) if i % 2 == 0 else (other, timed)
        record = play_partie(seats, rng.getrandbits(64))
        if record.errors:
            raise SystemExit(f"an error in self-play: {record.errors[0]}")
    return times


def main() -> None:
    parties = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    times = sorted(decision_times(parties))
    ms = [t * 1000 for t in times]
    p99 = ms[int(len(ms) * 0.99)]
    print(f"{len(ms)} decisions in {parties} parties; mean {statistics.fmean(ms):.3f} ms, "
          f"99th percentile {p99:.3f} ms")
    print(f"computer: median {statistics.median(ms):.3f} ms, worst {ms[-1]:.3f} ms per decision")


if __name__ == "__main__":
    main()
