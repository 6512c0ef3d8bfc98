"""The lobby of this process: the open tables and the tables being played, as every
process sees them (its store: app/lobby_store.py), told to the lobby's sockets.

`Lobby` keeps a copy of the lists, updated by the store's news of every change (made by
any process), and tells every socket of the lobby (`/ws/lobby`) what changed, coalesced:
the changes of `coalesce` seconds go in one message, the same text to every watcher,
written to them fifty at a time so the event loop never stalls on a thousand. A new
socket gets the whole lists first (docs/protocol.md, "The lobby").

It is also where the rooms meet the lobby: an open table is listed when made (and again
when its maker asks), taken from the list when someone sits down (a quick game or a
click), and leaves it when its maker takes it out, when it has waited
`open_seconds` (swept here, by whichever process comes first), or when it closes. A
table of strangers, or a link table whose maker let anyone watch, is listed as being
played while both seats are taken and the partie goes on (`room_changed`, after every
change of a room of this process; its deal and scores change once a deal). The rooms
of this process hear what concerns them (`news`: an open table's maker's page says it
left the list, and why).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import orjson

import engine
from app.connection import Connection
from app.lobby_store import (
    Event,
    Gone,
    LobbyStore,
    OpenTable,
    PlayingTable,
    Quick,
    Take,
)
from app.names import look
from app.protocol import Listing
from app.seat_view import sheet_scores

if TYPE_CHECKING:
    from app.room import Room

log = logging.getLogger("piquet.lobby")

# Sockets handed a message before the loop is let run again (their writes follow).
FAN_OUT_BATCH = 50
# Every so often each process renews the lobby's entries of the tables it is playing
# (TOUCH_SECONDS) and drops those nobody renewed (STALE_SECONDS: a process killed
# outright leaves its tables listed until then); and reads the lists again (RESYNC_SECONDS:
# a change whose news was lost is caught then).
TOUCH_SECONDS = 30.0
STALE_SECONDS = 120.0
RESYNC_SECONDS = 30.0
# An open table's maker hears why it left the list (a table taken is seated next).
NEWS: dict[str, Listing] = {"expired": "expired", "unlisted": "unlisted",
                            "elsewhere": "elsewhere"}
RoomNews = Callable[[str, Listing | None], None]


def match_key(rules: engine.Rules, practice: bool) -> str:
    """The quick game's key: tables of the same rules, practice or not, are paired."""
    text = json.dumps([rules.to_json(), practice], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def open_entry(room: Room, address: str, visitor: str, now: float) -> OpenTable:
    """`room`, an open table, as the lobby lists it, from `now`."""
    options = room.options
    return OpenTable(room.room_id, options.names[0], options.rules.to_json(), options.practice,
                     now, key=match_key(options.rules, options.practice), address=address,
                     visitor=visitor, look=look(options.names[0]))


def playing_entry(room: Room) -> PlayingTable | None:
    """`room` as the lobby lists it while it is played, or None when it is not to be
    listed: not open to watchers, a seat not taken, closed, or the partie over."""
    options = room.options
    if not options.public or room.closed or room.has_free_seat():
        return None
    state = room.state
    if state.step is engine.Step.PARTIE_OVER:
        return None
    scores = sheet_scores(state)
    return PlayingTable(room.room_id, options.names, options.rules.to_json(),
                        options.practice, state.deal_number, state.deals_in_partie, scores)


class Lobby:
    def __init__(self, store: LobbyStore, *, open_seconds: float, open_per_address: int,
                 coalesce: float, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.open_seconds = open_seconds
        self.open_per_address = open_per_address
        self.coalesce = coalesce
        self.clock = clock
        # The lists as every process sees them (a copy, kept by the store's news).
        self.open: dict[str, OpenTable] = {}
        self.playing: dict[str, PlayingTable] = {}
        self.watchers: list[Connection] = []
        # What changed since the last message to the watchers (None: gone).
        self._open_news: dict[str, OpenTable | None] = {}
        self._playing_news: dict[str, PlayingTable | None] = {}
        self._due: asyncio.TimerHandle | None = None
        # What this process last listed of each of its rooms being played.
        self.shown: dict[str, PlayingTable | None] = {}
        self._outbox: asyncio.Queue[Callable[[], Awaitable[Any]]] | None = None
        self.news: RoomNews | None = None  # this process's rooms: the registry's
        self.messages = 0  # messages written to watchers (each one a flush)
        self._tasks: set[asyncio.Future[None]] = set()

    # --- the store's news of a change, whoever made it -------------------------------------

    def event(self, event: Event) -> None:
        if "open" in event:
            table = OpenTable.from_json(event["open"])
            self.open[table.room_id] = table
            self._open_news[table.room_id] = table
            self._tell_room(table.room_id, "listed")
        elif "gone" in event:
            room_id = event["gone"]
            if self.open.pop(room_id, None) is not None or room_id in self._open_news:
                self._open_news[room_id] = None
            listing = NEWS.get(event.get("why", ""))
            if listing is not None:
                self._tell_room(room_id, listing)
        elif "playing" in event:
            playing = PlayingTable.from_json(event["playing"])
            self.playing[playing.room_id] = self._playing_news[playing.room_id] = playing
        elif "ended" in event:
            if self.playing.pop(event["ended"], None) is not None:
                self._playing_news[event["ended"]] = None
        elif event.get("resync"):  # the store's news were not heard for a while
            self._background(self._resync_quietly())
            return
        else:
            return
        self._schedule()

    def _tell_room(self, room_id: str, listing: Listing | None) -> None:
        if self.news is not None:
            self.news(room_id, listing)

    async def resync(self) -> None:
        """Read the lists again, and tell what differs from the copy as news (a change
        whose news was lost, or made before this process listened)."""
        open_tables, playing = await self.store.tables()
        now_open = {t.room_id: t for t in open_tables}
        now_playing = {t.room_id: t for t in playing}
        for room_id in set(self.open) - set(now_open):
            self.event({"gone": room_id, "why": "resync"})
        for room_id, table in now_open.items():
            if self.open.get(room_id) != table:
                self.event({"open": table.to_json()})
        for room_id in set(self.playing) - set(now_playing):
            self.event({"ended": room_id})
        for room_id, playing_table in now_playing.items():
            if self.playing.get(room_id) != playing_table:
                self.event({"playing": playing_table.to_json()})

    async def _resync_quietly(self) -> None:
        try:
            await self.resync()
        except Exception as exc:
            log.warning("lobby: reading the lists failed (%r); the sweep tries again", exc)

    # --- the watchers ------------------------------------------------------------------

    def watch(self, conn: Connection) -> None:
        """A new lobby socket: the whole lists, then every change."""
        conn.send(self._text(list(self.open.values()), [], list(self.playing.values()), [],
                             reset=True))
        self.watchers.append(conn)

    def unwatch(self, conn: Connection) -> None:
        with contextlib.suppress(ValueError):
            self.watchers.remove(conn)

    def _text(self, open_tables: list[OpenTable], gone: list[str],
              playing: list[PlayingTable], ended: list[str], *, reset: bool) -> str:
        """A `lobby` message: the open tables newest first, then the tables played."""
        now = self.clock()
        newest = sorted(open_tables, key=lambda t: t.since, reverse=True)
        return orjson.dumps({
            "type": "lobby", "reset": reset,
            "open": [t.public(now) for t in newest], "gone": gone,
            "playing": [t.public() for t in playing], "ended": ended,
        }).decode()

    def _schedule(self) -> None:
        if self._due is None and self.watchers:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._due = loop.call_later(self.coalesce, self._flush)
        elif not self.watchers:
            self._open_news.clear()
            self._playing_news.clear()

    def _flush(self) -> None:
        self._due = None
        open_news, playing_news = self._open_news, self._playing_news
        self._open_news, self._playing_news = {}, {}
        if not (open_news or playing_news) or not self.watchers:
            return
        text = self._text([t for t in open_news.values() if t is not None],
                          [r for r, t in open_news.items() if t is None],
                          [t for t in playing_news.values() if t is not None],
                          [r for r, t in playing_news.items() if t is None], reset=False)
        self.messages += 1
        self._background(self._fan_out(text, list(self.watchers)))

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _fan_out(self, text: str, watchers: list[Connection]) -> None:
        for done, conn in enumerate(watchers, 1):
            conn.send(text)
            if done % FAN_OUT_BATCH == 0:
                await asyncio.sleep(0)

    # --- the rooms' side -------------------------------------------------------------------

    async def list_table(self, room: Room, address: str, visitor: str) -> bool:
        """List an open table (again, from now); False: `address` has its share listed."""
        entry = open_entry(room, address, visitor, self.clock())
        return await self.store.put(entry, self.open_per_address)

    async def quick(self, rules: engine.Rules, practice: bool, visitor: str, name: str,
                    table: tuple[Room, str] | None = None) -> Quick:
        """The quick game's one step (app/lobby_store.py, `quick`); `table`: the presser's
        new table and address, to list if nothing is there to pair with."""
        entry = None if table is None else open_entry(table[0], table[1], visitor,
                                                      self.clock())
        return await self.store.quick(match_key(rules, practice), visitor,
                                      look(name) if name else "", entry,
                                      self.open_per_address)

    async def take(self, room_id: str, visitor: str, name: str) -> Take:
        return await self.store.take(room_id, visitor, look(name) if name else "")

    async def unlist(self, room_id: str, why: Gone) -> bool:
        return await self.store.unlist(room_id, why)

    def room_changed(self, room: Room) -> None:
        """After every change of a room of this process: list it as being played, its
        deal and scores as they are, or no more (the store is told in order, later)."""
        entry = playing_entry(room)
        if self.shown.get(room.room_id) == entry:
            return
        self.shown[room.room_id] = entry
        if entry is not None:
            self._send(lambda: self.store.playing(entry))
        else:
            self._send(lambda: self.store.ended(room.room_id))

    def room_left(self, room_id: str, closed: bool) -> None:
        """A room left this process's memory: closed for good (it leaves the lobby), or
        let go to another process (which lists it from then)."""
        self.shown.pop(room_id, None)
        if closed:
            self._send(lambda: self.store.unlist(room_id, "closed"))
            self._send(lambda: self.store.ended(room_id))

    def _send(self, step: Callable[[], Awaitable[Any]]) -> None:
        if self._outbox is None:
            self._outbox = asyncio.Queue()
        self._outbox.put_nowait(step)

    # --- running --------------------------------------------------------------------------

    async def run(self) -> None:
        """Until cancelled: the store's news, the outbox, and the sweep."""
        if self._outbox is None:
            self._outbox = asyncio.Queue()
        tasks = [asyncio.create_task(self.store.listen(self.event)),
                 asyncio.create_task(self._drain(self._outbox)),
                 asyncio.create_task(self._sweep())]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            if self._due is not None:
                self._due.cancel()

    async def _drain(self, outbox: asyncio.Queue[Callable[[], Awaitable[Any]]]) -> None:
        while True:
            step = await outbox.get()
            try:
                await step()
            except Exception as exc:
                log.warning("lobby store failed (%r): the lists catch up at the next look", exc)

    async def _sweep(self) -> None:
        """Open tables that waited `open_seconds` leave the list (whichever process looks
        first); now and then, this process's tables played are renewed, the stale ones
        dropped, and the lists read again."""
        every = max(0.1, min(5.0, self.open_seconds / 4))
        last = time.monotonic()
        await asyncio.sleep(0)
        with contextlib.suppress(Exception):
            await self.resync()
        while True:
            await asyncio.sleep(every)
            try:
                await self.store.expire(self.clock() - self.open_seconds)
                if time.monotonic() - last >= min(TOUCH_SECONDS, RESYNC_SECONDS):
                    last = time.monotonic()
                    await self.store.touch([r for r, t in self.shown.items() if t])
                    await self.store.stale(self.clock() - STALE_SECONDS)
                    await self.resync()
            except Exception as exc:
                log.warning("lobby sweep failed (%r); trying again in %.0f s", exc, every)
