"""Engine speed: complete random deals for a few seconds, legal actions listed at every step.

Run by hand: `.venv/bin/python tests/bench/engine.py [seconds]`. The last line prints
deals per second and actions per second (target: 3,000 deals/s on one core, quiet
machine; issue 11). The line before it gives the deals per second of CPU time.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine
from engine.rules import DiscardRule


def play_deals(seconds: float, seed: int = 1) -> tuple[int, int, float]:
    rng = random.Random(seed)
    deals = actions = 0
    start = time.perf_counter()
    partie = 0
    while time.perf_counter() - start < seconds:
        partie += 1
        s = engine.new_partie(seed=partie, first_dealer=partie % 2)
        while s.step is not engine.Step.PARTIE_OVER:
            if s.step is engine.Step.DEAL_OVER:
                deals += 1
                s = engine.apply(s, 0, engine.NextDeal())
                actions += 1
                continue
            seat = s.to_move
            assert seat is not None
            options = engine.legal(s, seat)  # what the server and the computer ask for
            action, _ = options[rng.randrange(len(options))]
            if isinstance(action, DiscardRule):
                k = rng.randint(action.min, action.max)
                action = engine.Discard(tuple(rng.sample(s.hands[seat], k)))
            s = engine.apply(s, seat, action)
            actions += 1
        deals += 1
    return deals, actions, time.perf_counter() - start


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    cpu = time.process_time()
    deals, actions, elapsed = play_deals(seconds)
    cpu = time.process_time() - cpu
    # On a shared machine the wall clock counts other programs' time too; the CPU time
    # this process used is the steadier figure to compare two versions by.
    print(f"{deals} deals, {actions} actions in {elapsed:.2f} s ({cpu:.2f} s of CPU time: "
          f"{deals / cpu:.0f} deals/s)")
    print(f"engine: {deals / elapsed:.0f} deals/s, {actions / elapsed:.0f} actions/s")


if __name__ == "__main__":
    main()
