"""Rooms in Redis, or in a Redis Cluster: the store of app/store.py's contract.

Two keys a room (schema below): a hash of its fields and a list of the match's
entries, both expiring with the room (the owning process renews them while the room is
in its memory; a room closed for idleness is deleted). Every write is one Lua script,
so the version check and the write are one step.

A write is told to no one until Redis has answered that it holds it, durably by its own
promise (docs/operating.md): Redis fsyncs its append-only file before it answers
(`appendfsync always`, checked at start), or, with `PIQUET_REDIS_REPLICAS`, that many
replicas have acknowledged it (`WAIT`, on the connection that wrote, in the same round
trip). Each write carries an id and is idempotent: when its outcome is unknown (the
connection broke after sending, or Redis paused past the timeout), it is sent again
until Redis answers, and the answer says whether Redis holds it; so a write that landed
is never reported as refused, and one that did not is never reported as kept. Only when
Redis does not answer for `patience` seconds is the outcome left unknown. A command that
never reached Redis (refused, or no connection to be had) is tried again for
`UNSENT_PATIENCE` only: long enough to ride out a restart, short enough that a page
arriving while Redis is down is told so at once rather than left waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, get_args

from app.protocol import ComputerLevel
from app.redis_scripts import SCRIPTS, actions_key, room_key
from app.store import (
    Change,
    HandOver,
    SeatTaken,
    StoredRoom,
    StoreUnavailable,
    StoreUnknown,
    VersionConflict,
    Waiting,
    WritesByKind,
    decode_entry,
    encode_entry,
    keep_seconds,
    new_write_id,
    process_name,
)

log = logging.getLogger("piquet.store")
# How long a command that never reached Redis is tried again (within `patience`), and
# how long a `quick` one is tried at all: one whose outcome matters to nobody if it is
# lost (a load, taking ownership, a delete), asked while someone waits to be told.
UNSENT_PATIENCE = 1.0

SCHEMA = 4
# Schema 1 (the first one written): the opponent in a field of its own, no options.
# Schema 2: `options`, a JSON object holding the opponent and any other option a room is
# made with (the computer's level, for one).
# Schema 3 (issue 17's rooms): `first_dealer` ("" or a seat: a rematch's partie skips the
# cut), `rematch` (a JSON list of the seats that pressed "Play again"), and `options`
# rewritten when a waiting friend's seat goes to the computer.
# Schema 4 (issues 24, 25): each dealing action is kept with the pack it dealt
# (`[seat, action, "AS KS ..."]`), `first_pack` (the first deal's pack when a match
# starts dealt, with no cut), `secret` (the room's receipt key), and `write` (the id of
# the last write, which makes a write sent twice land once). Before schema 4 every deal
# came from the seed, and such a room still replays so. `_upgrade` reads every schema.
# Fields added since, read when there and not needed: `moved` (when the room was last
# written, wall-clock seconds) and `ttl` (a slow table's own, in ms: its writes renew its
# keys for that long rather than the store's `ttl_seconds`).

def _not_sent(exc: BaseException) -> bool:
    """The error came while connecting, waiting for a connection, or checking an idle
    one, so nothing of the command reached Redis."""
    if getattr(exc, "piquet_not_sent", False):
        return True
    text = str(exc)
    return ("connecting to" in text or "Timeout connecting" in text
            or "No connection available" in text)


def _connection_class() -> Any:
    """redis-py's connection, whose failed health check (the ping before a command on a
    connection idle for a while: Redis restarted and closed it) is marked as failing
    before the command was sent."""
    from redis.asyncio.connection import Connection

    class CheckedConnection(Connection):
        async def check_health(self) -> None:
            try:
                await super().check_health()  # type: ignore[no-untyped-call]
            except Exception as exc:
                exc.piquet_not_sent = True  # type: ignore[attr-defined]
                raise

    return CheckedConnection


class RedisStore(WritesByKind):
    """Rooms in Redis (the `redis` package's asyncio client), or in a Redis Cluster when
    `cluster` (its cluster client: the keys of a room share a hash tag).

    Per change: one EVALSHA (the stored version checked, the action appended, the version
    set, both keys' expiry renewed), i.e. one round trip; with `replicas` > 0, a WAIT for
    that many replicas in the same round trip, on the same connection.
    """

    name = "redis"
    may_lose_writes = True  # (configured not to, and checked at start: but it may)

    def __init__(self, url: str, *, ttl_seconds: float, owner: str | None = None,
                 max_connections: int = 32, cluster: bool = False, replicas: int = 0,
                 patience: float = 10.0, timeout: float = 5.0,
                 slow_ttl_seconds: float | None = None) -> None:
        """`ttl_seconds`: how long a room is kept after its last write or renewal;
        `slow_ttl_seconds`: a slow table's, after its last write (keep_seconds)."""
        self.url = url
        self.ttl_ms = int(ttl_seconds * 1000)
        self.slow_ttl_ms = int((slow_ttl_seconds or ttl_seconds) * 1000)
        self.owner = owner or process_name()
        self.cluster = cluster
        self.replicas = replicas
        self.patience = patience
        self.wait_ms = int(timeout * 1000)
        self.client: Any
        if cluster:
            from redis.asyncio.cluster import RedisCluster

            self.client = RedisCluster.from_url(
                url, max_connections=max_connections, socket_timeout=timeout,
                socket_connect_timeout=timeout, health_check_interval=1,
                connection_class=_connection_class())
        else:
            import redis.asyncio as aioredis

            # A bounded pool that waits for a free connection (`timeout` at most) rather
            # than failing: with hundreds of rooms writing at once, writes queue. A
            # connection idle for a second is pinged before it is used, so one that Redis
            # closed (a restart) fails before anything of a write is sent on it.
            pool = aioredis.BlockingConnectionPool.from_url(
                url, max_connections=max_connections, timeout=timeout,
                socket_timeout=timeout, socket_connect_timeout=timeout,
                health_check_interval=1, connection_class=_connection_class())
            self.client = aioredis.Redis(connection_pool=pool)
        self.scripts: dict[str, str] = {}
        self.sha: dict[str, str] = {}
        self.add_scripts(SCRIPTS)
        # Counted for /healthz?detail=1: sends again after a lost answer, waits that ran
        # out of patience.
        self.retries = 0
        self.unknown = 0

    def add_scripts(self, scripts: dict[str, str]) -> None:
        """More scripts to `run` by name (the lobby's: app/redis_lobby.py)."""
        self.scripts.update(scripts)
        self.sha.update({name: hashlib.sha1(text.encode()).hexdigest()
                         for name, text in scripts.items()})

    async def run(self, name: str, keys: list[str], args: list[Any]) -> Any:
        """One of `scripts`, as a person waits for it: sent again while its answer is lost
        (the script must be idempotent), for `UNSENT_PATIENCE` at most."""
        return await self._call(name, keys, args, quick=True)

    # --- sending, with the retries that make an unknown outcome known ----------------------

    async def _once(self, name: str, keys: list[str], args: list[Any],
                    wait: bool = False) -> Any:
        """One round trip: the script (loaded first if Redis does not know it), and with
        `wait` a WAIT for the replicas on the same connection. Returns the script's answer;
        raises StoreUnknown-worthy errors to the caller as they come."""
        from redis.exceptions import NoScriptError

        for _ in range(2):
            try:
                if not wait:
                    return await self.client.evalsha(self.sha[name], len(keys), *keys, *args)
                return await self._with_wait(name, keys, args)
            except NoScriptError:
                await self.client.script_load(self.scripts[name])
        raise StoreUnavailable(f"{name}: Redis forgot the script twice")

    async def _with_wait(self, name: str, keys: list[str], args: list[Any]) -> Any:
        if self.cluster:
            await self.client.initialize()  # (once: the slots' owners)
            node = self.client.get_node_from_key(keys[0])
            pipe = self.client.pipeline()
            pipe.execute_command("EVALSHA", self.sha[name], len(keys), *keys, *args,
                                 target_nodes=node)
            pipe.execute_command("WAIT", self.replicas, self.wait_ms, target_nodes=node)
        else:
            pipe = self.client.pipeline(transaction=False)
            pipe.evalsha(self.sha[name], len(keys), *keys, *args)
            pipe.wait(self.replicas, self.wait_ms)
        answer, acked = await pipe.execute(raise_on_error=False)
        if isinstance(answer, Exception):
            raise answer
        if isinstance(acked, Exception) or int(acked) < self.replicas:
            from redis.exceptions import TimeoutError as RedisTimeout

            raise RedisTimeout(f"{acked} of {self.replicas} replicas acknowledged")
        return answer

    async def _call(self, name: str, keys: list[str], args: list[Any], *,
                    waiting: Waiting | None = None, durable: bool = False,
                    quick: bool = False) -> Any:
        """The script, sent again (it is idempotent) until Redis answers or `patience`
        runs out (`quick`: `UNSENT_PATIENCE`). `durable`: a write, waited on by the
        replicas if any. Raises StoreUnavailable if nothing ever reached Redis,
        StoreUnknown if something may have."""
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import RedisClusterException, RedisError
        from redis.exceptions import TimeoutError as RedisTimeout

        started = time.monotonic()
        patience = min(self.patience, UNSENT_PATIENCE) if quick else self.patience
        deadline = started + patience
        unsent_deadline = started + min(self.patience, UNSENT_PATIENCE)
        sent = False
        tries = 0
        while True:
            try:
                return await self._once(name, keys, args, durable and self.replicas > 0)
            except (RedisConnectionError, RedisTimeout, OSError, RuntimeError,
                    AttributeError) as exc:
                # (RuntimeError: the cluster client writing to a node's closed transport;
                # AttributeError: its pipeline writing to a connection a failover has just
                # closed, whose writer is None. Either may have sent the script: unknown.)
                error: BaseException = exc
                sent = sent or not _not_sent(exc)
            except (RedisError, RedisClusterException) as exc:
                # Redis answered with an error (loading, a cluster moving slots, a
                # readonly replica after a failover), or the cluster client knows no
                # node for the slot just now: nothing was applied by this send.
                error = exc
                if self.cluster:
                    with contextlib.suppress(Exception):
                        await self.client.nodes_manager.initialize()  # who serves what now
            tries += 1
            self.retries += 1
            if tries == 1 and waiting is not None:
                waiting()
            now = time.monotonic()
            if now >= deadline or (not sent and now >= unsent_deadline):
                if sent:
                    self.unknown += 1
                    raise StoreUnknown(f"{name}: no answer for {patience:.0f} s "
                                       f"({error}); whether it holds the write is unknown")
                raise StoreUnavailable(f"{name}: {error}")
            # A stale pooled connection (Redis restarted) fails once: try again at once,
            # then back off up to a second.
            await asyncio.sleep(0 if tries < 3 else min(1.0, 0.05 * 2 ** (tries - 3)))

    # --- the contract ------------------------------------------------------------------

    async def create(self, room: StoredRoom) -> None:
        fields: dict[str, str] = {
            "schema": str(SCHEMA),
            "options": _json(room.options),
            "seed": str(room.seed),
            "first_dealer": _seat_text(room.first_dealer),
            "first_pack": " ".join(room.first_pack or ()),
            "rematch": _json(room.rematch),
            "match": str(room.match),
            "version": str(room.version),
            "owner": self.owner,
            "secret": room.secret,
            "moved": repr(room.moved_at or time.time()),
        }
        ttl_ms = keep_seconds(room.options, self.ttl_ms, self.slow_ttl_ms)
        if ttl_ms != self.ttl_ms:
            fields["ttl"] = str(ttl_ms)
        for seat, digest in enumerate(room.seat_hashes):
            if digest is not None:
                fields[f"seat{seat}"] = digest
        args: list[str | int] = [int(ttl_ms), new_write_id()]
        for name, value in fields.items():
            args += [name, value]
        made = await self._call("create", [room_key(room.room_id)], args, durable=True)
        if made != 1:
            raise VersionConflict(f"room {room.room_id} exists")

    async def save(self, room_id: str, change: Change, *,
                   waiting: Waiting | None = None) -> None:
        free = "" if change.free is None else f"seat{change.free}"
        args: list[str | int] = [change.version, self.ttl_ms, change.id]
        moved = repr(change.at)
        if change.kind == "action":
            assert change.entry is not None
            args += ["action", free, moved, encode_entry(change.entry)]
        elif change.kind == "match":
            args += ["match", free, moved, "seed", change.seed, "match", change.match,
                     "first_dealer", _seat_text(change.first_dealer),
                     "first_pack", " ".join(change.first_pack or ()), "rematch", "[]"]
            if change.options is not None:
                args += ["options", _json(change.options)]
            if change.claim is not None:
                args += [f"seat{change.claim[0]}", change.claim[1]]
        else:
            args += ["fields", free, moved, "rematch", _json(list(change.rematch))]
        answer = await self._call("save", [room_key(room_id), actions_key(room_id)], args,
                                  waiting=waiting, durable=True)
        if answer == -3:
            raise SeatTaken(f"room {room_id}: seat {change.free} is taken")
        if answer != 0:
            stored = None if answer == -1 else int(answer)
            told = "gone" if stored is None else f"at version {stored}"
            raise VersionConflict(
                f"room {room_id}: write of version {change.version} refused, the store "
                f"has it {told}", stored)

    async def claim_seat(self, room_id: str, seat: int, token_hash: str) -> bool:
        answer = await self._call("claim", [room_key(room_id)], [f"seat{seat}", token_hash],
                                  durable=True)
        return bool(answer == 1)

    async def load(self, room_id: str) -> StoredRoom | None:
        flat, actions = await self._call(
            "load", [room_key(room_id), actions_key(room_id)], [self.owner, room_id],
            quick=True)
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
        answer = await self._call("own", [room_key(room_id)], [self.owner, room_id],
                                  quick=True)
        return int(answer)

    async def listen(self, hand_over: HandOver) -> None:
        """Until cancelled: call `hand_over(room_id)` whenever another process takes a room
        this one owned. A missed message costs little: this process's next write to that
        room is refused (its version is behind) and it lets go then. (In a cluster, a
        PUBLISH reaches every node, so any node will do.)"""
        await self.subscribe(f"piquet:owner:{self.owner}",
                             lambda data: hand_over(data.decode()))

    async def subscribe(self, channel: str, handle: Callable[[bytes], Awaitable[None]],
                        subscribed: Callable[[], None] | None = None) -> None:
        """Until cancelled: `handle` each message published on `channel`; `subscribed()`
        each time the subscription is made (again, after the channel failed: messages
        published meanwhile were missed)."""
        while True:
            if self.cluster:
                with contextlib.suppress(Exception):
                    await self.client.initialize()  # (the pub/sub picks a node from it)
            pubsub: Any = self.client.pubsub()
            try:
                await pubsub.subscribe(channel)
                if subscribed is not None:
                    subscribed()
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True,
                                                       timeout=1.0)
                    if message is not None and message["type"] == "message":
                        await handle(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("channel %s failed (%r); listening again in 1 s", channel, exc)
                await asyncio.sleep(1)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def delete(self, room_id: str, version: int) -> None:
        await self._call("delete", [room_key(room_id), actions_key(room_id)],
                         [version, self.owner], quick=True)

    async def keep_alive(self, room_ids: Iterable[str]) -> None:
        from redis.exceptions import RedisError

        try:
            async with self.client.pipeline(transaction=False) as pipe:
                for room_id in room_ids:
                    pipe.pexpire(room_key(room_id), self.ttl_ms)
                    pipe.pexpire(actions_key(room_id), self.ttl_ms)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"keep alive: {exc}") from exc

    async def check(self) -> list[str]:
        """What makes a write told to the seats less than durable, for the log at start:
        without replicas to wait for, every node must fsync its append-only file before
        it answers (appendonly yes, appendfsync always)."""
        if self.replicas:
            return []
        from redis.exceptions import RedisError

        try:
            if self.cluster:
                found = await self.client.config_get("append*", target_nodes="primaries")
                answers = found.values() if isinstance(found, dict) and all(
                    isinstance(v, dict) for v in found.values()) else [found]
            else:
                answers = [await self.client.config_get("append*")]
        except (RedisError, OSError) as exc:
            return [f"could not read Redis's configuration ({exc}): check that it runs "
                    f"with appendonly yes and appendfsync always"]
        problems = []
        for conf in answers:
            conf = {_text(k): _text(v) for k, v in conf.items()}
            if conf.get("appendonly") != "yes" or conf.get("appendfsync") != "always":
                problems.append(
                    f"Redis runs with appendonly {conf.get('appendonly')!r}, appendfsync "
                    f"{conf.get('appendfsync')!r}: a Redis crash can take back a move both "
                    f"seats saw. Run it with --appendonly yes --appendfsync always, or set "
                    f"PIQUET_REDIS_REPLICAS to wait for replicas (docs/operating.md).")
        return problems

    async def close(self) -> None:
        await self.client.aclose()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


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
    elif schema in (2, 3, 4):
        options = json.loads(fields["options"])
    else:
        raise ValueError(f"unknown schema {schema}")
    if schema >= 3:
        if fields.get("first_dealer"):
            first_dealer = int(fields["first_dealer"])
        rematch = [int(seat) for seat in json.loads(fields.get("rematch") or "[]")]
    first_pack = tuple(fields.get("first_pack", "").split()) or None
    if first_pack is not None and len(first_pack) != 32:
        raise ValueError(f"a first pack of {len(first_pack)} cards")
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
        actions=[decode_entry(a) for a in actions],
        owner=fields.get("owner", ""),
        first_dealer=first_dealer,
        rematch=rematch,
        first_pack=first_pack,
        secret=fields.get("secret", ""),
        moved_at=float(fields.get("moved") or 0),
    )
