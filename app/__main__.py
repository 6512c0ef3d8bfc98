"""`python -m app`: serve the table with uvicorn on PIQUET_HOST:PIQUET_PORT."""

from __future__ import annotations

import logging
import re
import socket
import sys
from types import FrameType
from typing import Any, NoReturn

import uvicorn
from fastapi import FastAPI
from pydantic import ValidationError

from app.main import create_app
from app.protocol import CLOSE_GOING_AWAY
from app.registry import RoomRegistry
from app.security import card_free, loggable, well_formed_room_id
from app.serving import connection_cap, guarded_h11
from app.settings import Settings
from app.store import StoreRefused

# At debug level, uvicorn (through the websockets library) logs every handshake's request
# headers, the seat cookie among them: a token must never reach a log line.
SEAT_COOKIE = re.compile(r"(piquet_seat_[^=\s;]*=)[^;\s]+")
HEADER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "websockets", "websockets.server")


class HideSeatCookies(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "piquet_seat_" in message:
            record.msg, record.args = SEAT_COOKIE.sub(r"\1(hidden)", message), None
        return True


class QuietBadFrames(logging.Filter):
    """uvicorn logs a text frame that is not UTF-8 with a traceback, at ERROR: a client's
    fault, not the server's, and one a client can repeat at will. One line, a warning."""

    MESSAGES = frozenset({"Invalid UTF-8 sequence received from client."})

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg in self.MESSAGES and record.exc_info:
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


class OneLine(logging.Filter):
    """Every log line is one line, whatever a client sent: a control character (a line
    break above all, which would start a line of the sender's making) in a record's
    message is written as an escape (app/security.py, `loggable`). On every handler, so
    it holds for every logger, ours, uvicorn's and the libraries'. A traceback (exc_info)
    is left as it is: its lines are the server's."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple):
            # Each text argument escaped in place: uvicorn's access formatter reads its
            # arguments one by one.
            record.args = tuple(loggable(a) if isinstance(a, str) else a for a in args)
        try:
            message = record.getMessage()
        except Exception:  # a bad format: the handler's own error report says so
            return True
        safe = loggable(message)
        if safe != message:  # (a non-text argument, or a message with no arguments)
            record.msg, record.args = safe, None
        return True


class NoCards(logging.Filter):
    """The table's own log lines name no card: a refused action's line used to carry the
    seat's legal cards by name (the error's "allowed: ..." list) and the card it sent. Each
    text argument of a `piquet.*` record but a room id (random text: "x-KD_y..." names no
    card) is made `card_free` (app/security.py): the line keeps the code and a summary."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("piquet") and isinstance(record.args, tuple):
            record.args = tuple(
                card_free(a) if isinstance(a, str) and not well_formed_room_id(a) else a
                for a in record.args)
        return True


# Loggers with handlers of their own once uvicorn has configured logging (the rest
# propagate to the root's).
HANDLER_OWNERS = ("", "uvicorn", "uvicorn.access")


def filter_logs() -> None:
    """`NoCards`, then `OneLine`, on every handler there is (call once uvicorn has set up
    its own)."""
    for name in HANDLER_OWNERS:
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, OneLine) for f in handler.filters):
                handler.addFilter(NoCards())
                handler.addFilter(OneLine())


class Server(uvicorn.Server):
    """uvicorn's server, which on SIGTERM (or SIGINT) first tells the rooms to take no
    more actions; uvicorn then closes every socket with 1012, and the page reconnects at
    once (docs/protocol.md): with a store, to whichever process owns the room then."""

    def __init__(self, app: FastAPI, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.rooms: RoomRegistry = app.state.rooms

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.rooms.stop_taking_actions()
        super().handle_exit(sig, frame)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # Every table's sockets are told why first (uvicorn's own close has no reason),
        # and an action that arrives meanwhile is answered "unavailable", not ignored.
        await self.rooms.close_sockets(CLOSE_GOING_AWAY, "The server is restarting.")
        await super().shutdown(sockets)


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The uvicorn settings the table runs with (the benchmark reuses them for its echo app).
    HTTP is uvicorn's h11 protocol with a deadline for request heads and caps on
    connections (app/serving.py); no `server` header tells what runs here."""
    return {
        "http": guarded_h11(settings, connection_cap(settings)),
        "server_header": False,
        "timeout_keep_alive": settings.keep_alive_seconds,
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.log_level,
        "ws_max_size": settings.ws_max_frame_bytes,
        "ws_per_message_deflate": settings.ws_deflate,
        "proxy_headers": True,
    }


def refuse_to_start(problem: str) -> NoReturn:
    """A setting or the store that the server cannot run with: one line, exit 2."""
    print(f"piquet: cannot start: {problem}", file=sys.stderr, flush=True)
    raise SystemExit(2)


def read_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        refuse_to_start("; ".join(
            ("PIQUET_" + "_".join(str(part) for part in error["loc"]).upper() + ": "
             if error["loc"] else "") + error["msg"].removeprefix("Value error, ")
            for error in exc.errors()))


def main() -> None:
    settings = read_settings()
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    print(f"Piquet table: http://{shown_host}:{settings.port}/", flush=True)
    for name in HEADER_LOGGERS:
        logging.getLogger(name).addFilter(HideSeatCookies())
    logging.getLogger("uvicorn.error").addFilter(QuietBadFrames())
    try:
        app = create_app(settings, settle_gc=settings.collector_tuning)
    except StoreRefused as exc:
        refuse_to_start(str(exc))
    config = uvicorn.Config(app, **uvicorn_options(settings))  # (sets up uvicorn's logging)
    filter_logs()
    Server(app, config).run()


if __name__ == "__main__":
    main()
