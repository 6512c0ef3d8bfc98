"""Deals consistent with what one seat has seen and heard (knowledge.py).

A sample is the opponent's hand now (a mask): the cards she certainly holds, and the
rest drawn from the cards whose place the seat does not know, never from a suit she
has shown out of; it is kept only if, with the cards she has played, it makes every
call she made (she may sink, never overstate). Draws come from a generator the
caller seeds from the view, so the same view gives the same samples.
"""

from __future__ import annotations

import random

from engine.computer.knowledge import SUIT_MASK, Knowledge, bits, holds

TRIES = 60  # draws per sample before settling for the one that broke fewest calls


def sample_hands(k: Knowledge, n: int, rng: random.Random) -> list[int]:
    """`n` hands she may hold now, each consistent with everything seen and said."""
    pool = (k.unknown | k.opp_maybe) & ~k.hand & ~k.played
    for s in k.voids:
        pool &= ~SUIT_MASK[s]
    pool &= ~k.opp_known
    cards = bits(pool)
    need = k.opp_hand_count - bin(k.opp_known).count("1")
    need = max(0, min(need, len(cards)))
    out: list[int] = []
    for _ in range(n):
        best = 0
        best_broken = 99
        for _ in range(TRIES):
            h = k.opp_known
            for c in rng.sample(cards, need):
                h |= 1 << c
            at_call = h | k.opp_played
            broken = sum(1 for claim in k.claims if not holds(claim, at_call))
            if broken < best_broken:
                best, best_broken = h, broken
                if not broken:
                    break
        out.append(best)
    return out


def sample_before_exchange(k: Knowledge, rng: random.Random) -> tuple[int, list[int]]:
    """Before the exchange is over: her hand now and the stock she or I may still draw
    from, top first (unknown cards only; the caller puts known stock cards on top)."""
    pool = bits((k.unknown | k.opp_maybe) & ~k.hand & ~k.played & ~k.opp_known)
    rng.shuffle(pool)
    need = max(0, k.opp_hand_count - bin(k.opp_known).count("1"))
    h = k.opp_known
    for c in pool[:need]:
        h |= 1 << c
    return h, pool[need:]
