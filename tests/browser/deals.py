"""Deals played in Python as a browser test's Seat plays them (the first choice offered,
the first cards of the hand to discard, the first playable card) against the basic
computer, to find the seed of a deal a test needs: a seeded server (seeded_app.py) then
deals it to the page."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import engine
from engine import computer


def page_choice(view: dict[str, Any], mine: list[dict[str, Any]]) -> dict[str, Any]:
    """What `browserkit.Seat.act` presses, given the seat's view and its non-`see` entries."""
    discard = next((a for a in mine if a["type"] == "discard"), None)
    if discard is not None:
        action: dict[str, Any] = {"type": "discard", "cards": view["hand"][: discard["max"]]}
        if discard.get("expose_choice"):
            action["expose"] = False
        return action
    plays = {a["card"] for a in mine if a["type"] == "play"}
    if plays:
        return {"type": "play", "card": next(c for c in view["hand"] if c in plays)}
    return {k: v for k, v in mine[0].items() if k not in ("label", "say")}


def states(seed: int, moves: int = 120) -> Iterator[engine.State]:
    """The partie from `seed`, state by state, the person at seat 0 moving whenever the
    page would offer it a move, else the computer (seat 1) when it has one."""
    state = engine.new_partie(seed=seed)
    for _ in range(moves):
        yield state
        mine = [a for a in engine.view(state, 0)["legal"] if a["type"] != "see"]
        if mine:
            state = engine.apply(state, 0, page_choice(engine.view(state, 0), mine))
            continue
        view = engine.view(state, 1)
        if view["to_move"] != 1:
            return
        state = engine.apply(state, 1, computer.choose(view))


def find_seed(wanted: Callable[[engine.State], bool], tries: int = 5000) -> int:
    """The first seed whose first deal, so played, comes to a state where `wanted` holds."""
    for seed in range(1, tries):
        for state in states(seed):
            if engine.view(state, 0)["deal_number"] > 1:
                break
            if wanted(state):
                return seed
    raise AssertionError(f"no such deal in {tries} seeds")


def fewest_choice(view: dict[str, Any], mine: list[dict[str, Any]]) -> dict[str, Any]:
    """`page_choice` for a Seat with `discard_fewest`: the fewest cards its discard allows
    (none: standing pat, where the rules let younger)."""
    discard = next((a for a in mine if a["type"] == "discard"), None)
    if discard is None:
        return page_choice(view, mine)
    action: dict[str, Any] = {"type": "discard", "cards": view["hand"][: discard["min"]]}
    if discard.get("expose_choice"):
        action["expose"] = False
    return action


Choice = Callable[[dict[str, Any], list[dict[str, Any]]], dict[str, Any]]


def stacked(seed: int, rules: engine.Rules, packs: list[tuple[str, ...]], *,
            choose: Choice = page_choice, deals: int = 99) -> engine.State:
    """Both seats playing as the page's Seat does (`choose`), each deal dealt from `packs`
    in turn (as seeded_app's PIQUET_TEST_PACKS), until the partie is over or `deals` deals
    are scored: what a stacked server's table comes to."""
    state = engine.new_partie(seed=seed, rules=rules)
    dealt = 0
    while state.phase is not engine.Phase.PARTIE_OVER:
        for seat in (0, 1):
            view = engine.view(state, seat)
            mine = [a for a in view["legal"] if a["type"] != "see"]
            if mine:
                break
        action = choose(view, mine)
        pack = None
        if action["type"] in ("choose_dealer", "next_deal"):
            if dealt == deals:
                break
            pack, dealt = packs[dealt % len(packs)], dealt + 1
        state = engine.apply(state, seat, action, pack=pack)
    return state

