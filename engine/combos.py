"""Point, sequence and set: what a hand holds, what it may call, how calls compare.

RULES.md §4. A call names real cards; the table offers the *natural* calls:
a point is a suit's highest cards (of any length up to the suit's), a sequence
any run of three or more inside a held run, a set a held trio or quatorze, or a
trio out of a quatorze.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card, Rank, Suit, sort_hand
from engine.words import WN, Phrase, W, Words


class Category(enum.IntEnum):
    """The declaring categories, in the order they are declared and reckoned (Law 67 II–IV)."""

    POINT = 0
    SEQUENCE = 1
    SET = 2

    word: str  # "point", "sequence", "set" (set below: a plain attribute, read often)

    @classmethod
    def from_word(cls, word: str) -> Category:
        return {"point": cls.POINT, "sequence": cls.SEQUENCE, "set": cls.SET}[word]

    @property
    def stages(self) -> int:
        """Stages a call is told in: point (length, pips), sequence (length, top), set (whole)."""
        return 1 if self is Category.SET else 2


for _category, _word in zip(Category, ("point", "sequence", "set"), strict=True):
    _category.word = _word

NUMBER_WORDS = ("nothing", "one", "two", "three", "four", "five", "six", "seven", "eight")
SEQUENCE_NAMES = {3: "tierce", 4: "quart", 5: "quint", 6: "sixième", 7: "septième", 8: "huitième"}

# A call in words (engine.words), by how much of it was told: what a player says ("point
# of five", "a quart", "quart to the ace", "three aces"), what the table was told ("quart"),
# and the same with its article ("the quart", "the point of five, making 48"): the
# article's code is "the_" and the told one's, with the same values.
_POINT = WN("point", "point of {n:word}", "point of {n:word}")
_POINT_MAKING = WN("point_making", "point of {n:word}, making {pips}",
                   "point of {n:word}, making {pips}")
_SEQ_A = W("seq_a", "a {n:seq}")
_SEQ = W("seq", "{n:seq}")
_SEQ_TO = W("seq_to", "{n:seq} {top:to}")
_TRIO = W("trio", "three {rank:ranks}")
_QUATORZE = W("quatorze", "four {rank:ranks}")
WN("the_point", "the point of {n:word}", "the point of {n:word}")
WN("the_point_making", "the point of {n:word}, making {pips}",
   "the point of {n:word}, making {pips}")
W("the_seq", "the {n:seq}")
W("the_seq_to", "the {n:seq} {top:to}")
W("the_trio", "the three {rank:ranks}")
W("the_quatorze", "the four {rank:ranks}")
# The second stage told alone: "Making 48", "To the king".
_MAKING = W("making", "making {pips}")
_TO_TOP = W("to_top", "{top:to}")


@dataclass(frozen=True, slots=True)
class Combo:
    """One called combination: its category and its cards."""

    category: Category
    cards: tuple[Card, ...]  # sorted, high first
    key: tuple[int, int] = field(init=False, compare=False)
    # The call in a player's words: "Point of five", "Quart to the king", "Three aces"
    # (its phrase: `label.say`).
    label: Words = field(init=False, compare=False)

    # What the table is told of it after one stage and after two (see `told`), written
    # the first time it is asked for.
    _told: tuple[dict[str, Any], dict[str, Any]] | None = field(
        default=None, init=False, compare=False, repr=False)
    # Its legal entry, (Call, label), made once by engine.declaring (the natural calls
    # are made once and kept, so their entries are too).
    entry: Any = field(default=None, init=False, compare=False, repr=False)

    # What is compared at each stage (see stage_key), as a plain attribute.
    stage_keys: tuple[int, int] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        key = _key(self.category, self.cards)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "stage_keys", (key[0] * 100 + key[1],) * 2
                           if self.category is Category.SET else key)
        object.__setattr__(self, "label", self.words("label", 2))

    @property
    def length(self) -> int:
        return len(self.cards)

    @property
    def score(self) -> int:
        n = len(self.cards)
        if self.category is Category.POINT:
            return n
        if self.category is Category.SEQUENCE:
            return n if n < 5 else n + 10
        return 14 if n == 4 else 3

    def stage_key(self, stage: int) -> int:
        """What is compared at `stage` (0 or 1): length then pips / top card; a set whole."""
        return self.stage_keys[stage]

    def stage_words(self, stage: int) -> Phrase:
        """What is said publicly at each stage (RULES.md §4 dialogue): "Point of five",
        "A quart", "Three aces"; then "Making 48", "To the king"."""
        if stage == 0:
            return self.said(1)
        if self.category is Category.POINT:
            return {"code": _MAKING, "pips": self.key[1]}
        if self.category is Category.SEQUENCE:
            return {"code": _TO_TOP, "top": self.cards[0].rank.symbol}
        return self.said(1)

    def public(self, stages: int) -> Phrase:
        """What the table has been told of this call after `stages` stages: "point of
        five" / "point of five, making 48", "quart" / "quart to the ace", "three aces".
        Only what was said crosses the table (RULES.md §4)."""
        n = len(self.cards)
        if self.category is Category.POINT:
            if stages < 2:
                return {"code": _POINT, "n": n}
            return {"code": _POINT_MAKING, "n": n, "pips": self.key[1]}
        if self.category is Category.SEQUENCE:
            if stages < 2:
                return {"code": _SEQ, "n": n}
            return {"code": _SEQ_TO, "n": n, "top": self.cards[0].rank.symbol}
        return _set(self.cards)

    def the(self, stages: int) -> Phrase:
        """`public`, with its article: "the quart", "the three aces"."""
        told = self.public(stages)
        return {**told, "code": "the_" + told["code"]}

    def said(self, stages: int) -> Phrase:
        """The words a player says for this call: "Point of five", "A quart", "Quart to
        the ace"."""
        if self.category is Category.SEQUENCE and stages < 2:
            return {"code": _SEQ_A, "n": len(self.cards)}
        return self.public(stages)

    def told(self, stages: int) -> dict[str, Any]:
        """What the table has been told of this call after `stages` stages, as data (the
        view's call records): a point's length then its pips, a sequence's length then its
        top card's rank, a set's rank and count (told whole). What was not told is absent:
        {"length": 5}, {"length": 5, "pips": 48}, {"length": 4, "top": "A"},
        {"rank": "K", "count": 3}."""
        told = self._told
        if told is None:
            told = (_told(self, 1), _told(self, 2))
            object.__setattr__(self, "_told", told)
        return told[stages >= 2].copy()

    def words(self, form: str, stages: int) -> Words:
        """Its `label` ("label"), `public` or `the` phrase after `stages` stages, as Words
        made once for every call alike: the phrases depend on the category and key alone,
        and a deal makes several calls' entries and records."""
        k = (form, self.category, self.key, stages >= 2)
        words = _WORDS.get(k)
        if words is None:
            said = _label(self.category, self.cards) if form == "label" else \
                self.public(stages) if form == "public" else self.the(stages)
            words = _WORDS[k] = Words(said)
        return words

    def __str__(self) -> str:
        return f"{self.label} ({' '.join(map(str, self.cards))})"


# Words by (form, category, key, told whole): a few hundred at most.
_WORDS: dict[tuple[str, Category, tuple[int, int], bool], Words] = {}


def _set(cards: tuple[Card, ...]) -> Phrase:
    return {"code": _QUATORZE if len(cards) == 4 else _TRIO, "rank": cards[0].rank.symbol}


def _told(combo: Combo, stages: int) -> dict[str, Any]:
    if combo.category is Category.SET:
        return {"rank": combo.cards[0].rank.symbol, "count": len(combo.cards)}
    out: dict[str, Any] = {"length": len(combo.cards)}
    if stages >= 2:
        if combo.category is Category.POINT:
            out["pips"] = combo.key[1]
        else:
            out["top"] = combo.cards[0].rank.symbol
    return out


def _label(category: Category, cards: tuple[Card, ...]) -> Phrase:
    """A call as the table offers it: a point by its length, a sequence whole, a set."""
    n = len(cards)
    if category is Category.POINT:
        return {"code": _POINT, "n": n}
    if category is Category.SEQUENCE:
        return {"code": _SEQ_TO, "n": n, "top": cards[0].rank.symbol}
    return _set(cards)


def _key(category: Category, cards: tuple[Card, ...]) -> tuple[int, int]:
    if category is Category.POINT:
        return (len(cards), sum(c.pips for c in cards))
    if category is Category.SEQUENCE:
        return (len(cards), int(cards[0].rank))
    return (len(cards), int(cards[0].rank))


def by_suit(hand: Iterable[Card]) -> dict[Suit, list[Card]]:
    """Each suit's cards, high first."""
    out: dict[Suit, list[Card]] = {}
    for c in sort_hand(hand):
        out.setdefault(c.suit, []).append(c)
    return out


def runs(hand: Iterable[Card]) -> list[list[Card]]:
    """Maximal runs of three or more consecutive cards in one suit, high first."""
    result: list[list[Card]] = []
    for cards in by_suit(hand).values():
        run = [cards[0]]
        for c in cards[1:]:
            if run[-1].rank - c.rank == 1:
                run.append(c)
            else:
                if len(run) >= 3:
                    result.append(run)
                run = [c]
        if len(run) >= 3:
            result.append(run)
    return result


def natural_calls(category: Category, hand: Sequence[Card]) -> tuple[Combo, ...]:
    """Every call the table offers for this hand in this category, best first (calls that
    compare equal in the hand's order: spades, hearts, clubs, diamonds)."""
    # Cached by the set of cards (a bit per card: a Card's hash is a Python call), but
    # only a little: legal() is worked out once per state already, and a big cache grew
    # to ~11 MB in a busy server. The calls themselves are shared (see _group_calls).
    mask = 0
    for c in hand:
        mask |= 1 << c.index
    key = (category, mask)
    known = _CALLS.get(key)
    if known is None:
        if len(_CALLS) >= _CALLS_KEPT:
            _CALLS.clear()
        known = _CALLS[key] = _natural_calls(category, hand)
    return known


_CALLS: dict[tuple[int, int], tuple[Combo, ...]] = {}
_CALLS_KEPT = 1024
_BY_KEY = operator.attrgetter("key")


def _natural_calls(category: Category, hand: Sequence[Card]) -> tuple[Combo, ...]:
    # The calls of one suit (or one rank, for sets) are cached for good: there are at
    # most a few thousand.
    calls: list[Combo] = []
    if category is Category.SET:
        groups: dict[Rank, list[Card]] = {}
        for c in sort_hand(hand):
            if c.rank >= Rank.TEN:
                groups.setdefault(c.rank, []).append(c)
        for group in groups.values():
            if len(group) >= 3:
                mask = sum(1 << c.index for c in group)
                known = _GROUP_CALLS.get((category, mask))
                calls.extend(known if known is not None
                             else _group_calls(category, tuple(group), mask))
    else:
        suits: tuple[list[Card], ...] = ([], [], [], [])
        masks = [0, 0, 0, 0]  # each suit's cards, a bit per card (their cache key)
        for c in sort_hand(hand):
            suits[c.suit].append(c)
            masks[c.suit] |= 1 << c.index
        for cards, mask in zip(suits, masks, strict=True):
            if cards:
                known = _GROUP_CALLS.get((category, mask))
                calls.extend(known if known is not None
                             else _group_calls(category, tuple(cards), mask))
    calls.sort(key=_BY_KEY, reverse=True)
    return tuple(calls)


# By category and the group's cards, a bit per card.
_GROUP_CALLS: dict[tuple[Category, int], tuple[Combo, ...]] = {}


def _group_calls(category: Category, cards: tuple[Card, ...], mask: int) -> tuple[Combo, ...]:
    """The calls within one suit's cards (point, sequence) or one rank's (set), high
    first, in the order natural_calls lists equal calls."""
    calls: list[Combo] = []
    if category is Category.POINT:
        for n in range(len(cards), 0, -1):
            calls.append(Combo(Category.POINT, cards[:n]))
    elif category is Category.SEQUENCE:
        for run in runs(cards):
            for n in range(len(run), 2, -1):
                for start in range(0, len(run) - n + 1):
                    calls.append(Combo(Category.SEQUENCE, tuple(run[start:start + n])))
    else:
        calls.append(Combo(Category.SET, cards))
        if len(cards) == 4:
            for left_out in cards:
                calls.append(Combo(Category.SET, tuple(c for c in cards if c is not left_out)))
    found = _GROUP_CALLS[(category, mask)] = tuple(calls)
    return found


def best_call(category: Category, hand: Sequence[Card]) -> Combo | None:
    calls = natural_calls(category, hand)
    return calls[0] if calls else None


def find_call(category: Category, hand: Sequence[Card], cards: Iterable[Card]) -> Combo | None:
    """The natural call made of exactly these cards, or None if the table does not offer it."""
    wanted = sort_hand(cards)
    for call in natural_calls(category, hand):
        if call.cards == wanted:
            return call
    return None
