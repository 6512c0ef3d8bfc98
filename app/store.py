"""Where rooms are kept beyond one process: what a store promises, and the one in memory.

Three stores (`PIQUET_STORE`, app/main.py's `settings_store`): a SQLite file (the
default: app/sqlite_store.py, one process, nothing to install), Redis or a Redis
Cluster (`PIQUET_REDIS_URL`: app/redis_store.py, several processes), or none
(`PIQUET_STORE=memory`: a room lives in its process's memory only). With a store,
every change to a room is written there before any socket is told (`Room.commit`),
and a room missing from memory is loaded on first use (`RoomRegistry.find`), so a
restarted, killed or re-routed room resumes.

What is kept for a room (`StoredRoom`): the match's seed (it decides the cut only),
each deal's pack as it was dealt (with the action that dealt it: no deal is kept before
it is dealt), the list of (seat, action) applied since the match began (the engine
replays them exactly), the version, the match number, each seat's token as a SHA-256
digest (never the token itself), the room's options (the opponent, the computer's
level, the pace), which seats pressed "Play again", the room's secret (it signs the
receipts a seat is given for the versions it was shown), and when it was last written
(wall-clock seconds: how long ago its last move was, after a restart).

How long a store keeps a room it is no longer told about: `keep_seconds` of its options.
A room played now lives `room_idle_seconds` (plus two sweeps) after its last write or
renewal, while its process renews it at every sweep; a slow one ("Take your time")
`slow_room_days` after its last write, with no renewal: it rests in the store between
moves, out of every process's memory.

The contract (`RoomStore`): a write (`Change`) names the version it makes, and is
refused (VersionConflict) unless the stored version is one less: two processes never
both apply a change to a room. A write is told to no one until the store has answered
that it holds it, durably by its own promise; when the store cannot say, the write
fails with StoreUnknown (the room lets go, and whoever comes back reads the truth), and
with StoreUnavailable only when nothing of it reached the store (StoreFull: the store's
disk is full). A store that cannot be opened at start raises StoreRefused. `MemoryStore`
keeps the same contract in a dict, for tests and as a reading aid.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, Protocol

import orjson

import engine

log = logging.getLogger("piquet.store")
Pack = tuple[str, ...]  # 32 card codes in dealing order


class Start(NamedTuple):
    """Where a match started: the seed that cut, the first dealer when no cut chose
    it, the first deal's pack when the match began dealt, and the rules it is played
    under (the room's, kept in its options)."""

    seed: int
    first_dealer: int | None
    first_pack: Pack | None
    rules: engine.Rules = engine.Rules()
Entry = tuple[int, dict[str, Any], Pack | None]  # (seat, action, the pack it dealt)


def hash_token(token: str) -> str:
    """A seat token as kept: its SHA-256. Tokens are 192 random bits, so a plain digest
    is as good as a slow one: there is nothing to guess."""
    return hashlib.sha256(token.encode()).hexdigest()


def process_name() -> str:
    """Names this process as a room's owner in the store (for logs and conditional
    deletes): host, pid and a random part, since a restarted process may reuse a pid."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


# A write's id: unique across processes (a random part drawn once per process) and within
# one (a counter), without a system call on every move.
_WRITER = secrets.token_hex(6)
_WRITES = itertools.count()


def new_write_id() -> str:
    return f"{_WRITER}{next(_WRITES):x}"


class StoreError(RuntimeError):
    """The store could not do what was asked; nothing was changed."""


class VersionConflict(StoreError):
    """The write's version is not the stored one plus one: another process has written
    this room since, it is gone, or the store lost changes (`stored` below ours). This
    process must let go of the room (or, if the store is behind, write what it lost)."""

    def __init__(self, message: str, stored: int | None = None) -> None:
        super().__init__(message)
        self.stored = stored  # the stored version; None: no such room


class SeatTaken(StoreError):
    """The write needed a seat to be free, and someone has taken it (in another process,
    or while this one waited): nothing was written."""


class StoreUnavailable(StoreError):
    """The store did not answer, and nothing was sent that it could have applied: known
    to have changed nothing."""


class StoreFull(StoreUnavailable):
    """The store has no room left on its disk: nothing was written. Moves stop, and go
    on once there is room again."""


class StoreUnknown(StoreError):
    """A write was sent and the store did not answer within its patience: whether it
    holds the write is not known. The room must let go and be read again."""


class StoreRefused(RuntimeError):
    """The store cannot be used at all (a file damaged, of a newer schema, or in use by
    another process): the server does not start. The message is one line, for the
    operator, and names the file."""


@dataclass(frozen=True, slots=True)
class Change:
    """One write to a room: the version it makes and what it holds. `kind`: "action" (a
    seat's action, with the pack it dealt if it dealt), "match" (a new match: its seed,
    number, first dealer, first pack and maybe new options) or "rematch" (the seats that
    pressed "Play again")."""

    version: int
    kind: Literal["action", "match", "rematch"]
    entry: Entry | None = None
    match: int = 0
    seed: int = 0
    first_dealer: int | None = None
    first_pack: Pack | None = None
    options: dict[str, Any] | None = None
    rematch: tuple[int, ...] = ()
    # A friend takes a seat with the new match: (seat, its token's digest); and the seat
    # that must still be free for the write to be made at all (a seat taken and a seat
    # given to the computer never both succeed).
    claim: tuple[int, str] | None = None
    free: int | None = None
    id: str = field(default_factory=new_write_id)
    at: float = field(default_factory=time.time)  # when it was made (wall-clock seconds)


@dataclass(slots=True)
class StoredRoom:
    """A room as the store holds it (the current schema, whatever schema it was read from)."""

    room_id: str
    options: dict[str, Any]  # "opponent" at least
    seed: int
    match: int
    version: int
    seat_hashes: list[str | None]  # per seat: its token's digest, or None (not taken)
    actions: list[Entry] = field(default_factory=list)
    owner: str = ""
    first_dealer: int | None = None  # the match's first dealer, if not chosen by a cut
    rematch: list[int] = field(default_factory=list)  # seats that pressed "Play again"
    first_pack: Pack | None = None  # the first deal's pack, when the match began dealt
    secret: str = ""  # the room's receipt key (hex); "" before schema 4
    moved_at: float = 0.0  # when last written (wall-clock seconds); 0: not known


def keep_seconds(options: dict[str, Any], ttl: float, slow_ttl: float) -> float:
    """How long a store keeps a room of these options after its last write: `slow_ttl`
    for a slow table, else `ttl` (app/store.py's docstring)."""
    return slow_ttl if options.get("pace") == "slow" else ttl


HandOver = Callable[[str], Awaitable[None]]
Waiting = Callable[[], None]


class RoomStore(Protocol):
    """What rooms need of a store."""

    name: str
    # A write it acknowledged may yet be lost (Redis without its fsync, a failover): the
    # rooms then keep their last writes to write again (app/journal.py).
    may_lose_writes: bool

    async def create(self, room: StoredRoom) -> None: ...
    async def save(self, room_id: str, change: Change, *,
                   waiting: Waiting | None = None) -> None: ...
    async def claim_seat(self, room_id: str, seat: int, token_hash: str) -> bool: ...
    async def load(self, room_id: str) -> StoredRoom | None: ...
    async def own(self, room_id: str) -> int: ...
    async def listen(self, hand_over: HandOver) -> None: ...
    async def delete(self, room_id: str, version: int) -> None: ...
    async def keep_alive(self, room_ids: Iterable[str]) -> None: ...
    async def check(self) -> list[str]: ...
    async def close(self) -> None: ...


def encode_entry(entry: Entry) -> str:
    # The action as the engine accepted it, less its label (the words are not the rules).
    seat, action, pack = entry
    plain = {k: v for k, v in action.items() if k not in ("label", "say")}
    item: list[Any] = [seat, plain] if pack is None else [seat, plain, " ".join(pack)]
    return orjson.dumps(item).decode()  # (as compact as json's, at a fifth of its cost)


def decode_entry(text: str | bytes) -> Entry:
    item = orjson.loads(text)
    seat, action = int(item[0]), dict(item[1])
    pack = tuple(item[2].split()) if len(item) > 2 and item[2] else None
    if pack is not None and len(pack) != 32:
        raise ValueError(f"a pack of {len(pack)} cards")
    return seat, action, pack


def change_for_action(version: int, seat: int, action: dict[str, Any],
                      pack: Pack | None = None) -> Change:
    return Change(version, "action", entry=(seat, action, pack))


class WritesByKind:
    """A store's writes by kind, each one `save` of a `Change` (the tests and tools write
    so; rooms make their Changes themselves)."""

    async def save(self, room_id: str, change: Change, *,
                   waiting: Waiting | None = None) -> None:
        raise NotImplementedError

    async def append(self, room_id: str, version: int, seat: int, action: dict[str, Any],
                     pack: Pack | None = None) -> None:
        await self.save(room_id, change_for_action(version, seat, action, pack))

    async def new_match(self, room_id: str, version: int, match: int, seed: int, *,
                        first_dealer: int | None = None, options: dict[str, Any] | None = None,
                        first_pack: Pack | None = None) -> None:
        await self.save(room_id, Change(version, "match", match=match, seed=seed,
                                        first_dealer=first_dealer, first_pack=first_pack,
                                        options=options))

    async def rematch(self, room_id: str, version: int, seats: list[int]) -> None:
        await self.save(room_id, Change(version, "rematch", rematch=tuple(seats)))


class MemoryStore(WritesByKind):
    """The same contract in a dict, for tests of the rooms' side of it (and a reading aid:
    the Redis scripts below do exactly this, atomically)."""

    name = "memory"
    may_lose_writes = False

    def __init__(self) -> None:
        self.rooms: dict[str, StoredRoom] = {}

    async def create(self, room: StoredRoom) -> None:
        if room.room_id in self.rooms:
            raise VersionConflict(f"room {room.room_id} exists", self.rooms[room.room_id].version)
        self.rooms[room.room_id] = _copy(room)
        self.rooms[room.room_id].moved_at = room.moved_at or time.time()

    async def save(self, room_id: str, change: Change, *,
                   waiting: Waiting | None = None) -> None:
        stored = self.rooms.get(room_id)
        if stored is None or stored.version + 1 != change.version:
            raise VersionConflict(f"room {room_id}: write of version {change.version} refused",
                                  None if stored is None else stored.version)
        if change.free is not None and stored.seat_hashes[change.free] is not None:
            raise SeatTaken(f"room {room_id}: seat {change.free} is taken")
        _apply(stored, change)

    async def claim_seat(self, room_id: str, seat: int, token_hash: str) -> bool:
        stored = self.rooms.get(room_id)
        if stored is None:
            return False
        held = stored.seat_hashes[seat]
        if held is not None:
            return secrets.compare_digest(held.encode(), token_hash.encode())
        stored.seat_hashes[seat] = token_hash
        return True

    async def load(self, room_id: str) -> StoredRoom | None:
        stored = self.rooms.get(room_id)
        return None if stored is None else _copy(stored)

    async def own(self, room_id: str) -> int:
        stored = self.rooms.get(room_id)
        return -1 if stored is None else stored.version

    async def listen(self, hand_over: HandOver) -> None:
        await asyncio.Event().wait()  # one process: nobody hands rooms over

    async def delete(self, room_id: str, version: int) -> None:
        stored = self.rooms.get(room_id)
        if stored is not None and stored.version == version:
            del self.rooms[room_id]

    async def keep_alive(self, room_ids: Iterable[str]) -> None:
        pass

    async def check(self) -> list[str]:
        return []

    async def close(self) -> None:
        pass


def _apply(stored: StoredRoom, change: Change) -> None:
    """What a write does to a stored room (MemoryStore's half of the SAVE script)."""
    if change.kind == "action":
        assert change.entry is not None
        stored.actions.append(decode_entry(encode_entry(change.entry)))
    elif change.kind == "match":
        stored.actions.clear()
        stored.seed, stored.match = change.seed, change.match
        stored.first_dealer, stored.first_pack = change.first_dealer, change.first_pack
        stored.rematch = []
        if change.options is not None:
            stored.options = dict(change.options)
        if change.claim is not None:
            stored.seat_hashes[change.claim[0]] = change.claim[1]
    else:
        stored.rematch = list(change.rematch)
    stored.version = change.version
    stored.moved_at = change.at


def _copy(room: StoredRoom) -> StoredRoom:
    return StoredRoom(room.room_id, dict(room.options), room.seed, room.match, room.version,
                      list(room.seat_hashes), list(room.actions), room.owner,
                      room.first_dealer, list(room.rematch), room.first_pack, room.secret,
                      room.moved_at)
