"""Parties, deals and their twins for the tests of the record, the hint and the review
(issue 26, "Learn at the table")."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from typing import Any

import engine
from engine import RUBICON, Card, Discard, Rules, State, Step
from engine.computer import decide
from engine.selfplay import _who_acts, random_policy
from tests.engine.kit import fill

Policy = Callable[[dict[str, Any]], dict[str, Any]]
Steps = list[tuple[int, dict[str, Any], State]]

# Each variant of RULES.md §8, and au cent with both options: the teaching tools' twin
# deals run under each.
VARIANTS = [Rules(game="au_cent"), Rules(cards_towards_pique=True), Rules(carte_rouge=True),
            Rules(tie="one_more"),
            Rules(game="au_cent", cards_towards_pique=True, carte_rouge=True)]


def level(name: str) -> Policy:
    def choose(v: dict[str, Any]) -> dict[str, Any]:
        return decide(name, v, True)

    return choose


def careless(seed: int) -> Policy:
    """A random player that never announces carte blanche (so a twin deal, whose hands
    differ, offers it the same choices) and never turns up what it leaves."""
    rng = random.Random(seed)
    pick = random_policy(rng)

    def choose(v: dict[str, Any]) -> dict[str, Any]:
        legal = [e for e in v["legal"] if e["type"] != "carte_blanche"]
        rule = next((e for e in legal if e["type"] == "discard"), None)
        if rule is not None:
            n = rng.randint(rule["min"], rule["max"])
            return {"type": "discard", "cards": rng.sample(v["hand"], n), "expose": False}
        return pick({**v, "legal": legal})

    return choose


def drive(s: State, policies: Sequence[Policy], *, until: Step = Step.DEAL_OVER,
          script: Sequence[dict[str, Any]] = ()) -> tuple[State, Steps]:
    """Play on from `s` until the step `until` (or the partie's end): `policies[i]`
    plays seat i; then the (seat, action, state after) steps."""
    steps: Steps = []
    script = list(script)
    while s.step is not until and s.step is not Step.PARTIE_OVER:
        seat = _who_acts(s)
        action = script.pop(0) if script else policies[seat](engine.view(s, seat))
        s = engine.apply(s, seat, action)
        steps.append((seat, action, s))
    return s, steps


def under_way(s: State, game: tuple[int, int] | None) -> State:
    """Piquet au cent: `s`, its game standing at `game` (as if earlier deals of it had
    scored it); `s` itself for None."""
    if game is None:
        return s
    zero = (0,) * len(engine.ALL_PARTS)
    return dataclasses.replace(s, sheet=(game,), sheet_parts=((zero, zero),))


def race_deal() -> tuple[State, Steps]:
    """Piquet au cent, the game standing at 95 to 99, a stacked deal played by the basic
    level to elder's (seat 0's) first lead: the point is equal (four cards, 38), so are
    the sequences (a tierce to the ten each), and elder's three tens score 3: 98 to 99,
    younger owed no call. One point more each and she has won, so his lead must be a
    card she cannot take (the ace of spades), then his next lead reaches 100. The
    deal's start and its steps."""
    elder = "AS 10S 9S 8S 10H 7H QH 10C 7C JC 7D KD"  # he throws the king, draws the jack
    younger = "AD 10D 9D 8D 7S JS 8H 9H KH 8C 9C AH"  # she throws the ace, draws the queen
    start = under_way(engine.new_partie(
        seed=7, rules=Rules(game="au_cent"), first_dealer=1,
        hands=[fill(elder, younger, "JD QC QS KS JH KC AC QD")]), (95, 99))
    script = [{"type": "discard", "cards": ["KD"], "expose": False},
              {"type": "discard", "cards": ["AH"], "expose": False}]
    s, steps = drive(start, [level("basic"), level("basic")], until=Step.LEAD, script=script)
    v = engine.view(s, 0)
    assert v["games"]["scores"] == [98, 99] and s.to_move == 0 and not s.younger_queue
    return start, steps


def seen_by(start: State, steps: Steps, seat: int | None) -> set[str]:
    """Every card `seat` saw (None: what the whole table saw) in these states, read from
    the states themselves: its hands and discards, the rest of its five, cards turned
    up, laid face up by the other seat (or, for the table, by either), the cut and every
    card played."""
    out: set[str] = set()
    for s in [start] + [x[2] for x in steps]:
        if s.cut:
            out.update(c.code for c in s.cut)
        out.update(c.code for c in s.exposed)
        for t in s.tricks:
            out.update(c.code for c, _ in t.cards)
        out.update(c.code for c, _ in s.trick)
        out.update(c.code for x in s.shown if seat is None or x.seat != seat for c in x.cards)
        out.update(c.code for r in s.combos if r.shown for c in r.combo.cards)
        if seat is not None:
            out.update(c.code for c in s.hands[seat] + s.discards[seat])
            out.update(c.code for r in s.combos if r.seat == seat for c in r.combo.cards)
            if s.elder == seat:
                out.update(c.code for c in s.seen_stock)
    return out


def twin(seed: int, me: int, policies: Sequence[Policy], rules: Rules = RUBICON,
         game: tuple[int, int] | None = None) -> tuple[State, Steps, State, Steps]:
    """A first deal played out, and its twin: the cards seat `me` never sees (the other
    seat's discards, the stock nobody draws or turns up) trade places at random, she
    throws what she now holds in their place, and every other action is the same. (Her
    hand after the exchange, and so all she says and plays, is the same.) Under `rules`;
    `game`: au cent, the game stands at these scores when the deal is dealt (as if
    earlier deals of it had scored them)."""
    rng = random.Random(seed)
    deck = list(engine.DECK)
    rng.shuffle(deck)
    first_dealer = 1 if me == 0 else 0  # seat `me` elder when it is 0, else younger
    a = under_way(engine.new_partie(seed, decks=[deck], first_dealer=first_dealer,
                                    rules=rules), game)
    end, steps = drive(a, policies)
    other = 1 - me
    thrown = end.discards[other]
    seen = seen_by(a, steps, me)
    leftovers = [c for c in end.stock if c.code not in seen]
    hidden = list(thrown) + leftovers
    shuffled = rng.sample(hidden, len(hidden))
    swap = dict(zip(hidden, shuffled, strict=True))
    elder, younger, stock = a.hands[a.elder], a.hands[a.younger], a.stock

    def moved(cards: Sequence[Card]) -> list[Card]:
        return [swap.get(c, c) for c in cards]

    hands = (moved(elder), list(younger), moved(stock)) if other == a.elder else (
        list(elder), moved(younger), moved(stock))
    b = under_way(engine.new_partie(seed, hands=[hands], first_dealer=first_dealer,
                                    rules=rules), game)
    assert b.hands[me] == a.hands[me]
    twin_steps: Steps = []
    s = b
    for seat, action, _ in steps:
        if seat == other and action["type"] == "discard":
            cards = [swap.get(Card.parse(c), Card.parse(c)) for c in action["cards"]]
            action = Discard(tuple(cards), bool(action.get("expose"))).to_json()
        s = engine.apply(s, seat, action)
        twin_steps.append((seat, action, s))
    return a, steps, b, twin_steps
