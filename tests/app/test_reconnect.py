"""A dropped socket rejoins the same seat with the same view; the other seat sees it go
and come back (issue 4)."""

from __future__ import annotations

import random

from tablekit import SeatSocket, TestClient, friend_seats, join, new_room, next_move, room_of


def test_reconnect_mid_deal_gets_the_same_view(client: TestClient) -> None:
    room_id, a, b = friend_seats(client)
    a.connect()
    b.connect()
    # The friend is named as they sat down (a guest's name: they gave none).
    friend = room_of(client, room_id).options.names[1]
    assert friend.startswith("Guest ")
    assert a.expect("presence")["seats"][1] == {"name": friend, "joined": True,
                                               "connected": True}
    rng = random.Random(11)
    while a.view["phase"] not in ("declare", "play"):  # well into the first deal
        who, action = next_move(a, b, rng)
        who.act(action)
        a.expect("state")
        b.expect("state")
    last = b.state
    b.close()
    gone = a.expect("presence")
    assert gone["seats"] == [{"name": "You", "you": True, "joined": True, "connected": True},
                             {"name": friend, "joined": True, "connected": False,
                              "away": 0}]
    assert room_of(client, room_id).version == last["version"]

    again = b.connect()
    assert again["version"] == last["version"]
    assert again["view"] == last["view"]  # the same view: nothing lost
    assert again["new_log"] == again["view"]["log"]  # a fresh socket gets the whole log
    assert again["room"]["seats"][0]["connected"] is True
    back = a.expect("presence")
    assert back["seats"][1]["connected"] is True
    # And the deal goes on.
    who, action = next_move(a, b, rng)
    who.act(action)
    assert a.expect("state")["version"] == b.expect("state")["version"] == last["version"] + 1


def test_reconnect_after_missing_changes_gets_the_latest_state(client: TestClient) -> None:
    _, a, b = friend_seats(client)
    a.connect()
    b.connect()
    a.expect("presence")
    rng = random.Random(12)
    b.close()
    a.expect("presence")
    # Seat 0 may not be able to move alone for long, but whatever it can do, it does.
    moved = 0
    while a.view["to_move"] == 0 and a.view["legal"] and moved < 5:
        a.act(next_move(a, a, rng)[1])
        a.expect("state")
        moved += 1
    again = b.connect()
    assert again["version"] == a.version
    assert again["view"]["step"] == a.view["step"]


def test_two_windows_of_one_seat_both_get_states(client: TestClient) -> None:
    made = new_room(client, "friend")
    room_id = made["room_id"]
    a1 = SeatSocket(client, room_id, made["token"])
    a2 = SeatSocket(client, room_id, made["token"])
    b = SeatSocket(client, room_id, join(client, room_id)["token"])
    a1.connect()
    b.connect()
    a1.expect("presence")
    a2.connect()
    assert a2.seat == 0
    rng = random.Random(13)
    who, action = next_move(a1, b, rng)
    who.act(action)
    assert a1.expect("state")["version"] == a2.expect("state")["version"] == 3
    b.expect("state")
    # One window closing leaves the seat connected.
    a2.close()
    presence = b.expect("presence")
    assert presence["seats"][0]["connected"] is True
