"""Tables played over real sockets while the store is made to fail, and the reckoning
afterwards (issue 24): how many changes the players were told, how many of those the
store lost (must be 0), how many answers were wrong (a move refused with "nothing
changed" that the store holds after all: must be 0), how many computer tables stopped
for good (must be 0), and how long after the fault every table played again.

A player's socket reconnects as the page does, saying which version it was last shown
(`?seen=VERSION.RECEIPT`), and checks that no version it is shown is older than one it
was shown before."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from tablekit import pick
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

import engine
from app.redis_scripts import actions_key, room_key
from app.redis_store import _upgrade as upgrade
from app.sqlite_store import read_room
from app.store import StoredRoom

Json = dict[str, Any]


@dataclass
class Reckoning:
    told: int = 0  # changes the players were shown (a new version, once per table)
    refused: list[tuple[str, int, Json]] = field(default_factory=list)  # (room, version, action)
    errors: dict[str, int] = field(default_factory=dict)
    went_back: list[str] = field(default_factory=list)
    reconnects: int = 0


class Player:
    """One seat's socket, straight to the app process."""

    def __init__(self, base: str, room_id: str, token: str, reckoning: Reckoning) -> None:
        self.base = base
        self.room_id = room_id
        self.cookie = f"piquet_seat_{room_id}={token}"
        self.reckoning = reckoning
        self.ws: ClientConnection | None = None
        self.state: Json = {}
        self.seen = 0  # the highest version shown
        self.ids = 0
        self.prefix = f"p{random.getrandbits(32):x}"

    @property
    def view(self) -> Json:
        view: Json = self.state["view"]
        return view

    @property
    def version(self) -> int:
        return int(self.state["version"]) if self.state else 0

    async def connect(self, seconds: float = 60) -> None:
        seen = ""
        if self.state:
            seen = f"?seen={self.state['version']}.{self.state['room']['receipt']}"
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.ws = await connect(f"{self.base}/ws/{self.room_id}{seen}",
                                        additional_headers={"Cookie": self.cookie},
                                        proxy=None, open_timeout=10)
                await self.frame()
                return
            except (OSError, InvalidStatus, ConnectionClosed, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)

    async def frame(self, timeout: float = 30) -> Json:
        """The next frame; a state's version is checked against what was shown."""
        assert self.ws is not None
        frame: Json = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        if frame["type"] == "ping":
            await self.ws.send('{"type": "pong"}')
        elif frame["type"] == "state":
            if frame["version"] < self.seen:
                self.reckoning.went_back.append(
                    f"{self.room_id}: shown {frame['version']} after {self.seen}")
            self.seen = max(self.seen, frame["version"])
            self.state = frame
        elif frame["type"] == "error":
            code = frame["code"]
            self.reckoning.errors[code] = self.reckoning.errors.get(code, 0) + 1
        return frame

    async def act(self, action: Json) -> None:
        assert self.ws is not None
        self.ids += 1
        await self.ws.send(json.dumps({"type": "action", "version": self.version,
                                       "id": f"{self.prefix}-{self.ids}", "action": action}))


class Table:
    """A room played by its people (both seats at a friend's table, seat 0 at the
    computer's) from `legal`, one move at a time, for as long as it is asked."""

    def __init__(self, base: str, room_id: str, players: list[Player], computer: bool,
                 reckoning: Reckoning, rng: random.Random) -> None:
        self.base = base
        self.room_id = room_id
        self.players = players
        self.computer = computer
        self.reckoning = reckoning
        self.rng = rng
        self.moved_at: list[float] = []  # when each new version was first seen
        self.last_version = 0

    async def connect(self) -> None:
        for player in self.players:
            await player.connect()
        self.last_version = max(p.version for p in self.players)

    def _note(self) -> None:
        version = max(p.version for p in self.players)
        if version > self.last_version:
            self.reckoning.told += version - self.last_version
            self.moved_at.append(time.monotonic())
            self.last_version = version

    def mover(self) -> tuple[Player, Json] | None:
        for player in self.players:
            view = player.view
            if view["phase"] == "partie_over":
                return None
            if view["legal"] and (view["to_move"] == view["seat"] or view["to_move"] is None):
                return player, pick(view, self.rng, allow_see=False)
        return None

    async def play(self, until: float) -> None:
        while time.monotonic() < until:
            try:
                await self._step()
            except (ConnectionClosed, TimeoutError, OSError):
                self.reckoning.reconnects += 1
                for player in self.players:
                    if player.ws is not None:
                        await player.ws.close()
                    await player.connect()
            self._note()

    async def _step(self) -> None:
        moving = self.mover()
        if moving is None:
            if self.players[0].view["phase"] == "partie_over":
                await self._new_match()
                return
            await self.players[0].frame(timeout=30)  # the computer's move, or the friend's
            for player in self.players[1:]:
                while player.version < self.players[0].version:
                    await player.frame(timeout=30)
            return
        player, action = moving
        before = player.version
        await player.act(action)
        while True:
            frame = await player.frame(timeout=30)
            if frame["type"] == "state" and frame["version"] > before:
                break
            if frame["type"] == "error":
                if frame["code"] in ("unavailable", "internal"):
                    self.reckoning.refused.append((self.room_id, before, action))
                await player.frame(timeout=30)  # the state after it
                return
        for other in self.players:
            while other.version < player.version:
                await other.frame(timeout=30)

    async def _new_match(self) -> None:
        """A new partie (at a friend's table: "Play again" by whoever has not pressed it)."""
        pressed = self.players[0].state["room"]["rematch"]
        player = next(p for p in self.players if p.view["seat"] not in pressed)
        player.ids += 1
        assert player.ws is not None
        before = player.version
        await player.ws.send(json.dumps({"type": "new_match", "version": player.version,
                                         "id": f"{player.prefix}-{player.ids}"}))
        while player.version <= before:
            if (await player.frame(timeout=30))["type"] == "error":
                await player.frame(timeout=30)
                return
        for other in self.players:
            while other.version < player.version:
                await other.frame(timeout=30)


async def tables(base: str, friends: int, computers: int, reckoning: Reckoning,
                 seed: int = 1, level: str = "basic") -> list[Table]:
    made = []
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base.replace("ws://", "http://"),
                                 trust_env=False, timeout=10) as http:
        for i in range(friends + computers):
            computer = i >= friends
            body = {"opponent": "computer", "level": level} if computer else {
                "opponent": "friend"}
            room = (await http.post("/api/rooms", json=body)).json()
            tokens = [room["token"]]
            if not computer:
                tokens.append((await http.post(f"/api/rooms/{room['room_id']}/join")).json()[
                    "token"])
            players = [Player(base, room["room_id"], t, reckoning) for t in tokens]
            made.append(Table(base, room["room_id"], players, computer, reckoning,
                              random.Random(rng.getrandbits(64))))
    for table in made:
        await table.connect()
    return made


Stored = Callable[[str], StoredRoom | None]  # a room as its store holds it, by id


def redis_rooms(redis: Any) -> Stored:
    """The rooms as a Redis holds them (read as the app reads them, of any schema)."""
    r = redis.client()

    def read(room_id: str) -> StoredRoom | None:
        fields = {k.decode(): v.decode() for k, v in r.hgetall(room_key(room_id)).items()}
        if not fields:
            return None
        return upgrade(room_id, fields, r.lrange(actions_key(room_id), 0, -1))

    return read


def sqlite_rooms(path: Path) -> Stored:
    """The rooms as a SQLite file holds them, read while its server runs or after it
    was killed (a read-only connection: nothing is written to the file)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return lambda room_id: read_room(conn, room_id, 0.0)


def lost_and_wrong(stored: Stored, all_tables: list[Table],
                   reckoning: Reckoning) -> tuple[int, int]:
    """Changes told that the store does not hold (by table: the store's version below the
    highest shown, or a replay of the store that is not what the players were shown
    last), and refusals of moves the store holds after all."""
    lost = 0
    for table in all_tables:
        room = stored(table.room_id)
        shown = max(p.seen for p in table.players)
        if room is None or room.version < shown:
            lost += 1
            continue
        state = engine.replay(room.seed, room.actions, first_dealer=room.first_dealer,
                              pack=room.first_pack)
        for player in table.players:
            if player.version == room.version and engine.view(state, player.view["seat"])[
                    "hand"] != player.view["hand"]:
                lost += 1
    wrong = 0
    for room_id, before, action in reckoning.refused:
        room = stored(room_id)
        assert room is not None
        index = len(room.actions) - (room.version - before)  # the entry that made before + 1
        plain = {k: v for k, v in action.items() if k not in ("label", "say")}
        if 0 <= index < len(room.actions) and room.actions[index][1] == plain:
            wrong += 1
    return lost, wrong


def stuck_computers(all_tables: list[Table], since: float) -> int:
    """Computer tables that made no move after `since`."""
    return sum(1 for t in all_tables if t.computer and not any(m > since for m in t.moved_at))


def back_after(all_tables: list[Table], since: float) -> float:
    """Seconds from `since` until every table had moved again."""
    firsts = [min((m for m in t.moved_at if m > since), default=float("inf"))
              for t in all_tables]
    return max(firsts) - since


def play_through(base: str, fault: Callable[[], Awaitable[float]], *, friends: int,
                 computers: int, before: float, after: float
                 ) -> tuple[Reckoning, list[Table], float]:
    """Tables played flat out on the server at `base` (ws://): `before` seconds, then
    `fault` (it breaks something and returns once it is over, time.monotonic()), then
    `after` seconds more. The reckoning, the tables, and when the fault ended."""
    async def scenario() -> tuple[Reckoning, list[Table], float]:
        reckoning = Reckoning()
        played = await tables(base, friends, computers, reckoning)
        until = time.monotonic() + before + after + 30
        stop = asyncio.Event()

        async def table_loop(table: Table) -> None:
            while not stop.is_set():
                await table.play(min(until, time.monotonic() + 0.5))

        loops = [asyncio.create_task(table_loop(t)) for t in played]
        await asyncio.sleep(before)
        ended = await fault()
        await asyncio.sleep(after - (time.monotonic() - ended))
        stop.set()
        await asyncio.gather(*loops)
        return reckoning, played, ended

    return asyncio.run(scenario())


def nothing_lost(stored: Stored, reckoning: Reckoning, played: list[Table], ended: float,
                 name: str, after: float) -> None:
    """The reckoning printed (docs/reliability.md) and checked: nothing told lost, no
    wrong answer, no computer stuck, no version shown older than one shown before, and
    every table playing again within `after` seconds of the fault."""
    lost, wrong = lost_and_wrong(stored, played, reckoning)
    stuck = stuck_computers(played, ended)
    back = back_after(played, ended)
    print(f"\n{name}: changes told {reckoning.told}, lost {lost}, wrong answers {wrong}, "
          f"computer tables stuck {stuck}, every table played again {back:.1f} s after; "
          f"reconnects {reckoning.reconnects}, errors {reckoning.errors}")
    assert not reckoning.went_back, reckoning.went_back[:3]
    assert lost == 0 and wrong == 0 and stuck == 0
    assert back < after, f"a table did not play again within {after} s"


def busy_disk(folder: Path, stop: threading.Event) -> None:
    """Writes with an fsync after each, on `folder`'s file system, until stopped."""
    path = folder / "ballast"
    block = os.urandom(1 << 20)
    with path.open("wb") as out:
        while not stop.is_set():
            for _ in range(8):
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
            out.seek(0)
    path.unlink()
