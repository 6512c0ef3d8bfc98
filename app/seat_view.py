"""What one socket is sent, built in one pure place: a seat's (or a watcher's) state
message, a presence frame and an error, each from data passed in.

`Snapshot` is the room as every socket is to be told it at one moment: the partie's state,
its version and receipt, who is at the table, what the room offers. The room makes one a
change (and its seating a new one when only who is here changes); each socket writes it
when its turn to be written comes (app/connection.py), with `state_text`, so a socket
that fell behind writes the newest. Nothing here reads a room, a seat or a socket.

A seat's state is padded to the most its view could hold now, by what is public, so the
frame's length tells nothing of its cards (app/padding.py); a watcher's view is
engine.public_view, built from public information only (never a seat's view with parts
taken out).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

import orjson

import engine
from app.i18n import Said, render
from app.padding import Ceilings
from app.protocol import (
    ErrorCode,
    ErrorMessage,
    Level,
    Listing,
    Opponent,
    Pace,
    PresenceMessage,
    Seating,
)
from app.room_options import RoomOptions

log = logging.getLogger("piquet.rooms")

# A watching socket holds no seat: its `seat` is this, which indexes no seat.
WATCHER = -1
VIEWERS = (0, 1, WATCHER)


@dataclass(frozen=True, slots=True)
class SeatPresence:
    """One seat as the table knows it: taken, by the computer, with a socket open; the
    display name of whoever took it ("" for none yet), and, for a seat taken with no
    socket open, how many whole seconds it has been away."""

    joined: bool
    computer: bool
    connected: bool
    name: str = ""
    away: int | None = None


NOBODY = SeatPresence(joined=False, computer=False, connected=False)


class Working:
    """What views of one state work out once for every message of that state (its public
    view and the seats' padding ceilings), shared by the snapshots of that state; dropped by
    the room when the table has been quiet a while (`forget`)."""

    __slots__ = ("_ceilings", "state")

    def __init__(self, state: engine.State) -> None:
        self.state = state
        self._ceilings: Ceilings | None = None

    def ceilings(self) -> Ceilings:
        if self._ceilings is None:
            self._ceilings = Ceilings(self.state)
        return self._ceilings

    def forget(self) -> None:
        self._ceilings = None


@dataclass(frozen=True, slots=True)
class Snapshot:
    room_id: str
    opponent: Opponent
    level: Level | None
    version: int
    match: int
    working: Working
    receipt: str
    practice: bool
    hints: tuple[bool, bool]  # may each seat ask for hints
    can_new_match: bool
    rematch: tuple[int, ...]
    waiting_for_store: bool
    notice: Said | None  # said to each socket in its language
    seating: Seating = "link"
    pace: Pace = "now"
    listing: Listing | None = None  # an open table's place in the lobby (its maker's page)
    seats: tuple[SeatPresence, SeatPresence] = (NOBODY, NOBODY)  # (app/seating.py's)
    watchers: int = 0

    @property
    def state(self) -> engine.State:
        return self.working.state

    def with_presence(self, seats: tuple[SeatPresence, SeatPresence], watchers: int) -> Snapshot:
        return replace(self, seats=seats, watchers=watchers)


@dataclass(frozen=True, slots=True)
class LogCursor:
    """Which log window a socket was last sent ((match, deal)) and how many of its lines:
    the log goes once (docs/decisions.md, "The log is sent once")."""

    window: tuple[int, int] | None = None
    count: int = 0


def presence(seats: tuple[SeatPresence, SeatPresence], viewer: int) -> list[dict[str, Any]]:
    """Both seats as `viewer` (WATCHER: a watcher) sees them: SeatPresence of
    app/protocol.py as plain JSON. A seat is named by its display name (a seat nobody has
    taken: "Friend", or for a watcher "Host" and "Guest"); the viewer's own is "You"
    (English words: `you`, `computer` and `unnamed` say which, for a page in any
    language)."""
    out = []
    for number, seat in enumerate(seats):
        unnamed = ("Host", "Guest")[number] if viewer == WATCHER else "Friend"
        other = seat.name or unnamed
        one: dict[str, Any] = {
            "name": "You" if number == viewer else "Computer" if seat.computer else other,
            "joined": seat.computer or seat.joined,
            "connected": seat.computer or seat.connected,
        }
        if number == viewer:
            one["you"] = True
        elif seat.computer:
            one["computer"] = True
        elif not seat.name:
            one["unnamed"] = True
        if seat.away is not None and not seat.computer:
            one["away"] = seat.away
        out.append(one)
    return out


def presence_texts(seats: tuple[SeatPresence, SeatPresence], watchers: int) -> dict[int, str]:
    """The presence frame for each kind of viewer (seat 0, seat 1, WATCHER)."""
    return {
        viewer: PresenceMessage.model_validate(
            {"seats": presence(seats, viewer), "watchers": watchers}
        ).model_dump_json(exclude_none=True)  # (`away` only for a seat away)
        for viewer in VIEWERS
    }


def state_text(table: Snapshot, viewer: int, cursor: LogCursor,
               lang: str = "en") -> tuple[str, LogCursor]:
    """`viewer`'s state message of `table`, and its log cursor after it. The log goes
    once: the engine's log window is this deal's lines, and within one deal of one match
    it only grows, so a socket gets the lines new to it; when the window moves on (a new
    deal, a new match, a new socket) it gets them all, with log_reset. The table's notice
    is said in `lang`, the socket's."""
    state = table.state
    watching = viewer == WATCHER
    view = (table.working.ceilings().public if watching
            else engine.view(state, viewer, log=False))
    window = (table.match, view["deal_number"])
    reset = cursor.window != window
    new_log = engine.deal_log(state, 0 if reset else cursor.count)
    cursor = LogCursor(window, len(new_log) if reset else cursor.count + len(new_log))
    # A StateMessage (app/protocol.py), written without building the model: this is
    # every action's hot path, and the view is plain JSON already. The tests check every
    # frame against the model.
    view_json = orjson.dumps(view)
    message = {
        "type": "state",
        "version": table.version,
        "view": orjson.Fragment(view_json),
        "new_log": new_log,
        "log_reset": reset,
        "room": {
            "room_id": table.room_id,
            "opponent": table.opponent,
            "level": table.level,
            "seat": None if watching else viewer,
            "seats": presence(table.seats, viewer),
            "can_new_match": not watching and table.can_new_match,
            "watchers": table.watchers,
            "rematch": list(table.rematch),
            "practice": table.practice,
            "hints": not watching and table.hints[viewer],
            "store": "waiting" if table.waiting_for_store else "ok",
            "notice": render(table.notice, lang),
            "seating": table.seating,
            "listing": table.listing,
            "pace": table.pace,
            "receipt": table.receipt,
        },
    }
    if not watching:  # (a watcher's view is public: nothing to hide)
        message["pad"] = " " * (_ceiling(table, viewer, view, len(view_json)) - len(view_json))
    return orjson.dumps(message).decode(), cursor


def _ceiling(table: Snapshot, seat: int, view: dict[str, Any], size: int) -> int:
    """The length `seat`'s view is padded to: a "pad" of spaces, the message's last
    field, makes up the difference."""
    ceiling = table.working.ceilings().ceiling(seat)
    if ceiling < size:  # (a bug: the view outgrew it) coarsely, and said
        log.warning("state outgrew its padding room=%s seat=%d step=%s: %d > %d bytes",
                    table.room_id, seat, view["step"], size, ceiling)
        ceiling = -(-size // 1024) * 1024
    return ceiling


def sheet_scores(state: engine.State) -> tuple[int, int]:
    """Each seat's score as the lists show it: the deals finished (under Piquet au cent,
    those of the game under way)."""
    rows = state.sheet[state.game_start:] if state.rules.game == "au_cent" else state.sheet
    return sum(r[0] for r in rows), sum(r[1] for r in rows)


def my_table(room_id: str, seat: int, options: RoomOptions, state: engine.State, *,
             waiting: bool, since: float) -> dict[str, Any]:
    """`seat`'s line in the lobby's "My tables" (docs/protocol.md): whom it plays, the
    scores, whether the partie waits for its move, how long since the last move (`since`,
    seconds). Public, but for the move, which is this seat's own: nothing of a hand.
    `waiting`: a friend's table whose other seat nobody has taken yet."""
    other = 1 - seat
    mine, theirs = sheet_scores(state)
    if seat:
        mine, theirs = theirs, mine
    result = state.result
    over = state.step is engine.Step.PARTIE_OVER
    your_move = not waiting and not over and any(
        entry["type"] != "see" for entry in engine.legal_json(state, seat))
    return {
        "room_id": room_id,
        "url": f"/r/{room_id}",
        "seat": seat,
        "opponent": options.opponent,
        "opponent_name": "Computer" if options.opponent == "computer" else options.names[other],
        "level": options.level,
        "pace": options.pace,
        "seating": options.seating,
        "practice": options.practice,
        "rules": options.rules.to_json(),
        "waiting": waiting,
        "deal": state.deal_number,
        "deals": state.deals_in_partie,
        "scores": [mine, theirs],
        "your_move": your_move,
        "over": over,
        "won": None if result is None or result.winner is None else result.winner == seat,
        "result": None if result is None else result.text,
        "result_say": None if result is None else result.text.say,
        "abandoned_by": None if result is None or result.abandoned is None else (
            "you" if result.abandoned == seat else "opponent"),
        "since": int(max(0.0, since)),
    }


def error_text(code: ErrorCode, message: str, version: int) -> str:
    return ErrorMessage(code=code, message=message, version=version).model_dump_json()
