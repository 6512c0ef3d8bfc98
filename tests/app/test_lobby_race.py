"""The quick game's race (issue 37): many browsers press "Quick game" at the same moment,
with no table open, over real sockets against real servers: one process keeping the
lobby in memory, and two processes sharing it through Redis, the presses spread over
both. Every browser ends at one table, every table holds two different browsers (one
at most still waits), and a browser pressing in two tabs at once ends at one table,
never against itself."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import pytest
from livekit import LiveServer
from websockets.asyncio.client import connect

from tests.cluster import Redis

BROWSERS = 31  # and the first presses in two tabs: 32 presses


async def press_all(bases: list[str]) -> list[tuple[int, dict[str, Any]]]:
    """Each browser (its own cookies) opens the lobby, then all press at once; the first
    browser presses twice, from two tabs. (browser, answer) for every press."""
    browsers = [httpx.AsyncClient(base_url=bases[n % len(bases)], trust_env=False,
                                  timeout=30) for n in range(BROWSERS)]
    try:
        for browser in browsers:
            assert (await browser.get("/")).status_code == 200  # its visitor cookie
        presses = [(n, browser) for n, browser in enumerate(browsers)] + [(0, browsers[0])]
        answers = await asyncio.gather(*(b.post("/api/lobby/quick", json={})
                                         for _, b in presses))
        out = []
        for (n, _), answer in zip(presses, answers, strict=True):
            assert answer.status_code == 200, answer.text
            out.append((n, answer.json()))
        return out
    finally:
        for browser in browsers:
            await browser.aclose()


async def seat_of(base: str, room_id: str, token: str) -> int:
    url = base.replace("http", "ws", 1) + f"/ws/{room_id}"
    async with connect(url, additional_headers={"Cookie": f"piquet_seat_{room_id}={token}"},
                       proxy=None, open_timeout=10) as ws:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if frame["type"] == "state":
                return int(frame["room"]["seat"])


def check_pairs(answers: list[tuple[int, dict[str, Any]]], base: str) -> None:
    rooms: dict[str, set[int]] = defaultdict(set)
    tokens: dict[str, dict[int, str]] = defaultdict(dict)
    where: dict[int, set[str]] = defaultdict(set)
    for browser, answer in answers:
        rooms[answer["room_id"]].add(browser)
        where[browser].add(answer["room_id"])
        if answer["token"] is not None:
            tokens[answer["room_id"]][browser] = answer["token"]
    assert all(len(found) == 1 for found in where.values()), where  # one table each
    assert set(where) == set(range(BROWSERS))
    assert all(len(people) <= 2 for people in rooms.values())
    waiting = [r for r, people in rooms.items() if len(people) == 1]
    assert len(waiting) == BROWSERS % 2, rooms  # never two tables waiting for each other
    # Each paired table's two seats are its two browsers' (seat 0 and seat 1), each
    # holding its own token: nobody seated twice, nobody against themselves.
    for room_id, people in rooms.items():
        if len(people) == 2:
            held = tokens[room_id]
            assert set(held) == people, (room_id, held)
            seats = asyncio.run(_seats(base, room_id, list(held.values())))
            assert sorted(seats) == [0, 1]


async def _seats(base: str, room_id: str, held: list[str]) -> list[int]:
    return [await seat_of(base, room_id, token) for token in held]


def test_many_presses_at_once_pair_everyone_in_one_process(tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "app.log").start()
    try:
        answers = asyncio.run(press_all([server.http]))
        check_pairs(answers, server.http)
    finally:
        server.kill()


@pytest.mark.timeout(600)
def test_many_presses_at_once_on_two_processes_pair_everyone_through_redis(
    tmp_path: Path,
) -> None:
    redis = Redis(tmp_path / "redis", durable=False).start()
    servers = [LiveServer(tmp_path / f"app{n}.log", PIQUET_REDIS_URL=redis.url).start()
               for n in range(2)]
    try:
        answers = asyncio.run(press_all([s.http for s in servers]))
        check_pairs(answers, servers[0].http)
    finally:
        for server in servers:
            server.kill()
        redis.stop()
