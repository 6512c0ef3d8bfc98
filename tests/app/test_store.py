"""The store for rooms (app/store.py): its contract, in memory, in a real redis-server
started here and in a SQLite file; then, against Redis, what is kept, one writer per
room, tokens never in the clear, expiry, a room of the previous schema, and a room
loaded by a process that never saw it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tablekit import (
    FakeClock,
    SeatSocket,
    TestClient,
    computer_done,
    first_legal,
    friend_table,
    join,
    make_client,
    new_room,
    pick,
    play_computer_partie,
    play_friend_partie,
    room_of,
    serve,
)

import engine
from app.redis_scripts import actions_key, room_key
from app.redis_store import RedisStore
from app.registry import RoomRegistry
from app.sqlite_store import SQLiteStore
from app.store import Change, MemoryStore, RoomStore, StoredRoom, VersionConflict, hash_token
from tests.cluster import Redis
from tests.stacked import AU_CENT, GAME_IN_ONE_PACK

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Redis]:
    server = Redis(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


def redis_store(redis_server: Redis, owner: str = "test", ttl: float = 600) -> RedisStore:
    return RedisStore(redis_server.url, ttl_seconds=ttl, owner=owner)


def a_room(room_id: str = "room-a") -> StoredRoom:
    return StoredRoom(room_id, {"opponent": "friend"}, seed=7, match=1, version=1,
                      seat_hashes=[hash_token("maker"), None])


@pytest.fixture(params=["memory", "redis", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> RoomStore:
    if request.param == "memory":
        return MemoryStore()
    if request.param == "sqlite":
        return SQLiteStore(tmp_path / "data" / "piquet.db", ttl_seconds=600)
    server: Redis = request.getfixturevalue("redis_server")
    server.client().flushall()
    return redis_store(server)


class Stop(Exception):
    pass


def stop_at(steps: int) -> Any:
    def between(step: int) -> None:
        if step == steps:
            raise Stop

    return between


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# --- the store's contract, in memory, in Redis and in SQLite --------------------------------


def test_a_room_is_kept_as_its_seed_actions_version_seats_and_options(store: RoomStore) -> None:
    async def scenario() -> None:
        await store.create(a_room())
        await store.append("room-a", 2, 0, {"type": "choose_dealer", "deal": True,
                                            "label": "I'll deal"})
        await store.append("room-a", 3, 1, {"type": "discard", "cards": ["7H"]})
        assert await store.claim_seat("room-a", 1, hash_token("friend"))
        loaded = await store.load("room-a")
        assert loaded is not None
        assert (loaded.seed, loaded.match, loaded.version) == (7, 1, 3)
        assert loaded.options == {"opponent": "friend"}
        assert loaded.seat_hashes == [hash_token("maker"), hash_token("friend")]
        # In order, and without the label (words are not the rules).
        assert loaded.actions == [(0, {"type": "choose_dealer", "deal": True}, None),
                                  (1, {"type": "discard", "cards": ["7H"]}, None)]
        assert await store.load("no-such-room") is None
        await store.close()

    run(scenario())


def test_play_again_a_rematch_s_first_dealer_and_new_options_are_kept(
    store: RoomStore,
) -> None:
    """Issue 17's changes: a "Play again" press (a change with no action), a new match
    whose first dealer is set (no cut), and a seat given to the computer (new options)."""
    async def scenario() -> None:
        await store.create(a_room())
        await store.rematch("room-a", 2, [1])
        loaded = await store.load("room-a")
        assert loaded is not None and (loaded.version, loaded.rematch) == (2, [1])
        with pytest.raises(VersionConflict):
            await store.rematch("room-a", 2, [0, 1])
        await store.new_match("room-a", 3, 2, 555, first_dealer=0)
        loaded = await store.load("room-a")
        assert loaded is not None
        assert (loaded.seed, loaded.match, loaded.first_dealer, loaded.rematch) == (
            555, 2, 0, [])
        assert loaded.options == {"opponent": "friend"}  # kept when not given
        await store.new_match("room-a", 4, 3, 556,
                              options={"opponent": "computer", "level": "basic"})
        loaded = await store.load("room-a")
        assert loaded is not None and loaded.first_dealer is None
        assert loaded.options == {"opponent": "computer", "level": "basic"}
        await store.close()

    run(scenario())


def test_a_write_not_one_above_the_stored_version_is_refused(store: RoomStore) -> None:
    async def scenario() -> None:
        await store.create(a_room())
        await store.append("room-a", 2, 0, {"type": "pass"})
        for version in (2, 1, 4):  # the same version twice, an old one, one skipped
            with pytest.raises(VersionConflict):
                await store.append("room-a", version, 1, {"type": "pass"})
            with pytest.raises(VersionConflict):
                await store.new_match("room-a", version, 2, 99)
        with pytest.raises(VersionConflict):
            await store.append("gone", 2, 0, {"type": "pass"})
        with pytest.raises(VersionConflict):
            await store.create(a_room())  # a room id is never made twice
        loaded = await store.load("room-a")
        assert loaded is not None and loaded.version == 2 and len(loaded.actions) == 1
        await store.close()

    run(scenario())


def test_a_new_match_keeps_only_its_seed(store: RoomStore) -> None:
    async def scenario() -> None:
        await store.create(a_room())
        await store.append("room-a", 2, 0, {"type": "pass"})
        await store.new_match("room-a", 3, 2, 12345)
        loaded = await store.load("room-a")
        assert loaded is not None
        assert (loaded.seed, loaded.match, loaded.version, loaded.actions) == (12345, 2, 3, [])
        await store.close()

    run(scenario())


def test_a_free_seat_is_given_once(store: RoomStore) -> None:
    async def scenario() -> None:
        await store.create(a_room())
        first, second = await asyncio.gather(
            store.claim_seat("room-a", 1, hash_token("one")),
            store.claim_seat("room-a", 1, hash_token("two")))
        assert sorted([first, second]) == [False, True]
        assert not await store.claim_seat("no-such-room", 1, hash_token("x"))
        await store.close()

    run(scenario())


def test_a_closed_room_is_deleted_only_at_the_version_it_closed(store: RoomStore) -> None:
    async def scenario() -> None:
        room = a_room()
        room.owner = getattr(store, "owner", "")
        await store.create(room)
        await store.append("room-a", 2, 0, {"type": "pass"})
        await store.delete("room-a", 1)  # someone wrote since: not ours to delete
        assert await store.load("room-a") is not None
        await store.delete("room-a", 2)
        assert await store.load("room-a") is None
        await store.close()

    run(scenario())


# --- one writer per room ----------------------------------------------------------------


def test_two_writers_racing_never_both_write_a_version(redis_server: Redis) -> None:
    """Two processes' stores write the same room at once: for each version both send
    their write before either hears back (in a random order). Exactly one is stored each
    time, and the list holds exactly one action per version, the winner's."""
    redis_server.client().flushall()
    order = random.Random(6)

    async def scenario() -> None:
        one, two = redis_store(redis_server, "one"), redis_store(redis_server, "two")
        await one.create(a_room())
        won: dict[str, list[int]] = {"one": [], "two": []}

        async def write(store: RedisStore, version: int) -> None:
            try:
                await store.append("room-a", version, 0, {"type": "play", "card": store.owner})
            except VersionConflict:
                return
            won[store.owner].append(version)

        for version in range(2, 202):
            pair = [one, two]
            order.shuffle(pair)
            await asyncio.gather(*(write(store, version) for store in pair))
        assert sorted(won["one"] + won["two"]) == list(range(2, 202))
        assert won["one"] and won["two"], "one writer always won: no race was tested"
        loaded = await one.load("room-a")
        assert loaded is not None and loaded.version == 201
        by_version = {v: name for name in won for v in won[name]}
        assert [a["card"] for _, a, _ in loaded.actions] == [
            by_version[v] for v in range(2, 202)]
        await one.close()
        await two.close()

    run(scenario())


def two_apps(templates_dir: Path, redis_server: Redis, **kw: Any) -> tuple[
        Iterator[TestClient], Iterator[TestClient]]:
    seeds = random.Random(5)
    return (make_client(templates_dir, redis_url=redis_server.url, policy=first_legal,
                        new_seed=lambda: seeds.getrandbits(64), **kw),
            make_client(templates_dir, redis_url=redis_server.url, policy=first_legal, **kw))


def test_a_process_holding_an_old_copy_cannot_apply_an_action(
    templates_dir: Path, redis_server: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Routes change while a room is open: a seat's socket is on process B, the other
    seat comes to A, and B misses A's word that A took the room (a lost message). A
    applies an action. The seat on B then acts on the version B knows: the store refuses
    it, B lets go of the room (close 1012, "reconnect"), and the action is never applied
    twice; reconnecting finds A's change."""
    redis_server.client().flushall()
    monkeypatch.setattr(RoomRegistry, "hand_over", no_hand_over)
    gen_a, gen_b = two_apps(templates_dir, redis_server)
    a, b = next(gen_a), next(gen_b)
    try:
        made = new_room(b, "friend")
        room_id = made["room_id"]
        tokens = [made["token"], join(b, room_id)["token"]]
        first = SeatSocket(b, room_id, tokens[0]).connect()
        mover = first["view"]["to_move"]
        assert mover in (0, 1)
        on_b = SeatSocket(b, room_id, tokens[mover])
        on_b.connect()
        on_a = SeatSocket(a, room_id, tokens[mover])
        on_a.connect()  # A loads the room and owns it now
        action = pick(on_a.view, random.Random(1))
        on_a.act(action)
        joined = first["version"]  # the friend's arrival made the cut: one change
        assert on_a.expect("state")["version"] == joined + 1  # A applied and stored it
        assert room_of(b, room_id).version == joined  # B's copy is behind
        on_b.act(action, version=joined)
        code, reason = on_b.expect_closed()
        assert code == 1012 and "reconnect" in reason
        stored = redis_server.client().lrange(actions_key(room_id), 0, -1)
        assert len(stored) == 1  # applied once
        again = SeatSocket(b, room_id, tokens[mover]).connect()  # B loads it afresh
        assert again["version"] == joined + 1
    finally:
        for gen in (gen_a, gen_b):
            gen.close()


async def no_hand_over(self: RoomRegistry, room_id: str) -> None:
    pass  # the word that another process took the room was lost


def test_the_process_that_had_a_room_lets_go_when_another_takes_it(
    templates_dir: Path, redis_server: Redis
) -> None:
    """When a seat arrives at another process (a route changed), the process that had the
    room closes its sockets with 1012 at once, so they follow through the proxy, and
    nobody is left looking at a copy that no longer changes."""
    redis_server.client().flushall()
    gen_a, gen_b = two_apps(templates_dir, redis_server)
    a, b = next(gen_a), next(gen_b)
    try:
        made = new_room(b, "friend")
        room_id = made["room_id"]
        tokens = [made["token"], join(b, room_id)["token"]]
        on_b = SeatSocket(b, room_id, tokens[1])
        on_b.connect()
        SeatSocket(a, room_id, tokens[0]).connect()  # A takes the room
        code, reason = on_b.expect_closed()
        assert code == 1012 and "reconnect" in reason
        assert b.app.state.rooms.get(room_id) is None  # type: ignore[attr-defined]
        owner = redis_server.client().hget(room_key(room_id), "owner").decode()
        assert owner == a.app.state.rooms.store.owner  # type: ignore[attr-defined]
        # An operator sees rooms moving between processes (many per action: the proxy
        # does not route by room id).
        assert a.app.state.rooms.moved["loaded"] == 1  # type: ignore[attr-defined]
        assert b.app.state.rooms.moved["let_go"] == 1  # type: ignore[attr-defined]
        operator = {"x-operator-token": "ops"}
        a.app.state.settings = a.app.state.settings.model_copy(  # type: ignore[attr-defined]
            update={"operator_token": "ops"})
        detail = a.get("/healthz", params={"detail": 1}, headers=operator).json()
        assert detail["moved"] == {"loaded": 1, "let_go": 0}
    finally:
        for gen in (gen_a, gen_b):
            gen.close()


# --- what is kept, and for how long -----------------------------------------------------


def test_no_token_is_kept_in_the_clear(templates_dir: Path, redis_server: Redis) -> None:
    redis_server.client().flushall()
    gen = make_client(templates_dir, redis_url=redis_server.url, policy=first_legal)
    client = next(gen)
    try:
        made = new_room(client, "friend")
        friend = join(client, made["room_id"])["token"]
        sock = SeatSocket(client, made["room_id"], friend)
        sock.connect()
        everything = b""
        r = redis_server.client()
        for key in r.keys("*"):
            everything += key
            if r.type(key) == b"hash":
                everything += b"".join(k + v for k, v in r.hgetall(key).items())
            else:
                everything += b"".join(r.lrange(key, 0, -1))
        for token in (made["token"], friend):
            assert token.encode() not in everything
            assert hash_token(token).encode() in everything
        # Nor in this process's memory: the seats keep the digests.
        room = room_of(client, made["room_id"])
        assert [s.token_hash for s in room.seats] == [hash_token(made["token"]),
                                                      hash_token(friend)]
    finally:
        gen.close()


def test_a_room_expires_with_its_keys(templates_dir: Path, redis_server: Redis) -> None:
    redis_server.client().flushall()
    clock = FakeClock()
    gen = make_client(templates_dir, redis_url=redis_server.url, policy=first_legal,
                      clock=clock, room_idle_seconds=600, sweep_interval=30)
    client = next(gen)
    r = redis_server.client()
    try:
        made = new_room(client, "computer")
        key = room_key(made["room_id"])
        sock = SeatSocket(client, made["room_id"], made["token"])
        sock.connect()
        # Idle time plus two sweeps, renewed by every write and every sweep.
        assert 600_000 < r.pttl(key) <= 660_000
        sock.close()
        rooms: RoomRegistry = client.app.state.rooms  # type: ignore[attr-defined]
        clock.advance(601)
        client.portal.call(rooms.sweep)  # type: ignore[union-attr]
        assert r.exists(key, actions_key(made["room_id"])) == 0  # nothing kept
        assert client.get(f"/r/{made['room_id']}").status_code == 404
    finally:
        gen.close()


# --- loading ----------------------------------------------------------------------------


def test_a_process_that_never_saw_a_room_serves_it_as_it_was(
    templates_dir: Path, redis_server: Redis
) -> None:
    """A friend's partie played for a while on one process continues on another (a
    restart, or a move): same seats, hands, scores, log and version."""
    redis_server.client().flushall()
    gen_a, gen_b = two_apps(templates_dir, redis_server)
    a = next(gen_a)
    rng = random.Random(3)
    try:
        made = new_room(a, "friend")
        room_id = made["room_id"]
        tokens = (made["token"], join(a, room_id)["token"])
        seats = [SeatSocket(a, room_id, t) for t in tokens]
        for s in seats:
            s.connect()
        with pytest.raises(Stop):
            play_friend_partie(*seats, rng, between=stop_at(40))
        before = [s.state for s in seats]
        assert before[0]["version"] == 42  # the cut made on joining, then 40 actions
        b = next(gen_b)
        after = [SeatSocket(b, room_id, t).connect() for t in tokens]
        for was, now in zip(before, after, strict=True):
            assert now["version"] == was["version"]
            assert now["view"]["hand"] == was["view"]["hand"]
            assert now["view"]["scores"] == was["view"]["scores"]
            assert now["view"]["log"] == was["view"]["log"]
            assert now["view"]["legal"] == was["view"]["legal"]
            assert now["room"]["seat"] == was["room"]["seat"]
        stranger = SeatSocket(b, room_id, "not-a-seat")
        stranger.open()
        assert stranger.expect_closed()[0] == 4401
    finally:
        gen_a.close()
        gen_b.close()


def test_a_seat_given_to_the_computer_survives_a_restart(
    templates_dir: Path, redis_server: Redis
) -> None:
    """A friend who never came: the maker gives the seat to the computer, and they play
    a while. The process is replaced: the new one serves a computer table (same level,
    same hands and version), the computer plays on, and the link finds no free seat.
    (A computer move stored as the process stopped, before it was installed -- every
    change is stored before anyone is told -- is the new process's: then it serves the
    old state with that one move, the one the old computer makes from it.)"""
    redis_server.client().flushall()
    gen_a, gen_b = two_apps(templates_dir, redis_server)
    a = next(gen_a)
    try:
        made = new_room(a, "friend")
        room_id = made["room_id"]
        maker = SeatSocket(a, room_id, made["token"])
        maker.connect()
        maker.send({"type": "computer_seat", "version": maker.version,
                    "id": maker.next_id(), "level": "basic"})
        assert maker.expect("state")["room"]["opponent"] == "computer"
        play_computer_partie(maker, random.Random(4), until=lambda v: v["phase"] == "play")
        was = room_of(a, room_id)
        gen_a.close()  # the process goes (its computer stops where it was)
        assert was.computer is not None
        b = next(gen_b)
        again = SeatSocket(b, room_id, made["token"])
        now = again.connect()
        room = room_of(b, room_id)
        expected = was.state
        if now["version"] == was.version + 1:  # its move was stored, not yet installed
            _, _, todo = was.computer.look()
            assert todo is not None, "a version more, but the computer had nothing to do"
            expected = engine.apply(was.state, 1, was.computer.policy(todo),
                                    pack=was.setup.new_pack())
        else:
            assert now["version"] == was.version
        assert now["room"]["opponent"] == "computer"
        assert room.opponent == "computer" and room.options == was.options
        assert room.computer is not None and room.computer.level == was.computer.level
        for seat in (0, 1):
            assert engine.view(room.state, seat) == engine.view(expected, seat)
        assert b.post(f"/api/rooms/{room_id}/join").status_code == 409
        # The computer resumes: the partie goes on into the next deal.
        play_computer_partie(again, random.Random(5), until=lambda v: v["deal_number"] >= 2)
    finally:
        gen_a.close()
        gen_b.close()


def test_a_computer_table_keeps_its_level(templates_dir: Path, redis_server: Redis) -> None:
    """A table made against the good computer is still against the good computer when
    another process loads it."""
    redis_server.client().flushall()
    gen_a, gen_b = two_apps(templates_dir, redis_server)
    a = next(gen_a)
    try:
        response = a.post("/api/rooms", json={"opponent": "computer", "level": "good"})
        assert response.status_code == 201, response.text
        room_id = response.json()["room_id"]
        b = next(gen_b)
        state = SeatSocket(b, room_id, response.json()["token"]).connect()
        assert state["room"]["level"] == "good"
        room = room_of(b, room_id)
        assert room.level == "good" and room.computer is not None
        assert room.computer.level == "good"
    finally:
        gen_a.close()
        gen_b.close()


def test_play_again_at_a_friend_s_table_survives_restarts(
    templates_dir: Path, redis_server: Redis
) -> None:
    """A friend's partie ends and one seat presses "Play again"; the process is replaced.
    The press is still there (the other seat sees it, the first may not press twice);
    the other's press starts the rematch, the other seat dealing first (no cut); and a
    process that loads the rematch mid-deal rebuilds that same deal."""
    redis_server.client().flushall()
    gen_a, gen_b = two_apps(templates_dir, redis_server)
    gen_c = make_client(templates_dir, redis_url=redis_server.url, policy=first_legal)
    a = next(gen_a)
    try:
        made = new_room(a, "friend")
        room_id = made["room_id"]
        tokens = (made["token"], join(a, room_id)["token"])
        seats = [SeatSocket(a, room_id, t) for t in tokens]
        for s in seats:
            s.connect()
        play_friend_partie(*seats, random.Random(6))
        first_dealer = room_of(a, room_id).state.first_dealer
        assert first_dealer is not None
        seats[0].send({"type": "new_match", "version": seats[0].version, "id": "again"})
        assert seats[0].expect("state")["room"]["rematch"] == [0]
        pressed = seats[0].version
        gen_a.close()
        b = next(gen_b)
        seats = [SeatSocket(b, room_id, t) for t in tokens]
        for s in seats:
            now = s.connect()
            assert now["version"] == pressed and now["room"]["rematch"] == [0]
            assert now["view"]["phase"] == "partie_over" and now["room"]["can_new_match"]
        seats[0].expect("presence")  # the other seat came back
        seats[0].send({"type": "new_match", "version": pressed, "id": "again2"})
        seats[0].refused("not_allowed")  # its press was kept: not twice
        seats[1].send({"type": "new_match", "version": pressed, "id": "again"})
        fresh = seats[1].expect("state")
        assert fresh["room"]["rematch"] == [] and fresh["view"]["deal_number"] == 1
        assert fresh["view"]["dealer"] == 1 - first_dealer
        seats[0].expect("state")
        with pytest.raises(Stop):
            play_friend_partie(*seats, random.Random(7), between=stop_at(10))
        was = room_of(b, room_id)
        gen_b.close()
        c = next(gen_c)
        after = [SeatSocket(c, room_id, t).connect() for t in tokens]
        room = room_of(c, room_id)
        assert room.version == was.version and room.match == was.match
        assert room.state.first_dealer == 1 - first_dealer
        for seat in (0, 1):
            assert engine.view(room.state, seat) == engine.view(was.state, seat)
            assert after[seat]["view"]["hand"] == engine.view(was.state, seat)["hand"]
    finally:
        for gen in (gen_a, gen_b, gen_c):
            gen.close()


@pytest.mark.parametrize("fixture_file", ["room-schema1.json", "room-schema2.json"])
def test_a_room_stored_by_a_previous_schema_loads(
    templates_dir: Path, redis_server: Redis, fixture_file: str
) -> None:
    """tests/app/fixtures/room-schema1.json: a room as schema 1 kept it (the opponent in
    a field of its own, no options), mid-deal; room-schema2.json, as schema 2 kept it
    (options as JSON, no first dealer, no "Play again"). Each loads, and plays on."""
    r = redis_server.client()
    r.flushall()
    fixture = json.loads((FIXTURES / fixture_file).read_text())
    room_id = fixture["room_id"]
    r.hset(room_key(room_id), mapping=fixture["fields"])
    r.rpush(actions_key(room_id), *fixture["actions"])
    expected = engine.replay(int(fixture["fields"]["seed"]),
                             [json.loads(a) for a in fixture["actions"]])
    gen = make_client(templates_dir, redis_url=redis_server.url, policy=first_legal)
    client = next(gen)
    try:
        sock = SeatSocket(client, room_id, fixture["tokens"][0])
        state = sock.connect()
        assert state["version"] == int(fixture["fields"]["version"])
        assert state["room"]["opponent"] == "friend"
        assert state["view"]["hand"] == engine.view(expected, 0)["hand"]
        assert state["view"]["step"] == engine.view(expected, 0)["step"]
        other = SeatSocket(client, room_id, fixture["tokens"][1]).connect()
        mover = sock if state["view"]["to_move"] == 0 else None
        assert mover is not None or other["view"]["to_move"] == 1
        # It plays on (its next write appends to its action list like any other).
        seat = sock if mover is not None else SeatSocket(client, room_id, fixture["tokens"][1])
        if seat.ws is None:
            seat.connect()
        seat.act(pick(seat.view, random.Random(0), allow_see=False))
        assert seat.expect("state")["version"] == state["version"] + 1
        assert r.llen(actions_key(room_id)) == len(fixture["actions"]) + 1
    finally:
        gen.close()


def test_with_redis_down_an_action_is_refused_and_nothing_changes(
    templates_dir: Path, tmp_path: Path
) -> None:
    """The store does not answer, and nothing reached it: while the action waits, the
    table says so (room.store "waiting", the same version); then a clear error and the
    same state (it was not written, so it was not applied), and the room is still there
    to play on."""
    redis = Redis(tmp_path / "redis").start()
    gen = make_client(templates_dir, redis_url=redis.url, policy=first_legal,
                      store_patience=1.5)
    client = next(gen)
    try:
        room_id, seats = friend_table(client)
        mover = next(s for s in seats if s.view["to_move"] == s.view["seat"] or
                     (s.view["to_move"] is None and s.view["legal"]))
        version = mover.version
        redis.stop()
        # The pool's connections are now idle for over the store's health-check interval:
        # each is pinged before use, so nothing of the action reaches a closed socket.
        time.sleep(1.1)
        mover.act(pick(mover.view, random.Random(4)))
        waiting = []
        refused = mover.recv()
        while refused["type"] != "error":
            if refused["type"] == "state":
                waiting.append(refused)
            refused = mover.recv()
        assert waiting and all(s["version"] == version for s in waiting)
        assert waiting[0]["room"]["store"] == "waiting"
        assert refused["code"] == "unavailable", refused
        assert "nothing changed" in refused["message"]
        after = mover.expect("state")
        assert after["version"] == version and after["room"]["store"] == "ok"
        assert mover.version == version == room_of(client, room_id).version
    finally:
        gen.close()
        redis.stop()


def test_with_redis_down_making_or_opening_a_table_is_a_clear_503(
    templates_dir: Path, tmp_path: Path
) -> None:
    """The store does not answer: a new table (the lobby's form or the API), a table's
    page and a friend's join are each told so with a 503 and a Retry-After, not a 500;
    no room is made. Once Redis is back, tables are made again."""
    redis = Redis(tmp_path / "redis").start()
    gen = make_client(templates_dir, redis_url=redis.url, policy=first_legal)
    client = next(gen)
    try:
        waiting = new_room(client, "friend")["room_id"]
        client.app.state.rooms.rooms.clear()  # as if made by another process: it must be loaded
        redis.stop()
        rooms = client.app.state.rooms
        answers = [
            client.post("/api/rooms", json={"opponent": "computer"}),
            client.post("/rooms", data={"opponent": "friend"}, follow_redirects=False),
            client.get(f"/r/{waiting}"),
            client.post(f"/api/rooms/{waiting}/join"),
            client.post(f"/r/{waiting}/seat"),
        ]
        for answer in answers:
            assert answer.status_code == 503, (answer.request.url, answer.text)
            assert answer.headers["retry-after"] == "5"
            assert "store is not answering" in answer.text
            assert "nothing was made or changed" in answer.text
        assert answers[0].json()["detail"].startswith("The tables' store is not answering")
        assert "text/html" in answers[1].headers["content-type"]  # a page for the form
        assert "text/html" in answers[2].headers["content-type"]
        assert answers[3].headers["content-type"] == "application/json"
        assert len(rooms) == 0
        assert "piquet_seat_" not in answers[1].headers.get("set-cookie", "")

        redis.start()  # the same port, empty: making tables works again
        made = new_room(client, "friend")
        assert len(rooms) == 1 and made["room_id"] != waiting
    finally:
        gen.close()
        redis.stop()


# --- the rules a room is played under (RULES.md §8) ----------------------------------------


def play_first(seats: list[SeatSocket], until: Any) -> None:
    """Both seats make the first move offered (the fewest cards discarded: younger stands
    pat under au cent) until `until(view)` holds for seat 0's view."""
    while not until(seats[0].view):
        mover = next(s for s in seats if [e for e in s.view["legal"] if e["type"] != "see"]
                     and s.view["to_move"] in (s.seat, None))
        mine = [e for e in mover.view["legal"] if e["type"] != "see"]
        before = mover.version
        mover.act(first_legal({**mover.view, "legal": mine}))
        for s in seats:
            while s.expect("state")["version"] == before:
                pass


@pytest.fixture(params=["memory", "redis", "sqlite"])
def restartable(request: pytest.FixtureRequest, templates_dir: Path, tmp_path: Path) -> Any:
    """restartable() -> a new server process's app on the same store (a MemoryStore both
    share, Redis, or a SQLite file), each deal dealt from tests/stacked.py's pack: a game
    in one deal. (With SQLite, the previous app must have stopped: it holds the file.)"""
    shared: dict[str, Any] = {"new_pack": lambda: GAME_IN_ONE_PACK, "policy": first_legal}
    if request.param == "memory":
        shared["store"] = MemoryStore()
    elif request.param == "sqlite":
        shared.update(store="sqlite", data_dir=tmp_path / "data")
    else:
        server: Redis = request.getfixturevalue("redis_server")
        server.client().flushall()
        shared["redis_url"] = server.url
    return lambda: make_client(templates_dir, **shared)


def test_a_room_under_au_cent_and_carte_rouge_keeps_its_rules_through_restarts(
    restartable: Any,
) -> None:
    """A friend's table made under Piquet au cent with carte rouge: a game is won, the
    process is replaced mid-game, and the new one serves the same rules, games and hands;
    the partie goes on to its end under them, and "Play again" keeps them."""
    gen_a = restartable()
    a = next(gen_a)
    made = a.post("/api/rooms", json={"opponent": "friend", "rules": AU_CENT.to_json()})
    room_id, tokens = made.json()["room_id"], [made.json()["token"]]
    tokens.append(join(a, room_id)["token"])
    seats = [SeatSocket(a, room_id, t) for t in tokens]
    for s in seats:
        s.connect()
    # Game 1 is won (a double) in deal 1; deal 2 is under way.
    play_first(seats, lambda v: v["deal_number"] == 2 and v["phase"] == "declare")
    before = [s.view for s in seats]
    assert before[0]["games"]["finished"][0]["double"] and before[0]["games"]["number"] == 2
    gen_a.close()
    gen_b = restartable()
    b = next(gen_b)
    seats = [SeatSocket(b, room_id, t) for t in tokens]
    after = [s.connect()["view"] for s in seats]
    room = room_of(b, room_id)
    assert room.options.rules == AU_CENT and room.state.rules == AU_CENT
    for was, now in zip(before, after, strict=True):
        for key in ("rules", "games", "hand", "scores", "legal", "log"):
            assert now[key] == was[key], key
    play_first(seats, lambda v: v["phase"] == "partie_over")
    assert seats[0].view["result"]["text"] == "4 games to 2"
    # Both press "Play again": the new partie is under the same rules, here and when
    # the next process loads it.
    for presser in seats:
        before = presser.version
        presser.send({"type": "new_match", "version": before, "id": presser.next_id()})
        for s in seats:
            s.expect("state")
    assert all(s.view["phase"] != "partie_over" for s in seats)
    play_first(seats, lambda v: v["deal_number"] == 1 and v["phase"] == "declare")
    assert room_of(b, room_id).state.rules == AU_CENT
    assert all(s.view["rules"] == AU_CENT.to_json() and s.view["games"]["number"] == 1
               for s in seats)
    gen_b.close()
    with contextlib.closing(restartable()) as gen_c:
        c = next(gen_c)
        again = SeatSocket(c, room_id, tokens[0]).connect()["view"]
        assert room_of(c, room_id).options.rules == AU_CENT
        assert again["rules"] == AU_CENT.to_json() and again["hand"] == seats[0].view["hand"]


def test_a_new_match_at_a_computer_table_keeps_its_rules(templates_dir: Path) -> None:
    rules = engine.Rules(cards_towards_pique=True, tie="one_more")
    with serve(templates_dir, policy=first_legal) as client:
        made = client.post("/api/rooms", json={"opponent": "computer", "rules": rules.to_json()})
        sock = SeatSocket(client, made.json()["room_id"], made.json()["token"])
        sock.connect()
        play_computer_partie(sock, random.Random(2), until=lambda v: v["phase"] == "play")
        computer_done(sock, room_of(client, made.json()["room_id"]))  # (its moves, read)
        sock.send({"type": "new_match", "version": sock.version, "id": sock.next_id()})
        while sock.expect("state")["view"]["deal_number"] != 0:
            pass
        assert sock.view["rules"] == rules.to_json()
        assert room_of(client, made.json()["room_id"]).state.rules == rules


# --- a table at its own pace (issue 36) ------------------------------------------------------


def test_a_store_keeps_when_a_room_was_last_written(store: RoomStore) -> None:
    """So a room loaded after a restart knows how long ago its last move was."""
    async def scenario() -> None:
        made = time.time()
        await store.create(a_room())
        loaded = await store.load("room-a")
        assert loaded is not None and loaded.moved_at >= made - 1
        await store.save("room-a", Change(2, "action", entry=(0, {"type": "x"}, None),
                                          at=made - 7200.5))
        loaded = await store.load("room-a")
        assert loaded is not None and loaded.moved_at == made - 7200.5
        await store.close()

    run(scenario())


def test_a_slow_table_keeps_its_pace_through_restarts(restartable: Any) -> None:
    """"Take your time": the pace is one of the room's options, so the store keeps it,
    and the next process serves a slow table, whose seats find it in "My tables"."""
    gen_a = restartable()
    a = next(gen_a)
    made = a.post("/api/rooms", json={"opponent": "friend", "pace": "slow"}).json()
    room_id, tokens = made["room_id"], [made["token"]]
    tokens.append(join(a, room_id)["token"])
    seats = [SeatSocket(a, room_id, t) for t in tokens]
    for s in seats:
        assert s.connect()["room"]["pace"] == "slow"
    play_first(seats, lambda v: v["phase"] == "exchange")
    before = [s.view for s in seats]
    gen_a.close()
    with contextlib.closing(restartable()) as gen_b:
        b = next(gen_b)
        lines = [b.get(f"/api/rooms/{room_id}/mine",
                       headers={"cookie": f"piquet_seat_{room_id}={t}"}).json() for t in tokens]
        assert room_of(b, room_id).options.pace == "slow"
        assert [line["pace"] for line in lines] == ["slow", "slow"]
        assert [line["your_move"] for line in lines] == [
            any(e["type"] != "see" for e in v["legal"]) for v in before]
        after = [SeatSocket(b, room_id, t).connect() for t in tokens]
        assert [s["room"]["pace"] for s in after] == ["slow", "slow"]
        assert [s["view"]["hand"] for s in after] == [v["hand"] for v in before]


def test_redis_keeps_a_slow_table_for_its_days_from_its_last_move(
    templates_dir: Path, redis_server: Redis
) -> None:
    """A slow table's keys live its days after each write, not the idle time, and are not
    renewed by the sweeps; nobody having it open, it leaves the process's memory, kept in
    Redis, and the next visit finds it."""
    redis_server.client().flushall()
    clock = FakeClock()
    gen = make_client(templates_dir, redis_url=redis_server.url, policy=first_legal,
                      clock=clock, room_idle_seconds=600, sweep_interval=30, slow_room_days=30)
    client = next(gen)
    r = redis_server.client()
    days = 30 * 24 * 3600_000
    try:
        rooms: RoomRegistry = client.app.state.rooms  # type: ignore[attr-defined]
        slow = client.post("/api/rooms", json={"opponent": "computer", "pace": "slow"}).json()
        quick = new_room(client, "computer")
        keys = [room_key(slow["room_id"]), actions_key(slow["room_id"])]
        sock = SeatSocket(client, slow["room_id"], slow["token"])
        sock.connect()
        play_computer_partie(sock, random.Random(1), until=lambda v: v["deal_number"] == 1)
        assert all(days < r.pttl(key) <= days + 60_000 for key in keys)
        assert 0 < r.pttl(room_key(quick["room_id"])) <= 660_000
        r.pexpire(keys[0], days - 3600_000)  # an hour gone by
        client.portal.call(rooms.sweep)  # type: ignore[union-attr]
        assert r.pttl(keys[0]) <= days - 3600_000  # not renewed by a sweep
        sock.close()
        clock.advance(601)
        client.portal.call(rooms.sweep)  # type: ignore[union-attr]
        assert rooms.get(quick["room_id"]) is None and r.exists(room_key(quick["room_id"])) == 0
        assert rooms.get(slow["room_id"]) is None  # resting, in Redis alone
        assert r.exists(*keys) == 2
        back = SeatSocket(client, slow["room_id"], slow["token"])
        assert back.connect()["view"]["hand"] == sock.view["hand"]
    finally:
        gen.close()
