"""RULES.md §1, the cards: 32 of them, A K Q J 10 9 8 7 in four suits, ace high; pip values."""

from __future__ import annotations

import pytest

import engine
from engine import Card, MalformedActionError


def test_thirty_two_cards_ace_high_in_each_of_four_suits() -> None:
    deck = [str(c) for c in engine.DECK]
    assert len(deck) == len(set(deck)) == 32
    for suit in "SHCD":
        in_suit = [c for c in engine.DECK if str(c).endswith(suit)]
        ranked = sorted(in_suit, key=lambda c: c.rank, reverse=True)
        assert [str(c)[:-1] for c in ranked] == ["A", "K", "Q", "J", "10", "9", "8", "7"]


def test_a_card_is_written_rank_then_suit_and_named_in_words() -> None:
    for text, name in [("QH", "Queen of Hearts"), ("10S", "Ten of Spades"),
                       ("AD", "Ace of Diamonds"), ("7C", "Seven of Clubs")]:
        card = Card.parse(text)
        assert str(card) == text
        assert card.name == name
        assert Card.parse(repr(card).split("'")[1]) is card
    assert Card.parse("TS") is Card.parse("10S") is Card.parse("10s")


@pytest.mark.parametrize("text", ["6S", "1S", "11H", "QX", "", "Queen of Hearts"])
def test_anything_else_is_not_a_card(text: str) -> None:
    with pytest.raises(MalformedActionError) as refused:
        Card.parse(text)
    assert repr(text) in str(refused.value)


def test_pip_values_ace_eleven_court_cards_ten_the_rest_face_value() -> None:
    pips = {str(c)[:-1]: c.pips for c in engine.DECK}
    assert pips == {"A": 11, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 9, "8": 8, "7": 7}
