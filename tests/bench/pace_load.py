"""The computer's pace under load: many busy computer tables on one server, how late each
of its moves comes after its pace.

    .venv/bin/python tests/bench/pace_load.py [--strong 50] [--good 10] [--seconds 120]
        [--workers N] [--pace 1.5]

Starts `python -m app` (tests/serverproc.py) with every computer wait set to the pace
(the delay, the lead, exchange and declaring waits, the trick's hold at 0), so each of
its moves is due exactly `--pace` after the change it answers. Each table's person is
scripted and answers at once, so every table keeps the computer busy; the tables start
one by one over the first `--settle` seconds, as visitors come. For every move of
the computer the bench times the state it answered and its own state: lateness = the
gap less the pace (a move is never early: the pace is a floor). The last line prints
the lateness's p50 / p99 / max over every move of the strong tables, then the good's
(issue 25: with one worker shared by all, strong moves came up to 6 s after a 1.5 s
pace, good ones 2.5 s behind).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))

import httpx
from tablekit import pick
from websockets.asyncio.client import connect

from tests.serverproc import AppProcess


async def table(base: str, level: str, until: float, late: list[float], pace: float,
                rng: random.Random, settled: float, start: float) -> int:
    await asyncio.sleep(start)
    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=30) as http:
        made = (await http.post("/api/rooms", json={"opponent": "computer",
                                                    "level": level})).json()
    ws_url = base.replace("http://", "ws://") + f"/ws/{made['room_id']}"
    cookie = {"Cookie": f"piquet_seat_{made['room_id']}={made['token']}"}
    moves = 0
    async with connect(ws_url, additional_headers=cookie, proxy=None) as ws:
        last_at, last_version, last_to_move = time.monotonic(), 0, None
        ids = 0
        while time.monotonic() < until:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if frame["type"] == "ping":
                await ws.send('{"type": "pong"}')
                continue
            if frame["type"] != "state":
                continue
            now = time.monotonic()
            view = frame["view"]
            if frame["version"] > last_version:
                if last_to_move == 1 and last_version and last_at >= settled:
                    late.append(now - last_at - pace)  # the computer's move, answered
                    moves += 1
                last_at, last_version, last_to_move = now, frame["version"], view["to_move"]
            ids += 1
            if view["phase"] == "partie_over":
                await ws.send(json.dumps({"type": "new_match", "version": frame["version"],
                                          "id": f"n{ids}"}))
            elif view["phase"] == "deal_over":
                await ws.send(json.dumps({"type": "action", "version": frame["version"],
                                          "id": f"a{ids}", "action": {"type": "next_deal"}}))
            elif view["to_move"] == 0 and view["legal"]:
                await ws.send(json.dumps({"type": "action", "version": frame["version"],
                                          "id": f"a{ids}",
                                          "action": pick(view, rng, allow_see=False)}))
    return moves


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


async def run(args: argparse.Namespace, base: str) -> dict[str, list[float]]:
    # Visitors come one by one: each table starts at a random moment of the first
    # `--settle` seconds, and moves are timed once all have started (tables started at
    # once would deal, exchange and search in step, a burst no visitors make).
    settled = time.monotonic() + args.settle
    until = settled + args.seconds
    late: dict[str, list[float]] = {"strong": [], "good": []}
    rng = random.Random(1)
    tasks = [table(base, "strong", until, late["strong"], args.pace,
                   random.Random(rng.getrandbits(64)), settled, rng.uniform(0, args.settle))
             for _ in range(args.strong)]
    tasks += [table(base, "good", until, late["good"], args.pace,
                    random.Random(rng.getrandbits(64)), settled, rng.uniform(0, args.settle))
              for _ in range(args.good)]
    await asyncio.gather(*tasks)
    return late


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strong", type=int, default=50)
    parser.add_argument("--good", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--pace", type=float, default=1.5)
    parser.add_argument("--settle", type=float, default=30,
                        help="seconds of play before moves are timed")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    pace = str(args.pace)
    with tempfile.TemporaryDirectory() as tmp:
        server = AppProcess(Path(tmp) / "server.log", PIQUET_COMPUTER_PACE=pace,
                            PIQUET_COMPUTER_DELAY=pace, PIQUET_COMPUTER_LEAD_DELAY=pace,
                            PIQUET_COMPUTER_EXCHANGE_DELAY=pace,
                            PIQUET_COMPUTER_DECLARE_DELAY=pace,
                            PIQUET_COMPUTER_TRICK_HOLD="0",
                            PIQUET_COMPUTER_WORKERS=str(args.workers),
                            PIQUET_LOG_LEVEL="warning").start()
        try:
            late = asyncio.run(run(args, server.http))
        finally:
            assert server.proc is not None
            server.proc.terminate()
            server.proc.wait(20)
    load = os.getloadavg()[0]
    for level, values in late.items():
        print(f"{level}: {len(values)} moves, lateness after the {args.pace} s pace: "
              f"p50 {pct(values, .5):.0f} ms, p99 {pct(values, .99):.0f} ms, "
              f"max {pct(values, 1):.0f} ms")
    strong, good = late["strong"], late["good"]
    print(f"pace_load strong={args.strong} good={args.good} workers={args.workers} "
          f"load={load:.1f}: strong late p50={pct(strong, .5):.0f}ms "
          f"p99={pct(strong, .99):.0f}ms max={pct(strong, 1):.0f}ms; good late "
          f"p99={pct(good, .99):.0f}ms max={pct(good, 1):.0f}ms")


if __name__ == "__main__":
    main()
