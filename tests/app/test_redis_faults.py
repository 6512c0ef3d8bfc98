"""Redis itself fails under tables in play (issue 24), against a real app process and a
real redis-server run as deploy/compose.yaml runs it (append-only, fsync'd before each
answer): Redis killed with kill -9 while the disk is busy, paused past the app's
timeout, and restarted. After each: changes told, changes lost (0), wrong answers (0),
computer tables stopped for good (0), no version shown older than one shown before, and
how long after the fault every table played again (printed; docs/reliability.md)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from livekit import LiveServer
from storekit import busy_disk, nothing_lost, play_through, redis_rooms

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
    reckoning, played, ended = play_through(server.ws, fault, friends=FRIENDS,
                                            computers=COMPUTERS, before=BEFORE, after=AFTER)
    nothing_lost(redis_rooms(redis), reckoning, played, ended, name, AFTER)


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
