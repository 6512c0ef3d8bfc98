"""Cards of the 32-card piquet pack: A K Q J 10 9 8 7 in four suits, ace high.

A `Card` is an interned value: there are exactly 32 instances, so identity,
equality and hashing are cheap (the engine compares cards millions of times in
the random-play tests and benchmarks).
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Iterable
from typing import ClassVar

from engine.errors import MalformedActionError


class Suit(enum.IntEnum):
    # Display order of a hand: black, red, black, red, so suits alternate in colour.
    SPADES = 0
    HEARTS = 1
    CLUBS = 2
    DIAMONDS = 3

    @property
    def letter(self) -> str:
        return "SHCD"[self.value]

    @property
    def title(self) -> str:
        return ("Spades", "Hearts", "Clubs", "Diamonds")[self.value]


class Rank(enum.IntEnum):
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOL[self]

    @property
    def title(self) -> str:
        return _RANK_TITLE[self]

    @property
    def plural(self) -> str:
        return _RANK_PLURAL[self]

    @property
    def pips(self) -> int:
        """Pip value for breaking point ties: ace 11, court cards 10, others face value."""
        if self is Rank.ACE:
            return 11
        return min(int(self), 10)

    @property
    def is_court(self) -> bool:
        return self in (Rank.KING, Rank.QUEEN, Rank.JACK)


_RANK_SYMBOL = {
    Rank.ACE: "A", Rank.KING: "K", Rank.QUEEN: "Q", Rank.JACK: "J",
    Rank.TEN: "10", Rank.NINE: "9", Rank.EIGHT: "8", Rank.SEVEN: "7",
}
_RANK_TITLE = {
    Rank.ACE: "Ace", Rank.KING: "King", Rank.QUEEN: "Queen", Rank.JACK: "Jack",
    Rank.TEN: "Ten", Rank.NINE: "Nine", Rank.EIGHT: "Eight", Rank.SEVEN: "Seven",
}
_RANK_PLURAL = {
    Rank.ACE: "aces", Rank.KING: "kings", Rank.QUEEN: "queens", Rank.JACK: "jacks",
    Rank.TEN: "tens", Rank.NINE: "nines", Rank.EIGHT: "eights", Rank.SEVEN: "sevens",
}
_SYMBOL_RANK = {v: k for k, v in _RANK_SYMBOL.items()}
_LETTER_SUIT = {s.letter: s for s in Suit}


class Card:
    """One card. `Card.parse("QH")`, `str(card) == "QH"`, `card.name == "Queen of Hearts"`."""

    __slots__ = ("code", "index", "name", "pips", "rank", "suit")
    _interned: ClassVar[dict[tuple[Suit, Rank], Card]] = {}

    suit: Suit
    rank: Rank
    index: int
    name: str
    pips: int
    code: str  # "QH", "10S": how the view and the protocol write it

    def __new__(cls, rank: Rank, suit: Suit) -> Card:
        card = cls._interned.get((suit, rank))
        if card is None:
            card = object.__new__(cls)
            card.suit = suit
            card.rank = rank
            # Sort key: by suit in display order, then ace high within the suit.
            card.index = int(suit) * 8 + (Rank.ACE - rank)
            card.name = f"{rank.title} of {suit.title}"
            card.pips = rank.pips
            card.code = f"{rank.symbol}{suit.letter}"
            cls._interned[(suit, rank)] = card
        return card

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse "QH", "10S" (also "TS" and lower case); raise MalformedActionError otherwise."""
        if not isinstance(text, str):
            raise MalformedActionError(f"a card must be a string like 'QH', not {text!r}")
        t = text.strip().upper()
        card = _BY_STRING.get(t)
        if card is None and t[:1] == "T":
            card = _BY_STRING.get("10" + t[1:])
        if card is None:
            raise MalformedActionError(f"{text!r} is not a card (expected e.g. 'QH', '10S', '7C')")
        return card

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return (Card, (self.rank, self.suit))


DECK: tuple[Card, ...] = tuple(Card(r, s) for s in Suit for r in sorted(Rank, reverse=True))
_BY_STRING: dict[str, Card] = {c.code: c for c in DECK}
# Every card's name in words, by its code: the table page and /protocol.json carry it
# once, so a view names cards by code only.
CARD_NAMES: dict[str, str] = {c.code: c.name for c in DECK}


def parse_cards(items: Iterable[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(x) for x in items)


_BY_INDEX = operator.attrgetter("index")


def sort_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    """By suit (spades, hearts, clubs, diamonds), then ace high."""
    return tuple(sorted(cards, key=_BY_INDEX))


def is_carte_blanche(hand: Iterable[Card]) -> bool:
    """A dealt hand with no king, queen or jack (RULES.md §2)."""
    return not any(c.rank.is_court for c in hand)
