"""Learning at the table: a hint when a seat asks, the review of each deal once it is
over, and the record of the partie, for one room.

They are worked out in the process's coach pool (app/pools.py's `CoachPool`), by
app/coach_work.py's functions. `Coach` is a room's: it keeps the partie's entries as stored (the
record and the reviews are worked out from them, from the seat's own views), answers a
seat's `hint` and `review` messages on that seat's socket only, and works out each
person's review when a deal ends. Nothing here changes the partie or tells the other
seat anything: not even that a hint was asked for (DESIGN.md, "Learning at the table").

Hints are offered to the person at a computer table, and to both seats of a practice
table (a friend's table made so, which both seats and any watcher are told of); never
at a friend's table otherwise, and never to a watcher.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

import orjson

import engine
from app import coach_work
from app.computer_seat import COMPUTER_SEAT
from app.connection import Connection
from app.i18n import N_, Said
from app.journal import Journal
from app.pools import CoachPool
from app.protocol import ErrorCode, HintMessage, Level, Opponent, ReviewMessage
from app.store import Start

log = logging.getLogger("piquet.coach")

# Reviews kept per room (a partie has six deals, eight at most, for each of two seats).
KEPT_REVIEWS = 20
# Reviews worked out as deals end, waiting for a worker, across the process: beyond
# this, a deal's review waits until its seat asks for it.
EAGER_QUEUE = 64


class Classroom(Protocol):
    """What the coach needs of its room (app/room.py's Room)."""

    room_id: str
    state: engine.State
    version: int
    closed: bool
    journal: Journal
    hints: tuple[bool, bool]  # may each seat ask for hints (`hints_at`)

    @property
    def opponent(self) -> Opponent: ...
    @property
    def level(self) -> Level | None: ...
    @property
    def practice(self) -> bool: ...

    def seat_connections(self, seat: int) -> list[Connection]: ...

    def refuse(self, conn: Connection, code: ErrorCode, message: Said) -> None: ...


def hints_at(opponent: Opponent, practice: bool) -> tuple[bool, bool]:
    """Which seats may ask for hints at a table: the person at a computer table, both
    seats of a practice table."""
    if opponent == "computer":
        person = 1 - COMPUTER_SEAT
        return (person == 0, person == 1)
    return (practice, practice)


class Coach:
    # Slots, and what only a few rooms ever need made when first needed: a server holds
    # thousands of these (docs/reliability.md, memory per room).
    __slots__ = ("_asking", "_for", "_reviewing", "pool", "reviews", "room")

    def __init__(self, room: Classroom, pool: CoachPool) -> None:
        self.room = room
        self.pool = pool
        # The match the reviews are of (its start: a new match forgets them), and
        # (seat, deal) -> its review, once worked out; and those being worked out.
        self._for: Start | None = None
        self.reviews: dict[tuple[int, int], dict[str, Any]] | None = None
        self._reviewing: dict[tuple[int, int], asyncio.Future[dict[str, Any]]] | None = None
        self._asking = 0  # seats with a hint on its way, a bit each

    def answer(self, conn: Connection, message: HintMessage | ReviewMessage) -> None:
        """A seat's `hint` or `review` message, answered by a task of its own: its socket
        goes on reading meanwhile (a move is not held up behind a hint)."""
        if isinstance(message, HintMessage):
            work = self.hint(conn, message.version)
        else:
            work = self.review(conn, message.deal)
        task = asyncio.ensure_future(work)
        self.pool.answering.add(task)
        task.add_done_callback(self.pool.answering.discard)

    # --- what the partie was -----------------------------------------------------------

    @property
    def start(self) -> Start:
        """Where this match started (the room's journal keeps it)."""
        return self.room.journal.start

    @property
    def entries(self) -> list[str]:
        """This match's entries as stored (the room's journal keeps them)."""
        return self.room.journal.entries

    def _this_match(self) -> None:
        """Reviews of another match are of no table now: forgotten."""
        if self._for is not self.start:
            self._for = self.start
            self.reviews = None
            self._reviewing = None

    def names(self) -> list[str]:
        room = self.room
        if room.opponent == "computer":
            return ["Host", f"Computer ({room.level})"]
        return ["Host", "Guest"]

    def people(self) -> list[int]:
        """The seats held by people (a computer table: the host's)."""
        return [0] if self.room.opponent == "computer" else [0, 1]

    def hints_for(self, seat: int) -> bool:
        """May this seat ask for hints here?"""
        return seat in (0, 1) and self.room.hints[seat]

    # --- a hint ------------------------------------------------------------------------

    async def hint(self, conn: Connection, version: int) -> None:
        """A seat asks what the strong level would do now, from its own view: the answer
        goes to this socket only, and nothing of the partie changes."""
        room, seat = self.room, conn.seat
        if not self.hints_for(seat):
            room.refuse(conn, "not_allowed", N_(
                "Hints are for the person at a computer table, and for both seats of a "
                "practice table."))
            return
        if version != room.version:
            room.refuse(conn, "stale_version", N_(
                "Asked on version {asked}; the table is at version {now}.", asked=version,
                now=room.version))
            return
        if self._asking & (1 << seat):
            room.refuse(conn, "busy", N_("A hint is on its way; one at a time."))
            return
        view = engine.view(room.state, seat, log=False)
        if not view["legal"]:
            room.refuse(conn, "not_allowed", N_("There is nothing for you to decide just now."))
            return
        self._asking |= 1 << seat
        try:
            advice = await self.pool.run(coach_work.hint_for, view)
        except ValueError as exc:
            room.refuse(conn, "not_allowed", N_("No hint here: {why}.", why=str(exc)))
            return
        except Exception:
            log.exception("hint failed room=%s seat=%d", room.room_id, seat)
            room.refuse(conn, "internal",
                        N_("The hint could not be worked out; nothing changed."))
            return
        finally:
            self._asking &= ~(1 << seat)
        conn.send(orjson.dumps({"type": "hint", "version": version,
                                "hint": advice}).decode())

    # --- reviews -------------------------------------------------------------------------

    def deal_ended(self, deal: int, partie_over: bool) -> None:
        """A deal is over. At a computer table or a practice table, each person's review
        is worked out now, in the workers, and sent to that seat when ready (the page says
        it is coming until then); at a friend's table, when a seat asks for it. (So a
        server holding thousands of friends' tables does not review every deal.)"""
        if not (self.room.opponent == "computer" or self.room.practice):
            return
        if self.pool.pending >= EAGER_QUEUE:
            return  # busy: asked for, it comes then
        for seat in self.people():
            self._review_soon(seat, deal)
            if partie_over:
                self._review_soon(seat, 0)

    def _review_soon(self, seat: int, deal: int) -> asyncio.Future[dict[str, Any]]:
        self._this_match()
        key = (seat, deal)
        if self._reviewing is None:
            self._reviewing = {}
        running = self._reviewing.get(key)
        if running is not None:
            return running
        task = asyncio.ensure_future(self._work_out(seat, deal))
        self._reviewing[key] = task
        self.pool.pending += 1

        def done(task: asyncio.Future[dict[str, Any]]) -> None:
            self.pool.pending -= 1
            if task.cancelled() or task.exception() is not None:
                if self._reviewing is not None:
                    self._reviewing.pop(key, None)  # asked again, it is tried again
                if not task.cancelled():
                    log.error("review failed room=%s seat=%d deal=%d: %r",
                              self.room.room_id, seat, deal, task.exception())

        task.add_done_callback(done)
        return task

    async def _work_out(self, seat: int, deal: int) -> dict[str, Any]:
        entries, start = list(self.entries), self.start
        if deal == 0:
            review = await self.pool.run(coach_work.partie_summary, start, entries, seat,
                                            self.names())
        else:
            review = await self.pool.run(coach_work.review_for, start, entries, seat, deal,
                                            self.names())
        if self.start is start:  # (a new match meanwhile: this review is of no table now)
            self._this_match()
            if self.reviews is None:
                self.reviews = {}
            if len(self.reviews) >= KEPT_REVIEWS:
                self.reviews.pop(next(iter(self.reviews)))
            self.reviews[(seat, deal)] = review
            self._send(seat, deal, review)
        return review

    def _send(self, seat: int, deal: int, review: dict[str, Any] | None) -> None:
        text = orjson.dumps({"type": "review", "deal": deal, "ready": review is not None,
                             "review": review}).decode()
        for conn in self.room.seat_connections(seat):
            conn.send(text)

    async def review(self, conn: Connection, deal: int) -> None:
        """A seat asks for a deal's review (0: the partie's summary), say after coming
        back: the review if it is ready, else word that it is coming, then it."""
        room, seat = self.room, conn.seat
        if seat not in self.people():
            room.refuse(conn, "not_allowed", N_("Reviews are for the seats' own decisions."))
            return
        over = room.state.deal_number > deal or room.state.step in (
            engine.Step.DEAL_OVER, engine.Step.PARTIE_OVER)
        if deal == 0:
            over = room.state.step is engine.Step.PARTIE_OVER
        if deal < 0 or deal > room.state.deal_number or not over:
            room.refuse(conn, "not_allowed", N_("Deal {deal} is not over yet.", deal=deal)
                        if deal else N_("The partie is not over yet."))
            return
        self._this_match()
        done = None if self.reviews is None else self.reviews.get((seat, deal))
        if done is not None:
            conn.send(orjson.dumps({"type": "review", "deal": deal, "ready": True,
                                    "review": done}).decode())
            return
        conn.send(orjson.dumps({"type": "review", "deal": deal, "ready": False,
                                "review": None}).decode())
        try:
            await self._review_soon(seat, deal)
        except Exception:
            log.exception("review failed room=%s seat=%d deal=%d", room.room_id, seat, deal)
            room.refuse(conn, "internal", N_("The review could not be worked out."))

    # --- the record ----------------------------------------------------------------------

    async def record(self, seat: int | None, meta: dict[str, Any]) -> bytes:
        """The record of the partie so far, as `seat` saw it (None: a watcher's)."""
        self._this_match()
        reviews = {deal: r for (s, deal), r in (self.reviews or {}).items()
                   if s == seat and deal}
        return await self.pool.run(coach_work.record_json, self.start, list(self.entries),
                                      seat, self.names(), meta, reviews)
