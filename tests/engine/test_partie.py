"""RULES.md §7, the partie: six deals, scores running through them; level after six, two
more deals (each seat dealing once); still level, a draw; the Rubicon settlement."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import engine
from engine import Card, State, Step
from tests.engine.kit import play_out_tricks, say, stack
from tests.engine.moves import elder_calls_nothing, exchange, lead, tricks, younger_calls_nothing

# Played as below, each deal ends seven all: six tricks each, nothing declared.
SIX_ALL = stack("AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H",
                "AH KH AC KC QC JC 10C 9C 8C 7C AD KD",
                "7D 8D 8S 7S QD JD 10D 9D")
# Played as below, elder takes every trick: 13 + 40 for capot, to nothing.
CAPOT = stack("AS KS QS JS 10S 9S 8S 7S AH KH AC AD",
              "JH 10H 9H 8H 7H KC QC JC 10C 9C KD QD",
              "QH 8C 7C JD 10D 9D 8D 7D")


def partie(decks: Sequence[Sequence[Card]]) -> State:
    return engine.new_partie(seed=5, decks=decks, first_dealer=1)


def play_deal(s: State, capot: bool = False) -> State:
    """Play the current (stacked) deal to its end, whichever seat is elder."""
    if not capot:  # SIX_ALL
        s = elder_calls_nothing(exchange(s, "7H", "7C"))
        s = younger_calls_nothing(lead(s, "AS"))
        s = tricks(s, "8C KS 9C QS 10C JS JC 10S QC 9S KC 7D 8D AH QH KH JH AD 10H KD 9H AC 8H")
    else:  # CAPOT
        s = elder_calls_nothing(exchange(s, "7S", "7H"))
        s = play_out_tricks(younger_calls_nothing(lead(s, "AS")))
    assert s.step in (Step.DEAL_OVER, Step.PARTIE_OVER)
    return s


def sheet(s: State) -> list[list[int]]:
    return [list(row) for row in engine.view(s, 0)["scores"]["sheet"]]


def test_six_deals_the_deal_alternating_and_the_scores_running_through_them() -> None:
    s = partie([SIX_ALL] * 5 + [CAPOT])
    for number in range(1, 7):
        v = engine.view(s, 1)
        assert (v["deal_number"], v["deals_in_partie"]) == (number, 6)
        assert v["dealer"] == number % 2  # seat 1 deals first
        s = play_deal(s, capot=number == 6)
        assert engine.view(s, 0)["scores"]["partie"] == [sum(r[i] for r in sheet(s))
                                                        for i in (0, 1)]
        if number < 6:
            assert s.step is Step.DEAL_OVER and engine.view(s, 0)["result"] is None
            s = say(s, number % 2, "Deal next hand")
    assert sheet(s) == [[7, 7]] * 5 + [[0, 53]]  # seat 1 is elder in deal 6
    assert s.step is Step.PARTIE_OVER
    for seat in (0, 1):
        assert "Deal next hand" not in [e["label"] for e in engine.view(s, seat)["legal"]]


def test_the_higher_total_wins_and_a_loser_under_100_is_rubiconed() -> None:
    s = partie([SIX_ALL] * 5 + [CAPOT])
    for _ in range(5):
        s = say(play_deal(s), 0, "Deal next hand")
    s = play_deal(s, capot=True)
    result = engine.view(s, 0)["result"]
    assert result == engine.view(s, 1)["result"]
    assert (result["winner"], result["totals"], result["points"], result["rubiconed"]) == \
        (1, [35, 88], 88 + 35 + 100, True)


def test_level_after_six_deals_two_more_deals_are_played_each_seat_dealing_once() -> None:
    s = partie([SIX_ALL] * 8)
    for _ in range(6):
        s = say(play_deal(s), 0, "Deal next hand") if s.deal_number < 6 else play_deal(s)
    assert engine.view(s, 0)["scores"]["partie"] == [42, 42]
    assert s.step is Step.DEAL_OVER and engine.view(s, 0)["result"] is None
    assert engine.view(s, 0)["deals_in_partie"] == 8
    dealers = []
    for _ in range(2):
        s = say(s, 1, "Deal next hand")
        dealers.append(engine.view(s, 0)["dealer"])
        s = play_deal(s)
    assert sorted(dealers) == [0, 1]
    assert engine.view(s, 0)["deal_number"] == 8


def test_still_level_after_eight_deals_is_a_draw() -> None:
    s = partie([SIX_ALL] * 8)
    while s.step is not Step.PARTIE_OVER:
        s = play_deal(s)
        if s.step is Step.DEAL_OVER:
            s = say(s, 0, "Deal next hand")
    assert sheet(s) == [[7, 7]] * 8
    result = engine.view(s, 1)["result"]
    assert (result["winner"], result["totals"], result["points"]) == (None, [56, 56], 0)
    assert "drawn" in engine.view(s, 0)["log"][-1]["text"]


def test_rubicon_the_loser_at_100_or_more_pays_the_difference_plus_100() -> None:
    assert engine.rubicon((120, 101)).points == 119
    assert engine.rubicon((101, 120)).winner == 1
    assert not engine.rubicon((105, 101)).rubiconed


def test_rubicon_a_loser_under_100_pays_both_totals_plus_100_even_if_the_winner_is_under() \
        -> None:
    r = engine.rubicon((89, 97))
    assert (r.winner, r.points, r.rubiconed) == (1, 286, True)
    assert engine.rubicon((120, 99)).points == 319


def test_a_parties_result_is_worked_out_from_its_deal_scores() -> None:
    """engine.partie_result: the same settlement as a partie played out, from the sheet."""
    s = partie([SIX_ALL] * 5 + [CAPOT])
    for _ in range(5):
        s = say(play_deal(s), 0, "Deal next hand")
    s = play_deal(s, capot=True)
    assert engine.partie_result(s.sheet) == s.result
    eight = [(7, 7)] * 6 + [(20, 3), (0, 15)]
    r = engine.partie_result(eight)
    assert (r.winner, r.totals, r.points, r.rubiconed) == (0, (62, 60), 222, True)
    assert engine.partie_result([(7, 7)] * 8).winner is None


@pytest.mark.parametrize("deals", [
    [(7, 7)] * 6,  # level after six: two more are played
    [(10, 0)] + [(7, 7)] * 7,  # not level after six: there is no seventh
    [(7, 0)] * 5,
    [(7, 7)] * 9,
])
def test_a_result_needs_six_deals_or_eight_after_a_level_six(
        deals: list[tuple[int, int]]) -> None:
    with pytest.raises(ValueError):
        engine.partie_result(deals)
