"""The computer seat (RULES.md §9, seed 002): one test per thing it is promised to do,
on stacked deals where the right choice is unambiguous; then a thousand parties
against a random player without one illegal move; then that it decides from its
own seat's view alone."""

from __future__ import annotations

import copy
import dataclasses
import os
import random
from collections import Counter
from typing import Any

import pytest

import engine
from engine import State, Step
from engine.cards import sort_hand
from engine.computer import choose, throw_order
from engine.selfplay import play_partie, random_policy
from tests.engine.kit import ELDER, YOUNGER, cards, deal, discard, play
from tests.engine.moves import exchange

PARTIES = int(os.environ.get("PIQUET_COMPUTER_PARTIES", "1000"))
DECLARING = (Step.ELDER_CALL, Step.YOUNGER_ANSWER, Step.ELDER_LESSER, Step.YOUNGER_CALL,
             Step.YOUNGER_LESSER)


def decide(s: State, seat: int) -> dict[str, Any]:
    return choose(engine.view(s, seat))


def move(s: State, seat: int) -> State:
    """The computer's move in `seat`, applied."""
    return engine.apply(s, seat, decide(s, seat))


def turn(s: State, seat: int) -> tuple[State, dict[str, Any], list[dict[str, Any]]]:
    """Let the computer ask to see what it wants; return the state, the move it then
    chooses (not applied) and the `see` actions it took."""
    seen = []
    while True:
        action = decide(s, seat)
        if action["type"] != "see":
            return s, action, seen
        seen.append(action)
        s = engine.apply(s, seat, action)


def until(s: State, stop: Step, computer: int) -> State:
    """Play on to `stop`: the computer in its seat, the person saying the first thing
    offered (best call, first lesser call, "Good")."""
    while s.step is not stop:
        seat = s.to_move
        assert seat is not None, s.step
        if seat == computer:
            s, action, _ = turn(s, seat)
        else:
            action = engine.legal(s, seat)[0][0]
        s = engine.apply(s, seat, action)
    return s


def words(s: State) -> list[str]:
    return [line.text for line in s.log]


# --------------------------------------------------------------------------- the cut


def test_it_chooses_to_deal_first_when_it_wins_the_cut() -> None:
    s = engine.new_partie(seed=3)
    assert s.step is Step.CHOOSE_DEALER and s.to_move is not None
    assert decide(s, s.to_move) == {"type": "choose_dealer", "deal": True}
    assert move(s, s.to_move).dealer == s.to_move


# --------------------------------------------------------------------------- carte blanche


def test_as_elder_it_announces_carte_blanche_taking_five() -> None:
    s = deal("AS 10S 9S 8S AH 10H 9H 8H AD 10D 9D 8D",
             "KS QS JS 7S KH QH JH 7H KC QC JC 7C")
    assert s.step is Step.ELDER_EXCHANGE and s.to_move == ELDER  # among its exchange choices
    assert decide(s, ELDER) == {"type": "carte_blanche", "announce": True, "take": 5}


def test_as_younger_it_announces_carte_blanche() -> None:
    s = deal("KS QS JS 7S KH QH JH 7H KC QC JC 7C",
             "AS 10S 9S 8S AH 10H 9H 8H AD 10D 9D 8D")
    assert s.step is Step.ELDER_EXCHANGE and s.to_move == ELDER  # out of its turn
    assert decide(s, YOUNGER) == {"type": "carte_blanche", "announce": True}


# --------------------------------------------------------------------------- the exchange


def test_elder_takes_five_throwing_its_lowest_cards_from_its_shortest_suits() -> None:
    # Suits of one, two, four and five cards, no set: the diamond, both clubs, then the
    # two lowest hearts go.
    s = deal("AS KS QS JS 10S AH KH QH 9H 8C 7C 7D",
             "9S 8S 7S JH 10H 8H 7H AC KC QC AD KD")
    assert decide(s, ELDER) == {"type": "discard", "cards": ["7D", "7C", "8C", "9H", "QH"],
                                "expose": False}


def test_the_exchange_keeps_high_sets_and_long_suits() -> None:
    # The ace of diamonds is the shortest suit's only card, but one of three aces: it stays,
    # and the lowest cards of the two five-card suits go instead.
    s = deal("AS KS QS 9S 8S AH KH 10H 9H 8H 7C AD",
             "JS 10S 7S QH JH 7H AC KC QC JC KD QD")
    assert decide(s, ELDER)["cards"] == ["7C", "8S", "8H", "9S", "9H"]
    assert str(throw_order(cards("AS AH AD AC KS"))[0]) == "KS"  # a quatorze goes last


def test_younger_takes_all_that_is_left_and_leaves_nothing_face_up() -> None:
    s = deal("AS KS QS JS 10S AH KH QH 9H 8C 7C 7D",
             "9S 8S 7S JH 10H 8H 7H AC KC QC AD KD")
    s = discard(s, ELDER, "7D 7C 8C")  # a person takes three, leaving five
    action = decide(s, YOUNGER)
    assert len(action["cards"]) == 5 and action["expose"] is False
    s = engine.apply(s, YOUNGER, action)
    assert s.took == (3, 5)

    s = deal("AS KS QS JS 10S AH KH QH 9H 8C 7C 7D",
             "9S 8S 7S JH 10H 8H 7H AC KC QC AD KD")
    s = move(s, ELDER)
    # Her shortest suit is diamonds (two cards, even the ace goes), then the lowest card of
    # the three-card suits.
    assert decide(s, YOUNGER)["cards"] == ["KD", "AD", "7S"]
    assert move(s, YOUNGER).took == (5, 3)


def test_after_announcing_carte_blanche_as_elder_it_takes_the_five_it_said() -> None:
    s = deal("AS 10S 9S 8S AH 10H 9H 8H AD 10D 9D 8D",
             "KS QS JS 7S KH QH JH 7H KC QC JC 7C")
    s = move(s, ELDER)
    s = move(s, YOUNGER)  # younger throws first: three, all she may
    assert len(s.discards[YOUNGER]) == 3
    assert len(decide(s, ELDER)["cards"]) == 5


# --------------------------------------------------------------------------- declaring

# Elder (the computer, after a person's exchange): a point of five in spades, a quart to
# the ace and a tierce to the ten, three aces. Younger holds nothing better.
ELDER_HAND = "AS KS QS JS 9S 10H 9H 8H AC KC AD 7D"
YOUNGER_WEAK = "10S 8S 7S QH 7H QC JC 9C 8C KD QD JD"
STOCK_WEAK = "7C 8D AH KH JH 10C 10D 9D"


def elder_to_declare() -> State:
    s = deal(ELDER_HAND, YOUNGER_WEAK, STOCK_WEAK)
    return exchange(s, "7D", "7H")  # elder takes the seven of clubs, younger the 8 of diamonds


def test_elder_calls_its_best_in_each_category_then_its_lesser_ones() -> None:
    s = elder_to_declare()
    calls = []
    while s.step in DECLARING:
        if s.to_move == YOUNGER:  # the person: "Good" is all she may say
            assert [label for _, label in engine.legal(s, YOUNGER)] == ["Good"]
            s = engine.apply(s, YOUNGER, {"type": "answer", "reply": "good"})
            continue
        action = decide(s, ELDER)
        calls.append((action["type"], action.get("category"), " ".join(action.get("cards", ()))))
        s = engine.apply(s, ELDER, action)
    assert calls == [
        ("call", "point", "AS KS QS JS 9S"),     # point of five, not of four
        ("call", "sequence", "AS KS QS JS"),     # the quart first...
        ("call", "sequence", "10H 9H 8H"),       # ...then the tierce: it sinks nothing
        ("pass", None, ""),                      # "Done"
        ("call", "set", "AS AC AD"),             # three aces
        ("pass", None, ""),                      # "Done"
    ]
    assert s.step is Step.LEAD and s.deal_scores()[ELDER] == 5 + 4 + 3 + 3


# Younger (the computer) against a person's point of four making 39, no sequence, and
# three kings: she holds a point of four making 41, a quart to the ace, a tierce to the
# ten and three aces.
ELDER_KINGS = "KS QS 10S 9S 10H 9H 7H AC KC JC KD QD"
YOUNGER_QUART = "AH KH QH JH 10C 9C 8C AS 8S AD 9D 7D"
STOCK_QUART = "8D JS 8H QC 7C JD 10D 7S"


def younger_to_answer() -> State:
    s = deal(ELDER_KINGS, YOUNGER_QUART, STOCK_QUART)
    s = exchange(s, "7H", "7D")  # elder takes the eight of diamonds, younger the jack of spades
    return engine.apply(s, ELDER, {"type": "call", "category": "point",
                                   "cards": ["KS", "QS", "10S", "9S"]})


def test_younger_answers_by_the_stage_it_was_told() -> None:
    s = younger_to_answer()
    # "Point of four": she holds four too, so equal; "Making 39": she makes 41, not good.
    assert decide(s, YOUNGER) == {"type": "answer", "reply": "equal"}
    s = move(s, YOUNGER)
    assert words(s)[-2:] == ["Equal", "Making 39"]
    assert decide(s, YOUNGER) == {"type": "answer", "reply": "not_good"}
    s = move(s, YOUNGER)
    # Elder has no sequence (he says "Nothing"); three kings are not good.
    s = engine.apply(s, ELDER, {"type": "pass"})
    s = engine.apply(s, ELDER, {"type": "call", "category": "set",
                                "cards": ["KS", "KC", "KD"]})
    assert decide(s, YOUNGER) == {"type": "answer", "reply": "not_good"}


def test_younger_says_equal_to_the_last_stage_when_its_best_is_equal() -> None:
    s = deal("AS KS QS JS 9H 7H 10C 8C 7C 10D 9D 7D",
             "AH KH QH JH 10S 8S AC KC 9C AD KD 8D", "8H 7S 9S 10H QC JC QD JD")
    s = discard(discard(s, ELDER, "7H"), YOUNGER, "8D")
    s = engine.apply(s, ELDER, {"type": "call", "category": "point",
                                "cards": ["AS", "KS", "QS", "JS"]})
    assert decide(s, YOUNGER) == {"type": "answer", "reply": "equal"}  # "Point of four"
    s = move(s, YOUNGER)
    # "Making 41": at the last stage her answer names the call it ties with.
    assert decide(s, YOUNGER) == {"type": "answer", "reply": "equal",
                                  "cards": ["AH", "KH", "QH", "JH"]}
    s = move(s, YOUNGER)
    assert s.declarations[0].outcome.value == "equal"


def test_younger_says_good_when_that_is_all_it_may_say() -> None:
    # Elder's point of five: her longest suit is four, so "Good" is all she is offered.
    s = engine.apply(elder_to_declare(), ELDER, {"type": "call", "category": "point",
                                                 "cards": ["AS", "KS", "QS", "JS", "9S"]})
    v = engine.view(s, YOUNGER)
    assert [e["label"] for e in v["legal"]] == ["Good"]
    assert choose(v) == {"type": "answer", "reply": "good"}


def test_younger_calls_its_best_after_the_lead_then_its_lesser_ones() -> None:
    s = younger_to_answer()
    s = until(s, Step.LEAD, computer=YOUNGER)  # person: kings, which she beats
    s = play(s, ELDER, "AC")
    calls = []
    while s.step in DECLARING:
        action = decide(s, YOUNGER)
        calls.append((action.get("category"), " ".join(action.get("cards", ()))))
        s = engine.apply(s, YOUNGER, action)
    assert calls == [
        ("point", "AH KH QH JH"),
        ("sequence", "AH KH QH JH"),
        ("sequence", "10C 9C 8C"),
        (None, ""),  # "Done"
        ("set", "AS AH AD"),
        (None, ""),  # "Done"
    ]
    assert s.step is Step.FOLLOW


# --------------------------------------------------------------------------- showing


def test_it_asks_to_see_what_scored_against_it_on_its_turn_and_out_of_it() -> None:
    # As elder: younger's point, quart, tierce and aces score after the lead; it asks to
    # see each, while she is to play.
    s = until(younger_to_answer(), Step.LEAD, computer=YOUNGER)
    s = play(s, ELDER, "AC")
    s = until(s, Step.FOLLOW, computer=YOUNGER)
    v = engine.view(s, ELDER)
    assert v["to_move"] == YOUNGER
    ids = [c["id"] for c in v["combos"] if c["seat"] == YOUNGER]
    assert len(ids) == 4
    asked = []
    while True:
        try:
            action = decide(s, ELDER)
        except ValueError:
            break  # nothing left to see, and it is not its turn
        asked.append(action["combo"])
        s = engine.apply(s, ELDER, action)
    assert asked == ids
    assert all(c["shown"] for c in engine.view(s, YOUNGER)["combos"])

    # As younger: elder's point and sequence scored; on its turn it asks to see them first.
    s = elder_to_declare()
    s = until(s, Step.LEAD, computer=ELDER)
    s = play(s, ELDER, "AS")
    s, action, seen = turn(s, YOUNGER)
    assert [a["combo"] for a in seen] == [0, 1, 2, 3] and action["type"] == "play"


# --------------------------------------------------------------------------- play


def test_on_lead_it_plays_its_highest_card() -> None:
    s = until(elder_to_declare(), Step.LEAD, computer=ELDER)
    # Three aces: the one of its longest suit (spades, five cards).
    assert decide(s, ELDER) == {"type": "play", "card": "AS"}
    s = play(move(s, ELDER), YOUNGER, "7S")
    # Aces of clubs (three cards) and diamonds (one): clubs.
    assert decide(s, ELDER) == {"type": "play", "card": "AC"}
    s = play(move(s, ELDER), YOUNGER, "8C")
    assert decide(s, ELDER) == {"type": "play", "card": "AD"}
    s = play(move(s, ELDER), YOUNGER, "8D")
    assert decide(s, ELDER) == {"type": "play", "card": "KS"}  # no ace left: a king


# Younger (the computer) holds AS JS 10S 8S, KH 8H and six clubs; no diamond.
ELDER_LEADS = "9S 7S AH QH JH 10H 7H AD KD QD JD 10D"
YOUNGER_FOLLOWS = "AS JS 10S 8S KH 9H 8H AC QC 9C 8C 7C"
STOCK_FOLLOWS = "9D KC KS QS JC 10C 8D 7D"


def test_following_it_plays_the_cheapest_card_that_wins_or_its_lowest() -> None:
    s = deal(ELDER_LEADS, YOUNGER_FOLLOWS, STOCK_FOLLOWS)
    s = discard(discard(s, ELDER, "7H"), YOUNGER, "9H")
    s = until(s, Step.LEAD, computer=YOUNGER)
    s = play(s, ELDER, "AH")
    s = until(s, Step.FOLLOW, computer=YOUNGER)  # its "Nothing" where elder said nothing
    s, action, _ = turn(s, YOUNGER)
    assert action == {"type": "play", "card": "8H"}  # nothing wins: its lowest heart
    s = play(engine.apply(s, YOUNGER, action), ELDER, "AD")
    s, action, _ = turn(s, YOUNGER)
    assert action == {"type": "play", "card": "7C"}  # no diamond: its lowest card
    s = play(engine.apply(s, YOUNGER, action), ELDER, "9S")
    s, action, _ = turn(s, YOUNGER)
    assert action == {"type": "play", "card": "10S"}  # the ten wins; the jack and ace too


def test_it_never_counts_towards_thirty() -> None:
    # The same hand and trick, whatever the scores and bonuses say: it plays the same card.
    s = until(elder_to_declare(), Step.LEAD, computer=ELDER)
    v = engine.view(s, ELDER)
    for partie in ([0, 0], [29, 0], [29, 25], [140, 0]):
        w = dict(v, scores={"deal": partie, "partie": partie, "sheet": [partie]}, bonuses=[])
        assert choose(w) == {"type": "play", "card": "AS"}


# --------------------------------------------------------------------------- the contract


def test_out_of_turn_it_does_nothing_unless_asked_to_deal_the_next_hand() -> None:
    s = deal(ELDER_HAND, YOUNGER_WEAK, STOCK_WEAK)
    with pytest.raises(ValueError, match="nothing for seat 1"):
        decide(s, YOUNGER)
    s = until(elder_to_declare(), Step.LEAD, computer=ELDER)
    while s.step is not Step.DEAL_OVER:
        seat = s.to_move
        assert seat is not None
        s, action, _ = turn(s, seat)
        s = engine.apply(s, seat, action)
    for seat in (ELDER, YOUNGER):
        while any(e["type"] == "see" for e in engine.view(s, seat)["legal"]):
            s = move(s, seat)
        with pytest.raises(ValueError):
            decide(s, seat)
        assert choose(engine.view(s, seat), press_next_deal=True) == {"type": "next_deal"}


def test_it_does_not_change_the_view_it_is_given() -> None:
    s = until(elder_to_declare(), Step.LEAD, computer=ELDER)
    v = engine.view(s, ELDER)
    before = copy.deepcopy(v)
    choose(v)
    assert v == before


# --------------------------------------------------------------------------- a thousand parties


def test_no_illegal_move_in_a_thousand_parties_against_a_random_player() -> None:
    roles: Counter[str] = Counter()

    def computer(view: dict[str, Any]) -> dict[str, Any]:
        if view["to_move"] == view["seat"]:
            roles[view["role"] or "cut"] += 1
        return choose(view, press_next_deal=True)

    rng = random.Random(2024)
    errors: list[str] = []
    for i in range(PARTIES):
        other = random_policy(random.Random(rng.getrandbits(64)))
        seats = (computer, other) if i % 2 == 0 else (other, computer)
        record = play_partie(seats, rng.getrandbits(64))
        errors += record.errors
        assert record.result is not None or record.errors
    assert errors == []
    assert roles["elder"] > 0 and roles["younger"] > 0 and roles["cut"] > 0


# --------------------------------------------------------------------------- its own view only


def test_two_deals_differing_only_in_what_it_cannot_see_get_the_same_decision() -> None:
    # Same elder hand; the younger hand and the stock differ entirely.
    a = deal(ELDER_HAND, YOUNGER_WEAK, STOCK_WEAK)
    b = deal(ELDER_HAND, "AH KH JH 10C 7C 10D 9D 8D 10S 8S 7S 7H",
             "QH QC JC 9C 8C KD QD JD")
    assert a.hands[YOUNGER] != b.hands[YOUNGER] and a.stock != b.stock
    assert engine.view(a, ELDER) == engine.view(b, ELDER)  # so the same decision
    action = decide(a, ELDER)
    assert action["type"] == "discard"
    assert move(a, ELDER).discards[ELDER] == engine.apply(b, ELDER, action).discards[ELDER]


def hidden_swapped(s: State, seat: int, rng: random.Random) -> State:
    """`s` with the cards `seat` cannot see shuffled among the opponent's hand, the
    opponent's discards and the stock (each keeping its size)."""
    other = 1 - seat
    known = set(s.hands[seat]) | set(s.discards[seat]) | set(s.seen_stock) | set(s.exposed)
    for shown in s.shown:
        known |= set(shown.cards)
    for r in s.combos:  # keep every called combination true to its cards
        known |= set(r.combo.cards)
    for d in s.declarations:
        if d.elder_call is not None:
            known |= set(d.elder_call.cards)
    places = (list(s.hands[other]), list(s.discards[other]), list(s.stock))
    pool = [c for place in places for c in place if c not in known]
    rng.shuffle(pool)
    it = iter(pool)
    new = [[c if c in known else next(it) for c in place] for place in places]
    hands = list(s.hands)
    discards = list(s.discards)
    hands[other] = sort_hand(new[0])
    discards[other] = sort_hand(new[1])
    return dataclasses.replace(s, hands=(hands[0], hands[1]),
                               discards=(discards[0], discards[1]), stock=tuple(new[2]))


@pytest.mark.parametrize("seed", range(12))
def test_its_decisions_do_not_change_when_the_hidden_cards_do(seed: int) -> None:
    rng = random.Random(seed)
    computer = seed % 2
    other = random_policy(random.Random(seed))
    s = engine.new_partie(seed)
    checked = changed = 0
    while s.step is not Step.PARTIE_OVER:
        seat = s.to_move
        if seat is None:
            s = engine.apply(s, 0, engine.NextDeal())
            continue
        v = engine.view(s, seat)
        if seat == computer:
            t = hidden_swapped(s, seat, rng)
            changed += t.hands[1 - seat] != s.hands[1 - seat]
            assert engine.view(t, seat) == v  # so the same decision: it sees only v
            action = choose(v)
            engine.apply(t, seat, action)  # and that decision is as legal there
            checked += 1
            s = engine.apply(s, seat, action)
        else:
            s = engine.apply(s, seat, other(v))
    assert checked > 50 and changed > checked // 2
