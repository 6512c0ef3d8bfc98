"""Against a real server: `python -m app` in a subprocess on a free port, played over
real sockets with the `websockets` client."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tablekit import HoldsState, next_move, pick
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.runtime import FULL_EVERY, MIDDLE_THRESHOLD, YOUNG_THRESHOLD
from app.settings import ROOT
from tests.serverproc import free_port, stop, wait_until_healthy


class Server:
    def __init__(self, proc: subprocess.Popen[str], port: int, banner: str) -> None:
        self.proc, self.port, self.banner = proc, port, banner
        self.http = f"http://127.0.0.1:{port}"
        self.ws = f"ws://127.0.0.1:{port}"

    def post(self, path: str, body: Any = None) -> dict[str, Any]:
        with httpx.Client(base_url=self.http, trust_env=False) as http:
            response = http.post(path, json=body)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    port = free_port()
    env = {**os.environ, "PIQUET_PORT": str(port), "PIQUET_COMPUTER_DELAY": "0",
           "PIQUET_RATE_LIMIT_PER_SECOND": "1000", "PIQUET_RATE_LIMIT_BURST": "1000",
           "PIQUET_ROOMS_BURST": "1000", "PIQUET_STORE": "memory",
           "PIQUET_LOG_LEVEL": "warning"}
    proc = subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    banner = proc.stdout.readline().strip()
    wait_until_healthy(proc, f"http://127.0.0.1:{port}", seconds=20)
    yield Server(proc, port, banner)
    stop(proc)
    proc.stdout.close()


class Seat(HoldsState):
    """One seat's real WebSocket."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.ids = 0

    async def expect(self, kind: str) -> dict[str, Any]:
        while True:
            frame: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            assert frame["type"] != "error", frame
            if frame["type"] == "ping":
                await self.ws.send('{"type": "pong"}')
            if frame["type"] == "state":
                self.state = frame
            if frame["type"] == kind:
                return frame

    async def act(self, action: dict[str, Any]) -> None:
        self.ids += 1
        await self.ws.send(json.dumps({"type": "action", "version": self.version,
                                       "id": f"u{self.ids}", "action": action}))


def open_seat(server: Server, room_id: str, token: str | None, **kw: Any) -> connect:
    headers = {"Cookie": f"piquet_seat_{room_id}={token}"} if token else {}
    return connect(f"{server.ws}/ws/{room_id}", additional_headers=headers, proxy=None, **kw)


def test_the_banner_prints_the_address(server: Server) -> None:
    assert server.banner == f"Piquet table: http://127.0.0.1:{server.port}/"


def test_the_server_freezes_what_start_up_made_and_makes_full_collections_rare(
    server: Server,
) -> None:
    """The collector's full passes trace every object while the loop waits (~1.2 s at
    5,000 rooms): `python -m app` runs with them rare and start-up's objects frozen."""
    with httpx.Client(trust_env=False) as http:
        loop = http.get(f"{server.http}/healthz", params={"detail": 1}).json()["loop"]
    assert loop["gc_frozen"] > 10_000  # modules, app, settings: never traced again
    assert loop["gc_thresholds"] == [YOUNG_THRESHOLD, MIDDLE_THRESHOLD, FULL_EVERY]
    assert FULL_EVERY > 10  # rarer than Python's default (700, 10, 10)


def test_two_seats_play_a_partie_over_real_sockets(server: Server) -> None:
    made = server.post("/api/rooms", {"opponent": "friend"})
    joined = server.post(f"/api/rooms/{made['room_id']}/join")
    origin = server.http  # as a browser on this page would send it

    async def play() -> int:
        async with open_seat(server, made["room_id"], made["token"], origin=origin) as wa, \
                open_seat(server, made["room_id"], joined["token"], origin=origin) as wb:
            a, b = Seat(wa), Seat(wb)
            await a.expect("state")
            await b.expect("state")
            rng = random.Random(41)
            steps = 0
            while a.view["phase"] != "partie_over":
                who, action = next_move(a, b, rng)  # type: ignore[arg-type]
                before = who.version
                await who.act(action)
                assert (await a.expect("state"))["version"] == before + 1
                assert (await b.expect("state"))["version"] == before + 1
                steps += 1
            assert b.view["result"] == a.view["result"] is not None
            return steps

    assert asyncio.run(play()) > 50
    with httpx.Client(trust_env=False) as http:
        assert http.get(f"{server.http}/healthz").json()["rooms"] >= 1


def test_a_computer_answers_over_real_sockets(server: Server) -> None:
    made = server.post("/api/rooms", {"opponent": "computer"})

    async def until_deal_one() -> dict[str, Any]:
        async with open_seat(server, made["room_id"], made["token"]) as ws:
            human = Seat(ws)
            await human.expect("state")
            rng = random.Random(42)
            while human.view["deal_number"] == 0 or human.view["to_move"] != 0:
                if human.view["to_move"] == 0:
                    await human.act(pick(human.view, rng))
                await human.expect("state")
            return human.view

    view = asyncio.run(until_deal_one())
    assert view["deal_number"] == 1 and view["legal"]


@pytest.mark.parametrize("origin,token,code", [
    ("http://evil.example", True, 4403),
    (None, False, 4401),
])
def test_refused_handshakes_over_real_sockets(
    server: Server, origin: str | None, token: bool, code: int
) -> None:
    made = server.post("/api/rooms", {"opponent": "friend"})

    async def refused() -> int:
        async with open_seat(server, made["room_id"], made["token"] if token else None,
                             origin=origin) as ws:
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd is not None
            return closed.value.rcvd.code

    assert asyncio.run(refused()) == code
