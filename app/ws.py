"""The WebSocket `/ws/{room_id}`: handshake checks, then one receive loop per socket.

The loop only reads, checks limits and parses; the room applies. Sending is the
connection's own task, so a slow reader never holds the room; the one write this loop
makes itself is its own seat's state right after its own action (app/connection.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import weakref
from collections import Counter
from dataclasses import dataclass
from typing import Any

from fastapi import WebSocket
from pydantic import ValidationError
from starlette.routing import WebSocketRoute
from starlette.types import Message, Receive, Scope, Send

from app.connection import Connection
from app.protocol import (
    CLIENT_TYPES,
    CLOSE_BAD_TOKEN,
    CLOSE_FOREIGN_ORIGIN,
    CLOSE_GOING_AWAY,
    CLOSE_POLICY,
    CLOSE_UNKNOWN_ROOM,
    ActionMessage,
    ClientMessage,
    ClientPing,
    ComputerSeatMessage,
    GoOnMessage,
    HintMessage,
    NewMatchMessage,
    ReviewMessage,
    ServerPong,
    client_message_adapter,
)
from app.registry import RoomRegistry
from app.room import Room
from app.room_talk import WATCHER
from app.security import (
    NOT_A_ROOM,
    Allowance,
    ClientLimits,
    loggable,
    origin_allowed,
    take_from_all,
    well_formed_room_id,
)
from app.settings import Settings
from app.store import StoreError

log = logging.getLogger("piquet.ws")

PONG_TEXT = ServerPong().model_dump_json()


def seat_cookie(room_id: str, secure: bool = False) -> str:
    """The seat cookie's name: over HTTPS with the __Host- prefix (the browser keeps it only
    if it is Secure, for this host alone, path /: no other host of the domain, and no
    page over plain http, can set or shadow it); over plain http the plain name."""
    return f"__Host-piquet_seat_{room_id}" if secure else f"piquet_seat_{room_id}"


def seat_token(cookies: dict[str, str], room_id: str) -> str | None:
    """The seat token a request carries: the __Host- cookie, else the plain one (what a
    browser over plain http holds, a bot sends, and a seat given before the prefix)."""
    return cookies.get(seat_cookie(room_id, True)) or cookies.get(seat_cookie(room_id))


class TableWatchers:
    """What one table keeps about its watchers, by client address: a bucket each (their
    sockets' openings and messages), and how many sockets each has watching."""

    __slots__ = ("limits", "open")

    def __init__(self, per_second: float, burst: int) -> None:
        self.limits = ClientLimits(per_second * 60, burst, max_clients=1024)
        self.open: Counter[str] = Counter()

    def left(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


class WatchLimits:
    """A watching socket holds no seat whose bucket it could share, so watchers' allowances
    are kept by client address (the forwarded one behind a trusted proxy): one bucket per
    (table, address), kept as long as the table is (a weak map: it goes with the room),
    and one per address across every table, kept by the app. Opening a watching socket
    and every message it sends take one from both, so reconnecting, or moving to another
    table, finds no fresh allowance. Each is as large as a seat's (rate_limit_per_second,
    rate_limit_burst): a watcher sends only pings and pongs. And one address may have at
    most `max_watchers_per_address` sockets watching one table."""

    def __init__(self, settings: Settings) -> None:
        self.per_second = settings.rate_limit_per_second
        self.burst = settings.rate_limit_burst
        self.per_address = settings.max_watchers_per_address
        self.everywhere = ClientLimits(self.per_second * 60, self.burst)
        self.tables: weakref.WeakKeyDictionary[Room, TableWatchers] = \
            weakref.WeakKeyDictionary()

    def table(self, room: Room) -> TableWatchers:
        found = self.tables.get(room)
        if found is None:
            found = self.tables[room] = TableWatchers(self.per_second, self.burst)
        return found

    def allowance(self, room: Room, address: str) -> WatcherAllowance:
        return WatcherAllowance(self, room, address)


class WatcherAllowance:
    """A watching socket's allowance: its (table, address) bucket and its address's, looked
    up at each message (a bucket forgotten once full is made afresh, and full)."""

    __slots__ = ("address", "limits", "room")

    def __init__(self, limits: WatchLimits, room: Room, address: str) -> None:
        self.limits = limits
        self.room = room
        self.address = address

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        table = self.limits.table(self.room).limits.bucket(self.address, now)
        return take_from_all((table, self.limits.everywhere.bucket(self.address, now)), now)


def watch_limits(state: Any) -> WatchLimits:
    """The app's WatchLimits (made on first use, from the app's settings)."""
    limits: WatchLimits | None = getattr(state, "watch_limits", None)
    if limits is None:
        limits = state.watch_limits = WatchLimits(state.settings)
    return limits


@dataclass(frozen=True, slots=True)
class Refusal:
    code: int
    reason: str


async def _handshake(websocket: WebSocket, room_id: str) -> tuple[Room, int] | Refusal:
    """The room and seat this socket may use (WATCHER for `?watch=1`), or why not."""
    settings: Settings = websocket.app.state.settings
    rooms: RoomRegistry = websocket.app.state.rooms
    headers = websocket.headers
    if not origin_allowed(headers.get("origin"), headers.get("host"), settings.allowed_origins):
        return Refusal(CLOSE_FOREIGN_ORIGIN, "This page's origin may not connect.")
    if not well_formed_room_id(room_id):  # not looked up, not sent to Redis
        return Refusal(CLOSE_UNKNOWN_ROOM, NOT_A_ROOM)
    if rooms.stopping:  # SIGTERM: the page is to come back at once, to whoever owns it then
        return Refusal(CLOSE_GOING_AWAY, "The server is restarting.")
    try:
        room = await rooms.find(room_id, arriving=True)
    except StoreError:
        log.exception("store failed loading room=%s", room_id)
        return Refusal(CLOSE_GOING_AWAY, "The table could not be loaded just now.")
    if room is None:
        return Refusal(CLOSE_UNKNOWN_ROOM, "No such table (it may have expired).")
    if websocket.query_params.get("watch"):
        return room, WATCHER  # no seat, no token: the public view only
    seat = room.seat_for_token(seat_token(websocket.cookies, room_id))
    if seat is None:
        return Refusal(CLOSE_BAD_TOKEN, "This browser holds no seat at this table.")
    # A seat coming back says which version it was last shown, with its receipt: a
    # store that has lost it is found out here, before the seat sees anything older.
    shown = room.journal.shown(websocket.query_params.get("seen"))
    if shown is not None and shown > room.version:
        await room.recover(shown)
        if room.closed:
            return Refusal(CLOSE_GOING_AWAY, "The table could not be loaded just now.")
    return room, seat


async def table_socket(websocket: WebSocket) -> None:
    """`/ws/{room_id}`. A plain Starlette route (`ROUTE`), not FastAPI's: FastAPI's keeps
    its dependency machinery (an exit stack, solved values) alive for the whole life of
    every socket, ~4 KB each, and this endpoint has no dependencies to solve."""
    room_id: str = websocket.path_params["room_id"]
    settings: Settings = websocket.app.state.settings
    peer = loggable(websocket.client.host) if websocket.client else "?"
    # Accept before checking: a refused handshake would reach the client as a bare
    # HTTP 403, while a close frame carries a code and a reason the page can show.
    # (Checking after the await also means the room cannot expire in between.)
    await websocket.accept()
    checked = await _handshake(websocket, room_id)
    if isinstance(checked, Refusal):
        shown = room_id if well_formed_room_id(room_id) else loggable(room_id[:40])
        log.info("refused connection room=%s peer=%s code=%d: %s",
                 shown, peer, checked.code, checked.reason)
        await websocket.close(checked.code, checked.reason)
        return
    room, seat = checked
    address = websocket.client.host if websocket.client else "?"
    limit: Allowance
    watching: TableWatchers | None = None
    if seat == WATCHER:  # by address: watchers share nothing with a seat
        watch = watch_limits(websocket.app.state)
        limit = watch.allowance(room, address)
    else:
        limit = room.seats[seat].rate_limit(settings.rate_limit_per_second,
                                            settings.rate_limit_burst)
    if not limit.take():
        log.info("refused connection room=%s seat=%d peer=%s: too many messages", room_id, seat,
                 peer)
        await websocket.close(CLOSE_POLICY, "Too many messages; wait a moment, then reconnect.")
        return
    if seat == WATCHER:
        table = watch.table(room)
        if table.open[address] >= watch.per_address:
            log.info("refused connection room=%s peer=%s: watching in %d windows already",
                     room_id, peer, table.open[address])
            await websocket.close(CLOSE_POLICY, "You are watching this table in too many windows.")
            return
    conn = Connection(
        websocket,
        room_id,
        seat,
        queue_size=settings.send_queue_size,
        ping_interval=settings.ping_interval,
    )
    log.info("connect room=%s seat=%d peer=%s", room_id, seat, peer)
    if seat == WATCHER:
        if not room.attach_watcher(conn):
            await websocket.close(CLOSE_POLICY, "Too many people are watching this table.")
            return
        watching = table
        watching.open[address] += 1
    else:
        room.attach(conn)
    # The loop runs as a task of its own, which `Connection.drop` may cancel while it
    # waits for a frame (a client that stopped reading may never send again either).
    conn.reader = asyncio.create_task(_receive_loop(websocket, room, conn, settings, limit))
    try:
        await conn.reader
    except asyncio.CancelledError:
        if not conn.reader.cancelled() or not conn.dropped:
            raise  # this handler itself was cancelled (shutdown): not ours to swallow
    finally:
        room.detach(conn)
        if watching is not None:
            watching.left(address)
        await conn.stop()
        log.info("disconnect room=%s seat=%d peer=%s", room_id, seat, peer)


async def _receive_loop(
    websocket: WebSocket, room: Room, conn: Connection, settings: Settings, limit: Allowance
) -> None:
    frame: Message | None
    text: str | None
    data: bytes | None
    while not conn.dropped:
        frame = text = data = None  # the last frame is not kept while waiting for the next
        conn.receiving = True
        try:
            frame = await websocket.receive()
        finally:
            conn.receiving = False
        if frame["type"] == "websocket.disconnect":
            return
        conn.heard()
        if conn.closing:
            continue  # a close is on its way; wait for the peer's close to end the loop
        if not limit.take():
            room.error(conn, "rate_limited", "Too many messages; this socket is closed.")
            conn.close(CLOSE_POLICY, "Too many messages.")
            continue
        text = frame.get("text")
        data = frame.get("bytes")
        size = len(text.encode()) if text is not None else len(data or b"")
        if size > settings.max_message_bytes:
            room.refuse(
                conn,
                "too_large",
                f"Message of {size} bytes; the limit is {settings.max_message_bytes}.",
            )
            continue
        if text is None:
            room.refuse(conn, "bad_message", "Send JSON as text frames, not binary.")
            continue
        await _handle_text(room, conn, text)


async def _handle_text(room: Room, conn: Connection, text: str) -> None:
    try:
        # Every well-formed message in one pass; anything else is looked at step by step
        # below, for an error that says what is wrong.
        msg = client_message_adapter.validate_json(text)
    except ValidationError:
        pass
    else:
        await _dispatch(room, conn, msg)
        return
    try:
        obj = json.loads(text)
    except ValueError as exc:
        room.refuse(conn, "bad_json", f"Not JSON: {exc}.")
        return
    except RecursionError:
        # ("[" * 1500 + "]" * 1500: 3 KB.) Not a traceback in the log, nor the socket lost.
        room.refuse(conn, "bad_json", "Not JSON we read: nested too deeply.")
        return
    if not isinstance(obj, dict):
        room.refuse(conn, "bad_message", "A message is a JSON object with a `type`.")
        return
    kind = obj.get("type")
    if not isinstance(kind, str):
        room.refuse(conn, "bad_message", "A message needs a string `type`.")
        return
    if kind not in CLIENT_TYPES:
        known = ", ".join(sorted(CLIENT_TYPES))
        room.refuse(conn, "unknown_type", f"Unknown message type {kind[:40]!r}; known: {known}.")
        return
    try:
        msg = client_message_adapter.validate_python(obj)
    except ValidationError as exc:
        room.refuse(conn, "bad_message", _describe(exc))
        return
    # Not reached for a valid message (the one pass above takes it); kept so that a
    # message the two checks judge differently is still handled, not dropped.
    await _dispatch(room, conn, msg)


async def _dispatch(room: Room, conn: Connection, msg: ClientMessage) -> None:
    if isinstance(msg, ActionMessage | NewMatchMessage | ComputerSeatMessage):
        await room.act(conn, msg)
    elif isinstance(msg, GoOnMessage):
        if conn.seat == WATCHER:
            room.refuse(conn, "not_allowed", "You are watching this table: you cannot play.")
        elif room.computer is not None and msg.version == room.version:
            room.computer.go_on()  # the computer's hold ends; nothing else changes
    elif isinstance(msg, HintMessage | ReviewMessage):
        room.coach.answer(conn, msg)  # this socket only; the partie does not change
    elif isinstance(msg, ClientPing):
        conn.send(PONG_TEXT)
    # A pong needs no answer: `heard` has noted the socket is alive.


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error["loc"][1:]) or "message"  # loc[0] is the tag
        parts.append(f"{where}: {error['msg']}")
    return "Wrong message shape: " + "; ".join(parts) + "."


ROUTE = WebSocketRoute("/ws/{room_id}", table_socket, name="table_socket")
# The path ROUTE matches (Starlette's `{name}`: one segment), for `TableApp`'s shortcut.
ROUTE_PATH = re.compile(r"/ws/([^/]+)")


async def shortcut(scope: Scope, receive: Receive, send: Send) -> bool:
    """A table's socket (`/ws/{room_id}`) straight to `table_socket`, past the middleware
    and the router; False for anything else. Each layer of the stack keeps a coroutine
    frame (and wraps `send` and `receive`) for as long as a socket is open: ~9 KB a socket
    and a few microseconds a frame, with nothing to do for a socket (the Guard handles
    HTTP only; `table_socket` checks the origin and the seat itself, and handles its
    own failures). Any other WebSocket path goes the usual way (the router's 403 close)."""
    if scope["type"] != "websocket":
        return False
    found = ROUTE_PATH.fullmatch(scope["path"])
    if found is None:
        return False
    scope["path_params"] = {"room_id": found[1]}
    await table_socket(WebSocket(scope, receive, send))
    return True
