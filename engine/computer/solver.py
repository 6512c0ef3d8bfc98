"""A double-dummy solver for the tricks of one Piquet deal (both hands known).

The objective is what the play is worth to the seat "me" minus what it is worth to
the other: +1 for every card led, +1 for winning a trick the other led, +1 more for
the last trick, and at the end 10 for the cards (more than six tricks) or 40 for
capot; and, when the deal still allows it, the 30 of a pique: elder reaches 30 with
the lead (or the trick) that makes it while younger has scored nothing at all
(`pique`: which seat is elder, and elder's points before the play; with the cards
towards pique, RULES.md §8, the 10 for the cards counts at his seventh trick). No
trumps; a seat must follow suit if it can.

Hands are 32-bit masks (knowledge.py: `suit * 8 + rank`, a higher bit a higher card
within a suit's byte). The search is alpha-beta over single cards with:
- touching cards as one: in a hand, cards with no unplayed card between them are
  equivalent, so only the highest of each such group is tried;
- a transposition table at trick starts, keyed by both hands, the leader and the
  tricks won so far, holding lower and upper bounds;
- move ordering: on lead the highest card of each suit first; following, the
  cheapest card that wins first, then the lowest card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

INF = 10_000
_SUITS = (0, 8, 16, 24)


def _suit_groups(a: int, r: int) -> tuple[int, ...]:
    """Ranks standing for each group of touching cards of suit byte `a` among the
    unplayed cards `r` of that suit, highest first."""
    out = []
    prev_mine = False
    for rank in range(7, -1, -1):
        if r >> rank & 1:
            here = bool(a >> rank & 1)
            if here and not prev_mine:
                out.append(rank)
            prev_mine = here
    return tuple(out)


_GROUPS: list[tuple[int, ...]] = [
    _suit_groups(i >> 8, (i >> 8) | (i & 0xFF)) for i in range(1 << 16)]


_T = TypeVar("_T")


class _Memo(dict[int, _T]):
    """What `make` gives for a suit's key (`base << 16 | mine << 8 | other`: the suit's
    base, one hand's cards of it, the other unplayed ones), made when first asked for."""

    def __init__(self, make: Callable[[int], _T]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: int) -> _T:
        value = self[key] = self.make(key)
        return value


def _cards(i: int) -> tuple[int, ...]:
    base = i >> 16
    return tuple(base + r for r in _GROUPS[i & 0xFFFF])


_ABS = _Memo(_cards)


def _groups(mine: int, other: int) -> list[int]:
    """One card per group of touching cards in `mine` (masks of one suit or many),
    highest first within each suit."""
    out: list[int] = []
    for base in _SUITS:
        a = (mine >> base) & 0xFF
        if a:
            out += _ABS[base << 16 | a << 8 | ((other >> base) & 0xFF)]
    return out


class Solver:
    """Solve many positions of one deal, sharing a table between calls."""

    def __init__(self, pique: tuple[int, int] | None = None,
                 cards_at_seventh: bool = False) -> None:
        """`pique`: (elder's seat, elder's points in steps I-IV) when younger has scored
        nothing and elder is under 30 with every trick so far his; else None. While
        younger wins no trick, elder has led every trick and scored one a lead, so the
        lead that brings him to 30 scores the pique (or the winning of the last trick,
        or, `cards_at_seventh`, of the seventh, which scores the cards' 10 with it); her
        first trick ends the chance. (Whether it is still alive follows from the hands
        and t0, so the table's keys stay right.)"""
        self.table: dict[tuple[int, int, int, int], tuple[int, int]] = {}
        self.nodes = 0
        self.pique = pique
        self.cards_at_seventh = cards_at_seventh

    # value: points for seat 0 minus points for seat 1 from here to the end of the deal
    def trick_start(self, h0: int, h1: int, leader: int, t0: int, a: int, b: int) -> int:
        if not h0:  # the deal is over (both hands empty together)
            t1 = 12 - t0
            if t0 == 12:
                return 40
            if t1 == 12:
                return -40
            return 10 if t0 > 6 else -10 if t1 > 6 else 0
        key = (h0, h1, leader, t0)
        entry = self.table.get(key)
        if entry is not None:
            lo, hi = entry
            if lo >= b:
                return lo
            if hi <= a:
                return hi
            if lo == hi:
                return lo
            a = max(a, lo)
            b = min(b, hi)
        self.nodes += 1
        a0, b0 = a, b
        lead_hand = h0 if leader == 0 else h1
        other = h1 if leader == 0 else h0
        best = self._best(h0, h1, leader, t0, None, 0, _lead_order(lead_hand, other), a, b)
        self.table[key] = bounds(entry, best, a0, b0)
        return best

    def second(self, h0: int, h1: int, leader: int, t0: int, led: int, a: int, b: int) -> int:
        """The leader has chosen `led`; the follower answers."""
        follower = 1 - leader
        if leader == 0:
            h0 &= ~(1 << led)
        else:
            h1 &= ~(1 << led)
        fh = h1 if follower == 1 else h0
        lh = h0 if leader == 0 else h1
        order = answers(fh, lh, led)
        lead_pt = 1 if leader == 0 else -1
        held = 0
        if self.pique is not None and self.pique[0] == leader:
            lead_pt += self._pique(fh, t0)
            held = self._held(fh, t0)
        return self._best(h0, h1, leader, t0, led, lead_pt, order, a, b, held)

    def _best(self, h0: int, h1: int, leader: int, t0: int, led: int | None, lead_pt: int,
              order: Sequence[int], a: int, b: int, held: int = 0) -> int:
        """Alpha-beta over the cards `order` of the seat to move (seat 0 maximises, seat
        1 minimises) within the window (a, b): the leader's leads, each answered in
        `second`, when `led` is None; else the follower's answers to `led` (both hands
        without it), each closing the trick: the lead's `lead_pt`, the win of a trick
        the other led, the last trick, `held` when the leader wins it (a pique), all
        signed for seat 0, and the next trick on."""
        mover = leader if led is None else 1 - leader
        best = -INF if mover == 0 else INF
        for c in order:
            if led is None:
                v = self.second(h0, h1, leader, t0, c, a, b)
            else:
                wins = c >> 3 == led >> 3 and c > led
                winner = mover if wins else leader
                pts = lead_pt
                if wins:
                    pts += 1 if mover == 0 else -1
                else:
                    pts += held
                n0 = h0 & ~(1 << c) if mover == 0 else h0
                n1 = h1 & ~(1 << c) if mover == 1 else h1
                if not n0 and not n1:
                    pts += 1 if winner == 0 else -1
                nt0 = t0 + (1 if winner == 0 else 0)
                v = pts + self.trick_start(n0, n1, winner, nt0, a - pts, b - pts)
            if mover == 0:
                if v > best:
                    best = v
                if best > a:
                    a = best
            else:
                if v < best:
                    best = v
                if best < b:
                    b = best
            if a >= b:
                break
        return best

    def _pique(self, follower_hand: int, t0: int) -> int:
        assert self.pique is not None
        return pique_at_lead(self.pique, self.cards_at_seventh, follower_hand, t0)

    def _held(self, follower_hand: int, t0: int) -> int:
        assert self.pique is not None
        return pique_at_win(self.pique, self.cards_at_seventh, follower_hand, t0)

    def moves(self, h0: int, h1: int, leader: int, t0: int, led: int | None,
              mover: int) -> dict[int, int]:
        """The exact value (seat 0 minus seat 1, from this trick on, counting the lead
        point of a card already led) of each of `mover`'s distinct legal cards."""
        out: dict[int, int] = {}
        if led is None:
            hand = h0 if mover == 0 else h1
            other = h1 if mover == 0 else h0
            for c in _groups(hand, other):
                out[c] = self.second(h0, h1, leader, t0, c, -INF, INF)
            return out
        # the follower: try each answer with a full window
        fh = h0 if mover == 0 else h1
        lh = h1 if mover == 0 else h0
        suit = fh & (0xFF << (led & 0x18))
        lead_pt = 1 if leader == 0 else -1  # a lead made has scored its pique, if any
        held = 0
        if self.pique is not None and self.pique[0] == leader:
            held = self._held(fh, t0)
        for c in _groups(suit if suit else fh, lh | (1 << led)):
            out[c] = self._best(h0, h1, leader, t0, led, lead_pt, (c,), -INF, INF, held)
        return out


_N = TypeVar("_N", int, float)


def bounds(entry: tuple[_N, _N] | None, best: _N, a: _N, b: _N) -> tuple[_N, _N]:
    """A position's bounds in the table once searched within the window (a, b) to
    `best`: an upper bound if it failed low, a lower one if it failed high, else exact;
    `entry` the bounds it had."""
    lo, hi = entry if entry is not None else (-INF, INF)
    if best <= a:
        return lo, min(hi, best)
    if best >= b:
        return max(lo, best), hi
    return best, best


def pique_at_lead(pique: tuple[int, int], cards_at_seventh: bool, follower_hand: int,
                  t0: int) -> int:
    """The pique elder (the leader) scores with this lead, signed for seat 0: 30 if
    he has won every trick so far and this lead is his thirtieth point (`Solver`)."""
    elder, base = pique
    played = 12 - bin(follower_hand).count("1")
    mine = t0 if elder == 0 else played - t0
    cards = 10 if cards_at_seventh and played >= 7 else 0
    if mine == played and base + played + 1 + cards == 30:
        return 30 if elder == 0 else -30
    return 0


def pique_at_win(pique: tuple[int, int], cards_at_seventh: bool, follower_hand: int,
                 t0: int) -> int:
    """The pique elder (the leader, every trick so far his) scores by winning this
    trick, signed for seat 0: 30 if the trick's points bring him to 30 (the last
    trick's point; the seventh's 10 for the cards, `cards_at_seventh`)."""
    elder, base = pique
    n = 13 - bin(follower_hand).count("1")  # this trick's number
    mine = t0 if elder == 0 else n - 1 - t0
    if mine != n - 1:
        return 0
    before = base + n + (10 if cards_at_seventh and n > 7 else 0)
    after = before + (1 if n == 12 else 0) + (10 if cards_at_seventh and n == 7 else 0)
    if before < 30 <= after:
        return 30 if elder == 0 else -30
    return 0


def answers(fh: int, lh: int, led: int) -> Sequence[int]:
    """The follower's answers to `led` (`fh` her hand, `lh` the leader's without it), in
    the order tried (`_follow_order`; without the suit, the cheapest first)."""
    base = led & 0x18
    a_suit = (fh >> base) & 0xFF
    if a_suit:
        key = base << 16 | a_suit << 8 | (((lh | (1 << led)) >> base) & 0xFF)
        follow = _FOLLOW.get(key << 3 | (led & 7))
        if follow is None:
            follow = _follow_order(key, led)
        return follow
    return _cheapest_first(_groups(fh, lh | (1 << led)))


_FOLLOW: dict[int, tuple[int, ...]] = {}


def _follow_order(key: int, led: int) -> tuple[int, ...]:
    """Answers to `led` from one suit (`key`: the suit's base, the follower's cards of
    it, the other unplayed ones), in the order tried: the cheapest winner, the lowest
    card, the other winners upwards, the other losers downwards."""
    base = key >> 16
    cards = [base + r for r in _GROUPS[key & 0xFFFF]]
    above = [c for c in cards if c > led]
    below = [c for c in cards if c < led]
    order = tuple(above[::-1][:1] + below[-1:] + above[::-1][1:] + below[:-1])
    _FOLLOW[key << 3 | (led & 7)] = order
    return order


def _lead_parts(i: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    g = _GROUPS[i & 0xFFFF]
    base = i >> 16
    return (base + g[0],), ((base + g[-1],) if len(g) > 1 else ()), tuple(
        base + r for r in g[1:-1])


_LEAD_PARTS = _Memo(_lead_parts)


def _lead_order(mine: int, other: int) -> list[int]:
    """Leads to try: each suit's top group first, then each suit's lowest, then the rest."""
    tops: list[int] = []
    lows: list[int] = []
    middles: list[int] = []
    for base in _SUITS:
        a = (mine >> base) & 0xFF
        if a:
            parts = _LEAD_PARTS[base << 16 | a << 8 | ((other >> base) & 0xFF)]
            tops += parts[0]
            lows += parts[1]
            middles += parts[2]
    return tops + lows + middles


def _cheapest_first(cards: list[int]) -> list[int]:
    return sorted(cards, key=lambda c: c & 7)


def expand(card: int, hand: int, other: int) -> int:
    """The group of touching cards `card` stands for (a mask within `hand`)."""
    rest = hand | other
    base = card & 0x18
    out = 1 << card
    r = card - 1
    while r >= base and rest >> r & 1 and hand >> r & 1:
        out |= 1 << r
        r -= 1
    return out
