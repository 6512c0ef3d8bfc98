"""Restart: N rooms kept in the SQLite store, the server started on them: how soon the
lobby answers, and how soon every room is back for the pages that reconnect.

    .venv/bin/python tests/bench/restart.py [--rooms 5000] [--actions 100] [--clients 100]

Fills a SQLite file in a temporary PIQUET_DATA_DIR with N friend rooms through the store
itself (app/sqlite_store.py): each a partie played `--actions` actions in (one random
partie, the same actions in every room, each room with its own id, seat tokens and
secret). Then starts `python -m app` on it and measures:
- start: from starting the process to the first byte of the lobby's answer (GET /, tried
  every 10 ms), the file checked (`PRAGMA quick_check`) on the way;
- reconnect: both seats of every room open their socket, as the pages do after a 1012,
  `--clients` at once: from the first try to the last seat's state, every room having been
  loaded on demand (app/registry.py, `find`) and replayed; each socket's wait for its
  state, p50 and p99; the server's CPU and RSS meanwhile.
The last line prints the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402

import engine  # noqa: E402
from app.registry import new_room_id  # noqa: E402
from app.room import DEALING  # noqa: E402
from app.room_setup import new_token  # noqa: E402
from app.sqlite_store import FILE_NAME, SQLiteStore  # noqa: E402
from app.store import Entry, StoredRoom, hash_token  # noqa: E402
from tests.bench.load import cpu_seconds, pct, rss_kb  # noqa: E402
from tests.serverproc import HOST, free_port, stop, wait_until_healthy  # noqa: E402

TTL = 7200 + 120  # as the server's default: idle time and two sweeps


def a_partie(actions: int, seed: int) -> tuple[int, list[Entry]]:
    """A friend's partie played `actions` actions in by random legal moves: its seed and
    its entries, as the store keeps them (each dealing action with its pack)."""
    rng = random.Random(seed)
    state = engine.new_partie(seed)
    entries: list[Entry] = []
    while len(entries) < actions and state.step is not engine.Step.PARTIE_OVER:
        for seat in (0, 1):
            legal = [e for e in engine.legal_json(state, seat) if e["type"] != "see"]
            if legal and state.to_move in (seat, None):
                break
        entry = {k: v for k, v in rng.choice(legal).items() if k != "label"}
        if entry["type"] == "discard":
            hand = [c.code for c in state.hands[seat]]
            entry = {"type": "discard", "cards": rng.sample(hand, entry["min"])}
        pack = None
        if entry["type"] in DEALING:
            codes = [c.code for c in engine.DECK]
            rng.shuffle(codes)
            pack = tuple(codes)
        after = engine.apply(state, seat, entry, pack=pack)
        entries.append((seat, entry, pack if after.deal_number != state.deal_number else None))
        state = after
    return seed, entries


async def fill(path: Path, rooms: int, seed: int, entries: list[Entry]) -> list[
        tuple[str, str, str]]:
    """`rooms` rooms of that partie in the file: (room id, seat 0's token, seat 1's)."""
    store = SQLiteStore(path, ttl_seconds=TTL)
    made = []

    async def one(i: int) -> None:
        room_id = new_room_id()
        tokens = new_token(), new_token()
        await store.create(StoredRoom(room_id, {"opponent": "friend"}, seed, 1, 1,
                                      [hash_token(t) for t in tokens],
                                      secret=os.urandom(16).hex()))
        for version, (seat, action, pack) in enumerate(entries, start=2):
            await store.append(room_id, version, seat, action, pack)
        made.append((room_id, *tokens))

    for start in range(0, rooms, 500):
        await asyncio.gather(*(one(i) for i in range(start, min(rooms, start + 500))))
    await store.close()
    return made


def first_byte(port: int, deadline: float) -> float:
    """When the lobby's answer began to arrive (time.perf_counter())."""
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=5) as sock:
                sock.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                             f"Connection: close\r\n\r\n".encode())
                if sock.recv(1):
                    return time.perf_counter()
        except OSError:
            pass
        time.sleep(0.01)
    raise RuntimeError("the lobby never answered")


async def reconnect(port: int, made: list[tuple[str, str, str]], clients: int
                    ) -> tuple[list[float], float, list[Any]]:
    """Every seat's socket, `clients` at once: each one's wait for its state, the time
    until the last one had it, and the sockets (left open, as pages keep them)."""
    gate = asyncio.Semaphore(clients)
    waits: list[float] = []
    sockets: list[Any] = []

    async def seat(room_id: str, token: str) -> None:
        async with gate:
            started = time.perf_counter()
            ws = await connect(f"ws://{HOST}:{port}/ws/{room_id}", proxy=None,
                               additional_headers={"Cookie": f"piquet_seat_{room_id}={token}"},
                               max_size=None, ping_interval=None, open_timeout=120)
            while json.loads(await asyncio.wait_for(ws.recv(), 120))["type"] != "state":
                pass
            waits.append(time.perf_counter() - started)
            sockets.append(ws)

    began = time.perf_counter()
    await asyncio.gather(*(seat(room_id, token) for room_id, *tokens in made
                           for token in tokens))
    return waits, time.perf_counter() - began, sockets


def start(data: Path, port: int, rooms: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PIQUET_HOST": HOST, "PIQUET_PORT": str(port),
           "PIQUET_STORE": "sqlite", "PIQUET_DATA_DIR": str(data),
           "PIQUET_MAX_ROOMS": str(rooms + 50), "PIQUET_MAX_CONNECTIONS": str(2 * rooms + 1000),
           "PIQUET_RATE_LIMIT_PER_SECOND": "1000000", "PIQUET_RATE_LIMIT_BURST": "1000000",
           "PIQUET_PING_INTERVAL": "120", "PIQUET_LOG_LEVEL": "warning"}
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=5000)
    parser.add_argument("--actions", type=int, default=100,
                        help="actions played in each room's partie (a partie is ~210)")
    parser.add_argument("--clients", type=int, default=100,
                        help="sockets opening at once")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        seed, entries = a_partie(args.actions, seed=36)
        t0 = time.perf_counter()
        made = asyncio.run(fill(data / FILE_NAME, args.rooms, seed, entries))
        size = (data / FILE_NAME).stat().st_size
        print(f"filled {args.rooms} rooms of {len(entries)} actions in "
              f"{time.perf_counter() - t0:.1f} s: {size / 2**20:.1f} MiB, "
              f"{size / args.rooms / 1024:.1f} KiB a room", flush=True)
        port = free_port()
        began = time.perf_counter()
        proc = start(data, port, args.rooms, Path(tmp) / "server.log")
        try:
            lobby = first_byte(port, time.monotonic() + 120) - began
            wait_until_healthy(proc, f"http://{HOST}:{port}",
                               details=(Path(tmp) / "server.log").read_text)
            cpu0 = cpu_seconds(proc.pid)
            waits, every, sockets = asyncio.run(reconnect(port, made, args.clients))
            cpu = cpu_seconds(proc.pid) - cpu0
            rss = rss_kb(proc.pid) / 1024
        finally:
            stop(proc)
        print(f"start: the lobby's first byte {lobby:.2f} s after the process started")
        print(f"reconnect: {len(waits)} sockets of {args.rooms} rooms, {args.clients} at "
              f"once: every room loaded and told in {every:.1f} s "
              f"({args.rooms / every:.0f} rooms/s); a socket's wait p50 "
              f"{pct(waits, .5):.0f} ms, p99 {pct(waits, .99):.0f} ms; server CPU "
              f"{cpu:.1f} s ({1000 * cpu / args.rooms:.1f} ms a room), RSS {rss:.0f} MiB")
        print(f"restart rooms={args.rooms} actions={len(entries)} "
              f"disk/room={size / args.rooms / 1024:.1f}KiB lobby_first_byte={lobby:.2f}s "
              f"all_loaded={every:.1f}s socket_p99={pct(waits, .99):.0f}ms")
        del sockets


if __name__ == "__main__":
    main()
