"""Random play from the start of a partie to its end, many times, checking invariants
at every step (OpenSpiel's random_sim_test): all 32 cards accounted for, scores equal
the scored log lines, no view holds a card its seat may not see, and every kind of
illegal action is refused with the state unchanged."""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from typing import Any

import pytest

import engine
from engine import Card, Rules, State
from engine.rules import DiscardRule
from engine.variants import EVERY_RULES, RUBICON
from tests.engine.kit import random_action

PARTIES = int(os.environ.get("PIQUET_RANDOM_PARTIES", "2000"))


def visible(s: State, seat: int) -> set[Card]:
    """What RULES.md lets `seat` see now, worked out from the state independently of view()."""
    seen = set(s.hands[seat]) | set(s.discards[seat])
    if s.dealer is not None and seat == 1 - s.dealer:
        seen |= set(s.seen_stock)  # elder's rest of his five
    for trick in s.tricks:
        seen |= {c for c, _ in trick.cards}
    seen |= {c for c, _ in s.trick}
    for shown in s.shown:
        seen |= set(shown.cards)
    return seen


CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])(?:10|[AKQJ987])[SHDC](?![0-9A-Za-z])")
CARD_NAME = re.compile(
    r"(?:Ace|King|Queen|Jack|Ten|Nine|Eight|Seven) of (?:Spades|Hearts|Diamonds|Clubs)")
NAME_TO_STR = {c.name: str(c) for c in engine.DECK}


def cards_in(text: str) -> set[str]:
    """Every card a text names, as "QH" or as "Queen of Hearts", given as "QH"."""
    return set(CARD_TOKEN.findall(text)) | {NAME_TO_STR[m] for m in CARD_NAME.findall(text)}


def assert_no_leak(s: State, seat: int) -> None:
    v = engine.view(s, seat)
    v = dict(v, cut=None)  # the cut is public, and from another shuffle
    v["log"] = [line for line in v["log"] if line["kind"] != "cut"]
    leaked = cards_in(json.dumps(v)) - {str(c) for c in visible(s, seat)}  # and serialisable
    assert not leaked, f"seat {seat} sees {sorted(leaked)} at {s.step.word}"


def assert_cards_conserved(s: State) -> None:
    if s.deal_number == 0:
        return
    where = [*s.hands[0], *s.hands[1], *s.stock, *s.discards[0], *s.discards[1],
             *(c for t in s.tricks for c, _ in t.cards), *(c for c, _ in s.trick)]
    assert sorted(where) == sorted(engine.DECK), f"cards lost or doubled at {s.step.word}"


def assert_scores_add_up(s: State) -> None:
    # Every point scored this deal has a log line saying so, and nothing else scores.
    start = max(i for i, line in enumerate(s.log) if line.kind == "deal")
    logged = [0, 0]
    for line in s.log[start:]:
        if line.points and line.seat is not None:
            logged[line.seat] += line.points
    assert tuple(logged) == s.deal_scores()
    view = engine.view(s, 0)
    assert [sum(col) for col in zip(*view["scores"]["sheet"], strict=True)] in (
        view["scores"]["partie"], [])


def junk_actions(s: State, seat: int, rng: random.Random) -> list[Any]:
    card = rng.choice(engine.DECK)
    return [
        {"type": "play", "card": str(card)},
        {"type": "call", "category": rng.choice(["point", "sequence", "set"]),
         "cards": [str(c) for c in rng.sample(engine.DECK, rng.randint(1, 5))]},
        {"type": "answer", "reply": rng.choice(["good", "not_good", "equal"])},
        {"type": "discard", "cards": [str(c) for c in rng.sample(engine.DECK, rng.randint(0, 9))]},
        {"type": "see", "combo": rng.randint(-2, 12)},
        {"type": "carte_blanche", "announce": True, "take": rng.randint(0, 7)},
        {"type": "choose_dealer", "deal": rng.random() < 0.5},
        {"type": "pass"}, {"type": "next_deal"},
        {"type": "play", "card": "1X"}, {"type": "warp"}, {"type": "call", "cards": 3},
        ["not", "a", "dict"],
    ]


JUNK_KINDS = ("play", "call", "answer", "discard", "see", "carte_blanche", "choose_dealer",
              "pass", "next_deal", "bad card", "unknown type", "bad call", "not a dict")


def is_legal(s: State, seat: int, raw: Any) -> bool:
    try:
        a = engine.parse_action(raw)
    except engine.PiquetError:
        return False
    for option, _ in engine.legal(s, seat):
        if (isinstance(a, engine.Answer) and a == engine.Answer("equal")
                and isinstance(option, engine.Answer) and option.cards):
            return True  # the bare "equal" at a last stage: its older form (engine-api.md)
        if isinstance(option, DiscardRule) and isinstance(a, engine.Discard):
            return option.min <= len(a.cards) <= option.max and set(a.cards) <= set(s.hands[seat])
        if isinstance(a, engine.Call) and isinstance(option, engine.Call):
            if option.category == a.category and set(option.cards) == set(a.cards):
                return True
        elif option == a:
            return True
    return False


def assert_refused_unchanged(s: State, rng: random.Random, tried: Counter[str]) -> None:
    """Every kind of junk action that is not legal here is refused, and none of them
    changes the state; `tried` counts the refusals by kind."""
    seat = rng.randrange(2)
    before = s.copy()
    for n, raw in enumerate(junk_actions(s, seat, rng)):
        if is_legal(s, seat, raw):
            continue
        with pytest.raises(engine.PiquetError):
            engine.apply(s, seat, raw)
        tried[JUNK_KINDS[n]] += 1
    assert s == before


def random_partie(seed: int, check_every: int = 1,
                  tried: Counter[str] | None = None, rules: Rules = RUBICON) -> State:
    rng = random.Random(seed)
    tried = Counter() if tried is None else tried
    s = engine.new_partie(seed=seed, packet=2 + seed % 2, rules=rules)
    step = 0
    while s.step is not engine.Step.PARTIE_OVER:
        step += 1
        if step % check_every == 0:
            assert_cards_conserved(s)
            for seat in (0, 1):
                assert_no_leak(s, seat)
            assert_refused_unchanged(s, rng, tried)
        movers = [x for x in (0, 1) if engine.legal(s, x)]
        seat = s.to_move if s.to_move is not None and rng.random() < 0.9 else rng.choice(movers)
        if not engine.legal(s, seat):
            seat = rng.choice(movers)
        s = engine.apply(s, seat, random_action(s, seat, rng))
        if s.deal_number:
            assert_scores_add_up(s)
    assert s.result is not None
    if rules.game == "au_cent":
        assert_games_add_up(s)
        return s
    assert s.result.totals == s.partie_scores()
    assert len(s.sheet) in (6, rules.tie_deals)
    return s


def assert_games_add_up(s: State) -> None:
    """Piquet au cent's partie: each game is its deals' scores, won by the seat that
    reached 100 (only it), a double when the other had under 50; three games win."""
    assert s.result is not None and s.result.winner is not None
    row = 0
    tally = [0, 0]
    for g in s.games:
        deals = s.sheet[row:row + g.deals]
        row += g.deals
        assert g.scores == (sum(d[0] for d in deals), sum(d[1] for d in deals))
        assert g.scores[g.winner] >= 100 > g.scores[1 - g.winner]
        assert g.double == (g.scores[1 - g.winner] < 50)
        tally[g.winner] += 2 if g.double else 1
        assert max(tally) < 3 or g is s.games[-1]
    assert row == len(s.sheet)
    assert s.result.totals == tuple(tally) and tally[s.result.winner] >= 3
    assert engine.view(s, 0)["games"]["won"] == tally

@pytest.mark.parametrize("chunk", range(8))
def test_random_parties_keep_every_invariant(chunk: int) -> None:
    # At least one partie a chunk, whatever PIQUET_RANDOM_PARTIES says.
    seeds = range(chunk, max(PARTIES, 8), 8)
    tried: Counter[str] = Counter()
    for seed in seeds:
        random_partie(seed, tried=tried)
    assert len(seeds) >= 1
    # Every kind of junk action was refused somewhere, not only the first that fails.
    assert set(tried) == set(JUNK_KINDS), tried


# Every combination of the variants (RULES.md §8), fewer parties each.
VARIANT_PARTIES = max(2, PARTIES // 250)


@pytest.mark.parametrize("rules", EVERY_RULES, ids=lambda r: r.describe())
def test_random_parties_under_every_rules_end_and_keep_every_invariant(rules: Rules) -> None:
    tried: Counter[str] = Counter()
    ended = [random_partie(10_000 + seed, tried=tried, rules=rules)
             for seed in range(VARIANT_PARTIES)]
    assert all(s.step is engine.Step.PARTIE_OVER and s.rules == rules for s in ended)
    assert {"play", "discard", "call", "not a dict"} <= set(tried)
