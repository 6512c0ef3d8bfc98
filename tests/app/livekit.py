"""A real server for the fault tests: `python -m app` on a free loopback port, with its
log in a file, started and stopped by the test; and seats over real WebSockets.

Everything stays on 127.0.0.1, and every wait has a time limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from tablekit import HoldsState
from websockets.asyncio.client import ClientConnection, connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from tests.serverproc import HOST, AppProcess

Json = dict[str, Any]


class LiveServer(AppProcess):
    """`python -m app` in a subprocess; `env` adds PIQUET_* settings."""

    def start(self) -> LiveServer:
        super().start()
        return self

    def stop(self, timeout: float = 15) -> int | None:
        """SIGTERM, as a service manager stops it; its exit status."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("the server did not stop on SIGTERM") from None

    def open_fds(self) -> int:
        assert self.proc is not None
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def post(self, path: str, body: Any = None) -> Json:
        response = httpx.post(f"{self.http}{path}", json=body, trust_env=False, timeout=10)
        response.raise_for_status()
        result: Json = response.json()
        return result

    def health(self) -> Json:
        result: Json = httpx.get(f"{self.http}/healthz", trust_env=False, timeout=10).json()
        return result

    def friend_room(self) -> tuple[str, str, str]:
        """A friend's room with both seats taken: (room id, seat 0's token, seat 1's)."""
        made = self.post("/api/rooms", {"opponent": "friend"})
        joined = self.post(f"/api/rooms/{made['room_id']}/join")
        return made["room_id"], made["token"], joined["token"]


@contextlib.contextmanager
def live_server(tmp_path: Path, **env: str) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path / "server.log", **env).start()
    try:
        yield server
    finally:
        server.kill()


def cookie(room_id: str, token: str) -> dict[str, str]:
    return {"Cookie": f"piquet_seat_{room_id}={token}"}


class LiveSeat(HoldsState):
    """One seat's real WebSocket (the `websockets` client)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: Json = {}
        self.frames: list[Json] = []
        self.ids = 0
        self.prefix = f"f{id(self)}"

    @classmethod
    async def open(cls, server: LiveServer, room_id: str, token: str | None,
                   watch: bool = False, **kw: Any) -> LiveSeat:
        """`watch`: a watcher's socket (`?watch=1`, no seat)."""
        headers = cookie(room_id, token) if token else {}
        query = "?watch=1" if watch else ""
        ws = await connect(f"{server.ws}/ws/{room_id}{query}", additional_headers=headers,
                           proxy=None, open_timeout=10, **kw)
        return cls(ws)


    async def recv(self, timeout: float = 10) -> Json:
        frame: Json = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.frames.append(frame)
        if frame["type"] == "state":
            self.state = frame
        if frame["type"] == "ping":
            await self.ws.send('{"type": "pong"}')
        return frame

    async def expect(self, kind: str, timeout: float = 10) -> Json:
        """The next frame of this kind (an error frame on the way fails)."""
        while True:
            frame = await self.recv(timeout)
            if frame["type"] == kind:
                return frame
            assert frame["type"] != "error", frame

    async def answer(self, timeout: float = 10) -> Json:
        """The next frame that answers a message: not a presence, not a ping."""
        while True:
            frame = await self.recv(timeout)
            if frame["type"] not in ("presence", "ping"):
                return frame

    async def closed(self, timeout: float = 10) -> tuple[int | None, str]:
        """Read up to the close; the code and reason received (None: no close frame)."""
        try:
            while True:
                await self.recv(timeout)
        except ConnectionClosed as exc:
            if exc.rcvd is None:
                return None, ""
            return exc.rcvd.code, exc.rcvd.reason

    def next_id(self) -> str:
        self.ids += 1
        return f"{self.prefix}-{self.ids}"

    def action_text(self, action: Json, msg_id: str | None = None) -> str:
        return json.dumps({"type": "action", "version": self.version,
                           "id": msg_id or self.next_id(), "action": action})


class RawSeat:
    """A WebSocket on a plain socket, read only when the test says so: a client that
    stops reading. Frames are parsed by the `websockets` sans-I/O protocol."""

    def __init__(self, server: LiveServer, room_id: str, token: str, rcvbuf: int = 4096) -> None:
        self.sock = socket.socket()
        # A small receive buffer, so the server's side fills up soon.
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(10)
        self.sock.connect((HOST, server.port))
        self.proto = ClientProtocol(parse_uri(f"{server.ws}/ws/{room_id}"))
        request = self.proto.connect()
        request.headers["Cookie"] = f"piquet_seat_{room_id}={token}"
        self.proto.send_request(request)
        self.sock.sendall(b"".join(self.proto.data_to_send()))
        head = b""
        while b"\r\n\r\n" not in head:  # the handshake's answer, one byte at a time
            byte = self.sock.recv(1)
            assert byte, "the server closed during the handshake"
            head += byte
        self.proto.receive_data(head)
        assert self.proto.handshake_exc is None, self.proto.handshake_exc
        self.frames: list[Frame] = []
        self.close_frame: Frame | None = None
        self.eof = False

    def read_all(self, timeout: float) -> None:
        """Read until the server closes (a close frame or EOF), or `timeout` of silence."""
        self.sock.settimeout(timeout)
        try:
            while self.close_frame is None and not self.eof:
                data = self.sock.recv(65536)
                if not data:
                    self.eof = True
                    break
                self.proto.receive_data(data)
                for event in self.proto.events_received():
                    if not isinstance(event, Frame):
                        continue
                    if event.opcode is Opcode.CLOSE:
                        self.close_frame = event
                    else:
                        self.frames.append(event)
        except TimeoutError:
            pass

    def close(self) -> None:
        self.sock.close()
