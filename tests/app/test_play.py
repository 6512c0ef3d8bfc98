"""Complete parties over the real protocol: two scripted seats, and one seat against
the computer. Every action is chosen from the view's `legal`."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tablekit import (
    History,
    SeatSocket,
    TestClient,
    computer_done,
    first_legal,
    join,
    new_room,
    play_computer_partie,
    play_friend_partie,
    promised_states,
    room_of,
    serve,
)

import engine
import engine.computer  # the real policy: if it will not import, these tests fail


def seats(client: TestClient) -> tuple[SeatSocket, SeatSocket]:
    made = new_room(client, "friend")
    joined = join(client, made["room_id"])
    a = SeatSocket(client, made["room_id"], made["token"])
    b = SeatSocket(client, made["room_id"], joined["token"])
    a.connect()
    b.connect()
    a.expect("presence")  # b arrived
    return a, b


def test_two_seats_play_a_complete_partie(client: TestClient) -> None:
    a, b = seats(client)
    assert (a.seat, b.seat) == (0, 1)
    assert a.version == b.version == 2  # the cut is made again once both are seated
    steps = play_friend_partie(a, b, random.Random(1))
    first_dealer = room_of(a.client, a.room_id).state.first_dealer
    assert first_dealer is not None
    assert steps > 50
    result = a.view["result"]
    assert result is not None and result == b.view["result"]
    assert a.view["scores"]["partie"] == b.view["scores"]["partie"]
    # Versions grew by exactly one per action.
    assert a.version == 2 + steps
    # A friend's table offers "Play again" only now, and needs both seats to press it.
    assert a.state["room"]["can_new_match"] is True
    a.send({"type": "new_match", "version": a.version, "id": "again"})
    asked = a.expect("state")
    assert b.expect("state")["room"]["rematch"] == asked["room"]["rematch"] == [0]
    assert asked["view"]["phase"] == "partie_over"  # nothing starts on one press
    a.send({"type": "new_match", "version": a.version, "id": "again2"})
    a.refused("not_allowed")
    b.send({"type": "new_match", "version": b.version, "id": "again"})
    fresh = b.expect("state")
    a.expect("state")
    assert fresh["version"] == 4 + steps
    assert fresh["log_reset"] is True  # the log starts over
    assert fresh["room"]["can_new_match"] is False and fresh["room"]["rematch"] == []
    # No cut this time: the other seat deals first.
    assert fresh["view"]["deal_number"] == 1
    assert fresh["view"]["dealer"] == 1 - first_dealer


def test_each_socket_gets_each_log_line_once_and_keeps_the_views_log(
    client: TestClient, history: History
) -> None:
    a, b = seats(client)
    room = room_of(client, a.room_id)
    kept: dict[int, list[object]] = {}
    resets = 0

    def check(sock: SeatSocket, frame: dict[str, Any]) -> None:
        nonlocal resets
        if frame["type"] != "state":
            return
        assert "log" not in frame["view"]  # sent once, as new_log
        seat = sock.seat
        if frame["log_reset"]:
            resets += 1
            kept[seat] = list(frame["new_log"])
        else:
            kept[seat] = kept[seat] + frame["new_log"]
        state = history.at(room, frame["version"])
        assert kept[seat] == engine.view(state, seat)["log"]

    # The first state of a socket is a reset; later ones add only what is new.
    for sock in (a, b):
        kept[sock.seat] = list(sock.state["new_log"])
        assert sock.state["log_reset"] is True
    a.on_frame = b.on_frame = check
    play_friend_partie(a, b, random.Random(2))
    assert 2 * 6 <= resets <= 2 * 9  # once per deal and seat (and the cut's end)


def test_new_match_at_a_friend_table_waits_for_the_end(client: TestClient) -> None:
    a, _b = seats(client)
    a.send({"type": "new_match", "version": a.version, "id": "n1"})
    a.refused("not_allowed")
    assert a.version == 2


def test_new_match_at_the_computer_table_any_time(client: TestClient) -> None:
    made = new_room(client, "computer")
    human = SeatSocket(client, made["room_id"], made["token"])
    human.connect()
    room = room_of(client, made["room_id"])
    first_seed = room.state.seed
    play_computer_partie(human, random.Random(3), until=lambda view: view["deal_number"] > 0)
    for attempt in range(20):  # the computer may move meanwhile: then try again
        before = human.version
        got = human.answers({"type": "new_match", "version": before, "id": f"n{attempt}"})
        if not promised_states(got):
            break
        assert [f["code"] for f in got if f["type"] == "error"] == ["stale_version"], got
    fresh = [f for f in got if f["type"] == "state" and f["view"]["deal_number"] == 0]
    assert fresh, got
    frame = fresh[0]
    assert frame["view"]["phase"] == "cut" and frame["version"] == before + 1
    assert room.state.seed != first_seed  # a different hand
    assert frame["room"]["can_new_match"] is True


def test_every_room_opens_on_a_different_hand(templates_dir: Path) -> None:
    # The real seed source (secrets), not the tests' seeded one.
    with serve(templates_dir) as client:
        seeds = {room_of(client, new_room(client, "friend")["room_id"]).state.seed
                 for _ in range(5)}
        assert len(seeds) == 5


def test_one_seat_plays_a_complete_partie_against_the_stand_in_computer(
    client: TestClient,
) -> None:
    made = new_room(client, "computer")
    human = SeatSocket(client, made["room_id"], made["token"])
    human.connect()
    assert human.state["room"]["seats"][1] == {"name": "Computer", "computer": True,
                                               "joined": True, "connected": True}
    actions = play_computer_partie(human, random.Random(5))
    assert actions > 20
    assert human.view["result"] is not None


def test_one_seat_plays_a_complete_partie_against_the_computer(templates_dir: Path) -> None:
    with serve(templates_dir) as client:  # the real policy: engine.computer.choose
        made = new_room(client, "computer")
        human = SeatSocket(client, made["room_id"], made["token"])
        human.connect()
        computer = room_of(client, made["room_id"]).computer
        assert computer is not None and computer.policy is engine.computer.choose
        play_computer_partie(human, random.Random(6))
        assert human.view["result"] is not None
        assert human.view["scores"]["sheet"]  # six (or eight) deals were scored


def test_the_computer_leaves_deal_next_hand_to_the_person(templates_dir: Path) -> None:
    def eager(view: dict[str, object]) -> dict[str, object]:
        """Would press "Deal next hand" whenever it is offered."""
        legal = view["legal"]
        assert isinstance(legal, list)
        for entry in legal:
            if entry["type"] == "next_deal":
                return {"type": "next_deal"}
        return first_legal(view)

    with serve(templates_dir, policy=eager) as client:
        made = new_room(client, "computer")
        human = SeatSocket(client, made["room_id"], made["token"])
        human.connect()
        play_computer_partie(human, random.Random(8),
                             until=lambda view: view["phase"] == "deal_over")
        computer_done(human, room_of(client, made["room_id"]))  # its last `see`s, if any
        version = human.version
        assert any(e["type"] == "next_deal" for e in human.view["legal"])
        assert room_of(client, made["room_id"]).version == version  # it waits for the person
        human.act({"type": "next_deal"})
        assert human.expect("state")["view"]["deal_number"] == 2
