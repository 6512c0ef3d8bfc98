"""RULES.md §1 / DESIGN.md: given a seed and the action list, a partie replays exactly."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engine
from tests.engine.kit import random_action


def play_recorded(seed: int) -> tuple[engine.State, list[tuple[int, dict[str, Any]]]]:
    rng = random.Random(seed)
    s = engine.new_partie(seed=seed)
    record: list[tuple[int, dict[str, Any]]] = []
    while s.step is not engine.Step.PARTIE_OVER:
        seat = s.to_move if s.to_move is not None else 0
        action = random_action(s, seat, rng).to_json()
        record.append((seat, json.loads(json.dumps(action))))  # as it would cross the wire
        s = engine.apply(s, seat, action)
    return s, record


def test_a_seed_and_the_actions_replay_the_same_partie() -> None:
    for seed in range(5):
        final, record = play_recorded(seed)
        again = engine.replay(seed, record)
        assert again == final
        assert engine.view(again, 0) == engine.view(final, 0)


def test_different_seeds_deal_different_hands() -> None:
    hands = set()
    for seed in range(20):
        s = engine.new_partie(seed=seed, first_dealer=0)
        hands.add(tuple(s.hands[0]))
    assert len(hands) == 20


def test_the_same_seed_deals_the_same_hands() -> None:
    a = engine.new_partie(seed=99, first_dealer=1)
    b = engine.new_partie(seed=99, first_dealer=1)
    assert a.hands == b.hands and a.stock == b.stock


def test_each_deal_is_dealt_from_the_pack_its_action_brings() -> None:
    """A server draws each deal's pack when it is dealt (nothing knows a deal before):
    the action that deals brings it, no state keeps one, and the record of (seat,
    action, pack) replays the partie exactly."""
    rng = random.Random(5)
    s = engine.new_partie(seed=5)
    record: list[Any] = []
    packs = []
    while s.step is not engine.Step.PARTIE_OVER:
        seat = s.to_move if s.to_move is not None else 0
        action = random_action(s, seat, rng).to_json()
        pack = None
        if action["type"] in ("choose_dealer", "next_deal"):
            deck = list(engine.DECK)
            rng.shuffle(deck)
            pack = [c.code for c in deck]
            packs.append(pack)
        after = engine.apply(s, seat, action, pack=pack)
        assert after.pack is None
        if pack is not None:
            # Elder's first cards are the pack's first; the stock is its last eight.
            elder = after.elder
            assert elder is not None
            assert set(after.hands[elder]) >= {engine.Card.parse(c) for c in pack[:2]}
            assert [c.code for c in after.stock] == pack[24:]
            # Not the deal the seed would have made: the pack, not the seed, deals.
            assert engine.apply(s, seat, action).hands != after.hands
        record.append((seat, action, pack))
        s = after
    assert len(packs) >= 6
    assert engine.replay(5, record) == s


def test_a_pack_must_hold_the_32_cards() -> None:
    s = engine.new_partie(seed=1)
    with pytest.raises(ValueError, match="32 cards"):
        engine.apply(s, s.to_move or 0, {"type": "choose_dealer", "deal": True},
                     pack=["AS"] * 32)
    assert s.deal_number == 0


def test_a_deal_dealt_again_keeps_the_dealer_and_the_partie_score() -> None:
    s = engine.new_partie(seed=3, first_dealer=1)
    rng = random.Random(3)
    while s.deal_number < 2 or len(s.tricks) < 3:
        seat = s.to_move if s.to_move is not None else 0
        s = engine.apply(s, seat, random_action(s, seat, rng).to_json())
    deck = list(engine.DECK)
    rng.shuffle(deck)
    again = engine.deal_again(s, deck, "The store lost a move: this deal is dealt again.")
    assert again.deal_number == s.deal_number and again.dealer == s.dealer
    assert again.sheet == s.sheet and again.tricks == () and again.events == ()
    assert list(again.stock) == deck[24:]
    assert again.log[-1].text == "The store lost a move: this deal is dealt again."
    over = engine.new_partie(seed=3)
    with pytest.raises(ValueError):
        engine.deal_again(over, deck, "no deal yet")


def test_a_partie_abandoned_by_a_seat_ends_with_the_other_winning_and_replays() -> None:
    """A player who left the table: the table ends the partie, abandoned by that seat
    (stored as the table's own entry, NO_SEAT); the result names it, the other seat wins,
    the totals are the partie's as they stand, and a replay of the entries ends the same."""
    s = engine.new_partie(seed=5, first_dealer=0)
    rng = random.Random(5)
    entries: list[tuple[int, dict[str, Any]]] = []
    while s.deal_number < 2 or len(s.tricks) < 2:
        seat = s.to_move if s.to_move is not None else 0
        action = random_action(s, seat, rng).to_json()
        entries.append((seat, action))
        s = engine.apply(s, seat, action)
    over = engine.abandon(s, 1)
    assert over.step is engine.Step.PARTIE_OVER and s.step is not engine.Step.PARTIE_OVER
    assert over.result is not None
    assert (over.result.winner, over.result.abandoned) == (0, 1)
    # The deals finished; the one under way is void.
    finished = (sum(r[0] for r in s.sheet), sum(r[1] for r in s.sheet))
    assert over.result.totals == finished != s.partie_scores()
    assert engine.view(over, 0)["scores"]["partie"] == list(over.result.totals)
    assert engine.view(over, 0)["result"]["abandoned"] == 1
    assert engine.public_view(over)["legal"] == [] and engine.legal(over, 0) == []
    assert over.log[-1].kind == "abandon" and over.log[-1].seat == 1
    table = (engine.NO_SEAT, {"type": "abandon", "seat": 1})
    assert engine.replay(5, [*entries, table], first_dealer=0) == over
    with pytest.raises(ValueError):
        engine.abandon(over, 0)  # over already
    with pytest.raises(ValueError):
        engine.abandon(s, 2)
