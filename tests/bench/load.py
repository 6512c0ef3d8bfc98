"""Load: K rooms at once on one uvicorn process, two scripted WebSocket seats per room.

    .venv/bin/python tests/bench/load.py --rooms 500 [--seconds 60] [--pace 0] [--no-deflate]
        [--strong-rooms M] [--processes N]

Starts `python -m app` itself on a free loopback port (computer delay 0, rate limit
raised, PIQUET_MAX_ROOMS above K), makes K friend rooms through the JSON API and opens
two WebSockets per room (the `websockets` client, all on 127.0.0.1). Every room then
plays complete parties back to back (a `new_match` after each) for `--seconds`: one
action at a time per room, the next as soon as both seats have the new state (or,
with `--pace S`, after a pause of about S seconds, like a person thinking).

With `--strong-rooms M`, M computer rooms at the strong level play beside them (a
scripted person acting at once whenever it may; the computer's pace 0, so its worker
thinks without a pause): the friend rooms' round trips then show whether thinking
holds up other rooms. Their computer moves are counted, not timed.

All 2K sockets live in this one process on one asyncio event loop: on a 2-core
machine a second client process would only take CPU from the server.

Measured:
- actions/s: actions applied (each answered by a new state to both seats) per second;
- round trip: from sending an action to the acting seat getting its new state (p50/p99);
  "relay" is the same up to the other seat's new state;
- errors: error frames, unexpected closes, timeouts, version mismatches (must be 0);
- memory per room: the server's RSS (/proc/<pid>/status VmRSS) at its peak during
  play, less the RSS before the rooms were made (after a warm-up room), divided by K;
- CPU: seconds of CPU the server and this client used during play;
- shutdown: at the end the server gets SIGTERM with every socket open; each socket
  should see close code 1012 ("service restart");
- the store (one process: the server's own, PIQUET_STORE as set, else SQLite in a
  temporary PIQUET_DATA_DIR): the file's size with its log at the end, a room; its
  commits and writes a second; and the fsync and fdatasync calls the server made a
  second during play, counted by `perf stat` on the syscall tracepoints (where perf
  runs: as root here).

The run is bounded: set-up, play and shutdown each have a deadline, every receive has
a time limit, and the server is killed if it does not stop. The last line prints the
figures.

`--processes N` (N >= 1): the deployment of deploy/: a redis-server, N app processes
keeping rooms in it, and nginx running deploy/nginx.conf in front of them (its
room-making rate and connections per address raised for the run), all started here
(tests/cluster.py); the client goes through nginx. Memory and CPU are then the app
processes' sums, with Redis's and nginx's CPU apart, and Redis's commands per action
are counted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from app.runtime import LoopMonitor, settle_collector  # noqa: E402
from tests.serverproc import HOST, free_port, stop, wait_until_healthy  # noqa: E402

OPERATOR_TOKEN = "load-bench"  # opens /healthz?detail=1 (PIQUET_OPERATOR_TOKEN)
RECV_TIMEOUT = 30.0  # one frame; far above any round trip seen, so a hang is an error
SETUP_SECONDS = 180.0


def setup_seconds(rooms: int) -> float:
    """The deadline for making the rooms: 5,000 took 98-140 s on the busy 2-core machine,
    and once more than 180."""
    return SETUP_SECONDS + 0.05 * rooms


def rss_kb(pid: int) -> int:
    """The process's resident memory in KiB, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


@dataclass
class Stats:
    round_trips: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)  # when each round trip started
    relays: list[float] = field(default_factory=list)
    actions: int = 0
    parties: int = 0
    errors: int = 0
    store_waits: int = 0  # states saying the table waits for its store (same version)
    error_samples: list[str] = field(default_factory=list)
    stop: bool = False

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what[:300])


class LoadError(RuntimeError):
    pass


class Seat:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}

    @property
    def view(self) -> dict[str, Any]:
        view: dict[str, Any] = self.state["view"]
        return view

    @property
    def version(self) -> int:
        return int(self.state["version"])

    async def next_state(self, after: int = -1, stats: Stats | None = None) -> dict[str, Any]:
        """The next `state` of a version above `after`; pings are answered, presence
        frames skipped, errors raised. A state of the same version saying the table
        waits for its store (or that it answers again) is counted, not returned."""
        while True:
            text = await asyncio.wait_for(self.ws.recv(), RECV_TIMEOUT)
            frame: dict[str, Any] = json.loads(text)
            kind = frame["type"]
            if kind == "state":
                self.state = frame
                if frame["version"] <= after:
                    if stats is not None and frame["room"]["store"] == "waiting":
                        stats.store_waits += 1
                    continue
                return frame
            if kind == "ping":
                await self.ws.send('{"type": "pong"}')
            elif kind == "error":
                raise LoadError(f"error frame: {frame}")


def pick(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    entry = {k: v for k, v in rng.choice(view["legal"]).items() if k not in ("label", "say")}
    if entry["type"] == "discard":
        action = {"type": "discard", "cards": rng.sample(view["hand"], entry["min"])}
        if entry["expose_choice"]:
            action["expose"] = rng.random() < 0.5
        return action
    return entry


class Room:
    def __init__(self, index: int, room_id: str, tokens: tuple[str, str]) -> None:
        self.index = index
        self.room_id = room_id
        self.tokens = tokens
        self.seats: list[Seat] = []
        self.rng = random.Random(index)
        self.ids = 0

    async def open(self, ws_base: str, deflate: bool) -> None:
        for token in self.tokens:
            ws = await connect(
                f"{ws_base}/ws/{self.room_id}",
                additional_headers={"Cookie": f"piquet_seat_{self.room_id}={token}"},
                compression="deflate" if deflate else None,
                proxy=None,
                max_size=None,
                ping_interval=None,  # the app has its own keepalive, answered above
                open_timeout=RECV_TIMEOUT,
            )
            seat = Seat(ws)
            self.seats.append(seat)
            await seat.next_state()

    def next_id(self) -> str:
        self.ids += 1
        return f"L{self.index}-{self.ids}"

    def mover(self) -> tuple[Seat, Seat]:
        a, b = self.seats
        for seat, other in ((a, b), (b, a)):
            view = seat.view
            if view["legal"] and view["to_move"] in (view["seat"], None):
                return seat, other
        raise LoadError(f"nobody can act at {a.view['step']}")

    async def step(self, stats: Stats) -> None:
        """One action (a new match after a finished partie), both seats told."""
        a, b = self.seats
        if a.view["phase"] == "partie_over":
            # "Play again" at a friend's table: each seat asks; the second starts the partie.
            asked = a.state["room"]["rematch"]
            who, other = (b, a) if a.view["seat"] in asked else (a, b)
            text = json.dumps({"type": "new_match", "version": who.version, "id": self.next_id()})
            if asked:
                stats.parties += 1
        else:
            who, other = self.mover()
            text = json.dumps({"type": "action", "version": who.version, "id": self.next_id(),
                               "action": pick(who.view, self.rng)})
        before = who.version
        start = time.perf_counter()
        await who.ws.send(text)
        mine = await who.next_state(before, stats)
        stats.round_trips.append(time.perf_counter() - start)
        stats.sent_at.append(start)
        theirs = await other.next_state(before)
        stats.relays.append(time.perf_counter() - start)
        if not mine["version"] == theirs["version"] == before + 1:
            raise LoadError(f"versions {before} -> {mine['version']}/{theirs['version']}")
        stats.actions += 1

    async def play(self, stats: Stats, until: float, pace: float) -> None:
        try:
            if pace:  # rooms start at random moments, not all in the same instant
                await asyncio.sleep(pace * self.rng.random())
            while not stats.stop and time.monotonic() < until:
                await self.step(stats)
                if pace:
                    await asyncio.sleep(pace * (0.5 + self.rng.random()))
        except (LoadError, ConnectionClosed, TimeoutError, KeyError, ValueError) as exc:
            stats.error(f"room {self.index}: {exc!r}")

    async def closed_code(self) -> list[int | None]:
        """After SIGTERM: read each socket to its close; the close codes received."""
        codes: list[int | None] = []
        for seat in self.seats:
            try:
                while True:
                    await asyncio.wait_for(seat.ws.recv(), RECV_TIMEOUT)
            except ConnectionClosed as exc:
                codes.append(exc.rcvd.code if exc.rcvd is not None else None)
            except TimeoutError:
                codes.append(None)
        return codes


class ComputerRoom:
    """A person's seat at a strong computer table, acting whenever it may."""

    def __init__(self, index: int, room_id: str, token: str) -> None:
        self.index = index
        self.room_id = room_id
        self.token = token
        self.rng = random.Random(-index)
        self.ids = 0
        self.seat: Seat | None = None

    async def open(self, ws_base: str) -> None:
        ws = await connect(
            f"{ws_base}/ws/{self.room_id}",
            additional_headers={"Cookie": f"piquet_seat_{self.room_id}={self.token}"},
            proxy=None, max_size=None, ping_interval=None, open_timeout=RECV_TIMEOUT)
        self.seat = Seat(ws)
        await self.seat.next_state()

    async def play(self, counts: dict[str, int], until: float) -> None:
        seat = self.seat
        assert seat is not None
        waiting = False  # an action sent, its answer (a state) not yet here
        try:
            while time.monotonic() < until:
                view = seat.view
                mine = view["legal"] and view["to_move"] in (view["seat"], None)
                if not waiting and (view["phase"] == "partie_over" or mine):
                    self.ids += 1
                    msg: dict[str, Any] = {"version": seat.version,
                                           "id": f"C{self.index}-{self.ids}"}
                    if view["phase"] == "partie_over":
                        msg["type"] = "new_match"
                    else:
                        msg.update(type="action", action=pick(view, self.rng))
                    await seat.ws.send(json.dumps(msg))
                    counts["person"] += 1
                    waiting = True
                text = await asyncio.wait_for(seat.ws.recv(), RECV_TIMEOUT * 4)
                frame = json.loads(text)
                if frame["type"] == "state":
                    before = seat.view
                    seat.state = frame
                    waiting = False
                    if before["to_move"] == 1:
                        counts["computer"] += 1
                elif frame["type"] == "ping":
                    await seat.ws.send('{"type": "pong"}')
        except (ConnectionClosed, TimeoutError, KeyError, ValueError) as exc:
            counts["errors"] += 1
            print(f"strong room {self.index}: {exc!r}", file=sys.stderr)


async def make_computer_rooms(base: str, ws_base: str, count: int) -> list[ComputerRoom]:
    rooms = []
    async with httpx.AsyncClient(base_url=base, trust_env=False) as http:
        for i in range(count):
            made = (await http.post("/api/rooms", json={"opponent": "computer",
                                                        "level": "strong"})).json()
            room = ComputerRoom(i, made["room_id"], made["token"])
            await room.open(ws_base)
            rooms.append(room)
    return rooms


def start_server(port: int, rooms: int, log_path: Path,
                 collector_tuning: bool = True) -> subprocess.Popen[bytes]:
    env = {
        # The store the environment names (else the server's default, SQLite), its file
        # in this run's directory unless PIQUET_DATA_DIR says otherwise.
        "PIQUET_DATA_DIR": str(log_path.parent / "data"),
        **os.environ,
        "PIQUET_HOST": HOST,
        "PIQUET_PORT": str(port),
        "PIQUET_COMPUTER_DELAY": "0",
        "PIQUET_COMPUTER_EXCHANGE_DELAY": "0",
        "PIQUET_COMPUTER_PACE": "0",
        "PIQUET_RATE_LIMIT_PER_SECOND": "1000000",
        "PIQUET_RATE_LIMIT_BURST": "1000000",
        "PIQUET_MAX_ROOMS": str(rooms + 50),
        "PIQUET_ROOMS_BURST": str(rooms + 50),
        "PIQUET_ROOMS_PER_ADDRESS": str(rooms + 50),  # every room from this one client
        "PIQUET_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "PIQUET_MAX_CONNECTIONS": str(2 * rooms + 1000),
        # A socket silent for 3 intervals is closed (4408). Sockets are read only during
        # play, and making 5,000 rooms takes up to ~2 minutes on a busy 2-core machine:
        # with the default 20 s the first rooms were closed before play began.
        # (The keepalive itself is tested in tests/app/test_faults.py.)
        "PIQUET_PING_INTERVAL": "120",
        "PIQUET_LOG_LEVEL": "warning",
        "PIQUET_COLLECTOR_TUNING": "true" if collector_tuning else "false",
    }
    with log_path.open("wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
    wait_until_healthy(proc, f"http://{HOST}:{port}", details=log_path.read_text)
    return proc


async def make_rooms(base: str, ws_base: str, count: int, deflate: bool,
                     first_index: int = 0) -> list[Room]:
    gate = asyncio.Semaphore(32)  # handshakes at once

    async def post(http: httpx.AsyncClient, path: str, body: Any = None) -> dict[str, Any]:
        # A kept-alive connection may be closed by the server (idle past uvicorn's 5 s)
        # just as it is reused, when set-up is slow on a busy machine: try again.
        for attempt in range(3):
            try:
                answer: dict[str, Any] = (await http.post(path, json=body)).json()
                return answer
            except httpx.TransportError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def one(http: httpx.AsyncClient, index: int) -> Room:
        async with gate:
            made = await post(http, "/api/rooms", {"opponent": "friend"})
            joined = await post(http, f"/api/rooms/{made['room_id']}/join")
            room = Room(index, made["room_id"], (made["token"], joined["token"]))
            await room.open(ws_base, deflate)
            return room

    limits = httpx.Limits(max_connections=32)
    async with httpx.AsyncClient(base_url=base, trust_env=False, limits=limits) as http:
        return list(await asyncio.gather(*(one(http, first_index + i) for i in range(count))))


class FsyncCount:
    """The fsync and fdatasync calls of some processes (every thread) from now until
    `stop`, counted by `perf stat` on the syscall tracepoints; None without perf."""

    EVENTS = "syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync"

    def __init__(self, pids: list[int]) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.out = Path(tempfile.mkstemp(suffix=".perf")[1])
        if shutil.which("perf"):
            self.proc = subprocess.Popen(
                ["perf", "stat", "-x", ",", "-e", self.EVENTS, "-o", str(self.out),
                 "-p", ",".join(str(p) for p in pids)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None
        counts = [line.split(",") for line in self.out.read_text().splitlines()]
        found = [int(c[0]) for c in counts if len(c) > 2 and c[2].startswith("syscalls:")
                 and c[0].strip().isdigit()]
        self.out.unlink()
        return sum(found) if found else None


class Servers:
    """What is measured: one app process (direct), or N behind nginx with Redis."""

    def __init__(self, procs: list[subprocess.Popen[bytes]], base: str, ws_base: str,
                 app_bases: list[str], others: dict[str, int] | None = None,
                 redis: Any = None) -> None:
        self.procs, self.base, self.ws_base = procs, base, ws_base
        self.app_bases = app_bases
        self.others = others or {}  # name -> pid (redis, nginx master)
        self.redis = redis

    def rss_kb(self) -> int:
        return sum(rss_kb(p.pid) for p in self.procs)

    def cpu(self) -> float:
        return sum(cpu_seconds(p.pid) for p in self.procs)

    def other_cpu(self) -> dict[str, float]:
        out = {}
        for name, pid in self.others.items():
            total = cpu_seconds(pid)
            for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
                with contextlib.suppress(OSError):
                    total += cpu_seconds(int(child))  # nginx's workers
            out[name] = total
        return out

    def rooms(self) -> list[int]:
        return [int(httpx.get(f"{b}/healthz", trust_env=False).json()["rooms"])
                for b in self.app_bases]

    def store_figures(self) -> dict[str, Any]:
        """The first app process's store, as /healthz?detail=1 tells it (the SQLite
        store's file size, commits and writes)."""
        answer = httpx.get(f"{self.app_bases[0]}/healthz", params={"detail": 1},
                           headers={"X-Operator-Token": OPERATOR_TOKEN}, trust_env=False,
                           timeout=30).json()
        store: dict[str, Any] = answer.get("store") or {"name": "memory"}
        return store

    def redis_calls(self) -> dict[str, int]:
        if self.redis is None:
            return {}
        stats = self.redis.client().info("commandstats")
        return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()}


async def run(args: argparse.Namespace, servers: Servers) -> dict[str, Any]:
    base, ws_base = servers.base, servers.ws_base
    deflate = not args.no_deflate
    # Warm up (imports, first views, pydantic) so the baseline holds them, not the rooms.
    warm = (await make_rooms(base, ws_base, 2, deflate, first_index=10**6))
    warm_stats = Stats()
    for room in warm:
        for _ in range(150):
            await room.step(warm_stats)
        for seat in room.seats:
            await seat.ws.close()
    await asyncio.sleep(1.0)
    baseline = servers.rss_kb()

    t0 = time.monotonic()
    rooms = await asyncio.wait_for(make_rooms(base, ws_base, args.rooms, deflate),
                                   setup_seconds(args.rooms))
    strong_rooms = await make_computer_rooms(base, ws_base, args.strong_rooms)
    setup_s = time.monotonic() - t0
    await asyncio.sleep(0.5)
    connected = servers.rss_kb()
    client_kb0 = rss_kb(os.getpid())
    if not args.no_gc_tuning:
        # This process times the server, so its own collector must not stall it. What
        # set-up made (every socket) is frozen, as the server freezes start-up; and
        # unlike the server, the client then runs with no collector at all: it keeps
        # every seat's last state as parsed JSON (~3 million objects at 5,000 rooms,
        # replaced at every action), so even a rare full pass held it for seconds. It
        # makes no reference cycles while playing (checked with gc.DEBUG_SAVEALL), so
        # its memory stays flat: its RSS is printed at the end.
        settle_collector()
        gc.disable()

    stats = Stats()
    peak = connected
    rss_by_10s: list[int] = []  # the highest RSS in each 10 s of play
    server_cpu0, client_cpu0 = servers.cpu(), cpu_seconds(os.getpid())
    other_cpu0, calls0 = servers.other_cpu(), servers.redis_calls()
    store0 = servers.store_figures()
    fsync_count = FsyncCount([p.pid for p in servers.procs])
    # The client's own event loop: a stall here would be timed as the server's.
    client_loop = LoopMonitor(window=60.0, name="client", logger=None)  # printed below
    prober = asyncio.create_task(client_loop.run())
    started = time.monotonic()
    until = started + args.seconds
    tasks = [asyncio.create_task(room.play(stats, until, args.pace)) for room in rooms]
    counts = {"person": 0, "computer": 0, "errors": 0}
    strong_tasks = [asyncio.create_task(room.play(counts, until)) for room in strong_rooms]
    minute_peak, minutes, polled = connected, 0, started
    loops: dict[str, list[dict[str, Any]]] = {"server": [], "client": []}
    # A new connection for each look: a kept-alive one idle for uvicorn's 5 s may be
    # closed just as it is reused.
    no_keepalive = httpx.Limits(max_keepalive_connections=0)
    # The health detail is an operator's: the bench's servers know its token.
    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=30,
                                 headers={"X-Operator-Token": OPERATOR_TOKEN},
                                 limits=no_keepalive) as http:
        detail = (await http.get("/healthz", params={"detail": 1})).json()
        server_windows = detail["loop"]["windows"]
        # The server's clock at the start of play, to place its stalls in the play.
        play_at = (detail["loop"].get("stalls") or {}).get("uptime_s", 0.0)
        while time.monotonic() < until and not all(t.done() for t in tasks):
            await asyncio.sleep(0.5)
            now = time.monotonic()
            now_kb, window = servers.rss_kb(), int((now - started) // 10)
            peak = max(peak, now_kb)
            minute_peak = max(minute_peak, now_kb)
            if window >= len(rss_by_10s):
                rss_by_10s.append(now_kb)
            rss_by_10s[-1] = max(rss_by_10s[-1], now_kb)
            if client_loop.windows > minutes:
                # A minute of play is over: the server's memory, the client's loop.
                minutes += 1
                loops["client"].append(client_loop.history[-1].as_dict())
                print(f"minute {minutes}: server RSS {(minute_peak - baseline) / args.rooms:.1f}"
                      f" KiB/room at the peak; {minute_line('client', loops['client'][-1])}",
                      flush=True)
                minute_peak = 0
            if now - polled >= 5:
                # The server's own minutes (since it started, so not those of play).
                polled = now
                try:
                    loop = (await http.get("/healthz", params={"detail": 1})).json()["loop"]
                except httpx.TransportError as exc:
                    print(f"  (no answer from /healthz: {exc!r})", flush=True)
                    continue
                if loop["windows"] > server_windows:
                    server_windows = loop["windows"]
                    in_play = now - started >= loop["last"]["window_s"] + 5
                    if in_play:
                        loops["server"].append(loop["last"])
                    print(f"  {minute_line('server', loop['last'])}, its minute ending at "
                          f"{now - started:.0f} s of play"
                          + ("" if in_play else " (so partly set-up)"), flush=True)
        stalls: list[dict[str, Any]] = []
        for server in servers.app_bases:
            with contextlib.suppress(httpx.TransportError, KeyError, TypeError):
                got = (await http.get(f"{server}/healthz", params={"detail": 1})).json()
                found = got["loop"]["stalls"]
                stalls += [{**x, "server": server} for x in found["worst"]]
    stats.stop = True
    prober.cancel()
    _, pending = await asyncio.wait(tasks, timeout=RECV_TIMEOUT + 5)
    for task in pending:
        task.cancel()
        stats.error("a room did not finish its last action")
    elapsed = time.monotonic() - started
    for task in strong_tasks:
        task.cancel()
    if strong_rooms:
        print(f"strong rooms: {len(strong_rooms)}, computer moves {counts['computer']}, "
              f"person moves {counts['person']}, errors {counts['errors']}")
    fsyncs = fsync_count.stop()
    store = {"before": store0, "after": servers.store_figures(), "fsyncs": fsyncs}
    server_cpu = servers.cpu() - server_cpu0
    other_cpu = {k: v - other_cpu0[k] for k, v in servers.other_cpu().items()}
    calls = {k: v - calls0.get(k, 0) for k, v in servers.redis_calls().items()}
    client_kb = (client_kb0, rss_kb(os.getpid()))
    client_cpu = cpu_seconds(os.getpid()) - client_cpu0
    peak = max(peak, servers.rss_kb())
    health = {"rooms": "+".join(str(n) for n in servers.rooms())}

    # Shutdown with every socket open: each should get 1012.
    for proc in servers.procs:
        proc.send_signal(signal.SIGTERM)
    codes: list[int | None] = []
    for room_codes in await asyncio.gather(*(room.closed_code() for room in rooms)):
        codes += room_codes
    exit_code: int | None = None
    for proc in servers.procs:
        try:
            exit_code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            exit_code = None

    return {
        "stats": stats, "elapsed": elapsed, "setup_s": setup_s, "baseline": baseline,
        "connected": connected, "peak": peak, "rss_by_10s": rss_by_10s,
        "server_cpu": server_cpu, "other_cpu": other_cpu, "calls": calls,
        "client_cpu": client_cpu, "client_kb": client_kb, "health": health, "loops": loops,
        "codes": codes,
        "exit_code": exit_code,
        "stalls": sorted(stalls, key=lambda x: -x["ms"]), "play_at": play_at,
        "store": store,
    }


def minute_line(name: str, loop: dict[str, Any] | None) -> str:
    """One process's event loop over its last complete minute (app/runtime.py)."""
    if loop is None:
        return f"{name}: no complete minute yet"
    return (f"{name} loop lag p99 {loop['lag_p99_ms']:.0f} ms, max {loop['lag_max_ms']:.0f} ms, "
            f"gc passes {loop['gc_young_passes']} young ({loop['gc_middle_passes']} of them "
            f"middle), {loop['gc_full_passes']} full (longest "
            f"{loop['gc_full_pass_max_ms']:.0f} ms)")


def store_line(store: dict[str, Any], rooms: int, elapsed: float) -> str:
    """Prints the store's figures over the play; their summary for the last line."""
    before, after, fsyncs = store["before"], store["after"], store["fsyncs"]
    name = after.get("name", "memory")
    fsync_rate = "n/a" if fsyncs is None else f"{fsyncs / elapsed:.0f}"
    if "bytes" not in after:
        print(f"store: {name}; fsync+fdatasync during play: {fsync_rate}/s (perf)")
        return f"store={name} fsyncs/s={fsync_rate}"
    commits = after["commits"] - before["commits"]
    writes = after["writes"] - before["writes"]
    per_room = after["bytes"] / rooms / 1024
    print(f"store: {name}, {after['file']}: {after['bytes'] / 2**20:.1f} MiB at the end "
          f"({per_room:.1f} KiB a room), its log {after['log_bytes'] / 2**20:.1f} MiB; "
          f"during play {writes / elapsed:.0f} "
          f"writes/s in {commits / elapsed:.0f} commits/s "
          f"({writes / max(commits, 1):.1f} a commit); fsync+fdatasync {fsync_rate}/s (perf)")
    return f"store={name} disk/room={per_room:.1f}KiB fsyncs/s={fsync_rate}"


def report(args: argparse.Namespace, r: dict[str, Any]) -> int:
    stats: Stats = r["stats"]
    k = args.rooms
    if args.processes:
        print(f"{args.processes} app process(es) behind nginx, rooms in Redis")
    rate = stats.actions / r["elapsed"] if r["elapsed"] else 0.0
    per_room_idle = (r["connected"] - r["baseline"]) / k
    per_room = (r["peak"] - r["baseline"]) / k
    ok_1012 = sum(1 for c in r["codes"] if c == 1012)
    others = sorted({str(c) for c in r["codes"] if c != 1012})
    print(f"rooms {k} ({2 * k} sockets, one client process, one event loop), "
          f"permessage-deflate {'off' if args.no_deflate else 'on'}, "
          f"pace {args.pace} s; set-up {r['setup_s']:.1f} s")
    print(f"play {r['elapsed']:.1f} s: {stats.actions} actions, {stats.parties} parties "
          f"finished, {rate:.0f} actions/s; server /healthz rooms={r['health']['rooms']}")
    print(f"round trip (action -> own state) p50 {pct(stats.round_trips, .5):.1f} ms, "
          f"p99 {pct(stats.round_trips, .99):.1f} ms, max {pct(stats.round_trips, 1):.1f} ms; "
          f"relay (-> other seat's state) p50 {pct(stats.relays, .5):.1f} ms, "
          f"p99 {pct(stats.relays, .99):.1f} ms")
    print(f"server RSS: {r['baseline'] / 1024:.1f} MiB before the rooms, "
          f"{r['connected'] / 1024:.1f} MiB with {k} rooms connected "
          f"({per_room_idle:.1f} KiB/room), peak {r['peak'] / 1024:.1f} MiB in play "
          f"({per_room:.1f} KiB/room)")
    print("server RSS by 10 s of play, KiB per room: " + ", ".join(
        f"{(kb - r['baseline']) / k:.0f}" for kb in r["rss_by_10s"]))
    print(f"CPU during play: server {r['server_cpu']:.1f} s "
          f"({100 * r['server_cpu'] / r['elapsed']:.0f}% of a core), client "
          f"{r['client_cpu']:.1f} s ({100 * r['client_cpu'] / r['elapsed']:.0f}%)"
          + "".join(f", {name} {cpu:.1f} s ({100 * cpu / r['elapsed']:.0f}%)"
                    for name, cpu in r["other_cpu"].items())
          + f"; client RSS {r['client_kb'][0] / 1024:.0f} MiB at the start of play, "
          f"{r['client_kb'][1] / 1024:.0f} MiB at the end")
    if r["calls"] and stats.actions:
        total = sum(r["calls"].values())
        print(f"redis commands during play: {total} ({total / stats.actions:.2f} per action): "
              + ", ".join(f"{k} {v}" for k, v in sorted(r["calls"].items()) if v))
    disk = store_line(r["store"], k, r["elapsed"])
    if stats.store_waits:
        print(f"the table said it waited for its store (a write over 1 s) "
              f"{stats.store_waits} times")
    print(f"shutdown (SIGTERM): {ok_1012}/{len(r['codes'])} sockets closed with 1012"
          + (f", others: {', '.join(others)}" if others else "")
          + f"; server exit code {r['exit_code']}")
    if stats.sent_at:
        first = min(stats.sent_at)
        windows: dict[int, list[float]] = {}
        for at, rtt in zip(stats.sent_at, stats.round_trips, strict=True):
            windows.setdefault(int((at - first) // 10), []).append(rtt)
        print("p99 by 10 s of play: " + ", ".join(
            f"{pct(windows[w], .99):.0f}" for w in sorted(windows)) + " ms")
    for name, windows in r["loops"].items():
        if windows:
            worst = max(windows, key=lambda w: w["lag_max_ms"])
            print(f"{name} event loop, worst of {len(windows)} minutes in play: "
                  f"lag max {worst['lag_max_ms']:.0f} ms,"
                  f" p99 {worst['lag_p99_ms']:.0f} ms; full gc passes in all: "
                  f"{sum(w['gc_full_passes'] for w in windows)}, longest "
                  f"{max(w['gc_full_pass_max_ms'] for w in windows):.0f} ms")
    first_play = r["play_at"]
    print(f"server stalls (the loop over 50 ms late): {len(r['stalls'])} of the worst kept"
          + (":" if r["stalls"] else ""))
    for x in r["stalls"][:5]:
        print(f"  {x['ms']:.0f} ms at {x['at_s'] - first_play:.0f} s of play "
              f"({x['samples']} looks): {x['where']}")
    for sample in stats.error_samples:
        print(f"error: {sample}")
    print(f"load processes={args.processes} rooms={k} actions/s={rate:.0f} "
          f"p50={pct(stats.round_trips, .5):.1f}ms "
          f"p99={pct(stats.round_trips, .99):.1f}ms errors={stats.errors} "
          f"parties={stats.parties} mem/room={per_room:.1f}KiB "
          f"shutdown_1012={ok_1012}/{len(r['codes'])} {disk}")
    return 0 if stats.errors == 0 and ok_1012 == len(r["codes"]) else 1


def start_parts(args: argparse.Namespace, tmp: Path, log_path: Path, port: int,
                parts: list[Any]) -> tuple[Servers, list[Path]]:
    """The servers to measure; each part started is put in `parts` at once, so that a
    failure part-way stops the ones already running."""
    if args.processes:
        from tests.cluster import App, Nginx, Redis, RedisCluster

        store_env: dict[str, str] = {}
        if args.cluster:
            cluster = RedisCluster(tmp / "cluster", masters=3, replicas=2)
            parts.append(cluster)
            cluster.start()
            redis: Any = cluster
            store_env = {"PIQUET_REDIS_CLUSTER": "true", "PIQUET_REDIS_REPLICAS": "1"}
        else:
            redis = Redis(tmp / "redis", extra=("--appendfsync", args.fsync))
            parts.append(redis)
            redis.start()
        apps = []
        for i in range(args.processes):
            app = App(tmp / f"app{i}.log", redis.url, PIQUET_LOG_LEVEL="warning",
                      **store_env,
                      PIQUET_MAX_ROOMS=str(args.rooms + 50),
                      PIQUET_ROOMS_PER_ADDRESS=str(args.rooms + 50),
                      PIQUET_OPERATOR_TOKEN=OPERATOR_TOKEN,
                      PIQUET_RATE_LIMIT_PER_SECOND="1000000",
                      PIQUET_RATE_LIMIT_BURST="1000000",
                      PIQUET_COLLECTOR_TUNING=str(not args.no_gc_tuning).lower())
            parts.append(app)
            apps.append(app.start())
        nginx = Nginx(tmp / "nginx", [a.port for a in apps],
                      room_rate="1000000r/s", per_address=60_000)
        parts.append(nginx)
        nginx.start()
        assert nginx.proc is not None
        if args.cluster:
            others = {f"redis{i}": n.proc.pid for i, n in enumerate(redis.nodes) if n.proc}
        else:
            assert redis.proc is not None
            others = {"redis": redis.proc.pid}
        servers = Servers([a.proc for a in apps if a.proc is not None], nginx.http,
                          nginx.ws, [a.http for a in apps],
                          {**others, "nginx": nginx.proc.pid},
                          None if args.cluster else redis)
        return servers, [a.log_path for a in apps]
    proc = start_server(port, args.rooms, log_path, not args.no_gc_tuning)
    return (Servers([proc], f"http://{HOST}:{port}", f"ws://{HOST}:{port}",
                    [f"http://{HOST}:{port}"]), [log_path])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=100, help="rooms at once (K)")
    parser.add_argument("--seconds", type=float, default=300,
                        help="length of the play phase (300: a stall that starts late shows)")
    parser.add_argument("--pace", type=float, default=0.0,
                        help="mean pause in seconds between a room's actions (0: none)")
    parser.add_argument("--strong-rooms", type=int, default=0,
                        help="computer rooms at the strong level playing beside them")
    parser.add_argument("--no-deflate", action="store_true",
                        help="do not offer permessage-deflate (browsers do offer it)")
    parser.add_argument("--no-gc-tuning", action="store_true",
                        help="Python's default collector in the server and this client "
                             "(no freeze, default thresholds): the stalls of issue 14")
    parser.add_argument("--fsync", default="always", choices=["always", "everysec"],
                        help="with --processes: Redis's appendfsync (always: what we ship; "
                             "everysec: a crash may take back what it answered)")
    parser.add_argument("--cluster", action="store_true",
                        help="with --processes: a Redis Cluster (3 masters, 2 replicas "
                             "each) and the app waiting for a replica, not one Redis")
    parser.add_argument("--processes", type=int, default=0,
                        help="N app processes behind nginx with Redis (0: one, direct, "
                             "rooms in memory)")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log_path = Path(tmp) / "server.log"
        parts: list[Any] = []
        try:
            servers, log_paths = start_parts(args, Path(tmp), log_path, port, parts)
        except BaseException:
            for part in reversed(parts):
                part.kill() if hasattr(part, "kill") else part.stop()
            raise
        try:
            budget = setup_seconds(args.rooms) + args.seconds + 4 * RECV_TIMEOUT + 60
            result = asyncio.run(asyncio.wait_for(run(args, servers), budget))
        finally:
            for proc in servers.procs:
                stop(proc)
            for part in reversed(parts):
                if hasattr(part, "stop"):
                    part.stop()
                else:
                    part.kill()
        log_text = "".join(p.read_text() for p in log_paths)
        problems = [line for line in log_text.splitlines()
                    if "ERROR" in line or "Traceback" in line]
        for line in problems[:5]:
            print(f"server log: {line}")
        code = report(args, result)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    raise SystemExit(code)


if __name__ == "__main__":
    main()
