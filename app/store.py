"""Where rooms are kept beyond one process: nowhere (the default), or Redis.

With no store (`PIQUET_REDIS_URL` unset) a room lives in its process's memory only, as
it always did: nothing to install. With Redis, every change to a room is written there
before any socket is told (`Room.change`), and a room missing from memory is loaded on
first use (`RoomRegistry.find`), so a restarted, killed or re-routed room resumes.

What is kept for a room (schema 3, below): the match as its seed, its first dealer if
one was set (a rematch: the other seat deals first) and the list of (seat, action)
applied since (the engine replays them exactly), the version, the match number, each
seat's token as a SHA-256 digest (never the token itself), the room's options (the
opponent, and the computer's level), and which seats pressed "Play again". All of it expires with
the room: a room closed for idleness is deleted, and the keys carry a time to live that
the owning process refreshes while the room is in its memory.

One writer per room: a write names the version it makes, and Redis refuses it
atomically (a Lua script) unless the stored version is one less. So two processes can
never both apply a change to a room, for instance while routes change; the one refused
lets go of the room, and its sockets reconnect to the owner (docs/protocol.md, 1012).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, get_args

from app.protocol import ComputerLevel

log = logging.getLogger("piquet.store")

SCHEMA = 3
# Schema 1 (the first one written): the opponent in a field of its own, no options.
# Schema 2: `options`, a JSON object holding the opponent and any other option a room is
# made with (the computer's level, for one).
# Schema 3 (issue 17's rooms): `first_dealer` ("" or a seat: a rematch's partie skips the
# cut), `rematch` (a JSON list of the seats that pressed "Play again"), and `options`
# rewritten when a waiting friend's seat goes to the computer. `_upgrade` reads every
# older schema.


def hash_token(token: str) -> str:
    """A seat token as kept: its SHA-256. Tokens are 192 random bits, so a plain digest
    is as good as a slow one: there is nothing to guess."""
    return hashlib.sha256(token.encode()).hexdigest()


def process_name() -> str:
    """Names this process as a room's owner in the store (for logs and conditional
    deletes): host, pid and a random part, since a restarted process may reuse a pid."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class StoreError(RuntimeError):
    """The store could not do what was asked; nothing was changed."""


class VersionConflict(StoreError):
    """The write's version is not the stored one plus one: another process has written
    this room since (or it is gone). This process must let go of the room."""


class StoreUnavailable(StoreError):
    """The store did not answer (Redis down, or a network fault)."""


@dataclass(slots=True)
class StoredRoom:
    """A room as the store holds it (the current schema, whatever schema it was read from)."""

    room_id: str
    options: dict[str, Any]  # "opponent" at least
    seed: int
    match: int
    version: int
    seat_hashes: list[str | None]  # per seat: its token's digest, or None (not taken)
    actions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    owner: str = ""
    first_dealer: int | None = None  # the match's first dealer, if not chosen by a cut
    rematch: list[int] = field(default_factory=list)  # seats that pressed "Play again"


HandOver = Callable[[str], Awaitable[None]]


class RoomStore(Protocol):
    """What rooms need of a store. `version` in a write is the version it makes."""

    name: str

    async def create(self, room: StoredRoom) -> None: ...
    async def append(
        self, room_id: str, version: int, seat: int, action: dict[str, Any]
    ) -> None: ...
    async def new_match(
        self, room_id: str, version: int, match: int, seed: int, *,
        first_dealer: int | None = None, options: dict[str, Any] | None = None,
    ) -> None: ...
    async def rematch(self, room_id: str, version: int, seats: list[int]) -> None: ...
    async def claim_seat(self, room_id: str, seat: int, token_hash: str) -> bool: ...
    async def load(self, room_id: str) -> StoredRoom | None: ...
    async def own(self, room_id: str) -> int: ...
    async def listen(self, hand_over: HandOver) -> None: ...
    async def delete(self, room_id: str, version: int) -> None: ...
    async def keep_alive(self, room_ids: Iterable[str]) -> None: ...
    async def close(self) -> None: ...


def encode_action(seat: int, action: dict[str, Any]) -> str:
    # The action as the engine accepted it, less its label (the words are not the rules).
    return json.dumps([seat, {k: v for k, v in action.items() if k != "label"}],
                      separators=(",", ":"))


def decode_action(text: str | bytes) -> tuple[int, dict[str, Any]]:
    seat, action = json.loads(text)
    return int(seat), dict(action)


class MemoryStore:
    """The same contract in a dict, for tests of the rooms' side of it (and a reading aid:
    the Redis scripts below do exactly this, atomically)."""

    name = "memory"

    def __init__(self) -> None:
        self.rooms: dict[str, StoredRoom] = {}

    async def create(self, room: StoredRoom) -> None:
        if room.room_id in self.rooms:
            raise VersionConflict(f"room {room.room_id} exists")
        self.rooms[room.room_id] = _copy(room)

    def _at(self, room_id: str, version: int) -> StoredRoom:
        stored = self.rooms.get(room_id)
        if stored is None or stored.version + 1 != version:
            raise VersionConflict(f"room {room_id}: write of version {version} refused")
        return stored

    async def append(self, room_id: str, version: int, seat: int, action: dict[str, Any]) -> None:
        stored = self._at(room_id, version)
        stored.actions.append(decode_action(encode_action(seat, action)))
        stored.version = version

    async def new_match(
        self, room_id: str, version: int, match: int, seed: int, *,
        first_dealer: int | None = None, options: dict[str, Any] | None = None,
    ) -> None:
        stored = self._at(room_id, version)
        stored.actions.clear()
        stored.seed, stored.match, stored.version = seed, match, version
        stored.first_dealer = first_dealer
        stored.rematch = []
        if options is not None:
            stored.options = dict(options)

    async def rematch(self, room_id: str, version: int, seats: list[int]) -> None:
        stored = self._at(room_id, version)
        stored.rematch, stored.version = list(seats), version

    async def claim_seat(self, room_id: str, seat: int, token_hash: str) -> bool:
        stored = self.rooms.get(room_id)
        if stored is None or stored.seat_hashes[seat] is not None:
            return False
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

    async def close(self) -> None:
        pass


def _copy(room: StoredRoom) -> StoredRoom:
    return StoredRoom(room.room_id, dict(room.options), room.seed, room.match, room.version,
                      list(room.seat_hashes), list(room.actions), room.owner,
                      room.first_dealer, list(room.rematch))


# --- Redis ---------------------------------------------------------------------------
# Two keys a room: a hash (the fields below) and a list (the match's actions, one JSON
# `[seat, action]` each). `{room_id}` is a hash tag: both keys fall in one slot of a
# Redis Cluster, so the scripts may touch both.

CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
"""

# ARGV: version (the one this write makes), ttl ms, kind, then the kind's values:
# 'action': the action; 'match' (a new match: its actions start afresh) and 'fields'
# (a change with no action, "Play again"): field, value pairs for the room's hash.
SAVE = """
local stored = redis.call('HGET', KEYS[1], 'version')
if not stored then return -1 end
stored = tonumber(stored)
if stored + 1 ~= tonumber(ARGV[1]) then return stored end
if ARGV[3] == 'action' then
  redis.call('RPUSH', KEYS[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
else
  if ARGV[3] == 'match' then redis.call('DEL', KEYS[2]) end
  redis.call('HSET', KEYS[1], unpack(ARGV, 4))
end
redis.call('HSET', KEYS[1], 'version', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 0
"""

CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
return 1
"""

# The loader becomes the room's owner; the previous owner, if another process, is told
# to let go of its copy (its sockets then reconnect, through the proxy, to the new one).
# ARGV: this process's name, the room id.
HAND_OVER = """
local previous = redis.call('HGET', KEYS[1], 'owner')
if previous and previous ~= ARGV[1] then
  redis.call('HSET', KEYS[1], 'owner', ARGV[1])
  redis.call('PUBLISH', 'piquet:owner:' .. previous, ARGV[2])
end
"""

LOAD = """
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return {fields, {}} end
""" + HAND_OVER + """
return {fields, redis.call('LRANGE', KEYS[2], 0, -1)}
"""

# A process about to serve a room from its memory: the stored version (-1: gone), so a
# copy that is behind is dropped and loaded afresh; and it becomes the owner.
OWN = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return -1 end
""" + HAND_OVER + """
return tonumber(version)
"""

DELETE = """
if redis.call('HGET', KEYS[1], 'version') == ARGV[1] and
   redis.call('HGET', KEYS[1], 'owner') == ARGV[2] then
  return redis.call('DEL', KEYS[1], KEYS[2])
end
return 0
"""


def room_key(room_id: str) -> str:
    return f"piquet:{{{room_id}}}"


def actions_key(room_id: str) -> str:
    return f"piquet:{{{room_id}}}:actions"


class RedisStore:
    """Rooms in Redis (the `redis` package's asyncio client, a pool of connections).

    Per action: one EVALSHA (the stored version checked, the action appended, the
    version set, both keys' expiry renewed), i.e. one round trip.
    """

    name = "redis"

    def __init__(self, url: str, *, ttl_seconds: float, owner: str | None = None,
                 max_connections: int = 32) -> None:
        import redis.asyncio as aioredis

        self.url = url
        self.ttl_ms = int(ttl_seconds * 1000)
        self.owner = owner or process_name()
        # A bounded pool that waits for a free connection (5 s at most) rather than
        # failing: with hundreds of rooms writing at once, writes queue for a connection.
        pool = aioredis.BlockingConnectionPool.from_url(
            url, max_connections=max_connections, timeout=5, socket_timeout=5,
            socket_connect_timeout=5, health_check_interval=30)
        self.redis = aioredis.Redis(connection_pool=pool)
        self._create = self.redis.register_script(CREATE)
        self._save = self.redis.register_script(SAVE)
        self._claim = self.redis.register_script(CLAIM)
        self._load = self.redis.register_script(LOAD)
        self._own = self.redis.register_script(OWN)
        self._delete = self.redis.register_script(DELETE)

    async def _call(self, what: str, coro: Any) -> Any:
        from redis.exceptions import RedisError

        try:
            return await coro
        except RedisError as exc:
            raise StoreUnavailable(f"{what}: {exc}") from exc
        except OSError as exc:
            raise StoreUnavailable(f"{what}: {exc}") from exc

    async def create(self, room: StoredRoom) -> None:
        fields: dict[str, str] = {
            "schema": str(SCHEMA),
            "options": _json(room.options),
            "seed": str(room.seed),
            "first_dealer": _seat_text(room.first_dealer),
            "rematch": _json(room.rematch),
            "match": str(room.match),
            "version": str(room.version),
            "owner": self.owner,
        }
        for seat, digest in enumerate(room.seat_hashes):
            if digest is not None:
                fields[f"seat{seat}"] = digest
        args: list[str | int] = [self.ttl_ms]
        for name, value in fields.items():
            args += [name, value]
        made = await self._call("create", self._create(keys=[room_key(room.room_id)], args=args))
        if made != 1:
            raise VersionConflict(f"room {room.room_id} exists")

    async def _write(self, room_id: str, version: int, *args: str | int) -> None:
        answer = await self._call(
            "save",
            self._save(keys=[room_key(room_id), actions_key(room_id)],
                       args=[version, self.ttl_ms, *args]),
        )
        if answer != 0:
            stored = "gone" if answer == -1 else f"at version {answer}"
            raise VersionConflict(
                f"room {room_id}: write of version {version} refused, the store has it {stored}")

    async def append(self, room_id: str, version: int, seat: int, action: dict[str, Any]) -> None:
        await self._write(room_id, version, "action", encode_action(seat, action))

    async def new_match(
        self, room_id: str, version: int, match: int, seed: int, *,
        first_dealer: int | None = None, options: dict[str, Any] | None = None,
    ) -> None:
        pairs: list[str | int] = ["seed", seed, "match", match,
                                  "first_dealer", _seat_text(first_dealer), "rematch", "[]"]
        if options is not None:
            pairs += ["options", _json(options)]
        await self._write(room_id, version, "match", *pairs)

    async def rematch(self, room_id: str, version: int, seats: list[int]) -> None:
        await self._write(room_id, version, "fields", "rematch", _json(seats))

    async def claim_seat(self, room_id: str, seat: int, token_hash: str) -> bool:
        answer = await self._call(
            "claim", self._claim(keys=[room_key(room_id)], args=[f"seat{seat}", token_hash]))
        return bool(answer == 1)

    async def load(self, room_id: str) -> StoredRoom | None:
        flat, actions = await self._call("load", self._load(
            keys=[room_key(room_id), actions_key(room_id)], args=[self.owner, room_id]))
        if not flat:
            return None
        fields = dict(zip(flat[::2], flat[1::2], strict=True))
        text = {k.decode(): v.decode() for k, v in fields.items()}
        try:
            return _upgrade(room_id, text, actions)
        except (KeyError, ValueError) as exc:
            log.error("room %s: unreadable in the store (%r)", room_id, exc)
            return None

    async def own(self, room_id: str) -> int:
        answer = await self._call("own", self._own(keys=[room_key(room_id)],
                                                   args=[self.owner, room_id]))
        return int(answer)

    async def listen(self, hand_over: HandOver) -> None:
        """Until cancelled: call `hand_over(room_id)` whenever another process takes a room
        this one owned. A missed message costs little: this process's next write to that
        room is refused (its version is behind) and it lets go then."""
        import redis.asyncio as aioredis

        channel = f"piquet:owner:{self.owner}"
        while True:
            pubsub: aioredis.client.PubSub = self.redis.pubsub()
            try:
                await pubsub.subscribe(channel)
                async for message in pubsub.listen():
                    if message["type"] == "message":
                        await hand_over(message["data"].decode())
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("hand-over channel failed (%r); listening again in 1 s", exc)
                await asyncio.sleep(1)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def delete(self, room_id: str, version: int) -> None:
        await self._call("delete", self._delete(
            keys=[room_key(room_id), actions_key(room_id)], args=[version, self.owner]))

    async def keep_alive(self, room_ids: Iterable[str]) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            for room_id in room_ids:
                pipe.pexpire(room_key(room_id), self.ttl_ms)
                pipe.pexpire(actions_key(room_id), self.ttl_ms)
            await self._call("keep alive", pipe.execute())

    async def close(self) -> None:
        await self.redis.aclose(close_connection_pool=True)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _seat_text(seat: int | None) -> str:
    return "" if seat is None else str(seat)


def _upgrade(room_id: str, fields: dict[str, str], actions: list[bytes]) -> StoredRoom:
    """A stored room, of any schema so far, as the current schema."""
    schema = int(fields["schema"])
    first_dealer: int | None = None
    rematch: list[int] = []
    if schema == 1:
        options: dict[str, Any] = {"opponent": fields["opponent"]}
    elif schema in (2, 3):
        options = json.loads(fields["options"])
    else:
        raise ValueError(f"unknown schema {schema}")
    if schema >= 3:
        if fields.get("first_dealer"):
            first_dealer = int(fields["first_dealer"])
        rematch = [int(seat) for seat in json.loads(fields.get("rematch") or "[]")]
    if options.get("opponent") not in ("computer", "friend"):
        raise ValueError(f"unknown opponent {options.get('opponent')!r}")
    if options["opponent"] == "computer":
        options.setdefault("level", "basic")  # before schema 3: the one level there was
    if options.get("level", "basic") not in get_args(ComputerLevel):
        raise ValueError(f"unknown computer level {options.get('level')!r}")
    if first_dealer not in (None, 0, 1) or not set(rematch) <= {0, 1}:
        raise ValueError(f"bad first dealer {first_dealer!r} or rematch {rematch!r}")
    return StoredRoom(
        room_id=room_id,
        options=options,
        seed=int(fields["seed"]),
        match=int(fields["match"]),
        version=int(fields["version"]),
        seat_hashes=[fields.get("seat0"), fields.get("seat1")],
        actions=[decode_action(a) for a in actions],
        owner=fields.get("owner", ""),
        first_dealer=first_dealer,
        rematch=rematch,
    )


def make_store(url: str | None, *, ttl_seconds: float) -> RoomStore | None:
    """The store the settings ask for: None (rooms in memory only) or Redis."""
    if not url:
        return None
    return RedisStore(url, ttl_seconds=ttl_seconds)
