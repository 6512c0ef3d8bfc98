"""Every room of this process: finding one (from memory, else from the store), making
one, making way when every table is taken, sweeping idle ones, and handing rooms over
to another process. The one place that knows how many rooms there are.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import TYPE_CHECKING

from app.i18n import ngettext
from app.protocol import CLOSE_GOING_AWAY, CLOSE_ROOM_EXPIRED, Listing
from app.room import Room
from app.room_options import RoomOptions
from app.room_setup import RoomSetup, new_token
from app.store import StoreError, hash_token

if TYPE_CHECKING:
    from app.lobby import Lobby

log = logging.getLogger("piquet.rooms")


def new_room_id() -> str:
    return secrets.token_urlsafe(12)  # 96 bits; DESIGN.md asks >= 64


def random_seed() -> int:
    return secrets.randbits(64)


class RoomsFullError(RuntimeError):
    """max_rooms rooms are open and every one has seen a move lately."""


class TooManyRooms(RuntimeError):
    """This client address holds `rooms_per_address` open rooms already."""


class RoomRegistry:
    """Every room of this process, with the limits: max_rooms, rooms per client address,
    and expiry.

    A room in which no person has made a move expires after `unused_seconds` (a socket
    open in it is not use: issue 25), one that was played at after `idle_seconds`
    without a move. When all max_rooms are open, the room that has gone longest without
    a move gives way to the new one, unused rooms first, any room quiet for
    `give_way_seconds`: a visitor is refused only while every table has seen a move in
    that time. And one client address holds at most `rooms_per_address` rooms at once
    (made or joined): an attacker with N addresses holds at most N times that many, each
    for `unused_seconds` unless it plays in them.

    A slow table ("Take your time") is kept `slow_seconds` without a move, played at or
    not. With a store, one nobody has had open for `idle_seconds` rests there, out of
    memory, and is loaded again on first use (`find`); in memory only, it stays, and
    gives way last when every table is taken."""

    def __init__(
        self,
        setup: RoomSetup,
        *,
        max_rooms: int,
        idle_seconds: float,
        unused_seconds: float | None = None,
        rooms_per_address: int = 1_000_000,
        give_way_seconds: float = 300.0,
        slow_seconds: float = 30 * 24 * 3600.0,
    ) -> None:
        """`setup`: what every room is made with (the computer's and the coach's pools
        among it)."""
        self.setup = setup
        self.max_rooms = max_rooms
        self.rooms_per_address = rooms_per_address
        self.give_way_seconds = give_way_seconds
        # Which addresses made or joined each open room, and each address's rooms.
        self.holders: dict[str, set[str]] = {}
        self.held: dict[str, set[str]] = {}
        self.idle_seconds = idle_seconds
        self.slow_seconds = slow_seconds
        self.unused_seconds = idle_seconds if unused_seconds is None else min(
            unused_seconds, idle_seconds)
        self.clock = setup.clock
        # Called with a room when it is made and after every change (tests).
        self.listeners = setup.listeners
        self.rooms: dict[str, Room] = {}
        # Rooms are written there before anyone is told, and loaded from there on first
        # use (app/store.py); None: memory only.
        self.store = setup.store
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self.stopping = False  # SIGTERM: no more actions (app/__main__.py)
        # Rooms that came here from the store, and that went to another process: many of
        # either per action means the proxy does not route by room (docs/operating.md).
        self.moved = {"loaded": 0, "let_go": 0}
        # The lobby (app/lobby.py): told of each change and of each room closed for good.
        self.lobby: Lobby | None = None

    def stop_workers(self) -> None:
        self.setup.coach_pool.stop()
        if self.setup.computer_pool is not None:
            self.setup.computer_pool.shutdown()

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
            self._remove(room_id)
            self.moved["let_go"] += 1
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
        try:
            room = Room(room_id, RoomOptions.from_json(stored.options), self.setup,
                        maker_token_hash=stored.seat_hashes[0], secret=stored.secret)
            room.resume(stored)
        except Exception:
            log.exception("room %s: its options or actions do not replay", room_id)
            return None
        self.rooms[room_id] = room
        self.moved["loaded"] += 1
        if self.lobby is not None:
            if room.waiting_for_stranger():  # (its page told, and it counts from now)
                room.set_listing("listed" if room_id in self.lobby.open else "unlisted")
            self.lobby.room_changed(room)
        log.info("room loaded room=%s version=%d actions=%d from=%s rooms=%d", room_id,
                 room.version, len(stored.actions), stored.owner or "?", len(self.rooms))
        if room.computer is not None and not self.stopping:
            room.computer.poke()  # it resumes where it stopped
        return room

    async def create(self, options: RoomOptions,
                     address: str | None = None) -> tuple[Room, str]:
        """A new room made with `options`, for a client at `address`; returns it and seat
        0's token. TooManyRooms when the address holds its share."""
        self._check_share(address)
        if len(self.rooms) >= self.max_rooms:
            await self.sweep()
            if len(self.rooms) >= self.max_rooms:
                await self._make_way()
        room_id = new_room_id()
        while room_id in self.rooms:
            room_id = new_room_id()
        token = new_token()
        room = Room(room_id, options, self.setup, maker_token_hash=hash_token(token))
        if self.store is not None:
            await self.store.create(room.stored())  # StoreError: no room made
        self.rooms[room_id] = room
        self.hold(room_id, address)
        for listener in self.listeners:
            listener(room)
        log.info("room created room=%s opponent=%s level=%s rooms=%d", room_id,
                 options.opponent, options.level, len(self.rooms))
        if room.computer is not None:
            room.computer.poke()  # it may have won the cut
        return room, token

    async def join(self, room: Room, address: str | None = None,
                   name: str = "") -> tuple[int, str] | None:
        """A friend at `address`, going by `name`, takes the free seat (None: the table is
        full); TooManyRooms when the address holds its share of rooms already."""
        if address is not None and room.room_id not in self.held.get(address, ()):
            self._check_share(address)
        claimed = await room.claim_free_seat(name)
        if claimed is not None:
            self.hold(room.room_id, address)
        return claimed

    async def discard(self, room: Room,
                      reason: str = "This table was not needed after all.") -> None:
        """A table made and not wanted after all (a quick game that found a partner while
        it was made), or closed by its player: closed and forgotten at once, its sockets
        told `reason`."""
        if self.rooms.get(room.room_id) is room:
            self._remove(room.room_id)
        await room.close(CLOSE_ROOM_EXPIRED, reason)
        await self._forget(room, False)

    def lobby_news(self, room_id: str, listing: Listing | None) -> None:
        """The lobby's news of an open table, for the room if it is in this process."""
        room = self.rooms.get(room_id)
        if room is not None:
            room.set_listing(listing)

    def _check_share(self, address: str | None) -> None:
        if address is not None and len(self.held.get(address, ())) >= self.rooms_per_address:
            raise TooManyRooms(ngettext(
                "You have {n} table open already. Finish or leave it (an unplayed table "
                "closes after a while) before opening another.",
                "You have {n} tables open already. Finish or leave one (an unplayed table "
                "closes after a while) before opening another.", self.rooms_per_address))

    def hold(self, room_id: str, address: str | None) -> None:
        """`address` made or joined this room: it counts against its share while open."""
        if address is None or room_id not in self.rooms:
            return
        self.held.setdefault(address, set()).add(room_id)
        self.holders.setdefault(room_id, set()).add(address)

    def release(self, room_id: str, address: str) -> None:
        """`address` left this room: it no longer counts against its share."""
        if address in self.holders.get(room_id, ()):
            self.holders[room_id].discard(address)
            self.held[address].discard(room_id)
            if not self.held[address]:
                del self.held[address]

    def _remove(self, room_id: str) -> Room | None:
        """The room leaves this process's memory (and its holders' shares)."""
        for address in self.holders.pop(room_id, ()):
            rooms = self.held.get(address)
            if rooms is not None:
                rooms.discard(room_id)
                if not rooms:
                    del self.held[address]
        return self.rooms.pop(room_id, None)

    async def _make_way(self) -> None:
        """Every table is taken: the room that has gone longest without a move gives way
        to the new one, rooms nobody has played at first; a room that saw a move within
        `give_way_seconds` never does. If every room did, the new one is refused."""
        now = self.clock()
        quiet = [r for r in self.rooms.values()
                 if not r.used or now - r.last_move >= self.give_way_seconds]
        if not quiet:
            raise RoomsFullError(ngettext("All {n} tables are in use.",
                                          "All {n} tables are in use.", self.max_rooms))
        # A slow table kept in memory alone would be lost: it goes last.
        room = min(quiet, key=lambda r: (r.slow and self.store is None, r.used, r.last_move))
        if room.slow and self.store is not None:
            await self._rest(room)  # kept in the store: it comes back when opened
            return
        self._remove(room.room_id)
        let_go = room.closed
        why = ("This table was never played at, and made way for another." if not room.used
               else "This table had no move for a long while, and made way for another.")
        await room.close(CLOSE_ROOM_EXPIRED, why)
        log.info("room gave way room=%s used=%s rooms=%d", room.room_id, room.used,
                 len(self.rooms))
        await self._forget(room, let_go)

    def _expired(self, room: Room, now: float) -> bool:
        # A socket held open is not use (issue 25): only moves keep a room, and a room
        # nobody has played at goes soon, whoever waits in it; a slow table, after days.
        if room.slow:
            return now - room.last_move >= self.slow_seconds
        # A table waiting in the lobby's list is waiting for someone: the lobby takes it
        # out after its own time, and then the table is unused from then.
        waiting = room.listing == "listed" and room.waiting_for_stranger()
        limit = self.idle_seconds if room.used or waiting else self.unused_seconds
        return now - room.last_move >= limit

    async def sweep(self, batch: int = 500) -> int:
        """Close the rooms idle for idle_seconds (unused_seconds if never played at);
        returns how many. Done `batch` rooms at a time, letting the loop run between, so
        no step holds every table (issue 29)."""
        now = self.clock()
        idle: list[Room] = []
        resting: list[Room] = []
        rooms = list(self.rooms.values())
        for start in range(0, len(rooms), batch):
            for room in rooms[start:start + batch]:
                if room.closed or self._expired(room, now):
                    idle.append(room)
                elif self._resting(room, now):
                    resting.append(room)
            await asyncio.sleep(0)
        for room in resting:
            if self.rooms.get(room.room_id) is room and not room.lock.locked():
                await self._rest(room)
        expired = 0
        for room in idle:
            if self.rooms.get(room.room_id) is not room:
                continue  # gone meanwhile
            self._remove(room.room_id)
            if room.closed:
                continue  # let go of: another process's now
            await room.close(CLOSE_ROOM_EXPIRED, "This table has expired.")
            expired += 1
            log.info("room expired room=%s rooms=%d", room.room_id, len(self.rooms))
            await self._forget(room, False)
        if self.store is not None and self.rooms:
            # The store's copies live while their rooms do: a room kept in memory with no
            # change for a while (people reading, thinking) must not expire there. A slow
            # table's lives its days from its last move, renewed by nothing else.
            ids = [room_id for room_id, room in self.rooms.items() if not room.slow]
            for start in range(0, len(ids), batch):
                try:
                    await self.store.keep_alive(ids[start:start + batch])
                except StoreError as exc:
                    log.error("store failed to keep rooms alive: %s", exc)
                    break
        return expired

    def _resting(self, room: Room, now: float) -> bool:
        """A slow table kept in a store that nobody has had open for `idle_seconds`: it
        leaves memory (`_rest`)."""
        return (self.store is not None and room.slow and not room.connections()
                and now - room.last_activity >= self.idle_seconds)

    async def _rest(self, room: Room) -> None:
        """A slow table leaves this process's memory, kept in the store as it is (every
        change is there already): loaded again on first use (`find`). Its sockets, if
        any, reconnect and bring it back."""
        self._remove(room.room_id)
        await room.close(CLOSE_GOING_AWAY, "This table was put away; reconnect.")
        if self.lobby is not None:
            self.lobby.room_left(room.room_id, closed=False)
        log.info("room rests in the store room=%s rooms=%d", room.room_id, len(self.rooms))

    async def _forget(self, room: Room, let_go: bool) -> None:
        """A room closed for good: nothing is kept in the store either (only if this
        process still owns it: one it let go of is another's), nor in the lobby."""
        if self.lobby is not None and not let_go:
            self.lobby.room_left(room.room_id, closed=True)
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
        room = self._remove(room_id)
        if room is not None and not room.closed:
            self.moved["let_go"] += 1
            await room.let_go()

    def stop_taking_actions(self) -> None:
        """SIGTERM: from now on no action is applied and the computer seats stop (every
        change made so far is in the store already); the sockets are closed next."""
        self.stopping = True
        for room in self.rooms.values():
            room.closed = True

    async def close_sockets(self, code: int, reason: str, timeout: float = 3.0) -> None:
        """Close every table's sockets with `code` and `reason`, and wait (up to
        `timeout`) for the close frames to be written."""
        senders = []
        for room in list(self.rooms.values()):
            for conn in room.connections():
                conn.close(code, reason)
                senders += conn.sender()
        if senders:
            await asyncio.wait(senders, timeout=timeout)

    async def close_all(self, code: int, reason: str) -> None:
        """Shutdown: every room closed, every socket told (a store holds every change
        already: there is nothing left to write)."""
        self.stopping = True
        for room in list(self.rooms.values()):
            await room.close(code, reason)
        self.rooms.clear()
        self.held.clear()
        self.holders.clear()
        if self.store is not None:
            await self.store.close()
