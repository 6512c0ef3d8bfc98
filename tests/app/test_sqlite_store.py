"""Rooms in a SQLite file, the default store (app/sqlite_store.py), against real
`python -m app` processes: the default and the choice of store, a restart that brings
every table back, and the faults (issue 36): `kill -9` while 50 tables play under disk
load, a full disk, a damaged or newer file, and a second process on the same file.
(The store's contract, shared with memory and Redis, is in test_store.py and
test_store_faults.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from livekit import LiveSeat, LiveServer
from storekit import busy_disk, nothing_lost, play_through, sqlite_rooms
from tablekit import (
    FakeClock,
    SeatSocket,
    first_legal,
    join,
    make_client,
    new_room,
    next_move,
    one_move,
)
from websockets.asyncio.client import connect

import engine
import tests.disk
from app.lobby_store import OpenTable
from app.main import settings_store
from app.registry import RoomRegistry
from app.room import CANNOT_SAVE as CANNOT_SAVE_TEXT
from app.settings import ROOT, Settings
from app.sqlite_lobby import SQLiteLobby
from app.sqlite_store import SCHEMA, SQLiteStore
from app.store import (
    StoredRoom,
    StoreUnavailable,
    StoreUnknown,
    change_for_action,
    hash_token,
)

Json = dict[str, Any]
CANNOT_SAVE = CANNOT_SAVE_TEXT.english  # as the seats are told it: in English


def sqlite_env(data: Path, **env: str) -> dict[str, str]:
    return {"PIQUET_STORE": "sqlite", "PIQUET_DATA_DIR": str(data), **env}


def a_room(room_id: str) -> StoredRoom:
    return StoredRoom(room_id, {"opponent": "friend"}, seed=2**64 - 1, match=1, version=1,
                      seat_hashes=[hash_token("maker"), None])


def start_refused(data: Path, tmp_path: Path) -> tuple[int, str]:
    """`python -m app` on `data`, expected to refuse to start: its exit status and what
    it wrote."""
    env = {**LiveServer(tmp_path / "unused.log", **sqlite_env(data)).env}
    done = subprocess.run([sys.executable, "-m", "app"], cwd=ROOT, env=env, timeout=60,
                          capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


# --- the default, and the choice --------------------------------------------------------


def test_with_no_redis_rooms_are_kept_in_a_sqlite_file_in_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("PIQUET_STORE", "PIQUET_REDIS_URL", "PIQUET_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    assert Settings().store_kind == "sqlite"
    assert Settings().data_dir == Path("data")
    assert Settings(redis_url="redis://127.0.0.1:1/0").store_kind == "redis"
    assert Settings(store="memory").store_kind == "memory"
    assert Settings(store="SQLite", redis_url="redis://127.0.0.1:1/0").store_kind == "sqlite"


def test_the_chosen_store_is_the_one_built(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = settings_store(Settings(data_dir=tmp_path / "made"))
        assert isinstance(store, SQLiteStore)
        assert store.path == tmp_path / "made" / "piquet.db" and store.path.exists()
        await store.close()
        assert settings_store(Settings(store="memory", data_dir=tmp_path / "no")) is None
        assert not (tmp_path / "no").exists()

    asyncio.run(scenario())
    with sqlite3.connect(tmp_path / "made" / "piquet.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA


@pytest.mark.parametrize(("env", "said"), [
    ({"PIQUET_STORE": "postgres"}, "PIQUET_STORE: must be sqlite, redis or memory"),
    ({"PIQUET_STORE": "redis"}, "PIQUET_STORE=redis needs PIQUET_REDIS_URL"),
])
def test_a_store_that_is_not_one_is_a_clear_error_at_start(
    env: dict[str, str], said: str, tmp_path: Path
) -> None:
    server = LiveServer(tmp_path / "unused.log", **env)
    done = subprocess.run([sys.executable, "-m", "app"], cwd=ROOT, env=server.env,
                          timeout=60, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert done.stderr.startswith("piquet: cannot start: ") and said in done.stderr


# --- what is kept, and for how long ---------------------------------------------------------


def test_writes_waiting_together_are_committed_together(tmp_path: Path) -> None:
    """A write does not wait for the ones before it to be fsync'd one by one: the writes
    waiting are one commit (what keeps 5,000 tables fast on one disk)."""
    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "piquet.db", ttl_seconds=600)
        await asyncio.gather(*(store.create(a_room(f"r{i}")) for i in range(200)))
        await asyncio.gather(*(store.append(f"r{i}", 2, 0, {"type": "pass"})
                               for i in range(200)))
        assert store.writes == 400
        assert store.commits < 40, store.commits
        loaded = await store.load("r199")
        assert loaded is not None and loaded.version == 2 and loaded.seed == 2**64 - 1
        await store.close()

    asyncio.run(scenario())


def test_a_disk_that_does_not_answer_is_waited_for_within_the_store_s_patience(
    tmp_path: Path,
) -> None:
    """The file is held (another connection's exclusive transaction: as a disk that
    stalls): a write taken by the writer is told, once the patience has run out, that
    whether it was kept is unknown, after the table was told it waits; one still queued
    is told it was not made, and never is. Once the file is free, the first lands."""
    path = tmp_path / "piquet.db"

    async def scenario() -> None:
        store = SQLiteStore(path, ttl_seconds=600, patience=3)
        await store.create(a_room("room-a"))
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        told: list[str] = []
        first = asyncio.ensure_future(store.append("room-a", 2, 0, {"type": "pass"}))
        await asyncio.sleep(0)  # (it is queued)
        while not store.writer.jobs.empty():  # taken by the writer, which waits for the file
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        second = store.save("room-a", change_for_action(3, 1, {"type": "pass"}),
                            waiting=lambda: told.append("waiting"))
        results = await asyncio.gather(first, second, return_exceptions=True)
        assert isinstance(results[0], StoreUnknown), results
        assert type(results[1]) is StoreUnavailable, results
        assert told == ["waiting"]
        holder.execute("ROLLBACK")
        holder.close()
        await asyncio.sleep(0.5)
        loaded = await store.load("room-a")
        assert loaded is not None and loaded.version == 2  # the first, and only it
        await store.close()

    asyncio.run(scenario())


def test_an_expired_room_is_deleted_from_the_file(tmp_path: Path) -> None:
    """A room past its time (idle time and two sweeps after its last write or keep
    alive) is gone to load and to write, and is deleted from the file (`listen`'s purge:
    a room nobody came back to after a restart), rows and actions."""
    clock = FakeClock(1_000_000.0)

    async def scenario() -> None:
        store = SQLiteStore(tmp_path / "piquet.db", ttl_seconds=600, clock=clock)
        for room_id in ("kept", "gone"):
            await store.create(a_room(room_id))
            await store.append(room_id, 2, 0, {"type": "pass"})
        clock.advance(500)
        await store.keep_alive(["kept"])
        clock.advance(101)
        assert await store.load("gone") is None
        assert await store.claim_seat("gone", 1, hash_token("late")) is False
        assert await store.purge() == 1
        assert await store.load("kept") is not None
        await store.close()

    asyncio.run(scenario())
    with sqlite3.connect(tmp_path / "piquet.db") as conn:
        assert conn.execute("SELECT id FROM rooms").fetchall() == [("kept",)]
        assert conn.execute("SELECT count(*) FROM actions").fetchone()[0] == 1


HOUR = 3600.0
DAY = 24 * HOUR


def expiries(path: Path) -> dict[str, float]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return dict(conn.execute("SELECT id, expires FROM rooms").fetchall())


def test_a_slow_room_is_kept_its_days_after_its_last_write_then_purged(tmp_path: Path) -> None:
    """Each room by its own keep, in a batch of writes too: a room played now its idle
    time after its last write or keep alive, a slow one ("Take your time", from when it
    is made or from the options of a new match) its days after its last write; a keep
    alive never brings a slow room's end nearer; the purge deletes each when its time
    is past."""
    clock = FakeClock(1_000_000.0)
    path = tmp_path / "piquet.db"
    slow_options = {"opponent": "friend", "pace": "slow"}

    async def scenario() -> None:
        store = SQLiteStore(path, ttl_seconds=600, slow_ttl_seconds=30 * DAY, clock=clock)
        slow = a_room("slow")
        slow.options = slow_options
        for room in (slow, a_room("now"), a_room("turned")):
            await store.create(room)
        await store.new_match("turned", 2, 2, 5, options=slow_options)
        # Both actions in one batch (the writer held meanwhile by a write that waits).
        go_on = threading.Event()
        held = asyncio.ensure_future(store._write(lambda conn, now: go_on.wait(10)))
        await asyncio.sleep(0)  # (it is queued)
        while not store.writer.jobs.empty():  # taken by the writer, which waits
            await asyncio.sleep(0.01)
        both = asyncio.gather(store.append("slow", 2, 0, {"type": "pass"}),
                              store.append("now", 2, 0, {"type": "pass"}))
        await asyncio.sleep(0.05)
        go_on.set()
        await held
        await both
        assert store.commits == 6  # three made, a match, the write held, the two actions
        now = clock()
        assert expiries(path) == {"slow": now + 30 * DAY, "now": now + 600,
                                  "turned": now + 30 * DAY}
        clock.advance(500)
        await store.keep_alive(["slow", "now", "turned"])
        assert expiries(path) == {"slow": now + 30 * DAY, "now": now + 1100,
                                  "turned": now + 30 * DAY}
        clock.advance(601)
        assert await store.purge() == 1  # the room played now, past its idle time
        assert await store.load("slow") is not None and await store.load("turned") is not None
        clock.advance(30 * DAY - 1102)
        assert await store.purge() == 0
        clock.advance(1)
        assert await store.load("slow") is None
        assert await store.own("turned") == 2  # (written here: known without a read)
        assert await store.purge() == 2
        assert await store.own("turned") == -1  # gone, and said to be
        await store.close()

    asyncio.run(scenario())
    assert expiries(path) == {}


def test_a_slow_table_rests_in_the_file_and_comes_back_after_a_restart_then_goes(
    templates_dir: Path, tmp_path: Path
) -> None:
    """The store the settings build keeps a slow table its days (plus two sweeps) after
    its last write. Nobody having it open for the idle time, it leaves memory and rests
    in the file, past the idle time and the purges; after a restart it comes back as it
    was, "My tables" counting from its last move (three hours ago here); and once its
    days have gone by without a move, the purge deletes it from the file."""
    clock = FakeClock()
    data = tmp_path / "data"
    path = data / "piquet.db"
    settings = {"store": "sqlite", "data_dir": data, "clock": clock, "policy": first_legal,
                "room_idle_seconds": 600, "sweep_interval": 30, "slow_room_days": 30}
    gen = make_client(templates_dir, **settings)
    client = next(gen)
    try:
        rooms: RoomRegistry = client.app.state.rooms  # type: ignore[attr-defined]
        store = rooms.store
        assert isinstance(store, SQLiteStore)
        made = client.post("/api/rooms", json={"opponent": "friend", "pace": "slow"}).json()
        room_id = made["room_id"]
        tokens = [made["token"], join(client, room_id)["token"]]
        seats = [SeatSocket(client, room_id, t) for t in tokens]
        for seat in seats:
            seat.connect()
        one_move(seats, random.Random(3))
        quick = new_room(client, "computer")
        ends = expiries(path)
        assert 30 * DAY < ends[room_id] - time.time() <= 30 * DAY + 60
        assert 0 < ends[quick["room_id"]] - time.time() <= 660
        before = [s.view for s in seats]
        for seat in seats:
            seat.close()
        clock.advance(601)
        client.portal.call(rooms.sweep)  # type: ignore[union-attr]
        assert rooms.get(room_id) is None and rooms.get(quick["room_id"]) is None
        assert client.portal.call(store.purge) == 0  # type: ignore[union-attr]
        assert list(expiries(path)) == [room_id]  # resting in the file alone
    finally:
        gen.close()
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE rooms SET moved = moved - ? WHERE id = ?", (3 * HOUR, room_id))
    gen = make_client(templates_dir, **settings)
    client = next(gen)
    try:
        rooms = client.app.state.rooms  # type: ignore[attr-defined]
        line = client.get(f"/api/rooms/{room_id}/mine",
                          headers={"cookie": f"piquet_seat_{room_id}={tokens[0]}"}).json()
        assert 3 * HOUR <= line["since"] < 4 * HOUR
        back = [SeatSocket(client, room_id, t).connect()["view"] for t in tokens]
        assert [v["hand"] for v in back] == [v["hand"] for v in before]
        store = rooms.store
        assert isinstance(store, SQLiteStore)
        store.clock = lambda: time.time() + 30 * DAY + 61  # its days gone by
        assert client.portal.call(store.purge) == 1  # type: ignore[union-attr]
        assert expiries(path) == {}
    finally:
        gen.close()


def test_a_room_closed_for_idleness_is_deleted_and_no_token_is_in_the_file(
    templates_dir: Path, tmp_path: Path
) -> None:
    """The sweep closes an idle room and deletes it from the file; and while it was
    kept, the file held its seats' token digests, never a token."""
    clock = FakeClock()
    data = tmp_path / "data"
    gen = make_client(templates_dir, store="sqlite", data_dir=data, clock=clock,
                      room_idle_seconds=600)
    client = next(gen)
    try:
        made = new_room(client, "friend")
        friend = client.post(f"/api/rooms/{made['room_id']}/join").json()["token"]
        SeatSocket(client, made["room_id"], friend).connect()
        everything = b"".join(p.read_bytes() for p in data.iterdir()
                              if p.name.startswith("piquet.db"))
        for token in (made["token"], friend):
            assert token.encode() not in everything
            assert hash_token(token).encode() in everything
        rooms: RoomRegistry = client.app.state.rooms  # type: ignore[attr-defined]
        clock.advance(601)
        client.portal.call(rooms.sweep)  # type: ignore[union-attr]
        assert sqlite_rooms(data / "piquet.db")(made["room_id"]) is None
        assert client.get(f"/r/{made['room_id']}").status_code == 404
    finally:
        gen.close()


# --- make run, Ctrl+C, make run ---------------------------------------------------------


async def play_steps(a: LiveSeat, b: LiveSeat, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        who, action = next_move(a, b, rng)  # type: ignore[arg-type]
        before = who.version
        await who.ws.send(who.action_text(action))  # type: ignore[attr-defined]
        for seat in (a, b):
            assert (await seat.expect("state"))["version"] == before + 1


def test_a_restart_brings_every_table_back_where_it_was(tmp_path: Path) -> None:
    """`make run`, Ctrl+C, `make run` again: a friend's table and a computer's, each in
    mid-deal, come back at the same version with the same views (hands, scores, what
    was said and played, what may be done next); the
    sockets were told 1012 (the page reconnects), and play goes on, the computer too."""
    env = sqlite_env(tmp_path / "data")
    server = LiveServer(tmp_path / "server.log", **env).start()
    port = server.port
    try:
        async def before() -> tuple[list[tuple[str, str]], list[Json]]:
            room_id, t0, t1 = server.friend_room()
            made = server.post("/api/rooms", {"opponent": "computer"})
            seats = [await LiveSeat.open(server, room_id, t) for t in (t0, t1)]
            person = await LiveSeat.open(server, made["room_id"], made["token"])
            for seat in (*seats, person):
                await seat.expect("state")
            await play_steps(*seats, random.Random(8), 30)
            while person.view["phase"] not in ("declare", "play"):
                if person.view["legal"] and person.view["to_move"] in (0, None):
                    await person.ws.send(person.action_text(first_legal(person.view)))
                await person.expect("state", timeout=20)
            stopping = asyncio.create_task(asyncio.to_thread(server.stop))
            codes = [(await seat.closed(timeout=15))[0] for seat in (*seats, person)]
            assert codes == [1012, 1012, 1012]
            await stopping
            return ([(room_id, t0), (room_id, t1), (made["room_id"], made["token"])],
                    [s.state for s in (*seats, person)])

        keys, states = asyncio.run(before())
        server = LiveServer(tmp_path / "server2.log", port=port, **env).start()

        async def after() -> None:
            seats = [await LiveSeat.open(server, room_id, token) for room_id, token in keys]
            for seat, was in zip(seats, states, strict=True):
                now = await seat.expect("state")
                assert now["version"] == was["version"]
                assert now["view"] == was["view"]  # hands, scores, what was said, legal
            await play_steps(seats[0], seats[1], random.Random(9), 10)
            person = seats[2]
            version = person.version
            while person.version < version + 4:  # the computer answers
                if person.view["legal"] and person.view["to_move"] in (0, None):
                    await person.ws.send(person.action_text(first_legal(person.view)))
                await person.expect("state", timeout=20)

        asyncio.run(after())
        assert "room loaded" in server.log()
    finally:
        server.kill()


def lobby_lists(server: LiveServer) -> Json:
    """The lobby's lists as a new watcher is first told them (its socket's first message)."""
    async def first() -> Json:
        async with connect(f"{server.ws}/ws/lobby", proxy=None, open_timeout=10) as ws:
            while True:
                frame: Json = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if frame["type"] == "lobby":
                    return frame

    return asyncio.run(first())


def listed_as_playing(server: LiveServer, room_id: str) -> Json:
    """The table as the lobby lists it being played, once it is (a watcher's socket
    read until then: the lobby hears of a room's change just after the change)."""
    async def watch() -> Json:
        playing: dict[str, Json] = {}
        async with connect(f"{server.ws}/ws/lobby", proxy=None, open_timeout=10) as ws:
            while room_id not in playing:
                frame: Json = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if frame["type"] == "lobby":
                    playing.update({t["room_id"]: t for t in frame["playing"]})
        return playing[room_id]

    return asyncio.run(watch())


def browser(server: LiveServer) -> httpx.Client:
    """A browser's cookies (its visitor, its seats), over a restart on the same port."""
    return httpx.Client(base_url=server.http, trust_env=False, timeout=10)


def test_the_lobby_s_open_tables_are_read_back_in_the_order_listed(tmp_path: Path) -> None:
    """Each open table listed, and each gone from the list, is written to the file; a
    lobby made on the file lists what was waiting, oldest first, as it was (the maker's
    browser too), and a table that had waited too long leaves at its first sweep (and
    the file)."""
    clock = FakeClock(1_000_000.0)
    path = tmp_path / "piquet.db"

    def table(room_id: str, since: float) -> OpenTable:
        return OpenTable(room_id, f"Maker of {room_id}", {"game": "rubicon"}, False, since,
                         key="k", address="10.0.0.1", visitor=f"v-{room_id}", look="m")

    async def first() -> None:
        store = SQLiteStore(path, ttl_seconds=600)
        lobby = SQLiteLobby(store, clock)
        for room_id, since in (("recent", 100.0), ("oldest", 900.0), ("taken", 950.0),
                               ("relisted", 950.0)):
            assert await lobby.put(table(room_id, clock() - since), 10)
        assert await lobby.take("taken", "someone", "") == "taken"
        assert await lobby.put(table("relisted", clock() - 10), 10)  # listed again, now
        await lobby.written()
        await store.close()

    async def second() -> None:
        store = SQLiteStore(path, ttl_seconds=600)
        lobby = SQLiteLobby(store, clock)
        assert list(lobby.open) == ["oldest", "recent", "relisted"]
        assert lobby.open["recent"] == table("recent", clock() - 100)
        assert await lobby.take("recent", "v-recent", "") == "own"  # its maker's browser
        assert await lobby.expire(clock() - 800) == ["oldest"]
        await lobby.written()
        await store.close()
        again = SQLiteStore(path, ttl_seconds=600)
        assert list(SQLiteLobby(again, clock).open) == ["recent", "relisted"]
        await again.close()

    asyncio.run(first())
    asyncio.run(second())


def test_the_lobby_s_tables_are_listed_again_after_a_restart(tmp_path: Path) -> None:
    """An open table waiting in the lobby when the server restarts is listed again, as
    waiting since it was first listed, and its maker's page says so; it is still its
    maker's own (their quick game goes there, not to sit against themselves), and a
    stranger sits down at it from the list. A table its maker took out of the list
    stays out, its page saying so. A table being played that anyone may watch is
    listed again once its pages are back."""
    env = sqlite_env(tmp_path / "data")
    server = LiveServer(tmp_path / "server.log", **env).start()
    alice, bob, carol = browser(server), browser(server), browser(server)
    try:
        waiting = alice.post("/api/rooms", json={"opponent": "friend", "seating": "open",
                                                 "name": "Alice"}).json()
        out = bob.post("/api/rooms", json={"opponent": "friend", "seating": "open",
                                           "name": "Bob"}).json()
        bob.cookies.set(f"piquet_seat_{out['room_id']}", out["token"])  # (as the page's)
        assert bob.post(f"/r/{out['room_id']}/listing", json={"listed": False}).json() == {
            "listing": "unlisted"}
        played = carol.post("/api/rooms", json={"opponent": "friend", "seating": "open",
                                                "name": "Carol"}).json()
        dave = bob.post(f"/api/rooms/{played['room_id']}/join", json={"name": "Dave"}).json()
        before = lobby_lists(server)
        assert [t["room_id"] for t in before["open"]] == [waiting["room_id"]]
        assert listed_as_playing(server, played["room_id"])["names"] == ["Carol", "Dave"]
        time.sleep(1.1)  # (waited a second at least before the restart)
        server.stop()
        server = LiveServer(tmp_path / "server2.log", port=server.port, **env).start()

        after = lobby_lists(server)
        assert [t["room_id"] for t in after["open"]] == [waiting["room_id"]]
        assert after["open"][0]["name"] == "Alice" and after["open"][0]["waited"] >= 1
        assert after["playing"] == []  # nobody has it open yet

        async def pages() -> list[Json]:
            seats = [await LiveSeat.open(server, waiting["room_id"], waiting["token"]),
                     await LiveSeat.open(server, out["room_id"], out["token"]),
                     await LiveSeat.open(server, played["room_id"], played["token"]),
                     await LiveSeat.open(server, played["room_id"], dave["token"])]
            states = [await seat.expect("state") for seat in seats]
            for seat in seats:
                await seat.ws.close()
            return states

        states = asyncio.run(pages())
        assert [s["room"]["listing"] for s in states[:2]] == ["listed", "unlisted"]
        assert listed_as_playing(server, played["room_id"])["names"] == ["Carol", "Dave"]
        mine = alice.post("/api/lobby/quick", json={}).json()
        assert mine["room_id"] == waiting["room_id"] and mine["seat"] is None
        sat = carol.post(f"/api/rooms/{waiting['room_id']}/join", json={"name": "Eve"})
        assert sat.status_code == 200 and sat.json()["seat"] == 1
        assert lobby_lists(server)["open"] == []
    finally:
        for client in (alice, bob, carol):
            client.close()
        server.kill()


# --- faults -----------------------------------------------------------------------------------

FRIENDS, COMPUTERS = 40, 10
BEFORE, AFTER = 4.0, 15.0


def test_kill_9_while_50_tables_play_under_disk_load_loses_nothing_told(tmp_path: Path) -> None:
    """50 tables (40 friends', 10 the computer's) play flat out while another process
    writes and fsyncs 8 MiB at a time on the same disk; the server is killed with
    `kill -9` and started again on the same file and port. Every room the file holds,
    replayed, is at least at the highest version any seat was shown, and gives each seat
    at that version the hand it was shown; no seat is shown a version older than one it
    saw; every table plays again."""
    env = sqlite_env(tmp_path / "data", PIQUET_COMPUTER_DELAY="0.05")
    server = LiveServer(tmp_path / "server.log", **env).start()
    stop = threading.Event()
    ballast = threading.Thread(target=busy_disk, args=(tmp_path, stop), daemon=True)
    ballast.start()

    async def kill_and_start_again() -> float:
        nonlocal server
        server.kill()
        server = await asyncio.to_thread(
            LiveServer(tmp_path / "server2.log", port=server.port, **env).start)
        return time.monotonic()

    try:
        reckoning, played, ended = play_through(
            server.ws, kill_and_start_again, friends=FRIENDS, computers=COMPUTERS,
            before=BEFORE, after=AFTER)
        server.kill()
        nothing_lost(sqlite_rooms(tmp_path / "data" / "piquet.db"), reckoning, played, ended,
                     "SQLite: kill -9 under disk load", AFTER)
        assert reckoning.told > 100, "too little play to show anything"
    finally:
        stop.set()
        ballast.join(30)
        server.kill()


small_disk = pytest.fixture(tests.disk.small_disk)


def test_a_full_disk_stops_moves_says_so_to_both_seats_and_loses_nothing(
    tmp_path: Path, small_disk: Path
) -> None:
    """The file is on a real 4 MiB file system (tmpfs), filled up mid-partie. The next
    move that needs the disk is refused to its player, and both seats see exactly "The
    table cannot save: your move was not made", at the version they had: nothing is
    told that is not kept. A computer table stops the same way, its person told too.
    Once space is freed, the same move is made, the message goes, the computer plays
    on, and the file holds every version a seat was shown."""
    data = small_disk / "data"
    server = LiveServer(tmp_path / "server.log", **sqlite_env(data)).start()
    try:
        room_id, t0, t1 = server.friend_room()
        made = server.post("/api/rooms", {"opponent": "computer"})

        async def scenario() -> None:
            a, b = [await LiveSeat.open(server, room_id, t) for t in (t0, t1)]
            person = await LiveSeat.open(server, made["room_id"], made["token"])
            for seat in (a, b, person):
                await seat.expect("state")
            rng = random.Random(4)
            await play_steps(a, b, rng, 6)
            ballast = tests.disk.fill(small_disk)
            refusal, who, action = await move_until_refused(a, b, rng)
            shown = a.version
            assert refusal["code"] == "unavailable" and refusal["message"] == CANNOT_SAVE
            for seat in (a, b):
                assert seat.state["room"]["notice"] == CANNOT_SAVE
                assert seat.version == shown
            # The mover's refusal and the table's news are the same words (its page says
            # them once, as the refusal).
            assert who.state["room"]["notice"] == refusal["message"]
            stopped = await person_until_stopped(person)
            ballast.unlink()  # room again
            await who.ws.send(who.action_text(action))  # the same move, made now
            for seat in (a, b):
                state = await seat.expect("state")
                assert state["version"] == shown + 1 and state["room"]["notice"] is None
            while person.version <= stopped:  # the computer's move, or the person's again
                if person.view["legal"] and person.view["to_move"] in (0, None):
                    await person.ws.send(person.action_text(first_legal(person.view)))
                await person.expect("state", timeout=30)
            assert person.state["room"]["notice"] is None
            for seat in (a, b, person):
                await seat.ws.close()
            kept = sqlite_rooms(data / "piquet.db")
            stored = kept(room_id)
            assert stored is not None and stored.version == a.version
            replayed = engine.replay(stored.seed, stored.actions,
                                     first_dealer=stored.first_dealer, pack=stored.first_pack)
            for seat in (a, b):
                assert engine.view(replayed, seat.seat)["hand"] == seat.view["hand"]
            computer_table = kept(made["room_id"])
            assert computer_table is not None and computer_table.version >= person.version

        asyncio.run(scenario())
        assert "the disk is full" in server.log()
    finally:
        server.kill()


async def move_until_refused(a: LiveSeat, b: LiveSeat,
                             rng: random.Random) -> tuple[Json, LiveSeat, Json]:
    """Moves until one is refused (the log may have room for a few more before it must
    grow): the refusal, who made the move, and the move; both seats have the state
    after it."""
    for _ in range(200):
        mover, action = next_move(a, b, rng)  # type: ignore[arg-type]
        who = a if mover is a else b
        other = b if who is a else a
        before = who.version
        await who.ws.send(who.action_text(action))
        answer = await who.answer()
        if answer["type"] == "error":
            await who.expect("state")
            while other.state["room"]["notice"] != CANNOT_SAVE:
                await other.expect("state")
            return answer, who, action
        assert answer["version"] == before + 1
        await other.expect("state")
    raise AssertionError("200 moves on a full disk and none refused")


async def person_until_stopped(person: LiveSeat) -> int:
    """The person plays against the computer until the table says it cannot save (its
    move refused, or the computer's not kept); the version it stopped at."""
    for _ in range(400):
        if person.state["room"]["notice"] == CANNOT_SAVE:
            return person.version
        if person.view["legal"] and person.view["to_move"] in (0, None):
            await person.ws.send(person.action_text(first_legal(person.view)))
            frame = await person.answer(timeout=20)
            if frame["type"] == "error":
                assert frame["message"] == CANNOT_SAVE, frame
                await person.expect("state")
        else:
            await person.expect("state", timeout=20)  # the computer's move
    raise AssertionError("the computer table never said it cannot save")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def damaged(path: Path) -> None:
    """A file of ours with pages in the middle written over (a disk that lied)."""
    async def made() -> None:
        store = SQLiteStore(path, ttl_seconds=600)
        for i in range(300):
            await store.create(a_room(f"room-{i}"))
            await store.append(f"room-{i}", 2, 0, {"type": "pass", "why": "x" * 200})
        await store.close()

    asyncio.run(made())
    with path.open("r+b") as f:
        f.seek(4096 * 3)
        f.write(bytes(random.Random(1).getrandbits(8) for _ in range(4096 * 4)))


def newer(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE rooms (id TEXT)")
        conn.execute(f"PRAGMA user_version = {SCHEMA + 1}")


def foreign(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")


@pytest.mark.parametrize(("spoil", "said"), [
    (lambda p: p.write_bytes(b"these are not the rooms you are looking for\n" * 200),
     "is damaged or is not a SQLite database"),
    (damaged, "is damaged or is not a SQLite database"),
    (newer, "was written by a newer version of the server"),
    (foreign, "holds tables of something else"),
], ids=["not-sqlite", "damaged", "newer", "foreign"])
def test_a_file_that_is_not_ours_to_use_is_refused_at_start_and_left_alone(
    spoil: Callable[[Path], object], said: str, tmp_path: Path
) -> None:
    """A damaged file, one of a newer schema, or another program's database: the
    server does not start (exit 2), says why in one line naming the file, and leaves
    the file as it was, byte for byte (nothing wiped, nothing made beside it but the
    lock file)."""
    data = tmp_path / "data"
    data.mkdir()
    path = data / "piquet.db"
    spoil(path)

    def files() -> dict[str, str]:
        return {p.name: _sha(p) for p in data.iterdir() if p.name != "piquet.db.lock"}

    before = files()
    code, said_out = start_refused(data, tmp_path)
    assert code == 2, said_out
    line = next(x for x in said_out.splitlines() if x.startswith("piquet: cannot start: "))
    assert said in line and str(path) in line, said_out
    assert files() == before


def test_a_second_server_on_the_same_file_is_refused_and_the_first_plays_on(
    tmp_path: Path,
) -> None:
    """Two processes must not both write one file (each would check versions against
    its own memory): the second refuses to start, naming the file, and the first serves
    on. Once the first has stopped, the second starts and has its tables."""
    data = tmp_path / "data"
    first = LiveServer(tmp_path / "first.log", **sqlite_env(data)).start()
    try:
        room_id, t0, _ = first.friend_room()
        code, said = start_refused(data, tmp_path)
        assert code == 2
        assert f"{data / 'piquet.db'} is in use by another server process" in said, said
        assert first.health()["status"] == "ok"
        assert first.post("/api/rooms", {"opponent": "computer"})["room_id"]
        first.stop()
        second = LiveServer(tmp_path / "second.log", **sqlite_env(data)).start()
        try:
            async def back() -> Json:
                seat = await LiveSeat.open(second, room_id, t0)
                return await seat.expect("state")

            assert asyncio.run(back())["room"]["opponent"] == "friend"
        finally:
            second.kill()
    finally:
        first.kill()


def test_the_backup_command_copies_the_rooms_while_the_server_runs(tmp_path: Path) -> None:
    """`python -m app.backup FILE` (SQLite's online backup): a copy of every room, made
    while the server holds the file, that a server started on it serves."""
    data = tmp_path / "data"
    server = LiveServer(tmp_path / "server.log", **sqlite_env(data)).start()
    try:
        room_id, t0, _ = server.friend_room()
        copy = tmp_path / "backup" / "piquet.db"
        done = subprocess.run([sys.executable, "-m", "app.backup", str(copy)], cwd=ROOT,
                              env=server.env, timeout=60, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith(f"1 rooms copied to {copy}")
        assert sqlite_rooms(copy)(room_id) is not None
    finally:
        server.kill()
    restored = LiveServer(tmp_path / "restored.log", **sqlite_env(copy.parent)).start()
    try:
        async def back() -> Json:
            seat = await LiveSeat.open(restored, room_id, t0)
            return await seat.expect("state")

        assert asyncio.run(back())["version"] >= 1
    finally:
        restored.kill()
