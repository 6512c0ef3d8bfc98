"""The WebSocket `/ws/{room_id}`: handshake checks, then one receive loop per socket.

The loop only reads, checks limits and parses; the room applies. Sending is the
connection's own task, so a slow reader never holds the room; the one write this loop
makes itself is its own seat's state right after its own action (app/connection.py).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass

from fastapi import WebSocket
from pydantic import ValidationError
from starlette.routing import WebSocketRoute
from starlette.types import Message, Receive, Scope, Send

from app.connection import Connection
from app.i18n import N_, Text
from app.languages import request_language
from app.lobby_ws import LOBBY, lobby_socket
from app.protocol import (
    CLIENT_TYPES,
    CLOSE_BAD_TOKEN,
    CLOSE_FOREIGN_ORIGIN,
    CLOSE_GOING_AWAY,
    CLOSE_POLICY,
    CLOSE_UNKNOWN_ROOM,
    AbandonMessage,
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
from app.seat_view import WATCHER
from app.security import (
    NOT_A_ROOM,
    Allowance,
    RoomWatchers,
    WatchLimits,
    loggable,
    origin_allowed,
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
        return Refusal(CLOSE_UNKNOWN_ROOM, NOT_A_ROOM.english)
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
    shown = room.shown(websocket.query_params.get("seen"))
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
    admitted = _admit(websocket, room, seat, address)
    if isinstance(admitted, Refusal):
        log.info("refused connection room=%s seat=%d peer=%s: %s", room_id, seat, peer,
                 admitted.reason)
        await websocket.close(admitted.code, admitted.reason)
        return
    conn, limit, watching = admitted
    log.info("connect room=%s seat=%d peer=%s", room_id, seat, peer)
    try:
        await conn.serve(_receive_loop(room, conn, settings, limit))
    finally:
        room.detach(conn)
        if watching is not None:
            watching.left(address)
        await conn.stop()
        log.info("disconnect room=%s seat=%d peer=%s", room_id, seat, peer)


def _admit(websocket: WebSocket, room: Room, seat: int, address: str
           ) -> tuple[Connection, Allowance, RoomWatchers | None] | Refusal:
    """The socket at its seat (or watching), with the allowance its messages draw on, or
    why not: a seat's bucket, or a watcher's by address (watchers share nothing with a
    seat), and at most so many windows watching from one address."""
    settings: Settings = websocket.app.state.settings
    watch: WatchLimits = websocket.app.state.watch_limits
    limit: Allowance
    if seat == WATCHER:
        limit = watch.allowance(room, address)
    else:
        limit = room.seats[seat].rate_limit(settings.rate_limit_per_second,
                                            settings.rate_limit_burst)
    if not limit.take():
        return Refusal(CLOSE_POLICY, "Too many messages; wait a moment, then reconnect.")
    conn = Connection(websocket, room.room_id, seat, queue_size=settings.send_queue_size,
                      ping_interval=settings.ping_interval,
                      lang=request_language(websocket.scope))
    if seat != WATCHER:
        room.attach(conn)
        return conn, limit, None
    table = watch.table(room)
    if table.open[address] >= watch.per_address:
        return Refusal(CLOSE_POLICY, "You are watching this table in too many windows.")
    if not room.attach_watcher(conn):
        return Refusal(CLOSE_POLICY, "Too many people are watching this table.")
    table.open[address] += 1
    return conn, limit, table


async def _receive_loop(room: Room, conn: Connection, settings: Settings,
                        limit: Allowance) -> None:
    frame: Message | None
    text: str | None
    data: bytes | None
    while not conn.dropped:
        frame = text = data = None  # the last frame is not kept while waiting for the next
        frame = await conn.next_frame()
        if frame is None:
            return
        if conn.closing:
            continue  # a close is on its way; wait for the peer's close to end the loop
        if not limit.take():
            room.error(conn, "rate_limited", N_("Too many messages; this socket is closed."))
            conn.close(CLOSE_POLICY, "Too many messages.")
            continue
        text = frame.get("text")
        data = frame.get("bytes")
        size = len(text.encode()) if text is not None else len(data or b"")
        if size > settings.max_message_bytes:
            room.refuse(conn, "too_large", N_(
                "Message of {size} bytes; the limit is {most}.", size=size,
                most=settings.max_message_bytes))
            continue
        if text is None:
            room.refuse(conn, "bad_message", N_("Send JSON as text frames, not binary."))
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
        await dispatch(room, conn, msg)
        return
    try:
        obj = json.loads(text)
    except ValueError as exc:
        room.refuse(conn, "bad_json", N_("Not JSON: {why}.", why=str(exc)))
        return
    except RecursionError:
        # ("[" * 1500 + "]" * 1500: 3 KB.) Not a traceback in the log, nor the socket lost.
        room.refuse(conn, "bad_json", N_("Not JSON we read: nested too deeply."))
        return
    if not isinstance(obj, dict):
        room.refuse(conn, "bad_message", N_("A message is a JSON object with a `type`."))
        return
    kind = obj.get("type")
    if not isinstance(kind, str):
        room.refuse(conn, "bad_message", N_("A message needs a string `type`."))
        return
    if kind not in CLIENT_TYPES:
        known = ", ".join(sorted(CLIENT_TYPES))
        room.refuse(conn, "unknown_type", N_("Unknown message type {kind}; known: {known}.",
                                             kind=repr(kind[:40]), known=known))
        return
    try:
        msg = client_message_adapter.validate_python(obj)
    except ValidationError as exc:
        room.refuse(conn, "bad_message", _describe(exc))
        return
    # Not reached for a valid message (the one pass above takes it); kept so that a
    # message the two checks judge differently is still handled, not dropped.
    await dispatch(room, conn, msg)


async def dispatch(room: Room, conn: Connection, msg: ClientMessage) -> None:
    """A well-formed message, handed to the room: a move to `submit`, the rest to what
    answers it (none of them changes the partie)."""
    if isinstance(msg, ActionMessage):
        await room.submit(conn.seat, msg.action, msg.version, conn, msg.id)
    elif isinstance(msg, NewMatchMessage):
        await room.submit(conn.seat, {"type": "new_match"}, msg.version, conn, msg.id)
    elif isinstance(msg, ComputerSeatMessage):
        await room.submit(conn.seat, {"type": "computer_seat", "level": msg.level},
                          msg.version, conn, msg.id)
    elif isinstance(msg, AbandonMessage):
        await room.submit(conn.seat, {"type": "abandon"}, msg.version, conn, msg.id)
    elif isinstance(msg, GoOnMessage):
        room.go_on(conn, msg.version)
    elif isinstance(msg, HintMessage | ReviewMessage):
        room.ask(conn, msg)
    elif isinstance(msg, ClientPing):
        conn.send(PONG_TEXT)
    # A pong needs no answer: `heard` has noted the socket is alive.


def _describe(exc: ValidationError) -> Text:
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error["loc"][1:]) or "message"  # loc[0] is the tag
        parts.append(f"{where}: {error['msg']}")
    return N_("Wrong message shape: {what}.", what="; ".join(parts))


ROUTE = WebSocketRoute("/ws/{room_id}", table_socket, name="table_socket")
# The path ROUTE matches (Starlette's `{name}`: one segment), for `PiquetApp`'s shortcut.
ROUTE_PATH = re.compile(r"/ws/([^/]+)")


async def shortcut(scope: Scope, receive: Receive, send: Send) -> bool:
    """A table's socket (`/ws/{room_id}`) straight to `table_socket`, and the lobby's
    (`/ws/lobby`) to `lobby_socket`, past the middleware
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
    if found[1] == LOBBY:  # (never a room id: those are 16 characters)
        await lobby_socket(WebSocket(scope, receive, send))
        return True
    scope["path_params"] = {"room_id": found[1]}
    await table_socket(WebSocket(scope, receive, send))
    return True
