"""Helpers for the lobby's tests: a browser's cookies over the one TestClient, and the
lobby's socket with the lists as a page keeps them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tablekit import SeatSocket, TestClient

Json = dict[str, Any]


class Browser:
    """One browser: its own cookies (the lobby tells browsers apart by their visitor
    cookie, and a seat is its seat cookie), over the test's one client."""

    def __init__(self, client: TestClient, name: str | None = None) -> None:
        self.client = client
        self.jar: dict[str, str] = {}
        if name is not None:
            self.post("/name", data={"name": name}, follow_redirects=False)

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        cookies = self.client.cookies
        cookies.clear()
        for key, value in self.jar.items():
            cookies.set(key, value)
        try:
            response = self.client.request(method, url, **kwargs)
            self.jar = dict(cookies.items())
        finally:
            cookies.clear()
        return response

    def post(self, url: str, **kwargs: Any) -> Any:
        return self.request("POST", url, **kwargs)

    def get(self, url: str, **kwargs: Any) -> Any:
        return self.request("GET", url, **kwargs)

    def quick(self, **body: Any) -> Json:
        answer = self.post("/api/lobby/quick", json=body)
        assert answer.status_code == 200, answer.text
        found: Json = answer.json()
        self.keep(found)
        return found

    def keep(self, granted: Json) -> None:
        """A seat the API granted (its token in the answer): kept as the page's cookie."""
        if granted.get("token"):
            self.jar[f"piquet_seat_{granted['room_id']}"] = granted["token"]

    def seat_token(self, room_id: str) -> str | None:
        return self.jar.get(f"piquet_seat_{room_id}")

    def socket(self, room_id: str) -> SeatSocket:
        return SeatSocket(self.client, room_id, self.seat_token(room_id))


class LobbyWatch:
    """The lobby's socket, keeping the lists as a page does (newest open table first)."""

    def __init__(self, client: TestClient) -> None:
        self.sock = SeatSocket(client, "lobby", None)  # /ws/lobby: no seat, no cookie
        self.sock.open()
        self.open: dict[str, Json] = {}
        self.playing: dict[str, Json] = {}
        self.messages: list[Json] = []
        self.read()  # the whole lists, first

    def read(self, timeout: float = 10) -> Json:
        frame = self.sock.recv(timeout)
        if frame["type"] != "lobby":
            return frame
        self.messages.append(frame)
        if frame["reset"]:
            self.open.clear()
            self.playing.clear()
        for table in frame["open"]:
            self.open[table["room_id"]] = table
        for room_id in frame["gone"]:
            self.open.pop(room_id, None)
        for table in frame["playing"]:
            self.playing[table["room_id"]] = table
        for room_id in frame["ended"]:
            self.playing.pop(room_id, None)
        return frame

    def until(self, done: Callable[[LobbyWatch], bool], timeout: float = 10) -> None:
        while not done(self):
            self.read(timeout)

    def text(self) -> str:
        """Every message it was sent, as sent."""
        return "\n".join(json.dumps(m, ensure_ascii=False) for m in self.sock.frames)

    def close(self) -> None:
        self.sock.close()
