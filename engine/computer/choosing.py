"""How the good and strong levels choose: each decides the steps it has its own way
for (its table of steps) and leaves everything else to a weaker level."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.computer import basic

Action = dict[str, Any]
View = dict[str, Any]
Decide = Callable[[View, list[Action]], Action]


def choose_by_step(view: View, press_next_deal: bool, by_step: Mapping[str, Decide],
                   otherwise: Callable[[View, bool], Action]) -> Action:
    """The action for this seat's view: a carte blanche as basic announces it; on its
    turn, a step in `by_step` by that step's own decision (unless it may ask to see);
    anything else as `otherwise` (the weaker level's `choose`) decides it."""
    legal: list[Action] = view["legal"]
    if any(e["type"] == "carte_blanche" for e in legal):
        # Announced, as elder too (among his exchange's choices): ten points, and the
        # hand is shown either way once the play begins. (Its exchange search weighed
        # only discards, and so threw a carte blanche away.)
        return basic.choose(view, press_next_deal)
    if view["to_move"] == view["seat"] and not any(e["type"] == "see" for e in legal):
        decide = by_step.get(view["step"])
        if decide is not None:
            return decide(view, legal)
    return otherwise(view, press_next_deal)
