"""Refused actions (docs/engine-api.md): out of turn, illegal or malformed, each raises its
PiquetError (a ValueError) with a message quoting the input, and the state is unchanged."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine import (
    IllegalActionError,
    MalformedActionError,
    OutOfTurnError,
    PiquetError,
    State,
    Step,
)
from tests.engine.kit import ELDER, YOUNGER, deal, say
from tests.engine.moves import elder_calls_nothing, equal_points, exchange, lead, tricks


def start() -> State:
    return deal("AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H",
                "AH KH AC KC QC JC 10C 9C 8C 7C AD KD", "7D 8D 8S 7S QD JD 10D 9D")


def exchanged() -> State:
    return exchange(start(), "7H", "7C")


def answering() -> State:
    return say(exchanged(), ELDER, "Point of six")  # younger to answer


def answering_equal_point() -> State:
    """Both hold a point of five; younger may say good or equal, not "not good"."""
    return say(equal_points(), ELDER, "Point of five")


def her_calls() -> State:
    return lead(elder_calls_nothing(exchanged()), "9S")  # younger owes her calls


def following() -> State:
    s = her_calls()
    while s.step is Step.YOUNGER_CALL:
        s = say(s, YOUNGER, "Nothing")
    return tricks(s, "8C KS 9C QS 10C JS JC 10S QC 7D")  # younger to follow a diamond


def deal_over() -> State:
    s = tricks(following(), "8D AH QH KH JH AD 10H KD 9H AC 8H KC AS")
    assert s.step is Step.DEAL_OVER
    return s


Case = tuple[Callable[[], State], int, Any, type[PiquetError], str]

CASES: dict[str, Case] = {
    # Out of turn: a well-formed action from the seat that may not act now.
    "younger discards during elder's exchange":
        (start, YOUNGER, {"type": "discard", "cards": ["7C"]}, OutOfTurnError, "7C"),
    "elder answers his own call":
        (answering, ELDER, {"type": "answer", "reply": "good"}, OutOfTurnError, "good"),
    "younger leads the first trick":
        (lambda: elder_calls_nothing(exchanged()), YOUNGER, {"type": "play", "card": "AH"},
         OutOfTurnError, "AH"),
    "elder plays while younger owes her calls":
        (her_calls, ELDER, {"type": "play", "card": "KS"}, OutOfTurnError, "KS"),
    "a card played when the deal is over":
        (deal_over, ELDER, {"type": "play", "card": "AS"}, OutOfTurnError, "AS"),
    # Illegal: the seat may act, but not like that.
    "elder discards a card he does not hold":
        (start, ELDER, {"type": "discard", "cards": ["AH"]}, IllegalActionError, "AH"),
    "elder calls a point he does not hold":
        (exchanged, ELDER, {"type": "call", "category": "point", "cards": ["AC", "KC", "QC"]},
         IllegalActionError, "AC"),
    "elder calls a sequence when the point is due":
        (exchanged, ELDER, {"type": "call", "category": "sequence",
                            "cards": ["AS", "KS", "QS"]}, IllegalActionError, "sequence"),
    "younger says not good holding nothing better":
        (answering_equal_point, YOUNGER, {"type": "answer", "reply": "not_good"},
         IllegalActionError, "not_good"),
    "younger plays before her calls":
        (her_calls, YOUNGER, {"type": "play", "card": "8C"}, IllegalActionError, "8C"),
    "younger does not follow suit":
        (following, YOUNGER, {"type": "play", "card": "AH"}, IllegalActionError, "AH"),
    "a show asked before the first lead":
        (lambda: say(say(answering(), YOUNGER, "Good"), ELDER, "Nothing"), YOUNGER,
         {"type": "see", "combo": 0}, IllegalActionError, "see"),
    "a show of nothing that scored":
        (her_calls, ELDER, {"type": "see", "combo": 7}, IllegalActionError, "7"),
    "the next deal asked in the middle of one":
        (following, ELDER, {"type": "next_deal"}, IllegalActionError, "next_deal"),
    "carte blanche announced without holding it":
        (start, ELDER, {"type": "carte_blanche", "announce": True, "take": 5},
         IllegalActionError, "carte_blanche"),
    # Malformed: not an action at all.
    "an unknown action": (start, ELDER, {"type": "shuffle"}, MalformedActionError, "shuffle"),
    "not a card": (start, ELDER, {"type": "discard", "cards": ["1S"]}, MalformedActionError,
                   "1S"),
    "a card named twice": (start, ELDER, {"type": "discard", "cards": ["7H", "7H"]},
                           MalformedActionError, "7H"),
    "a missing field": (following, YOUNGER, {"type": "play"}, MalformedActionError, "card"),
    "a field of the wrong type":
        (start, ELDER, {"type": "discard", "cards": "7H"}, MalformedActionError, "7H"),
    "a take that is not a number":
        (start, ELDER, {"type": "carte_blanche", "announce": True, "take": "5"},
         MalformedActionError, "'5'"),
    "a take that is true":
        (start, ELDER, {"type": "carte_blanche", "announce": True, "take": True},
         MalformedActionError, "True"),
    "an expose that is not true or false":
        (start, ELDER, {"type": "discard", "cards": ["7H"], "expose": "yes"},
         MalformedActionError, "'yes'"),
    "an unknown reply":
        (answering, YOUNGER, {"type": "answer", "reply": "maybe"}, MalformedActionError,
         "maybe"),
    "an unknown category":
        (exchanged, ELDER, {"type": "call", "category": "flush", "cards": ["AS"]},
         MalformedActionError, "flush"),
    "not an object": (start, ELDER, "discard 7H", MalformedActionError, "discard 7H"),
    "no such seat": (start, 2, {"type": "discard", "cards": ["7H"]}, MalformedActionError, "2"),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_a_refused_action_raises_its_error_quoting_it_and_changes_nothing(case: str) -> None:
    make, seat, action, error, quoted = CASES[case]
    s = make()
    before = copy.deepcopy(s)
    views = [engine.view(s, 0), engine.view(s, 1)]
    with pytest.raises(error) as refused:
        engine.apply(s, seat, action)
    assert isinstance(refused.value, ValueError)
    assert quoted in str(refused.value)
    assert s == before
    assert [engine.view(s, 0), engine.view(s, 1)] == views


THIRTEEN = ["AS", "KS", "QS", "JS", "10S", "9S", "QH", "JH", "10H", "9H", "8H", "7H", "AH"]


@pytest.mark.parametrize(("throw", "error"), [
    ([], IllegalActionError),
    (["QH", "JH", "10H", "9H", "8H", "7H"], IllegalActionError),
    (THIRTEEN, MalformedActionError),
], ids=["none", "six", "thirteen"])
def test_a_discard_of_the_wrong_size_is_refused_quoting_the_cards(
        throw: list[str], error: type[PiquetError]) -> None:
    s = start()
    before = copy.deepcopy(s)
    with pytest.raises(error) as refused:
        engine.apply(s, ELDER, {"type": "discard", "cards": throw})
    assert s == before
    message = str(refused.value)
    assert repr(throw) in message or (throw and all(card in message for card in throw))
    if error is IllegalActionError:  # the size is refused where a size is set: the step
        assert "elder_exchange" in message


def test_the_state_given_to_apply_is_never_changed_by_a_legal_action_either() -> None:
    s = start()
    before = copy.deepcopy(s)
    after = engine.apply(s, ELDER, {"type": "discard", "cards": ["7H"]})
    assert s == before and after != before
