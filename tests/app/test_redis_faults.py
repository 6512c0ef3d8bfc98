"""Redis itself fails under tables in play (issue 24), against a real app process and a
real redis-server run as deploy/compose.yaml runs it (append-only, fsync'd before each
answer): Redis killed with kill -9 while the disk is busy, paused past the app's
timeout, and restarted. After each: changes told, changes lost (0), wrong answers (0),
computer tables stopped for good (0), no version shown older than one shown before, and
how long after the fault every table played again (printed; docs/reliability.md)."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from livekit import LiveServer
from storekit import Reckoning, back_after, lost_and_wrong, stuck_computers, tables

from tests.cluster import Redis

FRIENDS, COMPUTERS = 4, 4
BEFORE, AFTER = 4.0, 15.0  # seconds of play before the fault, and after it


def app_for(tmp_path: Path, redis: Redis) -> LiveServer:
    return LiveServer(tmp_path / "server.log", PIQUET_REDIS_URL=redis.url,
                      PIQUET_REDIS_TIMEOUT="1", PIQUET_STORE_PATIENCE="8",
                      PIQUET_COMPUTER_DELAY="0.05").start()


def run_with_fault(server: LiveServer, redis: Redis,
                   fault: Callable[[], Awaitable[float]], name: str) -> None:
    """`fault` breaks Redis and returns when it answered again (time.monotonic())."""
    async def scenario() -> tuple[Reckoning, list[Any], float]:
        reckoning = Reckoning()
        played = await tables(server.ws, FRIENDS, COMPUTERS, reckoning)
        until = time.monotonic() + BEFORE + AFTER + 30
        stop = asyncio.Event()

        async def table_loop(table: Any) -> None:
            while not stop.is_set():
                await table.play(min(until, time.monotonic() + 0.5))

        loops = [asyncio.create_task(table_loop(t)) for t in played]
        await asyncio.sleep(BEFORE)
        ended = await fault()
        await asyncio.sleep(AFTER - (time.monotonic() - ended))
        stop.set()
        await asyncio.gather(*loops)
        return reckoning, played, ended

    reckoning, played, ended = asyncio.run(scenario())
    lost, wrong = lost_and_wrong(redis, played, reckoning)
    stuck = stuck_computers(played, ended)
    back = back_after(played, ended)
    print(f"\n{name}: changes told {reckoning.told}, lost {lost}, wrong answers {wrong}, "
          f"computer tables stuck {stuck}, every table played again {back:.1f} s after; "
          f"reconnects {reckoning.reconnects}, errors {reckoning.errors}")
    assert not reckoning.went_back, reckoning.went_back[:3]
    assert lost == 0 and wrong == 0 and stuck == 0
    assert back < AFTER, f"a table did not play again within {AFTER} s"


def busy_disk(folder: Path, stop: threading.Event) -> None:
    """Writes with an fsync after each, on Redis's own file system, until stopped."""
    path = folder / "ballast"
    block = os.urandom(1 << 20)
    with path.open("wb") as out:
        while not stop.is_set():
            for _ in range(8):
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
            out.seek(0)
    path.unlink()


@pytest.fixture
def redis(tmp_path: Path) -> Any:
    server = Redis(tmp_path / "redis").start()
    yield server
    server.stop()


def test_redis_killed_while_the_disk_is_busy_loses_nothing_told(
    tmp_path: Path, redis: Redis
) -> None:
    server = app_for(tmp_path, redis)
    stop = threading.Event()
    ballast = threading.Thread(target=busy_disk, args=(tmp_path, stop), daemon=True)
    ballast.start()

    async def kill_three_times() -> float:
        for _ in range(3):
            await asyncio.sleep(1.0)
            redis.kill()
            await asyncio.sleep(0.3)
            await asyncio.to_thread(redis.start)
        return time.monotonic()

    try:
        run_with_fault(server, redis, kill_three_times, "kill -9 under disk load (x3)")
    finally:
        stop.set()
        ballast.join(30)
        server.kill()


def test_redis_paused_past_the_timeout_answers_every_move_rightly(
    tmp_path: Path, redis: Redis
) -> None:
    server = app_for(tmp_path, redis)

    async def pause() -> float:
        redis.pause()
        await asyncio.sleep(3.0)  # three times the app's timeout
        redis.resume()
        return time.monotonic()

    try:
        run_with_fault(server, redis, pause, "paused 3 s (timeout 1 s)")
    finally:
        server.kill()


def test_redis_restarted_costs_the_players_nothing(tmp_path: Path, redis: Redis) -> None:
    server = app_for(tmp_path, redis)

    async def restart() -> float:
        await asyncio.to_thread(redis.stop)
        await asyncio.to_thread(redis.start)
        return time.monotonic()

    try:
        run_with_fault(server, redis, restart, "restarted")
        assert "Connection closed by server" not in server.log()
    finally:
        server.kill()
