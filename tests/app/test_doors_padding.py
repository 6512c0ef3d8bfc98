"""Frame sizes (issue 25 §3): an eavesdropper on the encrypted stream reads each frame's
length. Unpadded, a seat's state grew ~50 bytes per card it could play, so the follower's
state told how many cards it held in the suit led. Every state a seat gets is padded to
a length worked out from public information alone (app/padding.py): two deals that differ
only in hidden cards give frames of the same sizes, both seats', at every step."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
from tablekit import SeatSocket, TestClient, friend_seats, room_of

import engine
from app.padding import view_ceiling
from engine.rules import DiscardRule
from tests.engine.kit import ELDER, YOUNGER
from tests.engine.test_noninterference import matching, twin_deal


class Measured(SeatSocket):
    """A seat's socket that notes the size in bytes of every frame it gets, by type."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.sizes: list[tuple[str, int]] = []

    def raw(self, timeout: float = 10) -> dict[str, Any]:
        message = super().raw(timeout)
        if message["type"] == "websocket.send":
            self.sizes.append((orjson.loads(message["text"])["type"],
                               len(message["text"].encode())))
        return message

    def state_sizes(self) -> list[int]:
        return [n for kind, n in self.sizes if kind == "state"]


def table(client: TestClient, state: engine.State) -> tuple[Measured, Measured]:
    """A friend's table dealt `state`, both seats connected (seat 0 first)."""
    room_id, a, b = friend_seats(client)
    room = room_of(client, room_id)
    room.state = state  # (dealt by the test, not by a move: the sockets are handed it)
    room.seating.tell(room.snapshot(room.journal.receipt(room.version)))
    seats = (Measured(client, room_id, a.token), Measured(client, room_id, b.token))
    for seat in seats:
        seat.connect()
    return seats


def pick(s: engine.State, seat: int, rng: random.Random, take: int) -> engine.Action:
    options = [x for x, _ in engine.legal(s, seat) if not isinstance(x, engine.CarteBlanche)]
    rule = next((x for x in options if isinstance(x, DiscardRule)), None)
    if rule is not None:
        return engine.Discard(tuple(rng.sample(s.hands[seat], min(max(take, rule.min),
                                                                  rule.max))))
    return rng.choice(options)


def lockstep_sizes(client: TestClient, rng: random.Random) -> int:
    """One pair of twin deals played side by side at two tables; returns the steps at
    which every frame's size was compared."""
    secret = rng.choice((ELDER, YOUNGER))
    n = rng.randint(1, 5)
    takes = (n, rng.randint(1, 8 - n))
    a, b = twin_deal(rng, secret, takes, expose=False)
    tables = (table(client, a), table(client, b))
    steps = 0
    while True:
        for seat in (0, 1):
            sizes = [t[seat].state_sizes() for t in tables]
            assert sizes[0] == sizes[1], f"seat {seat}'s states differ in size: {sizes}"
        if a.step in (engine.Step.DEAL_OVER, engine.Step.PARTIE_OVER):
            return steps
        mover = a.to_move
        assert mover is not None
        action = pick(a, mover, rng, takes[0] if mover == a.elder else takes[1])
        twin = matching(a, b, mover, action, rng) if mover == secret else action
        if twin is None:
            return steps  # the secret seat cannot say the same in deal B: public differs
        if isinstance(action, engine.See) and a.combos[action.combo] != b.combos[action.combo]:
            return steps  # a combination comes to light: rightly different
        for seats, act in ((tables[0], action), (tables[1], twin)):
            sock = seats[mover]
            sock.act(act.to_json())
            sock.expect("state")
            seats[1 - mover].expect("state")
        a = engine.apply(a, mover, action)
        b = engine.apply(b, mover, twin)
        steps += 1


def test_frames_are_as_long_whatever_the_hidden_cards(client: TestClient) -> None:
    rng = random.Random(2512)
    steps = [lockstep_sizes(client, rng) for _ in range(30)]
    assert sum(steps) >= 150, steps  # not a vacuous pass: well into the tricks


def test_a_watchers_state_is_not_padded_and_a_seats_is(client: TestClient) -> None:
    room_id, a, b = friend_seats(client)
    a.connect()
    b.connect()
    watcher = Measured(client, room_id, None, watch=True)
    frame = watcher.connect()
    assert "pad" not in frame
    first = a.frames[0]
    assert set(first["pad"]) <= {" "}


def test_the_ceiling_bounds_every_view_of_random_parties() -> None:
    """app/padding.py's ceiling is never below a seat's real view (else the frame would be
    padded coarsely, and a warning logged), over random parties played from `legal`."""
    rng = random.Random(77)
    checked = 0
    for _ in range(6):
        s = engine.new_partie(seed=rng.randrange(1 << 30))
        while s.step is not engine.Step.PARTIE_OVER:
            public = engine.public_view(s, log=False)
            for seat in (0, 1):
                view = len(orjson.dumps(engine.view(s, seat, log=False)))
                assert view <= view_ceiling(public, seat), (s.step.word, seat)
                checked += 1
            seat = next(x for x in (s.to_move, 0, 1) if x is not None and engine.legal(s, x))
            action, _ = rng.choice(engine.legal(s, seat))
            if isinstance(action, DiscardRule):
                action = engine.Discard(tuple(rng.sample(s.hands[seat], action.max)),
                                        action.expose_choice)
            s = engine.apply(s, seat, action)
    assert checked > 1000


@pytest.mark.parametrize("hand, category", [
    ("AS KS QS JS 10S 9S 8S 7S AH KH QH JH", "sequence"),  # a huitième and a quart
    ("AS AH AC AD KS KH KC KD QS QH QC QD", "set"),  # three quatorzes
    ("AS KS QS JS 10S 9S 8S 7S AH KH QH JH", "point"),
])
def test_the_ceiling_bounds_the_most_calls_a_hand_offers(hand: str, category: str) -> None:
    from app.padding import most_calls
    from engine.cards import parse_cards
    from engine.combos import Category, natural_calls

    calls = natural_calls(Category.from_word(category), parse_cards(hand.split()))
    entries = [{"type": "call", "category": category, "cards": [c.code for c in x.cards],
                "label": x.label} for x in calls]
    assert sum(len(orjson.dumps(e)) + 1 for e in entries) <= most_calls(
        Category.from_word(category))
