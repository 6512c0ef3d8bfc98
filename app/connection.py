"""One open WebSocket of a seat (or a watcher): a bounded send queue drained by its own
task.

The room never waits on a socket. It queues frames (`send`) and, on a change, hands the
socket the room's snapshot and marks it owed a state (`want_state`); the sender task
writes that state when it gets to it, from the newest snapshot it was handed by then
(app/seat_view.py's `state_text`). So a socket that falls behind gets the newest state
rather than a backlog of old ones, and a view is only worked out for a socket that is
about to be written to. A socket that stops reading is dropped (the room's seating
forgets a dropped socket: app/seating.py), and the room and the other seat go on
(DESIGN.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from fastapi import WebSocket
from starlette.types import Message

from app import seat_view
from app.protocol import CLOSE_INTERNAL, CLOSE_KEEPALIVE, CLOSE_TOO_SLOW, ServerPing
from app.seat_view import LogCursor, Snapshot

log = logging.getLogger("piquet.ws")

PING_TEXT = ServerPing().model_dump_json()
# A socket that has said nothing (not even a pong) for this many ping intervals is dead.
KEEPALIVE_MISSES = 3
CLOSE_TIMEOUT = 5.0


@dataclass(frozen=True, slots=True)
class _Close:
    code: int
    reason: str


class _State:
    """In the queue: here the socket is owed its seat's state, written when reached."""


STATE = _State()


class Connection:
    # Slots, and a list with one waiter instead of an asyncio.Queue (three deques and an
    # Event, ~2.5 KB): a server holds two of these per room (docs/reliability.md).
    __slots__ = (
        "_behind",
        "_closer",
        "_frames",
        "_sending",
        "_task",
        "_ticker",
        "_wakeup",
        "closing",
        "cursor",
        "dropped",
        "lang",
        "last_heard",
        "last_sent",
        "ping_interval",
        "queue_size",
        "reader",
        "receiving",
        "room_id",
        "seat",
        "snapshot",
        "websocket",
    )

    def __init__(
        self,
        websocket: WebSocket,
        room_id: str,
        seat: int,
        *,
        queue_size: int,
        ping_interval: float,
        lang: str = "en",
    ) -> None:
        self.websocket = websocket
        # The language of its handshake (app/i18n.py): what it is told in words (errors,
        # the table's notices) is said in it.
        self.lang = lang
        self.room_id = room_id
        self.seat = seat
        self.queue_size = queue_size
        self.ping_interval = ping_interval
        # Frames to send, oldest first; bounded by `send` (the close always fits behind),
        # and the sender's wake-up while it waits for one. STATE holds the place of the
        # state owed (at most one: later changes are in it when it is written).
        self._frames: list[str | _Close | _State] = []
        self._wakeup: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        # The newest snapshot of the room this socket was handed: its state is worked
        # out from it when written.
        self.snapshot: Snapshot | None = None
        # A write is under way, and how many changes came meanwhile while a state was
        # already owed.
        self._sending = False
        self._behind = 0
        self.closing = False  # no more frames will be queued
        self.dropped = False  # given up on: the room forgets it at once
        self._closer: asyncio.Task[None] | None = None
        self._ticker: asyncio.TimerHandle | None = None
        self.last_heard = self.last_sent = time.monotonic()
        # The task reading this socket, and whether it is waiting for a frame just now:
        # a dropped socket's reader is cancelled only there, never mid-action.
        self.reader: asyncio.Task[None] | None = None
        self.receiving = False
        # The log lines this socket had in its last state, to send it only the new ones.
        self.cursor = LogCursor()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"send {self.room_id}/{self.seat}")
        self._ticker = asyncio.get_running_loop().call_later(self.ping_interval, self._tick)

    def _tick(self) -> None:
        """Once a ping interval (one timer per socket, not one per frame): ping a socket
        that was sent nothing, or that sent nothing, for an interval (a socket told of
        changes all the time, a busy table's watcher or the lobby's, would otherwise never
        be asked and be closed as silent); close one silent for KEEPALIVE_MISSES."""
        self._ticker = None
        if self.closing:
            return
        now = time.monotonic()
        if now - self.last_heard > KEEPALIVE_MISSES * self.ping_interval:
            if self._sending:  # a write is stuck too: a close frame would never get out
                self.drop("no answer to ping, and not reading")
            else:
                self.close(CLOSE_KEEPALIVE, "No answer to ping.")
            return
        quiet = now - self.last_sent >= self.ping_interval and not self._frames
        if quiet or now - self.last_heard >= self.ping_interval:
            self.send(PING_TEXT)
        self._ticker = asyncio.get_running_loop().call_later(self.ping_interval, self._tick)

    def heard(self) -> None:
        self.last_heard = time.monotonic()

    async def serve(self, reading: Coroutine[Any, Any, None]) -> None:
        """Run `reading`, the socket's receive loop, as its reader: a task of its own,
        which `drop` may cancel while it waits for a frame (a client that stopped reading
        may never send again either); that cancel ends it quietly."""
        self.reader = asyncio.create_task(reading)
        try:
            await self.reader
        except asyncio.CancelledError:
            if not self.reader.cancelled() or not self.dropped:
                raise  # the handler itself was cancelled (shutdown): not ours to swallow

    async def next_frame(self) -> Message | None:
        """The client's next frame (noted as heard from), or None once it has gone. Only
        while waiting here may a dropped socket's reader be cancelled, never mid-frame."""
        self.receiving = True
        try:
            frame = await self.websocket.receive()
        finally:
            self.receiving = False
        if frame["type"] == "websocket.disconnect":
            return None
        self.heard()
        return frame

    def send(self, text: str) -> bool:
        """Queue a frame; never waits. False if the socket is closing or was just dropped."""
        if self.closing:
            return False
        if len(self._frames) >= self.queue_size:
            self.drop("send queue full")
            return False
        self._put(text)
        return True

    def update(self, snapshot: Snapshot) -> None:
        """The room's newest snapshot, for the state this socket writes next (a state owed
        already is written from it)."""
        self.snapshot = snapshot

    def want_state(self, snapshot: Snapshot) -> None:
        """The room changed: this socket is owed its state, of `snapshot`. Never waits. If
        one is owed already, it will be the newest when written; but a socket whose write
        has been stuck for more than `queue_size` changes has stopped reading, and is
        dropped."""
        self.snapshot = snapshot
        if self.closing:
            return
        if STATE in self._frames:
            self._behind += 1
            if self._behind > self.queue_size and self._sending:
                self.drop(f"{self._behind} changes behind")
            return
        if len(self._frames) >= self.queue_size:
            self.drop("send queue full")
            return
        self._put(STATE)

    def send_then_state(self, text: str, snapshot: Snapshot) -> None:
        """Queue `text` (an error) and this socket's state behind it: the client always
        gets a state at least as new as the error (docs/protocol.md). A state already
        owed, ahead of the error, moves behind it (it is worked out when written, so
        it is still the newest): left ahead, the error would be the last word."""
        if not self.send(text):
            return
        if STATE in self._frames:
            self._frames.remove(STATE)
        self.want_state(snapshot)

    async def _write(self, text: str) -> None:
        self._sending = True
        try:
            await self.websocket.send_text(text)
        finally:
            self._sending = False
        self.last_sent = time.monotonic()

    def _put(self, item: str | _Close | _State) -> None:
        self._frames.append(item)
        if not self._sending:
            self._wake()

    def _wake(self) -> None:
        if self._wakeup is not None and not self._wakeup.done():
            self._wakeup.set_result(None)

    def sender(self) -> list[asyncio.Task[None]]:
        """The task writing this socket, if it is still running (to wait for a close)."""
        return [self._task] if self._task is not None and not self._task.done() else []

    def close(self, code: int, reason: str) -> None:
        """Close once the frames already queued are sent."""
        if self.closing:
            return
        self.closing = True
        self._put(_Close(code, reason))

    def drop(self, why: str) -> None:
        """The client stopped reading: give up on it now, without waiting on its socket.

        The sender may be stuck in a send that will
        never finish, so it is cancelled and the close is tried from a task of its own,
        with a time limit.
        """
        if self.dropped:
            return
        log.warning("drop room=%s seat=%d: %s", self.room_id, self.seat, why)
        self.closing = self.dropped = True
        if self._task is not None:
            self._task.cancel()
        if self.reader is not None and self.receiving:
            # Its client may never send again: end the receive loop now. (If the reader is
            # busy with a frame, it sees `dropped` when it is done with it.)
            self.reader.cancel()
        self._frames.clear()  # nobody will read these now
        self._closer = asyncio.create_task(self._close_now(CLOSE_TOO_SLOW, "Too slow to read."))

    async def _close_now(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await self.websocket.close(code, reason)

    async def stop(self) -> None:
        """The socket has ended: stop the sender task."""
        self.closing = True
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _next(self) -> str | _Close | _State:
        while not self._frames:
            self._wakeup = asyncio.get_running_loop().create_future()
            try:
                await self._wakeup
            finally:
                self._wakeup = None
        return self._frames.pop(0)

    async def _run(self) -> None:
        try:
            while True:
                item = await self._next()
                if isinstance(item, _Close):
                    self.closing = True
                    await self.websocket.close(item.code, item.reason)
                    return
                if isinstance(item, _State):
                    self._behind = 0
                    item = self._render()
                await self._write(item)
                del item  # not kept while waiting for the next: ~2 KB a socket
        except asyncio.CancelledError:
            raise
        except _RenderFailed:
            self.closing = True
            with contextlib.suppress(Exception):
                await self.websocket.close(CLOSE_INTERNAL, "The server failed; reconnect.")
        except Exception as exc:  # the peer went away mid-send: the receive loop cleans up
            log.debug("send ended room=%s seat=%d: %r", self.room_id, self.seat, exc)

    def _render(self) -> str:
        assert self.snapshot is not None  # STATE is only queued with one
        try:
            text, self.cursor = seat_view.state_text(self.snapshot, self.seat, self.cursor,
                                                     self.lang)
            return text
        except Exception as exc:
            log.exception("state failed room=%s seat=%d", self.room_id, self.seat)
            raise _RenderFailed from exc


class _RenderFailed(Exception):
    """Working out this socket's state failed (a bug): it is closed, to reconnect."""
