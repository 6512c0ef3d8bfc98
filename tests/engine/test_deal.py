"""RULES.md §1, the cut and the deal: the higher cut chooses who deals, 12 each in twos or
threes, 8 in the stock top card first, non-dealer elder, the deal alternating."""

from __future__ import annotations

import pytest

import engine
from engine import OutOfTurnError, Step
from tests.engine.kit import ELDER, YOUNGER, cards, deal, hand, play_out_tricks, say, stack
from tests.engine.moves import elder_calls_nothing, exchange, younger_calls_nothing

ORDERED = [str(c) for c in engine.DECK]


def test_the_higher_cut_chooses_who_deals_first() -> None:
    for seed in range(20):
        s = engine.new_partie(seed=seed)
        v = engine.view(s, 0)
        assert v["phase"] == "cut" and v["deal_number"] == 0 and v["hand"] == []
        a, b = cards(v["cut"]["cards"])
        winner = v["cut"]["winner"]
        assert a.rank != b.rank
        assert winner == (0 if a.rank > b.rank else 1)
        assert s.to_move == winner
        with pytest.raises(OutOfTurnError):
            engine.apply(s, 1 - winner, {"type": "choose_dealer", "deal": True})
        dealing = say(s, winner, "I'll deal")
        assert dealing.dealer == winner and dealing.elder == 1 - winner
        letting = say(s, winner, "You deal")
        assert letting.dealer == 1 - winner and letting.elder == winner


def test_equal_cuts_are_cut_again() -> None:
    recut = [s for s in (engine.new_partie(seed=n) for n in range(200))
             if any(line["text"] == "Equal cuts: cut again" for line in engine.view(s, 0)["log"])]
    assert recut, "no re-cut in 200 seeds"
    for s in recut:
        a, b = cards(engine.view(s, 1)["cut"]["cards"])
        assert a.rank != b.rank


@pytest.mark.parametrize("packet", [2, 3])
def test_twelve_each_dealt_in_packets_one_way_for_the_partie(packet: int) -> None:
    decks = [ORDERED, ORDERED[::-1]]
    s = engine.new_partie(seed=1, decks=decks, packet=packet, first_dealer=1)
    for deck, elder in ((decks[0], 0), (decks[1], 1)):
        assert s.elder == elder
        want = [deck[i] for i in range(24) if (i // packet) % 2 == 0]  # elder first
        assert sorted(engine.view(s, elder)["hand"]) == sorted(want)
        assert sorted(engine.view(s, 1 - elder)["hand"]) == sorted(set(deck[:24]) - set(want))
        assert engine.view(s, elder)["stock_count"] == 8
        s = say(_quick_deal(s), 0, "Deal next hand")


def _quick_deal(s: engine.State) -> engine.State:
    """Throw one card each (declining any carte blanche by not announcing it), call nothing,
    play the first cards."""
    s = exchange(s, str(s.hands[s.elder][0]), str(s.hands[s.younger][0]))
    s = elder_calls_nothing(s)
    s = engine.apply(s, s.elder, {"type": "play", "card": str(s.hands[s.elder][0])})
    s = younger_calls_nothing(s)
    s = play_out_tricks(s)
    assert s.step is Step.DEAL_OVER
    return s


def test_the_stock_is_the_other_eight_top_card_first() -> None:
    stock = "7D 8D 8S 7S QD JD 10D 9D"
    s = deal("AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H",
             "AH KH AC KC QC JC 10C 9C 8C 7C AD KD", stock)
    assert engine.view(s, ELDER)["stock_count"] == engine.view(s, YOUNGER)["stock_count"] == 8
    s = exchange(s, "9H 8H 7H", "7C 8C")
    assert set(stock.split()[:3]) <= set(hand(s, ELDER).split())
    assert set(stock.split()[3:5]) <= set(hand(s, YOUNGER).split())
    assert engine.view(s, ELDER)["stock_count"] == 3


def test_the_non_dealer_is_elder_and_the_deal_alternates() -> None:
    s = engine.new_partie(seed=11, first_dealer=1)
    for number in range(1, 5):
        v = engine.view(s, 0)
        assert v["deal_number"] == number
        assert v["dealer"] == (1 if number % 2 else 0)
        assert v["elder"] == 1 - v["dealer"]
        assert v["role"] == ("elder" if v["elder"] == 0 else "younger")
        assert engine.view(s, 1)["role"] == ("elder" if v["elder"] == 1 else "younger")
        s = say(_quick_deal(s), 1, "Deal next hand")


def test_every_deal_is_a_fresh_shuffle() -> None:
    s = engine.new_partie(seed=3, first_dealer=1)
    first = s.hands
    assert engine.new_partie(seed=4, first_dealer=1).hands != first
    s = say(_quick_deal(s), 0, "Deal next hand")
    assert s.deal_number == 2 and sorted(s.hands[1]) != sorted(first[0])


def test_a_fixed_deck_deals_exactly_as_stacked() -> None:
    deck = stack("AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H",
                 "AH KH AC KC QC JC 10C 9C 8C 7C AD KD", "7D 8D 8S 7S QD JD 10D 9D")
    s = engine.new_partie(seed=1, decks=[deck], first_dealer=1)
    assert hand(s, ELDER) == "AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H"
    assert hand(s, YOUNGER) == "AH KH AC KC QC JC 10C 9C 8C 7C AD KD"


@pytest.mark.parametrize("packet", [2, 3])
def test_hands_are_dealt_to_elder_and_younger_whoever_deals(packet: int) -> None:
    first = ("AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H",
             "AH KH AC KC QC JC 10C 9C 8C 7C AD KD", "7D 8D 8S 7S QD JD 10D 9D")
    second = (first[1], first[0], "QD 7S 8S 8D 7D JD 10D 9D")
    s = engine.new_partie(seed=3, hands=[first, second], packet=packet)
    s = say(s, s.to_move, "I'll deal")  # the cut's winner deals: the other seat is elder
    for elder, younger, stock in (first, second):
        assert hand(s, s.elder) == elder and hand(s, s.younger) == younger
        assert " ".join(map(str, s.stock)) == stock
        if s.deal_number == 1:
            s = say(_quick_deal(s), 0, "Deal next hand")
    as_cards = (cards(first[0]), cards(first[1]), cards(first[2]))  # Card values do too
    assert engine.new_partie(seed=3, hands=[as_cards], first_dealer=0).hands[1] == \
        tuple(as_cards[0])


@pytest.mark.parametrize(("elder", "younger", "stock"), [
    ("AS KS", "QS JS", "10S"),  # too few
    ("AS AS QS JS 10S 9S QH JH 10H 9H 8H 7H",  # a card twice
     "AH KH AC KC QC JC 10C 9C 8C 7C AD KD", "7D 8D 8S 7S QD JD 10D 9D"),
])
def test_hands_that_are_not_a_pack_are_refused(elder: str, younger: str, stock: str) -> None:
    with pytest.raises(ValueError):
        engine.new_partie(seed=1, hands=[(elder, younger, stock)])
