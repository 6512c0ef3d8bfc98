"""Where the lobby's tables are kept: the open tables (waiting for a second player, in the
order they were listed, each in the quick game's queue of its rules) and the tables
being played that anyone may watch; and the news of each change.

Every process's lobby reads the same: with Redis, the lists live there and each change
is published to every process (app/redis_lobby.py); alone, `MemoryLobby` keeps them in
this process, under the same contract (and is its reading aid). Each step that picks or
takes a table is one atomic step of the store, so a table is never given to two people:
`quick` (the quick game: take the oldest table of my rules that is not mine, or list
mine), `take` (a person sits down at a listed table) and `unlist`.

A visitor is a browser (the digest of its `piquet_visitor` cookie): nobody is paired with
themselves, and the presses of one browser's two tabs end at one table. What a lobby
watcher is sent of a table is `OpenTable.public` and `PlayingTable.public`: names, rules,
times and scores, never a visitor, an address or anything of a hand.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal, NamedTuple, Protocol

# How long a visitor's lobby table is remembered after a quick game paired or listed it
# (its other tab, pressing at the same moment, is sent there), and how long a table
# taken from the list is kept for the one who took it while the seat is claimed.
VISITOR_SECONDS = 15.0
HELD_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A table waiting in the lobby for anyone to sit down."""

    room_id: str
    name: str  # its maker's display name
    rules: dict[str, Any]  # engine.Rules.to_json()
    practice: bool
    since: float  # when it was listed (seconds since the epoch)
    # Not for the lobby's watchers: the quick game's key (its rules and practice), the
    # maker's client address (3 open tables each), browser, and the look of its name.
    key: str = ""
    address: str = ""
    visitor: str = ""
    look: str = ""

    def public(self, now: float) -> dict[str, Any]:
        return {"room_id": self.room_id, "name": self.name, "rules": self.rules,
                "practice": self.practice, "waited": max(0, int(now - self.since))}

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> OpenTable:
        return cls(**obj)


@dataclass(frozen=True, slots=True)
class PlayingTable:
    """A table being played that anyone may watch: every field is public."""

    room_id: str
    names: tuple[str, str]
    rules: dict[str, Any]
    practice: bool
    deal: int  # the deal under way (0: the cut)
    deals: int | None  # deals in the partie (None: au cent)
    scores: tuple[int, int]  # the partie's, over the deals finished (au cent: this game's)

    def public(self) -> dict[str, Any]:
        return {"room_id": self.room_id, "names": list(self.names), "rules": self.rules,
                "practice": self.practice, "deal": self.deal, "deals": self.deals,
                "scores": list(self.scores)}

    def to_json(self) -> dict[str, Any]:
        return self.public()

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> PlayingTable:
        return cls(obj["room_id"], (obj["names"][0], obj["names"][1]), obj["rules"],
                   bool(obj["practice"]), int(obj["deal"]), obj["deals"],
                   (obj["scores"][0], obj["scores"][1]))


# Why a table left the open list: a person sat down at it; its maker took it out; it
# waited `open_table_seconds`; its maker sat down at another table; the table closed.
Gone = Literal["taken", "unlisted", "expired", "elsewhere", "closed"]

# A change, as every process's lobby is told it: {"open": OpenTable.to_json()},
# {"gone": room_id, "why": Gone}, {"playing": PlayingTable.to_json()}, {"ended": room_id}.
Event = dict[str, Any]
Listener = Callable[[Event], None]


class Quick(NamedTuple):
    """What the quick game found. `kind`: "take", the oldest table of these rules not the
    presser's (taken from the list: the presser sits down there); "mine", the presser's
    own (listed, or paired a moment ago from another tab): go there; "same_name", the one
    table to pair with has a maker whose name looks like the presser's; "listed", the
    presser's new table is listed and waits; "none", nothing to pair with (and no table
    given to list); "full", the presser's address has its share of open tables."""

    kind: Literal["take", "mine", "same_name", "listed", "none", "full"]
    room_id: str = ""


# What `take` found: "taken" (now the visitor's to sit at), "own" (the visitor's own
# table), "same_name", "held" (taken a moment ago by someone else), "not_listed".
Take = Literal["taken", "own", "same_name", "held", "not_listed"]


class LobbyStore(Protocol):
    """What the lobby needs of where its tables are kept."""

    async def put(self, table: OpenTable, limit: int) -> bool:
        """List `table` (or list it again, from now); False if its address has `limit`
        tables listed already."""
        ...

    async def quick(self, key: str, visitor: str, look: str, table: OpenTable | None,
                    limit: int) -> Quick: ...
    async def take(self, room_id: str, visitor: str, look: str) -> Take: ...
    async def unlist(self, room_id: str, why: Gone) -> bool: ...
    async def release(self, visitor: str, room_id: str) -> None:
        """`visitor` did not sit at `room_id` after all (it closed): forget that it did."""
        ...

    async def expire(self, before: float) -> list[str]: ...
    async def playing(self, table: PlayingTable) -> None: ...
    async def ended(self, room_id: str) -> None: ...
    async def touch(self, room_ids: list[str]) -> None: ...
    async def stale(self, before: float) -> list[str]: ...
    async def tables(self) -> tuple[list[OpenTable], list[PlayingTable]]: ...
    async def listen(self, listener: Listener) -> None: ...


class MemoryLobby:
    """The lobby's tables in this process (no Redis): each step is made at once, between
    two awaits, so it is as atomic as the Redis scripts it mirrors."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.open: dict[str, OpenTable] = {}  # in the order listed
        self.playing_tables: dict[str, PlayingTable] = {}
        self.touched: dict[str, float] = {}
        self.visitors: dict[str, tuple[str, float]] = {}  # visitor: (room id, until)
        self.held: dict[str, tuple[str, float]] = {}  # room id: (visitor, until)
        self.listeners: list[Listener] = []

    def _tell(self, event: Event) -> None:
        for listener in list(self.listeners):
            listener(event)

    def _remove(self, room_id: str, why: Gone) -> None:
        del self.open[room_id]
        self._tell({"gone": room_id, "why": why})

    def _recent(self, found: dict[str, tuple[str, float]], key: str) -> str | None:
        value = found.get(key)
        if value is None or value[1] < self.clock():
            found.pop(key, None)
            return None
        return value[0]

    def _seat(self, visitor: str, room_id: str) -> None:
        """`visitor` sits down at `room_id`: it is held for them, and their own waiting
        tables leave the list."""
        now = self.clock()
        self.held[room_id] = (visitor, now + HELD_SECONDS)
        self.visitors[visitor] = (room_id, now + VISITOR_SECONDS)
        for mine in [t for t in self.open.values() if t.visitor == visitor]:
            self._remove(mine.room_id, "elsewhere")

    async def put(self, table: OpenTable, limit: int) -> bool:
        held = [t for t in self.open.values()
                if t.address == table.address and t.room_id != table.room_id]
        if len(held) >= limit:
            return False
        self.open.pop(table.room_id, None)
        self.open[table.room_id] = table
        self._tell({"open": table.to_json()})
        return True

    async def quick(self, key: str, visitor: str, look: str, table: OpenTable | None,
                    limit: int) -> Quick:
        recent = self._recent(self.visitors, visitor)
        if recent is not None:
            return Quick("mine", recent)
        queue = [t for t in self.open.values() if t.key == key]
        others = [t for t in queue if t.visitor != visitor]
        other = next((t for t in others if not look or t.look != look), None)
        if other is not None:
            self._remove(other.room_id, "taken")
            self._seat(visitor, other.room_id)
            return Quick("take", other.room_id)
        if others:
            return Quick("same_name", others[0].room_id)
        mine = next((t for t in queue if t.visitor == visitor), None)
        if mine is not None:
            return Quick("mine", mine.room_id)
        if table is None:
            return Quick("none")
        if not await self.put(table, limit):
            return Quick("full")
        self.visitors[visitor] = (table.room_id, self.clock() + VISITOR_SECONDS)
        return Quick("listed", table.room_id)

    async def take(self, room_id: str, visitor: str, look: str) -> Take:
        held = self._recent(self.held, room_id)
        if held is not None:
            return "taken" if held == visitor else "held"
        table = self.open.get(room_id)
        if table is None:
            return "not_listed"
        if table.visitor == visitor:
            return "own"
        if look and table.look == look:
            return "same_name"
        self._remove(room_id, "taken")
        self._seat(visitor, room_id)
        return "taken"

    async def unlist(self, room_id: str, why: Gone) -> bool:
        if room_id not in self.open:
            return False
        self._remove(room_id, why)
        return True

    async def release(self, visitor: str, room_id: str) -> None:
        if self._recent(self.visitors, visitor) == room_id:
            del self.visitors[visitor]

    async def expire(self, before: float) -> list[str]:
        gone = [t.room_id for t in self.open.values() if t.since < before]
        for room_id in gone:
            self._remove(room_id, "expired")
        return gone

    async def playing(self, table: PlayingTable) -> None:
        self.playing_tables[table.room_id] = table
        self.touched[table.room_id] = self.clock()
        self._tell({"playing": table.to_json()})

    async def ended(self, room_id: str) -> None:
        self.touched.pop(room_id, None)
        if self.playing_tables.pop(room_id, None) is not None:
            self._tell({"ended": room_id})

    async def touch(self, room_ids: list[str]) -> None:
        now = self.clock()
        for room_id in room_ids:
            if room_id in self.playing_tables:
                self.touched[room_id] = now

    async def stale(self, before: float) -> list[str]:
        gone = [r for r, at in self.touched.items() if at < before]
        for room_id in gone:
            await self.ended(room_id)
        return gone

    async def tables(self) -> tuple[list[OpenTable], list[PlayingTable]]:
        return list(self.open.values()), list(self.playing_tables.values())

    async def listen(self, listener: Listener) -> None:
        self.listeners.append(listener)
        try:
            await asyncio.Event().wait()  # until cancelled
        finally:
            self.listeners.remove(listener)
