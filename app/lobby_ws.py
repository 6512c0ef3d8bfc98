"""The lobby's WebSocket `/ws/lobby`: the lists of open tables and tables being played, as
they change (app/lobby.py), to anyone; it takes nothing but ping and pong.

Its socket is a `Connection` like a table's (a bounded queue written by its own task,
the keepalive, dropped when it stops reading), holding no seat; what it sends is the
lobby's, the same text to every watcher. Its messages draw on a bucket of its own of the
seat's size, and a client address has the site's cap on connections (app/serving.py).
"""

from __future__ import annotations

import logging

import orjson
from fastapi import WebSocket

from app.connection import Connection
from app.lobby import Lobby
from app.protocol import CLOSE_FOREIGN_ORIGIN, CLOSE_POLICY, ErrorMessage, ServerPong
from app.seat_view import WATCHER
from app.security import RateLimit, loggable, origin_allowed
from app.settings import Settings

log = logging.getLogger("piquet.ws")

LOBBY = "lobby"  # the lobby socket's name where a table's room id would be
PONG_TEXT = ServerPong().model_dump_json()
# (Only a program sends the lobby's socket anything else: said in English.)
ONLY_PINGS = ErrorMessage(code="not_allowed", message="The lobby's socket takes ping and "
                          "pong only; tables are made and joined by their pages.").model_dump_json()


async def lobby_socket(websocket: WebSocket) -> None:
    settings: Settings = websocket.app.state.settings
    lobby: Lobby = websocket.app.state.lobby
    peer = loggable(websocket.client.host) if websocket.client else "?"
    await websocket.accept()
    headers = websocket.headers
    if not origin_allowed(headers.get("origin"), headers.get("host"), settings.allowed_origins):
        log.info("refused lobby connection peer=%s: foreign origin", peer)
        await websocket.close(CLOSE_FOREIGN_ORIGIN, "This page's origin may not connect.")
        return
    conn = Connection(websocket, LOBBY, WATCHER, queue_size=settings.send_queue_size,
                      ping_interval=settings.ping_interval)
    limit = RateLimit(settings.rate_limit_per_second, settings.rate_limit_burst)
    conn.start()
    lobby.watch(conn)
    try:
        await conn.serve(_receive_loop(conn, limit))
    finally:
        lobby.unwatch(conn)
        await conn.stop()


async def _receive_loop(conn: Connection, limit: RateLimit) -> None:
    while not conn.dropped:
        frame = await conn.next_frame()
        if frame is None:
            return
        if conn.closing:
            continue
        if not limit.take():
            conn.close(CLOSE_POLICY, "Too many messages.")
            continue
        try:
            kind = orjson.loads(frame.get("text") or b"{}").get("type")
        except (orjson.JSONDecodeError, AttributeError):
            kind = None
        if kind == "ping":
            conn.send(PONG_TEXT)
        elif kind != "pong":
            conn.send(ONLY_PINGS)
