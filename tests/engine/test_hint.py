"""The hint (issue 26): the strong level's own decision for a seat's view, with its
reasons and the alternatives it weighed, from the view alone."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import engine
from engine import State
from engine.computer import decide, strong
from engine.computer.advice import hint
from engine.selfplay import _who_acts
from tests.engine.kit import deal
from tests.engine.learnkit import VARIANTS, careless, drive, level, twin
from tests.engine.moves import seen

GLYPH = re.compile(r"(10|[AKQJ987])([♠♥♦♣])")
SUIT_OF = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def named(x: Any) -> set[str]:
    """Every card a hint names: by code, in words, or short ("K♠")."""
    text = json.dumps(x, ensure_ascii=False)
    return seen(x) | {rank + SUIT_OF[suit] for rank, suit in GLYPH.findall(text)}


def legal(v: dict[str, Any], action: dict[str, Any]) -> bool:
    for e in v["legal"]:
        if e["type"] == "discard" == action["type"]:
            return (e["min"] <= len(action["cards"]) <= e["max"]
                    and set(action["cards"]) <= set(v["hand"])
                    and (e["expose_choice"] or not action["expose"]))
        if {k: x for k, x in e.items() if k not in ("label", "say")} == action:
            return True
    return False


def checked(v: dict[str, Any]) -> dict[str, Any]:
    """The hint for `v`, checked: strong's own action, legal, its options best first and
    legal, the same from the same view, JSON, naming no card the view does not show."""
    h = hint(v)
    try:
        expected = strong.choose(v)
    except ValueError:
        expected = {"type": "next_deal"}
    assert h["action"] == expected, (v["step"], h, expected)
    assert legal(v, h["action"])
    options = h["options"]
    assert options[0]["action"] == h["action"]
    assert (options[0]["label"], options[0]["why"]) == (h["label"], h["why"])
    points = [o["points"] for o in options]
    assert points[0] == 0 and all(p <= 0 for p in points)
    assert points == sorted(points, reverse=True)
    assert all(legal(v, o["action"]) and o["why"] and o["label"] for o in options)
    assert len({json.dumps(o["action"], sort_keys=True) for o in options}) == len(options)
    assert hint(json.loads(json.dumps(v))) == h
    assert named(h) <= seen(v) | set(v["hand"])
    return h


def reach(s: State, me: int, step: str, *, see: bool = False, other: str = "basic") -> State:
    """Play on (seat `me` at the strong level, the other seat at `other`) until `me` is
    to move at `step`, with something to see offered if `see`, else nothing."""
    while True:
        if s.to_move == me and s.step.word == step:
            offered = any(e["type"] == "see" for e in engine.view(s, me)["legal"])
            if offered == see:
                return s
        assert s.step is not engine.Step.DEAL_OVER, f"no {step} for seat {me}"
        seat = _who_acts(s)
        s = engine.apply(s, seat, decide("strong" if seat == me else other,
                                         engine.view(s, seat), True))


ELDER = "KS QS JS 10S AH 7H 8H AC 8C AD 9D 7D"
YOUNGER = "AS 9S 8S KH QH JH 10H KC QC JC KD QD"
STOCK = "7S 9H 10C 9C 7C JD 10D 8D"


def test_the_exchange_as_elder_keeps_the_quart_and_says_so() -> None:
    s = deal(ELDER, YOUNGER, STOCK)
    h = checked(engine.view(s, 0))
    assert h["kind"] == "exchange"
    assert not {"KS", "QS", "JS", "10S"} & set(h["action"]["cards"])
    assert h["why"].startswith("Throw ") and "the quart to the king in spades" in h["why"]
    assert h["label"].startswith("Discard ")
    assert len(h["options"]) == 3
    assert "over" in h["why"]  # against the next best


def test_the_exchange_as_younger() -> None:
    s = engine.apply(deal(ELDER, YOUNGER, STOCK), 0,
                     {"type": "discard", "cards": ["7H", "8H", "8C", "9D", "7D"]})
    h = checked(engine.view(s, 1))
    assert h["kind"] == "exchange"
    assert len(h["action"]["cards"]) == 3 and h["action"]["expose"] is False
    assert "tierce" in h["why"] or "quart" in h["why"]  # her hearts or her clubs


def test_a_call_an_answer_and_a_lesser_call() -> None:
    s = reach(deal(ELDER, YOUNGER, STOCK), 0, "elder_call")
    h = checked(engine.view(s, 0))
    assert h["kind"] == "call" and h["action"]["type"] == "call"
    assert h["why"] == f"{h['label']}: your best point, {len(h['action']['cards'])} if it is good"
    s = reach(s, 1, "younger_answer", other="strong")
    h = checked(engine.view(s, 1))
    assert h["kind"] == "answer"
    assert h["why"].split(":")[0] == h["label"]

    # Two quarts kept: elder wins the sequences with the ace's and adds the ten's.
    s = engine.apply(deal("AS KS QS JS 10H 9H 8H 7H AC QC AD QD",
                          "10S 9S 8S KH JH KC JC 10C KD JD 10D 9D",
                          "7S 8C 9C 7D 8D 7C AH QH"), 0, {"type": "discard", "cards": ["QC"]})
    lesser = reach(s, 0, "elder_lesser")
    h = checked(engine.view(lesser, 0))
    assert h["kind"] == "lesser"
    assert h["label"] == "Quart to the ten" and "another 4" in h["why"]
    h = checked(engine.view(engine.apply(lesser, 0, h["action"]), 0))
    assert (h["kind"], h["label"], h["why"]) == ("lesser", "Done", "Done: nothing more to add")


def test_nothing_to_call() -> None:
    # Elder holds no sequence at all: "Nothing".
    s = reach(deal("AS QS 10S 8S AC QC 10C 8C AD QD 10D 8D",
                   "KH QH JH 9H KS JS 9S KC JC 9C KD 7H", "7S 7C 7D 8H AH 10H JD 9D"),
              0, "elder_call")
    while engine.view(s, 0)["declaring"]["category"] != "sequence":
        s = engine.apply(s, s.to_move, decide("basic", engine.view(s, s.to_move)))
    h = checked(engine.view(s, 0))
    assert (h["kind"], h["action"], h["label"]) == ("call", {"type": "pass"}, "Nothing")
    assert h["why"] == "Nothing: you hold no sequence to call"


def test_asking_to_see() -> None:
    s = reach(deal(ELDER, YOUNGER, STOCK), 1, "follow", see=True)
    h = checked(engine.view(s, 1))
    assert h["kind"] == "see" and h["label"].startswith("See ")


def test_a_lead_and_a_follow() -> None:
    s = reach(deal(ELDER, YOUNGER, STOCK), 0, "lead")
    h = checked(engine.view(s, 0))
    assert h["kind"] == "play" and h["why"].startswith("Lead ")
    assert len(h["options"]) == 3 and "hands she may hold" in h["why"]
    s = reach(engine.apply(s, 0, h["action"]), 1, "follow")
    h = checked(engine.view(s, 1))
    assert h["kind"] == "play" and h["why"].startswith("Play ")


def test_the_only_card_that_may_be_played() -> None:
    s = engine.new_partie(4)
    while True:
        seat = _who_acts(s)
        v = engine.view(s, seat)
        if v["step"] == "follow" and v["to_move"] == seat and len(v["legal"]) == 1:
            break
        s = engine.apply(s, seat, decide("basic", v, True))
    h = checked(v)
    assert h["why"].endswith("the only card you may play") and len(h["options"]) == 1


def test_choosing_the_dealer() -> None:
    s = engine.new_partie(3)
    v = engine.view(s, s.to_move)
    h = checked(v)
    assert h["kind"] == "choose_dealer" and h["action"] == {"type": "choose_dealer",
                                                           "deal": True}
    assert h["label"] == "I'll deal" and "sixth" in h["why"]


def test_carte_blanche_as_younger() -> None:
    s = deal("KS QS JS 10S AH 7H 8H KC 8C KD 9D 7D", "AS 9S 8S 7S 10H 9H AC 10C 9C AD 10D 8D",
             "KH QH JH QC JC 7C QD JD")
    v = engine.view(s, 1)
    assert v["to_move"] == 0
    h = checked(v)
    assert h["kind"] == "carte_blanche" and h["action"] == {"type": "carte_blanche",
                                                           "announce": True}
    assert "10 points" in h["why"]


def test_dealing_the_next_hand() -> None:
    s, _ = drive(deal(ELDER, YOUNGER, STOCK), [level("basic"), level("basic")])
    v = engine.view(s, 0)
    if any(e["type"] == "see" for e in v["legal"]):
        pytest.skip("something to see first")
    h = checked(v)
    assert h["kind"] == "next_deal"


def test_every_decision_of_a_partie() -> None:
    """A whole partie between the strong and the good level: every view that offers
    a seat something gets a checked hint, of every kind."""
    s = engine.new_partie(26)
    kinds: set[str] = set()
    while s.step is not engine.Step.PARTIE_OVER:
        seat = _who_acts(s)
        v = engine.view(s, seat)
        if v["legal"]:
            kinds.add(checked(v)["kind"])
        s = engine.apply(s, seat, decide("strong" if seat == 0 else "good", v, True))
    assert {"choose_dealer", "exchange", "call", "answer", "lesser", "play", "see",
            "next_deal"} <= kinds


@pytest.mark.parametrize("rules", [engine.RUBICON, *VARIANTS], ids=lambda r: r.names())
def test_twin_deals_give_the_same_hints_under_every_variant(rules: engine.Rules) -> None:
    """Two deals that differ only in cards seat `me` never saw (her discards, the stock
    nobody drew or turned up): at each of its decisions the seat's views are the same,
    and so are its hints (legal, naming no card it has not seen). Under au cent
    the game is well under way in one of the twins, so that the deal may end at 100."""
    hinted = 0
    for i in range(2):
        me = i % 2
        game = (70, 80) if rules.game == "au_cent" and i else None
        a, steps_a, b, steps_b = twin(500 + i, me, [careless(i), careless(-i)], rules, game)
        for before_a, before_b in zip([a, *(x[2] for x in steps_a)],
                                      [b, *(x[2] for x in steps_b)], strict=True):
            va, vb = engine.view(before_a, me), engine.view(before_b, me)
            assert va == vb
            if va["to_move"] == me and va["legal"]:
                h = hint(va)
                assert legal(va, h["action"]) and named(h) <= seen(va) | set(va["hand"])
                assert hint(vb) == h
                hinted += 1
    assert hinted >= 10


def test_standing_pat_is_hinted_in_words() -> None:
    """Piquet au cent: younger may stand pat, and with a carte rouge in hand the strong
    level does (tests/engine/test_levels_variants.py); the hint says so."""
    from tests.engine.test_levels_variants import _younger_exchange

    v = _younger_exchange(engine.Rules(game="au_cent", carte_rouge=True))
    h = checked(v)
    assert h["kind"] == "exchange" and h["action"]["cards"] == []
    assert h["label"] == "Stand pat" and h["why"].startswith("Stand pat: keeps ")
    assert "over taking five" in h["why"]
