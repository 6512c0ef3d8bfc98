"""The lobby under watch (issue 37): many lobby sockets open while tables are opened,
joined and taken out of the list at a steady rate; how late each change reaches each
watcher, and how late the server's event loop runs meanwhile.

    .venv/bin/python tests/bench/lobby.py [--watchers 1000] [--rate 20] [--seconds 60]
        [--coalesce 0.5]

Starts `python -m app` (tests/serverproc.py; rooms in its memory, the lobby's too), opens
`--watchers` sockets on `/ws/lobby`, then makes `--rate` changes a second for
`--seconds`: in turn a table opened to anyone (POST /api/rooms, seating "open"), a second
one, the first joined (POST /api/rooms/{id}/join) and the second taken out of the lobby
(POST /r/{id}/listing). A change's time is when its request was sent; each watcher notes
when a message first tells it (the table in `open`, or its id in `gone`: a table opened
and gone within one message's window is told as gone only). The delivery
latency is the difference, for every change and every watcher. The server's loop lag is
its own (/healthz?detail=1), over the minute of play: the changes start as one of its
minutes begins; the bench's client loops are timed too, as a late client makes latencies
look longer than the server made them.

The watchers are spread over `--clients` processes (CLOCK_MONOTONIC is one clock for
every process of the machine), so that no one client's loop falls behind a thousand
sockets; each client's own loop lag is printed. The last line prints the p99 delivery
latency (target: under 1 s) and the server's loop lag p99 and max over the play (target:
under 50 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import httpx
import orjson
from websockets.asyncio.client import connect

from tests.serverproc import AppProcess

OPERATOR_TOKEN = "lobby-bench"


class Watcher:
    """One lobby socket: when it was first told of each change."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], float] = {}
        self.messages = 0

    async def run(self, url: str, ready: asyncio.Event, stop: asyncio.Event) -> None:
        async with connect(url, proxy=None, open_timeout=60, max_queue=None) as ws:
            await ws.recv()  # the lists, first
            ready.set()
            while not stop.is_set():
                try:
                    text = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                now = time.monotonic()
                msg = orjson.loads(text)
                if msg["type"] == "ping":
                    await ws.send('{"type": "pong"}')
                    continue
                self.messages += 1
                for table in msg["open"]:
                    self.seen.setdefault(("open", table["room_id"]), now)
                for room_id in msg["gone"]:
                    self.seen.setdefault(("gone", room_id), now)


class LoopLag:
    """How late this process's own loop runs (a late client inflates latencies)."""

    def __init__(self) -> None:
        self.lags: list[float] = []

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            asked = time.monotonic()
            await asyncio.sleep(0.05)
            self.lags.append(time.monotonic() - asked - 0.05)


async def changes(base: str, rate: float, seconds: float,
                  made: dict[tuple[str, str], float]) -> int:
    """`rate` changes a second for `seconds`, each sent on its tick without waiting for the
    one before; `made` gets each change's time (sent). Returns how many failed."""
    failures = 0
    opened: list[dict[str, Any]] = []
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=50)
    # The makers' browser, and another that joins (a browser never sits at its own).
    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=30,
                                 limits=limits) as http, \
            httpx.AsyncClient(base_url=base, trust_env=False, timeout=30,
                              limits=limits) as joiner:

        async def open_table() -> None:
            nonlocal failures
            sent = time.monotonic()
            answer = await http.post("/api/rooms", json={"opponent": "friend",
                                                         "seating": "open"})
            if answer.status_code != 201:
                failures += 1
                return
            table = answer.json()
            made[("open", table["room_id"])] = sent
            opened.append(table)

        async def join_or_unlist(n: int) -> None:
            nonlocal failures
            if not opened:
                return
            table = opened.pop(0)
            sent = time.monotonic()
            if n % 2:
                answer = await joiner.post(f"/api/rooms/{table['room_id']}/join")
            else:
                answer = await http.post(
                    f"/r/{table['room_id']}/listing", json={"listed": False},
                    cookies={f"piquet_seat_{table['room_id']}": table["token"]})
            if answer.status_code != 200:
                failures += 1
                return
            made[("gone", table["room_id"])] = sent

        tasks = []
        start = time.monotonic()
        for n in range(int(rate * seconds)):
            await asyncio.sleep(max(0.0, start + n / rate - time.monotonic()))
            work = open_table() if n % 4 < 2 else join_or_unlist(n)
            tasks.append(asyncio.create_task(work))
        await asyncio.gather(*tasks)
    return failures


async def server_loop(base: str, windows_before: int | None = None) -> dict[str, Any]:
    """The server's loop (/healthz?detail=1). With `windows_before`: waits until a minute
    more than that is complete, and returns the loop then."""
    headers = {"X-Operator-Token": OPERATOR_TOKEN}
    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=30,
                                 headers=headers) as http:
        while True:
            loop: dict[str, Any] = (await http.get("/healthz", params={"detail": 1})).json()[
                "loop"]
            if windows_before is None or loop["windows"] > windows_before:
                return loop
            await asyncio.sleep(0.1)


Seen = dict[tuple[str, str], float]


async def watch(url: str, count: int, go: Any, done: Any) -> tuple[list[Seen], list[int],
                                                                   list[float]]:
    """`count` lobby sockets in this process, until `done` is set (a multiprocessing
    event); `go` is set once all are open."""
    watchers = [Watcher() for _ in range(count)]
    stop, ready = asyncio.Event(), [asyncio.Event() for _ in watchers]
    running = []
    for watcher, event in zip(watchers, ready, strict=True):
        running.append(asyncio.create_task(watcher.run(url, event, stop)))
        await asyncio.sleep(0.002)  # opened over a few seconds
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in ready)), 120)
    go.set()
    client = LoopLag()
    lagging = asyncio.create_task(client.run(stop))
    while not done.is_set():
        await asyncio.sleep(0.2)
    stop.set()
    await asyncio.gather(*running, lagging)
    return [w.seen for w in watchers], [w.messages for w in watchers], client.lags


def client_process(url: str, count: int, go: Any, done: Any, out: Any) -> None:
    out.send(asyncio.run(watch(url, count, go, done)))


async def bench(args: argparse.Namespace, base: str) -> None:
    url = base.replace("http://", "ws://") + "/ws/lobby"
    context = multiprocessing.get_context("spawn")
    done = context.Event()
    clients = []
    for n in range(args.clients):
        go = context.Event()
        mine, theirs = context.Pipe(duplex=False)
        count = args.watchers // args.clients + (n < args.watchers % args.clients)
        proc = context.Process(target=client_process, args=(url, count, go, done, theirs))
        proc.start()
        clients.append((proc, go, mine))
    for _, go, _ in clients:
        while not go.wait(0.1):
            await asyncio.sleep(0)
    print(f"{args.watchers} lobby sockets open, in {args.clients} processes", flush=True)
    # The server's loop is told a minute at a time: the changes start as one begins, and
    # last that minute, so that minute is the play's alone.
    started = await server_loop(base, (await server_loop(base))["windows"])
    made: dict[tuple[str, str], float] = {}
    failures = await changes(base, args.rate, args.seconds, made)
    ended = await server_loop(base, started["windows"])
    await asyncio.sleep(3)  # the last changes' messages, coalesced
    done.set()
    seen: list[Seen] = []
    messages: list[int] = []
    lags: list[float] = []
    for proc, _, pipe in clients:
        got_seen, got_messages, got_lags = await asyncio.to_thread(pipe.recv)
        seen += got_seen
        messages += got_messages
        lags.append(max(got_lags))
        proc.join()
    # The server's worst stalls of the play (its clock: seconds since it started).
    begun, over = ((loop.get("stalls") or {}).get("uptime_s", 0.0) for loop in (started, ended))
    worst = (ended.get("stalls") or {}).get("worst") or []
    report(seen, messages, made, failures, lags, ended["last"],
           [x for x in worst if begun <= x["at_s"] <= over])


def report(seen: list[Seen], messages: list[int], made: dict[tuple[str, str], float],
           failures: int, client_lags: list[float], play: dict[str, Any],
           stalls: list[dict[str, Any]]) -> None:
    # A table opened and gone within one message's window is told as gone only (the
    # net change): its opening is told then too.
    latencies = []
    missed = 0
    for told_at in seen:
        for (kind, room_id), at in made.items():
            told = [told_at.get((k, room_id)) for k in (("open", "gone") if kind == "open"
                                                         else ("gone",))]
            when = min((t for t in told if t is not None), default=None)
            if when is None:
                missed += 1
            else:
                latencies.append(when - at)
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(0.99 * (len(latencies) - 1))] * 1000
    print(f"{len(made)} changes ({failures} requests failed), each to {len(seen)} "
          f"watchers: {len(latencies)} deliveries, {missed} never told; "
          f"{statistics.mean(messages):.0f} messages a watcher", flush=True)
    print(f"delivery latency p50 {p50:.0f} ms, p99 {p99:.0f} ms, max "
          f"{latencies[-1] * 1000:.0f} ms; the clients' own loops at most "
          + ", ".join(f"{lag * 1000:.0f}" for lag in client_lags) + " ms late")
    for stall in stalls[:3]:
        print(f"  server stall (ms, where): {stall['ms']}, {stall['where'][:160]}")
    print(f"lobby: p99 delivery {p99:.0f} ms (target < 1000), server loop lag over the "
          f"{play['window_s']:.0f} s of play p99 {play['lag_p99_ms']:.1f} ms, max "
          f"{play['lag_max_ms']:.1f} ms (target < 50)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--coalesce", type=float, default=0.5)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    log = Path(tempfile.mkdtemp(prefix="lobby-bench-")) / "server.log"
    server = AppProcess(
        log, PIQUET_OPERATOR_TOKEN=OPERATOR_TOKEN, PIQUET_LOBBY_COALESCE=str(args.coalesce),
        PIQUET_OPEN_TABLES_PER_ADDRESS="100000", PIQUET_MAX_ROOMS="100000",
        PIQUET_MAX_CONNECTIONS="20000", PIQUET_MAX_CONNECTIONS_PER_ADDRESS="20000",
        PIQUET_COMPUTER_WORKERS="0", PIQUET_TEACHING_WORKERS="0").start()
    try:
        asyncio.run(bench(args, server.http))
    finally:
        server.kill()
        print(f"(server log: {log})", file=sys.stderr)


if __name__ == "__main__":
    main()
