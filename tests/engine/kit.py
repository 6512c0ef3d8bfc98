"""Stacked deals and moves by their words, so rule tests read like the rules."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

import engine
from engine import Card, State
from engine.rules import DiscardRule

# With first_dealer=1, seat 0 is elder and seat 1 younger in deal 1.
ELDER, YOUNGER = 0, 1


def cards(text: str | Iterable[str]) -> list[Card]:
    items = text.split() if isinstance(text, str) else list(text)
    return [Card.parse(x) for x in items]


def fill(elder: str, younger: str, stock: str) -> tuple[list[Card], list[Card], list[Card]]:
    """The three parts of a deal with the cards not named filled in from what is left."""
    e, y, st = cards(elder), cards(younger), cards(stock)
    named = e + y + st
    assert len(set(named)) == len(named), "a card is named twice"
    rest = [c for c in engine.DECK if c not in named]
    for part, size in ((e, 12), (y, 12), (st, 8)):
        while len(part) < size:
            part.append(rest.pop())
    return e, y, st


def stack(elder: str, younger: str, stock: str, packet: int = 2) -> list[Card]:
    """A deck order that deals `elder` and `younger` their twelve and leaves `stock`
    (top card first). Cards not named are filled in from what is left."""
    return list(engine.deck_for(*fill(elder, younger, stock), packet=packet))


def deal(elder: str, younger: str, stock: str = "", *more: Sequence[Card]) -> State:
    """A partie whose first deal is dealt these cards, seat 1 dealing (seat 0 is elder);
    `more` are the next deals' packs."""
    if more:
        return engine.new_partie(seed=7, decks=[stack(elder, younger, stock), *more],
                                 first_dealer=1)
    return engine.new_partie(seed=7, hands=[fill(elder, younger, stock)], first_dealer=1)


def labels(s: State, seat: int) -> list[str]:
    return [label for _, label in engine.legal(s, seat)]


def say(s: State, seat: int, label: str) -> State:
    """Take the legal action whose words are `label` (the first one, if several)."""
    for action, text in engine.legal(s, seat):
        if text == label and not isinstance(action, DiscardRule):
            return engine.apply(s, seat, action)
    raise AssertionError(f"{label!r} is not offered to seat {seat}: {labels(s, seat)}")


def call(s: State, seat: int, category: str, text: str) -> State:
    return engine.apply(s, seat, {"type": "call", "category": category, "cards": text.split()})


def discard(s: State, seat: int, text: str, expose: bool = False) -> State:
    return engine.apply(s, seat, {"type": "discard", "cards": text.split(), "expose": expose})


def play(s: State, seat: int, card: str) -> State:
    return engine.apply(s, seat, {"type": "play", "card": card})


def hand(s: State, seat: int) -> str:
    return " ".join(map(str, s.hands[seat]))


def random_action(s: State, seat: int, rng: random.Random) -> Any:
    """A random legal action for `seat` (discards of a random legal size, random exposure)."""
    action, _ = rng.choice(engine.legal(s, seat))
    if isinstance(action, DiscardRule):
        k = rng.randint(action.min, action.max)
        return engine.Discard(tuple(rng.sample(s.hands[seat], k)), rng.random() < 0.5)
    return action


def play_out_tricks(s: State) -> State:
    """Play the rest of the deal, each seat playing its first legal card."""
    while s.step in (engine.Step.LEAD, engine.Step.FOLLOW):
        seat = s.to_move
        assert seat is not None
        action = next(a for a, _ in engine.legal(s, seat) if isinstance(a, engine.Play))
        s = engine.apply(s, seat, action)
    return s
