"""Engine speed: complete random deals for a few seconds, legal actions listed at every step.

Run by hand: `.venv/bin/python tests/bench/engine.py [seconds] [--against DIR]`. The last
line prints deals per second and actions per second under `Rules()` (target: 3,000
deals/s on one core, quiet machine; issue 11). The line before it gives the deals per
second of CPU time, the steadier figure on a shared machine.

`--against DIR`: DIR is another checkout of the project (e.g. `git worktree add
/tmp/base <commit>`); its engine plays the same deals in a second process, in turns with
this one (three rounds each, the best CPU figure of each kept). Each variant's figure
(RULES.md §8) comes first; the last two lines are the other checkout's figure and this
one's under `Rules()` with their ratio.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]


def play_deals(seconds: float, rules: Any = None, seed: int = 1) -> tuple[int, int, float]:
    import engine
    from engine.rules import DiscardRule

    rng = random.Random(seed)
    deals = actions = 0
    start = time.perf_counter()
    partie = 0
    options_of: dict[str, Any] = {} if rules is None else {"rules": rules}
    while time.perf_counter() - start < seconds:
        partie += 1
        s = engine.new_partie(seed=partie, first_dealer=partie % 2, **options_of)
        while s.step is not engine.Step.PARTIE_OVER:
            if s.step is engine.Step.DEAL_OVER:
                deals += 1
                s = engine.apply(s, 0, engine.NextDeal())
                actions += 1
                continue
            seat = s.to_move
            assert seat is not None
            options = engine.legal(s, seat)  # what the server and the computer ask for
            action, _ = options[rng.randrange(len(options))]
            if isinstance(action, DiscardRule):
                k = rng.randint(action.min, action.max)
                action = engine.Discard(tuple(rng.sample(s.hands[seat], k)))
            s = engine.apply(s, seat, action)
            actions += 1
        deals += 1
    return deals, actions, time.perf_counter() - start


def measure(seconds: float, rules: Any = None) -> dict[str, float]:
    cpu = time.process_time()
    deals, actions, elapsed = play_deals(seconds, rules)
    cpu = time.process_time() - cpu
    return {"deals": deals, "actions": actions, "elapsed": elapsed, "cpu": cpu,
            "per_cpu": deals / cpu, "per_s": deals / elapsed}


def _child(root: str, seconds: float) -> None:
    """Run by --against: measure the engine of checkout `root` (no rules: it may predate
    them) and print the figures as JSON."""
    sys.path.insert(0, root)
    print(json.dumps(measure(seconds)))


def _in_child(root: Path, seconds: float) -> dict[str, float]:
    out = subprocess.run([sys.executable, str(HERE), "--child", str(root), str(seconds)],
                         check=True, capture_output=True, text=True, cwd=root).stdout
    result: dict[str, float] = json.loads(out.splitlines()[-1])
    return result


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] == "--child":
        _child(args[1], float(args[2]))
        return
    against = None
    if "--against" in args:
        i = args.index("--against")
        against = Path(args[i + 1]).resolve()
        del args[i:i + 2]
    seconds = float(args[0]) if args else 5.0
    if against is None:
        sys.path.insert(0, str(ROOT))
        m = measure(seconds)
        print(f"{m['deals']} deals, {m['actions']} actions in {m['elapsed']:.2f} s "
              f"({m['cpu']:.2f} s of CPU time: {m['per_cpu']:.0f} deals/s)")
        print(f"engine: {m['per_s']:.0f} deals/s, {m['actions'] / m['elapsed']:.0f} actions/s")
        return
    # Both in child processes, in turns: neither has the warmer start.
    ours: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    for _ in range(3):
        theirs.append(_in_child(against, seconds))
        ours.append(_in_child(ROOT, seconds))
    sys.path.insert(0, str(ROOT))
    from engine import Rules

    for rules in (Rules(cards_towards_pique=True), Rules(carte_rouge=True),
                  Rules(tie="one_more"), Rules(game="au_cent"),
                  Rules(game="au_cent", cards_towards_pique=True, carte_rouge=True)):
        m = measure(seconds, rules)
        print(f"  {rules.describe()}: {m['per_cpu']:.0f} deals per CPU second")
    a = max(m["per_cpu"] for m in ours)
    b = max(m["per_cpu"] for m in theirs)
    print(f"{against}: {b:.0f} deals per CPU second (best of {len(theirs)})")
    print(f"this checkout, Rules(): {a:.0f} deals per CPU second (best of {len(ours)}): "
          f"{(a / b - 1) * 100:+.1f}%")


if __name__ == "__main__":
    main()
