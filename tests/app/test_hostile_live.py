"""A hostile visitor (issue 15) against a real uvicorn process on loopback: idle and
half-sent connections, forwarded addresses, link previews by a plain HTTP client, the
`server` banner, and frames no parser should choke on. The attacker connects from
127.0.0.2, the visitor from 127.0.0.1 (the trusted proxy here). Bounded: tens of
sockets, a header deadline of one second."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from livekit import LiveSeat, LiveServer, live_server

ATTACKER = "127.0.0.2"
PER_ADDRESS = 20


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("hostile"), PIQUET_HEADER_TIMEOUT="1",
                     PIQUET_MAX_CONNECTIONS_PER_ADDRESS=str(PER_ADDRESS),
                     PIQUET_ROOMS_BURST="3", PIQUET_ROOMS_PER_MINUTE="1",
                     FORWARDED_ALLOW_IPS="127.0.0.1") as live:
        yield live


def http(server: LiveServer, source: str = "127.0.0.1", **kw: object) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=source)
    return httpx.Client(base_url=server.http, transport=transport, trust_env=False,
                        timeout=10, **kw)  # type: ignore[arg-type]


def visitor(n: int) -> dict[str, str]:
    """Headers as our proxy (127.0.0.1) sends them for visitor `n`."""
    return {"x-forwarded-for": f"198.51.100.{n}"}


def open_idle(server: LiveServer, count: int, first_bytes: bytes = b"") -> list[socket.socket]:
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=5,
                                     source_address=(ATTACKER, 0))
        if first_bytes:
            s.sendall(first_bytes)
        socks.append(s)
    return socks


def is_closed(s: socket.socket) -> bool:
    s.setblocking(False)
    try:
        return s.recv(1024) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True  # reset
    finally:
        s.setblocking(True)


def wait_until(condition: object, seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


# --- idle connections --------------------------------------------------------------------


def test_idle_connections_are_capped_per_address_and_timed_out(server: LiveServer) -> None:
    """Connections that never send a request head (or only its first line) used to be
    held for ever: 1,100 of them shut everyone out under a 1,024 file limit."""
    socks = open_idle(server, PER_ADDRESS + 20)
    try:
        time.sleep(0.3)
        held = [s for s in socks if not is_closed(s)]
        assert len(held) <= PER_ADDRESS
        with http(server) as visitor_http:  # the service goes on meanwhile
            assert visitor_http.get("/").status_code == 200
        # The ones held are closed once the head is a second late.
        assert wait_until(lambda: all(is_closed(s) for s in held))
    finally:
        for s in socks:
            s.close()


def test_a_request_head_sent_too_slowly_is_cut_off(server: LiveServer) -> None:
    socks = open_idle(server, 3, b"GET / HTTP/1.1\r\nHost: x\r\n")
    try:
        assert wait_until(lambda: all(is_closed(s) for s in socks))
    finally:
        for s in socks:
            s.close()


def test_a_slow_body_is_cut_off(server: LiveServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10,
                                  source_address=(ATTACKER, 0)) as s:
        s.sendall(b"POST /rooms HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n"
                  b"Content-Type: application/x-www-form-urlencoded\r\n\r\nopp")
        assert wait_until(lambda: is_closed(s))


def test_connections_in_use_outlive_the_header_deadline(server: LiveServer) -> None:
    """The deadline is for a request's head only: a keep-alive connection between
    requests, and a WebSocket, stay as long as they are used."""
    with http(server, headers=visitor(1)) as client:
        for _ in range(3):
            assert client.get("/healthz").status_code == 200
            time.sleep(0.7)  # under the keep-alive time, over half the header deadline
        made = client.post("/api/rooms", json={"opponent": "friend"}).json()

    async def talk() -> None:
        seat = await LiveSeat.open(server, made["room_id"], made["token"])
        await seat.expect("state")
        await asyncio.sleep(2.5)
        await seat.ws.send('{"type": "ping"}')
        await seat.expect("pong")
        await seat.ws.close()

    asyncio.run(talk())


# --- rooms per client, behind the proxy ---------------------------------------------------


def test_rooms_are_counted_per_forwarded_address(server: LiveServer) -> None:
    with http(server) as proxy:
        for _ in range(3):
            assert proxy.post("/api/rooms", json={"opponent": "friend"},
                              headers=visitor(2)).status_code == 201
        assert proxy.post("/api/rooms", json={"opponent": "friend"},
                          headers=visitor(2)).status_code == 429
        # Another visitor through the same proxy is not held back.
        assert proxy.post("/api/rooms", json={"opponent": "friend"},
                          headers=visitor(3)).status_code == 201


def test_a_forwarded_header_from_anyone_else_is_ignored(server: LiveServer) -> None:
    with http(server, source=ATTACKER) as attacker:
        answers = [attacker.post("/api/rooms", json={"opponent": "friend"},
                                 headers=visitor(100 + i)).status_code for i in range(5)]
    assert answers == [201, 201, 201, 429, 429]


# --- link previews -----------------------------------------------------------------------


def test_a_previewer_fetching_the_link_leaves_the_seat_to_the_friend(
    server: LiveServer,
) -> None:
    with http(server, headers=visitor(4)) as maker:
        made = maker.post("/api/rooms", json={"opponent": "friend"}).json()
    link = f"/r/{made['room_id']}"
    with http(server, headers={"user-agent": "LinkPreviewBot/1.0"}) as previewer:
        for method in ("HEAD", "GET", "GET"):
            answer = previewer.request(method, link)
            assert answer.status_code == 200 and "set-cookie" not in answer.headers
            assert not previewer.cookies
    with http(server) as friend:
        page = friend.get(link)
        assert page.status_code == 200 and 'data-claim="true"' in page.text
        taken = friend.post(f"{link}/seat", headers={"origin": server.http,
                                                      "sec-fetch-site": "same-origin"})
        assert taken.status_code == 200 and taken.json() == {"seat": 1}
        assert friend.get(link).status_code == 200  # seated now: the page as seat 1
    with http(server) as third:
        assert third.get(link).status_code == 409


# --- headers -----------------------------------------------------------------------------


def test_no_server_banner_and_the_page_headers(server: LiveServer) -> None:
    with http(server) as client:
        for path in ("/", "/rules", "/healthz", "/static/js/table.js", "/nowhere"):
            answer = client.get(path)
            assert "server" not in answer.headers, path
            assert answer.headers["x-content-type-options"] == "nosniff", path
            assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        assert client.get("/openapi.json").status_code == 404


# --- frames no parser should choke on ----------------------------------------------------


def test_nested_json_and_bad_utf8_log_no_traceback(server: LiveServer) -> None:
    with http(server, headers=visitor(5)) as client:
        made = client.post("/api/rooms", json={"opponent": "friend"}).json()

    async def attack() -> None:
        seat = await LiveSeat.open(server, made["room_id"], made["token"])
        await seat.expect("state")
        for _ in range(20):
            await seat.ws.send("[" * 1500 + "]" * 1500)
            error = await seat.answer()
            assert error["code"] == "bad_json" and "nested too deeply" in error["message"]
            await seat.expect("state")
        await seat.ws.send('{"type": "ping"}')
        await seat.expect("pong")  # the same socket, still open
        # Invalid UTF-8 in a text frame: the connection fails (1007), quietly.
        await seat.ws.send(b'{"type": "\xff\xfe"}', text=True)
        with contextlib.suppress(Exception):
            await seat.closed()
        again = await LiveSeat.open(server, made["room_id"], made["token"])
        await again.expect("state")
        await again.ws.close()

    asyncio.run(attack())
    time.sleep(0.2)
    log = server.log()
    assert "Traceback" not in log and "RecursionError" not in log


def test_the_server_log_has_no_traceback(server: LiveServer) -> None:
    """Last in this module: nothing above left a traceback in the log."""
    assert "Traceback" not in server.log()
