"""Whole steps of a deal in one line, and what a seat can see, for the rule tests.

Everything here goes through `engine.apply` / `engine.view`, as a player would.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import engine
from engine import Card, State, Step
from tests.engine.kit import ELDER, YOUNGER, deal, discard, labels, play, say

CARD_STRINGS = frozenset(str(c) for c in engine.DECK)
_NAME_TO_CARD = {c.name: str(c) for c in engine.DECK}
_TOKEN = re.compile(r"(?<![0-9A-Za-z])(?:10|[AKQJ987])[SHCD](?![0-9A-Za-z])")


def seen(v: Any) -> set[str]:
    """Every card a view shows anywhere: as a card string, inside a sentence, or by name."""
    found: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            found.update(_TOKEN.findall(x))
            found.update(card for name, card in _NAME_TO_CARD.items() if name in x)
        elif isinstance(x, dict):
            for k, val in x.items():
                walk(k)
                walk(val)
        elif isinstance(x, list | tuple):
            for item in x:
                walk(item)

    walk(v)
    return found


def names(cards: Sequence[Card] | str) -> set[str]:
    if isinstance(cards, str):
        return set(cards.split())
    return {str(c) for c in cards}


def scores(s: State) -> tuple[int, int]:
    """This deal's scores, as both seats see them."""
    a, b = engine.view(s, 0)["scores"]["deal"]
    assert engine.view(s, 1)["scores"]["deal"] == [a, b]
    return (a, b)


def bonuses(s: State) -> list[tuple[int, str, int]]:
    return [(b["seat"], b["kind"], b["points"]) for b in engine.view(s, 0)["bonuses"]]


def said(s: State, category: str) -> list[str]:
    """What was said aloud in one category this deal."""
    for d in engine.view(s, 0)["declarations"]:
        if d["category"] == category:
            return list(d["said"])
    raise AssertionError(category)


def outcome(s: State, category: str) -> str:
    for d in engine.view(s, 0)["declarations"]:
        if d["category"] == category:
            return str(d["outcome"])
    raise AssertionError(category)


def exchange(s: State, elder_throws: str, younger_throws: str, expose: bool = False) -> State:
    """Elder's exchange, then younger's (no carte blanche)."""
    assert s.step is Step.ELDER_EXCHANGE, s.step
    s = discard(s, s.elder, elder_throws)
    assert s.step is Step.YOUNGER_EXCHANGE, s.step
    return discard(s, s.younger, younger_throws, expose)


def good(s: State, words: str) -> State:
    """Elder calls `words` and younger answers "Good" (the table says neither for them)."""
    return say(say(s, s.elder, words), s.younger, "Good")


def elder_calls_nothing(s: State) -> State:
    """Elder says "Nothing" in every category left; returns the state at the first lead."""
    while s.step is Step.ELDER_CALL:
        s = say(s, s.elder, "Nothing")
    assert s.step is Step.LEAD, s.step
    return s


def younger_calls_nothing(s: State) -> State:
    """After the first lead, younger sinks whatever she was owed."""
    while s.step is Step.YOUNGER_CALL:
        s = say(s, s.younger, "Nothing")
    return s


def lead(s: State, card: str) -> State:
    assert s.step is Step.LEAD, s.step
    return play(s, s.to_move, card)


def tricks(s: State, cards: str) -> State:
    """Play these cards in turn, whoever is to play (the first lead's calls already done)."""
    for card in cards.split():
        assert s.step in (Step.LEAD, Step.FOLLOW), (s.step, labels(s, s.to_move or 0))
        s = play(s, s.to_move, card)
    return s


def legal_entries(s: State, seat: int, label: str) -> list[dict[str, Any]]:
    """The view's legal entries with these words."""
    return [e for e in engine.view(s, seat)["legal"] if e["label"] == label]


# Stacked hands that more than one part of the rules needs.

def equal_points() -> State:
    """Both hold a point of five making 48; elder a quart to the ace and four kings and
    four queens, younger a quart to the jack and trios of aces, jacks and tens."""
    s = deal("AH KH QH JH 7H KS KC KD QS QC QD 7S",
             "AS JS 10S 9S 8S AC JC 10C AD JD 10D 9D",
             "7C 8D 10H 9H 8H 9C 8C 7D")
    return exchange(s, "7S", "9D")


def declared_with_a_tie() -> State:
    """`equal_points` declared: points tied; elder's quart 4, four kings 14, four queens 14
    (32 with younger at nothing: a repique). Elder to lead."""
    s = say(say(equal_points(), ELDER, "Point of five"), YOUNGER, "Equal")
    s = say(s, YOUNGER, "Equal: point of five in spades")
    s = say(say(say(s, ELDER, "Quart to the ace"), YOUNGER, "Equal"), YOUNGER, "Good")
    s = say(s, ELDER, "Done")
    return say(say(good(s, "Four kings"), ELDER, "Four queens"), ELDER, "Done")
