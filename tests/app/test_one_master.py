"""One master: a move's path through app/ is a straight line (docs/decisions.md, "One
master: the path of one move"). The path of one accepted action is recorded as it runs,
call by call, from the socket's text to the other seat's frame being written; each time
one of the path's files is entered from another of them is a stop, and the stops must
be ws -> room -> engine -> journal -> seating -> connection, each once, in that order.
Pure helpers the parts use (seat_view, padding, protocol, store, security) are not
stops; neither are calls they make (the view the socket's state is built from).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

import engine
from app import ws
from app.connection import Connection
from app.room import Room
from app.room_options import RoomOptions
from app.room_setup import RoomSetup
from app.store import hash_token

ROOT = Path(__file__).resolve().parents[2]
STOPS = {
    ROOT / "app" / "ws.py": "ws",
    ROOT / "app" / "room.py": "room",
    ROOT / "app" / "journal.py": "journal",
    ROOT / "app" / "seating.py": "seating",
    ROOT / "app" / "connection.py": "connection",
}
ENGINE = ROOT / "engine"


def stop_of(frame: FrameType | None) -> str | None:
    if frame is None:
        return None
    path = Path(frame.f_code.co_filename)
    if path.is_relative_to(ENGINE):
        return "engine"
    return STOPS.get(path)


class Socket:
    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.frames.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        pass


def trace_one_move(opening: int) -> tuple[list[str], list[dict[str, Any]], int]:
    """The stops of the `opening`-th legal action at a friend's table (both seats
    connected), the other seat's frames, and the room's version after it."""

    async def scenario() -> tuple[list[str], list[dict[str, Any]], int]:
        room = Room("r", RoomOptions("friend"), RoomSetup(clock=time.monotonic, new_seed=lambda: 3,
                                             new_pack=lambda: None))
        room.seats[1].token_hash = hash_token("friend")
        sockets = [Socket(), Socket()]
        conns = [Connection(s, "r", n, queue_size=8, ping_interval=3600)  # type: ignore[arg-type]
                 for n, s in enumerate(sockets)]
        for conn in conns:
            room.attach(conn)
        for _ in range(5):
            await asyncio.sleep(0)
        seat = room.state.to_move
        assert seat is not None
        legal = engine.view(room.state, seat)["legal"]
        action = {k: v for k, v in legal[opening % len(legal)].items() if k not in ("label", "say")}
        text = json.dumps({"type": "action", "version": room.version, "id": "m1",
                           "action": action})
        other = sockets[1 - seat]
        seen = len(other.frames)
        stops: list[str] = []

        def profile(frame: FrameType, event: str, arg: object) -> None:
            if event != "call":
                return
            callee, caller = stop_of(frame), stop_of(frame.f_back)
            if callee is None or caller is None or callee == caller:
                return
            if not stops or stops[-1] != callee:
                stops.append(callee)

        sys.setprofile(profile)
        try:
            stops.append("ws")
            await ws._handle_text(room, conns[seat], text)
            for _ in range(5):  # the senders write
                await asyncio.sleep(0)
        finally:
            sys.setprofile(None)
        for conn in conns:
            await conn.stop()
        return stops, other.frames[seen:], room.version

    return asyncio.run(scenario())


def test_one_move_goes_ws_room_engine_journal_seating_connection_each_once() -> None:
    for opening in range(3):  # the cut, either way
        stops, told, version = trace_one_move(opening)
        assert stops == ["ws", "room", "engine", "journal", "seating", "connection"], stops
        # ...and the move was made and told: the other seat has the new state.
        assert [f["version"] for f in told if f["type"] == "state"] == [version]
