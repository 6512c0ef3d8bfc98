"""Hostile visitor: one client floods the room maker, then holds idle connections.

    .venv/bin/python tests/bench/hostile.py [--flood-seconds 60] [--idle 1100] [--hold 15]

Starts `python -m app` itself on 127.0.0.1 with its default settings, under a file limit
of 1,024 (soft and hard, as on many hosts), and attacks it from 127.0.0.2 while a
visitor uses it from 127.0.0.1 (FORWARDED_ALLOW_IPS is set to nothing, so that both
addresses count as clients):

1. Room flood: for --flood-seconds, the attacker POSTs /api/rooms 16 at a time as fast
   as answers come back. Meanwhile a visitor makes a table through the lobby's form
   (POST /rooms) once a second, each time from another address (another person).
   Measured: rooms the attacker made (and per minute), and how many of the visitor's
   tries got a table.
2. Idle connections: the attacker opens --idle TCP connections and sends nothing (half
   of them a request line and no more). The visitor then asks for the lobby and a table
   once a second for --hold seconds. Measured: connections the server still holds open
   at the end, and the visitor's answers.
3. Reconnect flood: for --reconnect-seconds, one seat opens its socket, sends 100 pings
   at once, reads until the server closes it (1008, the rate limit), and reconnects at
   once. Measured: pongs (messages served) per second.

Every step has a deadline; the server is stopped at the end. The last line prints the
figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402

from tests.serverproc import HOST, free_port, stop, wait_until_healthy  # noqa: E402

ATTACKER = "127.0.0.2"
FILE_LIMIT = 1024


def start_server(port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PIQUET_HOST": HOST, "PIQUET_PORT": str(port),
           "PIQUET_LOG_LEVEL": "warning", "FORWARDED_ALLOW_IPS": "", "PIQUET_STORE": "memory"}

    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))

    with log.open("ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, preexec_fn=limit_files)
    wait_until_healthy(proc, f"http://{HOST}:{port}", details=log.read_text)
    return proc


async def visitor_tries(base: str, number: int) -> tuple[bool, bool]:
    """(lobby answered 200, a table was made) within 5 s each, for visitor `number`: each
    from an address of its own (127.0.1.N), as different people are."""
    address = f"127.0.1.{number % 250 + 1}"
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=base, transport=transport, trust_env=False,
                                 timeout=5) as http:
        try:
            lobby = (await http.get("/")).status_code == 200
        except httpx.HTTPError:
            lobby = False
        try:
            made = await http.post("/rooms", data={"opponent": "computer"},
                                   follow_redirects=False)
            table = made.status_code == 303
        except httpx.HTTPError:
            table = False
    return lobby, table


async def room_flood(base: str, seconds: float) -> tuple[int, int, int, int]:
    """(rooms made, requests refused, visitor tries, visitor tables)."""
    made = refused = 0
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    deadline = time.monotonic() + seconds

    async def attacker(http: httpx.AsyncClient) -> None:
        nonlocal made, refused
        while time.monotonic() < deadline:
            try:
                answer = await http.post("/api/rooms", json={"opponent": "friend"})
            except httpx.HTTPError:
                refused += 1
                continue
            if answer.status_code == 201:
                made += 1
            else:
                refused += 1

    async def visitor() -> tuple[int, int]:
        tries = tables = 0
        await asyncio.sleep(1)
        while time.monotonic() < deadline:
            tries += 1
            tables += (await visitor_tries(base, tries))[1]
            await asyncio.sleep(1)
        return tries, tables

    async with httpx.AsyncClient(base_url=base, transport=transport, trust_env=False,
                                 timeout=10) as http:
        results = await asyncio.gather(visitor(), *(attacker(http) for _ in range(16)))
    tries, tables = results[0]
    return made, refused, tries, tables


def open_idle(port: int, count: int) -> list[socket.socket]:
    socks = []
    for i in range(count):
        s = socket.socket()
        s.bind((ATTACKER, 0))
        s.setblocking(False)
        try:
            s.connect((HOST, port))
        except BlockingIOError:
            pass
        except OSError:
            s.close()
            break
        socks.append(s)
        if i % 2:
            time.sleep(0)
    time.sleep(0.5)
    for i, s in enumerate(socks):
        if i % 2:
            with contextlib.suppress(OSError):
                s.send(b"GET / HTTP/1.1\r\n")  # a request line, and no more
    return socks


def still_open(socks: list[socket.socket]) -> int:
    """Connections the server has not closed: nothing to read, no EOF, no reset."""
    held = 0
    for s in socks:
        try:
            data = s.recv(1)
        except BlockingIOError:
            held += 1
            continue
        except OSError:
            continue
        if data:
            held += 1  # it answered (a 503, say) but has not closed
    return held


async def idle_hold(base: str, hold: float) -> tuple[int, int, int]:
    """(visitor tries, lobby answered, tables made) over `hold` seconds."""
    tries = lobbies = tables = 0
    deadline = time.monotonic() + hold
    while time.monotonic() < deadline:
        tries += 1
        lobby, table = await visitor_tries(base, 100 + tries)
        lobbies += lobby
        tables += table
        await asyncio.sleep(1)
    return tries, lobbies, tables


async def reconnect_flood(base: str, seconds: float) -> tuple[float, int]:
    """(pongs a second, sockets opened) for one seat reconnecting after each close."""
    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=10) as http:
        made = (await http.post("/api/rooms", json={"opponent": "friend"},
                                headers={"x-forwarded-for": "198.51.100.7"})).json()
    url = base.replace("http://", "ws://") + f"/ws/{made['room_id']}"
    cookie = {"Cookie": f"piquet_seat_{made['room_id']}={made['token']}"}
    pongs = sockets = 0
    start = time.monotonic()
    deadline = start + seconds
    while time.monotonic() < deadline:
        try:
            async with connect(url, additional_headers=cookie, proxy=None,
                               open_timeout=5) as ws:
                sockets += 1
                for _ in range(100):
                    await ws.send('{"type": "ping"}')
                with contextlib.suppress(ConnectionClosed, TimeoutError):
                    while True:
                        frame = await asyncio.wait_for(ws.recv(), 5)
                        pongs += '"pong"' in frame
        except (OSError, InvalidStatus, ConnectionClosed, TimeoutError):
            await asyncio.sleep(0.01)
    return pongs / (time.monotonic() - start), sockets


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flood-seconds", type=float, default=60)
    parser.add_argument("--idle", type=int, default=1100)
    parser.add_argument("--hold", type=float, default=15)
    parser.add_argument("--reconnect-seconds", type=float, default=10)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.idle + 512)), hard))
    port = free_port()
    base = f"http://{HOST}:{port}"
    log = Path(tempfile.mkdtemp(prefix="hostile-")) / "server.log"
    proc = start_server(port, log)
    per_minute = rate = 0.0
    tables = tries = held = lobbies = i_tries = i_tables = opened = 0
    socks: list[socket.socket] = []
    try:
        if args.flood_seconds > 0:
            made, refused, tries, tables = asyncio.run(room_flood(base, args.flood_seconds))
            per_minute = made * 60 / args.flood_seconds
            print(f"room flood {args.flood_seconds:.0f} s from {ATTACKER}: {made} rooms made "
                  f"({per_minute:.0f}/min), {refused} refused; visitor got a table "
                  f"{tables}/{tries} times", flush=True)
        if args.idle > 0:
            socks = open_idle(port, args.idle)
            t0 = time.monotonic()
            i_tries, lobbies, i_tables = asyncio.run(idle_hold(base, args.hold))
            held = still_open(socks)
            print(f"idle: {len(socks)} connections opened from {ATTACKER}; after "
                  f"{time.monotonic() - t0:.0f} s the server holds {held}; visitor: lobby "
                  f"{lobbies}/{i_tries}, table {i_tables}/{i_tries}", flush=True)
            for s in socks:
                s.close()
        if args.reconnect_seconds > 0:
            rate, opened = asyncio.run(reconnect_flood(base, args.reconnect_seconds))
            print(f"reconnect flood {args.reconnect_seconds:.0f} s: {opened} sockets, "
                  f"{rate:.0f} messages served a second", flush=True)
    finally:
        stop(proc)
    print(f"server log: {log}")
    print(f"rooms/min from one client {per_minute:.0f}, visitor tables during flood "
          f"{tables}/{tries}; idle sockets held {held}/{len(socks)}, visitor served "
          f"lobby {lobbies}/{i_tries} table {i_tables}/{i_tries}; reconnect flood "
          f"{rate:.0f} messages/s")


if __name__ == "__main__":
    main()
