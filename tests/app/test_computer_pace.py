"""The computer's pace at the table (issue 27): a trick it won stays in view before its
next lead unless the person goes on, and its later declaring steps come quicker. Every
wait is a function of what both seats have seen, never of the cards."""

from __future__ import annotations

import asyncio
import random

from fastapi.testclient import TestClient
from tablekit import SeatSocket, new_room

import engine
from app.computer_seat import COMPUTER_SEAT, ComputerSeat, Pace
from app.protocol import ComputerLevel


def seat(level: ComputerLevel = "basic", strong: float = 0.0) -> ComputerSeat:
    pace = Pace(delay=0.6, exchange_delay=3.0, lead_delay=1.5, trick_hold=2.5,
                declare_delay=0.4, strong=strong)
    return ComputerSeat(None, None, pace, level=level)  # type: ignore[arg-type]


def pauses(computer: ComputerSeat, seeds: range) -> dict[tuple[str, bool, bool], set[float]]:
    """Each wait asked for, by step, whether a trick was played and whether the computer
    had spoken this deal, over random parties."""
    found: dict[tuple[str, bool, bool], set[float]] = {}
    for seed in seeds:
        rng = random.Random(seed)
        s = engine.new_partie(seed=seed)
        for _ in range(400):
            if s.step is engine.Step.PARTIE_OVER:
                break
            v = engine.view(s, COMPUTER_SEAT)
            if v["to_move"] == COMPUTER_SEAT:
                role = v["role"] or "elder"
                spoke = any(d["said"] and any(line.startswith(role.capitalize())
                                              for line in d["said"])
                            for d in v["declarations"])
                key = (v["step"], bool(v["tricks"]), spoke)
                found.setdefault(key, set()).add(computer.pause(v))
            mover = s.to_move if s.to_move is not None else 0
            entries = [e for e in engine.view(s, mover)["legal"] if e["type"] != "see"]
            entry = dict(rng.choice(entries))
            entry.pop("label")
            entry.pop("say", None)
            if entry["type"] == "discard":
                entry = {"type": "discard", "cards": engine.view(s, mover)["hand"][:entry["min"]]}
            s = engine.apply(s, mover, entry)
    return found


DECLARING = ("elder_call", "younger_answer", "elder_lesser", "younger_call", "younger_lesser")


def test_each_wait_depends_on_what_was_seen_never_on_the_cards() -> None:
    for computer, usual in ((seat(), 0.6), (seat(level="strong", strong=1.5), 1.5)):
        found = pauses(computer, range(8))
        assert all(len(waits) == 1 for waits in found.values()), found
        assert found[("lead", False, True)] == {1.5}  # the deal's first lead: the lead delay
        assert found[("lead", True, True)] == {2.5}  # after a trick it won: the hold
        assert {w for (step, _, _), ws in found.items() if step == "follow" for w in ws} == {
            usual}
        assert found[("elder_exchange", False, False)] == {3.0}  # time for her carte blanche
        assert found.get(("choose_dealer", False, False), {1.5}) == {1.5}  # the cut seen
        for (step, _, spoke), waits in found.items():
            if step in DECLARING:  # its first word at its usual pace, the rest quicker
                assert waits == ({0.4} if spoke else {usual}), (step, spoke, waits)


def test_going_on_ends_the_hold_but_not_the_levels_own_pace() -> None:
    async def scenario() -> tuple[float, float, float]:
        loop = asyncio.get_running_loop()
        computer = ComputerSeat(None, None, Pace(delay=0.2, trick_hold=30.0))  # type: ignore[arg-type]
        held = {"to_move": COMPUTER_SEAT, "step": "lead", "tricks": [{"winner": 1}]}
        # Went on at once: it still waits out its usual pace (0.2 s), not the 30 s hold.
        wait = computer.pause(held)
        started = loop.time()
        task = asyncio.create_task(computer.sleep(wait))
        await asyncio.sleep(0)
        computer.go_on()
        await task
        went_on = loop.time() - started
        # A word from before this wait began is not carried into it.
        computer.go_on()
        wait = computer.pause(held)
        task = asyncio.create_task(computer.sleep(wait))
        await asyncio.sleep(0.3)
        still_waiting = 0.0 if task.done() else 1.0
        computer.go_on()
        await task
        return went_on, still_waiting, wait

    went_on, still_waiting, wait = asyncio.run(scenario())
    assert wait == 30.0
    assert 0.19 <= went_on < 30.0
    assert still_waiting == 1.0


def test_go_on_changes_nothing_and_a_watcher_may_not_send_it(client: TestClient) -> None:
    """`go_on` is never answered (it changes nothing); from a watcher it is not_allowed;
    a wrong shape is bad_message (docs/protocol.md)."""
    made = new_room(client, "computer")
    person = SeatSocket(client, made["room_id"], made["token"])
    person.connect()
    version = person.version
    got = person.answers({"type": "go_on", "version": version})
    assert [f for f in got if f["type"] == "error"] == []  # (a state is the computer's move)
    person.send({"type": "go_on", "version": version, "id": "x"})
    assert "id" in person.refused("bad_message")["message"]
    watcher = SeatSocket(client, made["room_id"], None, watch=True)
    watcher.connect()
    watcher.send({"type": "go_on", "version": watcher.version})
    watcher.refused("not_allowed")


def test_a_wait_ends_when_the_table_moves_on_and_not_otherwise() -> None:
    """The computer waits out its pace for the state it answers (say, to ask to see a
    combination while the person is to move). If the person moves meanwhile, that wait
    ends at once and the new state is answered a whole pace after it, not after the rest
    of the old wait too (which made one answer in a hundred a whole pace late). A poke
    that changed nothing (a person came to the table) ends nothing."""

    class Table:
        state = engine.new_partie(seed=1)

    async def scenario() -> None:
        table = Table()
        computer = seat()
        computer.room = table  # type: ignore[assignment]
        asked: list[float] = []

        async def held(seconds: float) -> None:  # a wait that never ends by itself
            asked.append(seconds)
            await asyncio.Event().wait()

        computer.sleep = held
        old = table.state
        waiting = asyncio.create_task(computer._wait_out(1.5, old))
        computer._task = waiting  # (as when `_run` waits: a poke then wakes it)
        for _ in range(5):
            await asyncio.sleep(0)
        computer.poke()  # nothing changed
        for _ in range(5):
            await asyncio.sleep(0)
        assert not waiting.done() and len(asked) == 2 and asked[0] == 1.5
        assert 0 < asked[1] <= 1.5  # the rest of the same wait
        table.state = engine.new_partie(seed=2)  # the person moved: another state
        computer.poke()
        await asyncio.wait_for(waiting, 5)  # over at once, though no wait ran out

    asyncio.run(scenario())
