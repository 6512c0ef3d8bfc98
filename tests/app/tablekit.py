"""Helpers for the server tests: an app with test settings, a seat's socket, random play
from `legal`, and the leak check (what a seat may see, computed from the engine State)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio

import engine
from app.main import create_app
from app.protocol import server_message_adapter
from app.room import Room
from app.settings import Settings

with warnings.catch_warnings():
    # Starlette asks for httpx2 in its test client; httpx is what we have.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

# Stand-ins for the page engineer's templates: the server tests check the context
# the server passes, not the pages' markup (tests/browser does that).
STAND_INS = {
    "lobby.html": "lobby|{{ name }}|{{ typed }}|{{ name_error }}",
    "rules.html": "rules",
    "table.html": "table|{{ room_id }}|{{ seat }}|{{ opponent }}|{{ room_url }}",
    "message.html": "message|{{ title }}|{{ message }}|{{ action_url }}|{{ action_label }}",
}

Json = dict[str, Any]


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def write_stand_ins(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in STAND_INS.items():
        (directory / name).write_text(text)
    return directory


def settings_for_tests(templates_dir: Path, **overrides: Any) -> Settings:
    """Fast and permissive unless a test says otherwise: no computer delay, no pings,
    rooms in memory (unless the test names a store, or Redis)."""
    values: dict[str, Any] = {
        "templates_dir": templates_dir,
        "computer_delay": 0,
        "computer_exchange_delay": 0,
        "computer_lead_delay": 0,
        "computer_trick_hold": 0,
        "computer_workers": 0,  # levels decide in the loop unless a test asks for the pool
        "teaching_workers": 0,  # hints, reviews, records too
        "ping_interval": 3600,
        "rate_limit_per_second": 100_000,
        "rate_limit_burst": 100_000,
        "rooms_per_minute": 1_000_000,
        "rooms_burst": 1_000_000,
        "rooms_per_address": 1_000_000,  # every test's client is one address
        "max_watchers_per_address": 16,  # every test client is one address
        "lobby_coalesce": 0.01,  # the lobby's news at once (test_lobby checks the coalescing)
    }
    if "store" not in overrides and "redis_url" not in overrides:
        values["store"] = "memory"
    values.update(overrides)
    return Settings(**values)




class History:
    """Every state each room has been in, by version (from the registry's change hook)."""

    def __init__(self) -> None:
        self.states: dict[tuple[str, int], engine.State] = {}

    def record(self, room: Room) -> None:
        self.states[(room.room_id, room.version)] = room.state

    def at(self, room: Room, version: int) -> engine.State:
        return self.states[(room.room_id, version)]

    def deal_states(self, room: Room, deal: int | None, upto: int) -> list[engine.State]:
        """The states of deal `deal` (None: every deal) of the match being played at
        version `upto`: the latest run of versions holding that deal."""
        out: list[engine.State] = []
        for version in range(upto, 0, -1):
            state = self.states.get((room.room_id, version))
            if state is None:
                continue
            if deal is None and state.phase is engine.Phase.PARTIE_OVER and out:
                break  # the match before
            if deal is None or state.deal_number == deal:
                out.append(state)
            elif out:
                break
        return out


def make_client(
    templates_dir: Path, *, history: History | None = None, **kwargs: Any
) -> Iterator[TestClient]:
    # `store`: a setting's name ("sqlite", "redis", "memory"), or a store itself for the app.
    def setting(key: str, value: Any) -> bool:
        return key in Settings.model_fields and (key != "store" or isinstance(value, str))

    settings_overrides = {k: v for k, v in kwargs.items() if setting(k, v)}
    app_kwargs = {k: v for k, v in kwargs.items() if not setting(k, v)}
    if "new_seed" in app_kwargs:
        # A test that fixes the seed means to know the deals: the engine's own packs,
        # from the seed, instead of the secure ones drawn as each deal is dealt.
        app_kwargs.setdefault("new_pack", lambda: None)
    app = create_app(settings_for_tests(templates_dir, **settings_overrides), **app_kwargs)
    if history is not None:
        app.state.rooms.listeners.append(history.record)
    with TestClient(app) as client:
        sockets: list[SeatSocket] = []
        client.sockets = sockets  # type: ignore[attr-defined]
        try:
            yield client
        finally:
            # A session left open would keep the client's event loop from stopping.
            for sock in sockets:
                sock.close()


serve = contextlib.contextmanager(make_client)  # `with serve(templates_dir, ...) as client:`


def new_room(client: TestClient, opponent: str) -> Json:
    response = client.post("/api/rooms", json={"opponent": opponent})
    assert response.status_code == 201, response.text
    body: Json = response.json()
    return body


def join(client: TestClient, room_id: str) -> Json:
    response = client.post(f"/api/rooms/{room_id}/join")
    assert response.status_code == 200, response.text
    body: Json = response.json()
    return body


def friend_seats(client: TestClient) -> tuple[str, SeatSocket, SeatSocket]:
    """A new friend room and a socket for each seat (maker, friend), not yet connected."""
    made = new_room(client, "friend")
    room_id = made["room_id"]
    return (room_id, SeatSocket(client, room_id, made["token"]),
            SeatSocket(client, room_id, join(client, room_id)["token"]))


def friend_table(client: TestClient) -> tuple[str, list[SeatSocket]]:
    """A new friend room, both seats joined and connected: its id and [maker, friend]."""
    room_id, a, b = friend_seats(client)
    a.connect()
    b.connect()
    return room_id, [a, b]


def one_move(seats: list[SeatSocket], rng: random.Random) -> None:
    """One move at a friend's table (the seat to move, or now and then the other asking
    to see), read by both seats."""
    mover, action = next_move(seats[0], seats[1], rng)
    version = mover.version
    mover.act(action)
    for seat in seats:
        while seat.expect("state")["version"] == version:
            pass


def played_room(client: TestClient, rng: random.Random | None = None
                ) -> tuple[str, SeatSocket, SeatSocket]:
    """A friend room, both seats connected, and one move made in it (a room played at)."""
    room_id, seats = friend_table(client)
    one_move(seats, rng or random.Random(1))
    return room_id, seats[0], seats[1]


def room_of(client: TestClient, room_id: str) -> Room:
    room = client.app.state.rooms.get(room_id)  # type: ignore[attr-defined]
    assert room is not None
    return room  # type: ignore[no-any-return]


class HoldsState:
    """A client that keeps the last `state` frame it got: its view, seat and version."""

    state: Json

    @property
    def view(self) -> Json:
        view: Json = self.state["view"]
        return view

    @property
    def seat(self) -> int:
        return int(self.state["room"]["seat"])

    @property
    def version(self) -> int:
        return int(self.state["version"])


class SeatSocket(HoldsState):
    """One seat's WebSocket through the TestClient, keeping every frame it got."""

    def __init__(
        self,
        client: TestClient,
        room_id: str,
        token: str | None,
        *,
        on_frame: Callable[[SeatSocket, Json], None] | None = None,
        headers: dict[str, str] | None = None,
        watch: bool = False,
        query: str = "",
    ) -> None:
        self.client = client
        self.watch = watch  # a watcher's socket: /ws/{room}?watch=1, no seat
        self.query = query  # more of the socket's query string ("seen=...")
        self.room_id = room_id
        self.token = token
        self.on_frame = on_frame
        self.headers = headers or {}
        self.frames: list[Json] = []
        self.state: Json = {}
        self.log: list[Json] = []
        self.ids = 0
        self.ws: WebSocketTestSession | None = None

    def open(self) -> None:
        """Open the socket (the token, if any, as the seat cookie); read nothing yet."""
        headers = dict(self.headers)
        if self.token is not None:
            headers["cookie"] = f"piquet_seat_{self.room_id}={self.token}"
        parts = (["watch=1"] if self.watch else []) + ([self.query] if self.query else [])
        query = "?" + "&".join(parts) if parts else ""
        self.ws = self.client.websocket_connect(f"/ws/{self.room_id}{query}", headers=headers)
        self.ws.__enter__()
        self.client.sockets.append(self)  # type: ignore[attr-defined]

    def connect(self) -> Json:
        """Open the socket; returns the first frame (the state)."""
        self.open()
        return self.expect("state")

    def close(self) -> None:
        if self.ws is not None:
            ws, self.ws = self.ws, None
            ws.__exit__(None, None, None)


    def raw(self, timeout: float = 10) -> dict[str, Any]:
        """The next ASGI message to the client (a frame or a close), or TimeoutError."""
        ws = self.ws
        assert ws is not None

        async def receive() -> dict[str, Any]:
            with anyio.fail_after(timeout):
                # The session's own queue: its receive() has no timeout.
                message: dict[str, Any] = await ws._send_rx.receive()
                return message

        return ws.portal.call(receive)

    def recv(self, timeout: float = 10) -> Json:
        message = self.raw(timeout)
        assert message["type"] == "websocket.send", f"socket closed: {message}"
        frame: Json = json.loads(message["text"])
        # Every frame is one of the protocol's models (the server writes state frames
        # without building the model, for speed): checked here, for every test.
        server_message_adapter.validate_python(frame)
        self.frames.append(frame)
        if frame["type"] == "state":
            self.state = frame
        if self.on_frame is not None:
            self.on_frame(self, frame)  # the frame as it was sent
        if frame["type"] == "state":
            # Keep the log as the page does: the lines come once (docs/protocol.md).
            self.log = list(frame["new_log"]) if frame["log_reset"] else self.log + frame["new_log"]
            frame["view"]["log"] = self.log
        return frame

    def expect(self, kind: str, timeout: float = 10) -> Json:
        """The next frame of this type; presence and ping frames on the way are kept."""
        while True:
            frame = self.recv(timeout)
            if frame["type"] == kind:
                return frame
            if frame["type"] == "error":
                raise AssertionError(f"unexpected error frame: {frame}")

    def expect_closed(self, timeout: float = 10) -> tuple[int, str]:
        """Read up to the server's close; its code and reason."""
        while True:
            message = self.raw(timeout)
            if message["type"] == "websocket.close":
                return int(message.get("code", 1000)), str(message.get("reason", ""))
            self.frames.append(json.loads(message["text"]))

    def send(self, obj: Any) -> None:
        assert self.ws is not None
        self.ws.send_text(obj if isinstance(obj, str) else json.dumps(obj))

    def next_id(self) -> str:
        self.ids += 1
        return f"t{self.seat}-{self.ids}"

    def act(self, action: Json, version: int | None = None, msg_id: str | None = None) -> str:
        msg_id = msg_id or self.next_id()
        self.send(
            {
                "type": "action",
                "version": self.version if version is None else version,
                "id": msg_id,
                "action": action,
            }
        )
        return msg_id

    def refused(self, code: str) -> Json:
        """Read an error of this code and the state that follows it."""
        frame = self.recv()
        assert frame["type"] == "error", frame
        assert frame["code"] == code, frame
        assert frame["message"], frame
        self.after_error(frame)
        return frame

    def after_error(self, error: Json) -> Json:
        """Read up to the state that follows `error`: docs/protocol.md promises one at
        least as new as the error's version (a state owed already may come first, and
        older ones before it). A client that took the first state after an error as the
        truth would fall a frame behind."""
        while True:
            frame = self.recv()
            assert frame["type"] != "error", f"two errors in a row: {error}, then {frame}"
            if frame["type"] == "state" and frame["version"] >= error["version"]:
                return frame

    def answers(self, obj: Any) -> list[Json]:
        """Send `obj`, then a ping; every frame up to the pong. The server reads a
        socket's messages in order and queues the pong behind everything its answer to
        `obj` queued, so these are all of that answer (and whatever else came meanwhile),
        with no wait on silence."""
        self.send(obj)
        return self.barrier()

    def barrier(self) -> list[Json]:
        """Send a ping; every frame up to its pong: all that the server had queued for
        this socket before it read the ping (instead of waiting on a silence)."""
        self.send({"type": "ping"})
        got = []
        while (frame := self.recv())["type"] != "pong":
            got.append(frame)
        return got


# --- random play from `legal` ------------------------------------------------------------


def pick(view: Json, rng: random.Random, *, allow_see: bool = True) -> Json:
    """A random entry of `legal`, as a full action (a discard picks `min` cards)."""
    entries = [e for e in view["legal"] if allow_see or e["type"] != "see"]
    entry = dict(rng.choice(entries))
    entry.pop("label", None)
    if entry["type"] == "discard":
        action: Json = {"type": "discard", "cards": rng.sample(view["hand"], entry["min"])}
        if entry["expose_choice"]:
            action["expose"] = rng.random() < 0.5
        return action
    return entry


def next_move(a: SeatSocket, b: SeatSocket, rng: random.Random) -> tuple[SeatSocket, Json]:
    """Who acts next, and how: the seat to move (now and then the other seat asks to
    see a combination instead); at a deal's end, whoever may press "Deal next hand"."""
    for mover, other in ((a, b), (b, a)):
        if mover.view["to_move"] == mover.seat and mover.view["legal"]:
            sees = [e for e in other.view["legal"] if e["type"] == "see"]
            if sees and rng.random() < 0.2:
                return other, dict(rng.choice(sees))
            return mover, pick(mover.view, rng)
    for seat in (a, b):
        if seat.view["legal"]:
            return seat, pick(seat.view, rng)
    raise AssertionError(f"nobody can act at {a.view['step']}")


def play_friend_partie(
    a: SeatSocket,
    b: SeatSocket,
    rng: random.Random,
    *,
    between: Callable[[int], None] | None = None,
    max_steps: int = 5000,
) -> int:
    """Two seats play from `legal` until the partie is over; returns the actions taken.
    `between(step)` runs before each action (to drop and reconnect a socket, say)."""
    for step in range(max_steps):
        if a.view["phase"] == "partie_over":
            assert b.view["phase"] == "partie_over"
            return step
        if between is not None:
            between(step)
        who, action = next_move(a, b, rng)
        other = b if who is a else a
        before = who.version
        who.act(action)
        assert who.expect("state")["version"] == before + 1, who.frames[-3:]
        assert other.expect("state")["version"] == before + 1
    raise AssertionError("the partie did not end")


def my_turn(view: Json) -> bool:
    """At a computer table: may the person act now (the computer waits on them)?"""
    if not view["legal"]:
        return False
    return view["to_move"] == view["seat"] or view["to_move"] is None


def play_computer_partie(
    human: SeatSocket,
    rng: random.Random,
    *,
    until: Callable[[Json], bool] = lambda view: view["phase"] == "partie_over",
    max_steps: int = 5000,
) -> int:
    """Seat 0 plays from `legal` against the computer until `until(view)` (by default,
    until the partie is over); returns the actions applied.

    The computer moves in its own task and may ask to see a combination while it is
    the person's turn; an action made meanwhile is answered `stale_version`, then a
    state at least as new (checked: `promised_states`), and the person simply chooses
    again from that.
    """
    actions = 0
    for _ in range(max_steps):
        view = human.view
        if until(view):
            return actions
        if not my_turn(view):
            human.recv()
            continue
        before = human.version
        got = human.answers({"type": "action", "version": before, "id": human.next_id(),
                             "action": pick(view, rng, allow_see=False)})
        errors = promised_states(got)
        if errors:
            assert [e["code"] for e in errors] == ["stale_version"], got
            continue
        # Applied: its state came before the pong (the computer's may follow it).
        assert any(f["type"] == "state" and f["version"] > before for f in got), got
        actions += 1
    raise AssertionError("the partie did not end")


def promised_states(frames: list[Json]) -> list[Json]:
    """The errors among `frames`, each checked to be followed by a state at least as new
    as the error's version (docs/protocol.md)."""
    errors = []
    for n, frame in enumerate(frames):
        if frame["type"] == "error":
            errors.append(frame)
            assert any(f["type"] == "state" and f["version"] >= frame["version"]
                       for f in frames[n + 1:]), f"no state after the error: {frames[n:]}"
    return errors


def computer_done(human: SeatSocket, room: Room) -> None:
    """Wait until the computer seat has nothing left to do (its task has ended, found no
    move), then read the person's frames up to the room's version: no silence window."""
    assert human.ws is not None and room.computer is not None
    computer = room.computer

    async def idle() -> None:
        with anyio.fail_after(30):  # a computer that never stops is a failure, not a hang
            while (task := computer._task) is not None and not task.done():
                await asyncio.wait({task})

    human.ws.portal.call(idle)
    while human.version < room.version:
        human.recv()


def first_legal(view: dict[str, object]) -> dict[str, object]:
    """A stand-in computer policy: the first legal entry (a discard of its `min` cards)."""
    legal = view["legal"]
    assert isinstance(legal, list) and legal
    entry = dict(legal[0])
    if entry["type"] == "discard":
        hand = view["hand"]
        assert isinstance(hand, list)
        return {"type": "discard", "cards": hand[: entry["min"]]}
    return entry


# --- what a seat may see -----------------------------------------------------------------

CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:10|[AKQJ987])[SHDC](?![A-Za-z0-9])")


def forbidden_cards(state: engine.State, seat: int) -> set[engine.Card]:
    """Cards `seat` may not see now (RULES.md): the opponent's hand and discards and the
    stock, less what the rules put face up: shown cards, exposed stock, and for elder
    the rest of his five he looked at."""
    other = 1 - seat
    hidden = set(state.hands[other]) | set(state.discards[other]) | set(state.stock)
    visible = {c for shown in state.shown for c in shown.cards}
    visible |= {c for record in state.combos if record.shown for c in record.combo.cards}
    visible |= set(state.exposed)
    if seat == state.elder:
        visible |= set(state.seen_stock)
    return hidden - visible


def forbidden_to_watchers(state: engine.State) -> set[engine.Card]:
    """Cards nobody but a seat may see: both hands and discards and the stock, less what
    the rules put face up (shown, exposed, played)."""
    hidden = set(state.hands[0]) | set(state.hands[1]) | set(state.stock)
    hidden |= set(state.discards[0]) | set(state.discards[1])
    visible = {c for shown in state.shown for c in shown.cards}
    visible |= {c for record in state.combos if record.shown for c in record.combo.cards}
    visible |= set(state.exposed)
    return hidden - visible


def forbidden_to(state: engine.State, seat: int | None) -> set[engine.Card]:
    """What this seat (None: a watcher) may not see."""
    return forbidden_to_watchers(state) if seat is None else forbidden_cards(state, seat)


def leaks_in(text: str, cards: set[engine.Card]) -> set[str]:
    """Card strings or card names in words from `cards` that `text` mentions."""
    strings = {str(c) for c in cards}
    found = {t for t in CARD_TOKEN.findall(text) if t in strings}
    found |= {c.name for c in cards if c.name in text}
    return found


class LeakCheck:
    """Checks every frame a seat gets against what that seat may see at that version.

    Log lines are checked at the frame that brings them (new_log): a line that was fine
    when written (a card shown earlier in the deal) stays in the log the page keeps.
    """

    def __init__(self, client: TestClient, room_id: str, history: History,
                 found: list[str] | None = None) -> None:
        self.room = room_of(client, room_id)
        self.history = history
        self.frames = 0
        # None: a leak fails at once; a list (the benchmark's): each leak is noted there.
        self.found = found

    def leak(self, bad: set[str], what: str) -> None:
        if not bad:
            return
        assert self.found is not None, what
        self.found.append(what)

    def __call__(self, sock: SeatSocket, frame: Json) -> None:
        self.frames += 1
        if frame["type"] == "review" and sock.state:
            self.check_review(sock.state["room"]["seat"], frame, sock.version)
        elif frame["type"] == "state":
            seat = frame["room"]["seat"]
            state = self.history.at(self.room, frame["version"])
            self.check_state(seat, state, frame)
        elif sock.state:
            # Errors and presence: checked against the seat's latest state.
            seat = sock.state["room"]["seat"]
            state = self.history.at(self.room, sock.version)
            bad = leaks_in(json.dumps(frame), forbidden_to(state, seat))
            self.leak(bad, f"seat {seat} was sent {bad} in {frame}")

    def check_review(self, seat: int, frame: Json, upto: int) -> None:
        """A review speaks of a deal already played (its items, its positions; the
        partie's, of every deal): each part is checked against the cards this seat never
        saw in the deal it is about, not against the deal on the table now."""
        def hidden(deal: int | None) -> set[engine.Card]:
            states = self.history.deal_states(self.room, deal, upto)
            assert states, f"a review of deal {deal}, never played"
            return set.intersection(*(forbidden_cards(s, seat) for s in states))

        def walk(node: Any, deal: int | None) -> None:
            if isinstance(node, dict):
                if isinstance(node.get("deal"), int) and node["deal"] > 0:
                    deal = node["deal"]
                for key, value in node.items():
                    if key == "cut":
                        continue  # the cut's two cards were face up before the first deal
                    walk(value, deal)
            elif isinstance(node, list):
                for value in node:
                    walk(value, deal)
            elif isinstance(node, str):
                bad = leaks_in(node, hidden(deal))
                self.leak(bad, f"seat {seat} was sent {bad} in a review of deal {deal}: {node}")

        walk(frame["review"], None)

    def check_state(self, seat: int | None, state: engine.State, frame: Json) -> None:
        """`seat` None: a watcher, who may see only what is public."""
        forbidden = forbidden_to(state, seat)
        view = dict(frame["view"])
        assert "log" not in view, "the log is sent once, as new_log"
        view.pop("cut")  # the cut's two cards were face up before the first deal
        # The room id is random URL-safe text ("x-KD_y..." happens): it names no card.
        room = {k: v for k, v in frame["room"].items() if k != "room_id"}
        rest = {**frame, "view": view, "new_log": [], "room": room}
        bad = leaks_in(json.dumps(rest), forbidden)
        self.leak(bad, f"seat {seat} was sent {bad} at v{frame['version']}: {view}")
        for line in frame["new_log"]:
            if line["kind"] == "cut":
                continue
            bad = leaks_in(line["text"], forbidden)
            self.leak(bad, f"seat {seat} log line {line} shows {bad}")


def checked_friend_partie(
    client: TestClient, history: History, rng: random.Random, *, reconnect_rate: float,
    found: list[str] | None = None,
) -> tuple[int, int]:
    """A friend partie whose every frame goes through LeakCheck, a seat now and then
    dropping and reconnecting (its first frame after is checked like any other).
    Returns the actions taken and the frames checked."""
    room_id, a, b = friend_seats(client)
    check = a.on_frame = b.on_frame = LeakCheck(client, room_id, history, found)
    a.connect()
    b.connect()
    a.expect("presence")

    def now_and_then_reconnect(step: int) -> None:
        if rng.random() < reconnect_rate:
            sock, other = (a, b) if rng.random() < 0.5 else (b, a)
            sock.close()
            other.expect("presence")
            sock.connect()
            other.expect("presence")

    actions = play_friend_partie(a, b, rng, between=now_and_then_reconnect)
    a.close()
    b.close()
    return actions, check.frames
