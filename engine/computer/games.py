"""Piquet au cent for the strong level (RULES.md §8): what a game's scores are worth.

A game is 100 up; the first to reach it wins, a double when the loser has under 50; the
partie goes to the first to three games, a double counting two. So points count only
on the way to 100, and by where they bring each seat: 20 points that take me from 85 to
105 while she has 40 win a double game; the same 20 from 10 to 30 are worth a little.

`equity(mine, hers, elder_next, won)`: what the game stands at between two deals is
worth to me, in games (a win +1, a double +2, a loss -1 or -2; a double counts one
game only where one is all a seat needs for the partie). It is read from a table worked
out once: over how deals score (`DEALS`: elder's and younger's points in a deal, in
bins of 10, as the good level scored them against itself over 2,400 deals of Rubicon
Piquet), the chance, from each pair of scores, that each seat wins the game and that it
is a double, deal after deal until one reaches 100 (the deal alternating).

`deal_value(mine, hers, gain, her_gain, ...)`: a deal's outcome from where the deal
stands (each seat's points to come), as `equity` after it, or as the game it wins when a
seat reaches 100 on the way: whoever reaches 100 sooner in the deal's order (its points
counted as if they came evenly), the loser's score then telling whether it is a double.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from engine.variants import DOUBLE_UNDER, GAME_TO, PARTIE_GAMES

# Deals as the good level scored them against itself (Rubicon Piquet, 2,408 deals):
# (elder's points // 10, younger's points // 10): how many deals, the last bin (12)
# 120 or more. Elder's pique and repique make the long tail (70+ points).
DEALS: dict[tuple[int, int], int] = {
    (0, 1): 20, (0, 2): 87, (0, 3): 126, (0, 4): 95, (0, 5): 1, (0, 7): 4, (0, 10): 5,
    (0, 11): 13, (0, 12): 1,
    (1, 0): 33, (1, 1): 140, (1, 2): 195, (1, 3): 103, (1, 4): 17, (1, 5): 1, (1, 6): 2,
    (1, 7): 4, (1, 9): 1, (1, 10): 6,
    (2, 0): 112, (2, 1): 237, (2, 2): 273, (2, 3): 41, (2, 4): 11, (2, 6): 3, (2, 7): 3,
    (2, 9): 5, (2, 10): 5,
    (3, 0): 205, (3, 1): 122, (3, 2): 54, (3, 3): 2, (3, 9): 1,
    (4, 0): 86, (4, 1): 60, (4, 2): 11,
    (5, 0): 5, (5, 1): 8, (5, 2): 12, (5, 9): 2, (5, 10): 1,
    (6, 0): 17, (6, 1): 12, (6, 2): 4,
    (7, 0): 170, (7, 1): 3, (7, 2): 2,
    (8, 0): 5,
    (9, 2): 8,
    (10, 0): 10, (10, 1): 5,
    (11, 0): 49, (11, 1): 1,
    (12, 0): 9,
}
STEP = 5  # the table's scores: 0, 5, ..., 95 (a deal's points are its bin's middle)
_N = GAME_TO // STEP

# A game's end, for me: (I win, I win a double, she wins, she wins a double), chances.
Ends = tuple[float, float, float, float]


def _outcomes() -> list[tuple[int, int, float]]:
    total = sum(DEALS.values())
    return [(10 * e + 5, 10 * y + 5, n / total) for (e, y), n in sorted(DEALS.items())]


def game_end(mine: float, hers: float, gain: float, her_gain: float, mine_first: bool) -> Ends:
    """Who wins the game when at least one seat reaches 100 with these points to come:
    the one who gets there sooner, the points counted as coming evenly through the deal
    (`mine_first`: mine, when both would reach it at the same moment); a double when the
    loser has under 50 at that moment."""
    mine_at = (GAME_TO - mine) / gain if mine + gain >= GAME_TO and gain > 0 else 2.0
    hers_at = (GAME_TO - hers) / her_gain if hers + her_gain >= GAME_TO and her_gain > 0 else 2.0
    if mine >= GAME_TO:
        mine_at = 0.0
    if hers >= GAME_TO:
        hers_at = 0.0
    if mine_at < hers_at or (mine_at == hers_at and mine_first):
        double = hers + her_gain * mine_at < DOUBLE_UNDER
        return (1.0, 1.0 if double else 0.0, 0.0, 0.0)
    double = mine + gain * hers_at < DOUBLE_UNDER
    return (0.0, 0.0, 1.0, 1.0 if double else 0.0)


@functools.cache
def _tables() -> tuple[list[list[Ends]], list[list[Ends]]]:
    """The chances of each end of the game from scores (i, j) * STEP before a deal, for
    me elder in that deal ([0]) and younger ([1]); worked out when first asked for."""
    outcomes = _outcomes()
    none: Ends = (0.0, 0.0, 0.0, 0.0)
    tables = ([[none] * _N for _ in range(_N)], [[none] * _N for _ in range(_N)])
    for total in range(2 * _N - 2, -1, -1):  # every deal scores: later scores first
        for i in range(max(0, total - _N + 1), min(total, _N - 1) + 1):
            j = total - i
            for younger in (0, 1):
                w = wd = l_ = ld = 0.0
                after = tables[1 - younger]
                for e, y, p in outcomes:
                    gain, her_gain = (y, e) if younger else (e, y)
                    a, b = i * STEP + gain, j * STEP + her_gain
                    if a >= GAME_TO or b >= GAME_TO:
                        ends = game_end(i * STEP, j * STEP, gain, her_gain, not younger)
                    else:
                        ends = after[a // STEP][b // STEP]
                    w += p * ends[0]
                    wd += p * ends[1]
                    l_ += p * ends[2]
                    ld += p * ends[3]
                tables[younger][i][j] = (w, wd, l_, ld)
    return tables


def chances(mine: float, hers: float, elder_next: bool) -> Ends:
    """The chances of each end of the game (`Ends`) from these scores, both under 100,
    before a deal in which I am elder or not: the table, read between its points."""
    table = _tables()[0 if elder_next else 1]
    x = min(max(mine, 0.0), GAME_TO - 1e-9) / STEP
    y = min(max(hers, 0.0), GAME_TO - 1e-9) / STEP
    i, j = min(int(x), _N - 1), min(int(y), _N - 1)
    fx, fy = x - i, y - j
    i1, j1 = min(i + 1, _N - 1), min(j + 1, _N - 1)
    out = [0.0, 0.0, 0.0, 0.0]
    for (a, b, w) in ((i, j, (1 - fx) * (1 - fy)), (i1, j, fx * (1 - fy)),
                      (i, j1, (1 - fx) * fy), (i1, j1, fx * fy)):
        if w:
            for k in range(4):
                out[k] += w * table[a][b][k]
    return (out[0], out[1], out[2], out[3])


def worth(ends: Ends, won: Sequence[int], me: int) -> float:
    """The ends of a game as games towards the partie, for seat `me` (`won`: each seat's
    games so far, a double counting two): a win 1, a double 2 unless one game is all the
    winner needs, a loss the same against."""
    need = PARTIE_GAMES - won[me], PARTIE_GAMES - won[1 - me]
    double_mine = 1.0 if need[0] > 1 else 0.0
    double_hers = 1.0 if need[1] > 1 else 0.0
    return ends[0] + double_mine * ends[1] - ends[2] - double_hers * ends[3]


def equity(mine: float, hers: float, elder_next: bool, won: Sequence[int], me: int) -> float:
    """What scores (mine, hers) before a deal are worth to seat `me`, in games (`worth`)."""
    return worth(chances(mine, hers, elder_next), won, me)


def deal_value(mine: float, hers: float, gain: float, her_gain: float, elder: bool,
               won: Sequence[int], me: int) -> float:
    """What the deal under way is worth to seat `me`, in games, when from scores (mine,
    hers) I score `gain` more in it and she `her_gain` (`elder`: I am elder in it)."""
    gain, her_gain = max(gain, 0.0), max(her_gain, 0.0)
    if mine + gain >= GAME_TO or hers + her_gain >= GAME_TO:
        return worth(game_end(mine, hers, gain, her_gain, elder), won, me)
    return equity(mine + gain, hers + her_gain, not elder, won, me)
