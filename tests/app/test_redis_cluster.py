"""Rooms in a Redis Cluster (issue 24): three masters with two replicas each, real nodes
on loopback (tests/cluster.py), the app using redis-py's cluster client and waiting for
a replica to acknowledge every change (PIQUET_REDIS_CLUSTER, PIQUET_REDIS_REPLICAS=1).
Tables play through it, and the master holding most of their rooms is killed with kill
-9, a replica ready to take over: nothing told is lost, no answer is wrong, no computer
table stops, and every table plays again."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from livekit import LiveServer
from storekit import Reckoning, back_after, lost_and_wrong, redis_rooms, stuck_computers, tables

from app.redis_scripts import room_key
from tests.cluster import RedisCluster

BEFORE, AFTER = 4.0, 20.0


@pytest.fixture
def cluster(tmp_path: Path) -> Any:
    made = RedisCluster(tmp_path / "cluster", masters=3, replicas=2)
    try:
        yield made.start()
    finally:
        made.stop()


def test_a_master_failed_over_loses_nothing_told(tmp_path: Path, cluster: RedisCluster) -> None:
    server = LiveServer(tmp_path / "server.log", PIQUET_REDIS_URL=cluster.url,
                        PIQUET_REDIS_CLUSTER="true", PIQUET_REDIS_REPLICAS="1",
                        PIQUET_REDIS_TIMEOUT="1", PIQUET_STORE_PATIENCE="20",
                        PIQUET_COMPUTER_DELAY="0.05").start()

    async def scenario() -> tuple[Reckoning, list[Any], float, int]:
        reckoning = Reckoning()
        played = await tables(server.ws, 6, 6, reckoning, seed=3)
        stop = asyncio.Event()

        async def table_loop(table: Any) -> None:
            while not stop.is_set():
                await table.play(time.monotonic() + 0.5)

        loops = [asyncio.create_task(table_loop(t)) for t in played]
        await asyncio.sleep(BEFORE)
        owners = Counter(cluster.node_for_key(room_key(t.room_id)).port for t in played)
        port, rooms_there = owners.most_common(1)[0]
        victim = next(n for n in cluster.nodes if n.port == port)
        victim.kill()
        await asyncio.to_thread(cluster.wait_healthy)  # a replica took over
        ended = time.monotonic()
        await asyncio.sleep(AFTER)
        stop.set()
        await asyncio.gather(*loops)
        return reckoning, played, ended, rooms_there

    try:
        reckoning, played, ended, rooms_there = asyncio.run(scenario())
        lost, wrong = lost_and_wrong(redis_rooms(cluster), played, reckoning)
        stuck = stuck_computers(played, ended)
        back = back_after(played, ended)
        print(f"\ncluster, a master with {rooms_there} of {len(played)} rooms killed: changes "
              f"told {reckoning.told}, lost {lost}, wrong answers {wrong}, computer tables "
              f"stuck {stuck}, every table played again {back:.1f} s after the failover; "
              f"reconnects {reckoning.reconnects}, errors {reckoning.errors}")
        assert rooms_there >= 1
        assert not reckoning.went_back, reckoning.went_back[:3]
        assert lost == 0 and wrong == 0 and stuck == 0
        assert back < AFTER
    finally:
        server.kill()
