"""Who is at one table: its two seats (their tokens, sockets and allowance),
its watchers, and telling them. Owned by the room (app/room.py), which makes each change;
the seating hands every socket the room's latest snapshot (app/seat_view.py) and keeps
who is here (presence) in it, told a moment after it changes, by a timer of its own.

A socket is only ever handed data: its state is worked out from the snapshot when its
turn to be written comes (app/connection.py), so one that fell behind gets the newest.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable

from app.connection import Connection
from app.protocol import CLOSE_REPLACED
from app.seat_view import WATCHER, SeatPresence, Snapshot, presence_texts
from app.security import RateLimit
from app.store import hash_token

log = logging.getLogger("piquet.rooms")

# Sockets that may watch one table at once (each costs a socket and a view per change).
MAX_WATCHERS = 16
# A presence change (a socket comes or goes, a friend sits down) is told this long after
# it, with the presence as it is then; changes meanwhile ride on it. So a room sends at
# most a few presence frames a second to each socket, however fast watchers come and go
# (a loop of them sent each player 400-1,100 a second).
PRESENCE_DELAY = 0.25


class Seat:
    __slots__ = ("_connections", "away_since", "limit", "token_hash")

    def __init__(self, token_hash: str | None, now: float) -> None:
        # The seat token's SHA-256 (app/store.py: never kept in the clear, here or in the
        # store); None: nobody has taken this seat (a friend's, or the computer's).
        self.token_hash = token_hash
        self._connections: list[Connection] = []
        # Since when (the room's clock) no socket of this seat has been open; None while
        # one is. A table loaded in this process counts from then.
        self.away_since: float | None = now
        # The seat's messages (and connections) draw on one bucket, whichever socket they
        # come on: a client that reconnects after each close gets no fresh allowance.
        self.limit: RateLimit | None = None

    @property
    def connections(self) -> list[Connection]:
        """The seat's open sockets: one dropped (too slow to read) is forgotten at once,
        before its reader has ended."""
        if any(c.dropped for c in self._connections):
            self._connections[:] = [c for c in self._connections if not c.dropped]
        return self._connections

    def rate_limit(self, per_second: float, burst: int) -> RateLimit:
        if self.limit is None:
            self.limit = RateLimit(per_second, burst)
        return self.limit



class Seating:
    __slots__ = ("_presence", "_skip", "_watchers", "clock", "computer",
                 "max_connections_per_seat", "names", "now", "seats")

    def __init__(self, maker_token_hash: str, max_connections_per_seat: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.seats = (Seat(maker_token_hash, clock()), Seat(None, clock()))
        # Each seat's display name (the room's options: app/room_options.py).
        self.names: tuple[str, str] = ("", "")
        self._watchers: list[Connection] = []
        self.max_connections_per_seat = max_connections_per_seat
        # The seat the computer holds (None: people only).
        self.computer: int | None = None
        # The latest snapshot, its presence kept up to date here (set by the room first).
        self.now: Snapshot | None = None
        # The presence frame due, and the id of the socket it may skip (`tell_presence`).
        self._presence: asyncio.TimerHandle | None = None
        self._skip: int | None = None

    # --- who is here -----------------------------------------------------------------------

    def presence(self) -> tuple[SeatPresence, SeatPresence]:
        seat0, seat1 = (
            SeatPresence(joined=seat.token_hash is not None, computer=number == self.computer,
                         connected=bool(seat.connections), name=self.names[number],
                         away=self._away(number))
            for number, seat in enumerate(self.seats))
        return seat0, seat1

    def away_for(self, number: int) -> float:
        """How long a seat someone took has had no socket open (0 while one is open)."""
        seat = self.seats[number]
        if seat.connections or seat.away_since is None:
            return 0.0
        return self.clock() - seat.away_since

    def _away(self, number: int) -> int | None:
        seat = self.seats[number]
        if seat.token_hash is None or number == self.computer or seat.connections:
            return None
        return int(self.away_for(number))

    @property
    def watchers(self) -> list[Connection]:
        """The sockets watching (one dropped is forgotten at once, as a seat's is)."""
        if any(c.dropped for c in self._watchers):
            self._watchers[:] = [c for c in self._watchers if not c.dropped]
        return self._watchers

    def connections(self) -> list[Connection]:
        """Every socket of the room: both seats', then the watchers'."""
        return [c for seat in self.seats for c in seat.connections] + self.watchers

    def seat_for_token(self, token: str | None) -> int | None:
        """The seat this token holds here, compared in constant time."""
        if not token:
            return None
        digest = hash_token(token).encode()
        found = None
        for number, seat in enumerate(self.seats):
            # Compare with both seats whatever happens, so the time says nothing. A seat
            # the computer holds is no token's (a stranger's, given to it: app/room.py).
            if seat.token_hash is not None and secrets.compare_digest(
                seat.token_hash.encode(), digest
            ) and number != self.computer:
                found = number
        return found

    # --- telling -----------------------------------------------------------------------------

    def tell(self, snapshot: Snapshot, first: Connection | None = None) -> None:
        """A change: every socket is owed `snapshot`, with who is here stamped on it;
        `first` (the socket of the move, whose player waits for its answer) is written
        first, the others' views only worked out after it."""
        self.now = snapshot.with_presence(self.presence(), len(self.watchers))
        if first is not None:
            first.want_state(self.now)
        for conn in self.connections():
            if conn is not first:
                conn.want_state(self.now)

    def _presence_changed(self) -> None:
        """Who is here changed: the snapshot says so, and a state not yet written with it."""
        if self.now is None:
            return
        self.now = self.now.with_presence(self.presence(), len(self.watchers))
        for conn in self.connections():
            conn.update(self.now)

    def refuse(self, conn: Connection, text: str) -> None:
        """An error, then the current state (docs/protocol.md): the client is never left
        guessing."""
        assert self.now is not None
        conn.send_then_state(text, self.now)

    # --- sockets -----------------------------------------------------------------------------

    def attach(self, conn: Connection) -> None:
        """A socket has joined its seat: it is owed the state, and the others are told."""
        seat = self.seats[conn.seat]
        if len(seat.connections) >= self.max_connections_per_seat:
            oldest = seat.connections.pop(0)
            oldest.close(CLOSE_REPLACED, "This seat was opened in another window.")
            # Its socket ends by itself; the room forgets it now.
        seat.connections.append(conn)
        seat.away_since = None
        self._joined(conn)

    def attach_watcher(self, conn: Connection) -> bool:
        """A full table's visitor watches: False if MAX_WATCHERS already do."""
        if len(self.watchers) >= MAX_WATCHERS:
            return False
        self.watchers.append(conn)
        self._joined(conn)  # the seats see one more watching
        return True

    def _joined(self, conn: Connection) -> None:
        self._presence_changed()
        assert self.now is not None
        conn.start()
        conn.want_state(self.now)
        self.tell_presence(skip=conn)

    def detach(self, conn: Connection) -> bool:
        """A socket has ended; False if the room had forgotten it already."""
        found = self.watchers if conn.seat == WATCHER else self.seats[conn.seat].connections
        if conn in found:
            found.remove(conn)
        elif not conn.dropped:
            return False
        if conn.seat != WATCHER and not found:
            self.seats[conn.seat].away_since = self.clock()
        self._presence_changed()
        self.tell_presence()  # (a dropped socket was forgotten already: now it is told)
        return True

    def close(self, code: int, reason: str) -> None:
        if self._presence is not None:
            self._presence.cancel()
            self._presence = None
        for conn in self.connections():
            conn.close(code, reason)

    # --- presence ----------------------------------------------------------------------------

    def tell_presence(self, skip: Connection | None = None) -> None:
        """Tell every socket but `skip` who is here, PRESENCE_DELAY from now, as it is
        then (unless a send is due already: this change rides on it). `skip`, a socket
        that has just joined, gets its first state instead, written after the change
        with the presence in it: it is skipped only if its join is the window's last
        change (after any other, its state is all it needs too; before one, it is told)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (a test driving a room without a loop)
            self.send_presence(skip)
            return
        self._skip = None if skip is None else id(skip)
        if self._presence is None:
            self._presence = loop.call_later(PRESENCE_DELAY, self._presence_due)

    def _presence_due(self) -> None:
        self._presence = None
        skip = self._skip
        self.send_presence(next((c for c in self.connections() if id(c) == skip), None))

    def send_presence(self, skip: Connection | None = None) -> None:
        """A presence frame to every socket but `skip`, now."""
        texts = presence_texts(self.presence(), len(self.watchers))
        for conn in self.connections():
            if conn is not skip:
                conn.send(texts[conn.seat])
