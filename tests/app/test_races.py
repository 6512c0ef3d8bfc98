"""Changes that race: a refused message while another change is still on its way to the
socket. docs/protocol.md promises that every error (but `rate_limited`) is followed by
a state at least as new as the error's version, so a client that takes the state after
an error as the truth is never left behind.

The room-level tests set the race up exactly: the socket's writes are held (a slow
link) so the state owed for the other change is still queued when the refusal comes.
The TestClient tests race the real scheduling, many times over a partie.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from tablekit import (
    TestClient,
    first_legal,
    friend_seats,
    next_move,
    pick,
    promised_states,
    room_of,
)

import engine
from app.connection import PING_TEXT, Connection
from app.protocol import ActionMessage, NewMatchMessage
from app.room import Room
from app.room_options import RoomOptions
from app.room_setup import RoomSetup
from app.store import hash_token
from app.ws import dispatch

Json = dict[str, Any]


class HeldSocket:
    """A client on a slow link: while `held`, a write waits until `release`."""

    def __init__(self) -> None:
        self.frames: list[Json] = []
        self.gate = asyncio.Event()
        self.gate.set()

    def hold(self) -> None:
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()

    async def send_text(self, text: str) -> None:
        await self.gate.wait()
        self.frames.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


def a_room(opponent: str, seed: int) -> Room:
    setup = RoomSetup(clock=time.monotonic, new_seed=lambda: seed, new_pack=lambda: None,
                      policy=first_legal)
    return Room("r", RoomOptions(opponent), setup)  # type: ignore[arg-type]


def seed_where_cut_winner(seat: int) -> int:
    return next(s for s in range(1, 1000) if engine.new_partie(seed=s).cut_winner == seat)


async def seat(room: Room, number: int) -> tuple[Connection, HeldSocket]:
    ws = HeldSocket()
    conn = Connection(ws, "r", number, queue_size=8, ping_interval=3600)  # type: ignore[arg-type]
    room.attach(conn)
    await drain()
    return conn, ws


async def drain() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def action(version: int, msg_id: str, act: Json) -> ActionMessage:
    return ActionMessage.model_validate(
        {"type": "action", "version": version, "id": msg_id, "action": act})


def last_error_answered(frames: list[Json], room: Room) -> Json:
    """The socket's frames end with its error and then a state at least as new."""
    errors = promised_states(frames)
    assert [e["code"] for e in errors] == ["stale_version"], frames
    assert frames[-1]["type"] == "state" and frames[-1]["version"] == room.version, frames
    return errors[0]


def test_a_computer_move_lands_while_the_persons_action_is_in_flight() -> None:
    """The computer (delay 0) moves while the person's action, made on the version she
    had, is on its way, and while her socket is still writing an earlier frame: her
    action is refused, and the computer's state comes after the error, not before it."""

    async def scenario() -> None:
        room = a_room("computer", seed_where_cut_winner(1))
        assert room.computer is not None
        thinking = asyncio.Event()  # the computer's wait, held until we let it move

        async def held(_: float) -> None:
            await thinking.wait()

        room.computer.sleep = held
        person, ws = await seat(room, 0)  # it won the cut: it will choose once she is here
        seen = ws.frames[-1]["version"]
        ws.hold()
        person.send(PING_TEXT)  # a keepalive on its way: the link is slow just now
        await drain()
        room.computer.poke()
        thinking.set()  # it chooses to deal
        await drain()
        assert room.version == seen + 1
        await dispatch(room, person, action(seen, "p1", {"type": "choose_dealer", "deal": False}))
        ws.release()
        await drain()
        error = last_error_answered(ws.frames, room)
        assert error["version"] == seen + 1
        await person.stop()

    asyncio.run(scenario())


def test_both_seats_act_on_the_same_version() -> None:
    """At a friend's table both seats send an action made on the same version: the first
    applies, the second is refused, and the refused seat gets the error, then the
    other's change, whatever its socket still had to write."""

    async def scenario() -> None:
        room = a_room("friend", seed_where_cut_winner(0))
        room.seats[1].token_hash = hash_token("friend")
        (a, a_ws), (b, b_ws) = await seat(room, 0), await seat(room, 1)
        version = room.version
        b_ws.hold()
        b.send(PING_TEXT)
        await drain()
        await dispatch(room, a, action(version, "a1", {"type": "choose_dealer", "deal": True}))
        await dispatch(room, b, action(version, "b1", {"type": "choose_dealer", "deal": False}))
        b_ws.release()
        await drain()
        assert room.version == version + 1 and room.state.dealer == 0  # a's, once
        assert last_error_answered(b_ws.frames, room)["version"] == version + 1
        assert a_ws.frames[-1]["type"] == "state"
        assert a_ws.frames[-1]["version"] == version + 1
        await a.stop()
        await b.stop()

    asyncio.run(scenario())


def test_a_new_match_during_a_pending_action() -> None:
    """The person's other window starts a new match while an action from this window is
    on its way: the action is refused, and the new match's state follows the error."""

    async def scenario() -> None:
        room = a_room("computer", seed_where_cut_winner(0))
        (one, one_ws), (two, two_ws) = await seat(room, 0), await seat(room, 0)
        version = room.version
        two_ws.hold()
        two.send(PING_TEXT)
        await drain()
        await dispatch(room, one, NewMatchMessage.model_validate(
            {"type": "new_match", "version": version, "id": "n1"}))
        await dispatch(room, two, action(version, "p1", {"type": "choose_dealer", "deal": True}))
        two_ws.release()
        await drain()
        assert room.match == 2
        assert [f["version"] for f in one_ws.frames if f["type"] == "state"][1] == version + 1
        error = last_error_answered(two_ws.frames, room)
        assert error["version"] >= version + 1
        after = two_ws.frames[two_ws.frames.index(error) + 1:]
        assert all(f["log_reset"] for f in after[:1])  # the new match's log, from the start
        await one.stop()
        await two.stop()

    asyncio.run(scenario())


def test_both_seats_act_on_the_same_version_all_through_a_partie(client: TestClient) -> None:
    """Through the TestClient, with real scheduling: before each move, the seat not to
    move sends something too, made on the same version, without reading first."""
    rng = random.Random(41)
    room_id, a, b = friend_seats(client)
    a.connect()
    b.connect()
    a.expect("presence")
    room = room_of(client, room_id)
    refused = 0
    while a.view["phase"] != "partie_over":
        who, act = next_move(a, b, rng)
        other = b if who is a else a
        version = who.version
        assert other.version == version
        # Its own move if it is its turn (`who` is then asking to see), else an ask to see.
        extra = (pick(other.view, rng) if other.view["legal"]
                 and other.view["to_move"] == other.seat else {"type": "see", "combo": 0})
        for sock, sent in ((who, act), (other, extra)):
            sock.send({"type": "action", "version": version, "id": sock.next_id(),
                       "action": sent})
        got = {sock.seat: sock.barrier() for sock in (who, other)}
        got[who.seat] += who.barrier()  # the other's change, if it came after who's pong
        for frames in got.values():
            refused += len(promised_states(frames))
        assert a.version == b.version == room.version
        assert room.version == version + 1  # one of the two applied, once
    assert refused > 50

