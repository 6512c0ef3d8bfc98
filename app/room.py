"""One table: its partie, its seating (app/seating.py) and the one way a move is made.

`Room.submit` is the master (as boardgame.io has it): a person's socket, the computer
(app/computer_seat.py) or anything else makes a move through it, and through nothing
else. Under the room's one asyncio.Lock, so moves are made one at a time in arrival
order, it checks the room is open, whose seat it is, the message id and the version;
applies the move (`engine.apply`); writes it to the store through the room's journal
(app/journal.py) before anyone is told; installs the new state, one version up; and
hands every socket the new snapshot (the seating). What the seats are told when the
store fails is decided there too. A seat taken and a deal dealt again after the store
lost a move are changes of the same kind (`_change`). Nothing else is ever sent about
the partie. Each deal's pack is drawn when it is dealt (`new_pack`: a secure shuffle),
so no future deal exists anywhere.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import replace
from typing import Any, Literal

import engine
from app.coach import Coach, hints_at
from app.computer_seat import COMPUTER_SEAT, ComputerSeat
from app.connection import Connection
from app.i18n import N_, Said, render
from app.journal import Journal
from app.protocol import (
    CLOSE_GOING_AWAY,
    ComputerLevel,
    ErrorCode,
    HintMessage,
    Level,
    Listing,
    Opponent,
    ReviewMessage,
)
from app.room_options import RoomOptions
from app.room_setup import RoomSetup, new_token, secure_pack
from app.seat_view import WATCHER, Snapshot, Working, error_text
from app.seating import Seat, Seating
from app.security import card_free
from app.store import (
    Change,
    Entry,
    SeatTaken,
    Start,
    StoredRoom,
    StoreError,
    StoreFull,
    StoreUnknown,
    VersionConflict,
    change_for_action,
    hash_token,
)

log = logging.getLogger("piquet.rooms")

# What became of a submitted move: made; refused (said to the seat's socket); made on a
# version that is gone; not made because the store did not keep it (try again); the room
# let go of (another process has it, or the store's answer is unknown) or closed.
Outcome = Literal["applied", "refused", "stale", "unavailable", "let_go", "closed"]

# The actions that deal a hand, and so bring a pack with them.
DEALING = frozenset({"choose_dealer", "next_deal"})
# A deal dealt again: its log line's code, and what both seats are told (a phrase).
DEALT_AGAIN = engine.rules.STORE_LOST
STARTED_AGAIN = N_("The table's store lost a move both seats had been shown. So that no "
                   "move can be taken back, the partie starts again.")
CLOSED = N_("This table is not taking moves just now (the server is restarting, or the "
            "table moved); nothing changed. It will reconnect by itself.")
WATCHING = N_("You are watching this table: you cannot play.")
MOVED = "This table moved to another server; reconnect."
# Both seats are told so while the store's disk is full (until a change is kept again).
CANNOT_SAVE = N_("The table cannot save: your move was not made")

# A seat's latest message ids are remembered, so that a message resent after a reconnect
# is told `duplicate_id`. Never applying a message twice does not rest on this: a message
# names the version it was made on, and once applied that version is gone. So a few
# dozen are plenty (a resend is of the last message or two), and at ~140 bytes an id, 256
# of them a seat was ~70 KiB a room.
REMEMBERED_IDS = 32

# A table whose state has not changed for this long drops its views' working (Room._trim).
TRIM_SECONDS = 2.0

_OVER = (engine.Step.DEAL_OVER, engine.Step.PARTIE_OVER)


class MessageIds:
    """A seat's latest message ids, oldest first (a deque: ~60 B an id, against ~130 in an
    OrderedDict; looking through 32 is as quick as a dict lookup)."""

    __slots__ = ("used",)

    def __init__(self) -> None:
        self.used: deque[str] = deque(maxlen=REMEMBERED_IDS)

    def use(self, message_id: str) -> bool:
        """Remember an id; False if this seat used it before."""
        if message_id in self.used:
            return False
        self.used.append(message_id)  # the oldest drops out at REMEMBERED_IDS
        return True


class Room:
    # Slots: one dict fewer per room (docs/reliability.md); __weakref__ for the tests that
    # check an expired room is freed.
    __slots__ = ("__weakref__", "_letting_go", "changed_at", "closed", "coach", "computer",
                 "hints", "ids", "journal", "last_activity", "last_move", "listing", "lock",
                 "match", "notice", "options", "rematch", "room_id", "seating",
                 "setup", "state", "trim", "used", "version", "working")

    def __init__(self, room_id: str, options: RoomOptions, setup: RoomSetup, *,
                 maker_token_hash: str | None = None, secret: str = "") -> None:
        self.room_id = room_id
        self.setup = setup
        # What the room was made with: the opponent, the computer's level, practice, the
        # rules (app/room_options.py). Changed only when the free seat goes to the computer.
        self.options = options
        self.lock = asyncio.Lock()
        self.ids = (MessageIds(), MessageIds())  # each seat's, checked by `submit`
        self.state: engine.State = engine.new_partie(seed=setup.new_seed(),
                                                     rules=options.rules)
        # When the state last changed (the event loop's clock), and the timer that drops
        # the views' working once nobody has acted for TRIM_SECONDS (`_trim`).
        self.changed_at = 0.0
        self.trim: asyncio.TimerHandle | None = None
        self.working = Working(self.state)
        self.version = 1
        self.match = 1  # counts new matches, so each socket knows when its log restarts
        self.seating = Seating(maker_token_hash or hash_token(new_token()),
                               setup.max_connections_per_seat, setup.clock)
        self.seating.names = options.names
        # An open table waiting for its second player: its place in the lobby, as the
        # lobby tells it (app/lobby.py); its maker's page shows it.
        self.listing: Listing | None = None
        # Where every change is written before anyone is told (None: memory only), and
        # what the room keeps of its writes and receipts.
        self.journal = Journal(room_id, setup.store,
                               Start(self.state.seed, None, None, options.rules), secret)
        self.last_activity = setup.clock()
        # When the partie last changed (a move, a new match): a room that has gone longest
        # without one gives way first when every table is taken.
        self.last_move = self.last_activity
        # A person has acted here (a friend who joined and never moved has not). A room
        # never used expires sooner, sockets open or not, and gives way first.
        self.used = False
        # What both seats are told of something the table did (a deal dealt again).
        self.notice: Said | None = None
        self.closed = False
        self._letting_go: asyncio.Task[None] | None = None
        self.computer: ComputerSeat | None = None
        if options.level is not None:
            self._seat_computer(options.level)
        # Friend's table, partie over: the seats that pressed "Play again".
        self.rematch: set[int] = set()
        # Hints, reviews, the record (app/coach.py), and which seats may ask for hints.
        self.coach = Coach(self, setup.coach_pool)
        self.hints = hints_at(self.opponent, self.practice)
        self.seating.tell(self.snapshot(self.journal.receipt(self.version)))

    def _seat_computer(self, level: Level) -> None:
        setup = self.setup
        pool = setup.computer_pool if level != "basic" else None
        if pool is not None:
            pool.start()  # its workers start with the first table that needs them
        self.computer = ComputerSeat(self, setup.policy, setup.computer_pace, level=level,
                                     pool=pool)
        self.seating.computer = COMPUTER_SEAT

    def resume(self, stored: StoredRoom) -> None:
        """This room as the store holds it: its seats, and its partie replayed from its
        entries (ValueError or a PiquetError if they do not replay)."""
        self.seating.seats[1].token_hash = stored.seat_hashes[1]
        self.rematch = set(stored.rematch)
        computer = self.computer
        rules = self.options.rules
        state = engine.new_partie(stored.seed, first_dealer=stored.first_dealer,
                                  pack=stored.first_pack, rules=rules)
        for seat, action, state in engine.replaying(
                stored.seed, stored.actions, why=DEALT_AGAIN, first_dealer=stored.first_dealer,
                pack=stored.first_pack, rules=rules):
            if computer is not None and seat == COMPUTER_SEAT and isinstance(action, dict):
                computer.replayed(stored.match, state.deal_number, action)
        self.state = state
        self.match, self.version = stored.match, stored.version
        self.journal.resume(Start(stored.seed, stored.first_dealer, stored.first_pack, rules),
                            stored.actions)
        # Played at (a move stored, or a match after the first).
        self.used = bool(stored.actions) or stored.match > 1
        if stored.moved_at:  # its last move, on this room's clock (as long ago as it was)
            self.last_move -= max(0.0, time.time() - stored.moved_at)
        self.seating.tell(self.snapshot(self.journal.receipt(self.version)))

    # --- what the seats and sockets are told ----------------------------------------------

    @property
    def opponent(self) -> Opponent:
        return self.options.opponent

    @property
    def level(self) -> Level | None:
        """The computer's level at a computer table; None with a friend."""
        return self.options.level

    @property
    def practice(self) -> bool:
        """A friend's table made for practice: both seats may ask for hints."""
        return self.options.practice

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return self.seating.seats

    @property
    def slow(self) -> bool:
        """Kept for days without a move: a slow table ("Take your time") whose partie was
        not abandoned (app/registry.py)."""
        result = self.state.result
        return self.options.slow and (result is None or result.abandoned is None)

    def snapshot(self, receipt: str) -> Snapshot:
        """The room as every socket is to be told it now (app/seat_view.py), with the
        receipt of its version; who is here, the seating stamps on it."""
        if self.working.state is not self.state:
            self.working = Working(self.state)
        return Snapshot(
            room_id=self.room_id, opponent=self.opponent, level=self.level,
            version=self.version, match=self.match, working=self.working, receipt=receipt,
            practice=self.practice, hints=self.hints, can_new_match=self.can_new_match(),
            rematch=tuple(sorted(self.rematch)), waiting_for_store=self.journal.waiting,
            notice=self.notice, seating=self.options.seating, pace=self.options.pace,
            listing=self.listing if self.waiting_for_stranger() else None)

    def connections(self) -> list[Connection]:
        """Every socket of the room: both seats', then the watchers'."""
        return self.seating.connections()

    def seat_connections(self, seat: int) -> list[Connection]:
        return self.seating.seats[seat].connections

    def attach(self, conn: Connection) -> None:
        """A seat's socket has joined: it is owed its state, and the others are told."""
        self.seating.attach(conn)
        self.touch()
        if self.computer is not None:
            self.computer.poke()  # it waits for a person at the table to show the cut to

    def attach_watcher(self, conn: Connection) -> bool:
        return self.seating.attach_watcher(conn)

    def detach(self, conn: Connection) -> None:
        if self.seating.detach(conn) and conn.seat != WATCHER:
            self.touch()

    def go_on(self, conn: Connection, version: int) -> None:
        """The person has seen the trick: the computer's hold ends (nothing else changes)."""
        if conn.seat == WATCHER:
            self.refuse(conn, "not_allowed", WATCHING)
        elif self.computer is not None and version == self.version:
            self.computer.go_on()

    def ask(self, conn: Connection, message: HintMessage | ReviewMessage) -> None:
        """A hint or a review, answered to this socket only; the partie does not change."""
        self.coach.answer(conn, message)

    def shown(self, seen: str | None) -> int | None:
        """The version a seat coming back proves it was shown ("VERSION.RECEIPT")."""
        return self.journal.shown(seen)

    def error(self, conn: Connection, code: ErrorCode, message: Said) -> None:
        """An error alone (`rate_limited`: the socket is closed next)."""
        conn.send(self._error(conn, code, message))

    def refuse(self, conn: Connection, code: ErrorCode, message: Said) -> None:
        """A clear error, then the current state, so the client is never left guessing:
        the state comes after the error even if one was owed already. Its message is said
        in the socket's language."""
        self.seating.refuse(conn, self._error(conn, code, message))

    def _error(self, conn: Connection, code: ErrorCode, message: Said) -> str:
        # The seat is told its legal cards; the log names no card a seat holds.
        log.info("refused room=%s seat=%d code=%s: %s", self.room_id, conn.seat, code,
                 card_free(render(message, None) or ""))
        return error_text(code, render(message, conn.lang) or "", self.version)

    # --- seats ----------------------------------------------------------------------------

    def seat_for_token(self, token: str | None) -> int | None:
        return self.seating.seat_for_token(token)

    def person_present(self) -> bool:
        """Someone has the table open in the computer's opponent's seat."""
        return bool(self.seating.seats[1 - COMPUTER_SEAT].connections)

    def has_free_seat(self) -> bool:
        return self.opponent == "friend" and self.seating.seats[1].token_hash is None

    def waiting_for_stranger(self) -> bool:
        """An open table (anyone may sit down) whose second seat nobody has taken."""
        return self.options.seating == "open" and self.has_free_seat()

    def set_listing(self, listing: Listing | None) -> None:
        """The lobby's news of this open table (app/lobby.py): listed, or no longer and
        why. Every socket is told (the partie is unchanged: the same version). A table
        listed again, or that has just left the list, counts from now towards closing
        unused (its maker is offered to wait again or to play the computer)."""
        if listing == self.listing or self.closed:
            return
        self.listing = listing
        if self.waiting_for_stranger():
            self.last_move = self.setup.clock()
            self.seating.tell(self.snapshot(self.journal.receipt(self.version)))

    async def claim_free_seat(self, name: str = "") -> tuple[int, str] | None:
        """A friend's first visit takes seat 1, going by `name`; None when the table is
        full (here, or in the store: another process may have given it away, to a friend
        or the computer). The seat, its name and the new cut (the one made with the room
        was only a placeholder) are one change, under the room's lock: a seat claimed and
        a seat given to the computer never both succeed."""
        async with self.lock:
            if self.closed or not self.has_free_seat():
                return None
            token = new_token()
            try:
                await self._fresh_partie(claim=(1, hash_token(token)), name=name)
            except SeatTaken:
                return None
            except (VersionConflict, StoreUnknown):
                self._let_go_soon(MOVED)  # another process has the room: the page reconnects
                return None
        self.touch()
        self.seating.tell_presence()
        return 1, token

    def touch(self) -> None:
        self.last_activity = self.setup.clock()

    def can_new_match(self) -> bool:
        return self.opponent == "computer" or self.state.step is engine.Step.PARTIE_OVER

    # --- the one way a move is made -------------------------------------------------------

    async def submit(self, seat: int, action: dict[str, Any], version: int,
                     reply_to: Connection | None = None,
                     message_id: str | None = None) -> Outcome:
        """`seat`'s move, made on `version`: an engine action, or the table's own
        {"type": "new_match"} or {"type": "computer_seat", "level": ...}. Checked, then
        made once or refused; a refusal is said to `reply_to` (the socket it came on: none
        for the computer). If made, every socket is owed the new state, `reply_to`'s
        written first."""
        async with self.lock:
            outcome = await self._submit(seat, action, version, reply_to, message_id)
        if self.computer is not None and seat != COMPUTER_SEAT:
            self.computer.poke()
        return outcome

    async def _submit(self, seat: int, action: dict[str, Any], version: int,
                      reply_to: Connection | None, message_id: str | None) -> Outcome:
        if self.closed:
            return self._refuse(reply_to, seat, "unavailable", CLOSED, "closed")
        if seat == WATCHER:
            return self._refuse(reply_to, seat, "not_allowed", WATCHING)
        if reply_to is not None:
            self.touch()
        if message_id is not None and not self.ids[seat].use(message_id):
            return self._refuse(reply_to, seat, "duplicate_id", N_(
                "Message id {id} was already used by this seat; it is not applied again.",
                id=repr(message_id)))
        if version != self.version:
            return self._refuse(reply_to, seat, "stale_version", N_(
                "Made on version {made}; the table is at version {now}.", made=version,
                now=self.version), "stale")
        try:
            kind = action.get("type")
            if kind == "new_match":
                return await self._new_match(seat, reply_to)
            if kind == "computer_seat":
                return await self._give_seat_to_computer(seat, action["level"], reply_to)
            if kind == "abandon":
                return await self._end_for_absence(seat, reply_to)
            return await self._move(seat, action, reply_to)
        except StoreError as exc:
            return self._store_failed(exc, seat, reply_to)

    def _store_failed(self, exc: StoreError, seat: int, reply_to: Connection | None) -> Outcome:
        """The store did not keep `seat`'s move (nothing changed here): what the seats are
        told, the one place it is decided. A seat taken meanwhile is a refusal; another
        process has the room, or the store's answer is unknown: the room lets go (its
        sockets reconnect and read the room as kept); a full disk: both seats are told
        the table cannot save (until a change is kept again); not answering: the mover
        is told to try again, and the computer tries again by itself."""
        if isinstance(exc, SeatTaken):
            return self._refuse(reply_to, seat, "not_allowed",
                                N_("Your friend has just taken the seat."))
        if isinstance(exc, VersionConflict):
            self._let_go_soon(MOVED)
            return "let_go"
        log.error("store failed room=%s seat=%d: %s", self.room_id, seat, exc)
        if isinstance(exc, StoreUnknown):
            self._let_go_soon(
                "The table's store did not answer, so whether your last move was kept is "
                "not known yet; reconnecting shows the table as it is kept."
                if reply_to is not None else
                "The table's store did not answer; reconnecting shows the table as it is "
                "kept.")
            return "let_go"
        if isinstance(exc, StoreFull):
            self.notice = CANNOT_SAVE
            self.seating.tell(self.snapshot(self.journal.receipt(self.version)))
            return self._refuse(reply_to, seat, "unavailable", CANNOT_SAVE, "unavailable")
        if reply_to is None:  # the computer tries again: the table says it waits
            if not self.journal.waiting:
                self._store_waiting(True)
            return "unavailable"
        return self._refuse(reply_to, seat, "unavailable", N_(
            "The table's store is not answering just now; nothing changed. Try again in a "
            "moment."), "unavailable")

    def _refuse(self, reply_to: Connection | None, seat: int, code: ErrorCode, message: Said,
                outcome: Outcome = "refused") -> Outcome:
        if reply_to is not None:
            self.refuse(reply_to, code, message)
        elif outcome == "refused":  # the computer's move refused: a bug in its level
            log.error("computer's move refused room=%s seat=%d code=%s: %s", self.room_id,
                      seat, code, card_free(render(message, None) or ""))
        return outcome

    async def _move(self, seat: int, action: dict[str, Any],
                    reply_to: Connection | None) -> Outcome:
        pack = self.setup.new_pack() if action.get("type") in DEALING else None
        try:
            state = engine.apply(self.state, seat, action, pack=pack)
        except engine.MalformedActionError as exc:
            return self._refuse(reply_to, seat, "bad_message", exc)
        except engine.OutOfTurnError as exc:
            return self._refuse(reply_to, seat, "out_of_turn", exc)
        except engine.PiquetError as exc:  # IllegalActionError and any other refusal
            return self._refuse(reply_to, seat, "illegal_action", exc)
        except Exception:
            log.exception("engine failed room=%s seat=%d", self.room_id, seat)
            return self._refuse(reply_to, seat, "internal",
                                N_("The server failed on that action; nothing changed."))
        if state.deal_number == self.state.deal_number:
            pack = None  # it dealt nothing (a see or such)
        entry: Entry = (seat, action, pack)
        await self._change(change_for_action(self.version + 1, *entry), state, reply_to)
        if self.computer is None or seat != COMPUTER_SEAT:
            self.used = True
        return "applied"

    async def _new_match(self, seat: int, reply_to: Connection | None) -> Outcome:
        if not self.can_new_match():
            return self._refuse(reply_to, seat, "not_allowed", N_(
                "At a friend's table a new match starts once the partie is over."))
        if self.opponent == "friend":
            return await self._ask_rematch(seat, reply_to)
        await self._fresh_partie(reply_to=reply_to)
        self.used = True
        log.info("new match room=%s seat=%d", self.room_id, seat)
        return "applied"

    async def _ask_rematch(self, seat: int, reply_to: Connection | None) -> Outcome:
        """A friend's table after the partie: "Play again" by both starts a new partie,
        the other seat dealing first this time; the first press is a change both see."""
        if seat in self.rematch:
            return self._refuse(reply_to, seat, "not_allowed",
                                N_("You asked to play again; waiting for your friend."))
        if not self.rematch:  # the first press: stored first, like any change
            receipt = await self._commit(Change(self.version + 1, "rematch", rematch=(seat,)))
            self.rematch.add(seat)
            self._install(self.state, receipt, reply_to)
            return "applied"
        # Both have pressed: the new partie (it clears `rematch`).
        last = self.state.first_dealer
        await self._fresh_partie(first_dealer=None if last is None else 1 - last,
                                 reply_to=reply_to)
        self.used = True
        log.info("rematch room=%s", self.room_id)
        return "applied"

    async def _give_seat_to_computer(self, seat: int, level: ComputerLevel,
                                     reply_to: Connection | None) -> Outcome:
        """A friend who never came: the maker gives the free seat to the computer, and the
        partie starts afresh (a new cut) against it. The link then finds a full table.
        At a table of strangers, a player whose opponent has been away `away_seconds`
        may do the same with the absent seat (`_take_over`)."""
        if self.stranger_away(seat, self.setup.away_seconds):
            return await self._take_over(seat, level, reply_to)
        if not self.has_free_seat() or seat != 0:
            return self._refuse(reply_to, seat, "not_allowed", N_(
                "Only the table's maker may give the free seat to the computer, while "
                "nobody has taken it; at a table of strangers, either player may once the "
                "other has been away a minute."))
        await self._fresh_partie(reply_to=reply_to, computer_level=level)
        self.used = True
        self.seating.tell_presence()
        log.info("computer seat room=%s level=%s", self.room_id, level)
        return "applied"

    def stranger_away(self, seat: int, seconds: float) -> bool:
        """At a table of strangers, both seats taken, the seat other than `seat` has had
        no socket open for `seconds` at least."""
        return (self.options.seating == "open" and self.opponent == "friend"
                and seat in (0, 1) and all(s.token_hash for s in self.seating.seats)
                and self.seating.away_for(1 - seat) >= seconds)

    async def _take_over(self, seat: int, level: ComputerLevel,
                         reply_to: Connection | None) -> Outcome:
        """A stranger left: the absent seat goes to the computer and `seat`'s player gets
        a new partie against it, in seat 0 (the computer's is seat 1: a player in seat 1
        moves over, its token with it, and its sockets reconnect there). The absent
        player, back, holds no seat: it watches, told why."""
        absent = self.options.names[1 - seat]
        token_hash = self.seating.seats[seat].token_hash
        assert token_hash is not None
        await self._fresh_partie(
            reply_to=reply_to, computer_level=level, take_over=(0, token_hash),
            names=(self.options.names[seat], ""),
            notice=N_("{name} was away, so their seat went to the computer.", name=absent)
            if absent else N_("Your opponent was away, so their seat went to the computer."))
        self.used = True
        # Seat 1's player (if it was the one left) is seat 0's now; the absent one is no
        # seat's: their sockets reconnect, and find where they are.
        for number in (0, 1) if seat == 1 else (1,):
            for conn in list(self.seating.seats[number].connections):
                conn.close(CLOSE_GOING_AWAY, "Your seat at this table changed; reconnect.")
        self.seating.tell_presence()
        log.info("computer took an absent seat room=%s level=%s", self.room_id, level)
        return "applied"

    async def _end_for_absence(self, seat: int, reply_to: Connection | None) -> Outcome:
        """At a table of strangers, a player whose opponent has been away
        `abandon_seconds` ends the partie, recorded as abandoned by the absent seat."""
        if (not self.stranger_away(seat, self.setup.abandon_seconds)
                or self.state.step is engine.Step.PARTIE_OVER):
            return self._refuse(reply_to, seat, "not_allowed", N_(
                "A partie may be ended for the other player's absence at a table of "
                "strangers only, once they have been away three minutes."))
        return await self.end_abandoned(1 - seat, reply_to)

    async def end_abandoned(self, seat: int, reply_to: Connection | None = None) -> Outcome:
        """The partie ends here, abandoned by `seat` (its player left the table): the
        table's own entry (engine.NO_SEAT's {"type": "abandon", "seat": seat}), stored
        like any change and told to every socket; the result names the seat
        (engine.abandon). The caller holds the lock, and has checked it may."""
        state = engine.abandon(self.state, seat)
        entry = {"type": "abandon", "seat": seat}
        await self._change(change_for_action(self.version + 1, engine.NO_SEAT, entry),
                           state, reply_to)
        self.used = True
        log.info("partie abandoned room=%s seat=%d", self.room_id, seat)
        return "applied"

    async def leave(self, seat: int) -> bool:
        """`seat`'s player leaves a friend's (or a stranger's) table for good, from the
        lobby's "My tables": a partie under way with both seats taken ends here, abandoned
        by them, and every socket is told (`end_abandoned`, under the lock). True if it
        ended so; False if there was none to end. StoreError: nothing changed."""
        async with self.lock:
            if (self.closed or self.opponent != "friend" or self.has_free_seat()
                    or self.state.step is engine.Step.PARTIE_OVER):
                return False
            try:
                await self.end_abandoned(seat)
            except (VersionConflict, StoreUnknown):
                self._let_go_soon(MOVED)  # another process has the room: try again there
                raise
        return True

    async def _fresh_partie(
        self,
        *,
        first_dealer: int | None = None,
        reply_to: Connection | None = None,
        computer_level: ComputerLevel | None = None,
        claim: tuple[int, str] | None = None,
        name: str = "",
        take_over: tuple[int, str] | None = None,
        names: tuple[str, str] | None = None,
        notice: Said | None = None,
    ) -> None:
        """A new partie in this room (a new match: every socket's log starts again),
        stored first (the caller holds the lock). `computer_level`: seat 1 goes to the
        computer, at that level, from this partie on; `claim`: a friend takes seat 1 (its
        token's digest), going by `name`. Either needs seat 1 still free (SeatTaken),
        unless the computer takes over an absent stranger's seat (`take_over`: the
        present player's seat and token digest; `names`: the seats' names from now)."""
        pack = self.setup.new_pack() if first_dealer is not None else None
        state = engine.new_partie(seed=self.setup.new_seed(), first_dealer=first_dealer,
                                  pack=pack, rules=self.options.rules)
        options = self.options
        if computer_level is not None:
            options = options.with_computer(computer_level)
        if claim is not None:
            options = options.with_name(claim[0], name)
        if names is not None:
            options = replace(options, names=names)
        free = 1 if take_over is None and (computer_level or claim) else None
        if free is not None and self.seating.seats[free].token_hash is not None:
            raise SeatTaken(f"seat {free} is taken")
        receipt = await self._commit(Change(
            self.version + 1, "match", match=self.match + 1, seed=state.seed,
            first_dealer=first_dealer, first_pack=pack, options=options.to_json(),
            claim=claim or take_over, free=free))
        # Only once stored: a refused write changes nothing.
        self.options = options
        self.seating.names = options.names
        if computer_level is not None:
            self._seat_computer(computer_level)
            self.hints = hints_at(self.opponent, self.practice)
        for taken in (claim, take_over):
            if taken is not None:
                self.seating.seats[taken[0]].token_hash = taken[1]
        if claim is not None:
            self.listing = None
        self.match += 1
        self.rematch.clear()
        self.notice = None
        self._install(state, receipt, reply_to, notice=notice)

    # --- a change: stored, installed, told ------------------------------------------------

    async def _change(self, change: Change, state: engine.State,
                      reply_to: Connection | None, notice: Said | None = None) -> None:
        self._install(state, await self._commit(change), reply_to, notice=notice)

    async def _commit(self, change: Change) -> str:
        """Write the coming change to the journal and the store before anyone is told
        (the caller holds the lock, and installs it next); the new version's receipt.
        StoreError: not kept, and the caller changes nothing. While the store is slow to
        answer, every socket is told the table waits for it."""
        return await self.journal.commit(change, self.version, self._store_waiting)

    def _store_waiting(self, waiting: bool) -> None:
        """The store is slow to answer (or a move it did not keep will be tried again: the
        computer's), or answers again: every socket's room.store says so."""
        self.journal.waiting = waiting
        self.seating.tell(self.snapshot(self.journal.receipt(self.version)))

    def _install(self, state: engine.State, receipt: str, first: Connection | None = None,
                 *, notice: Said | None = None) -> None:
        """The new state, committed already (the caller holds the lock): one version up,
        and every socket handed it, `first` (the mover's) first. `notice`: what both
        seats are told of it (else a notice goes with the deal it was told for)."""
        if (notice is not None or state.deal_number != self.state.deal_number
                or self.notice == CANNOT_SAVE):  # (kept again: the store has room)
            self.notice = notice
        ended = state.step in _OVER and self.state.step not in _OVER
        self.state = state
        self.version += 1
        self.touch()
        self.last_move = self.last_activity
        self._schedule_trim()
        for listener in self.setup.listeners:  # before anyone is told: a store is never behind
            listener(self)
        self.seating.tell(self.snapshot(receipt), first=first)
        if ended:
            self.coach.deal_ended(state.deal_number, state.step is engine.Step.PARTIE_OVER)

    def _schedule_trim(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # (a test driving a room without a loop: nothing to trim for)
        self.changed_at = loop.time()
        if self.trim is None:
            self.trim = loop.call_later(TRIM_SECONDS, self._trim)

    def _trim(self) -> None:
        """A table nobody has acted at for TRIM_SECONDS keeps its state but not what its
        views worked out (~15 KB: 5,000 tables at a person's pace are mostly idle, and a
        view's working pays only from one action to the next). One timer a room, put
        back while actions keep coming."""
        loop = asyncio.get_running_loop()
        quiet = loop.time() - self.changed_at
        if quiet < TRIM_SECONDS and not self.closed:
            self.trim = loop.call_later(TRIM_SECONDS - quiet, self._trim)
            return
        self.trim = None
        self.state.forget_views()
        self.working.forget()

    # --- closing --------------------------------------------------------------------------

    async def close(self, code: int, reason: str) -> None:
        self.closed = True
        if self.trim is not None:
            self.trim.cancel()
            self.trim = None
        if self.computer is not None:
            await self.computer.stop()
        self.seating.close(code, reason)

    def _let_go_soon(self, reason: str) -> None:
        """`let_go`, from a task of its own (a move's submitter, the computer's task
        among them, is not to wait for its own end); the room takes no move from now."""
        self.closed = True
        self._letting_go = asyncio.ensure_future(self.let_go(reason))

    async def let_go(self, reason: str = MOVED) -> None:
        """The store refused a write (another process has changed this room since), or
        did not answer: this copy can no longer be trusted. Close it here; its sockets
        reconnect (1012) and reach the owner, or load it afresh. The registry forgets a
        closed room (`find`)."""
        log.warning("room let go room=%s version=%d: %s", self.room_id, self.version, reason)
        await self.close(CLOSE_GOING_AWAY, reason)

    async def recover(self, shown: int) -> None:
        """A seat proves it was shown version `shown` (its receipt), and this room, as the
        store holds it, is older: the store lost moves both seats may have seen, and no
        process still has them. The room is not resumed as if nothing happened: the deal
        under way is void and dealt again with a new pack (before the first deal or after
        the partie, the partie starts again), both seats are told why, and no card they
        were shown comes back into a hand to be played again."""
        async with self.lock:
            if self.closed or shown <= self.version:
                return  # dealt with already (the other seat came back first)
            log.error("store behind room=%s: it holds version %d, a seat was shown %d",
                      self.room_id, self.version, shown)
            try:
                if self.state.deal_number >= 1 and self.state.step not in (
                        engine.Step.CHOOSE_DEALER, engine.Step.PARTIE_OVER):
                    pack = secure_pack()
                    state = engine.deal_again(self.state, pack, DEALT_AGAIN)
                    await self._change(change_for_action(
                        self.version + 1, engine.NO_SEAT, {"type": "deal_again"}, pack),
                        state, None, notice={"code": DEALT_AGAIN})
                else:
                    await self._fresh_partie(notice=STARTED_AGAIN)
            except StoreError as exc:
                log.error("store failed room=%s recovering: %s", self.room_id, exc)
                await self.let_go("The table's store is not answering; reconnect.")

    def stored(self) -> StoredRoom:
        """This room as a new entry for the store (its actions so far: none)."""
        return StoredRoom(self.room_id, self.options.to_json(), self.state.seed, self.match,
                          self.version, [s.token_hash for s in self.seating.seats],
                          first_dealer=self.state.first_dealer, rematch=sorted(self.rematch),
                          secret=self.journal.secret)

