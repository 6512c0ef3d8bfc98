"""Rooms in memory: one partie each, two seats, the sockets of each seat.

With a store (app/store.py), every change is written there first (`Room.save`), and a
room not in memory is loaded from it (`RoomRegistry.find`): memory is then a cache of
the rooms this process owns.

Every change to a room's partie goes through `Room.act` (a seat's message) or the
computer seat, both under the room's one asyncio.Lock, so actions are applied one
at a time in arrival order. Each change bumps `version` by one and owes every
socket its own seat's view (`state_text`, written when the socket's turn to be
written comes); nothing else is ever sent about the partie.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import orjson

import engine
from app.connection import Connection
from app.protocol import (
    CLOSE_GOING_AWAY,
    CLOSE_REPLACED,
    CLOSE_ROOM_EXPIRED,
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
from app.security import RateLimit
from app.store import RoomStore, StoredRoom, StoreError, VersionConflict, hash_token

log = logging.getLogger("piquet.rooms")

Clock = Callable[[], float]
SeedSource = Callable[[], int]
Policy = Callable[[dict[str, Any]], dict[str, Any]]
ChangeListener = Callable[["Room"], None]

COMPUTER_SEAT = 1
# A watching socket holds no seat: its `seat` is this, which indexes no seat.
WATCHER = -1
# Sockets that may watch one table at once (each costs a socket and a view per change).
MAX_WATCHERS = 16
# A seat's latest ids are remembered, so that a message resent after a reconnect is told
# `duplicate_id`. Never applying a message twice does not rest on this: a message names
# the version it was made on, and once applied that version is gone. So a few dozen are
# plenty (a resend is of the last message or two), and at ~140 bytes an id, 256 of them
# a seat was ~70 KiB a room.
REMEMBERED_IDS = 32


def new_room_id() -> str:
    return secrets.token_urlsafe(12)  # 96 bits; DESIGN.md asks >= 64


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 bits; DESIGN.md asks >= 128


def random_seed() -> int:
    return secrets.randbits(64)


class RoomsFullError(RuntimeError):
    """max_rooms rooms are open and in use, even after sweeping idle ones."""


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


class Room:
    # Slots: one dict fewer per room (docs/reliability.md); __weakref__ for the tests that
    # check an expired room is freed.
    __slots__ = ("__weakref__", "changed_at", "clock", "closed", "computer", "computer_pace",
                 "computer_setup", "last_activity", "level", "listeners", "lock", "match",
                 "max_connections_per_seat", "new_seed", "opponent", "rematch", "room_id",
                 "seats", "state", "store", "trim", "used", "version", "watchers",
                 "workers")

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
        level: Level = "basic",
        workers: Callable[[], Executor | None] | None = None,
        computer_pace: float = 0.0,
        maker_token_hash: str | None = None,
        store: RoomStore | None = None,
    ) -> None:
        self.room_id = room_id
        self.level: Level | None = level if opponent == "computer" else None
        self.opponent: Opponent = opponent
        self.clock = clock
        self.new_seed = new_seed
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
        # Where every change is written before anyone is told (None: memory only).
        self.store = store
        self.last_activity = clock()
        # A person has acted here, or a friend has taken the other seat. A room never used
        # expires sooner, and gives way first when every table is taken (issue 15).
        self.used = False
        self.closed = False
        self.computer: ComputerSeat | None = None
        # What a computer seat is made with, here or later (a friend who never came).
        self.computer_setup = (policy, computer_delay, computer_exchange_delay,
                               computer_lead_delay)
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

    def has_free_seat(self) -> bool:
        return self.opponent == "friend" and self.seats[1].token_hash is None

    async def claim_free_seat(self) -> tuple[int, str] | None:
        """A friend's first visit takes seat 1; None when the table is full (here, or
        in the store: another process may have given it away). The cut is made now, with
        both seated (the one made with the room was only a placeholder)."""
        if not self.has_free_seat():
            return None
        token = new_token()
        digest = hash_token(token)
        if self.store is not None and not await self.store.claim_seat(self.room_id, 1, digest):
            return None
        if self.seats[1].token_hash is not None:  # taken here while the store answered
            return None
        self.seats[1].token_hash = digest
        self.used = True
        self.touch()
        async with self.lock:
            try:
                await self._fresh_partie()
            except VersionConflict:
                await self.let_go()  # another process has the room: the page reconnects
            except StoreError as exc:  # the seat is taken; the room's first cut stands
                log.error("store failed room=%s new partie on join: %s", self.room_id, exc)
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
        message = {
            "type": "state",
            "version": self.version,
            "view": view,
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
            },
        }
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
        log.info("refused room=%s seat=%d code=%s: %s", self.room_id, conn.seat, code, message)
        return ErrorMessage(code=code, message=message, version=self.version).model_dump_json()

    # --- changes --------------------------------------------------------------------------

    async def act(
        self, conn: Connection, msg: ActionMessage | NewMatchMessage | ComputerSeatMessage
    ) -> None:
        """A seat's action or new-match request: checked, then applied once or refused.
        If applied, the seat's new state goes out on `conn` at once, from this task."""
        async with self.lock:
            if self.closed:
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
            except StoreError as exc:
                changed = False
                log.error("store failed room=%s seat=%d: %s", self.room_id, conn.seat, exc)
                self.refuse(conn, "internal",
                            "The table could not be saved just now; nothing changed.")
        # Out of the lock (the write may wait on a slow socket: only this seat's own), and
        # with no wait since the change, so the state written is the one just made.
        if changed:
            self.used = True
            await conn.send_state_now()
        if self.computer is not None:
            self.computer.poke()

    async def _apply_action(self, conn: Connection, action: dict[str, Any]) -> bool:
        try:
            state = engine.apply(self.state, conn.seat, action)
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
            await self.save(action=(conn.seat, action))
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
        log.info("new match room=%s seat=%d", self.room_id, conn.seat)
        return True

    async def _ask_rematch(self, conn: Connection) -> bool:
        """A friend's table after the partie: "Play again" by both starts a new partie,
        the other seat dealing first this time; the first press is a change both see."""
        if conn.seat in self.rematch:
            self.refuse(conn, "not_allowed", "You asked to play again; waiting for your friend.")
            return False
        if not self.rematch:  # the first press: stored first, like any change
            await self.save(rematch=[conn.seat])
            self.rematch.add(conn.seat)
            self.change(self.state, skip=conn)
            return True
        # Both have pressed: the new partie (it clears `rematch`).
        last = self.state.first_dealer
        await self._fresh_partie(first_dealer=None if last is None else 1 - last, skip=conn)
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
        self.broadcast_presence()
        log.info("computer seat room=%s level=%s", self.room_id, level)
        return True

    async def _fresh_partie(
        self,
        *,
        first_dealer: int | None = None,
        skip: Connection | None = None,
        computer_level: ComputerLevel | None = None,
    ) -> None:
        """A new partie in this room (a new match: every socket's log starts again),
        stored first (the caller holds the lock). `computer_level`: seat 1 goes to the
        computer, at that level, from this partie on."""
        state = engine.new_partie(seed=self.new_seed(), first_dealer=first_dealer)
        options = self.options()
        if computer_level is not None:
            options = {"opponent": "computer", "level": computer_level}
        await self.save(new_match=state, options=options)
        if computer_level is not None:  # only once stored: a refused write changes nothing
            self.opponent = "computer"
            self.level = computer_level
            self.computer = self._computer_seat(computer_level)
        self.match += 1
        self.rematch.clear()
        self.change(state, skip=skip)

    async def save(
        self,
        *,
        action: tuple[int, dict[str, Any]] | None = None,
        new_match: engine.State | None = None,
        options: dict[str, Any] | None = None,
        rematch: list[int] | None = None,
    ) -> None:
        """With a store, write the coming change there (the caller holds the lock, and
        calls `change` next): a (seat, action) applied; a new match (its seed and first
        dealer, and the room's `options` from then on); or the seats that pressed "Play
        again". So every change is stored before any socket is told. StoreError: it was
        not written, and the caller must change nothing (VersionConflict: `let_go`)."""
        if self.store is None:
            return
        version = self.version + 1
        if new_match is not None:
            await self.store.new_match(self.room_id, version, self.match + 1, new_match.seed,
                                       first_dealer=new_match.first_dealer, options=options)
        elif rematch is not None:
            await self.store.rematch(self.room_id, version, rematch)
        else:
            assert action is not None, "a change is an action, a new match or a rematch"
            await self.store.append(self.room_id, version, *action)

    def options(self) -> dict[str, Any]:
        """What the room is made with, as the store keeps it: the opponent, and the
        computer's level at a computer table."""
        if self.level is None:
            return {"opponent": self.opponent}
        return {"opponent": self.opponent, "level": self.level}

    def change(self, state: engine.State, *, skip: Connection | None = None) -> None:
        """Install a new state (the caller holds the lock, and has `save`d it): one version
        up, and every socket owed its new state, but `skip`, which the caller writes."""
        self.state = state
        self.version += 1
        self.touch()
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

    async def let_go(self) -> None:
        """The store refused a write: another process has changed this room since, so
        it is no longer ours. Close it here; its sockets reconnect (1012) and reach the
        owner, or load it afresh. The registry forgets a closed room (`find`)."""
        log.warning("room moved room=%s version=%d: letting go", self.room_id, self.version)
        await self.close(CLOSE_GOING_AWAY, "This table moved to another server; reconnect.")

    def stored(self) -> StoredRoom:
        """This room as a new entry for the store (its actions so far: none)."""
        return StoredRoom(self.room_id, self.options(), self.state.seed, self.match,
                          self.version, [s.token_hash for s in self.seats],
                          first_dealer=self.state.first_dealer, rematch=sorted(self.rematch))


class ComputerSeat:
    """Plays seat 1 at a computer table from that seat's view only (DESIGN.md).

    It answers whenever it is its turn and asks to see what scored against it;
    it never presses "Deal next hand": the person moves on when ready. It runs as
    a task so the person's action is answered at once; its moves come after.

    Its level decides in `executor` (a process pool: thinking never holds the event
    loop), except basic, whose decision takes microseconds. Each move comes a fixed
    time after the change it answers -- the delay, or the level's pace when longer,
    or the exchange delay -- however long the thinking took, so the pace tells
    nothing about its cards (the pace must be at least the level's worst decision).
    """

    def __init__(
        self,
        room: Room,
        policy: Policy | None,
        delay: float,
        exchange_delay: float = 0.0,
        lead_delay: float = 0.0,
        *,
        level: ComputerLevel = "basic",
        executor: Executor | None = None,
        pace: float = 0.0,
    ) -> None:
        self.room = room
        self._policy = policy
        self.level = level
        self.delay = delay
        self.exchange_delay = exchange_delay
        self.lead_delay = lead_delay
        self.executor = executor
        self.pace = pace if level == "strong" else 0.0  # good: its worst fits the delay
        self._task: asyncio.Task[None] | None = None
        # What waits out `pace`: tests replace it to see the wait asked for, or to hold it.
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        self._letting_go: asyncio.Task[None] | None = None
        # `see` requests already made, so a view that keeps offering one cannot loop us.
        self._asked: set[tuple[int, int, Any]] = set()

    def replayed(self, match: int, deal_number: int, action: dict[str, Any]) -> None:
        """A move of this seat's, replayed from the store: the `see` requests it made
        are remembered as if it had made them here."""
        if action.get("type") == "see":
            self._asked.add((match, deal_number, action.get("combo")))

    @property
    def policy(self) -> Policy:
        if self._policy is None:
            from engine.computer import LEVELS

            self._policy = LEVELS[self.level].choose
        return self._policy

    def pause(self, view: dict[str, Any]) -> float:
        """How long to wait before acting on `view`, thinking included. It depends on the
        level and the step only, never on the cards (DESIGN.md): the strong level answers
        at its fixed pace (at least its worst decision); before choosing the dealer and
        before a lead it waits at least `lead_delay`, so the cut, or the trick just won,
        can be seen; as elder, at least `exchange_delay` before its exchange."""
        wait = max(self.delay, self.pace)  # a humane pace; 0 in tests still yields
        if view["to_move"] != COMPUTER_SEAT:
            return wait
        if view["step"] == "elder_exchange":
            wait = max(wait, self.exchange_delay)
        elif view["step"] in ("lead", "choose_dealer"):
            wait = max(wait, self.lead_delay)
        return wait

    @property
    def thinks_apart(self) -> bool:
        """Good and strong think in a worker process, off the event loop."""
        return self._policy is None and self.executor is not None and self.level != "basic"

    async def _decide(self, view: dict[str, Any]) -> dict[str, Any]:
        """The level's decision, in a worker process when it `thinks_apart`."""
        if self.thinks_apart:
            from engine.computer import decide

            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(
                self.executor, functools.partial(decide, self.level, view))
        return self.policy(view)

    def poke(self) -> None:
        """Something changed: play if there is something to play."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"computer {self.room.room_id}")

    async def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def _todo(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """The view to decide from, or None when the computer has nothing to do."""
        legal: list[dict[str, Any]] = view["legal"]
        if view["step"] == "choose_dealer" and not self.room.seats[1 - COMPUTER_SEAT].connections:
            return None  # the cut is shown to the person before it chooses: wait for them
        if view["to_move"] == COMPUTER_SEAT and legal:
            return view
        if any(a["type"] == "carte_blanche" for a in legal):
            # Younger's carte blanche is announced out of turn, during elder's exchange.
            return {**view, "legal": [a for a in legal if a["type"] == "carte_blanche"]}
        match, deal = self.room.match, view["deal_number"]
        sees = [
            a
            for a in legal
            if a["type"] == "see" and (match, deal, a.get("combo")) not in self._asked
        ]
        if sees:
            # Out of turn it may only ask to see: the same view, with only those offered.
            return {**view, "legal": sees}
        return None

    def look(self) -> tuple[engine.State, dict[str, Any] | None]:
        """The room's state, and the view to decide from (None: nothing to do). The one
        view a move costs, without the log (the policy does not read it)."""
        state = self.room.state
        return state, self._todo(engine.view(state, COMPUTER_SEAT, log=False))

    def move(self, todo: dict[str, Any]) -> engine.State | None:
        """Decide from `todo` here and now, and apply it (see `play`)."""
        return self.play(todo, self.policy(todo))

    def play(self, todo: dict[str, Any], action: dict[str, Any]) -> engine.State | None:
        """Apply the decision made from `todo` to the room's state (which `todo` was seen
        from); None if the policy answered out of turn with something not allowed."""
        room = self.room
        if todo["to_move"] != COMPUTER_SEAT and action.get("type") not in ("see", "carte_blanche"):
            return None
        if action.get("type") == "see":
            self._asked.add((room.match, todo["deal_number"], action.get("combo")))
        return engine.apply(room.state, COMPUTER_SEAT, action)

    async def _run(self) -> None:
        room = self.room
        loop = asyncio.get_running_loop()
        while not room.closed:
            state, todo = self.look()
            if todo is None:
                return
            wait = self.pause(todo)
            started = loop.time()
            try:
                action = await self._decide(todo)
            except Exception:
                # A bug in the policy: stop rather than loop; the person can start anew.
                log.exception("computer seat failed room=%s", room.room_id)
                return
            # Thinking apart is part of the wait, so the answer comes at the same pace
            # whatever was thought about (a decision in the loop takes microseconds).
            thought = loop.time() - started if self.thinks_apart else 0.0
            await self.sleep(max(0.0, wait - thought))
            async with room.lock:
                if room.closed:
                    return
                if room.state is not state:
                    continue  # the table changed while it thought: decide afresh
                try:
                    new = self.play(todo, action)
                except Exception:
                    # A bug in the policy or the engine: stop rather than loop; the person
                    # can still start a new match.
                    log.exception("computer seat failed room=%s", room.room_id)
                    return
                if new is None:
                    return
                try:
                    await room.save(action=(COMPUTER_SEAT, action))
                except VersionConflict:
                    # let_go stops this task: from a task of its own, once this one is done.
                    self._letting_go = asyncio.create_task(room.let_go())
                    return
                except StoreError as exc:
                    # Nothing changed; the person's next message pokes the computer again.
                    log.error("store failed room=%s computer: %s", room.room_id, exc)
                    return
                room.change(new)


class RoomRegistry:
    """Every room of this process, with the limits: max_rooms and idle expiry.

    A room nobody has used (no action by a person, no friend in the other seat) and
    nobody is waiting in (no socket open) expires after `unused_seconds`, and when all
    max_rooms are open the oldest unused room gives way to the new one: a client that
    makes rooms by the thousand fills nothing for long, and never keeps a visitor from a
    table (issue 15)."""

    def __init__(
        self,
        *,
        max_rooms: int,
        idle_seconds: float,
        unused_seconds: float | None = None,
        computer_delay: float,
        max_connections_per_seat: int,
        clock: Clock,
        computer_exchange_delay: float = 0.0,
        computer_lead_delay: float = 0.0,
        new_seed: SeedSource = random_seed,
        policy: Policy | None = None,
        workers: Callable[[], Executor] | None = None,
        worker_count: int = 1,
        computer_pace: float = 0.0,
        store: RoomStore | None = None,
    ) -> None:
        self.max_rooms = max_rooms
        # Where the good and strong levels think (None: in the loop), made with the first
        # such table: a server that never has one starts no process.
        self._workers = workers
        self._worker_count = worker_count
        self._executor: Executor | None = None
        self.computer_pace = computer_pace  # the good and strong levels' fixed pace
        self.idle_seconds = idle_seconds
        self.unused_seconds = idle_seconds if unused_seconds is None else min(
            unused_seconds, idle_seconds)
        self.computer_delay = computer_delay
        self.computer_exchange_delay = computer_exchange_delay
        self.computer_lead_delay = computer_lead_delay
        self.max_connections_per_seat = max_connections_per_seat
        self.clock = clock
        self.new_seed = new_seed
        self.policy = policy
        # Called with a room when it is made and after every change (tests; later, a store).
        self.listeners: list[ChangeListener] = []
        self.rooms: dict[str, Room] = {}
        # Rooms are written there before anyone is told, and loaded from there on first
        # use (app/store.py); None: memory only.
        self.store = store
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self.stopping = False  # SIGTERM: no more actions (app/__main__.py)

    def executor(self) -> Executor | None:
        """The worker pool, made (and its workers started, so that no decision waits on
        their start) the first time it is asked for; None without one."""
        if self._executor is None and self._workers is not None:
            from engine.computer import warm

            self._executor = self._workers()
            for _ in range(self._worker_count):
                self._executor.submit(warm)
        return self._executor

    def stop_workers(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def __len__(self) -> int:
        return len(self.rooms)

    def get(self, room_id: str) -> Room | None:
        """The room if it is in this process's memory (tests; `find` for requests)."""
        return self.rooms.get(room_id)

    async def find(self, room_id: str, *, arriving: bool = False) -> Room | None:
        """The room: from memory, or else from the store (then kept in memory).

        `arriving`: someone is coming to the room (a socket, the table page, a join).
        With a store, a copy in memory is then checked against the stored version (one
        round trip; a copy behind, say this process made the room and another served it
        since, is dropped and loaded afresh), and this process becomes the owner: the
        previous owner is told to let go (`hand_over`), so that its sockets come here."""
        room = self.rooms.get(room_id)
        if room is not None and not room.closed and arriving and self.store is not None:
            stored = await self.store.own(room_id)
            if room.closed or stored == -1:
                pass  # gone meanwhile: it expired, or was let go
            elif stored != room.version:
                await room.let_go()
        if room is not None and not room.closed:
            return room
        if self.stopping:
            return room  # shutting down: the page may be served; its socket is told 1012
        if room is not None and self.rooms.get(room_id) is room:
            # Let go of (another process wrote it): load it afresh.
            del self.rooms[room_id]
        if self.store is None:
            return None
        loading = self._loading.get(room_id)
        if loading is not None:  # two sockets of a room at once: one load
            return await asyncio.shield(loading)
        loading = self._loading[room_id] = asyncio.get_running_loop().create_future()
        try:
            room = await self._load(room_id)
            loading.set_result(room)
        except BaseException as exc:
            loading.set_exception(exc)
            loading.exception()  # retrieved: a waiter, if any, gets it too
            raise
        finally:
            del self._loading[room_id]
        return room

    async def _load(self, room_id: str) -> Room | None:
        assert self.store is not None
        stored = await self.store.load(room_id)
        if stored is None:
            return None
        opponent = stored.options["opponent"]
        room = self._new_room(room_id, opponent, stored.seat_hashes[0],
                              stored.options.get("level", "basic"))
        room.seats[1].token_hash = stored.seat_hashes[1]
        room.rematch = set(stored.rematch)
        try:
            state = engine.new_partie(seed=stored.seed, first_dealer=stored.first_dealer)
            for seat, action in stored.actions:
                if room.computer is not None and seat == COMPUTER_SEAT:
                    room.computer.replayed(stored.match, state.deal_number, action)
                state = engine.apply(state, seat, action)
            room.state = state
        except Exception:
            log.exception("room %s: its actions do not replay", room_id)
            return None
        room.match, room.version = stored.match, stored.version
        # Played at, or a friend took the other seat (issue 15's "used": such a room never
        # gives way to a new one).
        room.used = bool(stored.actions) or stored.match > 1 or (
            stored.options["opponent"] == "friend" and stored.seat_hashes[1] is not None)
        self.rooms[room_id] = room
        log.info("room loaded room=%s version=%d actions=%d from=%s rooms=%d", room_id,
                 room.version, len(stored.actions), stored.owner or "?", len(self.rooms))
        if room.computer is not None and not self.stopping:
            room.computer.poke()  # it resumes where it stopped
        return room

    def _new_room(self, room_id: str, opponent: Opponent, maker_token_hash: str | None,
                  level: Level = "basic") -> Room:
        return Room(
            room_id,
            opponent,
            clock=self.clock,
            new_seed=self.new_seed,
            policy=self.policy,
            computer_delay=self.computer_delay,
            computer_exchange_delay=self.computer_exchange_delay,
            computer_lead_delay=self.computer_lead_delay,
            max_connections_per_seat=self.max_connections_per_seat,
            listeners=self.listeners,
            level=level,
            workers=self.executor,
            computer_pace=self.computer_pace,
            maker_token_hash=maker_token_hash,
            store=self.store,
        )

    async def create(self, opponent: Opponent, level: Level = "basic") -> tuple[Room, str]:
        """A new room; returns it and seat 0's token. An unknown `level` is a ValueError."""
        from engine.computer import LEVELS

        if level not in LEVELS:
            raise ValueError(
                f"Unknown computer level {level!r}: choose one of {', '.join(LEVELS)}.")
        if len(self.rooms) >= self.max_rooms:
            await self.sweep()
            if len(self.rooms) >= self.max_rooms:
                await self._make_way()
        room_id = new_room_id()
        while room_id in self.rooms:
            room_id = new_room_id()
        token = new_token()
        room = self._new_room(room_id, opponent, hash_token(token), level)
        if self.store is not None:
            await self.store.create(room.stored())  # StoreError: no room made
        self.rooms[room_id] = room
        for listener in self.listeners:
            listener(room)
        log.info("room created room=%s opponent=%s level=%s rooms=%d", room_id, opponent,
                 room.level, len(self.rooms))
        if room.computer is not None:
            room.computer.poke()  # it may have won the cut
        return room, token

    async def _make_way(self) -> None:
        """Every table is taken: the unused room idle the longest is closed for the new
        one. If every room is in use, the new one is refused."""
        unused = [r for r in self.rooms.values() if not r.used]
        if not unused:
            raise RoomsFullError(f"All {self.max_rooms} tables are in use.")
        room = min(unused, key=lambda r: r.last_activity)
        del self.rooms[room.room_id]
        let_go = room.closed
        await room.close(CLOSE_ROOM_EXPIRED, "This table was never used, and made way for another.")
        log.info("room gave way room=%s rooms=%d", room.room_id, len(self.rooms))
        await self._forget(room, let_go)

    def _expired(self, room: Room, now: float) -> bool:
        # A maker waiting with the page open for a friend keeps the room to the long limit:
        # sockets cost an attacker (a cap per address), and unused rooms, held or not, still
        # give way first when every table is taken, so holding them shuts nobody out.
        waiting = any(seat.connections for seat in room.seats)
        limit = self.idle_seconds if room.used or waiting else self.unused_seconds
        return now - room.last_activity >= limit

    async def sweep(self) -> int:
        """Close the rooms idle for idle_seconds (unused_seconds if never used); returns
        how many."""
        now = self.clock()
        idle = [r for r in self.rooms.values() if self._expired(r, now)]
        for room in idle:
            del self.rooms[room.room_id]
            let_go = room.closed
            await room.close(CLOSE_ROOM_EXPIRED, "This table has expired.")
            log.info("room expired room=%s rooms=%d", room.room_id, len(self.rooms))
            await self._forget(room, let_go)
        for room_id in [r.room_id for r in self.rooms.values() if r.closed]:
            del self.rooms[room_id]
        if self.store is not None and self.rooms:
            # The store's copies live while their rooms do: a room kept in memory with no
            # change for a while (people reading, thinking) must not expire there.
            try:
                await self.store.keep_alive(list(self.rooms))
            except StoreError as exc:
                log.error("store failed to keep rooms alive: %s", exc)
        return len(idle)

    async def _forget(self, room: Room, let_go: bool) -> None:
        """A room closed for good: nothing is kept in the store either (only if this
        process still owns it: one it let go of is another's)."""
        if self.store is None or let_go:
            return
        try:
            await self.store.delete(room.room_id, room.version)
        except StoreError as exc:
            log.error("store failed to delete room=%s: %s", room.room_id, exc)

    async def sweep_forever(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await self.sweep()
            except Exception:
                log.exception("sweep failed")

    async def hand_over(self, room_id: str) -> None:
        """Another process has taken this room (the store says so): let go of our copy;
        its sockets are closed with 1012, and reconnect through the proxy to the owner."""
        room = self.rooms.pop(room_id, None)
        if room is not None and not room.closed:
            await room.let_go()

    def stop_taking_actions(self) -> None:
        """SIGTERM: from now on no action is applied and the computer seats stop (every
        change made so far is in the store already); the sockets are closed next."""
        self.stopping = True
        for room in self.rooms.values():
            room.closed = True

    async def close_all(self, code: int, reason: str) -> None:
        """Shutdown: every room closed, every socket told (a store holds every change
        already: there is nothing left to write)."""
        self.stopping = True
        for room in list(self.rooms.values()):
            await room.close(code, reason)
        self.rooms.clear()
        if self.store is not None:
            await self.store.close()
