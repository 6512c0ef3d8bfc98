"""Deals consistent with what one seat has seen and heard (knowledge.py).

A sample is the opponent's hand now (a mask): the cards she certainly holds, and the
rest drawn from the cards whose place the seat does not know, never from a suit she
has shown out of; it is kept only if, with the cards she has played, it makes every
call she made (she may sink, never overstate). Draws come from a generator the
caller seeds from the view, so the same view gives the same samples.
"""

from __future__ import annotations

import random

from engine.computer.knowledge import SUIT_MASK, Knowledge, bits, holds, under

TRIES = 100  # draws per sample before settling for the one that broke fewest calls
SOFT_TRIES = 30  # ... or once past this many, with every call made (a bound may give)
HONEST = 1  # 0: ignore what her calls and answers say she does not hold
# How likely each rank (7 up to the ace) is to be among her discards rather than her
# hand or the stock left: every level, and most players, throw low cards first.
THROW_WEIGHT = (4.0, 3.5, 3.0, 2.2, 1.6, 1.1, 0.6, 0.25)
WEIGHTED_THROWS = 1


def sample_hands(k: Knowledge, n: int, rng: random.Random) -> list[int]:
    """`n` hands she may hold now, each consistent with everything seen and said."""
    pool = (k.unknown | k.opp_maybe) & ~k.hand & ~k.played
    for s in k.voids:
        pool &= ~SUIT_MASK[s]
    pool &= ~k.opp_known
    size = k.opp_hand_count
    out: list[int] = []
    tries = TRIES
    for _ in range(n):
        best = 0
        best_broken = 99
        for t in range(tries):
            if t >= SOFT_TRIES and best_broken < 10:
                break  # every call made; the bounds that are only likely can give
            h = _placed(k, pool, rng)
            free = bits(pool & ~h)
            need = size - bin(h).count("1")
            if need < 0 or need > len(free):
                h = k.opp_known
                free = bits(pool)
                need = max(0, min(size - bin(h).count("1"), len(free)))
            for c in _fill(k, free, need, rng):
                h |= 1 << c
            at_call = h | k.opp_played
            broken = 10 * sum(1 for claim in k.claims if not holds(claim, at_call))
            if HONEST:
                broken += sum(1 for ceiling in k.ceilings if not under(ceiling, at_call))
            if broken < best_broken:
                best, best_broken = h, broken
                if not broken:
                    break
        if best_broken >= 10:
            tries = SOFT_TRIES  # no draw made every call: the next samples try less
        out.append(best)
    return out


def _fill(k: Knowledge, free: list[int], need: int, rng: random.Random) -> list[int]:
    """`need` of the `free` cards for her hand. The rest of them are her discards and
    any stock nobody saw; her discards are drawn first, low cards the likelier (each
    card's key is u ** (1 / weight), the highest keys drawn: a weighted draw without
    replacement), so her hand keeps the high cards a player keeps."""
    throws = min(k.opp_discard_count, len(free) - need) if WEIGHTED_THROWS else 0
    if throws <= 0:
        return rng.sample(free, need)
    keyed = sorted(free, key=lambda c: -rng.random() ** (1.0 / THROW_WEIGHT[c & 7]))
    rest = keyed[throws:]
    return rng.sample(rest, need)


def _placed(k: Knowledge, pool: int, rng: random.Random) -> int:
    """Her known cards, and cards placed to make her set and sequence calls: a set's
    cards of its rank, a sequence's run in a suit where it can lie (chosen at random
    among those places); the point is left to the draw and checked after it."""
    h = k.opp_known
    here = h | k.opp_played  # cards she holds or held since the declaring
    for claim in k.claims:
        if claim.category == "set" and claim.rank is not None:
            cards = [8 * s + claim.rank for s in range(4)]
            have = [c for c in cards if here >> c & 1]
            can = [c for c in cards if pool >> c & 1 and not here >> c & 1]
            want = claim.length - len(have)
            if 0 < want <= len(can):
                for c in rng.sample(can, want):
                    h |= 1 << c
                    here |= 1 << c
        elif claim.category == "sequence":
            places = []
            for s in range(4):
                tops = range(claim.length - 1, 8) if claim.top is None else [claim.top]
                for top in tops:
                    run = [8 * s + top - i for i in range(claim.length)]
                    if all((here | pool) >> c & 1 for c in run):
                        places.append(run)
            if places and not holds(claim, here):
                for c in rng.choice(places):
                    if not here >> c & 1:
                        h |= 1 << c
                        here |= 1 << c
    return h


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
