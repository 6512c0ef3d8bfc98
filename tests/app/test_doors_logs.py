"""What a client can make the server write in its log (issue 25): a room id that forges a
whole log line, and control characters in anything a client sends; a room id not of the
server's making is refused before it is looked up (or sent to Redis). Over the TestClient
and over a real server's log."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from livekit import LiveSeat, live_server
from tablekit import SeatSocket, TestClient

import app.registry
from app.protocol import CLOSE_UNKNOWN_ROOM
from app.registry import RoomRegistry
from app.security import loggable, well_formed_room_id

FORGED = "2026-01-01 00:00:00,000 INFO piquet.rooms: room created room=forged"
# The id as it reaches the server in a request line (percent-encoded); decoded, it holds a
# line break and then a whole log line of the attacker's making.
FORGED_PATH_ID = "x%0a" + FORGED.replace(" ", "%20").replace(",", "%2C")
BAD_IDS = [
    "x\n" + FORGED,  # a line break, then a line of its own
    "abc{tag}defghijk",  # braces: a Redis Cluster hash tag
    "abcdefghijklmno",  # one short
    "abcdefghijklmnopq",  # one long
    "abcdefgh.ijklmno",
    "abcdefghijklmn\u00e9o",  # a letter, but not one the server makes
    "abcdefghijklmn\x1bo",
]


def test_every_room_id_the_server_makes_is_well_formed() -> None:
    ids = [app.registry.new_room_id() for _ in range(2000)]
    assert all(well_formed_room_id(i) for i in ids)
    assert not any(well_formed_room_id(i) for i in BAD_IDS)


def spy_on_find(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The room ids looked up (in memory or in the store) from now on."""
    asked: list[str] = []
    registry: RoomRegistry = client.app.state.rooms  # type: ignore[attr-defined]
    real = registry.find

    async def find(room_id: str, **kw: Any) -> Any:
        asked.append(room_id)
        return await real(room_id, **kw)

    monkeypatch.setattr(registry, "find", find)
    return asked


@pytest.mark.parametrize("room_id", BAD_IDS)
def test_a_malformed_room_id_is_refused_before_it_is_looked_up(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
    room_id: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    asked = spy_on_find(client, monkeypatch)
    room_id = quote(room_id, safe="")  # as a browser sends it: the server decodes it
    sock = SeatSocket(client, room_id, None)
    sock.open()
    code, reason = sock.expect_closed()
    assert code == CLOSE_UNKNOWN_ROOM and "No such table" in reason
    watcher = SeatSocket(client, room_id, None, watch=True)
    watcher.open()
    assert watcher.expect_closed()[0] == CLOSE_UNKNOWN_ROOM
    page = client.get(f"/r/{room_id}")
    assert page.status_code == 404 and "No such table" in page.text
    seat = client.post(f"/r/{room_id}/seat")
    assert seat.status_code == 404 and "No such table" in seat.json()["detail"]
    join = client.post(f"/api/rooms/{room_id}/join")
    assert join.status_code == 404 and "No such table" in join.json()["detail"]
    assert asked == [], "a malformed id was looked up (and, with a store, sent to Redis)"
    for record in caplog.records:
        assert not re.search(r"[\x00-\x1f\x7f]", record.getMessage()), record.getMessage()


def test_a_well_formed_unknown_room_is_still_looked_up(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = spy_on_find(client, monkeypatch)
    assert client.get("/r/abcdefghijklmnop").status_code == 404
    assert asked == ["abcdefghijklmnop"]


def test_loggable_escapes_every_control_character() -> None:
    assert loggable("a\nb\r\x00\x1b[31m\x7f\x85\u2028\u202e") == \
        "a\\x0ab\\x0d\\x00\\x1b[31m\\x7f\\x85\\u2028\\u202e"
    assert loggable("plain text, 'quoted' é ♥") == "plain text, 'quoted' é ♥"


def log_lines(log: str) -> list[str]:
    return log.splitlines()


def test_a_room_id_cannot_forge_a_line_in_a_real_servers_log(tmp_path: Path) -> None:
    with live_server(tmp_path, PIQUET_LOG_LEVEL="debug") as server:
        made = server.post("/api/rooms", {"opponent": "friend"})

        async def traffic() -> None:
            for watch in (False, True):
                sock = await LiveSeat.open(server, FORGED_PATH_ID, None, watch=watch)
                code, reason = await sock.closed()
                assert code == CLOSE_UNKNOWN_ROOM and "No such table" in reason
            # Control characters in what a client sends on a good socket.
            seat = await LiveSeat.open(server, made["room_id"], made["token"])
            await seat.expect("state")
            await seat.ws.send(json.dumps({"type": "x\n" + FORGED}))
            assert (await seat.answer())["code"] == "unknown_type"
            await seat.expect("state")
            await seat.ws.send(json.dumps({"type": "action", "version": 1, "id": "i\r\n" + FORGED,
                                           "action": {"type": "play", "card": "QH\n" + FORGED}}))
            assert (await seat.answer())["type"] == "error"
            await seat.expect("state")
            await seat.ws.close()

        asyncio.run(traffic())
        with httpx.Client(base_url=server.http, trust_env=False, timeout=10) as http:
            for path in (f"/r/{FORGED_PATH_ID}", f"/api/rooms/{FORGED_PATH_ID}/join",
                         f"/r/{FORGED_PATH_ID}/seat"):
                response = (http.get(path) if path.startswith("/r/") and
                            not path.endswith("/seat") else http.post(path))
                assert response.status_code == 404, path
        log = server.log()
    assert "refused connection" in log
    forged = [line for line in log_lines(log) if line.startswith("2026-01-01")]
    assert not forged, forged
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", log)
