"""Security checks (issue 6), beyond what test_bad_input.py, test_http.py and
test_limits.py already cover (a foreign origin, tokens kept out of pages and of the log of
a short game, expiry and max_rooms): origins that look like ours but are not, a token
never in a URL, a log line (ours or uvicorn's) or any frame, constant-time comparison,
the entropy of room ids and tokens, and memory kept bounded under churn."""

from __future__ import annotations

import ast
import asyncio
import collections
import gc
import logging
import math
import random
import secrets
import string
import weakref
from pathlib import Path

import pytest
from livekit import LiveSeat, live_server
from tablekit import (
    FakeClock,
    SeatSocket,
    TestClient,
    join,
    new_room,
    play_friend_partie,
    room_of,
    serve,
)

import app.registry
import app.room
import app.room_setup
import app.seating
from app.registry import RoomRegistry
from app.room import REMEMBERED_IDS, MessageIds
from app.settings import ROOT
from app.store import hash_token

URLSAFE = set(string.ascii_letters + string.digits + "-_")


# --- origins -----------------------------------------------------------------------------


@pytest.mark.parametrize("origin", [
    "null",  # a sandboxed frame or a file:// page
    "http://testserver:8080",  # same host, another port: another origin
    "http://evil.testserver",
    "http://testserver.evil.example",
    "http://testserverx",
    "http://user@testserver",
    "ws://evil.example",
])
def test_origins_that_only_look_like_ours_are_refused(client: TestClient, origin: str) -> None:
    made = new_room(client, "friend")
    sock = SeatSocket(client, made["room_id"], made["token"], headers={"origin": origin})
    sock.open()
    code, _ = sock.expect_closed()
    assert code == 4403
    assert sock.frames == [], "a refused socket was sent something first"


@pytest.mark.parametrize("origin", ["http://testserver", "HTTP://TESTSERVER", "http://testserver/"])
def test_our_own_origin_is_welcome(client: TestClient, origin: str) -> None:
    made = new_room(client, "friend")
    sock = SeatSocket(client, made["room_id"], made["token"], headers={"origin": origin})
    assert sock.connect()["room"]["seat"] == 0


# --- a token is never shown --------------------------------------------------------------


def test_no_frame_to_either_seat_holds_a_token(client: TestClient) -> None:
    """A whole partie with reconnects and refused input: neither token, nor any part of
    it long enough to matter, is ever in a frame to either seat."""
    made = new_room(client, "friend")
    room_id = made["room_id"]
    tokens = (made["token"], join(client, room_id)["token"])
    a = SeatSocket(client, room_id, tokens[0])
    b = SeatSocket(client, room_id, tokens[1])
    a.connect()
    b.connect()
    rng = random.Random(71)

    def now_and_then(step: int) -> None:
        if step % 40 == 5:
            a.send("{bad json")
            a.refused("bad_json")
        if step % 50 == 7:
            b.close()
            b.connect()

    play_friend_partie(a, b, rng, between=now_and_then)
    frames = [str(f) for f in a.frames + b.frames]
    assert len(frames) > 300
    for token in tokens:
        pieces = {token[i:i + 12] for i in range(len(token) - 11)}
        assert not any(piece in frame for frame in frames for piece in pieces)


def test_a_token_is_in_no_url(client: TestClient) -> None:
    api = new_room(client, "friend")
    assert api["token"] not in api["url"]
    joined = join(client, api["room_id"])
    assert joined["token"] not in joined["url"]
    made = client.post("/rooms", data={"opponent": "friend"}, follow_redirects=False)
    location = made.headers["location"]
    room_id = location.rsplit("/r/", 1)[1]
    token = made.cookies[f"piquet_seat_{room_id}"]
    assert token not in location
    page = client.get(location)  # the page links only to the room, never to the seat
    assert token not in page.text and room_id in page.text
    # The page's script opens /ws/<room id>: the cookie, not the URL, carries the seat.
    script = (ROOT / "static" / "js" / "socket.js").read_text()
    assert "token" not in script.lower()


def test_no_log_line_holds_a_token_over_a_real_server(tmp_path: Path) -> None:
    """The server's whole log at debug level, uvicorn's access lines included, after
    pages, the API, good and refused handshakes, play and refused input."""
    with live_server(tmp_path, PIQUET_LOG_LEVEL="debug") as server:
        room_id, t0, t1 = server.friend_room()
        other = server.post("/api/rooms", {"opponent": "computer"})

        async def traffic() -> None:
            a = await LiveSeat.open(server, room_id, t0)
            await a.expect("state")
            b = await LiveSeat.open(server, room_id, t1)
            await b.expect("state")
            await a.ws.send("{oops")
            await a.answer()
            await a.ws.send('{"type": "action", "version": 1, "id": "x", "action": {}}')
            await a.answer()
            wrong = await LiveSeat.open(server, room_id, other["token"])  # another room's
            assert (await wrong.closed())[0] == 4401
            foreign = await LiveSeat.open(server, room_id, t0, origin="http://evil.example")
            assert (await foreign.closed())[0] == 4403
            for sock in (a, b):
                await sock.ws.close()

        asyncio.run(traffic())
        import httpx

        with httpx.Client(base_url=server.http, trust_env=False) as http:
            http.cookies.set(f"piquet_seat_{room_id}", t0)
            assert http.get(f"/r/{room_id}").status_code == 200
        log = server.log()
        assert "connect room=" in log and "refused" in log and "GET /r/" in log
        for token in (t0, t1, other["token"]):
            assert token not in log


# --- constant-time comparison ------------------------------------------------------------


def test_seat_tokens_are_compared_with_compare_digest(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = secrets.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(app.seating.secrets, "compare_digest", spy)
    made = new_room(client, "friend")
    room_id = made["room_id"]
    friend = join(client, room_id)["token"]
    room = room_of(client, room_id)
    calls.clear()
    sock = SeatSocket(client, room_id, friend)
    assert sock.connect()["room"]["seat"] == 1
    # Seats keep their tokens' digests only (app/store.py), and compare digests.
    digest = hash_token(friend).encode()
    assert (digest, digest) in calls
    assert not any(friend.encode() in pair for pair in calls)
    # A wrong token is compared with both seats' tokens: the time it takes tells nothing
    # about which seat, or whether a prefix, matched.
    calls.clear()
    token = made["token"]
    wrong = token[:-1] + ("y" if token.endswith("x") else "x")  # (1 in 64 ends with x)
    assert room.seat_for_token(wrong) is None
    assert len(calls) == 2
    calls.clear()
    assert room.seat_for_token(made["token"]) == 0
    assert len(calls) == 2


def test_no_token_is_compared_with_eq_anywhere_in_the_app() -> None:
    """A static look at app/: no `==`/`!=`/`in` between a token and anything but None."""
    suspicious = []
    for path in sorted((ROOT / "app").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            names = [ast.unparse(o) for o in operands]
            if not any("token" in n.lower() and "tokens" not in n for n in names):
                continue
            if all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops):
                continue  # `token is None`
            suspicious.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert not suspicious, suspicious


# --- entropy -----------------------------------------------------------------------------


def bits_of(text: str) -> int:
    return len(text) * 6  # URL-safe base64: six bits a character


def looks_random(samples: list[str]) -> None:
    """Distinct, URL-safe, no fixed position, and characters spread evenly."""
    assert len(set(samples)) == len(samples), "a repeated value"
    assert all(set(s) <= URLSAFE for s in samples)
    length = min(len(s) for s in samples)
    for position in range(length):
        assert len({s[position] for s in samples}) > 20, f"position {position} barely varies"
    counts = collections.Counter(c for s in samples for c in s[: length - 1])
    expected = sum(counts.values()) / 64
    chi2 = sum((counts.get(c, 0) - expected) ** 2 / expected for c in URLSAFE)
    assert chi2 < 63 + 6 * math.sqrt(2 * 63), f"characters far from even: chi2 {chi2:.0f}"


def test_room_ids_and_tokens_have_the_entropy_design_asks(templates_dir: Path) -> None:
    with serve(templates_dir, max_rooms=5000) as client:
        rooms, tokens, friends = [], [], []
        for _ in range(1500):
            made = new_room(client, "friend")
            rooms.append(made["room_id"])
            tokens.append(made["token"])
        for room_id in rooms[:300]:
            friends.append(join(client, room_id)["token"])
    assert min(bits_of(r) for r in rooms) >= 64
    assert min(bits_of(t) for t in tokens + friends) >= 128
    looks_random(rooms)
    looks_random(tokens)
    looks_random(friends)
    assert not set(tokens) & set(friends) and not set(rooms) & set(tokens)


def test_ids_and_tokens_come_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    real = secrets.token_urlsafe

    def spy(nbytes: int | None = None) -> str:
        assert nbytes is not None
        asked.append(nbytes)
        return real(nbytes)

    monkeypatch.setattr(app.room_setup.secrets, "token_urlsafe", spy)
    assert len(app.registry.new_room_id()) >= 11 and asked[-1] * 8 >= 64
    assert len(app.room_setup.new_token()) >= 22 and asked[-1] * 8 >= 128


# --- memory stays bounded ----------------------------------------------------------------


def test_rooms_under_churn_are_bounded_and_forgotten(templates_dir: Path) -> None:
    """Ten waves of rooms, each wave up to max_rooms, some with sockets, some against the
    computer; the clock moves past the idle time between waves. The count never passes
    max_rooms, and every expired room is gone from memory (nothing keeps a reference)."""
    clock = FakeClock()
    with serve(templates_dir, clock=clock, max_rooms=40, room_idle_seconds=60,
               sweep_interval=3600) as client:
        registry: RoomRegistry = client.app.state.rooms  # type: ignore[attr-defined]
        alive: list[weakref.ref[app.room.Room]] = []
        for wave in range(10):
            for i in range(40):
                made = new_room(client, "computer" if i % 3 == 0 else "friend")
                room = registry.get(made["room_id"])
                assert room is not None
                alive.append(weakref.ref(room))
                if i % 10 == 0:
                    sock = SeatSocket(client, made["room_id"], made["token"])
                    sock.connect()
                    sock.close()
                assert len(registry) <= 40
            # Full, of rooms nobody used: the oldest gives way (issue 15), the count holds.
            full = client.post("/api/rooms", json={"opponent": "friend"})
            assert full.status_code == 201, wave
            assert len(registry) == 40
            clock.advance(61)  # all idle now: the next room made sweeps them
            del room
        new_room(client, "friend")
        assert len(registry) == 1
        gc.collect()
        lingering = [r for r in alive[:-1] if r() is not None]
        assert not lingering, f"{len(lingering)} expired rooms still referenced"


def test_a_seat_remembers_a_bounded_number_of_ids() -> None:
    seat = MessageIds()
    for i in range(REMEMBERED_IDS + 500):
        assert seat.use(f"id-{i}")
    assert len(seat.used) == REMEMBERED_IDS
    assert not seat.use(f"id-{REMEMBERED_IDS + 499}")  # recent ones are still refused


def test_sweeping_is_logged_without_tokens(
    templates_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    clock = FakeClock()
    with serve(templates_dir, clock=clock, room_idle_seconds=10) as client:
        made = new_room(client, "friend")
        clock.advance(11)
        registry: RoomRegistry = client.app.state.rooms  # type: ignore[attr-defined]
        assert client.portal.call(registry.sweep) == 1  # type: ignore[union-attr]
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "expired" in text and made["token"] not in text
