"""Timing tells nothing: the time from a person's move to the computer's answer, at a
computer table, does not depend on the computer's cards.

    .venv/bin/python tests/bench/pace.py [--level strong] [--deals 6] [--pace 1.5]

A real server in this process (TestClient), the computer thinking in its worker pool;
the person plays at random and the bench times every answer of the computer (the first
state with a new version after the person's move, when it is the computer's), split by
what the computer did: a decision that needs search (a card with several legal) and
the rest. If the pace covers the thinking, both groups sit at the pace, a few ms apart.
The last line prints the spread of the delays over all answers.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))

from tablekit import SeatSocket, pick, serve, write_stand_ins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--level", default="strong")
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--pace", type=float, default=1.5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    delays: dict[str, list[float]] = {"search": [], "other": []}
    with tempfile.TemporaryDirectory() as tmp, serve(
        write_stand_ins(Path(tmp)), computer_workers=1, computer_pace=args.pace,
        computer_delay=0.0, computer_exchange_delay=0.0,
        new_seed=lambda: rng.getrandbits(64),
    ) as client:
        from engine.computer import warm

        client.app.state.rooms.setup.computer_pool.start().submit(warm).result()  # up a while
        made = client.post("/api/rooms", json={"opponent": "computer",
                                               "level": args.level}).json()
        person = SeatSocket(client, made["room_id"], made["token"])
        person.connect()
        deals = 0
        while deals < args.deals:
            view: dict[str, Any] = person.view
            if view["step"] in ("deal_over", "partie_over"):
                deals += 1
                person.act({"type": "new_match"} if view["step"] == "partie_over"
                           else {"type": "next_deal"})
                person.expect("state")
                continue
            if view["to_move"] != view["seat"] or not view["legal"]:
                person.recv()
                continue
            person.act(pick(view, rng, allow_see=False))
            frame = person.recv()
            if frame["type"] != "state":
                person.expect("state")
                continue
            started = time.perf_counter()
            if frame["view"]["to_move"] != 1 - view["seat"]:
                continue
            before = frame["view"]
            answer = person.expect("state")
            elapsed = time.perf_counter() - started
            del answer
            searched = before["step"] in ("lead", "follow")
            delays["search" if searched else "other"].append(elapsed * 1000)
    everything = sorted(delays["search"] + delays["other"])
    for kind, values in delays.items():
        if values:
            print(f"{kind:7} {len(values):4} answers: min {min(values):.0f} ms, median "
                  f"{statistics.median(values):.0f} ms, max {max(values):.0f} ms")
    print(f"{args.level} at pace {args.pace * 1000:.0f} ms: {len(everything)} answers, delay "
          f"min {everything[0]:.0f} ms, median {statistics.median(everything):.0f} ms, "
          f"max {everything[-1]:.0f} ms, stdev {statistics.pstdev(everything):.1f} ms")


if __name__ == "__main__":
    main()
