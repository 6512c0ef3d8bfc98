"""What padding costs (issue 25 §3, app/padding.py): the bytes of every state message a
seat gets over whole friend parties, as sent (padded) and without the pad, and the time a
state message takes to write either way.

    .venv/bin/python tests/bench/state_bytes.py [--parties 20] [--seed 1]

Two scripted seats play each partie from `legal` through the TestClient. The figures:
state messages per seat (mean, median, 95th percentile, largest), padded and unpadded,
and the microseconds app/seat_view.py's `state_text` takes, and the padding's share of them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "app"))

import orjson  # noqa: E402
from tablekit import (  # noqa: E402
    SeatSocket,
    friend_seats,
    play_friend_partie,
    room_of,
    serve,
    write_stand_ins,
)

import app.room  # noqa: E402
from app.padding import Ceilings  # noqa: E402
from app.seat_view import state_text  # noqa: E402


class Sized(SeatSocket):
    def __init__(self, *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.sizes: list[tuple[int, int]] = []  # (as sent, without the pad)

    def raw(self, timeout: float = 10) -> dict[str, object]:
        message = super().raw(timeout)
        if message["type"] == "websocket.send":
            text = str(message["text"])
            frame = orjson.loads(text)
            if frame["type"] == "state":
                sent = len(text.encode())
                pad = len(frame.get("pad", ""))
                self.sizes.append((sent, sent - pad - (9 if "pad" in frame else 0)))
        return message


def figures(values: list[int]) -> str:
    values = sorted(values)
    return (f"mean {statistics.mean(values):6.0f}  median {values[len(values) // 2]:6d}  "
            f"p95 {values[int(len(values) * 0.95)]:6d}  max {values[-1]:6d}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--parties", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sizes: list[tuple[int, int]] = []
    timings: tuple[list[float], list[float]] = ([], [])
    with tempfile.TemporaryDirectory() as tmp, \
            serve(write_stand_ins(Path(tmp))) as client:
        for _ in range(args.parties):
            room_id, a, b = friend_seats(client)
            seats = [Sized(client, room_id, s.token) for s in (a, b)]
            for s in seats:
                s.connect()
            room = room_of(client, room_id)

            def time_it(step: int, room: app.room.Room = room) -> None:
                # Both seats' state as the room writes it, and the padding's share of it.
                for conn in [c for seat in room.seats for c in seat.connections]:
                    snapshot = room.seating.now
                    assert snapshot is not None
                    started = time.perf_counter()
                    state_text(snapshot, conn.seat, conn.cursor)
                    timings[0].append(time.perf_counter() - started)
                # The padding's work for this state (its public view, both ceilings), as
                # the room does it once for all its messages: a message's share is half.
                started = time.perf_counter()
                ceilings = Ceilings(room.state)
                ceilings.ceiling(0), ceilings.ceiling(1)
                timings[1].append((time.perf_counter() - started) / 2)

            play_friend_partie(seats[0], seats[1], rng, between=time_it)
            for s in seats:
                sizes += s.sizes
                s.close()
    print(f"{len(sizes)} state messages to seats over {args.parties} parties")
    print(f"  padded (as sent): {figures([s for s, _ in sizes])}")
    print(f"  unpadded:         {figures([u for _, u in sizes])}")
    padded = statistics.mean(s for s, _ in sizes)
    unpadded = statistics.mean(u for _, u in sizes)
    print(f"  added: {padded - unpadded:.0f} bytes a message ({padded / unpadded - 1:.0%})")
    print(f"  state_text: {statistics.median(timings[0]) * 1e6:.0f} us a message (median), "
          f"of which the padding's work {statistics.median(timings[1]) * 1e6:.0f} us")


if __name__ == "__main__":
    main()
