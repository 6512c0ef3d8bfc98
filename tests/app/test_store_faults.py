"""When the store fails (issue 24), against a real redis-server started here: a write sent
twice lands once; an answer lost after the write, or a Redis paused past the timeout, is
found out before the player is answered; a store that lost the last writes gets them
again from the process that made them; a store that lost a version a seat was shown,
with no process left that has it, is not resumed as if nothing happened; a computer
table waits for the store and then plays on; a seat is never both claimed and given to
the computer; and a stored room holds no deal not yet dealt."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from tablekit import (
    SeatSocket,
    first_legal,
    friend_table,
    make_client,
    new_room,
    next_move,
    one_move,
    room_of,
)

import engine
from app.protocol import ComputerSeatMessage
from app.redis_scripts import actions_key, room_key
from app.redis_store import RedisStore
from app.registry import RoomRegistry, random_seed
from app.room_options import RoomOptions
from app.room_setup import RoomSetup
from app.sqlite_store import SQLiteStore
from app.store import (
    Change,
    MemoryStore,
    RoomStore,
    SeatTaken,
    StoredRoom,
    VersionConflict,
    change_for_action,
    hash_token,
)
from app.ws import dispatch
from tests.cluster import Redis
from tests.faultproxy import FaultProxy


@pytest.fixture
def redis(tmp_path: Path) -> Any:
    server = Redis(tmp_path / "redis").start()
    yield server
    server.stop()


def a_room(room_id: str = "room-a") -> StoredRoom:
    return StoredRoom(room_id, {"opponent": "friend"}, seed=7, match=1, version=1,
                      seat_hashes=[hash_token("maker"), None])


def moves(seats: list[SeatSocket], count: int, rng: random.Random) -> None:
    for _ in range(count):
        one_move(seats, rng)


# --- the store's own promises --------------------------------------------------------------


def test_a_write_sent_twice_lands_once(redis: Redis) -> None:
    async def scenario() -> None:
        store = RedisStore(redis.url, ttl_seconds=600)
        await store.create(a_room())
        change = change_for_action(2, 0, {"type": "pass"})
        await store.save("room-a", change)
        await store.save("room-a", change)  # its answer was lost: sent again, kept once
        with pytest.raises(VersionConflict) as refused:
            await store.save("room-a", change_for_action(2, 1, {"type": "pass"}))
        assert refused.value.stored == 2
        loaded = await store.load("room-a")
        assert loaded is not None and loaded.version == 2 and len(loaded.actions) == 1
        await store.close()

    asyncio.run(scenario())


def test_an_answer_lost_after_the_write_is_found_out_not_reported_refused(
    redis: Redis,
) -> None:
    """Redis applied the write and its answer never came (it died then, or the network
    did): the store sends the write again on a new connection, Redis answers that it
    holds it, and the caller is told it was kept, once."""
    proxy = FaultProxy(redis.port).start()

    async def scenario() -> None:
        store = RedisStore(proxy.url, ttl_seconds=600, patience=5)
        await store.create(a_room())
        await store.save("room-a", change_for_action(2, 0, {"type": "pass"}))  # (scripts loaded)
        proxy.lose_answer_to(b"EVALSHA")
        await store.save("room-a", change_for_action(3, 1, {"type": "pass"}))
        assert proxy.lost == 1 and store.retries >= 1
        loaded = await store.load("room-a")
        assert loaded is not None and loaded.version == 3 and len(loaded.actions) == 2
        await store.close()

    try:
        asyncio.run(scenario())
    finally:
        proxy.stop()


def test_a_player_is_told_a_move_was_kept_when_its_answer_was_lost(
    templates_dir: Path, redis: Redis
) -> None:
    """The whole path: the move's write lands, its answer is lost; the player gets the
    new state, not "nothing changed", and the other seat too."""
    proxy = FaultProxy(redis.port).start()
    gen = make_client(templates_dir, redis_url=proxy.url, store_patience=5)
    client = next(gen)
    try:
        room_id, seats = friend_table(client)
        mover, action = next_move(seats[0], seats[1], random.Random(3))
        version = mover.version
        proxy.lose_answer_to(b"EVALSHA")
        mover.act(action)
        for seat in seats:
            while (state := seat.expect("state"))["version"] == version:
                pass
            assert state["version"] == version + 1
        assert proxy.lost == 1
        assert redis.client().llen(actions_key(room_id)) == 1
    finally:
        gen.close()
        proxy.stop()


def test_a_redis_paused_past_the_timeout_keeps_the_move_and_the_player_is_told(
    templates_dir: Path, redis: Redis
) -> None:
    """Redis stops answering (SIGSTOP) for longer than a command's timeout, with the
    move's write already sent: the table says it waits for its store, and once Redis
    runs again the write it held lands, and the player is told the move was kept."""
    gen = make_client(templates_dir, redis_url=redis.url, redis_timeout=0.3,
                      store_patience=10)
    client = next(gen)
    try:
        room_id, seats = friend_table(client)
        mover, action = next_move(seats[0], seats[1], random.Random(5))
        version = mover.version
        redis.pause()
        timer = threading.Timer(1.5, redis.resume)
        timer.start()
        try:
            mover.act(action)
            states = []
            while (state := mover.expect("state", timeout=20))["version"] == version:
                states.append(state)
        finally:
            timer.join()
        assert any(s["room"]["store"] == "waiting" for s in states)
        assert state["version"] == version + 1 and state["room"]["store"] == "ok"
        assert redis.client().llen(actions_key(room_id)) == 1
    finally:
        gen.close()


# --- a store that lost writes -----------------------------------------------------------


def lose_last_writes(redis: Redis, room_id: str, count: int) -> int:
    """Make the store forget its last `count` action writes, as Redis with appendfsync
    everysec did when killed (issue 24); returns the version it is left at."""
    r = redis.client()
    version = int(r.hget(room_key(room_id), "version")) - count
    for _ in range(count):
        r.rpop(actions_key(room_id))
    r.hset(room_key(room_id), mapping={"version": version, "write": "lost"})
    return version


def test_a_store_that_lost_writes_gets_them_again_from_the_process(
    templates_dir: Path, redis: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """The process that made the lost writes still has them: the next write finds the
    store behind, writes them again in order, and goes on. Nobody sees a version go back;
    the store ends holding every move."""
    gen = make_client(templates_dir, redis_url=redis.url)
    client = next(gen)
    try:
        room_id, seats = friend_table(client)
        rng = random.Random(7)
        moves(seats, 6, rng)
        told = seats[0].version
        assert lose_last_writes(redis, room_id, 3) == told - 3
        moves(seats, 2, rng)
        assert all(s.version == told + 2 for s in seats)
        r = redis.client()
        assert int(r.hget(room_key(room_id), "version")) == told + 2
        assert r.llen(actions_key(room_id)) == 8
        assert "writing them again" in caplog.text
    finally:
        gen.close()


def test_a_version_shown_and_lost_everywhere_deals_again_and_says_so(
    templates_dir: Path, redis: Redis
) -> None:
    """No process has the lost writes (the one that made them was restarted too). A seat
    comes back with its receipt for the version it was shown: the room, as stored, is
    older, so the deal is dealt again with a new pack and both seats are told, instead
    of a card shown and then back in a hand to be played again. A receipt that proves
    nothing changes nothing."""
    gen = make_client(templates_dir, redis_url=redis.url)
    client = next(gen)
    try:
        room_id, seats = friend_table(client)
        rng = random.Random(11)
        moves(seats, 3, rng)
        while seats[0].view["phase"] != "play" or not seats[0].view["tricks"]:
            moves(seats, 1, rng)
        shown = seats[0].state
        deal = shown["view"]["deal_number"]
        for seat in seats:
            seat.close()
    finally:
        gen.close()
    kept = lose_last_writes(redis, room_id, 1)
    gen = make_client(templates_dir, redis_url=redis.url)  # a new process: nothing in memory
    client = next(gen)
    try:
        forged = SeatSocket(client, room_id, seats[0].token, query=f"seen={shown['version']}.00")
        assert forged.connect()["version"] == kept  # proves nothing: nothing done
        forged.close()
        back = SeatSocket(client, room_id, seats[0].token,
                          query=f"seen={shown['version']}.{shown['room']['receipt']}")
        state = back.connect()
        assert state["version"] == kept + 1
        assert state["room"]["notice"] and "dealt again" in state["room"]["notice"]
        view = state["view"]
        assert view["deal_number"] == deal and view["tricks"] == [] and view["trick"] is None
        assert view["phase"] == "exchange"
        other = SeatSocket(client, room_id, seats[1].token).connect()
        assert other["room"]["notice"] == state["room"]["notice"]
        stored = [json.loads(a) for a in redis.client().lrange(actions_key(room_id), 0, -1)]
        assert stored[-1][0] == -1 and stored[-1][1] == {"type": "deal_again"}
    finally:
        gen.close()
    gen = make_client(templates_dir, redis_url=redis.url)  # and it replays so
    client = next(gen)
    try:
        again = SeatSocket(client, room_id, seats[0].token).connect()
        assert again["version"] == kept + 1 and again["view"]["hand"] == view["hand"]
    finally:
        gen.close()


# --- the computer waits for the store -------------------------------------------------------


def test_a_computer_table_waits_for_its_store_and_plays_on(
    templates_dir: Path, tmp_path: Path
) -> None:
    """Redis goes down while the computer thinks about its answer to the person's move:
    its move cannot be stored (nothing of it reached Redis), so the table says it is
    waiting for its store, and the computer tries again with backoff, past the store's
    own patience, until Redis is back (restarted, its append-only file kept); then it
    plays, and the table says its store is fine again."""
    redis = Redis(tmp_path / "redis").start()
    gen = make_client(templates_dir, redis_url=redis.url, policy=first_legal,
                      computer_delay=1.5, store_patience=0.5, redis_timeout=0.3)
    client = next(gen)
    try:
        made = new_room(client, "computer")
        person = SeatSocket(client, made["room_id"], made["token"])
        person.connect()
        room = room_of(client, made["room_id"])
        deadline = time.monotonic() + 30
        while not (person.view["to_move"] == 0 and person.view["legal"]
                   and person.view["phase"] in ("exchange", "declare", "play")):
            if person.view["step"] == "choose_dealer" and person.view["legal"]:
                person.act(first_legal(person.view))
            person.expect("state", timeout=20)
            assert time.monotonic() < deadline
        version = person.version
        person.act(first_legal(person.view))
        while person.expect("state")["version"] == version:
            pass  # the person's move is stored and told
        redis.stop()  # the computer is thinking (1.5 s): its pooled connection goes stale
        first_wait = None
        deadline = time.monotonic() + 40
        while person.version < version + 2:
            assert time.monotonic() < deadline, "the computer never moved"
            try:
                frame = person.recv(timeout=0.5)
            except TimeoutError:
                frame = {}
            if frame.get("type") == "state" and frame["room"]["store"] == "waiting":
                first_wait = first_wait or time.monotonic()
            # Back well after the store's own patience ran out: the computer's own
            # retries are what must carry the move.
            if first_wait is not None and not redis.proc_alive() and (
                    time.monotonic() - first_wait > 2):
                redis.start()
        assert first_wait is not None, "the table never said it waited for its store"
        while person.state["room"]["store"] != "ok":
            person.expect("state")
        assert not room.closed
    finally:
        gen.close()
        redis.stop()


# --- a seat changes hands in one step --------------------------------------------------------


class Maker:
    """Seat 0's socket, as far as a room's `submit` uses it."""

    seat = 0
    lang = "en"  # (its words are said in English)

    def __init__(self) -> None:
        self.frames: list[str] = []

    def send_then_state(self, text: str, snapshot: Any) -> None:
        self.frames.append(text)

    def want_state(self, snapshot: Any) -> None:
        pass

    def update(self, snapshot: Any) -> None:
        pass


@pytest.mark.parametrize("mode", ["memory", "redis", "two processes", "sqlite"])
def test_a_seat_is_never_both_claimed_and_given_to_the_computer(
    mode: str, redis: Redis, tmp_path: Path
) -> None:
    """The friend's page claims the seat while the maker gives it to the computer, a few
    milliseconds apart, in either order, 100 times: exactly one of them gets it, here and
    in the store (issue 25: both did in Redis mode, 1 table in 4)."""
    async def race(order: random.Random) -> None:
        stores: list[Any]
        if mode == "memory":
            stores = [None, None]
        elif mode in ("redis", "sqlite"):
            store = (RedisStore(redis.url, ttl_seconds=600) if mode == "redis" else
                     SQLiteStore(tmp_path / "piquet.db", ttl_seconds=600))
            stores = [store, store]
        else:
            stores = [RedisStore(redis.url, ttl_seconds=600, owner="a"),
                      RedisStore(redis.url, ttl_seconds=600, owner="b")]
        registries = [RoomRegistry(RoomSetup(clock=time.monotonic, new_seed=random_seed,
                                             store=s), max_rooms=1000, idle_seconds=600)
                      for s in stores]
        for _ in range(100):
            room, _token = await registries[0].create(RoomOptions("friend"))
            there = room if mode != "two processes" else await registries[1].find(room.room_id)
            assert there is not None
            maker = Maker()
            message = ComputerSeatMessage(type="computer_seat", version=room.version,
                                          id=f"m{order.random()}", level="basic")

            async def give(room: Any, maker: Maker, message: ComputerSeatMessage) -> None:
                await asyncio.sleep(order.random() * 0.002)
                await dispatch(room, maker, message)

            async def claim(there: Any) -> tuple[int, str] | None:
                await asyncio.sleep(order.random() * 0.002)
                return await registries[1].join(there, "203.0.113.9")

            _, claimed = await asyncio.gather(give(room, maker, message), claim(there))
            computer = room.opponent == "computer" and not room.closed
            assert (claimed is None) == computer or (claimed is None and room.closed), (
                claimed, room.opponent, maker.frames)
            if claimed is not None:
                assert room.opponent == "friend" or room.closed
            if mode != "memory":
                stored = await stores[0].load(room.room_id)
                assert stored is not None
                friend = stored.seat_hashes[1] is not None
                assert friend != (stored.options["opponent"] == "computer")
                assert friend == (claimed is not None)
        for s in {id(s): s for s in stores if s is not None}.values():
            await s.close()

    if mode in ("redis", "two processes"):
        redis.client().flushall()
    asyncio.run(race(random.Random(9)))


# --- no deal before it is dealt ------------------------------------------------------------


def test_the_store_holds_no_deal_before_it_is_dealt(templates_dir: Path, redis: Redis) -> None:
    """Whoever reads Redis (a backup, a dump) learns the deals dealt so far and nothing
    more: the seed only cuts, each pack is kept with the action that dealt it, and the
    deal after the current one exists nowhere until "Deal next hand" draws it."""
    gen = make_client(templates_dir, redis_url=redis.url)
    client = next(gen)
    try:
        room_id, seats = friend_table(client)
        rng = random.Random(13)
        while seats[0].view["phase"] != "deal_over":
            moves(seats, 1, rng)
        r = redis.client()
        seed = int(r.hget(room_key(room_id), "seed"))
        stored = [json.loads(a) for a in r.lrange(actions_key(room_id), 0, -1)]
        packs = [e[2] for e in stored if len(e) > 2]
        assert len(packs) == 1  # the first deal's, with the dealer's choice
        assert sorted(packs[0].split()) == sorted(c.code for c in engine.DECK)
        # The seed would have dealt other cards: it is not what dealt them.
        by_seed = engine.replay(seed, [(e[0], e[1]) for e in stored[:1]])
        first = engine.replay(seed, [(e[0], e[1], e[2].split() if len(e) > 2 else None)
                                     for e in stored[:1]])
        assert by_seed.hands != first.hands
        everything = b"".join(v for k in r.keys("*")
                              for v in (r.hvals(k) if r.type(k) == b"hash"
                                        else r.lrange(k, 0, -1)))
        seats[0].act({"type": "next_deal"})
        while seats[0].expect("state")["view"]["deal_number"] == 1:
            pass
        second = seats[0].view["hand"]
        # The second deal's hand was in no stored byte before it was dealt (a pack of 32
        # codes holds every card, so look for the order: the first 2 dealt to elder).
        stored = [json.loads(a) for a in r.lrange(actions_key(room_id), 0, -1)]
        assert len([e for e in stored if len(e) > 2]) == 2
        assert stored[-1][2].encode() not in everything
        assert set(second) <= set(stored[-1][2].split())
    finally:
        gen.close()


# --- every store keeps the same contract ---------------------------------------------------


@pytest.mark.parametrize("kind", ["memory", "redis", "sqlite"])
def test_a_store_refuses_a_seat_taken_and_keeps_a_claim(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A new match that takes a free seat for a friend keeps the claim; one that needs
    that seat free afterwards (giving it to the computer) is refused, writing nothing."""
    async def scenario() -> None:
        store: RoomStore = MemoryStore()
        if kind == "redis":
            store = RedisStore(request.getfixturevalue("redis").url, ttl_seconds=600)
        elif kind == "sqlite":
            store = SQLiteStore(tmp_path / "piquet.db", ttl_seconds=600)
        await store.create(a_room())
        await store.save("room-a", Change(2, "match", match=2, seed=3,
                                          claim=(1, hash_token("friend")), free=1))
        loaded = await store.load("room-a")
        assert loaded is not None and loaded.seat_hashes[1] == hash_token("friend")
        with pytest.raises(SeatTaken):
            await store.save("room-a", Change(3, "match", match=3, seed=4, free=1,
                                              options={"opponent": "computer"}))
        loaded = await store.load("room-a")
        assert loaded is not None and (loaded.version, loaded.match) == (2, 2)
        assert loaded.options == {"opponent": "friend"}
        await store.close()

    asyncio.run(scenario())
