"""The computer's levels at the table (issue 12): the lobby offers them, the API and the
form take one, an unknown one is refused clearly, the room says which level plays, and
the good and strong levels think in the worker pool, not in the server's event loop."""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import pytest
from tablekit import SeatSocket, TestClient, play_computer_partie, room_of, serve

from app.settings import ROOT
from engine.computer import LEVELS

SEED_002_WORDS = "sinks nothing"  # the product page's own words for the basic player


def test_an_unknown_level_is_refused_clearly_and_makes_no_room(client: TestClient) -> None:
    rooms = client.app.state.rooms  # type: ignore[attr-defined]
    response = client.post("/api/rooms", json={"opponent": "computer", "level": "expert"})
    assert response.status_code == 422
    assert all(name in response.text for name in ("basic", "good", "strong"))
    page = client.post("/rooms", data={"opponent": "computer", "level": "expert"})
    assert page.status_code == 400
    assert "Unknown computer level" in page.text and "strong" in page.text
    assert len(rooms) == 0


@pytest.mark.parametrize("name", list(LEVELS))
def test_a_room_plays_the_level_it_was_made_with(client: TestClient, name: str) -> None:
    made = client.post("/api/rooms", json={"opponent": "computer", "level": name}).json()
    room = room_of(client, made["room_id"])
    assert room.level == name
    assert room.computer is not None and room.computer.level == name
    person = SeatSocket(client, made["room_id"], made["token"])
    person.connect()
    assert person.state["room"]["level"] == name


def test_without_a_level_the_computer_is_basic_and_a_friend_has_none(client: TestClient) -> None:
    made = client.post("/api/rooms", json={"opponent": "computer"}).json()
    assert room_of(client, made["room_id"]).level == "basic"
    friend = client.post("/api/rooms", json={"opponent": "friend", "level": "strong"}).json()
    assert room_of(client, friend["room_id"]).level is None


def test_the_lobby_offers_every_level_basic_first_and_the_table_names_it() -> None:
    with serve(ROOT / "templates") as client:
        lobby = client.get("/").text
        at = [lobby.index(f'value="{name}"') for name in LEVELS]
        assert at == sorted(at)  # basic first, then good, then strong
        assert SEED_002_WORDS in lobby
        for level in LEVELS.values():
            assert level.description in lobby
        response = client.post("/rooms", data={"opponent": "computer", "level": "strong"})
        assert response.status_code == 200  # followed to the table
        assert 'data-level="strong"' in response.text


@pytest.mark.parametrize("name", ["good", "strong"])
def test_good_and_strong_think_in_the_worker_pool(templates_dir: object, name: str) -> None:
    """A whole first deal against the level, its decisions made in a worker process."""
    with serve(templates_dir, computer_workers=1, computer_pace=0,
               new_seed=lambda: 12) as client:
        made = client.post("/api/rooms", json={"opponent": "computer", "level": name}).json()
        room = room_of(client, made["room_id"])
        assert room.computer is not None
        thinking = room.computer.pool
        assert thinking is not None and isinstance(thinking.pool, ProcessPoolExecutor)
        person = SeatSocket(client, made["room_id"], made["token"])
        person.connect()
        play_computer_partie(person, random.Random(3),
                             until=lambda view: view["step"] == "deal_over")
        assert person.view["tricks_won"][0] + person.view["tricks_won"][1] == 12
        assert thinking.pool._processes  # type: ignore[attr-defined]  # it thought there


def test_the_pool_takes_the_decision_due_first() -> None:
    """Decisions wait for a worker by the moment their move is due, not by arrival: a
    good table's decision due soon is not held behind strong tables' due later (issue
    25). One worker, held busy; three decisions queued, the latest due first in."""
    import asyncio
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from app.pools import ComputerPool

    started: list[float] = []
    gate = threading.Event()

    async def scenario() -> None:
        thinking = ComputerPool(lambda: ThreadPoolExecutor(1), 1)
        now = asyncio.get_running_loop().time()
        busy = asyncio.ensure_future(thinking.run(gate.wait, now))
        queued = [asyncio.ensure_future(thinking.run(lambda d=d: started.append(d), now + d))
                  for d in (3.0, 2.0, 0.5)]
        await asyncio.sleep(0.05)
        assert started == [] and thinking.running == 1
        gate.set()
        await asyncio.gather(busy, *queued)
        thinking.shutdown()

    asyncio.run(scenario())
    assert started == [0.5, 2.0, 3.0]  # earliest deadline first, whatever the arrival
