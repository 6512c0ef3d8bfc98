"""The computer players (RULES.md §9 and beyond): one module per level.

A level is a pure policy `choose(view, press_next_deal=False) -> action`: from ONE
seat's view (exactly what a person in that seat sees, never the State) to one of the
view's legal actions. Any randomness it uses is seeded from the view, so the same
view always gives the same decision.

    basic   engine.computer.basic   the product page's player (seed 002), unchanged
    good    engine.computer.good    counts cards, weighs the exchange, sinks, plays for the cards
    strong  engine.computer.strong  samples the hidden cards and solves the play (PIMC)

`from engine.computer import choose` is the basic level, as it always was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.computer import basic, good, strong
from engine.computer.basic import choose, throw_order
from engine.words import W, english

Policy = Callable[..., dict[str, Any]]


@dataclass(frozen=True)
class Level:
    """A computer level: its name, the lobby's one line about it, and its policy."""

    name: str
    description: str
    choose: Policy


# Each level's name and description in words (engine.words: "level.NAME.name" and
# "level.NAME"), as the lobby and the table say them.
W("level.basic.name", "basic")
W("level.good.name", "good")
W("level.strong.name", "strong")
LEVELS: dict[str, Level] = {
    "basic": Level(
        "basic",
        english({"code": W(
            "level.basic",
            "Plays a plain, honest game and sinks nothing: it announces every combination it "
            "holds, takes its full allowance, and never counts to thirty. An experienced hand "
            "will beat it more often than not.")}),
        basic.choose),
    "good": Level(
        "good",
        english({"code": W(
            "level.good",
            "Counts every card it has seen, weighs what it keeps in the exchange, sinks when "
            "concealment pays, and plays to win the cards.")}),
        good.choose),
    "strong": Level(
        "strong",
        english({"code": W(
            "level.strong",
            "Reads the table: it imagines the hands you could hold after all that was said "
            "and played, and searches the play to the end of the deal.")}),
        strong.choose),
}
DEFAULT_LEVEL = "basic"


def level(name: str) -> Level:
    """The level called `name`; a clear `ValueError` for any other name."""
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(
            f"unknown computer level {name!r}: choose one of {', '.join(LEVELS)}") from None


def decide(name: str, view: dict[str, Any], press_next_deal: bool = False) -> dict[str, Any]:
    """The level `name`'s action for `view`: a plain function, so a process pool can run it."""
    return level(name).choose(view, press_next_deal)


def warm() -> None:
    """Nothing: a worker that runs it has imported every level (and built the solver's
    tables), so the first real decision takes no longer than any other."""


__all__ = ["DEFAULT_LEVEL", "LEVELS", "Level", "choose", "decide", "level", "throw_order", "warm"]
