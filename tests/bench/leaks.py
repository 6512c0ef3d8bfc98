"""Leaks over many complete parties: no frame sent to a seat holds a card that seat may
not see at that moment (RULES.md), checked on every frame against the engine State.

    .venv/bin/python tests/bench/leaks.py [--parties 1000] [--seed 1] [--minutes 30]

Half the parties are two scripted seats at a friend's table (random play from `legal`,
sometimes asking to see a combination, now and then a socket dropped and reopened); half
are a scripted person against the computer seat (engine.computer). Each party is a new
room through the TestClient, watched by tests/app/tablekit.py's LeakCheck; rooms are
expired (a controllable clock) as the run goes, so memory stays flat. The suite runs the
same check on a few parties (tests/app/test_leaks.py); this is the by-hand run over a
thousand. The last line prints the figures; the exit status is 1 on any leak.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "app"))

from tablekit import (  # noqa: E402
    FakeClock,
    History,
    LeakCheck,
    SeatSocket,
    TestClient,
    checked_friend_partie,
    new_room,
    play_computer_partie,
    serve,
    write_stand_ins,
)


def friend_partie(client: TestClient, history: History, rng: random.Random,
                  found: list[str]) -> tuple[int, int]:
    return checked_friend_partie(client, history, rng, reconnect_rate=0.02, found=found)


def computer_partie(client: TestClient, history: History,
                    rng: random.Random, found: list[str]) -> tuple[int, int]:
    made = new_room(client, "computer")
    check = LeakCheck(client, made["room_id"], history, found)
    human = SeatSocket(client, made["room_id"], made["token"], on_frame=check)
    human.connect()
    actions = play_computer_partie(human, rng)
    human.close()
    return actions, check.frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parties", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=30, help="stop after this long")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    history = History()
    clock = FakeClock()
    seeds = random.Random(args.seed + 1)
    done = {"friend": 0, "computer": 0}
    actions = frames = 0
    found: list[str] = []  # every leak the check saw (it notes them and goes on)
    shown = 0
    start = time.monotonic()
    deadline = start + args.minutes * 60
    with tempfile.TemporaryDirectory() as tmp:
        templates = write_stand_ins(Path(tmp))
        with serve(templates, history=history, clock=clock, room_idle_seconds=60,
                   max_rooms=50, new_seed=lambda: seeds.getrandbits(64)) as client:
            for n in range(args.parties):
                if time.monotonic() > deadline:
                    print(f"stopped by --minutes after {n} parties")
                    break
                kind = "friend" if n % 2 == 0 else "computer"
                play = friend_partie if kind == "friend" else computer_partie
                a, f = play(client, history, random.Random(rng.getrandbits(64)), found)
                done[kind] += 1
                actions += a
                frames += f
                history.states.clear()  # this room is done; keep memory flat
                clock.advance(61)  # idle: the next room made sweeps it
                for leak in found[shown:]:
                    print(f"LEAK in party {n + 1}: {leak}", flush=True)
                shown = len(found)
                if (n + 1) % 100 == 0:
                    print(f"{n + 1} parties, {frames} frames checked, "
                          f"{time.monotonic() - start:.0f} s", flush=True)
    total = done["friend"] + done["computer"]
    print(f"leaks: {total} complete parties ({done['friend']} two scripted seats, "
          f"{done['computer']} against the computer), {actions} actions by scripted seats, "
          f"{frames} frames checked, {len(found)} leaks, {time.monotonic() - start:.0f} s")
    raise SystemExit(0 if total >= args.parties and not found else 1)


if __name__ == "__main__":
    main()
