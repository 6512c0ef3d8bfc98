"""No reference cycles on the table's path: a partie over the protocol leaves nothing
for the cyclic collector.

Why it matters: one process holds every room, and the collector's full passes trace
every object of every room while the event loop waits (~1.2 s at 5,000 rooms). The
server makes them rare (app/runtime.py); that is only safe while nothing on the
action path makes cycles, since cyclic garbage is freed only by those passes. A
change that brings cycles back (an exception kept with its traceback, a closure or a
bound method stored on the object it refers to, a back-reference) fails here.

The server is `python -m tests.app.garbage_app`: the table with every cycle the
collector finds kept, and shown at GET /test/garbage.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import httpx
from livekit import LiveSeat, LiveServer
from tablekit import next_move

from app.settings import ROOT
from tests.serverproc import wait_until_healthy


class GarbageServer(LiveServer):
    def start(self) -> GarbageServer:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.app.garbage_app"], cwd=ROOT, env=self.env,
                stdout=log, stderr=subprocess.STDOUT)
        wait_until_healthy(self.proc, self.http, details=self.log)
        return self


async def garbage(http: httpx.AsyncClient) -> list[str]:
    """What the server's collector found since the last call (one kept-alive connection,
    so these calls themselves leave none of uvicorn's per-connection cycles)."""
    found: list[str] = (await http.get("/test/garbage")).json()
    return found


def summary(found: list[str]) -> str:
    return f"{len(found)} objects in cycles: " + "; ".join(
        f"{n} x {what}" for what, n in Counter(found).most_common(20))


async def step(a: LiveSeat, b: LiveSeat, rng: random.Random) -> None:
    """One action from `legal` (now and then a `see`); both seats get the next state."""
    who, action = next_move(a, b, rng)  # type: ignore[arg-type]
    before = who.version
    await who.ws.send(who.action_text(action))
    assert (await a.expect("state"))["version"] == before + 1
    assert (await b.expect("state"))["version"] == before + 1


async def refused(seat: LiveSeat, text: str | bytes) -> None:
    """A message the room refuses: an error, then the state again."""
    await seat.ws.send(text)
    frame = await seat.answer()
    assert frame["type"] == "error", frame
    assert (await seat.expect("state"))["version"] == frame["version"]


async def every_refusal(a: LiveSeat, b: LiveSeat) -> None:
    mover, other = (a, b) if a.view["to_move"] == a.seat else (b, a)
    await refused(a, "{not json")
    await refused(a, "[1, 2]")
    await refused(a, '{"type": "shout"}')
    await refused(a, '{"type": "action", "version": "x"}')
    await refused(a, b"\x00binary")
    await refused(a, json.dumps({"type": "ping", "pad": "x" * 5000}))
    await refused(mover, json.dumps({"type": "action", "version": mover.version - 1,
                                     "id": mover.next_id(), "action": {"type": "deal_next"}}))
    await refused(other, other.action_text({"type": "deal_next"}))
    await refused(mover, mover.action_text({"type": "play", "card": "2C"}))
    used = f"{mover.prefix}-{mover.ids}"
    await refused(mover, mover.action_text({"type": "deal_next"}, msg_id=used))
    await refused(a, json.dumps({"type": "new_match", "version": a.version, "id": a.next_id()}))
    await a.ws.send('{"type": "ping"}')
    assert (await a.answer())["type"] == "pong"


async def warm_table(
    server: GarbageServer, http: httpx.AsyncClient, seed: int
) -> tuple[str, tuple[str, str], LiveSeat, LiveSeat, random.Random]:
    """A friend's table with both seats connected and 8 actions played (first uses:
    caches, lazily built validators), then whatever set-up and first uses left collected:
    (room id, the seats' tokens, the seats, the random source that goes on playing)."""
    room_id, token0, token1 = server.friend_room()
    a = await LiveSeat.open(server, room_id, token0)
    b = await LiveSeat.open(server, room_id, token1)
    await a.expect("state")
    await b.expect("state")
    rng = random.Random(seed)
    for _ in range(8):
        await step(a, b, rng)
    await garbage(http)
    return room_id, (token0, token1), a, b, rng


def test_a_partie_over_the_protocol_leaves_no_reference_cycles(tmp_path: Path) -> None:
    server = GarbageServer(tmp_path / "server.log").start()

    async def scenario() -> tuple[list[str], int]:
        async with httpx.AsyncClient(base_url=server.http, trust_env=False, timeout=30) as http:
            _, _, a, b, rng = await warm_table(server, http, 14)
            steps = 0
            while a.view["phase"] != "partie_over":
                await step(a, b, rng)
                steps += 1
                if steps in (5, 120):
                    await every_refusal(a, b)
            # A new match ("Play again" by both seats), and into its first deal.
            for seat in (a, b):
                await seat.ws.send(json.dumps({"type": "new_match", "version": seat.version,
                                               "id": seat.next_id()}))
                await a.expect("state")
                await b.expect("state")
            for _ in range(20):
                await step(a, b, rng)
            found = await garbage(http)
            await a.ws.close()
            await b.ws.close()
            return found, steps

    try:
        found, steps = asyncio.run(scenario())
    finally:
        server.kill()
    assert steps > 50
    assert found == [], summary(found)


def test_sockets_that_come_and_go_leave_no_reference_cycles(tmp_path: Path) -> None:
    """A socket's objects (its Connection, tasks, the room's hold on it, uvicorn's and
    Starlette's for it) are freed when it ends, however it ends: closed, cut, refused,
    or a watcher's.
    (uvicorn's httptools protocol, which the server used before app/serving.py, left
    one cycle per WebSocket: its protocol, held by its parser's callbacks.)"""
    server = GarbageServer(tmp_path / "server.log").start()

    async def scenario() -> list[str]:
        async with httpx.AsyncClient(base_url=server.http, trust_env=False, timeout=30) as http:
            room_id, (token0, token1), a, b, rng = await warm_table(server, http, 15)
            for _ in range(3):
                again = await LiveSeat.open(server, room_id, token0)  # a second window
                await again.expect("state")
                await again.ws.close()
                cut = await LiveSeat.open(server, room_id, token1)  # cut without a close
                await cut.expect("state")
                cut.ws.transport.abort()
                stranger = await LiveSeat.open(server, room_id, "not-a-token")
                assert (await stranger.closed())[0] == 4401
                watcher = await LiveSeat.open(server, room_id, None, watch=True)
                await watcher.expect("state")
                await watcher.ws.close()
                await step(a, b, rng)
            for _ in range(5):  # the cut socket's presence news, and more play
                await step(a, b, rng)
            await asyncio.sleep(0.5)  # the server notices the cut sockets
            return await garbage(http)

    try:
        found = asyncio.run(scenario())
    finally:
        server.kill()
    assert found == [], summary(found)
