"""No frame sent to a seat holds a card that seat may not see by RULES.md: the
opponent's hand and discards and the unseen stock. Checked on every frame, the first
after each (re)connect and every log line included, against the room's engine State
at that frame's version."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from tablekit import (
    History,
    LeakCheck,
    SeatSocket,
    TestClient,
    checked_friend_partie,
    forbidden_cards,
    friend_seats,
    leaks_in,
    new_room,
    play_computer_partie,
    play_friend_partie,
    room_of,
    serve,
)

import engine
import engine.computer  # the real policy: if it will not import, these tests fail


def test_the_checker_sees_a_leak() -> None:
    state = engine.new_partie(seed=3, first_dealer=1)
    hidden = forbidden_cards(state, 0)
    assert len(hidden) == 20  # twelve in the other hand, eight in the stock
    card = sorted(hidden, key=str)[0]
    assert leaks_in(f'{{"hand": ["{card}"]}}', hidden) == {str(card)}
    assert leaks_in(f"Plays the {card.name}", hidden) == {card.name}
    assert leaks_in(f"Shows a tierce: {card} X", hidden) == {str(card)}
    assert not leaks_in(str(engine.view(state, 0)["hand"]), hidden)


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_no_leak_between_two_seats_over_a_partie(
    client: TestClient, history: History, seed: int
) -> None:
    _, frames = checked_friend_partie(client, history, random.Random(seed), reconnect_rate=0.04)
    assert frames > 200


def test_no_leak_to_the_person_playing_the_computer(templates_dir: Path) -> None:
    history = History()
    seeds = random.Random(31)
    with serve(templates_dir, history=history,
                              new_seed=lambda: seeds.getrandbits(64)) as client:
        for _ in range(2):
            made = new_room(client, "computer")
            check = LeakCheck(client, made["room_id"], history)
            human = SeatSocket(client, made["room_id"], made["token"], on_frame=check)
            human.connect()
            computer = room_of(client, made["room_id"]).computer
            assert computer is not None and computer.policy is engine.computer.choose
            play_computer_partie(human, random.Random(32))
            assert check.frames > 50


def test_the_check_catches_a_server_that_leaks(
    client: TestClient, history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same check against a server whose views carry the opponent's hand."""
    honest = engine.view

    def leaky(state: engine.State, seat: int, **options: bool) -> dict[str, object]:
        return {**honest(state, seat, **options),
                "peek": [str(c) for c in state.hands[1 - seat]]}

    monkeypatch.setattr(engine, "view", leaky)
    room_id, a, b = friend_seats(client)
    a.on_frame = b.on_frame = LeakCheck(client, room_id, history)
    with pytest.raises(AssertionError, match="was sent"):
        a.connect()
        b.connect()
        play_friend_partie(a, b, random.Random(5))


def test_a_room_id_that_looks_like_a_card_is_no_leak(
    client: TestClient, history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Room ids are random URL-safe text: one like "x-KD-..." names no card (a false
    alarm the 1,000-party run met)."""
    import app.registry

    # (16 characters, as the server makes them: any other id is refused.)
    monkeypatch.setattr(app.registry, "new_room_id", lambda: "KD-QH-10S-AC-7D-")
    room_id, a, b = friend_seats(client)
    assert "-QH-" in room_id
    check = a.on_frame = b.on_frame = LeakCheck(client, room_id, history)
    a.connect()
    b.connect()
    play_friend_partie(a, b, random.Random(24))
    assert check.frames > 200
