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
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import orjson

import engine
from app.computer_seat import COMPUTER_SEAT, ComputerSeat, Policy
from app.connection import Connection
from app.journal import Journal
from app.padding import pad, view_ceiling
from app.protocol import (
    CLOSE_GOING_AWAY,
    CLOSE_REPLACED,
    ActionMessage,
    ComputerLevel,
    ComputerSeatMessage,
    ErrorCode,
    ErrorMessage,
    Level,
    NewMatchMessage,
    Opponent,
    PresenceMessage,
)
from app.security import RateLimit, card_free
from app.store import (
    Change,
    Entry,
    Pack,
    RoomStore,
    SeatTaken,
    StoredRoom,
    StoreError,
    StoreUnknown,
    VersionConflict,
    change_for_action,
    hash_token,
)

log = logging.getLogger("piquet.rooms")

Clock = Callable[[], float]
SeedSource = Callable[[], int]
# A new deal's pack, drawn when it is dealt; None: the engine's own, from the partie's
# seed (tests and tools that fix the deals by seed).
PackSource = Callable[[], Pack | None]
ChangeListener = Callable[["Room"], None]

# The actions that deal a hand, and so bring a pack with them.
DEALING = frozenset({"choose_dealer", "next_deal"})
# The table itself, not a seat, in a stored entry: a deal dealt again (`Room.recover`).
TABLE = -1
DEALT_AGAIN = ("The table's store lost a move both seats had been shown. So that no move "
               "can be taken back, this deal was dealt again with a new pack.")
STARTED_AGAIN = ("The table's store lost a move both seats had been shown. So that no move "
                 "can be taken back, the partie starts again.")

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
_presence_due: weakref.WeakKeyDictionary[Room, int | None] = weakref.WeakKeyDictionary()
# A seat's latest ids are remembered, so that a message resent after a reconnect is told
# `duplicate_id`. Never applying a message twice does not rest on this: a message names
# the version it was made on, and once applied that version is gone. So a few dozen are
# plenty (a resend is of the last message or two), and at ~140 bytes an id, 256 of them
# a seat was ~70 KiB a room.
REMEMBERED_IDS = 32


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 bits; DESIGN.md asks >= 128


def secure_pack() -> Pack:
    """A pack shuffled from the operating system's secure source, drawn as it is dealt."""
    deck = [c.code for c in engine.DECK]
    secrets.SystemRandom().shuffle(deck)
    return tuple(deck)


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


# A table whose state has not changed for this long drops its views' working (Room._trim).
TRIM_SECONDS = 2.0


def _presence_now(room: weakref.ref[Room]) -> None:
    found = room()
    if found is not None:
        skip = _presence_due.pop(found, None)
        found._send_presence(next((c for c in found.connections() if id(c) == skip), None))


class Room:
    # Slots: one dict fewer per room (docs/reliability.md); __weakref__ for the tests that
    # check an expired room is freed.
    __slots__ = ("__weakref__", "changed_at", "clock", "closed", "computer", "computer_pace",
                 "computer_setup", "journal", "last_activity", "last_move", "level",
                 "listeners", "lock", "match", "max_connections_per_seat", "new_pack",
                 "new_seed", "notice", "opponent", "rematch", "room_id", "seats", "state",
                 "store", "trim", "used", "version", "watchers", "workers")

    def __init__(
        self,
        room_id: str,
        opponent: Opponent,
        *,
        clock: Clock,
        new_seed: SeedSource,
        policy: Policy | None,
        computer_delay: float,
        max_connections_per_seat: int,
        listeners: list[ChangeListener],
        computer_exchange_delay: float = 0.0,
        computer_lead_delay: float = 0.0,
        computer_trick_hold: float = 0.0,
        computer_declare_delay: float | None = None,
        level: Level = "basic",
        workers: Callable[[], Executor | None] | None = None,
        computer_pace: float = 0.0,
        maker_token_hash: str | None = None,
        store: RoomStore | None = None,
        new_pack: PackSource = secure_pack,
        secret: str = "",
    ) -> None:
        self.room_id = room_id
        self.level: Level | None = level if opponent == "computer" else None
        self.opponent: Opponent = opponent
        self.clock = clock
        self.new_seed = new_seed
        self.new_pack = new_pack
        self.max_connections_per_seat = max_connections_per_seat
        self.listeners = listeners
        self.lock = asyncio.Lock()
        self.state: engine.State = engine.new_partie(seed=new_seed())
        # When the state last changed (the event loop's clock), and the timer that drops
        # the views' working once nobody has acted for TRIM_SECONDS (`_trim`).
        self.changed_at = 0.0
        self.trim: asyncio.TimerHandle | None = None
        self.version = 1
        self.match = 1  # counts new matches, so each socket knows when its log restarts
        self.seats = (Seat(maker_token_hash or hash_token(new_token())), Seat(None))
        # Where every change is written before anyone is told (None: memory only), and
        # what the room keeps of its writes and receipts.
        self.store = store
        self.journal = Journal(room_id, store, secret)
        self.last_activity = clock()
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
        # What a computer seat is made with, here or later (a friend who never came).
        self.computer_setup = (policy, computer_delay, computer_exchange_delay,
                               computer_lead_delay, computer_trick_hold, computer_declare_delay)
        # Where the good and strong levels think (the registry's pool, made on first use).
        self.workers = workers
        self.computer_pace = computer_pace
        if opponent == "computer":
            self.computer = self._computer_seat(level)
        # Friend's table, partie over: the seats that pressed "Play again".
        self.rematch: set[int] = set()
        # Sockets watching: no seat, the public view only (see "watchers" below).
        self.watchers: list[Connection] = []

    def _computer_seat(self, level: Level) -> ComputerSeat:
        executor = self.workers() if self.workers is not None and level != "basic" else None
        return ComputerSeat(self, *self.computer_setup, level=level, executor=executor,
                            pace=self.computer_pace)

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
        self.last_activity = self.clock()

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

    def can_new_match(self) -> bool:
        return self.opponent == "computer" or self.state.phase is engine.Phase.PARTIE_OVER

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
                "store": "waiting" if self.journal.waiting else "ok",
                "notice": self.notice,
                "receipt": self.journal.receipt(self.version),
            },
        }
        body = orjson.dumps(message)
        if watching:
            return body.decode()  # public: nothing to hide
        # A seat's view is padded to the most it could hold now, by what is public, so
        # the frame's length tells nothing of its cards (app/padding.py).
        ceiling = view_ceiling(engine.public_view(self.state, log=False), conn.seat)
        padded = pad(body, len(view_json), ceiling)
        if padded is None:  # (a bug: the view outgrew its ceiling) coarsely, and said
            log.warning("state outgrew its padding room=%s seat=%d step=%s: %d > %d bytes",
                        self.room_id, conn.seat, view["step"], len(view_json), ceiling)
            padded = pad(body, len(view_json), -(-len(view_json) // 1024) * 1024)
            assert padded is not None
        return padded.decode()

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
        return self._state_message(conn, engine.public_view(self.state, log=False))

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
        pack = self.new_pack() if action.get("type") in DEALING else None
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
        pack = self.new_pack() if first_dealer is not None else None
        state = engine.new_partie(seed=self.new_seed(), first_dealer=first_dealer, pack=pack)
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
        """What the room is made with, as the store keeps it: the opponent, and the
        computer's level at a computer table."""
        if self.level is None:
            return {"opponent": self.opponent}
        return {"opponent": self.opponent, "level": self.level}

    def change(self, state: engine.State, *, skip: Connection | None = None) -> None:
        """Install a new state (the caller holds the lock, and has committed it): one
        version up, and every socket owed its new state, but `skip`, which the caller
        writes."""
        if state.deal_number != self.state.deal_number:
            self.notice = None  # told for the deal dealt again; gone with it
        self.state = state
        self.version += 1
        self.touch()
        self.last_move = self.last_activity
        self._schedule_trim()
        for listener in self.listeners:  # before anyone is told: a store is never behind
            listener(self)
        for conn in self.connections():
            if conn is not skip:
                conn.want_state()

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
