"""The play of a deal of Piquet au cent, both hands known (RULES.md §8): solver.py's
search, where points count in the order they are made and the game ends the moment a
seat reaches 100 (nothing after that point is scored).

`Race(need, value, pique, cards_at_seventh)`: seat 0 needs `need[0]` more points to
reach 100 and seat 1 `need[1]`; `value(p0, p1, winner)` is what the deal's end is worth
to seat 0, p0 and p1 being the points each seat made in the search: `winner` the seat
that reached 100 (the game ends there), or None when the deal was played to its end
and the cards scored. The points counted are solver.py's (a lead, a trick won on the
other's lead, the last trick, the cards or capot, elder's pique), each the moment it is
made: the lead's point before the trick's, the cards' 10 at the seventh trick with the
cards towards pique. The search carries both seats' points, so its table's keys hold
them too; the same cards as one, and the same orders of leads and answers, as solver.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from engine.computer.solver import (
    INF,
    _groups,
    _lead_order,
    answers,
    bounds,
    pique_at_lead,
    pique_at_win,
)

Value = Callable[[int, int, int | None], float]


class Race:
    """Solve many positions of one deal of Piquet au cent, sharing a table between calls
    (module docstring)."""

    def __init__(self, need: tuple[int, int], value: Value,
                 pique: tuple[int, int] | None = None, cards_at_seventh: bool = False) -> None:
        self.need = need
        self.value = value
        self.pique = pique
        self.cards_at_seventh = cards_at_seventh
        self.table: dict[tuple[int, int, int, int, int, int], tuple[float, float]] = {}
        self.nodes = 0

    def moves(self, h0: int, h1: int, leader: int, t0: int, led: int | None,
              mover: int) -> dict[int, float]:
        """The value (`value`, for seat 0) of each of `mover`'s distinct legal cards, the
        points counted from here (a card already led has scored). A seat that needs
        nothing more (its calls after the first lead reach 100 before it) has won
        whatever is played."""
        hand, other = (h0, h1) if mover == 0 else (h1, h0)
        if led is not None:
            suit = hand & (0xFF << (led & 0x18))
            hand, other = suit or hand, other | (1 << led)
        cards = _groups(hand, other)
        for seat in (0, 1):
            if self.need[seat] <= 0:
                return dict.fromkeys(cards, self.value(0, 0, seat))
        if led is None:
            return {c: self._lead(h0, h1, leader, t0, 0, 0, c, -INF, INF) for c in cards}
        held = self._held(leader, h0 if mover == 0 else h1, t0)
        return {c: self._close(h0, h1, leader, t0, 0, 0, led, held, c, -INF, INF)
                for c in cards}

    def _start(self, h0: int, h1: int, leader: int, t0: int, p0: int, p1: int,
               a: float, b: float) -> float:
        """A trick to lead: its value within the window (a, b), the table's bounds kept."""
        if not h0:
            return self._cards(t0, p0, p1)
        key = (h0, h1, leader, t0, p0, p1)
        entry = self.table.get(key)
        if entry is not None:
            lo, hi = entry
            if lo >= b or lo == hi:
                return lo
            if hi <= a:
                return hi
            a, b = max(a, lo), min(b, hi)
        self.nodes += 1
        a0, b0 = a, b
        hand, other = (h0, h1) if leader == 0 else (h1, h0)
        best = self._choose(leader, _lead_order(hand, other), a, b,
                            partial(self._lead, h0, h1, leader, t0, p0, p1))
        self.table[key] = bounds(entry, best, a0, b0)
        return best

    @staticmethod
    def _choose(mover: int, order: Sequence[int], a: float, b: float,
                child: Callable[[int, float, float], float]) -> float:
        """Alpha-beta over `mover`'s cards `order` (seat 0 maximises, seat 1 minimises)."""
        best = float(-INF if mover == 0 else INF)
        for c in order:
            v = child(c, a, b)
            if mover == 0:
                if v > best:
                    best = v
                    if v > a:
                        a = v
            elif v < best:
                best = v
                if v < b:
                    b = v
            if a >= b:
                break
        return best

    def _lead(self, h0: int, h1: int, leader: int, t0: int, p0: int, p1: int, led: int,
              a: float, b: float) -> float:
        """The leader leads `led`: its point (and a pique it makes), then her answers."""
        if leader == 0:
            h0 &= ~(1 << led)
        else:
            h1 &= ~(1 << led)
        fh, lh = (h1, h0) if leader == 0 else (h0, h1)
        points = 1
        if self.pique is not None and self.pique[0] == leader:
            points += abs(pique_at_lead(self.pique, self.cards_at_seventh, fh, t0))
        p0, p1 = (p0 + points, p1) if leader == 0 else (p0, p1 + points)
        if (p0 if leader == 0 else p1) >= self.need[leader]:
            return self.value(p0, p1, leader)
        held = self._held(leader, fh, t0)
        return self._choose(1 - leader, answers(fh, lh, led), a, b,
                            partial(self._close, h0, h1, leader, t0, p0, p1, led, held))

    def _held(self, leader: int, follower_hand: int, t0: int) -> int:
        """The pique the leader (elder) makes by winning this trick: 30 or nothing."""
        if self.pique is None or self.pique[0] != leader:
            return 0
        return abs(pique_at_win(self.pique, self.cards_at_seventh, follower_hand, t0))

    def _close(self, h0: int, h1: int, leader: int, t0: int, p0: int, p1: int, led: int,
               held: int, card: int, a: float, b: float) -> float:
        """The follower plays `card` to `led`: the trick's points to its winner, then the
        next trick, unless the winner has reached 100."""
        follower = 1 - leader
        wins = card >> 3 == led >> 3 and card > led
        winner = follower if wins else leader
        if follower == 0:
            h0 &= ~(1 << card)
        else:
            h1 &= ~(1 << card)
        points = 1 if wins else held
        if not h0:
            points += 1  # the last trick
        t0 += 1 if winner == 0 else 0
        if self.cards_at_seventh:
            played = 12 - bin(h0).count("1")
            if (t0 if winner == 0 else played - t0) == 7:
                points += 10  # the cards, at the seventh trick
        p0, p1 = (p0 + points, p1) if winner == 0 else (p0, p1 + points)
        if points and (p0 if winner == 0 else p1) >= self.need[winner]:
            return self.value(p0, p1, winner)
        return self._start(h0, h1, winner, t0, p0, p1, a, b)

    def _cards(self, t0: int, p0: int, p1: int) -> float:
        """The twelve tricks played: the cards (10, at the seventh trick with the cards
        towards pique) or capot (40 in all), then the deal's end."""
        t1 = 12 - t0
        seat, points = None, 0
        if t0 == 12 or t1 == 12:
            seat, points = (0 if t0 == 12 else 1), 30 if self.cards_at_seventh else 40
        elif t0 != t1 and not self.cards_at_seventh:
            seat, points = (0 if t0 > 6 else 1), 10
        if seat is not None:
            p0, p1 = (p0 + points, p1) if seat == 0 else (p0, p1 + points)
            if (p0 if seat == 0 else p1) >= self.need[seat]:
                return self.value(p0, p1, seat)
        return self.value(p0, p1, None)
