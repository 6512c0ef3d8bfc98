"""Noninterference (DESIGN.md, "What crosses the table"): a seat's view depends only on its
own cards and on what was said, shown, exposed and played.

Two deals that differ only in cards one seat (the *secret* seat) never revealed are driven
side by side by the same actions. The other seat (the *observer*) must get identical views
at every step, and the computer in the observer's seat the same decisions. The secret
seat's actions are matched between the deals by what the table tells of them: a discard by
its count, a call by its words at every stage, a card played by the card itself. Where no
such action is legal in the second deal, or a card legitimately comes to light differently
(a combination shown), the pair's comparison ends there.

The two leaks this guards against (issue 15): "Nothing" from elder settled the category at
once when younger held no call in it; and a won sequence or set offered a lesser step only
to a hand that held more.
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

import engine
from engine import Action, Answer, Call, Discard, Pass, Rules, See, State, Step
from engine.combos import Combo
from engine.computer import choose
from engine.rules import DiscardRule
from engine.variants import EVERY_RULES, RUBICON
from tests.engine.kit import ELDER, YOUNGER, deal, say, stack
from tests.engine.learnkit import under_way

PAIRS = int(os.environ.get("PIQUET_NONINTERFERENCE_PAIRS", "1000"))


@dataclass
class Outcome:
    steps: int  # steps at which the observer's views were compared
    reached_play: bool  # the comparison went on past the declarations


class Leak(AssertionError):
    pass


def differences(a: dict[str, Any], b: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def same_public_call(b: State, seat: int, action: Call) -> Action | None:
    """A call in deal B told in the same words at every stage as `action` in deal A."""
    key = Combo(action.category, action.cards).key
    calls = [x for x, _ in engine.legal(b, seat) if isinstance(x, Call)
             and x.category is action.category and Combo(x.category, x.cards).key == key]
    if action in calls:
        return action
    return calls[0] if calls else None


def matching(a: State, b: State, seat: int, action: Action, rng: random.Random) -> Action | None:
    """The secret seat's action in deal B that the table tells as `action` in deal A."""
    if isinstance(action, Discard):
        return Discard(tuple(rng.sample(b.hands[seat], len(action.cards))), action.expose)
    if isinstance(action, Call):
        return same_public_call(b, seat, action)
    if isinstance(action, See):
        return action if a.combos[action.combo] == b.combos[action.combo] else None
    return action if any(x == action for x, _ in engine.legal(b, seat)) else None


def pick(s: State, seat: int, rng: random.Random, take: int, expose: bool,
         computer: bool) -> Action:
    """A random legal action, leaning to sinking ("Nothing", "Done", "Good") half the time;
    or the computer's choice. Never carte blanche (it changes the exchange's shape)."""
    if computer:
        return engine.parse_action(choose(engine.view(s, seat)))
    options = [x for x, _ in engine.legal(s, seat) if not isinstance(x, engine.CarteBlanche)]
    rule = next((x for x in options if isinstance(x, DiscardRule)), None)
    if rule is not None:
        n = min(max(take, rule.min), rule.max)
        return Discard(tuple(rng.sample(s.hands[seat], n)), expose)
    quiet = [x for x in options if isinstance(x, Pass) or x == Answer("good")]
    if quiet and rng.random() < 0.5:
        return rng.choice(quiet)
    return rng.choice(options)


def lockstep(a: State, b: State, secret: int, rng: random.Random, *,
             takes: tuple[int, int] = (5, 3), expose: bool = False,
             script: list[tuple[int, str]] | None = None,
             computer_observer: bool = False) -> Outcome:
    """Drive deals A and B side by side to the end of the deal (or until the secret seat's
    action has no public twin in B); compare the observer's views at every step."""
    observer = 1 - secret
    steps = 0
    reached_play = False
    script = list(script or [])
    while a.step not in (Step.DEAL_OVER, Step.PARTIE_OVER):
        va, vb = engine.view(a, observer), engine.view(b, observer)
        if va != vb:
            raise Leak(f"step {steps} ({a.step.word}): the observer's views differ: "
                       f"{differences(va, vb)}")
        wa, wb = engine.public_view(a), engine.public_view(b)
        if wa != wb:  # a watcher sees less than the observer: the same too
            raise Leak(f"step {steps} ({a.step.word}): a watcher's views differ: "
                       f"{differences(wa, wb)}")
        steps += 1
        if computer_observer and (va["to_move"] == observer or va["legal"]):
            with contextlib.suppress(ValueError):  # ValueError: nothing it may do now
                assert choose(va) == choose(vb)
        reached_play = reached_play or (a.step in (Step.LEAD, Step.FOLLOW) and bool(a.tricks))
        seat = a.to_move
        assert seat is not None
        role = a.role(seat)
        take = takes[0] if role == "elder" else takes[1]
        if script:
            who, words = script.pop(0)
            assert who == seat, (who, seat, a.step)
            action = next(x for x, label in engine.legal(a, seat) if label == words)
            assert not isinstance(action, DiscardRule)
        else:
            action = pick(a, seat, rng, take, expose, computer_observer and seat == observer)
        if seat == observer:
            if isinstance(action, See) and a.combos[action.combo] != b.combos[action.combo]:
                break  # a combination comes to light: its cards are rightly different
            twin: Action | None = action
        else:
            twin = matching(a, b, seat, action, rng)
            if twin is None:
                break  # the secret seat cannot say the same thing in deal B
        a = engine.apply(a, seat, action)
        b = engine.apply(b, seat, twin)
        if _rouge(a) != _rouge(b):
            break  # a carte rouge is announced (RULES.md §8): it tells of the cards
    return Outcome(steps, reached_play)


def _rouge(s: State) -> list[int]:
    return [b[0] for b in s.bonuses if b[1] == "carte_rouge"]


def deal_parts(s: State) -> tuple[list[engine.Card], list[engine.Card], list[engine.Card]]:
    return list(s.hands[ELDER]), list(s.hands[YOUNGER]), list(s.stock)


def twin_deal(rng: random.Random, secret: int, takes: tuple[int, int],
              expose: bool, rules: Rules = RUBICON) -> tuple[State, State]:
    """Deal A at random, and deal B with the secret seat's hidden cards shuffled: the cards
    it was dealt and will draw (and the stock's leftovers, if nobody will see them) trade
    places. The observer's own cards, draws and rest of the five stay put."""
    deck = list(engine.DECK)
    rng.shuffle(deck)
    a = engine.new_partie(seed=rng.randrange(1 << 30), decks=[deck], first_dealer=1,
                          rules=rules)
    elder, younger, stock = deal_parts(a)
    n, k = takes
    hands = {ELDER: elder, YOUNGER: younger}
    draws = list(range(0, n)) if secret == ELDER else list(range(n, n + k))
    leftovers = [] if expose else list(range(n + k, 8))
    hidden = [i for i in draws + leftovers if not (secret == YOUNGER and n <= i < 5)]
    pool = hands[secret] + [stock[i] for i in hidden]
    rng.shuffle(pool)
    hands = {**hands, secret: pool[:12]}
    new_stock = list(stock)
    for i, card in zip(hidden, pool[12:], strict=True):
        new_stock[i] = card
    words = [" ".join(map(str, cards)) for cards in (hands[ELDER], hands[YOUNGER], new_stock)]
    b = engine.new_partie(seed=a.seed, decks=[stack(*words)], first_dealer=1, rules=rules)
    if rules.game == "au_cent" and rng.random() < 0.5:
        # The game well under way (as if earlier deals had scored it): the deal may end
        # at 100, and what is struck after it must not tell either.
        game = (rng.randint(50, 99), rng.randint(50, 99))
        a, b = under_way(a, game), under_way(b, game)
    return a, b


def random_pairs(rng: random.Random, count: int, rules: Rules = RUBICON) -> tuple[int, int, int]:
    """`count` random twin deals driven in lockstep: (steps compared, pairs that reached
    the tricks, pairs compared)."""
    total = played = pairs = 0
    for i in range(count):
        secret = rng.choice((ELDER, YOUNGER))
        computer = i % 2 == 1  # the computer in the observer's seat takes all it may
        n = 5 if computer and secret == YOUNGER else rng.randint(1, 5)
        takes = (n, 8 - n if computer and secret == ELDER else rng.randint(1, 8 - n))
        expose = rng.random() < 0.5
        a, b = twin_deal(rng, secret, takes, expose, rules)
        if a.hands == b.hands:
            continue
        out = lockstep(a, b, secret, rng, takes=takes, expose=expose,
                       computer_observer=computer)
        pairs += 1
        total += out.steps
        played += out.reached_play
    return total, played, pairs


def test_random_pairs_of_deals_look_the_same_to_the_other_seat() -> None:
    rng = random.Random(20261201)
    total, played, pairs = random_pairs(rng, PAIRS)
    # Not a vacuous pass: thousands of steps compared, many of them into the tricks.
    assert total >= 10 * PAIRS, (total, pairs)
    assert played >= PAIRS // 10, (played, pairs)


# Every variant (RULES.md §8) but Rubicon Piquet as plain, fewer pairs each.
VARIANTS = list(EVERY_RULES[1:])
VARIANT_PAIRS = max(20, PAIRS // 5)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: r.describe())
def test_random_pairs_of_deals_look_the_same_to_the_other_seat_under_each_variant(
        rules: Rules) -> None:
    rng = random.Random(f"20261201:{rules.describe()}")
    total, played, pairs = random_pairs(rng, VARIANT_PAIRS, rules)
    assert total >= 10 * VARIANT_PAIRS, (total, pairs)
    assert played >= VARIANT_PAIRS // 10, (played, pairs)


def exchanged(elder: str, younger: str, stock: str, throws: tuple[str, str]) -> State:
    """A stacked deal after each seat has thrown one card and taken one."""
    s = deal(elder, younger, stock)
    s = engine.apply(s, ELDER, Discard((engine.Card.parse(throws[0]),), False))
    return engine.apply(s, YOUNGER, Discard((engine.Card.parse(throws[1]),), False))


def scripted(a: State, b: State, secret: int, script: list[tuple[int, str]]) -> Outcome:
    """The scripted words in both deals, then random play on, matched as above."""
    return lockstep(a, b, secret, random.Random(len(script)), script=script)


# Younger holds a tierce to the king in hearts in deal A; in deal B the JH is swapped with
# the 9D from the bottom of the stock, which nobody draws or sees: no sequence at all.
ELDER_NO_SEQ = "AS QS 10S 8S AC QC 10C 8C AD QD 10D 8D"
YOUNGER_TIERCE = "KH QH JH 9H KS JS 9S KC JC 9C KD 7H"
YOUNGER_NO_TIERCE = "KH QH 9D 9H KS JS 9S KC JC 9C KD 7H"
STOCK_A = "7S 7C 7D 8H AH 10H JD 9D"
STOCK_B = "7S 7C 7D 8H AH 10H JD JH"


def test_elders_nothing_leaves_the_category_open_whatever_younger_holds() -> None:
    """Leak 1: after elder's "Nothing", the category stays open for younger to call or
    sink after the lead, whether or not she holds anything in it."""
    a = exchanged(ELDER_NO_SEQ, YOUNGER_TIERCE, STOCK_A, ("8S", "7H"))
    b = exchanged(ELDER_NO_SEQ, YOUNGER_NO_TIERCE, STOCK_B, ("8S", "7H"))
    for s in (a, b):
        s = say(say(say(s, ELDER, "Point of four"), YOUNGER, "Good"), ELDER, "Nothing")
        assert [d["outcome"] for d in engine.view(s, ELDER)["declarations"]] == \
            ["elder", "pending", "pending"]
        s = say(say(s, ELDER, "Nothing"), ELDER, "Ace of Spades")
        assert s.step is Step.YOUNGER_CALL and s.to_move == YOUNGER
        assert "Nothing" in [label for _, label in engine.legal(s, YOUNGER)]
    script = [(ELDER, "Point of four"), (YOUNGER, "Good"), (ELDER, "Nothing"),
              (ELDER, "Nothing"), (ELDER, "Ace of Spades"),
              (YOUNGER, "Nothing"),  # in deal A she sinks her tierce
              (YOUNGER, "Four kings"), (YOUNGER, "Done")]
    assert scripted(a, b, YOUNGER, script).steps > len(script)


# Elder wins the sequences with a quart; in deal A he also holds a tierce in hearts, in deal
# B the 8H is swapped with the 7H from the stock's leftovers, which younger never sees.
ELDER_QUART_TIERCE = "AS KS QS JS 10H 9H 8H AC QC AD QD 7C"
ELDER_QUART_ONLY = "AS KS QS JS 10H 9H 7H AC QC AD QD 7C"
YOUNGER_PLAIN = "10S 9S 8S KH JH KC JC 10C KD JD 10D 9D"
STOCK_C = "7S 8C 9C 7D 8D 7H AH QH"
STOCK_D = "7S 8C 9C 7D 8D 8H AH QH"


def test_a_won_sequence_always_offers_lesser_calls_ended_by_done() -> None:
    """Leak 2: the winner of a sequence (or set) is always asked for lesser calls and
    ends them with "Done", so the other seat cannot tell whether there was more."""
    a = exchanged(ELDER_QUART_TIERCE, YOUNGER_PLAIN, STOCK_C, ("7C", "9D"))
    b = exchanged(ELDER_QUART_ONLY, YOUNGER_PLAIN, STOCK_D, ("7C", "9D"))
    for s in (a, b):
        s = say(say(s, ELDER, "Point of five"), YOUNGER, "Good")
        s = say(say(s, ELDER, "Quart to the ace"), YOUNGER, "Good")
        assert engine.view(s, YOUNGER)["step"] == "elder_lesser"
    script = [(ELDER, "Point of five"), (YOUNGER, "Good"),
              (ELDER, "Quart to the ace"), (YOUNGER, "Good"),
              (ELDER, "Done"),  # in deal A he sinks his tierce
              (ELDER, "Three aces"), (YOUNGER, "Good"),
              (ELDER, "Three queens"), (ELDER, "Done")]
    assert scripted(a, b, ELDER, script).steps > len(script)


def test_the_harness_catches_a_view_that_tells_a_hidden_card() -> None:
    """Not a vacuous pass: a view that let slip whether younger holds the JH fails it."""
    a = exchanged(ELDER_NO_SEQ, YOUNGER_TIERCE, STOCK_A, ("8S", "7H"))
    b = exchanged(ELDER_NO_SEQ, YOUNGER_NO_TIERCE, STOCK_B, ("8S", "7H"))
    real_view: Callable[..., dict[str, Any]] = engine.view

    def leaky_view(s: State, seat: int, **kw: Any) -> dict[str, Any]:
        return {**real_view(s, seat, **kw),
                "tierce": engine.Card.parse("JH") in s.hands[YOUNGER]}

    engine.view = leaky_view  # type: ignore[assignment]
    try:
        with pytest.raises(Leak):
            lockstep(a, b, YOUNGER, random.Random(3))
    finally:
        engine.view = real_view  # type: ignore[assignment]


# Younger holds equal points of five making 50 (and equal quarts to the ace) in hearts and
# in clubs in deal C; in deal D her AH and JH are swapped with the 10S and 7H from the
# stock's leftovers, which nobody draws or sees: only the clubs tie. Elder's point and quart
# are in diamonds. When the engine named her tie itself (the first in suit order), "See"
# showed elder the hearts in deal C and the clubs in deal D.
ELDER_DIAMONDS = "AD KD QD JD 9D AS KS QS 10H 8H 10C 8C"
YOUNGER_TWO_TIES = "AH KH QH JH 9H AC KC QC JC 9C 7S 8S"
YOUNGER_ONE_TIE = "7H KH QH 10S 9H AC KC QC JC 9C 7S 8S"
STOCK_E = "9S 7D 8D JS 10D 10S 7H 7C"
STOCK_F = "9S 7D 8D JS 10D AH JH 7C"


def test_which_equal_call_younger_names_is_hers_to_choose() -> None:
    """After "Equal" at the last stage, the call shown is the one younger named: she may
    name the same one (the clubs) whatever else she holds, and then elder sees the same
    cards after "See" in both deals."""
    c = exchanged(ELDER_DIAMONDS, YOUNGER_TWO_TIES, STOCK_E, ("8H", "7S"))
    d = exchanged(ELDER_DIAMONDS, YOUNGER_ONE_TIE, STOCK_F, ("8H", "7S"))
    assert c.hands[ELDER] == d.hands[ELDER] and c.hands[YOUNGER] != d.hands[YOUNGER]
    script = [(ELDER, "Point of five"), (YOUNGER, "Equal"),
              (YOUNGER, "Equal: point of five in clubs"),  # in deal C she could name hearts
              (ELDER, "Quart to the ace"), (YOUNGER, "Equal"),
              (YOUNGER, "Equal: quart to the ace in clubs"),
              (ELDER, "Nothing"), (ELDER, "Ace of Spades"), (YOUNGER, "Nothing"),
              (YOUNGER, "Eight of Spades"),
              (ELDER, "See the point of five, making 50"), (ELDER, "See the quart to the ace")]
    assert scripted(c, d, YOUNGER, script).steps > len(script)
    s = say(say(c, ELDER, "Point of five"), YOUNGER, "Equal")  # elder: "Making 50"
    assert [label for _, label in engine.legal(s, YOUNGER)] == [
        "Good", "Equal: point of five in hearts", "Equal: point of five in clubs"]
