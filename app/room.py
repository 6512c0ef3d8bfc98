"""One table: its partie, its two seats and their sockets, and its watchers.

Every change to a room's partie goes through `Room.act` (a seat's message), the
computer seat (app/computer_seat.py) or a seat being taken, all under the room's one
asyncio.Lock, so changes are made one at a time in arrival order. Every change is
written to the store first (`Room.commit`, through the room's journal: app/journal.py),
then installed (`Room.change`). Each change bumps `version` by one and owes every
socket its own seat's view (`state_text`, written when the socket's turn to be written
comes); nothing else is ever sent about the partie. Each deal's pack is drawn when it is
dealt (`new_pack`: a secure shuffle), so no future deal exists anywhere.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

import engine
from app.coach import Coach
from app.computer_seat import COMPUTER_SEAT, ComputerSeat
from app.connection import Connection
from app.journal import Journal
from app.lessons import Start
from app.padding import Ceilings
from app.protocol import (
    CLOSE_GOING_AWAY,
    ActionMessage,
    ComputerLevel,
    ComputerSeatMessage,
    Level,
    NewMatchMessage,
    Opponent,
)
from app.room_setup import RoomSetup, new_token, secure_pack
from app.room_talk import WATCHER, RoomTalk, Seat
from app.store import (
    Change,
    Entry,
    SeatTaken,
    StoredRoom,
    StoreError,
    StoreUnknown,
    VersionConflict,
    change_for_action,
    hash_token,
)

log = logging.getLogger("piquet.rooms")

# The actions that deal a hand, and so bring a pack with them.
DEALING = frozenset({"choose_dealer", "next_deal"})
# The table itself, not a seat, in a stored entry: a deal dealt again (`Room.recover`).
TABLE = -1
DEALT_AGAIN = ("The table's store lost a move both seats had been shown. So that no move "
               "can be taken back, this deal was dealt again with a new pack.")
STARTED_AGAIN = ("The table's store lost a move both seats had been shown. So that no move "
                 "can be taken back, the partie starts again.")



# A table whose state has not changed for this long drops its views' working (Room._trim).
TRIM_SECONDS = 2.0


_OVER = (engine.Step.DEAL_OVER, engine.Step.PARTIE_OVER)


class Room(RoomTalk):
    # Slots: one dict fewer per room (docs/reliability.md); __weakref__ for the tests that
    # check an expired room is freed.
    __slots__ = ("__weakref__", "changed_at", "closed", "coach", "computer", "journal",
                 "last_activity", "last_move", "level", "lock", "match",
                 "max_connections_per_seat", "notice", "opponent", "practice", "rematch",
                 "room_id", "seats", "setup", "state", "store", "trim", "used", "version",
                 "watchers")

    def __init__(self, room_id: str, opponent: Opponent, setup: RoomSetup, *,
                 level: Level = "basic", maker_token_hash: str | None = None,
                 secret: str = "", practice: bool = False) -> None:
        self.room_id = room_id
        self.setup = setup
        self.level: Level | None = level if opponent == "computer" else None
        self.opponent: Opponent = opponent
        # A friend's table made for practice: both seats may ask for hints (issue 26).
        self.practice = practice and opponent == "friend"
        self.max_connections_per_seat = setup.max_connections_per_seat
        self.lock = asyncio.Lock()
        self.state: engine.State = engine.new_partie(seed=setup.new_seed())
        # When the state last changed (the event loop's clock), and the timer that drops
        # the views' working once nobody has acted for TRIM_SECONDS (`_trim`).
        self.changed_at = 0.0
        self.trim: asyncio.TimerHandle | None = None
        self.ceilings: Ceilings | None = None  # (app/room_talk.py `_ceilings`)
        self.version = 1
        self.match = 1  # counts new matches, so each socket knows when its log restarts
        self.seats = (Seat(maker_token_hash or hash_token(new_token())), Seat(None))
        # Where every change is written before anyone is told (None: memory only), and
        # what the room keeps of its writes and receipts.
        self.store = setup.store
        self.journal = Journal(room_id, setup.store, secret)
        self.last_activity = setup.clock()
        # When the partie last changed (a move, a new match): a room that has gone longest
        # without one gives way first when every table is taken (issue 25).
        self.last_move = self.last_activity
        # A person has acted here (a friend who joined and never moved has not). A room
        # never used expires sooner, sockets open or not, and gives way first.
        self.used = False
        # What both seats are told of something the table did (a deal dealt again).
        self.notice: str | None = None
        self.closed = False
        self.computer: ComputerSeat | None = None
        if opponent == "computer":
            self.computer = self._computer_seat(level)
        # Friend's table, partie over: the seats that pressed "Play again".
        self.rematch: set[int] = set()
        # Sockets watching: no seat, the public view only (see "watchers" below).
        self.watchers: list[Connection] = []
        # Hints, reviews, the record: what the partie was (app/coach.py).
        self.coach = Coach(self, setup.teacher, Start(self.state.seed, None, None))

    def _computer_seat(self, level: Level) -> ComputerSeat:
        setup = self.setup
        thinking = (setup.workers() if setup.workers is not None and level != "basic"
                    else None)
        return ComputerSeat(self, setup.policy, setup.computer_delay,
                            setup.computer_exchange_delay, setup.computer_lead_delay,
                            setup.computer_trick_hold, setup.computer_declare_delay,
                            level=level, thinking=thinking, pace=setup.computer_pace)

    def seat_connections(self, seat: int) -> list[Connection]:
        return self.seats[seat].connections

    # --- seats ----------------------------------------------------------------------------

    def seat_for_token(self, token: str | None) -> int | None:
        """The seat this token holds here, compared in constant time."""
        if not token:
            return None
        digest = hash_token(token).encode()
        found = None
        for number, seat in enumerate(self.seats):
            # Compare with both seats whatever happens, so the time says nothing.
            if seat.token_hash is not None and secrets.compare_digest(
                seat.token_hash.encode(), digest
            ):
                found = number
        return found

    def person_present(self) -> bool:
        """Someone has the table open in the computer's opponent's seat."""
        return bool(self.seats[1 - COMPUTER_SEAT].connections)

    def has_free_seat(self) -> bool:
        return self.opponent == "friend" and self.seats[1].token_hash is None

    async def claim_free_seat(self) -> tuple[int, str] | None:
        """A friend's first visit takes seat 1; None when the table is full (here, or in
        the store: another process may have given it away, to a friend or the computer).
        The seat and the new cut (the one made with the room was only a placeholder) are
        one change, under the room's lock: a seat claimed and a seat given to the
        computer never both succeed (issue 25)."""
        async with self.lock:
            if self.closed or not self.has_free_seat():
                return None
            token = new_token()
            digest = hash_token(token)
            try:
                await self._fresh_partie(claim=(1, digest))
            except SeatTaken:
                return None
            except (VersionConflict, StoreUnknown):
                await self.let_go()  # another process has the room: the page reconnects
                return None
        self.touch()
        self.broadcast_presence()
        return 1, token

    def touch(self) -> None:
        self.last_activity = self.setup.clock()

    def can_new_match(self) -> bool:
        return self.opponent == "computer" or self.state.phase is engine.Phase.PARTIE_OVER

    # --- changes --------------------------------------------------------------------------

    async def act(
        self, conn: Connection, msg: ActionMessage | NewMatchMessage | ComputerSeatMessage
    ) -> None:
        """A seat's action or new-match request: checked, then applied once or refused.
        If applied, the seat's new state goes out on `conn` at once, from this task."""
        async with self.lock:
            if self.closed:
                self.refuse(conn, "unavailable",
                            "This table is not taking moves just now (the server is "
                            "restarting, or the table moved); nothing changed. It will "
                            "reconnect by itself.")
                return
            if conn.seat == WATCHER:
                self.refuse(conn, "not_allowed", "You are watching this table: you cannot play.")
                return
            self.touch()
            if not self.seats[conn.seat].use_id(msg.id):
                self.refuse(
                    conn,
                    "duplicate_id",
                    f"Message id {msg.id!r} was already used by this seat; "
                    "it is not applied again.",
                )
                return
            if msg.version != self.version:
                self.refuse(
                    conn,
                    "stale_version",
                    f"Made on version {msg.version}; the table is at version {self.version}.",
                )
                return
            try:
                if isinstance(msg, NewMatchMessage):
                    changed = await self._new_match(conn)
                elif isinstance(msg, ComputerSeatMessage):
                    changed = await self._give_seat_to_computer(conn, msg.level)
                else:
                    changed = await self._apply_action(conn, msg.action)
            except VersionConflict:
                changed = False
                await self.let_go()
            except StoreUnknown as exc:
                changed = False
                log.error("store failed room=%s seat=%d: %s", self.room_id, conn.seat, exc)
                await self.let_go(
                    "The table's store did not answer, so whether your last move was kept "
                    "is not known yet; reconnecting shows the table as it is kept.")
            except SeatTaken:
                changed = False
                self.refuse(conn, "not_allowed", "Your friend has just taken the seat.")
            except StoreError as exc:
                changed = False
                log.error("store failed room=%s seat=%d: %s", self.room_id, conn.seat, exc)
                self.refuse(conn, "unavailable",
                            "The table's store is not answering just now; nothing changed. "
                            "Try again in a moment.")
        # Out of the lock (the write may wait on a slow socket: only this seat's own), and
        # with no wait since the change, so the state written is the one just made.
        if changed:
            await conn.send_state_now()
        if self.computer is not None:
            self.computer.poke()

    def apply(self, seat: int, action: dict[str, Any]) -> tuple[engine.State, Entry]:
        """`seat`'s action applied to the partie (not yet installed), and the entry that
        stores it: an action that deals brings a pack drawn now (PiquetError if refused)."""
        pack = self.setup.new_pack() if action.get("type") in DEALING else None
        state = engine.apply(self.state, seat, action, pack=pack)
        if state.deal_number == self.state.deal_number:
            pack = None  # it dealt nothing (a refusal raised above; this is a see or such)
        return state, (seat, action, pack)

    async def save_move(self, entry: Entry) -> None:
        """Store a move made on the current version (the caller holds the lock, and calls
        `change` next)."""
        await self.commit(change_for_action(self.version + 1, *entry))

    async def _apply_action(self, conn: Connection, action: dict[str, Any]) -> bool:
        try:
            state, entry = self.apply(conn.seat, action)
        except engine.MalformedActionError as exc:
            self.refuse(conn, "bad_message", str(exc))
        except engine.OutOfTurnError as exc:
            self.refuse(conn, "out_of_turn", str(exc))
        except engine.PiquetError as exc:  # IllegalActionError and any other refusal
            self.refuse(conn, "illegal_action", str(exc))
        except Exception:
            log.exception("engine failed room=%s seat=%d", self.room_id, conn.seat)
            self.refuse(conn, "internal", "The server failed on that action; nothing changed.")
        else:
            await self.save_move(entry)
            self.used = True
            self.change(state, skip=conn)
            return True
        return False

    async def _new_match(self, conn: Connection) -> bool:
        if not self.can_new_match():
            self.refuse(
                conn,
                "not_allowed",
                "At a friend's table a new match starts once the partie is over.",
            )
            return False
        if self.opponent == "friend":
            return await self._ask_rematch(conn)
        await self._fresh_partie(skip=conn)
        self.used = True
        log.info("new match room=%s seat=%d", self.room_id, conn.seat)
        return True

    async def _ask_rematch(self, conn: Connection) -> bool:
        """A friend's table after the partie: "Play again" by both starts a new partie,
        the other seat dealing first this time; the first press is a change both see."""
        if conn.seat in self.rematch:
            self.refuse(conn, "not_allowed", "You asked to play again; waiting for your friend.")
            return False
        if not self.rematch:  # the first press: stored first, like any change
            await self.commit(Change(self.version + 1, "rematch", rematch=(conn.seat,)))
            self.rematch.add(conn.seat)
            self.change(self.state, skip=conn)
            return True
        # Both have pressed: the new partie (it clears `rematch`).
        last = self.state.first_dealer
        await self._fresh_partie(first_dealer=None if last is None else 1 - last, skip=conn)
        self.used = True
        log.info("rematch room=%s", self.room_id)
        return True

    async def _give_seat_to_computer(self, conn: Connection, level: ComputerLevel) -> bool:
        """A friend who never came: the maker gives the free seat to the computer, and the
        partie starts afresh (a new cut) against it. The link then finds a full table."""
        if self.opponent != "friend" or self.seats[1].token_hash is not None or conn.seat != 0:
            self.refuse(conn, "not_allowed",
                        "Only the table's maker may give the free seat to the computer, "
                        "while nobody has taken it.")
            return False
        await self._fresh_partie(skip=conn, computer_level=level)
        self.used = True
        self.broadcast_presence()
        log.info("computer seat room=%s level=%s", self.room_id, level)
        return True

    async def _fresh_partie(
        self,
        *,
        first_dealer: int | None = None,
        skip: Connection | None = None,
        computer_level: ComputerLevel | None = None,
        claim: tuple[int, str] | None = None,
    ) -> None:
        """A new partie in this room (a new match: every socket's log starts again),
        stored first (the caller holds the lock). `computer_level`: seat 1 goes to the
        computer, at that level, from this partie on; `claim`: a friend takes seat 1 (its
        token's digest). Either needs seat 1 still free (SeatTaken)."""
        pack = self.setup.new_pack() if first_dealer is not None else None
        state = engine.new_partie(seed=self.setup.new_seed(), first_dealer=first_dealer,
                                  pack=pack)
        options = self.options()
        if computer_level is not None:
            options = {"opponent": "computer", "level": computer_level}
        free = 1 if computer_level is not None or claim is not None else None
        if free is not None and self.seats[free].token_hash is not None:
            raise SeatTaken(f"seat {free} is taken")
        await self.commit(Change(
            self.version + 1, "match", match=self.match + 1, seed=state.seed,
            first_dealer=first_dealer, first_pack=pack, options=options, claim=claim,
            free=free))
        # Only once stored: a refused write changes nothing.
        if computer_level is not None:
            self.opponent = "computer"
            self.level = computer_level
            self.computer = self._computer_seat(computer_level)
        if claim is not None:
            self.seats[claim[0]].token_hash = claim[1]
        self.match += 1
        self.rematch.clear()
        self.notice = None
        self.change(state, skip=skip)

    async def commit(self, change: Change) -> None:
        """Write the coming change to the store before anyone is told (the caller holds
        the lock, and calls `change` next). StoreError: not kept, and the caller changes
        nothing (VersionConflict, StoreUnknown: `let_go`). While the store is slow to
        answer, every socket is told the table waits for it."""
        await self.journal.commit(change, self.version, self._waiting_for_store)
        self.coach.note(change)

    def _waiting_for_store(self, waiting: bool) -> None:
        for conn in self.connections():
            conn.want_state()  # the state's room.store says "waiting", then "ok"

    def waiting_for_store(self) -> None:
        """A move could not be stored and will be tried again (the computer's): every
        socket is told the table waits for its store, until a write gets through."""
        if not self.journal.waiting:
            self.journal.waiting = True
            self._waiting_for_store(True)

    def options(self) -> dict[str, Any]:
        """What the room is made with, as the store keeps it: the opponent, the
        computer's level at a computer table, and whether a friend's table is for
        practice."""
        if self.level is not None:
            return {"opponent": self.opponent, "level": self.level}
        if self.practice:
            return {"opponent": self.opponent, "practice": True}
        return {"opponent": self.opponent}

    def change(self, state: engine.State, *, skip: Connection | None = None) -> None:
        """Install a new state (the caller holds the lock, and has committed it): one
        version up, and every socket owed its new state, but `skip`, which the caller
        writes."""
        if state.deal_number != self.state.deal_number:
            self.notice = None  # told for the deal dealt again; gone with it
        ended = state.step in _OVER and self.state.step not in _OVER
        self.state = state
        self.version += 1
        self.touch()
        self.last_move = self.last_activity
        self._schedule_trim()
        for listener in self.setup.listeners:  # before anyone is told: a store is never behind
            listener(self)
        for conn in self.connections():
            if conn is not skip:
                conn.want_state()
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
        self.ceilings = None

    async def close(self, code: int, reason: str) -> None:
        self.closed = True
        if self.trim is not None:
            self.trim.cancel()
            self.trim = None
        if self.computer is not None:
            await self.computer.stop()
        for conn in self.connections():
            conn.close(code, reason)

    async def let_go(self, reason: str = "This table moved to another server; reconnect.") \
            -> None:
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
                    await self.commit(change_for_action(
                        self.version + 1, TABLE, {"type": "deal_again"}, pack))
                    self.change(state)
                    self.notice = DEALT_AGAIN
                else:
                    await self._fresh_partie()
                    self.notice = STARTED_AGAIN
            except StoreError as exc:
                log.error("store failed room=%s recovering: %s", self.room_id, exc)
                await self.let_go("The table's store is not answering; reconnect.")

    def stored(self) -> StoredRoom:
        """This room as a new entry for the store (its actions so far: none)."""
        return StoredRoom(self.room_id, self.options(), self.state.seed, self.match,
                          self.version, [s.token_hash for s in self.seats],
                          first_dealer=self.state.first_dealer, rematch=sorted(self.rematch),
                          secret=self.journal.secret)
