"""What every part of the game does at the table: move on to a step, say and log what
is said, score, change one seat's cards. The parts (engine.dealing, engine.exchange,
engine.declaring, engine.showing, engine.tricks, engine.reckoning) work through these;
engine.rules maps each step to its part.

Every function here changes the state it is given: `apply` gives the handlers a copy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.actions import Action
from engine.cards import Card
from engine.combos import Category
from engine.state import Declaration, LogLine, Reckon, ScoreEvent, State, Step
from engine.words import Phrase, Words


@dataclass(frozen=True, slots=True)
class DiscardRule:
    """The one parametric legal action: pick between `min` and `max` cards to discard."""

    min: int
    max: int
    expose_choice: bool


# An action and its label: its English, whose `say` is its phrase (engine.words).
Legal = tuple[Action | DiscardRule, Words]
# What doing an action does at a step (engine.rules.STEPS): changes the state it is given.
Handler = Callable[[State, int, Action], None]


def goto(s: State, step: Step, seat: int | None) -> None:
    s.step = step
    s.to_move = seat


# A named tuple made by tuple.__new__ skips its Python-level __new__: these two run for
# nearly every action.
_make = tuple.__new__


def log(s: State, seat: int | None, kind: str, said: Phrase | Words, points: int = 0) -> None:
    """A line of the deal's log: what `seat` (None: the table) said or did, a phrase (or
    Words made once, on the hot path)."""
    role = None if seat is None or s.dealer is None else \
        ("younger" if seat == s.dealer else "elder")
    s.log = (*s.log, _make(LogLine, (seat, role, kind, said, points)))


def score(s: State, seat: int, points: int, reckon: Reckon, what: str,
          combo: Any = None) -> None:
    """A score: `what` is a bonus's kind, "lead", "trick", or a call's label (`combo` the
    call)."""
    if points:
        s.events = (*s.events, _make(ScoreEvent, (seat, points, reckon, what, combo)))


def bonus(s: State, seat: int, kind: str, points: int, reckon: Reckon, said: Phrase) -> None:
    score(s, seat, points, reckon, kind)
    s.bonuses = (*s.bonuses, (seat, kind, points))
    log(s, seat, "bonus", said, points)


def set_hand(s: State, seat: int, cards: tuple[Card, ...]) -> None:
    hands = list(s.hands)
    hands[seat] = cards
    s.hands = (hands[0], hands[1])


def set_pair(pair: tuple[Any, Any], seat: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def decl(s: State, category: Category) -> Declaration:
    return s.declarations[category]


def set_decl(s: State, d: Declaration) -> None:
    point, sequence, sets = s.declarations
    i = d.category
    s.declarations = (d, sequence, sets) if i == 0 else (point, d, sets) if i == 1 \
        else (point, sequence, d)


def say(s: State, category: Category, seat: int, kind: str, said: Phrase,
        points: int = 0) -> None:
    """What `seat` says in a category's dialogue: in the log, and in the category's own
    record of it (the view's `declarations`)."""
    d = s.declarations[category]
    set_decl(s, d._replace(said=(*d.said, (seat, said))))
    log(s, seat, kind, said, points)


def elder_seat(s: State) -> int:
    assert s.dealer is not None
    return 1 - s.dealer


def younger_seat(s: State) -> int:
    assert s.dealer is not None
    return s.dealer


def describe(a: Action) -> str:
    return repr(a.to_json())
