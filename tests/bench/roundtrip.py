"""Round trip over a real uvicorn WebSocket: action -> new state, against a bare echo.

    .venv/bin/python tests/bench/roundtrip.py [--actions 1500] [--seconds 60] [--no-pin]

Starts two servers itself, with the same uvicorn settings: the table (`python -m app`,
computer delay 0, rate limit off) and a bare WebSocket echo app defined here. Two
scripted seats play friend parties from `legal`; each sample is the time from sending
an action to the acting seat receiving the new state (the frame's arrival, before the
client parses it). The echo sample is the time
from sending a message of the same size to getting it back. Blocks of the two are
interleaved so drift on a shared machine hits both alike. The last line prints p50
and p99 of both and their ratio (target: table p50 within 2x of echo p50).

Placement: with two CPUs or more, this client runs on one CPU and both servers on
another, as a server's clients are on other machines. Left to the scheduler
(`--no-pin`), the client and the echo mostly share a CPU and answer each other without
ever waking an idle one (~0.09 ms against ~0.12 ms apart), which the table, whose other
seat's state is written after the actor's, does not get: the two would not be measured
alike (docs/reliability.md, "Round trip").

`--store [redis|sqlite]`: the cost of keeping rooms in Redis (the default) or in a
SQLite file. A third server is started, the table again with PIQUET_REDIS_URL set,
against a redis-server started here (on the servers' CPU too), or with its SQLite file in
a temporary directory; its blocks are interleaved with the others, and the last line
compares the table with and without the store (each action then waits for one Redis
round trip, or one commit and its fsync, before its state is sent).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import uvicorn  # noqa: E402
from fastapi import FastAPI, WebSocket, WebSocketDisconnect  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from app.__main__ import uvicorn_options  # noqa: E402
from app.settings import Settings  # noqa: E402
from tests.serverproc import free_port, stop, wait_until_healthy  # noqa: E402

BLOCK = 100  # samples per block; blocks of table and echo alternate


def echo_app() -> FastAPI:
    """A bare WebSocket echo on the same stack (FastAPI + uvicorn) as the table."""
    app = FastAPI()

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.websocket("/ws")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                await websocket.send_text(await websocket.receive_text())
        except WebSocketDisconnect:
            pass

    return app


def serve_echo(port: int) -> None:
    options = uvicorn_options(Settings(port=port, log_level="warning"))
    uvicorn.run(echo_app(), **options)


def placement(pin: bool) -> tuple[set[int], set[int]] | None:
    """(this client's CPU, the servers' CPU), or None to leave it to the scheduler."""
    cpus = sorted(os.sched_getaffinity(0))
    if not pin or len(cpus) < 2:
        return None
    return {cpus[0]}, {cpus[1]}


def start(
    argv: list[str], env: dict[str, str], port: int, cpus: set[int] | None = None
) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(argv, cwd=ROOT, env={**os.environ, **env},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if cpus is not None:
        os.sched_setaffinity(proc.pid, cpus)  # before it has done anything but start
    wait_until_healthy(proc, f"http://127.0.0.1:{port}", seconds=20,
                       details=lambda: " ".join(argv))
    return proc


# --- the table ---------------------------------------------------------------------------


class Seat:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.last_size = 0

    async def next_state(self) -> tuple[dict[str, Any], float]:
        """The next state frame, and when it arrived: before this client parses it, as
        the echo client's clock stops before it looks at what came back."""
        while True:
            text = await self.ws.recv()
            arrived = time.perf_counter()
            frame = json.loads(text)
            if frame["type"] == "error":
                raise RuntimeError(frame)
            if frame["type"] == "ping":
                await self.ws.send('{"type": "pong"}')
            if frame["type"] == "state":
                self.state = frame
                self.last_size = len(text)
                return frame, arrived


def pick(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    entry = {k: v for k, v in rng.choice(view["legal"]).items() if k not in ("label", "say")}
    if entry["type"] == "discard":
        return {"type": "discard", "cards": rng.sample(view["hand"], entry["min"])}
    return entry


class Table:
    """Two seats of one friend room, playing parties back to back."""

    def __init__(self, base: str, ws_base: str, compression: str | None) -> None:
        self.base, self.ws_base = base, ws_base
        self.compression = compression
        self.rng = random.Random(1)
        self.ids = 0
        self.seats: list[Seat] = []
        self.action_bytes: list[int] = []
        self.state_bytes: list[int] = []

    async def open(self) -> None:
        async with httpx.AsyncClient(base_url=self.base, trust_env=False) as http:
            made = (await http.post("/api/rooms", json={"opponent": "friend"})).json()
            joined = (await http.post(f"/api/rooms/{made['room_id']}/join")).json()
        for grant in (made, joined):
            cookie = f"piquet_seat_{grant['room_id']}={grant['token']}"
            ws = await connect(f"{self.ws_base}/ws/{grant['room_id']}", proxy=None,
                               compression=self.compression,
                               additional_headers={"Cookie": cookie}, max_size=None)
            seat = Seat(ws)
            await seat.next_state()
            self.seats.append(seat)

    def mover(self) -> tuple[Seat, Seat]:
        a, b = self.seats
        for seat, other in ((a, b), (b, a)):
            view = seat.state["view"]
            if view["legal"] and view["to_move"] in (view["seat"], None):
                return seat, other
        raise RuntimeError("nobody can act")

    async def sample(self) -> float:
        """One action; seconds from its send to the acting seat's new state."""
        a, b = self.seats
        if a.state["view"]["phase"] == "partie_over":
            # Play again at a friend's table: each seat asks; the second starts the partie.
            for asker in (a, b):
                self.ids += 1
                await asker.ws.send(json.dumps({"type": "new_match",
                                                "version": asker.state["version"],
                                                "id": f"b{self.ids}"}))
                await a.next_state()
                await b.next_state()
        who, other = self.mover()
        self.ids += 1
        text = json.dumps({"type": "action", "version": who.state["version"],
                           "id": f"b{self.ids}", "action": pick(who.state["view"], self.rng)})
        self.action_bytes.append(len(text))
        start = time.perf_counter()
        await who.ws.send(text)
        frame, arrived = await who.next_state()
        elapsed = arrived - start
        self.state_bytes.append(who.last_size)
        await other.next_state()
        if frame["version"] != other.state["version"]:
            raise RuntimeError("the seats disagree on the version")
        return elapsed

    async def close(self) -> None:
        for seat in self.seats:
            await seat.ws.close()


# --- the echo ----------------------------------------------------------------------------


async def echo_sample(ws: ClientConnection, size: int) -> float:
    text = json.dumps({"type": "action", "version": 1, "id": "e", "pad": "x" * max(0, size - 50)})
    start = time.perf_counter()
    await ws.send(text)
    await ws.recv()
    return time.perf_counter() - start


def cpu_seconds(pid: int) -> float:
    """Time a process's threads have run, from /proc/<pid>/task/*/schedstat (nanoseconds;
    /proc/<pid>/stat counts in clock ticks, 10 ms, too coarse for a few thousand actions)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # a thread ended
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def measure(
    app_port: int, echo_port: int, actions: int, seconds: float, compression: str | None,
    where: str = "left to the scheduler", store_port: int | None = None,
    pids: dict[str, int] | None = None,
) -> None:
    table = Table(f"http://127.0.0.1:{app_port}", f"ws://127.0.0.1:{app_port}", compression)
    await table.open()
    stored: Table | None = None
    store_times: list[float] = []
    if store_port is not None:
        stored = Table(f"http://127.0.0.1:{store_port}", f"ws://127.0.0.1:{store_port}",
                       compression)
        await stored.open()
        for _ in range(50):
            await stored.sample()
    echo = await connect(f"ws://127.0.0.1:{echo_port}/ws", proxy=None, compression=compression)
    for _ in range(50):  # warm up both
        await table.sample()
        await echo_sample(echo, 150)
    table.action_bytes.clear()
    app_times: list[float] = []
    echo_times: list[float] = []
    pids = pids or {}
    cpu0 = {name: cpu_seconds(pid) for name, pid in pids.items()}
    deadline = time.monotonic() + seconds
    while len(app_times) < actions and time.monotonic() < deadline:
        app_times += [await table.sample() for _ in range(BLOCK)]
        if stored is not None:
            store_times += [await stored.sample() for _ in range(BLOCK)]
        size = int(statistics.mean(table.action_bytes))
        echo_times += [await echo_sample(echo, size) for _ in range(BLOCK)]
    cpu = {name: cpu_seconds(pid) - cpu0[name] for name, pid in pids.items()}
    await table.close()
    await echo.close()
    if stored is not None:
        await stored.close()
    a50, a99, e50, e99 = (pct(app_times, 0.5), pct(app_times, 0.99),
                          pct(echo_times, 0.5), pct(echo_times, 0.99))
    print(f"permessage-deflate {'on' if compression else 'off'}; "
          f"state messages ~{int(statistics.mean(table.state_bytes))} bytes; CPUs: {where}")
    print(f"table: {len(app_times)} actions, action -> new state "
          f"p50 {a50:.3f} ms, p99 {a99:.3f} ms")
    print(f"echo:  {len(echo_times)} messages of ~{size} bytes, round trip "
          f"p50 {e50:.3f} ms, p99 {e99:.3f} ms")
    if stored is not None:
        s50, s99 = pct(store_times, 0.5), pct(store_times, 0.99)
        print(f"table, rooms in {'Redis' if 'redis' in cpu else 'SQLite'}: {len(store_times)} "
              f"actions, action -> new state p50 {s50:.3f} ms, p99 {s99:.3f} ms")
        print("CPU per action: table in memory {:.0f} us, table with the store {:.0f} us{}".format(
            1e6 * cpu["memory"] / len(app_times), 1e6 * cpu["store"] / len(store_times),
            f", redis-server {1e6 * cpu['redis'] / len(store_times):.0f} us"
            if "redis" in cpu else ""))
        print(f"roundtrip p50 with store {s50:.3f} ms vs memory {a50:.3f} ms "
              f"(+{s50 - a50:.3f} ms, ratio {s50 / a50:.2f}); p99 with store {s99:.3f} ms "
              f"vs memory {a99:.3f} ms; echo p50 {e50:.3f} ms")
        return
    if "echo" in cpu:
        # With the client beside a server on one CPU, the client waits for all of that
        # server's work on the message, not only the part before the reply is written.
        print("server CPU per round trip: table {:.0f} us an action (both seats' states), "
              "echo {:.0f} us a message".format(1e6 * cpu["memory"] / len(app_times),
                                                 1e6 * cpu["echo"] / len(echo_times)))
    print(f"roundtrip p50 table {a50:.3f} ms vs echo {e50:.3f} ms (ratio {a50 / e50:.2f}); "
          f"p99 table {a99:.3f} ms vs echo {e99:.3f} ms (ratio {a99 / e99:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=1500, help="table samples (and echo)")
    parser.add_argument("--seconds", type=float, default=60, help="stop measuring after this")
    parser.add_argument("--no-deflate", action="store_true",
                        help="do not offer permessage-deflate (browsers do offer it)")
    parser.add_argument("--no-pin", action="store_true",
                        help="leave the client and servers' CPUs to the scheduler")
    parser.add_argument("--store", nargs="?", const="redis", choices=["redis", "sqlite"],
                        help="also measure the table keeping rooms in Redis (redis-server) "
                             "or in a SQLite file")
    parser.add_argument("--serve-echo", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_echo:
        serve_echo(args.serve_echo)
        return
    app_port, echo_port = free_port(), free_port()
    env = {"PIQUET_PORT": str(app_port), "PIQUET_COMPUTER_DELAY": "0",
           "PIQUET_RATE_LIMIT_PER_SECOND": "1000000", "PIQUET_RATE_LIMIT_BURST": "1000000",
           "PIQUET_ROOMS_BURST": "100000", "PIQUET_LOG_LEVEL": "warning",
           "PIQUET_STORE": "memory"}
    cpus = placement(not args.no_pin)
    where, server_cpu = "left to the scheduler", None
    if cpus is not None:
        client_cpu, server_cpu = cpus
        os.sched_setaffinity(0, client_cpu)
        where = f"client on {min(client_cpu)}, both servers on {min(server_cpu)}"
    servers = []
    try:
        servers.append(start([sys.executable, "-m", "app"], env, app_port, server_cpu))
        servers.append(start([sys.executable, __file__, "--serve-echo", str(echo_port)],
                             {}, echo_port, server_cpu))
        store_port = None
        pids = {"memory": servers[0].pid, "echo": servers[1].pid}
        if args.store == "sqlite":
            import tempfile

            store_port = free_port()
            servers.append(start([sys.executable, "-m", "app"],
                                 {**env, "PIQUET_PORT": str(store_port), "PIQUET_STORE": "sqlite",
                                  "PIQUET_DATA_DIR": tempfile.mkdtemp()}, store_port, server_cpu))
            pids.update(store=servers[-1].pid)
        elif args.store:
            import tempfile

            from tests.cluster import Redis

            redis = Redis(Path(tempfile.mkdtemp()) / "redis").start()
            assert redis.proc is not None
            servers.append(redis.proc)
            if server_cpu is not None:
                os.sched_setaffinity(redis.proc.pid, server_cpu)
            store_port = free_port()
            servers.append(start([sys.executable, "-m", "app"],
                                 {**env, "PIQUET_PORT": str(store_port), "PIQUET_STORE": "redis",
                                  "PIQUET_REDIS_URL": redis.url}, store_port, server_cpu))
            pids.update(store=servers[-1].pid, redis=redis.proc.pid)
        compression = None if args.no_deflate else "deflate"
        run = measure(app_port, echo_port, args.actions, args.seconds, compression, where,
                      store_port, pids)
        asyncio.run(asyncio.wait_for(run, args.seconds + 60))
    finally:
        for proc in servers:
            stop(proc)


if __name__ == "__main__":
    main()
