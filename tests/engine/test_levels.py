"""The computer's levels (issue 12): every level plays only legal moves as elder and as
younger, decides from its seat's view alone (reshuffling the cards hidden from it changes
nothing), and decides the same way from the same view.

`PIQUET_LEVEL_PARTIES` sizes the random-opponent check (per level and seat; the issue's
500 is a run by hand: `PIQUET_LEVEL_PARTIES=500 pytest --timeout 0
tests/engine/test_levels.py -k legal`).
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Iterator
from typing import Any

import pytest

import engine
from engine.cards import sort_hand
from engine.computer import LEVELS, decide, level
from engine.selfplay import level_policy, play_partie, random_policy
from engine.state import State, Step
from engine.variants import RUBICON, Rules

PARTIES = int(os.environ.get("PIQUET_LEVEL_PARTIES", "6"))
TWIN_PARTIES = int(os.environ.get("PIQUET_LEVEL_TWIN_PARTIES", "2"))


@pytest.mark.parametrize("name", list(LEVELS))
@pytest.mark.parametrize("seat", [0, 1])
def test_only_legal_moves_against_a_random_player(name: str, seat: int) -> None:
    rng = random.Random(f"{name}/{seat}")
    for _ in range(PARTIES):
        other = random_policy(random.Random(rng.getrandbits(64)))
        me = level_policy(name)(random.Random(0))
        seats = (me, other) if seat == 0 else (other, me)
        record = play_partie(seats, rng.getrandbits(64))
        assert record.errors == []
        assert record.result is not None  # the partie ran to its end


def test_an_unknown_level_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"unknown computer level 'expert'.*basic, good, strong"):
        level("expert")


def test_basic_is_still_the_default_player() -> None:
    from engine import computer
    from engine.computer import basic

    assert computer.choose is basic.choose
    assert LEVELS["basic"].choose is basic.choose
    assert next(iter(LEVELS)) == "basic"


# --------------------------------------------------------------------------- the view only


def hidden_reshuffled(s: State, seat: int, rng: random.Random) -> State:
    """A twin of `s` in which every card `seat` has not seen -- the opponent's unshown
    cards, her discards, the stock it never saw -- is dealt again among those places."""
    other = 1 - seat
    shown = {c for x in s.shown if x.seat == other for c in x.cards}
    shown |= {c for r in s.combos if r.seat == other and r.shown for c in r.combo.cards}
    seen_stock = set(s.seen_stock) if s.elder == seat else set()
    seen = shown | set(s.exposed) | seen_stock
    hand = [c for c in s.hands[other] if c not in seen]
    stock = [c for c in s.stock if c not in seen]
    pool = hand + list(s.discards[other]) + stock
    rng.shuffle(pool)
    new_hand = pool[:len(hand)]
    new_discards = pool[len(hand):len(hand) + len(s.discards[other])]
    rest = iter(pool[len(hand) + len(s.discards[other]):])
    t = copy.copy(s)
    hands = list(s.hands)
    hands[other] = sort_hand([c for c in s.hands[other] if c in seen] + new_hand)
    t.hands = (hands[0], hands[1])
    discards = list(s.discards)
    discards[other] = tuple(new_discards)
    t.discards = (discards[0], discards[1])
    t.stock = tuple(c if c in seen else next(rest) for c in s.stock)
    return t


# Under the variants too (RULES.md §8): the view says which rules are in force, and au
# cent's games; the decision reads them from there.
TWIN_RULES = [RUBICON, Rules(game="au_cent", cards_towards_pique=True, carte_rouge=True)]


@pytest.mark.parametrize("rules", TWIN_RULES, ids=lambda r: r.names())
@pytest.mark.parametrize("name", list(LEVELS))
def test_decisions_do_not_change_when_hidden_cards_are_reshuffled(name: str,
                                                                   rules: Rules) -> None:
    rng = random.Random(name if rules == RUBICON else f"{name}/{rules.names()}")
    compared = 0
    steps: set[str] = set()
    for _ in range(TWIN_PARTIES if rules == RUBICON else max(1, TWIN_PARTIES // 2)):
        s = engine.new_partie(rng.getrandbits(64), rules=rules)
        me = rng.randrange(2)
        other = random_policy(random.Random(rng.getrandbits(64)))
        while s.step is not Step.PARTIE_OVER:
            if s.to_move is None:
                s = engine.apply(s, 0, {"type": "next_deal"}) if engine.legal(s, 0) else s
                if s.to_move is None:
                    s = engine.apply(s, 1, {"type": "next_deal"})
                continue
            seat = s.to_move
            v = engine.view(s, seat)
            if seat == me and s.deal_number > 0 and s.step is not Step.CHOOSE_DEALER:
                twin = hidden_reshuffled(s, me, rng)
                w = engine.view(twin, me)
                assert w == v  # the cards moved are hidden from this seat
                action = decide(name, v)
                assert decide(name, w) == action
                compared += 1
                steps.add(v["step"])
            else:
                action = decide(name, v) if seat == me else other(v)
            s = engine.apply(s, seat, action)
    assert compared > 50
    assert {"lead", "follow"} <= steps


@pytest.mark.parametrize("name", list(LEVELS))
def test_the_same_view_gives_the_same_decision(name: str) -> None:
    """Seeded from the view: the same view (even rebuilt, its keys in another order)
    always gives the same action."""
    rng = random.Random(f"same/{name}")
    s = engine.new_partie(rng.getrandbits(64))
    other = random_policy(random.Random(rng.getrandbits(64)))
    decisions = 0
    while s.step is not Step.PARTIE_OVER and decisions < 120:
        seat = s.to_move if s.to_move is not None else 0
        v = engine.view(s, seat)
        if not v["legal"]:
            seat = 1 - seat
            v = engine.view(s, seat)
        if seat == 0 and v["step"] not in ("deal_over", "choose_dealer"):
            action = decide(name, v, True)
            rebuilt: dict[str, Any] = json.loads(json.dumps(dict(reversed(v.items()))))
            for _ in range(2):
                assert decide(name, rebuilt, True) == action
            decisions += 1
        else:
            action = decide(name, v, True) if seat == 0 else other(v)
        s = engine.apply(s, seat, action)
    assert decisions >= 60


def test_strong_samples_only_hands_that_make_her_calls_and_miss_her_void_suits() -> None:
    """The sampler keeps to what the seat heard and saw: every sampled hand, with the
    cards she has played, makes each call she told, holds no card of a suit she showed
    out of, and none the seat has seen elsewhere."""
    from engine.computer.knowledge import SUIT_MASK, holds, know
    from engine.computer.sampler import sample_hands

    checked_claims = checked_voids = 0
    for s, seat, v in card_play_positions("samples", 4):
        k = know(v)
        real = s.hands[1 - seat]
        assert k.opp_hand_count == len(real)
        for h in sample_hands(k, 6, random.Random(1)):
            assert bin(h).count("1") == len(real)
            assert not h & (k.hand | k.played)
            for claim in k.claims:
                # her real hand makes the claim, so a sample can and must
                assert holds(claim, h | k.opp_played)
                checked_claims += 1
            for suit in k.voids:
                assert not h & SUIT_MASK[suit]
                checked_voids += 1
    assert checked_claims > 100 and checked_voids > 10


def card_play_positions(
    seed: str, parties: int
) -> Iterator[tuple[State, int, dict[str, Any]]]:
    """Every position of `parties` parties between basic players (seeded by `seed`) where
    a seat is to lead or follow: the state, that seat and its view."""
    rng = random.Random(seed)
    for _ in range(parties):
        s = engine.new_partie(rng.getrandbits(64))
        while s.step is not Step.PARTIE_OVER:
            seat = s.to_move if s.to_move is not None else 0
            v = engine.view(s, seat)
            if not v["legal"]:
                seat = 1 - seat
                v = engine.view(s, seat)
            if v["step"] in ("lead", "follow") and v["to_move"] == seat:
                yield s, seat, v
            s = engine.apply(s, seat, decide("basic", v, True))


# --------------------------------------------------------------------------- good's rules


def _until(s: State, step: str, me: int, name: str) -> State:
    """Play on (seat `me` at level `name`, the other seat basic) until `me` is to move
    at `step`."""
    while not (s.to_move == me and engine.view(s, me)["step"] == step):
        seat = s.to_move
        assert seat is not None and s.step is not Step.DEAL_OVER, s.step
        s = engine.apply(s, seat, decide(name if seat == me else "basic", engine.view(s, seat)))
    return s


def _sink_position(younger: str, stock: str) -> State:
    """Elder (seat 0) has won the sequences with a quint of hearts and holds a lesser
    tierce, K Q J of clubs, all its clubs: the king is not a master (the ace is unseen)."""
    from tests.engine.kit import deal
    from tests.engine.moves import exchange

    s = deal("AH KH QH JH 10H KC QC JC 7S 8S 9S 10S", younger, stock)
    s = exchange(s, "10S", "8H")
    return _until(s, "elder_lesser", 0, "good")


def test_good_sinks_a_tierce_that_would_show_a_thin_king_once_she_scores_anyway() -> None:
    """She holds the better point (seven diamonds): the 3 points of the tierce would
    neither block her thirty nor make one of its own, and showing it would tell her
    that the king of clubs lies with only two cards under it. Good sinks it ("Done");
    basic calls it."""
    s = _sink_position("AD KD QD 10D 9D 8D 7D AS KS 7C 7H 8H", "JD 9H 9C 8C 10C AC JS QS")
    v = engine.view(s, 0)
    assert [d["outcome"] for d in v["declarations"]][:2] == ["younger", "elder"]
    assert decide("basic", v) == {"type": "call", "category": "sequence",
                                  "cards": ["KC", "QC", "JC"]}
    assert decide("good", v) == {"type": "pass"}


def test_good_calls_the_same_tierce_while_it_counts_towards_thirty() -> None:
    """The same clubs when she has won nothing: the 3 points count towards its thirty
    (and against hers), so good calls them as basic does."""
    s = _sink_position("AD KD QD 10D AS KS QS 7C 7H 8H 9C 8C", "JD 9H 10C AC JS 9D 8D 7D")
    v = engine.view(s, 0)
    assert v["declarations"][0]["outcome"] == "elder"
    assert decide("good", v) == {"type": "call", "category": "sequence",
                                 "cards": ["KC", "QC", "JC"]}


def test_good_keeps_a_guarded_queen_when_she_might_capot_it() -> None:
    """Younger (good) is void in hearts and elder runs seven of them: good has taken no
    trick, and its only chance of one is the queen of spades with both its guards
    against A K J of spades. It throws its hopeless clubs and spare diamonds and keeps
    Q 8 7 of spades, so the queen takes the jack: no capot. (Without the rule it threw
    the eight of spades on the second heart and was capotted: 40 to elder, not 10.)"""
    from tests.engine.kit import deal, play
    from tests.engine.moves import exchange

    s = deal("AH KH QH JH 10H 9H 8H AS KS JS AC 7H", "QS 8S 7S 10C 9C 8C 7C KD 10D 9D 8D 10S",
             "AD 7D KC QC JC QD JD 9S")
    s = exchange(s, "7H", "10S")
    leads = ["AH", "KH", "QH", "JH", "10H", "9H", "8H", "AS", "KS", "JS", "AC", "AD"]
    thrown: list[str] = []
    while s.step is not Step.DEAL_OVER:
        seat = s.to_move
        assert seat is not None
        v = engine.view(s, seat)
        if seat == 0 and v["step"] == "lead":
            s = play(s, 0, leads.pop(0))
            continue
        action = decide("good" if seat == 1 else "basic", v)
        if seat == 1 and action["type"] == "play" and len(thrown) < 7:
            thrown.append(action["card"])
        s = engine.apply(s, seat, action)
    assert "8S" not in thrown and "7S" not in thrown and "QS" not in thrown
    v = engine.view(s, 1)
    assert v["tricks_won"] == [11, 1]
    assert not any(b["kind"] == "capot" for b in v["bonuses"])


# --------------------------------------------------------------------------- strong's search


def test_the_solver_counts_elders_pique() -> None:
    """Elder (seat 0 here) has 28 points from the declaring and younger none: the lead
    that follows a trick he wins makes thirty, a pique (+30). Counting only the play's
    points, leading the jack of spades or the king of clubs is as good as the ace of
    diamonds; counting the pique, only the ace keeps the lead for it, and it is worth
    30 more."""
    from engine.computer.knowledge import CARD_OF
    from engine.computer.solver import Solver

    def m(text: str) -> int:
        return sum(1 << CARD_OF[c] for c in text.split())

    elder = m("7S 10S JS 7H 10H KH 8C 10C JC KC 8D AD")
    younger = m("8S 9S QS AS 9H JH QH AH AC 7D JD KD")
    plain = Solver().moves(elder, younger, 0, 0, None, 0)
    pique = Solver((0, 28)).moves(elder, younger, 0, 0, None, 0)
    ad, js, kc = CARD_OF["AD"], CARD_OF["JS"], CARD_OF["KC"]
    assert plain[ad] == plain[js] == plain[kc] == max(plain.values())
    assert pique[ad] == plain[ad] + 30 == max(pique.values())
    assert pique[js] < pique[ad] and pique[kc] < pique[ad]
    # younger's side of the same search: the pique counts against her
    assert Solver((1, 28)).moves(younger, elder, 1, 0, None, 1)[ad] == -pique[ad]


def test_strong_sees_a_pique_coming_from_the_view() -> None:
    """Elder's point of five (5), quint (15) and three kings (3) with younger at nothing:
    23 before the first lead, so seven leads in a row make a pique; strong, elder, runs
    its masters first and scores it."""
    from engine.computer.strong import _pique
    from tests.engine.kit import deal
    from tests.engine.moves import exchange

    s = deal("AH KH QH JH 10H AS KS KC 7D 8D 7C 9C", "QS JS 10S 9S 9H 8H 7H AC QC AD KD 10D",
             "8C QD 8S 7S JC 10C JD 9D")
    s = exchange(s, "9C", "10D")
    s = _until(s, "lead", 0, "strong")
    assert _pique(engine.view(s, 0)) == (0, 23)
    assert _pique(engine.view(s, 1)) == (1, 23)
    while s.step is not Step.DEAL_OVER:
        seat = s.to_move
        assert seat is not None
        s = engine.apply(s, seat, decide("strong" if seat == 0 else "basic",
                                         engine.view(s, seat)))
    assert {"seat": 0, "kind": "pique", "points": 30} in engine.view(s, 0)["bonuses"]


def test_strong_values_the_last_deal_by_what_the_partie_ends_with() -> None:
    """RULES.md §7's examples, from the winner's side and the loser's."""
    from engine.computer.strong import partie_score

    assert partie_score(120, 99) == 319 and partie_score(99, 120) == -319
    assert partie_score(120, 101) == 119
    assert partie_score(105, 101) == 104
    assert partie_score(97, 89) == 286
    assert partie_score(100, 100) == 0


def test_strong_samples_hands_as_her_calls_and_answers_tell_them() -> None:
    """Read as an honest player's words (every level is one), her calls and answers
    bound what she holds: her call is her best, "good" means less than the call it
    answered, "nothing" nothing. Her real hand always keeps within those bounds, and
    so do the hands strong samples for her (all but a few: a bound is a preference,
    not a certainty, so a sample that cannot keep every one keeps the most)."""
    from engine.computer.knowledge import CARD_OF, know, under
    from engine.computer.sampler import sample_hands

    checked = kept = 0
    for s, seat, v in card_play_positions("ceilings", 3):
        k = know(v)
        real = sum(1 << CARD_OF[c.code] for c in s.hands[1 - seat]) | k.opp_played
        samples = sample_hands(k, 4, random.Random(1))
        for ceiling in k.ceilings:
            assert under(ceiling, real)
            kept += sum(under(ceiling, h | k.opp_played) for h in samples)
            checked += len(samples)
    assert checked > 1000
    assert kept >= 0.99 * checked


def test_strong_values_the_deal_before_the_last_by_the_chance_it_gives() -> None:
    """In the fifth of six deals ten points count for much more when the partie is even
    (they move the chance of winning it) than when it is already far ahead."""
    from engine.computer.strong import partie_value

    even = partie_value(_partie_view(5, 100, 100), 40)
    ahead = partie_value(_partie_view(5, 250, 100), 40)
    assert even(10) - even(0) > 30
    assert 10 <= ahead(10) - ahead(0) < 10.5


def test_strong_plays_for_the_partie_from_the_first_deal() -> None:
    """Earlier deals weigh the chance of winning the partie too, the more the fewer
    deals are left: ten points in a close partie count for more than their points from
    the first deal on, for more in the fourth deal than in the first, for less when one
    side leads, and for hardly more than their points when it is far ahead with two
    deals to go."""
    from engine.computer.strong import partie_value

    def gain(deal: int, mine: int, theirs: int) -> float:
        value = partie_value(_partie_view(deal, mine, theirs), 40)
        return value(10) - value(0)

    assert 15 < gain(1, 0, 0) < gain(4, 60, 60) < gain(5, 100, 100)
    assert gain(3, 80, 0) < gain(3, 0, 0) - 5
    assert 10 <= gain(4, 200, 20) < 11


def _partie_view(deal: int, mine: int, theirs: int) -> dict[str, Any]:
    return {"deals_in_partie": 6, "deal_number": deal, "seat": 0,
            "scores": {"partie": [mine, theirs]}}
