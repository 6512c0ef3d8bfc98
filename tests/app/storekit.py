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
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from tablekit import pick
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

import engine
from app.redis_scripts import actions_key, room_key

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


def lost_and_wrong(redis: Any, all_tables: list[Table], reckoning: Reckoning) -> tuple[int, int]:
    """Changes told that the store does not hold (by table: the store's version below the
    highest shown, or a replay of the store that is not what the players were shown
    last), and refusals of moves the store holds after all."""
    r = redis.client()
    lost = 0
    for table in all_tables:
        version = int(r.hget(room_key(table.room_id), "version"))
        shown = max(p.seen for p in table.players)
        if version < shown:
            lost += 1
            continue
        fields = {k.decode(): v.decode() for k, v in r.hgetall(room_key(table.room_id)).items()}
        stored = [json.loads(a) for a in r.lrange(actions_key(table.room_id), 0, -1)]
        state = engine.new_partie(
            int(fields["seed"]),
            first_dealer=int(fields["first_dealer"]) if fields.get("first_dealer") else None,
            pack=fields["first_pack"].split() if fields.get("first_pack") else None)
        for entry in stored:
            pack = entry[2].split() if len(entry) > 2 else None
            state = (engine.deal_again(state, pack or [], "") if entry[0] == -1
                     else engine.apply(state, entry[0], entry[1], pack=pack))
        for player in table.players:
            if player.version == version and engine.view(state, player.view["seat"])[
                    "hand"] != player.view["hand"]:
                lost += 1
    wrong = 0
    for room_id, before, action in reckoning.refused:
        stored = [json.loads(a) for a in r.lrange(actions_key(room_id), 0, -1)]
        version = int(r.hget(room_key(room_id), "version"))
        index = len(stored) - (version - before)  # the entry that made version before + 1
        plain = {k: v for k, v in action.items() if k not in ("label", "say")}
        if 0 <= index < len(stored) and stored[index][1] == plain:
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
