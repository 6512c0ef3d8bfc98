"""RULES.md §3, the exchange: elder 1 to 5 (and sight of the rest of his five), younger 1 to
all that is left, her leftovers face up after the first lead or seen by nobody, each seat's
discards its own."""

from __future__ import annotations

import pytest

import engine
from engine import IllegalActionError, State, Step
from tests.engine.kit import ELDER, YOUNGER, deal, discard, hand
from tests.engine.moves import (
    elder_calls_nothing,
    exchange,
    lead,
    names,
    seen,
    younger_calls_nothing,
)

ELDER_HAND = "AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H"
YOUNGER_HAND = "AH KH AC KC QC JC 10C 9C 8C 7C AD KD"
STOCK = "7D 8D 8S 7S QD JD 10D 9D"


def fresh() -> State:
    return deal(ELDER_HAND, YOUNGER_HAND, STOCK)


def every_step_to_the_end(s: State) -> list[State]:
    """The states of the rest of the deal, nothing called, first cards played."""
    states = [s]
    s = elder_calls_nothing(s)
    states.append(s)
    s = lead(s, str(s.hands[ELDER][0]))
    states.append(s)
    s = younger_calls_nothing(s)
    while s.step is not Step.DEAL_OVER:
        states.append(s)
        seat = s.to_move
        assert seat is not None
        s = engine.apply(s, seat, engine.legal(s, seat)[0][0])
    states.append(s)
    return states


def test_elder_discards_one_to_five_then_draws_as_many_from_the_top() -> None:
    s = fresh()
    template = engine.view(s, ELDER)["legal"]
    assert [(t["type"], t["min"], t["max"]) for t in template] == [("discard", 1, 5)]
    for wrong in ("", "QH JH 10H 9H 8H 7H"):
        with pytest.raises(IllegalActionError):
            discard(s, ELDER, wrong)
    for n in range(1, 6):
        thrown = " ".join(ELDER_HAND.split()[-n:])
        after = discard(s, ELDER, thrown)
        assert names(hand(after, ELDER)) == names(ELDER_HAND) - names(thrown) \
            | set(STOCK.split()[:n])
        assert engine.view(after, ELDER)["discards"] == thrown.split()


def test_elder_taking_fewer_than_five_sees_the_rest_of_his_five_alone() -> None:
    s = discard(fresh(), ELDER, "8H 7H")  # takes two: 7D 8D; the rest of his five: 8S 7S QD
    assert engine.view(s, ELDER)["seen_stock"] == ["8S", "7S", "QD"]
    assert engine.view(s, YOUNGER)["seen_stock"] == []
    s = discard(s, YOUNGER, "7C")  # she takes 8S; 7S and QD stay in the stock
    for state in every_step_to_the_end(s):
        assert engine.view(state, ELDER)["seen_stock"] == ["8S", "7S", "QD"]
        assert engine.view(state, YOUNGER)["seen_stock"] == []
        assert not seen(engine.view(state, YOUNGER)) & {"7S", "QD"}


def test_younger_discards_one_to_all_that_is_left_and_draws_from_the_top() -> None:
    s = discard(fresh(), ELDER, "8H 7H")  # elder leaves three of his five: 3 + 3 = 6 left
    template = engine.view(s, YOUNGER)["legal"]
    assert [(t["type"], t["min"], t["max"], t["expose_choice"]) for t in template] == \
        [("discard", 1, 6, True)]
    for wrong in ("", "AH KH AC KC QC JC 10C"):
        with pytest.raises(IllegalActionError):
            discard(s, YOUNGER, wrong)
    after = discard(s, YOUNGER, "AH KH AC KC QC JC")
    assert names(hand(after, YOUNGER)) >= set(STOCK.split()[2:])
    assert engine.view(after, YOUNGER)["stock_count"] == 0


def test_younger_may_turn_up_her_leftovers_for_both_after_the_first_lead() -> None:
    s = exchange(fresh(), "QH JH 10H 9H 8H", "7C", expose=True)  # takes JD; leaves 10D 9D
    s = elder_calls_nothing(s)
    for seat in (ELDER, YOUNGER):
        assert engine.view(s, seat)["exposed_stock"] == []
        assert not seen(engine.view(s, seat)) & {"10D", "9D"}
    s = lead(s, "AS")
    for seat in (ELDER, YOUNGER):
        assert engine.view(s, seat)["exposed_stock"] == ["10D", "9D"]
        assert engine.view(s, seat)["stock_count"] == 2


def test_leftovers_not_turned_up_are_seen_by_nobody() -> None:
    s = exchange(fresh(), "QH JH 10H 9H 8H", "7C", expose=False)
    for state in every_step_to_the_end(s):
        for seat in (ELDER, YOUNGER):
            assert engine.view(state, seat)["exposed_stock"] == []
            assert not seen(engine.view(state, seat)) & {"10D", "9D"}


def test_each_seat_sees_its_own_discards_all_deal_and_never_the_others() -> None:
    s = exchange(fresh(), "9H 8H 7H", "AC KC")
    for state in every_step_to_the_end(s):
        assert engine.view(state, ELDER)["discards"] == ["9H", "8H", "7H"]
        assert engine.view(state, YOUNGER)["discards"] == ["AC", "KC"]
        assert not seen(engine.view(state, YOUNGER)) & {"9H", "8H", "7H"}
        assert not seen(engine.view(state, ELDER)) & {"AC", "KC"}


def test_how_many_each_took_and_the_stock_left_are_public() -> None:
    s = fresh()
    assert engine.view(s, YOUNGER)["took"] == [None, None]
    s = discard(s, ELDER, "9H 8H 7H")
    for seat in (ELDER, YOUNGER):
        assert engine.view(s, seat)["took"] == [3, None]
        assert engine.view(s, seat)["stock_count"] == 5
    s = discard(s, YOUNGER, "AC KC")
    for seat in (ELDER, YOUNGER):
        assert engine.view(s, seat)["took"] == [3, 2]
        assert engine.view(s, seat)["stock_count"] == 3
        assert engine.view(s, seat)["opponent_hand_count"] == 12
