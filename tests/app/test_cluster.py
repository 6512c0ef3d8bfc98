"""Several app processes behind nginx (deploy/nginx.conf), sharing one redis-server, all
real and started here: a whole partie survives `kill -9` of the process that owns its
room, and two rooms survive a restart of everything but Redis."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tablekit import pick
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

import engine
from app.redis_scripts import actions_key, room_key
from tests.cluster import App, Nginx, Redis
from tests.serverproc import children

Json = dict[str, Any]


class Cluster:
    def __init__(self, workdir: Path, processes: int = 2, room_rate: str | None = "100r/s",
                 **env: str) -> None:
        """`room_rate`: nginx's limit on making rooms, raised for the tests that make
        many (None: as shipped)."""
        self.workdir = workdir
        self.env = env
        self.redis = Redis(workdir / "redis")
        self.apps = [App(workdir / f"app{i}.log", self.redis.url, **env)
                     for i in range(processes)]
        self.nginx = Nginx(workdir / "nginx", [a.port for a in self.apps],
                           room_rate=room_rate)
        try:
            self.redis.start()
            for app in self.apps:
                app.start()
            self.nginx.start()
        except BaseException:
            self.stop()  # nothing left running
            raise

    def owner(self, room_id: str) -> App:
        """The process that last loaded or made the room (its name holds the pid)."""
        name = self.redis.client().hget(room_key(room_id), "owner").decode()
        pid = int(name.split(":")[1])
        return next(a for a in self.apps if a.proc is not None and a.proc.pid == pid)

    def post(self, path: str, body: Any = None) -> Json:
        response = httpx.post(f"{self.nginx.http}{path}", json=body, trust_env=False,
                              timeout=10)
        response.raise_for_status()
        result: Json = response.json()
        return result

    def logs(self) -> str:
        return "\n".join(f"--- app{i}\n{a.log()[-3000:]}" for i, a in enumerate(self.apps))

    def run(self, scenario: Coroutine[Any, Any, None]) -> None:
        """Run a test's scenario; if it fails, print the processes' logs with it."""
        try:
            asyncio.run(scenario)
        except BaseException:
            print(self.logs())
            raise

    def stop(self) -> None:
        self.nginx.stop()
        for app in self.apps:
            app.kill()
        self.redis.stop()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    made = Cluster(tmp_path)
    try:
        yield made
    finally:
        made.stop()


class Seat:
    """One seat's WebSocket through nginx, which reconnects when its server goes away."""

    def __init__(self, base: str, room_id: str, token: str) -> None:
        self.url = f"{base}/ws/{room_id}"
        self.cookie = f"piquet_seat_{room_id}={token}"
        self.ws: ClientConnection | None = None
        self.state: Json = {}
        self.ids = 0
        self.closes: list[int | None] = []
        self.prefix = f"s{random.getrandbits(32):x}"

    @property
    def view(self) -> Json:
        view: Json = self.state["view"]
        return view

    @property
    def version(self) -> int:
        return int(self.state["version"])

    async def connect(self, seconds: float = 30) -> Json:
        """(Re)connect through nginx until a state comes, retrying while no process
        answers; returns that state."""
        deadline = asyncio.get_running_loop().time() + seconds
        while True:
            try:
                self.ws = await connect(self.url, additional_headers={"Cookie": self.cookie},
                                        proxy=None, open_timeout=10)
                return await self.expect_state()
            except (OSError, InvalidStatus, ConnectionClosed, TimeoutError):
                if asyncio.get_running_loop().time() > deadline:
                    raise
                await asyncio.sleep(0.1)

    async def expect_state(self, timeout: float = 15) -> Json:
        assert self.ws is not None
        while True:
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
            if frame["type"] == "ping":
                await self.ws.send('{"type": "pong"}')
            if frame["type"] == "state":
                self.state = frame
                return frame

    async def act(self, action: Json) -> None:
        assert self.ws is not None
        self.ids += 1
        await self.ws.send(json.dumps({"type": "action", "version": self.version,
                                       "id": f"{self.prefix}-{self.ids}", "action": action}))

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


def friend_table(cluster: Cluster) -> tuple[str, list[Seat]]:
    """A friend's room made and joined through nginx: its id and both seats (not yet
    connected)."""
    made = cluster.post("/api/rooms", {"opponent": "friend"})
    room_id = made["room_id"]
    joined = cluster.post(f"/api/rooms/{room_id}/join")
    return room_id, [Seat(cluster.nginx.ws, room_id, made["token"]),
                     Seat(cluster.nginx.ws, room_id, joined["token"])]


def mover_and_action(seats: list[Seat], rng: random.Random) -> tuple[Seat, Json]:
    for seat in seats:
        view = seat.view
        if view["legal"] and view["to_move"] in (view["seat"], None):
            return seat, pick(view, rng, allow_see=False)
    raise AssertionError(f"nobody can act at {seats[0].view['step']}")


async def play(seats: list[Seat], rng: random.Random, applied: list[tuple[int, Json]], *,
               until: Any = lambda view: view["phase"] == "partie_over",
               in_flight: Any = None) -> None:
    """Both seats play from `legal` until `until(seat 0's view)`. Every action this test
    saw applied goes in `applied` (seat, action) in order. When the sockets drop, both
    reconnect: the version they find says whether the action in flight was applied.
    `in_flight(seat 0's view)` runs right after each action is sent, before its answer."""
    for _ in range(3000):
        if until(seats[0].view):
            return
        mover, action = mover_and_action(seats, rng)
        before, by = mover.version, int(mover.view["seat"])
        try:
            await mover.act(action)
            if in_flight is not None:
                in_flight(seats[0].view)
            for seat in seats:
                while seat.version < before + 1:
                    await seat.expect_state()
            assert seats[0].version == seats[1].version == before + 1
            applied.append((by, action))
        except ConnectionClosed:
            for seat in seats:
                with_close = seat.ws.close_code if seat.ws is not None else None
                seat.closes.append(with_close)
                await seat.close()
                await seat.connect()
            assert seats[0].version == seats[1].version
            now = seats[0].version
            assert now in (before, before + 1), (before, now)  # nothing lost, nothing twice
            if now == before + 1:
                applied.append((by, action))
    raise AssertionError("the partie did not end")


def cards_accounted_for(state: engine.State) -> None:
    if state.step.phase not in (engine.Phase.EXCHANGE, engine.Phase.DECLARE,
                                engine.Phase.PLAY):
        return
    cards = [*state.hands[0], *state.hands[1], *state.stock, *state.discards[0],
             *state.discards[1], *(c for c, _ in state.trick),
             *(c for t in state.tricks for c, _ in t.cards)]
    assert len(cards) == len(set(cards)) == 32, state.step


def check_stored(redis: Redis, room_id: str, applied: list[tuple[int, Json]],
                 seats: list[Seat]) -> None:
    """The store holds exactly the actions the seats saw applied, once each, in order; a
    replay of them gives what the seats see; every card is accounted for at every step."""
    r = redis.client()
    stored = [json.loads(a) for a in r.lrange(actions_key(room_id), 0, -1)]
    assert [(e[0], e[1]) for e in stored] == [
        (s, {k: v for k, v in a.items() if k not in ("label", "say")}) for s, a in applied]
    # Each deal's pack is kept with the action that dealt it, and only then.
    dealing = [e for e in stored if e[1]["type"] in ("choose_dealer", "next_deal")]
    assert dealing and all(len(e) == 3 and len(e[2].split()) == 32 for e in dealing)
    assert all(len(e) == 2 for e in stored if e not in dealing)
    # Version 1: the room made; 2: the friend seated and the cut made; then one an action.
    assert int(r.hget(room_key(room_id), "version")) == 2 + len(applied) == seats[0].version
    state = engine.new_partie(int(r.hget(room_key(room_id), "seed")))
    for entry in stored:
        state = engine.apply(state, entry[0], entry[1],
                             pack=entry[2].split() if len(entry) > 2 else None)
        cards_accounted_for(state)
    for seat in seats:
        mine = engine.view(state, int(seat.view["seat"]))
        assert seat.view["hand"] == mine["hand"]
        assert seat.view["scores"] == mine["scores"]
        assert seat.view["step"] == mine["step"]


def test_a_whole_partie_survives_kill_9_of_the_process_that_owns_its_room(
    cluster: Cluster,
) -> None:
    async def scenario() -> None:
        room_id, seats = friend_table(cluster)
        for seat in seats:
            await seat.connect()
        rng = random.Random(11)
        applied: list[tuple[int, Json]] = []
        killed: list[App] = []

        def kill_the_owner(view: Json) -> None:
            # Into the tricks of the second deal, an action on its way: kill -9 the owner
            # (no shutdown, nothing written at the end, no close sent).
            if not killed and view["deal_number"] == 2 and len(view["tricks"]) >= 3:
                killed.append(cluster.owner(room_id))
                killed[0].kill()

        await play(seats, rng, applied, in_flight=kill_the_owner)
        assert killed, "the partie ended before the kill"
        assert seats[0].closes and seats[1].closes  # both saw it, and came back
        survivor = next(a for a in cluster.apps if a is not killed[0])
        assert cluster.owner(room_id) is survivor
        assert seats[0].view["phase"] == "partie_over"
        check_stored(cluster.redis, room_id, applied, seats)
        for seat in seats:
            await seat.close()

    cluster.run(scenario())


def test_a_restart_of_everything_but_redis_mid_deal_and_both_seats_resume(
    tmp_path: Path,
) -> None:
    """A friend's room and a computer's (the computer thinking for 1 s a move): every
    app process and nginx are stopped as a deploy stops them (SIGTERM) and started again;
    the seats reconnect and find the same seat, hand and version, the computer plays on,
    and the friend's partie is played to its end."""
    cluster = Cluster(tmp_path, PIQUET_COMPUTER_DELAY="1.0")

    async def scenario() -> None:
        room_id, seats = friend_table(cluster)
        vs_computer = cluster.post("/api/rooms", {"opponent": "computer"})
        person = Seat(cluster.nginx.ws, vs_computer["room_id"], vs_computer["token"])
        for seat in [*seats, person]:
            await seat.connect()
        rng = random.Random(12)
        applied: list[tuple[int, Json]] = []
        await play(seats, rng, applied, until=lambda v: v["phase"] == "declare")
        # The person plays until it is the computer's turn, and it is thinking.
        while not (person.view["to_move"] == 1 and person.view["phase"] in (
                "exchange", "declare", "play")):
            if person.view["legal"] and person.view["to_move"] in (0, None):
                await person.act(pick(person.view, rng, allow_see=False))
            await person.expect_state()
        computer_turn = person.version

        # A deploy: everything but Redis goes down (SIGTERM: sockets closed with 1012,
        # through nginx), and comes back on the same addresses.
        for app in cluster.apps:
            # A clean shutdown; uvicorn then ends by the signal it was sent (-15).
            assert app.terminate() in (0, -15)
            assert "Application shutdown complete" in app.log()
        for seat in [*seats, person]:
            assert seat.ws is not None
            with pytest.raises(ConnectionClosed):
                while True:  # the last state each seat got before its socket closed
                    await seat.expect_state(timeout=10)
            assert seat.ws.close_code in (1012, 1006)
        codes = [seat.ws.close_code for seat in [*seats, person] if seat.ws is not None]
        # What each seat last saw is what it finds (on a busy machine the computer's move
        # may land before its process is stopped; then the resume below has less to do).
        before = [(s.version, s.view["hand"]) for s in [*seats, person]]
        cluster.nginx.stop()
        for app in cluster.apps:
            app.start()
        cluster.nginx.start()

        for seat, (version, hand) in zip([*seats, person], before, strict=True):
            await seat.close()
            state = await seat.connect()
            assert (state["version"], state["view"]["hand"]) == (version, hand)
        # The computer resumes where it stopped: its move comes, and it is a move on.
        while person.version == computer_turn:
            await person.expect_state()
        assert person.version == computer_turn + 1 or person.view["to_move"] != 1
        await play(seats, rng, applied)
        check_stored(cluster.redis, room_id, applied, seats)
        assert 1012 in codes  # the sockets were told to come back at once
        for seat in [*seats, person]:
            await seat.close()

    try:
        cluster.run(scenario())
    finally:
        cluster.stop()


def test_nginx_sends_every_request_naming_a_room_to_one_process(cluster: Cluster) -> None:
    """Rooms are made by any process; afterwards the table page, the join and the socket
    of a room all reach the one its id hashes to, which then holds it alone (the
    maker's copy is handed over). Rooms spread over both processes."""
    owners = set()
    for _ in range(20):
        made = cluster.post("/api/rooms", {"opponent": "friend"})
        room_id = made["room_id"]
        cookies = {f"piquet_seat_{room_id}": made["token"]}
        for _ in range(3):
            page = httpx.get(f"{cluster.nginx.http}/r/{room_id}", cookies=cookies,
                             trust_env=False, timeout=10)
            assert page.status_code == 200
            owner = cluster.owner(room_id)
            owners.add(owner.port)
        cluster.post(f"/api/rooms/{room_id}/join")
        assert cluster.owner(room_id) is owner
    assert len(owners) == 2  # all 20 on one: a chance of 1 in 500,000
    assert sum(app.rooms() for app in cluster.apps) == 20  # one copy of each


def test_nginx_limits_the_rooms_one_address_makes(tmp_path: Path) -> None:
    """deploy/nginx.conf as shipped: 6 rooms a minute per address, 10 at once: a flood
    is refused with 429 at the proxy, before any app process."""
    cluster = Cluster(tmp_path, processes=1, room_rate=None)
    try:
        codes = [httpx.post(f"{cluster.nginx.http}/api/rooms", json={"opponent": "friend"},
                            trust_env=False, timeout=10).status_code for _ in range(30)]
        assert codes.count(201) <= 12 and codes.count(429) >= 18, codes
        assert cluster.apps[0].rooms() == codes.count(201)
    finally:
        cluster.stop()


def test_a_deploy_lets_both_seats_back_at_once_through_nginx(tmp_path: Path) -> None:
    """A deploy as a service manager does it: nginx lists the new process before it is up
    (requests meanwhile find it refusing and go to the old one), then the new one starts
    and the old one stops (SIGTERM, 1012). Each seat's page tries once at once: both
    tries reach the new process. (nginx counting a process as down for a while after a
    refused connection, and a socket to a process that came back keeping it so, answered
    these tries 502 "no live upstreams", and the page backed off for seconds.)"""
    redis = Redis(tmp_path / "redis").start()
    old = App(tmp_path / "old.log", redis.url).start()
    new = App(tmp_path / "new.log", redis.url)
    nginx = Nginx(tmp_path / "nginx", [old.port, new.port]).start()

    async def scenario() -> None:
        for _ in range(20):  # requests naming no room: about half of them try `new` first
            assert httpx.get(f"{nginx.http}/", trust_env=False, timeout=10).status_code == 200
        made = httpx.post(f"{nginx.http}/api/rooms", json={"opponent": "friend"},
                          trust_env=False, timeout=10).json()
        room_id = made["room_id"]
        joined = httpx.post(f"{nginx.http}/api/rooms/{room_id}/join", trust_env=False,
                            timeout=10).json()
        new.start()
        assert old.terminate() in (0, -15)
        seats = [Seat(nginx.ws, room_id, made["token"]), Seat(nginx.ws, room_id,
                                                               joined["token"])]
        for seat in seats:  # one try each, no retry, the second while the first is open
            seat.ws = await connect(seat.url, additional_headers={"Cookie": seat.cookie},
                                    proxy=None, open_timeout=10)
            await seat.expect_state()
        assert [s.version for s in seats] == [2, 2]
        assert new.rooms() == 1
        for seat in seats:
            await seat.close()

    try:
        asyncio.run(scenario())
    except BaseException:
        print(old.log()[-3000:], new.log()[-3000:],
              (tmp_path / "nginx" / "nginx.log").read_text()[-3000:], sep="\n---\n")
        raise
    finally:
        nginx.stop()
        new.kill()
        old.kill()
        redis.stop()


@pytest.mark.parametrize("level", ["good", "strong"])
def test_a_good_or_strong_computer_resumes_after_a_restart(tmp_path: Path, level: str) -> None:
    """The good and strong levels think in a worker process (the pool, as shipped). At
    the computer's turn the process that holds the room is restarted (SIGTERM, then a
    new process on its address, as a deploy does); the person's socket, told 1012,
    reconnects through nginx to the new process, which loads the room from Redis and
    thinks in a worker process of its own: the computer's move comes, once, and the deal
    is played to its end with the computer answering. The store then holds exactly the
    moves the person saw, and they replay to the person's view."""
    cluster = Cluster(tmp_path, PIQUET_COMPUTER_WORKERS="1", PIQUET_COMPUTER_DELAY="0.2",
                      PIQUET_COMPUTER_PACE="0.2", PIQUET_COMPUTER_LEAD_DELAY="0.2",
                      PIQUET_COMPUTER_TRICK_HOLD="0.2",
                      PIQUET_COMPUTER_EXCHANGE_DELAY="0.2")

    async def scenario() -> None:
        made = cluster.post("/api/rooms", {"opponent": "computer", "level": level})
        room_id = made["room_id"]
        person = Seat(cluster.nginx.ws, room_id, made["token"])
        await person.connect()
        assert person.state["room"]["level"] == level
        rng = random.Random(13)
        # The person plays until it is the computer's turn, in the play of the tricks.
        while not (person.view["to_move"] == 1 and person.view["phase"] == "play"):
            if person.view["legal"] and person.view["to_move"] in (0, None):
                await person.act(pick(person.view, rng, allow_see=False))
            await person.expect_state()
        turn, hand = person.version, person.view["hand"]
        owner = cluster.owner(room_id)
        assert owner.proc is not None
        old_pid = owner.proc.pid
        assert children(old_pid)  # its worker pool

        assert owner.terminate() in (0, -15)  # at once, though its worker may be thinking
        assert person.ws is not None
        with pytest.raises(ConnectionClosed):
            while True:
                await asyncio.wait_for(person.ws.recv(), 10)
        assert person.ws.close_code == 1012
        await person.close()
        owner.start()  # the new process, on the same address
        assert owner.proc.pid != old_pid and not children(owner.proc.pid)  # no pool yet
        state = await person.connect()
        assert state["version"] in (turn, turn + 1)  # the move, if made, was stored first
        if state["version"] == turn:
            assert state["view"]["hand"] == hand
            await person.expect_state()  # the computer's move, from the new process
        assert person.version == turn + 1  # its one move
        moves = cluster.redis.client().lrange(actions_key(room_id), 0, -1)
        assert json.loads(moves[-1])[0] == 1  # the computer's
        assert cluster.owner(room_id) is owner
        assert children(owner.proc.pid)  # it thought in a worker process of its own
        while person.view["phase"] == "play":  # the deal to its end, the computer answering
            if person.view["legal"] and person.view["to_move"] == 0:
                await person.act(pick(person.view, rng, allow_see=False))
            await person.expect_state()
        assert person.view["phase"] in ("deal_over", "partie_over")
        assert "computer seat failed" not in owner.log()

        r = cluster.redis.client()
        assert int(r.hget(room_key(room_id), "version")) == person.version
        replayed = engine.new_partie(int(r.hget(room_key(room_id), "seed")))
        for entry in (json.loads(a) for a in r.lrange(actions_key(room_id), 0, -1)):
            replayed = engine.apply(replayed, entry[0], entry[1],
                                    pack=entry[2].split() if len(entry) > 2 else None)
            cards_accounted_for(replayed)
        mine = engine.view(replayed, 0)
        for key in ("hand", "scores", "step", "tricks"):
            assert person.view[key] == mine[key], key
        await person.close()

    try:
        cluster.run(scenario())
    finally:
        cluster.stop()


class LobbySocket:
    """A lobby socket on one process (or through nginx): the open tables it was told of."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.open: set[str] = set()
        self.playing: set[str] = set()

    @classmethod
    async def on(cls, base: str) -> LobbySocket:
        ws = await connect(f"{base}/ws/lobby", proxy=None, open_timeout=10)
        socket = cls(ws)
        await socket.read()  # the lists, first
        return socket

    async def read(self) -> None:
        frame = json.loads(await asyncio.wait_for(self.ws.recv(), 15))
        if frame["type"] == "ping":
            await self.ws.send('{"type": "pong"}')
        if frame["type"] != "lobby":
            return
        self.open |= {t["room_id"] for t in frame["open"]}
        self.open -= set(frame["gone"])
        self.playing |= {t["room_id"] for t in frame["playing"]}
        self.playing -= set(frame["ended"])

    async def until(self, done: Any) -> None:
        while not done(self):
            await self.read()


def test_two_visitors_on_two_processes_are_paired_and_every_lobby_sees_it(
    cluster: Cluster,
) -> None:
    """Every process's lobby shows the same open tables (the lists in Redis, the changes
    told to every process); a visitor on one process presses "Quick game" and waits, a
    visitor on the other presses it and sits down at that table (taking it is one step in
    Redis), and the two then play through nginx."""

    async def scenario() -> None:
        first, second = cluster.apps
        lobbies = [await LobbySocket.on(app.ws) for app in cluster.apps]
        lobbies.append(await LobbySocket.on(cluster.nginx.ws))
        async with httpx.AsyncClient(trust_env=False, timeout=10) as alice, \
                httpx.AsyncClient(trust_env=False, timeout=10) as bob:
            waiting = (await alice.post(f"{first.http}/api/lobby/quick",
                                        json={"name": "Alice"})).json()
            assert waiting["waiting"] and waiting["seat"] == 0
            room_id = waiting["room_id"]
            for lobby in lobbies:
                await lobby.until(lambda s: room_id in s.open)
            paired = (await bob.post(f"{second.http}/api/lobby/quick",
                                     json={"name": "Bob"})).json()
        assert (paired["room_id"], paired["seat"]) == (room_id, 1)
        for lobby in lobbies:
            await lobby.until(lambda s: room_id not in s.open and room_id in s.playing)
            await lobby.ws.close()
        seats = [Seat(cluster.nginx.ws, room_id, waiting["token"]),
                 Seat(cluster.nginx.ws, room_id, paired["token"])]
        for seat in seats:
            state = await seat.connect()
            assert [s["name"] for s in state["room"]["seats"]] == (
                ["You", "Bob"] if seat is seats[0] else ["Alice", "You"])
        await play(seats, random.Random(14), [],
                   until=lambda view: view["phase"] == "play")
        for seat in seats:
            await seat.close()

    cluster.run(scenario())
