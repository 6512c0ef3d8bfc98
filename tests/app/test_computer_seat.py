"""The computer seat at the table: it announces carte blanche out of turn as younger,
and as elder it leaves a person holding carte blanche the time to announce it."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from tablekit import SeatSocket, computer_done, new_room, room_of, serve

import engine
from app.room import Room
from engine.cards import is_carte_blanche
from engine.state import Step


def seed_where(holder: int | None, dealer: int) -> int:
    """A seed whose first deal, `dealer` dealing, gives `holder` carte blanche (None:
    neither seat)."""
    for seed in range(1, 100_000):
        state = engine.new_partie(seed=seed)
        winner = state.cut_winner
        assert winner is not None
        if winner == 1 and dealer == 0:
            continue  # the computer, winning the cut, deals
        state = engine.apply(state, winner, {"type": "choose_dealer", "deal": winner == dealer})
        holders = [seat for seat in (0, 1) if is_carte_blanche(state.hands[seat])]
        if holders == ([] if holder is None else [holder]):
            return seed
    raise AssertionError("no such seed")


def deal_first(person: SeatSocket, dealer: int) -> None:
    """The person, if she won the cut, chooses `dealer` (the computer always deals)."""
    view = person.view
    if view["step"] == "choose_dealer" and view["to_move"] == 0:
        person.act({"type": "choose_dealer", "deal": dealer == 0})
    while person.view["step"] == "choose_dealer":
        person.expect("state")
    assert person.view["dealer"] == dealer


def test_as_younger_the_computer_announces_carte_blanche_during_the_persons_exchange(
    templates_dir: Path,
) -> None:
    seed = seed_where(holder=1, dealer=1)
    with serve(templates_dir, new_seed=lambda: seed) as client:
        made = new_room(client, "computer")
        person = SeatSocket(client, made["room_id"], made["token"])
        person.connect()
        deal_first(person, dealer=1)
        while not person.view["bonuses"]:
            person.expect("state")
        view = person.view
        assert view["bonuses"] == [{"seat": 1, "kind": "carte_blanche", "points": 10}]
        assert (view["step"], view["to_move"]) == ("elder_exchange", 0)  # still my exchange
        person.act({"type": "discard", "cards": view["hand"][:5]})
        while not person.view["shown"]:
            person.expect("state")
        shown = person.view["shown"][0]
        assert (shown["seat"], shown["what"], len(shown["cards"])) == (1, "Carte blanche", 12)


class Pace:
    """Stands in for the computer seat's sleep: notes each wait it asks for (with the
    step it waits in), and holds the wait before its exchange until `release`, so the
    person has all the time needed, whatever the machine's load (no time window)."""

    def __init__(self, person: SeatSocket, room: Room, hold_exchange: bool) -> None:
        assert room.computer is not None and person.ws is not None
        self.person, self.room = person, room
        self.waits: list[tuple[str, float]] = []
        # Each wait at elder's exchange: how long, and whether carte blanche had been
        # announced in the state it answers.
        self.at_exchange: list[tuple[float, bool]] = []
        self.gate = asyncio.Event()
        if not hold_exchange:
            self.gate.set()
        room.computer.sleep = self.sleep

    async def sleep(self, seconds: float) -> None:
        state = self.room.state
        at_exchange = state.step is Step.ELDER_EXCHANGE and state.to_move == 1
        self.waits.append((state.step.value, seconds))
        if at_exchange:
            self.at_exchange.append((seconds, bool(state.bonuses)))
            await self.gate.wait()
        await asyncio.sleep(0)

    def release(self) -> None:
        assert self.person.ws is not None
        self.person.ws.portal.call(self.gate.set)

    def before_exchange(self) -> list[float]:
        return [w for step, w in self.waits if step == Step.ELDER_EXCHANGE.value]

    def wait_after_announcement(self, patience: float = 30.0) -> list[tuple[float, bool]]:
        """The waits at the exchange, once the computer has begun one answering the state
        with carte blanche announced (it does so on the server's loop, after the person
        has been told: a moment later, or much later on a busy machine)."""
        deadline = time.monotonic() + patience
        while not (self.at_exchange and self.at_exchange[-1][1]):
            assert time.monotonic() < deadline, self.at_exchange
            time.sleep(0.01)
        return list(self.at_exchange)


EXCHANGE_DELAY = 3.0


def test_as_elder_the_computer_waits_so_a_person_holding_carte_blanche_can_announce_it(
    templates_dir: Path,
) -> None:
    seed = seed_where(holder=0, dealer=0)
    with serve(templates_dir, new_seed=lambda: seed,
               computer_exchange_delay=EXCHANGE_DELAY) as client:
        made = new_room(client, "computer")
        person = SeatSocket(client, made["room_id"], made["token"])
        person.connect()
        pace = Pace(person, room_of(client, made["room_id"]), hold_exchange=True)
        deal_first(person, dealer=0)
        view = person.view
        assert (view["role"], view["step"], view["to_move"]) == ("younger", "elder_exchange", 1)
        offer = [a for a in view["legal"] if a["type"] == "carte_blanche"]
        assert offer == [{"type": "carte_blanche", "announce": True, "label": "Carte blanche",
                          "say": {"code": "bonus.carte_blanche"}}]
        person.act({"type": "carte_blanche", "announce": True})
        frame = person.expect("state")
        assert frame["view"]["bonuses"] == [{"seat": 0, "kind": "carte_blanche", "points": 10}]
        assert frame["view"]["step"] == "elder_exchange"  # announced before elder exchanged
        # It had not exchanged: it was waiting (or about to), and the announcement, a
        # change of the table, gets a wait of its own: each state it answers gets its
        # whole pace. Whether the announcement came during its first wait or before it
        # began is the machine's timing: one wait or two, each the whole pace, the last
        # answering the announcement.
        waits = pace.wait_after_announcement()
        assert 1 <= len(waits) <= 2 and all(seconds == EXCHANGE_DELAY for seconds, _ in waits)
        assert waits[-1] == (EXCHANGE_DELAY, True)
        pace.release()
        while person.view["step"] == "elder_exchange":
            person.expect("state")
        assert person.view["shown"][0]["seat"] == 0  # proved once elder has exchanged


def test_the_computers_pace_before_its_exchange_is_the_same_without_carte_blanche(
    templates_dir: Path,
) -> None:
    """The wait is every deal's, not only when the person holds carte blanche: else the
    wait itself would tell the person something (docs/decisions.md)."""
    seed = seed_where(holder=None, dealer=0)
    with serve(templates_dir, new_seed=lambda: seed,
               computer_exchange_delay=EXCHANGE_DELAY) as client:
        made = new_room(client, "computer")
        person = SeatSocket(client, made["room_id"], made["token"])
        person.connect()
        pace = Pace(person, room_of(client, made["room_id"]), hold_exchange=False)
        deal_first(person, dealer=0)
        assert not any(a["type"] == "carte_blanche" for a in person.view["legal"])
        while person.view["step"] == "elder_exchange":
            person.expect("state")
        assert pace.before_exchange() == [EXCHANGE_DELAY]
        # Its other moves keep the plain pace (0 in tests).
        assert {w for step, w in pace.waits if step != Step.ELDER_EXCHANGE.value} <= {0}


def test_a_computer_seat_that_fails_stops_and_the_person_can_start_again(
    templates_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug in the computer's policy: it is logged, the computer stops rather than
    trying again and again, and the person's table still answers (a new match)."""
    asked: list[str] = []

    def broken(view: dict[str, object]) -> dict[str, object]:
        asked.append(str(view["step"]))
        raise RuntimeError("a bug in the policy")

    seed = next(s for s in range(1, 1000) if engine.new_partie(seed=s).cut_winner == 1)
    with caplog.at_level(logging.ERROR, logger="piquet.rooms"), \
            serve(templates_dir, new_seed=lambda: seed, policy=broken) as client:
        made = new_room(client, "computer")
        person = SeatSocket(client, made["room_id"], made["token"])
        person.connect()
        room = room_of(client, made["room_id"])
        computer_done(person, room)  # it won the cut, so it had to choose: and failed
        assert asked == ["choose_dealer"]  # once: it stopped
        assert room.version == person.version == 1
        assert "computer seat failed" in caplog.text and "a bug in the policy" in caplog.text
        got = person.answers({"type": "new_match", "version": 1, "id": "again"})
        assert [f["version"] for f in got if f["type"] == "state"][:1] == [2]
        assert room.match == 2
        computer_done(person, room)
        assert asked == ["choose_dealer", "choose_dealer"]  # the new match's cut: the same
