"""RULES.md §5, tricks: elder leads first, the winner leads next; follow suit if able; the
higher card of the led suit wins (no trumps); +1 per lead, +1 for winning the opponent's
lead, +1 for the last trick; more than six tricks 10, six each nothing, all twelve 40."""

from __future__ import annotations

import pytest

import engine
from engine import IllegalActionError, State, Step
from tests.engine.kit import ELDER, YOUNGER, deal, labels, play, play_out_tricks
from tests.engine.moves import (
    bonuses,
    elder_calls_nothing,
    exchange,
    lead,
    scores,
    tricks,
    younger_calls_nothing,
)

# Elder: six top spades and five hearts. Younger: no spade; AH KH, eight clubs, AD KD.
SPADES_AND_CLUBS = ("AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H",
                    "AH KH AC KC QC JC 10C 9C 8C 7C AD KD",
                    "7D 8D 8S 7S QD JD 10D 9D")
# Elder holds every winner.
ALL_WINNERS = ("AS KS QS JS 10S 9S 8S 7S AH KH AC AD",
               "JH 10H 9H 8H 7H KC QC JC 10C 9C KD QD",
               "QH 8C 7C JD 10D 9D 8D 7D")


def to_the_first_lead(stacked: tuple[str, str, str], elder_throws: str,
                      younger_throws: str) -> State:
    return elder_calls_nothing(exchange(deal(*stacked), elder_throws, younger_throws))


def first_trick_led(card: str = "AS") -> State:
    """After 7H / 7C are exchanged for 7D / 8D, nothing called, elder leads."""
    s = to_the_first_lead(SPADES_AND_CLUBS, "7H", "7C")
    return younger_calls_nothing(lead(s, card))


def test_elder_leads_the_first_trick_and_the_winner_leads_the_next() -> None:
    s = to_the_first_lead(SPADES_AND_CLUBS, "7H", "7C")
    assert s.step is Step.LEAD and s.to_move == ELDER
    assert labels(s, YOUNGER) == []
    s = tricks(younger_calls_nothing(lead(s, "7D")), "AD")  # younger wins
    assert s.step is Step.LEAD and s.to_move == YOUNGER
    s = tricks(s, "AH QH")  # she wins again and leads again
    assert s.to_move == YOUNGER
    s = tricks(s, "KC 9H")  # she wins: no trumps, elder's heart does not
    assert s.to_move == YOUNGER
    assert engine.view(s, ELDER)["tricks_won"] == [0, 3]


def test_follow_suit_if_able_otherwise_any_card() -> None:
    s = first_trick_led("7D")
    assert labels(s, YOUNGER) == ["Ace of Diamonds", "King of Diamonds", "Eight of Diamonds"]
    with pytest.raises(IllegalActionError):
        play(s, YOUNGER, "AC")
    s = first_trick_led("AS")  # she has no spade: anything
    assert len(labels(s, YOUNGER)) == 12


def test_the_higher_card_of_the_led_suit_wins_and_no_other_suit_can() -> None:
    s = tricks(first_trick_led("9S"), "AC")  # an ace of another suit does not win
    assert engine.view(s, YOUNGER)["tricks"][0]["winner"] == ELDER
    s = tricks(first_trick_led("7D"), "8D")  # any higher card of the led suit does
    assert engine.view(s, YOUNGER)["tricks"][0]["winner"] == YOUNGER


def test_play_points_a_lead_a_win_of_the_opponents_lead_and_the_last_trick() -> None:
    s = first_trick_led("AS")
    assert scores(s) == (1, 0)  # +1 for leading
    s = tricks(s, "8C")
    assert scores(s) == (1, 0)  # winning his own lead earns nothing more
    s = tricks(s, "KS 9C QS 10C JS JC 10S QC 9S KC 7D")
    assert scores(s) == (7, 0)
    s = tricks(s, "8D")
    assert scores(s) == (7, 1)  # +1 for winning the trick elder led
    s = tricks(s, "AH QH KH JH AD 10H KD 9H AC")
    assert scores(s) == (7, 6)
    s = tricks(s, "8H")
    assert scores(s) == (7, 7)  # her own lead: only the last-trick point
    assert s.step is Step.DEAL_OVER


def test_six_tricks_each_nobody_scores_the_cards() -> None:
    s = tricks(first_trick_led("AS"),
               "8C KS 9C QS 10C JS JC 10S QC 9S KC 7D 8D AH QH KH JH AD 10H KD 9H AC 8H")
    assert engine.view(s, ELDER)["tricks_won"] == [6, 6]
    assert bonuses(s) == [] and scores(s) == (7, 7)
    assert "Six tricks each: nobody scores for the cards" in \
        [x["text"] for x in engine.view(s, YOUNGER)["log"]]


def test_more_than_six_tricks_win_the_cards_ten() -> None:
    s = tricks(first_trick_led("AS"),
               "AD KS KD QS 8D JS 8C 10S 9C 9S 10C 7D JC QH AH KH JH AC 10H KC 9H QC 8H")
    assert engine.view(s, ELDER)["tricks_won"] == [7, 5]
    assert bonuses(s) == [(ELDER, "cards", 10)]
    assert scores(s) == (8 + 10, 1 + 4 + 1)


def test_all_twelve_tricks_are_capot_forty_instead_of_ten() -> None:
    s = to_the_first_lead(ALL_WINNERS, "7S", "7H")
    s = play_out_tricks(younger_calls_nothing(lead(s, "AS")))
    assert engine.view(s, ELDER)["tricks_won"] == [12, 0]
    assert bonuses(s) == [(ELDER, "capot", 40)]
    assert scores(s) == (12 + 1 + 40, 0)
