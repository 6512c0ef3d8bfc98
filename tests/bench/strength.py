"""How much stronger one computer level is than another, over paired parties.

    .venv/bin/python tests/bench/strength.py A B [--parties N] [--jobs 2] [--seed 1]
        [--rules NAMES]

A and B are levels (basic, good, strong) or "random". Each pair plays the same partie
seed twice, seats swapped, so both sides hold the same cards in the same seats once
each: the luck of the deal cancels out of the margin. N counts pairs (2N parties).
`--rules` plays them under the variants named (RULES.md §8, as `python -m
engine.selfplay --rules`: au_cent, cards_towards_pique, carte_rouge, one_more).

It prints each side's points per deal, A's margin per deal (A minus B) with its 95%
interval (over pairs, normal approximation), and A's partie win rate (a draw counts
half) with its 95% interval. The last line is the margin and the win rate. Under Piquet
au cent, where the partie is games, the last line is each side's games won (and how
many of them doubles) and A's margin in games a pair (A's games less B's over the
pair's two parties, a double counting two) with its 95% interval, and the win rate.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.selfplay import POLICIES, play_partie, rules_argument
from engine.variants import RUBICON, Rules


@dataclass
class Pair:
    """One seed played twice; everything from side A's point of view."""

    seed: int
    deals: int  # over both parties
    points: tuple[int, int]  # side A's and side B's points over both parties
    wins: float  # A's parties won out of 2 (a draw is a half)
    errors: list[str]
    # au cent: side A's and side B's games, and of them doubles, over both parties
    games: tuple[int, int] = (0, 0)
    doubles: tuple[int, int] = (0, 0)


def play_pair(a: str, b: str, seed: int, rules: Rules = RUBICON) -> Pair:
    deals = 0
    points = [0, 0]
    wins = 0.0
    games = [0, 0]
    doubles = [0, 0]
    errors: list[str] = []
    for a_seat in (0, 1):
        rng = random.Random(seed)
        side_a = POLICIES[a](random.Random(rng.getrandbits(64)))
        side_b = POLICIES[b](random.Random(rng.getrandbits(64)))
        seats = (side_a, side_b) if a_seat == 0 else (side_b, side_a)
        record = play_partie(seats, seed, rules)
        errors.extend(record.errors)
        if record.result is None:
            continue
        for row in record.deals:
            deals += 1
            points[0] += row[a_seat]
            points[1] += row[1 - a_seat]
        for winner, double in record.games:
            side = 0 if winner == a_seat else 1
            games[side] += 1
            doubles[side] += double
        winner = record.result["winner"]
        wins += 0.5 if winner is None else float(winner == a_seat)
    return Pair(seed, deals, (points[0], points[1]), wins, errors, (games[0], games[1]),
                (doubles[0], doubles[1]))


def _play(args: tuple[str, str, int, Rules]) -> Pair:
    return play_pair(*args)


def interval(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", choices=sorted(POLICIES))
    parser.add_argument("b", choices=sorted(POLICIES))
    parser.add_argument("--parties", type=int, default=100, help="pairs of parties")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, default=0,
                        help="also print the margin so far every this many pairs")
    parser.add_argument("--rules", type=rules_argument, default=RUBICON, metavar="NAMES",
                        help="the variants, separated by commas (default: Rubicon Piquet)")
    args = parser.parse_args(argv)
    master = random.Random(args.seed)
    tasks = [(args.a, args.b, master.getrandbits(63), args.rules)
             for _ in range(args.parties)]
    pairs: list[Pair] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for pair in tqdm(pool.map(_play, tasks, chunksize=1), total=len(tasks),
                         unit="pair", file=sys.stderr):
            pairs.append(pair)
            if args.every and len(pairs) % args.every == 0 and len(pairs) < len(tasks):
                print(f"after {len(pairs)} pairs: {summary(args.a, args.b, pairs)}", flush=True)
    errors = [e for p in pairs for e in p.errors]
    deals = sum(p.deals for p in pairs) or 1
    print(f"{len(pairs)} pairs ({2 * len(pairs)} parties, {deals} deals), seed {args.seed}: "
          f"A = {args.a}, B = {args.b}, {args.rules.describe()}")
    print(f"points per deal   A {sum(p.points[0] for p in pairs) / deals:.2f}   "
          f"B {sum(p.points[1] for p in pairs) / deals:.2f}")
    print(f"errors            {len(errors)}")
    for error in errors[:5]:
        print(f"  {error}")
    print(summary(args.a, args.b, pairs))
    return 1 if errors else 0


def summary(a: str, b: str, pairs: list[Pair]) -> str:
    """The last line: A's margin a deal and win rate, each with its 95% interval; under
    au cent the games each side won and A's margin in games a pair instead of points."""
    rate, r_half = interval([p.wins / 2 for p in pairs])
    wins = f"wins {100 * rate:.1f}% ± {100 * r_half:.1f}% of parties"
    if any(sum(p.games) for p in pairs):
        won = [sum(p.games[x] for p in pairs) for x in (0, 1)]
        doubles = [sum(p.doubles[x] for p in pairs) for x in (0, 1)]
        margin, m_half = interval([float(p.games[0] + p.doubles[0] - p.games[1] - p.doubles[1])
                                   for p in pairs])
        return (f"{a} v {b}: games {a} {won[0]} ({doubles[0]} doubles), {b} {won[1]} "
                f"({doubles[1]} doubles); margin {margin:+.2f} ± {m_half:.2f} games a pair "
                f"(a double two, 95%), {wins}")
    margin, m_half = interval([(p.points[0] - p.points[1]) / max(p.deals, 1) for p in pairs])
    return f"{a} v {b}: margin {margin:+.2f} ± {m_half:.2f} points a deal (95%), {wins}"


if __name__ == "__main__":
    sys.exit(main())
