"""How a room talks to its sockets: who is there (presence), each socket's state
message (its seat's view, padded so its length tells nothing of its cards; a watcher's,
from public information only), and the errors a refused message gets.

`RoomTalk` is a part of app/room.py's Room (its mixin): it owns the sockets, of both
seats and of the watchers, and what is written to them; the room owns the partie and its
changes. A change owes every socket its state (`Connection.want_state`); the state is
worked out here when the socket's turn to be written comes, so a socket that fell
behind gets the newest.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import orjson

import engine
from app.coach import Coach
from app.computer_seat import COMPUTER_SEAT, ComputerSeat
from app.connection import Connection
from app.journal import Journal
from app.padding import Ceilings
from app.protocol import CLOSE_REPLACED, ErrorCode, ErrorMessage, Level, Opponent, PresenceMessage
from app.security import RateLimit, card_free

log = logging.getLogger("piquet.rooms")

# A watching socket holds no seat: its `seat` is this, which indexes no seat.
WATCHER = -1
# Sockets that may watch one table at once (each costs a socket and a view per change).
MAX_WATCHERS = 16
# A presence change (a socket comes or goes, a friend sits down) is told this long after
# it, with the presence as it is then; changes meanwhile ride on it. So a room sends at
# most a few presence frames a second to each socket, however fast watchers come and go
# (a loop of them sent each player 400-1,100 a second).
PRESENCE_DELAY = 0.25
# The rooms with a presence frame due (weakly: a room that goes meanwhile is not kept),
# each with the id of the socket that frame may skip (see `broadcast_presence`: an id, so
# the socket is not kept either; one made since, whatever its id, has a newer state).
_presence_due: weakref.WeakKeyDictionary[RoomTalk, int | None] = weakref.WeakKeyDictionary()


# A seat's latest ids are remembered, so that a message resent after a reconnect is told
# `duplicate_id`. Never applying a message twice does not rest on this: a message names
# the version it was made on, and once applied that version is gone. So a few dozen are
# plenty (a resend is of the last message or two), and at ~140 bytes an id, 256 of them
# a seat was ~70 KiB a room.
REMEMBERED_IDS = 32


@dataclass(slots=True)
class Seat:
    # The seat token's SHA-256 (app/store.py: never kept in the clear, here or in the
    # store); None: nobody has taken this seat (a friend's, or the computer's).
    token_hash: str | None
    connections: list[Connection] = field(default_factory=list)
    # The latest ids, oldest first (a deque: ~60 B an id, against ~130 in an OrderedDict;
    # looking through 32 is as quick as a dict lookup).
    used_ids: deque[str] = field(default_factory=lambda: deque(maxlen=REMEMBERED_IDS))
    # The seat's messages (and connections) draw on one bucket, whichever socket they
    # come on: a client that reconnects after each close gets no fresh allowance.
    limit: RateLimit | None = None

    def rate_limit(self, per_second: float, burst: int) -> RateLimit:
        if self.limit is None:
            self.limit = RateLimit(per_second, burst)
        return self.limit

    def use_id(self, message_id: str) -> bool:
        """Remember an id; False if this seat used it before."""
        if message_id in self.used_ids:
            return False
        self.used_ids.append(message_id)  # the oldest drops out at REMEMBERED_IDS
        return True


def _presence_now(room: weakref.ref[RoomTalk]) -> None:
    found = room()
    if found is not None:
        skip = _presence_due.pop(found, None)
        found._send_presence(next((c for c in found.connections() if id(c) == skip), None))


class RoomTalk:
    """The sockets of a room and what they are told (see the module's docstring)."""

    __slots__ = ("ceilings",)  # the latest state's public view and ceilings (`_ceilings`)
    # The room's, read here (app/room.py).
    room_id: str
    opponent: Opponent
    level: Level | None
    state: engine.State
    version: int
    match: int
    seats: tuple[Seat, Seat]
    watchers: list[Connection]
    computer: ComputerSeat | None
    rematch: set[int]
    notice: str | None
    journal: Journal
    max_connections_per_seat: int
    practice: bool
    coach: Coach
    ceilings: Ceilings | None

    def touch(self) -> None:
        raise NotImplementedError

    def can_new_match(self) -> bool:
        raise NotImplementedError

    def presence(self, viewer: int) -> list[dict[str, Any]]:
        """Both seats as `viewer` sees them (WATCHER: a watcher): SeatPresence
        (app/protocol.py) as plain JSON."""
        out = []
        for number, seat in enumerate(self.seats):
            computer = self.computer is not None and number == COMPUTER_SEAT
            other = "Computer" if computer else "Friend"
            if viewer == WATCHER:
                other = "Computer" if computer else ("Host", "Guest")[number]
            out.append({
                "name": "You" if number == viewer else other,
                "joined": computer or seat.token_hash is not None,
                "connected": computer or bool(seat.connections),
            })
        return out

    # --- sockets --------------------------------------------------------------------------

    def attach(self, conn: Connection) -> None:
        """A socket has joined its seat: give it the state and tell the others."""
        seat = self.seats[conn.seat]
        if len(seat.connections) >= self.max_connections_per_seat:
            oldest = seat.connections.pop(0)
            oldest.close(CLOSE_REPLACED, "This seat was opened in another window.")
            # Its socket ends by itself; the room forgets it now.
        seat.connections.append(conn)
        self.touch()
        conn.render = self.state_text
        conn.on_drop = self.detach  # a socket too slow to read is gone for the room at once
        conn.start()
        conn.want_state()
        self.broadcast_presence(skip=conn)
        if self.computer is not None:
            self.computer.poke()  # it waits for a person at the table to show the cut to

    def detach(self, conn: Connection) -> None:
        if conn.seat == WATCHER:
            self.detach_watcher(conn)
            return
        seat = self.seats[conn.seat]
        if conn in seat.connections:
            seat.connections.remove(conn)
            self.touch()
            self.broadcast_presence()

    def connections(self) -> list[Connection]:
        """Every socket of the room: both seats', then the watchers'."""
        return [c for seat in self.seats for c in seat.connections] + self.watchers

    def broadcast_presence(self, skip: Connection | None = None) -> None:
        """Tell every socket but `skip` who is here, PRESENCE_DELAY from now, as it is
        then (unless a send is due already: this change rides on it). `skip`, a socket
        that has just joined, gets its first state instead, written after the change
        with the presence in it: it is skipped only if its join is the window's last
        change (after any other, its state is all it needs too; before one, it is told)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (a test driving a room without a loop)
            self._send_presence(skip)
            return
        due = self in _presence_due
        _presence_due[self] = None if skip is None else id(skip)
        if not due:
            loop.call_later(PRESENCE_DELAY, _presence_now, weakref.ref(self))

    def _send_presence(self, skip: Connection | None = None) -> None:
        watching = len(self.watchers)
        texts = {
            viewer: PresenceMessage.model_validate(
                {"seats": self.presence(viewer), "watchers": watching}
            ).model_dump_json()
            for viewer in (0, 1, WATCHER)
        }
        for conn in self.connections():
            if conn is not skip:
                conn.send(texts[conn.seat])

    def state_text(self, conn: Connection) -> str:
        """The state message for `conn`, of the room as it is now: a socket's sender asks
        for it when it is about to write it, so one that fell behind gets the newest."""
        return self._state_message(conn, engine.view(self.state, conn.seat, log=False))

    def _state_message(self, conn: Connection, view: dict[str, Any]) -> str:
        # The log goes once: the engine's log window is this deal's lines, and within one
        # deal of one match it only grows, so a socket gets the lines new to it; when the
        # window moves on (a new deal, a new match, a new socket) it gets them all, with
        # log_reset.
        window = (self.match, view["deal_number"])
        reset = conn.log_window != window
        new_log = engine.deal_log(self.state, 0 if reset else conn.log_count)
        conn.log_window = window
        conn.log_count = len(new_log) if reset else conn.log_count + len(new_log)
        # A StateMessage (app/protocol.py), written without building the model: this is
        # every action's hot path, and the view is plain JSON already. The tests check
        # every frame against the model.
        watching = conn.seat == WATCHER
        view_json = orjson.dumps(view)
        message = {
            "type": "state",
            "version": self.version,
            "view": orjson.Fragment(view_json),
            "new_log": new_log,
            "log_reset": reset,
            "room": {
                "room_id": self.room_id,
                "opponent": self.opponent,
                "level": self.level,
                "seat": None if watching else conn.seat,
                "seats": self.presence(conn.seat),
                "can_new_match": not watching and self.can_new_match(),
                "watchers": len(self.watchers),
                "rematch": sorted(self.rematch),
                "practice": self.practice,
                "hints": not watching and self.coach.hints_for(conn.seat),
                "store": "waiting" if self.journal.waiting else "ok",
                "notice": self.notice,
                "receipt": self.journal.receipt(self.version),
            },
        }
        if not watching:  # (a watcher's view is public: nothing to hide)
            # A seat's view is padded to the most it could hold now, by what is public,
            # so the frame's length tells nothing of its cards (app/padding.py): a "pad"
            # of spaces, the message's last field, makes up the difference.
            ceiling = self._ceilings().ceiling(conn.seat)
            if ceiling < len(view_json):  # (a bug: the view outgrew it) coarsely, and said
                log.warning("state outgrew its padding room=%s seat=%d step=%s: %d > %d "
                            "bytes", self.room_id, conn.seat, view["step"], len(view_json),
                            ceiling)
                ceiling = -(-len(view_json) // 1024) * 1024
            message["pad"] = " " * (ceiling - len(view_json))
        return orjson.dumps(message).decode()

    # --- watchers: sockets that hold no seat and see only what is public ------------------

    def attach_watcher(self, conn: Connection) -> bool:
        """A full table's visitor watches: False if MAX_WATCHERS already do."""
        if len(self.watchers) >= MAX_WATCHERS:
            return False
        self.watchers.append(conn)
        conn.render = self.watcher_text
        conn.on_drop = self.detach_watcher
        conn.start()
        conn.want_state()
        self.broadcast_presence(skip=conn)  # the seats see one more watching
        return True

    def detach_watcher(self, conn: Connection) -> None:
        if conn in self.watchers:
            self.watchers.remove(conn)
            self.broadcast_presence()

    def watcher_text(self, conn: Connection) -> str:
        """A watcher's state message: engine.public_view, built from public information
        only (never a seat's view with parts taken out)."""
        return self._state_message(conn, self._ceilings().public)

    def _ceilings(self) -> Ceilings:
        """The public view and the seats' ceilings of the state now: worked out once a
        state, however many sockets are told it."""
        now = self.ceilings
        if now is None or now.state is not self.state:
            now = self.ceilings = Ceilings(self.state)
        return now

    def error(self, conn: Connection, code: ErrorCode, message: str) -> None:
        """An error alone (`rate_limited`: the socket is closed next)."""
        conn.send(self._error_text(conn, code, message))

    def refuse(self, conn: Connection, code: ErrorCode, message: str) -> None:
        """A clear error, then the current state, so the client is never left guessing:
        the state comes after the error even if one was owed already (a change the
        socket's sender had not written yet)."""
        conn.send_then_state(self._error_text(conn, code, message))

    def _error_text(self, conn: Connection, code: ErrorCode, message: str) -> str:
        # The seat is told its legal cards; the log names no card a seat holds.
        log.info("refused room=%s seat=%d code=%s: %s", self.room_id, conn.seat, code,
                 card_free(message))
        return ErrorMessage(code=code, message=message, version=self.version).model_dump_json()
