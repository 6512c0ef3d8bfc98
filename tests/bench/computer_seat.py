"""What a move of the computer seat costs the server: every move it makes in random
parties against a random player, through the seat's own code (app/computer_seat.py's
ComputerSeat: `look`, its one view of the table, then `move`, its decision and the
engine applying it), each move timed on its own, with the parts it is made of.

Run by hand: `.venv/bin/python tests/bench/computer_seat.py [parties]`. The last line
prints the median and worst time per move (target: median under 1 ms, worst under
10 ms) and, at the median, what the view, the decision and the apply each take.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine
from app.room import Room
from app.room_options import RoomOptions
from app.room_setup import RoomSetup
from engine.computer import choose
from engine.selfplay import random_policy
from engine.state import Step

Times = dict[str, list[float]]


def play(parties: int, seed: int = 1) -> Times:
    """Seconds per computer move (`move`) and its parts (`view`, `decision`, `apply`)."""
    times: Times = {"move": [], "view": [], "decision": [], "apply": []}
    decided: list[float] = []

    def timed(view: dict[str, Any]) -> dict[str, Any]:
        start = time.perf_counter()
        action = choose(view)
        decided.append(time.perf_counter() - start)
        return action

    rng = random.Random(seed)
    for _ in range(parties):
        party_seed = rng.getrandbits(64)
        room = Room("bench", RoomOptions("computer"), RoomSetup(
            clock=time.monotonic, new_seed=lambda seed=party_seed: seed,
            new_pack=lambda: None, policy=timed, max_connections_per_seat=1))
        seat = room.computer
        assert seat is not None
        person = random_policy(random.Random(rng.getrandbits(64)))
        actions = 0
        while room.state.step is not Step.PARTIE_OVER:
            actions += 1
            if actions > 20_000:
                raise SystemExit("a partie did not end")
            start = time.perf_counter()
            _, _, todo = seat.look()
            looked = time.perf_counter()
            if todo is not None:
                moved = engine.apply(room.state, 1, seat.policy(todo))
                done = time.perf_counter()
                if moved is not None:
                    room._install(moved, "")
                    times["move"].append(done - start)
                    times["view"].append(looked - start)
                    times["decision"].append(decided[-1])
                    times["apply"].append(done - looked - decided[-1])
                    continue
            view = engine.view(room.state, 0, log=False)
            if not view["legal"]:
                raise SystemExit(f"nobody can act at {view['step']}")
            room._install(engine.apply(room.state, 0, person(view)), "")
    return times


def main() -> None:
    parties = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    times = {k: sorted(v) for k, v in play(parties).items()}
    ms = [t * 1000 for t in times["move"]]
    p99 = ms[int(len(ms) * 0.99)]
    parts = ", ".join(f"{k} {statistics.median(times[k]) * 1e6:.0f} µs"
                      for k in ("view", "decision", "apply"))
    print(f"{len(ms)} computer moves in {parties} parties; mean {statistics.fmean(ms):.3f} ms, "
          f"99th percentile {p99:.3f} ms")
    print(f"computer: median {statistics.median(ms):.3f} ms, worst {ms[-1]:.3f} ms per move "
          f"(medians: {parts})")


if __name__ == "__main__":
    main()
