"""A property-based fuzzer (hypothesis) against a live app: random JSON, random field
values, random message types, random orders, oversized and binary frames, random seat
tokens, room ids and origins, mixed with legal play so that every phase is reached.

After every input, both seats' sockets are probed (a ping each, answered in order):
- the server is still up and answers;
- a refused input gets exactly an `error` with a known code (never `internal`) and then
  a `state` at the same version; when it races a change by the other seat (sent before
  either is answered), every error is followed by a state at least as new; a ping gets
  a pong, a pong nothing; a valid legal action gets the next version's state, on both
  seats, equal to the engine's own `apply` (TestClient run);
- a refused input leaves the room's State untouched (the very same object, same
  version) and tells the other seat nothing;
and at the end the room is played to the end of its partie.

Runs: the TestClient (`FUZZ_EXAMPLES`, default 1000) and a real uvicorn over loopback
(`FUZZ_LIVE_EXAMPLES`, default 150), each example 1-6 inputs. A longer run by hand:

    FUZZ_EXAMPLES=5000 FUZZ_LIVE_EXAMPLES=1000 .venv/bin/python -m pytest tests/app/test_fuzz.py -s

prints the number of inputs tried.
"""

from __future__ import annotations

import json
import logging
import os
import random
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from livekit import live_server
from pydantic import ValidationError
from tablekit import (
    HoldsState,
    SeatSocket,
    TestClient,
    join,
    new_room,
    pick,
    promised_states,
    room_of,
    serve,
)
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

import engine
from app.protocol import ActionMessage, NewMatchMessage, client_message_adapter
from app.room import REMEMBERED_IDS

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "1000"))
LIVE_EXAMPLES = int(os.environ.get("FUZZ_LIVE_EXAMPLES", "150"))
MAX_MESSAGE = 4096
Json = dict[str, Any]

CARDS = [f"{rank}{suit}" for rank in ("A", "K", "Q", "J", "10", "9", "8", "7") for suit in "SHDC"]
ACTION_TYPES = ["choose_dealer", "carte_blanche", "discard", "call", "pass", "answer", "play",
                "see", "next_deal"]
REFUSALS = {"bad_json", "bad_message", "unknown_type", "too_large", "stale_version",
            "duplicate_id", "illegal_action", "out_of_turn", "not_allowed"}


# --- what to send ------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=16),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=10,
)
small_ints = st.integers(min_value=-3, max_value=12)
random_action = st.fixed_dictionaries(
    {"type": st.sampled_from(ACTION_TYPES) | st.text(max_size=12)},
    optional={
        "card": st.sampled_from(CARDS) | json_values,
        "cards": st.lists(st.sampled_from(CARDS), max_size=6) | json_values,
        "deal": st.booleans() | json_values,
        "announce": st.booleans() | json_values,
        "take": small_ints | json_values,
        "category": st.sampled_from(["point", "sequence", "set"]) | json_values,
        "reply": st.sampled_from(["good", "not_good", "equal"]) | json_values,
        "combo": small_ints | json_values,
        "expose": st.booleans() | json_values,
        "label": st.text(max_size=20),
        "extra": json_values,
    },
)
versions = st.sampled_from(["current", "previous", "next"]) | st.integers() | json_values
ids = st.sampled_from(["fresh", "used"]) | st.text(max_size=70) | json_values


@dataclass(frozen=True)
class Message:
    """An action / new_match / ping / pong-like object, its fields chosen at send time."""

    type: Any
    version: Any = None  # None: leave the field out
    id: Any = None
    action: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


messages = st.builds(
    Message,
    type=st.sampled_from(["action", "new_match", "ping", "pong"]) | st.text(max_size=12)
    | json_values,
    version=st.none() | versions,
    id=st.none() | ids,
    action=st.none() | random_action | json_values,
    extra=st.dictionaries(st.sampled_from(["extra", "seat", "token", "room"]), json_values,
                          max_size=2) | st.just({}),
)


@dataclass(frozen=True)
class Handshake:
    room: str  # "this", "other" (another live room) or a random id
    token: str  # "none", "this", "other", or a random cookie value
    origin: str  # "none", "own", or a random host


handshakes = st.builds(
    Handshake,
    room=st.sampled_from(["this", "other"]) | st.text("abcXYZ019_-", min_size=1, max_size=24),
    token=st.sampled_from(["none", "this", "other"])
    | st.text("abcdefXYZ0123456789_-=", max_size=40),
    origin=st.sampled_from(["none", "own"]) | st.text("abcdefxyz.", min_size=1, max_size=20),
)

# Well-formed messages with plausible actions, to reach the room's and the engine's checks.
plausible_action = st.fixed_dictionaries(
    {"type": st.sampled_from(ACTION_TYPES)},
    optional={
        "card": st.sampled_from(CARDS),
        "cards": st.lists(st.sampled_from(CARDS), max_size=6, unique=True),
        "deal": st.booleans(),
        "announce": st.booleans(),
        "take": st.integers(min_value=0, max_value=6),
        "category": st.sampled_from(["point", "sequence", "set"]),
        "reply": st.sampled_from(["good", "not_good", "equal"]),
        "combo": st.integers(min_value=0, max_value=8),
        "expose": st.booleans(),
    },
)
plausible = st.builds(
    Message,
    type=st.just("action"),
    version=st.sampled_from(["current", "current", "current", "previous", "next"]),
    id=st.sampled_from(["fresh", "fresh", "fresh", "used"]),
    action=plausible_action,
) | st.builds(
    Message,
    type=st.just("new_match"),
    version=st.sampled_from(["current", "previous"]),
    id=st.sampled_from(["fresh", "used"]),
)

# One input: (kind, payload). Legal play is mixed in so the fuzz reaches every phase.
inputs = st.one_of(
    st.tuples(st.just("text"), st.text(max_size=300)),
    st.tuples(st.just("json"), json_values),
    st.tuples(st.just("message"), messages),
    st.tuples(st.just("message"), plausible),
    st.tuples(st.just("message"), plausible),
    st.tuples(st.just("legal"), st.none()),
    st.tuples(st.just("legal"), st.none()),
    st.tuples(st.just("legal_by_other"), st.none()),
    st.tuples(st.just("replay"), st.none()),
    st.tuples(st.just("race"), plausible),
    st.tuples(st.just("race"), messages),
    st.tuples(st.just("big"), st.integers(min_value=MAX_MESSAGE + 1, max_value=20_000)),
    st.tuples(st.just("binary"), st.binary(max_size=64) | st.binary(min_size=MAX_MESSAGE + 1,
                                                                     max_size=6000)),
    st.tuples(st.just("handshake"), handshakes),
)
steps = st.lists(st.tuples(st.integers(0, 1), inputs), min_size=1, max_size=6)


# --- one seat's socket, over the TestClient or a real server ------------------------------


class Closed(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(code)
        self.code = code


TRACE: list[str] = []  # the latest inputs and frames, shown when a check fails


class Link(HoldsState):
    """One seat's socket: raw sends, and frames received (the log kept as the page does)."""

    def __init__(self) -> None:
        self.state: Json = {}

    def send_text(self, text: str) -> None:
        raise NotImplementedError

    def send_bytes(self, data: bytes) -> None:
        raise NotImplementedError

    def recv_text(self, timeout: float) -> str:
        raise NotImplementedError

    def recv(self, timeout: float = 10) -> Json:
        frame: Json = json.loads(self.recv_text(timeout))
        TRACE.append(f"  seat {self.state.get('room', {}).get('seat')} got {frame['type']} "
                     f"v{frame.get('version')} {frame.get('code', '')}")
        del TRACE[:-40]
        if frame["type"] == "state":
            self.state = frame
        return frame


    def replies(self, pongs: int = 1) -> list[Json]:
        """Send a ping; every frame up to its pong (the `pongs`-th), presence left out."""
        self.send_text('{"type": "ping"}')
        got: list[Json] = []
        while True:
            frame = self.recv()
            if frame["type"] == "pong":
                pongs -= 1
                if pongs == 0:
                    return got
            elif frame["type"] not in ("presence", "ping"):
                got.append(frame)


class InProcessLink(Link):
    def __init__(self, client: TestClient, room_id: str, token: str) -> None:
        super().__init__()
        self.sock = SeatSocket(client, room_id, token)
        self.sock.open()
        self.recv()

    def send_text(self, text: str) -> None:
        self.sock.send(text)

    def send_bytes(self, data: bytes) -> None:
        assert self.sock.ws is not None
        self.sock.ws.send_bytes(data)

    def recv_text(self, timeout: float) -> str:
        message = self.sock.raw(timeout)
        if message["type"] == "websocket.close":
            raise Closed(message.get("code"))
        return str(message["text"])


class LiveLink(Link):
    def __init__(self, ws_base: str, room_id: str, token: str) -> None:
        super().__init__()
        headers = {"Cookie": f"piquet_seat_{room_id}={token}"}
        self.ws: ClientConnection = connect(
            f"{ws_base}/ws/{room_id}", additional_headers=headers, proxy=None, open_timeout=10,
            max_size=None).__enter__()
        self.recv()

    def send_text(self, text: str) -> None:
        self.ws.send(text)

    def send_bytes(self, data: bytes) -> None:
        self.ws.send(data)

    def recv_text(self, timeout: float) -> str:
        try:
            data = self.ws.recv(timeout)
        except ConnectionClosed as exc:
            raise Closed(exc.rcvd.code if exc.rcvd else None) from None
        return data if isinstance(data, str) else data.decode()


# --- the fuzzer ----------------------------------------------------------------------------


def expected_pongs(text: str) -> int:
    """2 if this text is itself a valid ping (its pong comes before the probe's)."""
    try:
        return 2 if json.loads(text) == {"type": "ping"} else 1
    except ValueError:
        return 1


def is_pong(text: str) -> bool:
    try:
        return bool(json.loads(text) == {"type": "pong"})
    except ValueError:
        return False


def first_gate(text: str | None, data: bytes | None) -> str | None:
    """The error code the first checks (size, JSON, type) must give, if they refuse."""
    size = len(text.encode()) if text is not None else len(data or b"")
    if size > MAX_MESSAGE:
        return "too_large"
    if text is None:
        return "bad_message"
    try:
        obj = json.loads(text)
    except ValueError:
        return "bad_json"
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        return "bad_message"
    if obj["type"] not in ("action", "new_match", "ping", "pong"):
        return "unknown_type"
    return None


class Fuzzer:
    """Two seats of one friend room; `step` sends one input and checks the aftermath."""

    def __init__(
        self,
        links: tuple[Link, Link],
        room_id: str,
        tokens: tuple[str, str],
        other_room: tuple[str, str],
        handshake: Callable[[str, str | None, str | None], int | None],
        probe: Callable[[], tuple[engine.State, int]] | None,
    ) -> None:
        self.links = links
        self.room_id, self.tokens, self.other_room = room_id, tokens, other_room
        self.handshake = handshake
        self.probe = probe
        self.rng = random.Random(66)
        self.counter = 0
        # The ids each seat's server side remembers: the latest REMEMBERED_IDS (app/room.py).
        self.used: tuple[OrderedDict[str, None], OrderedDict[str, None]] = (
            OrderedDict(), OrderedDict())
        self.last_legal: tuple[int, str] | None = None
        self.last_id: tuple[str, bool] = ("", False)  # the latest id noted, and if it was new
        self.inputs = 0
        self.applied = 0
        self.codes: dict[str, int] = {}

    # -- building what to send --

    def fresh_id(self) -> str:
        self.counter += 1
        return f"z{self.counter}"

    def choose(self, seat: int, value: Any, kind: str) -> Any:
        version = self.links[seat].version
        if kind == "version" and isinstance(value, str):
            return {"current": version, "previous": version - 1, "next": version + 1}.get(
                value, value)
        if kind == "id" and value == "fresh":
            return self.fresh_id()
        if kind == "id" and value == "used":
            return self.rng.choice(list(self.used[seat])) if self.used[seat] else self.fresh_id()
        return value

    def render(self, seat: int, msg: Message) -> str:
        obj: dict[str, Any] = {"type": msg.type}
        if msg.version is not None:
            obj["version"] = self.choose(seat, msg.version, "version")
        if msg.id is not None:
            obj["id"] = self.choose(seat, msg.id, "id")
        if msg.action is not None:
            obj["action"] = msg.action
        obj.update(msg.extra)
        return json.dumps(obj)

    def mover(self) -> int | None:
        for link in self.links:
            view = link.view
            if view["legal"] and view["to_move"] in (view["seat"], None):
                return link.seat
        return None

    def legal_text(self, seat: int) -> str | None:
        """A legal move for the seat to move (or a new match once the partie is over)."""
        link = self.links[seat]
        if link.view["phase"] == "partie_over":
            return json.dumps({"type": "new_match", "version": link.version,
                               "id": self.fresh_id()})
        if not link.view["legal"]:
            return None
        return json.dumps({"type": "action", "version": link.version, "id": self.fresh_id(),
                           "action": pick(link.view, self.rng)})

    # -- one input --

    def step(self, seat: int, kind: str, payload: Any) -> None:
        TRACE.append(f"input {self.inputs}: seat {seat} {kind} {str(payload)[:150]}")
        try:
            self._step(seat, kind, payload)
        except Exception as exc:
            raise AssertionError("\n".join(["the latest inputs and frames:", *TRACE])) from exc

    def _step(self, seat: int, kind: str, payload: Any) -> None:
        self.inputs += 1
        before = self.probe() if self.probe else None
        version = self.links[0].version
        text: str | None = None
        data: bytes | None = None
        if kind == "handshake":
            self.try_handshake(payload)
            self.check_quiet(version)
            return
        if kind == "race":
            self.race(payload, version)
            return
        if kind == "text":
            text = payload
        elif kind == "json":
            text = json.dumps(payload)
        elif kind == "message":
            text = self.render(seat, payload)
        elif kind == "big":
            text = json.dumps({"type": "ping", "pad": "x" * payload})
        elif kind == "binary":
            data = payload
        elif kind in ("legal", "legal_by_other"):
            mover = self.mover()
            if mover is None:
                mover = seat
            text = self.legal_text(mover)
            if text is None:
                return
            seat = mover if kind == "legal" else 1 - mover
            if kind == "legal" and '"new_match"' not in text:
                self.last_legal = (seat, text)
        elif kind == "replay":
            if self.last_legal is None:
                return
            seat, text = self.last_legal
        assert text is not None or data is not None
        self.send_and_check(seat, text, data, before, version)

    def send_and_check(self, seat: int, text: str | None, data: bytes | None,
                       before: tuple[engine.State, int] | None, version: int) -> None:
        link, other = self.links[seat], self.links[1 - seat]
        view_before = (link.view, other.view)
        if text is not None:
            link.send_text(text)
            got = link.replies(pongs=expected_pongs(text))
        else:
            assert data is not None
            link.send_bytes(data)
            got = link.replies()
        self.note_id(seat, text)
        gate = first_gate(text, data)
        if got and got[0]["type"] == "state" and got[0]["version"] == version + 1:
            self.check_applied(seat, text, got, before, version)
            return
        # Refused, or a ping/pong: nothing changed, and the other seat heard nothing.
        if text is not None and (is_pong(text) or expected_pongs(text) == 2):
            assert got == [], got
        else:
            assert [f["type"] for f in got] == ["error", "state"], got
            error, state = got
            assert error["code"] in REFUSALS, error
            assert isinstance(error["message"], str) and error["message"], error
            assert error["version"] == version == state["version"], got
            if gate is not None:
                assert error["code"] == gate, (gate, error, text, data)
            self.codes[error["code"]] = self.codes.get(error["code"], 0) + 1
            assert state["view"] == view_before[0], "a refused input changed the view"
        if before is not None and self.probe is not None:
            state_now, version_now = self.probe()
            assert state_now is before[0] and version_now == before[1] == version
        assert other.replies() == [], "the other seat was told about a refused input"
        assert other.view == view_before[1]

    def race(self, msg: Message, version: int) -> None:
        """The seat to move sends a legal move and, without waiting, the other seat sends
        `msg` made on the same version: whichever the server takes second meets a change
        it has not been sent yet. Every error either gets must be followed by a state at
        least as new (docs/protocol.md), and both end on the room's version."""
        mover = self.mover()
        if mover is None or self.links[mover].view["phase"] == "partie_over":
            return  # at a friend's table a new partie needs both seats: no change to race
        legal = self.legal_text(mover)
        if legal is None:
            return
        other = 1 - mover
        text = self.render(other, msg)
        self.links[mover].send_text(legal)
        self.links[other].send_text(text)
        self.note_id(mover, legal)
        self.note_id(other, text)
        got = self.links[mover].replies()
        got_other = self.links[other].replies(pongs=expected_pongs(text))
        got += self.links[mover].replies()  # the other's change, if it came after the pong
        for frames in (got, got_other):
            for error in promised_states(frames):
                assert error["code"] in REFUSALS, error
                self.codes[error["code"]] = self.codes.get(error["code"], 0) + 1
        now = self.links[0].version
        assert self.links[1].version == now and now in (version + 1, version + 2), (got, got_other)
        self.applied += now - version
        if self.probe is not None:
            assert self.probe()[1] == now

    def note_id(self, seat: int, text: str | None) -> None:
        """The server remembers the id of an action or new_match that passed the checks
        before the room's (size, JSON, type, shape), applied or not."""
        if text is None or first_gate(text, None) is not None:
            return
        try:
            msg = client_message_adapter.validate_python(json.loads(text))
        except ValidationError:
            return
        if isinstance(msg, ActionMessage | NewMatchMessage):
            self.last_id = (msg.id, msg.id not in self.used[seat])
            if msg.id not in self.used[seat]:
                self.used[seat][msg.id] = None
                if len(self.used[seat]) > REMEMBERED_IDS:
                    self.used[seat].popitem(last=False)

    def check_applied(self, seat: int, text: str | None, got: list[Json],
                      before: tuple[engine.State, int] | None, version: int) -> None:
        assert text is not None
        msg = json.loads(text)
        assert [f["type"] for f in got] == ["state"], got
        assert msg["type"] in ("action", "new_match") and msg["version"] == version, msg
        assert self.last_id == (msg["id"], True), "an id the seat had used was applied again"
        other = self.links[1 - seat]
        assert [f["version"] for f in other.replies()] == [version + 1]
        self.applied += 1
        if before is not None and self.probe is not None and msg["type"] == "action":
            state_now, version_now = self.probe()
            assert version_now == version + 1
            expected = engine.apply(before[0], seat, msg["action"])  # the engine agrees
            for s in (0, 1):
                assert engine.view(state_now, s, log=False) == engine.view(expected, s, log=False)

    def try_handshake(self, hs: Handshake) -> None:
        room = {"this": self.room_id, "other": self.other_room[0]}.get(hs.room, hs.room)
        token = {"none": None, "this": self.tokens[0], "other": self.other_room[1]}.get(
            hs.token, hs.token)
        origin = {"none": None, "own": "own"}.get(hs.origin, f"http://{hs.origin}")
        code = self.handshake(room, token, origin)
        if origin not in (None, "own"):
            expected = 4403
        elif room not in (self.room_id, self.other_room[0]):
            expected = 4404
        elif token not in self.tokens_of(room):
            expected = 4401
        else:
            expected = None  # a real seat: it connects (and the test closes it)
        assert code == expected, (hs, code)

    def tokens_of(self, room: str) -> tuple[str, ...]:
        return self.tokens if room == self.room_id else (self.other_room[1],)

    def check_quiet(self, version: int) -> None:
        for link in self.links:
            assert [f for f in link.replies() if f["type"] != "presence"] == []
            assert link.version == version

    def play_to_the_end(self) -> int:
        moves = 0
        while self.links[0].view["phase"] != "partie_over":
            mover = self.mover()
            assert mover is not None, self.links[0].view
            text = self.legal_text(mover)
            assert text is not None
            version = self.links[mover].version
            self.links[mover].send_text(text)
            # The mover's replies first: its pong comes after both seats' states are queued.
            for link in (self.links[mover], self.links[1 - mover]):
                assert [f["version"] for f in link.replies() if f["type"] == "state"] == [
                    version + 1]
            moves += 1
            assert moves < 3000
        return moves

    def summary(self) -> str:
        codes = ", ".join(f"{k} {v}" for k, v in sorted(self.codes.items()))
        return f"{self.inputs} inputs, {self.applied} applied; refusals: {codes}"


def run_fuzzer(fuzzer: Fuzzer, examples: int) -> None:
    # One room lives across examples (that is what makes the orders random), so a failed
    # example leaves the sockets out of step: no shrinking, stop at the first failure.
    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
              phases=[Phase.explicit, Phase.generate])
    @given(steps)
    def fuzz(sequence: list[tuple[int, tuple[str, Any]]]) -> None:
        for seat, (kind, payload) in sequence:
            fuzzer.step(seat, kind, payload)

    fuzz()
    fuzzer.play_to_the_end()


# --- the two runs ------------------------------------------------------------------------


def test_fuzz_through_the_test_client(
    templates_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    seeds = random.Random(67)
    with serve(templates_dir, new_seed=lambda: seeds.getrandbits(64)) as client:
        made = new_room(client, "friend")
        room_id = made["room_id"]
        tokens = (made["token"], join(client, room_id)["token"])
        other = new_room(client, "friend")
        links = (InProcessLink(client, room_id, tokens[0]),
                 InProcessLink(client, room_id, tokens[1]))
        links[0].replies()  # the friend's arrival (presence)
        room = room_of(client, room_id)

        def handshake(room: str, token: str | None, origin: str | None) -> int | None:
            headers = {}
            if origin is not None:
                headers["origin"] = "http://testserver" if origin == "own" else origin
            if token is not None:
                headers["cookie"] = f"piquet_seat_{room}={token}"
            sock = SeatSocket(client, room, None, headers=headers)
            sock.open()
            message = sock.raw()
            if message["type"] == "websocket.close":
                return int(message["code"])
            sock.close()
            for link in links:  # the presence of this extra window, and of its leaving
                link.replies()
            return None

        fuzzer = Fuzzer(links, room_id, tokens, (other["room_id"], other["token"]),
                        handshake, lambda: (room.state, room.version))
        run_fuzzer(fuzzer, EXAMPLES)
        print(f"fuzz (TestClient): {fuzzer.summary()}")
        assert fuzzer.inputs >= EXAMPLES
        assert client.get("/healthz").json()["status"] == "ok"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, errors


def test_fuzz_over_a_real_server(tmp_path: Path) -> None:
    with live_server(tmp_path, PIQUET_LOG_LEVEL="warning") as server:
        room_id, t0, t1 = server.friend_room()
        other = server.post("/api/rooms", {"opponent": "friend"})
        links = (LiveLink(server.ws, room_id, t0), LiveLink(server.ws, room_id, t1))
        links[0].replies()

        def handshake(room: str, token: str | None, origin: str | None) -> int | None:
            headers = {"Cookie": f"piquet_seat_{room}={token}"} if token is not None else {}
            own = server.http
            with connect(f"{server.ws}/ws/{room}", additional_headers=headers, proxy=None,
                         origin=None if origin is None else (own if origin == "own" else origin),
                         open_timeout=10) as ws:  # type: ignore[arg-type]
                try:
                    ws.recv(10)
                except ConnectionClosed as exc:
                    return exc.rcvd.code if exc.rcvd else None
            for link in links:
                link.replies()
            return None

        fuzzer = Fuzzer(links, room_id, (t0, t1), (other["room_id"], other["token"]),
                        handshake, None)
        run_fuzzer(fuzzer, LIVE_EXAMPLES)
        # A frame above uvicorn's own limit (64 KiB): that socket is closed 1009, the
        # seat comes back to the same state.
        version = links[0].version
        links[0].send_text("x" * 70_000)
        with pytest.raises(Closed) as closed:
            while True:
                links[0].recv()
        assert closed.value.code == 1009
        back = LiveLink(server.ws, room_id, t0)
        assert back.version == version
        print(f"fuzz (uvicorn): {fuzzer.summary()}")
        assert server.health()["status"] == "ok"
        assert "Traceback" not in server.log() and "ERROR" not in server.log()
