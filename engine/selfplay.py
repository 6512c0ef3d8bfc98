"""Self-play: complete parties between two policies, and what came of them.

    python -m engine.selfplay --parties 200 --seed 1 [--a strong --b basic] [--rules R]

A side is a computer level (basic, good, strong; "computer" is basic) or "random".
`--rules` names the variants the parties are played under (RULES.md §8), separated by
commas: au_cent, cards_towards_pique, carte_rouge, one_more (e.g. `--rules
au_cent,carte_rouge`); left out, or "rubicon", Rubicon Piquet.

A policy is a function from one seat's view to one of that view's legal actions
(the view's entry without its label; the discard template filled in). It is only
asked when the view offers it something: on its turn, or out of turn when it may
ask to see a combination or press "Deal next hand". Side A takes seat 0 in even
parties and seat 1 in odd ones. Everything is seeded: the same `--seed` plays the
same parties.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine
from engine.computer import LEVELS
from engine.state import State, Step
from engine.variants import RUBICON, Rules

View = dict[str, Any]
Action = dict[str, Any]
Policy = Callable[[View], Action]
PolicyFactory = Callable[[random.Random], Policy]

BONUS_KINDS = ("pique", "repique", "capot", "carte_blanche")
MAX_ACTIONS = 20_000  # per partie; a partie is a few hundred actions


def level_policy(name: str) -> PolicyFactory:
    """A computer level (engine.computer.LEVELS); it presses "Deal next hand" when asked.
    Its own randomness comes from the view, so the factory's generator is not used."""

    def factory(rng: random.Random) -> Policy:
        return functools.partial(LEVELS[name].choose, press_next_deal=True)

    return factory


computer_policy = level_policy("basic")


def random_policy(rng: random.Random) -> Policy:
    """A uniformly random legal entry; a discard of random size and cards, random exposure."""

    def choose(view: View) -> Action:
        entry = rng.choice(view["legal"])
        if entry["type"] == "discard":
            k = rng.randint(entry["min"], entry["max"])
            cards = rng.sample(view["hand"], k)
            expose = bool(entry["expose_choice"]) and rng.random() < 0.5
            return {"type": "discard", "cards": cards, "expose": expose}
        return {k: v for k, v in entry.items() if k not in ("label", "say")}

    return choose


POLICIES: dict[str, PolicyFactory] = {
    "computer": computer_policy, "random": random_policy,
    **{name: level_policy(name) for name in LEVELS}}


@dataclass
class PartieRecord:
    """One partie as seen from its seats: seat 0 and seat 1."""

    seed: int
    result: dict[str, Any] | None = None  # the view's result at partie_over
    deals: list[tuple[int, int]] = field(default_factory=list)  # the score sheet
    bonuses: list[dict[str, Any]] = field(default_factory=list)  # every deal's, from the view
    games: list[tuple[int, bool]] = field(default_factory=list)  # au cent: (winner, double)
    actions: int = 0
    errors: list[str] = field(default_factory=list)


def _who_acts(state: State) -> int:
    """Out-of-turn requests (asking to see) first, then the seat to move; at the end of a
    deal, whoever has something to see, else seat 0 (who presses "Deal next hand")."""
    if state.to_move is None:
        for seat in (0, 1):
            if any(isinstance(a, engine.See) for a, _ in engine.legal(state, seat)):
                return seat
        return 0
    other = 1 - state.to_move
    return other if engine.legal(state, other) else state.to_move


def play_partie(policies: Sequence[Policy], seed: int, rules: Rules = RUBICON) -> PartieRecord:
    """Play one partie under `rules` from the cut to the end; `policies[i]` plays seat i.
    A refused action or a policy's exception is recorded in `errors` and ends the
    partie."""
    record = PartieRecord(seed)
    state = engine.new_partie(seed, rules=rules)
    while state.step is not Step.PARTIE_OVER:
        if record.actions >= MAX_ACTIONS:
            record.errors.append(f"partie {seed}: no end after {MAX_ACTIONS} actions")
            return record
        seat = _who_acts(state)
        v = engine.view(state, seat)
        action: Any = None
        try:
            action = policies[seat](v)
            state = engine.apply(state, seat, action)
        except Exception as exc:  # an error is a finding, not a crash of the run
            record.errors.append(
                f"partie {seed}, deal {v['deal_number']}, {v['step']}, seat {seat}: "
                f"{action!r}: {type(exc).__name__}: {exc}")
            return record
        record.actions += 1
        if state.step in (Step.DEAL_OVER, Step.PARTIE_OVER) and v["step"] not in (
                "deal_over", "partie_over"):
            record.bonuses.extend(engine.view(state, 0)["bonuses"])
    end = engine.view(state, 0)
    record.result = end["result"]
    record.deals = [(a, b) for a, b in end["scores"]["sheet"]]
    if end["games"] is not None:
        record.games = [(g["winner"], g["double"]) for g in end["games"]["finished"]]
    return record


@dataclass
class Summary:
    """Totals over many parties, by side (A, B) rather than by seat."""

    names: tuple[str, str]
    parties: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    # Rubicon points, + when A wins; au cent: A's games less B's, a double counting two
    results: list[int] = field(default_factory=list)
    deals: int = 0
    points: list[int] = field(default_factory=lambda: [0, 0])
    bonuses: Counter[tuple[str, int]] = field(default_factory=Counter)  # (kind, side)
    games: Counter[tuple[bool, int]] = field(default_factory=Counter)  # au cent: (double, side)
    errors: list[str] = field(default_factory=list)

    def add(self, record: PartieRecord, side_of_seat: tuple[int, int]) -> None:
        self.parties += 1
        self.errors.extend(record.errors)
        if record.result is None:
            return
        winner = record.result["winner"]
        if winner is None:
            self.draws += 1
        else:
            self.wins[side_of_seat[winner]] += 1
        if record.games:
            totals = record.result["totals"]
            self.results.append(totals[side_of_seat.index(0)] - totals[side_of_seat.index(1)])
        else:
            sign = 0 if winner is None else 1 if side_of_seat[winner] == 0 else -1
            self.results.append(record.result["points"] * sign)
        for row in record.deals:
            self.deals += 1
            for seat in (0, 1):
                self.points[side_of_seat[seat]] += row[seat]
        for b in record.bonuses:
            self.bonuses[(b["kind"], side_of_seat[b["seat"]])] += 1
        for winner, double in record.games:
            self.games[(double, side_of_seat[winner])] += 1

    def lines(self) -> list[str]:
        a, b = self.names
        mean = statistics.fmean(self.results) if self.results else 0.0
        spread = statistics.pstdev(self.results) if self.results else 0.0
        deals = max(self.deals, 1)
        out = [
            f"{self.parties} parties, {self.deals} deals: A = {a}, B = {b} (seats alternate)",
            f"wins      A {self.wins[0]}  B {self.wins[1]}  draws {self.draws}",
        ]
        if self.games:
            won = [self.games[(False, x)] + self.games[(True, x)] for x in (0, 1)]
            out += [f"games     A {won[0]} ({self.games[(True, 0)]} doubles)  B {won[1]} "
                    f"({self.games[(True, 1)]} doubles)",
                    f"result    mean {mean:+.2f} games (for A), stdev {spread:.2f}"]
        else:
            out.append(f"rubicon   mean {mean:+.1f} (for A), stdev {spread:.1f}")
        out += [
            f"per deal  A {self.points[0] / deals:.1f} points  B {self.points[1] / deals:.1f}"
            " points",
        ]
        for kind in (*BONUS_KINDS, "carte_rouge"):
            n = [self.bonuses[(kind, side)] for side in (0, 1)]
            if kind not in BONUS_KINDS and not any(n):
                continue
            out.append(f"{kind.replace('_', ' '):13} A {n[0]:4} ({100 * n[0] / deals:.1f}% of "
                       f"deals)  B {n[1]:4} ({100 * n[1] / deals:.1f}%)")
        out.append(f"errors    {len(self.errors)}")
        return out


def run(parties: int, seed: int, a: str = "computer", b: str = "random",
        each: Callable[[range], Iterable[int]] = iter, rules: Rules = RUBICON) -> Summary:
    """Play `parties` parties of side A against side B under `rules`, seats alternating.
    `each` goes over the parties' numbers (the command line passes a progress bar: the
    engine itself does no I/O)."""
    master = random.Random(seed)
    summary = Summary((a, b))
    for i in each(range(parties)):
        partie_seed = master.getrandbits(64)
        sides = (POLICIES[a](random.Random(master.getrandbits(64))),
                 POLICIES[b](random.Random(master.getrandbits(64))))
        # Side A sits in seat 0 in even parties, seat 1 in odd ones.
        side_of_seat = (0, 1) if i % 2 == 0 else (1, 0)
        seats = (sides[side_of_seat[0]], sides[side_of_seat[1]])
        summary.add(play_partie(seats, partie_seed, rules), side_of_seat)
    return summary


def rules_argument(text: str) -> Rules:
    """`--rules`' value (`Rules.from_names`), refused in words."""
    try:
        return Rules.from_names(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: the only part of this module that reads or writes anything."""
    parser = argparse.ArgumentParser(prog="python -m engine.selfplay", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parties", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--a", choices=sorted(POLICIES), default="computer")
    parser.add_argument("--b", choices=sorted(POLICIES), default="random")
    parser.add_argument("--rules", type=rules_argument, default=RUBICON, metavar="NAMES",
                        help="the variants, separated by commas: au_cent, "
                             "cards_towards_pique, carte_rouge, one_more (e.g. "
                             "au_cent,carte_rouge; default: Rubicon Piquet)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar on stderr (default: from 20 parties up)")
    args = parser.parse_args(argv)
    progress = args.parties >= 20 if args.progress is None else args.progress
    each: Callable[[range], Iterable[int]] = iter
    if progress:
        from tqdm import tqdm

        each = functools.partial(tqdm, unit="partie", file=sys.stderr)
    summary = run(args.parties, args.seed, args.a, args.b, each, args.rules)
    print("\n".join(summary.lines()))
    for error in summary.errors[:10]:
        print(error, file=sys.stderr)
    return 1 if summary.errors else 0


if __name__ == "__main__":
    sys.exit(main())
