"""What one seat knows, read from its view alone (never the State).

Every level that counts cards reads the view through `know(view)`, so that when the
view carries this knowledge as data (issue 11) only this module changes.

Cards are ints 0..31 here: `suit * 8 + (rank - 7)`, so a suit is a byte of a 32-bit
mask and a higher bit within it is a higher card (the solver's representation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engine.cards import DECK, Card

View = dict[str, Any]

CARD_OF: dict[str, int] = {c.code: int(c.suit) * 8 + int(c.rank) - 7 for c in DECK}
CODE_OF: dict[int, str] = {v: k for k, v in CARD_OF.items()}
CARD_OBJ: dict[int, Card] = {CARD_OF[c.code]: c for c in DECK}
PIPS = [11 if r == 7 else min(r + 7, 10) for r in range(8)] * 4  # by card int
SUIT_MASK = [0xFF << (8 * s) for s in range(4)]
FULL = 0xFFFFFFFF

_NUMBERS = {"three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_SEQUENCES = {"tierce": 3, "quart": 4, "quint": 5, "sixième": 6, "septième": 7,
              "huitième": 8}
_RANKS = {"seven": 0, "eight": 1, "nine": 2, "ten": 3, "jack": 4, "queen": 5, "king": 6,
          "ace": 7, "sevens": 0, "eights": 1, "nines": 2, "tens": 3, "jacks": 4,
          "queens": 5, "kings": 6, "aces": 7}


def card(code: str) -> int:
    return CARD_OF[code]


def mask(cards: Any) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def bits(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


@dataclass
class Claim:
    """What the opponent told of one category: the least she must hold (she may sink,
    never overstate)."""

    category: str
    length: int = 0  # point or sequence length; set count
    pips: int | None = None  # a point's pips, once said
    top: int | None = None  # a sequence's top rank (0..7), once said
    rank: int | None = None  # a set's rank (0..7)


@dataclass
class Knowledge:
    """One seat's knowledge of the deal (cards as ints, see the module docstring)."""

    seat: int
    opp: int
    i_am_elder: bool
    hand: int  # my cards now
    played: int  # every card played so far (tricks and the trick on the table)
    opp_played: int
    opp_known: int  # cards certainly in the opponent's hand now
    opp_maybe: int  # cards she held at some point that may be in her hand or her discards
    unknown: int  # cards whose place I do not know: her hand, her discards, the stock
    opp_hand_count: int
    opp_discard_count: int  # how many she threw (0 before her exchange)
    stock_unknown: int  # unseen cards still in the stock (before or after the exchange)
    voids: set[int] = field(default_factory=set)  # suits she cannot hold now
    claims: list[Claim] = field(default_factory=list)
    denied: set[str] = field(default_factory=set)  # categories she said "good" to my call

    @property
    def opp_possible(self) -> int:
        """Cards that may be in her hand now."""
        m = self.opp_known | self.unknown | self.opp_maybe
        for s in self.voids:
            m &= ~SUIT_MASK[s]
        return m & ~self.played & ~self.hand


def know(view: View) -> Knowledge:
    seat: int = view["seat"]
    opp = 1 - seat
    elder = view["elder"]
    i_am_elder = seat == elder
    hand = mask(CARD_OF[c] for c in view["hand"])
    mine = hand | mask(CARD_OF[c] for c in view["discards"])
    exposed = mask(CARD_OF[c] for c in view["exposed_stock"])
    played = 0
    opp_played = 0
    voids: set[int] = set()
    tricks = [t["cards"] for t in view["tricks"]]
    if view["trick"]:
        tricks.append(view["trick"]["cards"])
    for cards in tricks:
        led = CARD_OF[cards[0][0]] >> 3
        for code, who in cards:
            c = CARD_OF[code]
            played |= 1 << c
            if who == opp:
                opp_played |= 1 << c
                if (c >> 3) != led and cards[0][1] != opp:
                    voids.add(led)
    took = view["took"]
    opp_took = took[opp]
    opp_known = 0
    opp_maybe = 0
    stock_known = 0
    seen = [CARD_OF[c] for c in view["seen_stock"]]
    if seen:  # elder's rest of five: the top of the stock younger draws from
        younger_took = took[opp]
        if view["step"] in ("elder_exchange", "younger_discard", "younger_exchange") \
                and not younger_took:
            stock_known |= mask(seen)
        else:
            opp_known |= mask(seen[:younger_took])
            stock_known |= mask(seen[younger_took:])
    for x in view["shown"]:
        if x["seat"] != opp:
            continue
        m = mask(CARD_OF[c] for c in x["cards"])
        if len(x["cards"]) == 12:  # carte blanche: her whole hand before her exchange
            opp_maybe |= m
        else:
            opp_known |= m
    for r in view["combos"]:
        if r["seat"] == opp and r["cards"]:
            opp_known |= mask(CARD_OF[c] for c in r["cards"])
    opp_known &= ~played
    opp_maybe &= ~played & ~opp_known
    known = mine | exposed | played | stock_known | opp_known | opp_maybe
    unknown = FULL & ~known
    stock_unknown = view["stock_count"] - bin(exposed).count("1") - bin(stock_known).count("1")
    claims, denied = _claims(view, opp, i_am_elder)
    return Knowledge(seat, opp, i_am_elder, hand, played, opp_played, opp_known, opp_maybe,
                     unknown, view["opponent_hand_count"], opp_took, max(stock_unknown, 0),
                     voids, claims, denied)


_ROLE = re.compile(r"^(Elder|Younger): (.*)$")


def _claims(view: View, opp: int, i_am_elder: bool) -> tuple[list[Claim], set[str]]:
    """The opponent's calls as claims, from what was said (words until the view carries
    them as data: issue 11)."""
    opp_role = "Younger" if i_am_elder else "Elder"
    claims: list[Claim] = []
    denied: set[str] = set()
    for d in view["declarations"]:
        cat = d["category"]
        claim = Claim(cat)
        for line in d["said"]:
            m = _ROLE.match(line)
            if not m or m.group(1) != opp_role:
                continue
            words = m.group(2).lower()
            if words == "good" and i_am_elder:
                denied.add(cat)
            if words in ("good", "not good", "equal", "nothing"):
                continue
            if cat == "point":
                p = re.search(r"point of (\w+)", words)
                if p and p.group(1) in _NUMBERS:
                    claim.length = max(claim.length, _NUMBERS[p.group(1)])
                p = re.search(r"making (\d+)", words)
                if p:
                    claim.pips = int(p.group(1))
            elif cat == "sequence":
                for name, n in _SEQUENCES.items():
                    if name in words:
                        claim.length = max(claim.length, n)
                p = re.search(r"to the (\w+)", words)
                if p and p.group(1) in _RANKS:
                    claim.top = _RANKS[p.group(1)]
            else:
                p = re.search(r"(three|four) (\w+)", words)
                if p and p.group(2) in _RANKS:
                    claim.length = _NUMBERS[p.group(1)]
                    claim.rank = _RANKS[p.group(2)]
        if claim.length:
            claims.append(claim)
    return claims, denied


def holds(claim: Claim, cards: int) -> bool:
    """Whether a hand `cards` (mask) can make the claim."""
    if claim.category == "set":
        assert claim.rank is not None
        n = sum(1 for s in range(4) if cards >> (8 * s + claim.rank) & 1)
        return n >= claim.length
    for s in range(4):
        suit = (cards >> (8 * s)) & 0xFF
        if claim.category == "point":
            n = bin(suit).count("1")
            if n > claim.length or (n == claim.length and (
                    claim.pips is None
                    or sum(PIPS[r] for r in range(8) if suit >> r & 1) == claim.pips)):
                return True
        else:
            run = 0
            for r in range(7, -1, -1):
                run = run + 1 if suit >> r & 1 else 0
                if run >= claim.length and (claim.top is None or (
                        suit >> claim.top & 1 and all(
                            suit >> (claim.top - i) & 1 for i in range(claim.length)))):
                    return True
    return False
