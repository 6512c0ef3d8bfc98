"""Rooms beyond one partie between two seats (issue 17): the cut made once both are
seated, a waiting seat given to the computer, "Play again" by both, and watchers, who see
only what is public (their frames go through the same leak check as the seats')."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from tablekit import (
    History,
    LeakCheck,
    SeatSocket,
    TestClient,
    first_legal,
    friend_seats,
    join,
    new_room,
    next_move,
    play_computer_partie,
    play_friend_partie,
    room_of,
    serve,
)

import engine
from app import room as room_module
from app.computer_seat import COMPUTER_SEAT, ComputerSeat
from app.protocol import CLOSE_POLICY
from app.seating import MAX_WATCHERS

# --- the cut --------------------------------------------------------------------------


def test_a_friends_table_cuts_when_both_are_seated(templates_dir: Path) -> None:
    seeds = iter([101, 202, 303])
    with serve(templates_dir, new_seed=lambda: next(seeds)) as client:
        made = new_room(client, "friend")
        maker = SeatSocket(client, made["room_id"], made["token"])
        maker.connect()
        assert maker.version == 1
        room = room_of(client, made["room_id"])
        join(client, made["room_id"])
        fresh = maker.expect("state")
        # The partie starts again now, with a cut of its own: the one made with the room
        # was decided while the page still said "Waiting for your friend".
        assert fresh["version"] == 2 and fresh["log_reset"] is True
        assert room.state.seed == 202
        cut = engine.new_partie(seed=202).cut
        assert cut is not None
        assert fresh["view"]["cut"]["cards"] == [c.code for c in cut]
        assert maker.expect("presence")["seats"][1]["joined"] is True


# --- a friend who never comes: the computer takes the seat ----------------------------


def computer_seat_message(sock: SeatSocket, level: str = "basic") -> dict[str, object]:
    return {"type": "computer_seat", "version": sock.version, "id": sock.next_id(),
            "level": level}


def test_a_waiting_seat_goes_to_the_computer_without_a_new_link(client: TestClient) -> None:
    made = new_room(client, "friend")
    maker = SeatSocket(client, made["room_id"], made["token"])
    maker.connect()
    before = maker.version
    maker.send(computer_seat_message(maker))
    fresh = maker.expect("state")
    assert fresh["version"] == before + 1 and fresh["log_reset"] is True
    assert fresh["room"]["opponent"] == "computer"
    assert fresh["room"]["seats"][COMPUTER_SEAT] == {
        "name": "Computer", "computer": True, "joined": True, "connected": True}
    room = room_of(client, made["room_id"])
    assert isinstance(room.computer, ComputerSeat) and room.computer.level == "basic"
    # The computer plays its part: a deal goes on to its tricks.
    play_computer_partie(maker, random.Random(7),
                         until=lambda v: v["phase"] == "play" or v["deal_number"] > 1)
    # The link no longer finds a free seat.
    assert client.post(f"/api/rooms/{made['room_id']}/join").status_code == 409


def test_only_the_maker_of_a_waiting_table_may_give_its_seat(client: TestClient) -> None:
    _, a, b = friend_seats(client)
    a.connect()
    b.connect()
    for sock in (a, b):  # the friend came: too late
        sock.send(computer_seat_message(sock))
        frame = sock.recv()
        while frame["type"] != "error":
            frame = sock.recv()
        assert frame["code"] == "not_allowed"
    made = new_room(client, "computer")
    human = SeatSocket(client, made["room_id"], made["token"])
    human.connect()
    human.send(computer_seat_message(human))
    assert human.refused("not_allowed")
    made = new_room(client, "friend")
    maker = SeatSocket(client, made["room_id"], made["token"])
    maker.connect()
    maker.send(computer_seat_message(maker, level="grandmaster"))
    assert "level" in maker.refused("bad_message")["message"]
    assert room_of(client, made["room_id"]).opponent == "friend"


# --- the computer's pace --------------------------------------------------------------


# --- watchers -------------------------------------------------------------------------


def test_a_watcher_sees_the_table_but_no_hand(client: TestClient) -> None:
    room_id, a, b = friend_seats(client)
    a.connect()
    b.connect()
    a.expect("presence")
    watcher = SeatSocket(client, room_id, None, watch=True)
    first = watcher.connect()
    assert first["room"]["seat"] is None and first["room"]["can_new_match"] is False
    view = first["view"]
    assert view["hand"] == [] and view["legal"] == [] and view["seat"] is None
    # Both seats by their names (guests' here: neither gave one).
    names = list(room_of(client, room_id).options.names)
    assert [s["name"] for s in first["room"]["seats"]] == names
    assert all(name.startswith("Guest ") for name in names) and names[0] != names[1]
    # Both seats see how many watch.
    for sock in (a, b):
        assert sock.expect("presence")["watchers"] == 1
    # A watcher cannot play.
    watcher.send({"type": "action", "version": watcher.version, "id": "w1",
                  "action": {"type": "pass"}})
    assert "watching" in watcher.refused("not_allowed")["message"]
    watcher.close()
    for sock in (a, b):
        assert sock.expect("presence")["watchers"] == 0


@pytest.mark.parametrize("seed", [41, 42])
def test_no_leak_to_watchers_over_a_partie(
    client: TestClient, history: History, seed: int
) -> None:
    """Two watchers (one arriving mid-partie) get every change, and only public things."""
    room_id, a, b = friend_seats(client)
    check = LeakCheck(client, room_id, history)
    a.on_frame = b.on_frame = check
    a.connect()
    b.connect()
    a.expect("presence")
    w1 = SeatSocket(client, room_id, None, watch=True, on_frame=check)
    w1.connect()
    a.expect("presence")
    b.expect("presence")
    rng = random.Random(seed)
    w2: SeatSocket | None = None

    def between(step: int) -> None:
        nonlocal w2
        # Each watcher reads what the last action sent it.
        for w in (w1, w2):
            if w is not None and step:
                w.expect("state")
        if step == 120:
            w2 = SeatSocket(client, room_id, None, watch=True, on_frame=check)
            w2.connect()
            a.expect("presence")
            b.expect("presence")
            w1.expect("presence")

    play_friend_partie(a, b, rng, between=between)
    for w in (w1, w2):
        assert w is not None
        w.expect("state")
        assert w.view["phase"] == "partie_over" and w.view["result"] == a.view["result"]
    assert check.frames > 300


def test_the_watcher_check_catches_a_view_that_leaks(
    client: TestClient, history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    honest = engine.public_view

    def leaky(state: engine.State, **options: bool) -> dict[str, object]:
        return {**honest(state, **options), "peek": [str(c) for c in state.hands[0]]}

    monkeypatch.setattr(engine, "public_view", leaky)
    room_id, a, b = friend_seats(client)
    a.connect()
    b.connect()
    a.expect("presence")
    who, action = next_move(a, b, random.Random(1))  # the cut's winner chooses: a deal
    who.act(action)
    a.expect("state")
    b.expect("state")
    watcher = SeatSocket(client, room_id, None, watch=True,
                         on_frame=LeakCheck(client, room_id, history))
    with pytest.raises(AssertionError, match="was sent"):
        watcher.connect()


def test_a_watcher_is_told_when_too_many_watch(client: TestClient) -> None:
    room_id, a, b = friend_seats(client)
    a.connect()
    b.connect()
    watchers = []
    for _ in range(MAX_WATCHERS):
        w = SeatSocket(client, room_id, None, watch=True)
        w.connect()
        watchers.append(w)
    extra = SeatSocket(client, room_id, None, watch=True)
    extra.open()
    code, reason = extra.expect_closed()
    assert code == CLOSE_POLICY and "watching" in reason


def test_a_computer_table_may_be_watched(templates_dir: Path) -> None:
    with serve(templates_dir, policy=first_legal) as client:
        made = new_room(client, "computer")
        human = SeatSocket(client, made["room_id"], made["token"])
        human.connect()
        watcher = SeatSocket(client, made["room_id"], None, watch=True)
        watcher.connect()
        maker = room_of(client, made["room_id"]).options.names[0]
        assert [s["name"] for s in watcher.state["room"]["seats"]] == [maker, "Computer"]
        assert human.expect("presence")["watchers"] == 1


def test_the_computer_chooses_the_dealer_only_once_the_cut_can_be_seen(
    templates_dir: Path,
) -> None:
    """It won the cut: it waits for the person's page to be connected (then its usual
    pause), so the person sees both cut cards and who won before the first deal."""
    seed = next(s for s in range(100) if engine.new_partie(seed=s).cut_winner == COMPUTER_SEAT)
    with serve(templates_dir, new_seed=lambda: seed, policy=first_legal) as client:
        made = new_room(client, "computer")
        room = room_of(client, made["room_id"])
        for _ in range(5):  # the computer's task has every chance to run meanwhile
            assert client.get("/healthz").status_code == 200
        assert room.state.step is engine.Step.CHOOSE_DEALER and room.version == 1
        human = SeatSocket(client, made["room_id"], made["token"])
        first = human.connect()
        assert first["view"]["cut"]["winner"] == COMPUTER_SEAT  # drawn by the page
        dealt = human.expect("state")
        assert dealt["view"]["deal_number"] == 1
        assert dealt["new_log"][0]["kind"] == "deal"


# --- a table left alone keeps its state, not its views' working -------------------------


def test_a_table_left_alone_forgets_its_views_working_and_plays_on(
    templates_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody acts for TRIM_SECONDS: the room drops what its views worked out (memory at
    5,000 tables, issue 14), and every state sent after that is still the seat's true
    view, worked out afresh."""
    monkeypatch.setattr(room_module, "TRIM_SECONDS", 0.05)
    history = History()
    wrong: list[int] = []

    def check(sock: SeatSocket, frame: dict[str, Any]) -> None:
        if frame["type"] != "state":
            return
        state = history.at(room_of(sock.client, sock.room_id), frame["version"]).copy()
        state.__dict__["carried"] = {}  # nothing carried over: worked out from scratch
        if {k: v for k, v in frame["view"].items() if k != "log"} != engine.view(
                state, sock.seat, log=False):
            wrong.append(frame["version"])

    seeds = iter(range(500, 600))
    with serve(templates_dir, history=history, new_seed=lambda: next(seeds)) as client:
        room_id, a, b = friend_seats(client)
        a.on_frame = b.on_frame = check
        a.connect()
        b.connect()
        room = room_of(client, room_id)
        trims = 0

        def now_and_then(step: int) -> None:
            nonlocal trims
            if step % 25 != 3:
                return
            for _ in range(500):  # (up to 5 s: the timer is 0.05 s)
                if not room.state.carried and not room.state.view_memo:
                    trims += 1
                    return
                time.sleep(0.01)
            raise AssertionError(f"not trimmed after 5 s: {sorted(room.state.carried)}")

        play_friend_partie(a, b, random.Random(5), between=now_and_then)
        assert trims >= 5
        assert not wrong
