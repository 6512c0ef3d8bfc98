"""The computer seat at its basic level (RULES.md §9; the product page, seed 002).

`choose(view)` is a pure policy: from ONE seat's view (the dict `engine.view(state,
seat)` returns, exactly what a person in that seat sees; never the State) to one of
that view's legal actions. No randomness, no I/O, no state between calls; the view
is not modified. It decides by `view["step"]`, one small function per step.

What it does (RULES.md §9), with every tie broken by a fixed rule:

- Choosing who deals (it won the cut): it deals first, the better choice by
  seed 000 (the first dealer is elder, the favoured hand, on the sixth deal).
- Carte blanche: always announced; as elder, "taking five".
- Exchange: always its full allowance (elder: the legal maximum, normally five;
  younger: every card left in the stock). It throws its lowest cards from its
  shortest suits, keeping long suits and high sets. Cards are thrown in the order
  of this key, first thrown first:
    1. never a card of a set it holds (three or four of a rank, ten or higher),
       unless nothing else is left to throw;
    2. the shorter its suit in the hand before the exchange, the sooner;
    3. then the lower rank;
    4. then the suit order spades, hearts, clubs, diamonds (the hand's display order).
  As younger it never turns up the cards it leaves (`expose` false).
- Declaring: it sinks nothing. As elder it calls its best natural call in each
  category (highest by length, then pips / top card / rank, as `engine.combos`
  compares them; among equals the first the view lists), then, having won the
  category, every lesser call the table still offers, best first, until none is
  left. As younger it answers by the stage it was told: "not good" when it holds
  better, else "equal" when it holds equal (at the last stage, holding equal calls in
  two suits, it names one drawn at random, seeded from the view), else "good"; after
  elder's first lead
  it calls its best call in each category it is owed, then its lesser ones.
- Showing: it asks to see every combination the view lets it see (what scored
  against it, and what tied), the first offered first, before anything else.
- Play: on lead, its highest card (ties: the longer suit in hand, then the suit
  order above). Following: the cheapest card of the led suit that beats the led
  card; if none wins, its lowest card (ties: the shorter suit, then the suit
  order). It never counts towards thirty: pique and repique never change a choice.

Contract: on its turn (`view["to_move"] == view["seat"]`) `choose` returns an
action: a `see` if one is offered, else the move for the step. Out of turn it
returns a `see` if one is offered; else, if `press_next_deal` and "Deal next hand"
is offered, `{"type": "next_deal"}`; else there is nothing for it to do and it
raises `ValueError` (the app's computer seat asks only when there is something).
An action is the legal entry without its `label`; for the discard template it is
`{"type": "discard", "cards": [...], "expose": bool}`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from engine.cards import DECK, Card, Rank, sort_hand
from engine.combos import Category, Combo

Action = dict[str, Any]
View = dict[str, Any]

SET_MIN_RANK = Rank.TEN  # sets are tens or higher (RULES.md §4)
_CARD: dict[str, Card] = {str(c): c for c in DECK}  # the view's card strings


def choose(view: View, press_next_deal: bool = False) -> Action:
    """The basic computer's action for this seat's view (see the module docstring)."""
    legal: list[Action] = view["legal"]
    for entry in legal:
        if entry["type"] == "see":
            return _bare(entry)
    if any(e["type"] == "carte_blanche" for e in legal):
        return _carte_blanche(view, legal)  # always announced, on its turn or not
    if view["to_move"] == view["seat"]:
        step = view["step"]
        decide = _BY_STEP.get(step)
        if decide is None:
            raise ValueError(f"the computer has no move for step {step!r}")
        return decide(view, legal)
    if press_next_deal:
        for entry in legal:
            if entry["type"] == "next_deal":
                return _bare(entry)
    raise ValueError(
        f"nothing for seat {view['seat']} to do at {view['step']!r} "
        f"(seat {view['to_move']} to move)")


# --------------------------------------------------------------------------- helpers


def _bare(entry: Action) -> Action:
    """A legal entry as an action: the entry without its label."""
    return {k: v for k, v in entry.items() if k not in ("label", "say")}


def _of_type(legal: Sequence[Action], kind: str) -> list[Action]:
    return [e for e in legal if e["type"] == kind]


def _first(legal: Sequence[Action], kind: str, **fields: Any) -> Action:
    for e in legal:
        if e["type"] == kind and all(e.get(k) == v for k, v in fields.items()):
            return _bare(e)
    raise ValueError(f"no legal {kind} {fields or ''} in {[e.get('label') for e in legal]}")


def _cards(items: Sequence[str]) -> list[Card]:
    return [_CARD[x] for x in items]


def _suit_lengths(hand: Sequence[Card]) -> Counter[int]:
    return Counter(int(c.suit) for c in hand)


# --------------------------------------------------------------------------- steps


def _choose_dealer(view: View, legal: list[Action]) -> Action:
    return _first(legal, "choose_dealer", deal=True)


def _carte_blanche(view: View, legal: list[Action]) -> Action:
    announce = [e for e in _of_type(legal, "carte_blanche") if e["announce"]]
    # Elder says how many he takes: the most on offer (five). Younger's has no "take".
    return _bare(max(announce, key=lambda e: e.get("take") or 0))


def throw_order(hand: Sequence[Card]) -> list[Card]:
    """The hand in the order the computer throws it (module docstring, "Exchange")."""
    lengths = _suit_lengths(hand)
    ranks = Counter(c.rank for c in hand)

    def key(c: Card) -> tuple[bool, int, int, int]:
        in_set = c.rank >= SET_MIN_RANK and ranks[c.rank] >= 3
        return (in_set, lengths[int(c.suit)], int(c.rank), int(c.suit))

    return sorted(hand, key=key)


def _exchange(view: View, legal: list[Action]) -> Action:
    rule = next(e for e in legal if e["type"] == "discard")
    n: int = rule["max"]  # always the full allowance
    thrown = throw_order(_cards(view["hand"]))[:n]
    return {"type": "discard", "cards": [str(c) for c in thrown], "expose": False}


def _best_call(legal: list[Action]) -> Action | None:
    """The best call on offer (by the engine's own comparison); the first among equals."""
    best: Action | None = None
    best_key: tuple[int, int] | None = None
    for e in _of_type(legal, "call"):
        combo = Combo(Category.from_word(e["category"]), sort_hand(_cards(e["cards"])))
        if best_key is None or combo.key > best_key:
            best, best_key = e, combo.key
    return best


def _call(view: View, legal: list[Action]) -> Action:
    """Elder's call, any lesser call, younger's call after the lead: the best, or pass."""
    best = _best_call(legal)
    if best is not None:
        return _bare(best)
    return _first(legal, "pass")


def _answer(view: View, legal: list[Action]) -> Action:
    answers = _of_type(legal, "answer")
    for reply in ("not_good", "equal", "good"):
        offered = [e for e in answers if e["reply"] == reply]
        if len(offered) > 1:
            # "Equal" at the last stage, holding equal calls in more than one suit: one
            # of them, drawn (seeded from the view), so the suit it shows tells no more
            # than that it held that one (the first in suit order would tell elder it
            # held none in an earlier suit).
            from engine.computer.knowledge import view_rng

            return _bare(view_rng(view, "equal").choice(offered))
        if offered:
            return _bare(offered[0])
    raise ValueError("no answer offered")


def _lead(view: View, legal: list[Action]) -> Action:
    cards = _cards([e["card"] for e in _of_type(legal, "play")])
    lengths = _suit_lengths(_cards(view["hand"]))
    card = max(cards, key=lambda c: (int(c.rank), lengths[int(c.suit)], -int(c.suit)))
    return {"type": "play", "card": str(card)}


def _follow(view: View, legal: list[Action]) -> Action:
    led = _CARD[view["trick"]["cards"][0][0]]
    cards = _cards([e["card"] for e in _of_type(legal, "play")])
    winners = [c for c in cards if c.suit == led.suit and c.rank > led.rank]
    if winners:
        card = min(winners, key=lambda c: c.rank)
    else:
        lengths = _suit_lengths(_cards(view["hand"]))
        card = min(cards, key=lambda c: (int(c.rank), lengths[int(c.suit)], int(c.suit)))
    return {"type": "play", "card": str(card)}


_BY_STEP: dict[str, Callable[[View, list[Action]], Action]] = {
    "choose_dealer": _choose_dealer,
    "elder_exchange": _exchange,
    "younger_discard": _exchange,
    "younger_exchange": _exchange,
    "elder_call": _call,
    "younger_answer": _answer,
    "elder_lesser": _call,
    "younger_call": _call,
    "younger_lesser": _call,
    "lead": _lead,
    "follow": _follow,
}
