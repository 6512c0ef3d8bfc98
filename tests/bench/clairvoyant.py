"""How far above the strong level a player could get: strong made clairvoyant, against basic.

    .venv/bin/python tests/bench/clairvoyant.py --sees all [--parties N] [--jobs 2] [--first 1]

A measuring device, not a level: it patches the strong level's sampling in its own
processes so that strong is told what no seat may know, and measures what that is
worth against basic over paired parties (partie seeds first .. first+N-1, each played
twice, seats swapped). The gap between `--sees nothing` (the strong level as it is) and
`--sees all` bounds what any better reading of the view could still win.

- `nothing`: the strong level itself.
- `hand`: in the play strong searches her true hand (one exact solve a decision instead
  of sampled hands); its exchange is its own.
- `cards`: `hand`, and the exchange knows her hand and the stock: its one world is the
  true one (her exchange is basic's rule, so the final hands are exact), each candidate
  discard still scored by the strong level's estimate of the play.
- `all`: `cards`, each candidate scored by the declarations between the two final hands
  and the solver's exact play value instead of the estimate.

It prints the margin a deal with its 95% interval and the partie win rate; the last
line is the margin and the win rate, like strength.py's.
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.append(str(Path(__file__).resolve().parent))  # strength.py, after the engine

from strength import Pair, summary

import engine
from engine.computer import strong
from engine.computer.knowledge import CARD_OF, mask
from engine.computer.solver import INF, Solver
from engine.selfplay import POLICIES, _who_acts
from engine.state import State, Step

_TRUE_HAND = [0]  # her hand, set before each decision
_TRUE_STOCK: list[int] = []  # the stock, top first, set before each decision


def _exact_outcome(mine: int, theirs: int, i_am_elder: bool) -> float:
    """My points less hers from two final hands: declarations, then the exact play."""
    d = strong._decl(mine, theirs, i_am_elder, pique_chance=False)  # the play counts it
    e = 0 if i_am_elder else 1
    pique = (e, d[e]) if d[1 - e] == 0 and d[e] < 30 else None
    return d[0] - d[1] + Solver(pique).trick_start(mine, theirs, e, 0, -INF, INF)


def _setup(sees: str) -> None:
    """Patch the strong level's names in this process (a measuring device only)."""
    if sees != "nothing":
        strong.sample_hands = lambda k, n, rng: [_TRUE_HAND[0]]  # type: ignore[attr-defined]
    if sees in ("cards", "all"):
        strong.sample_before_exchange = (  # type: ignore[attr-defined]
            lambda k, rng: (_TRUE_HAND[0], list(_TRUE_STOCK)))
        strong.EXCHANGE_SAMPLES = 1  # the one true world
    if sees == "all":
        strong._outcome = _exact_outcome


def _decide(state: State, seat: int, view: dict[str, Any]) -> dict[str, Any]:
    _TRUE_HAND[0] = mask(CARD_OF[c.code] for c in state.hands[1 - seat])
    _TRUE_STOCK[:] = [CARD_OF[c.code] for c in state.stock]
    return strong.choose(view, press_next_deal=True)


def play_pair(seed: int) -> Pair:
    """Partie `seed` twice, the strong side in seat 0 then seat 1; from its point of view."""
    deals = 0
    points = [0, 0]
    wins = 0.0
    for me in (0, 1):
        state = engine.new_partie(seed)
        basic = POLICIES["basic"](None)  # type: ignore[arg-type]
        while state.step is not Step.PARTIE_OVER:
            seat = _who_acts(state)
            view = engine.view(state, seat)
            action = _decide(state, seat, view) if seat == me else basic(view)
            state = engine.apply(state, seat, action)
        end = engine.view(state, 0)
        for row in end["scores"]["sheet"]:
            deals += 1
            points[0] += row[me]
            points[1] += row[1 - me]
        winner = end["result"]["winner"]
        wins += 0.5 if winner is None else float(winner == me)
    return Pair(seed, deals, (points[0], points[1]), wins, [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sees", choices=("nothing", "hand", "cards", "all"), default="all")
    parser.add_argument("--parties", type=int, default=100, help="pairs of parties")
    parser.add_argument("--first", type=int, default=1, help="the first partie seed")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args(argv)
    seeds = range(args.first, args.first + args.parties)
    pairs: list[Pair] = []
    with ProcessPoolExecutor(max_workers=args.jobs, initializer=_setup,
                             initargs=(args.sees,)) as pool:
        for pair in tqdm(pool.map(play_pair, seeds, chunksize=1), total=len(seeds),
                         unit="pair", file=sys.stderr):
            pairs.append(pair)
    deals = sum(p.deals for p in pairs) or 1
    print(f"{len(pairs)} pairs ({2 * len(pairs)} parties, {deals} deals), partie seeds "
          f"{args.first}..{args.first + args.parties - 1}: strong seeing {args.sees} v basic")
    print(f"points per deal   strong {sum(p.points[0] for p in pairs) / deals:.2f}   "
          f"basic {sum(p.points[1] for p in pairs) / deals:.2f}")
    print(summary(f"strong (sees {args.sees})", "basic", pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
