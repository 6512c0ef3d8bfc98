"""Every room of this process: finding one (from memory, else from the store), making
one, making way when every table is taken, sweeping idle ones, and handing rooms over
to another process. The one place that knows how many rooms there are.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import Executor

import engine
from app.computer_seat import COMPUTER_SEAT, Policy
from app.protocol import CLOSE_ROOM_EXPIRED, Level, Opponent
from app.room import ChangeListener, Clock, Room, SeedSource, new_token
from app.store import RoomStore, StoreError, hash_token

log = logging.getLogger("piquet.rooms")


def new_room_id() -> str:
    return secrets.token_urlsafe(12)  # 96 bits; DESIGN.md asks >= 64


def random_seed() -> int:
    return secrets.randbits(64)


class RoomsFullError(RuntimeError):
    """max_rooms rooms are open and in use, even after sweeping idle ones."""


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
        computer_trick_hold: float = 0.0,
        computer_declare_delay: float | None = None,
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
        self.computer_trick_hold = computer_trick_hold
        self.computer_declare_delay = computer_declare_delay
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
            computer_trick_hold=self.computer_trick_hold,
            computer_declare_delay=self.computer_declare_delay,
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
