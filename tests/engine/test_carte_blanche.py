"""RULES.md §2, carte blanche: a dealt hand with no king, queen or jack scores 10 at once,
reckons first (towards the holder's pique/repique, blocking the opponent's), and is proved
once the opponent has discarded (Law 20)."""

from __future__ import annotations

import pytest

import engine
from engine import IllegalActionError, OutOfTurnError, State, Step
from tests.engine.kit import ELDER, YOUNGER, deal, discard, hand, labels, say
from tests.engine.moves import bonuses, exchange, good, lead, names, scores, seen

# Younger is dealt no court card; elder holds all twelve.
YOUNGER_BLANK = ("KH QH JH KS QS JS KC QC JC KD QD JD",
                 "AS 10S 9S 8S 7S 10C 9C 8C 7C 9D 8D 7D",
                 "AH 10H 9H 8H 7H AC AD 10D")
# Elder is dealt no court card; younger holds all twelve.
ELDER_BLANK = ("AS 10S 9S 8S 7S AH 10H 9H 8H 7H AC 10C",
               "KS QS JS KH QH JH KC QC JC KD QD JD",
               "9C 8C 7C AD 10D 9D 8D 7D")


def test_a_hand_with_a_court_card_is_no_carte_blanche() -> None:
    s = deal("AS 10S 9S 8S 7S AH 10H 9H 8H 7H AC JC", "KS QS JS KH QH JH KC QC 10C KD QD JD")
    assert s.step is Step.ELDER_EXCHANGE
    assert not any("Carte blanche" in x for x in labels(s, ELDER) + labels(s, YOUNGER))


def test_the_holder_is_offered_it_and_nobody_else() -> None:
    # Younger's: out of turn, while elder is to exchange; elder is offered only his discard.
    s = deal(*YOUNGER_BLANK)
    assert engine.view(s, YOUNGER)["step"] == "elder_exchange" and s.to_move == ELDER
    assert labels(s, YOUNGER) == ["Carte blanche"]
    assert labels(s, ELDER) == ["Discard 1 to 5 cards"]
    with pytest.raises(IllegalActionError):
        engine.apply(s, ELDER, {"type": "carte_blanche", "announce": True, "take": 5})
    with pytest.raises(OutOfTurnError):
        discard(s, YOUNGER, "7D")
    # Elder's: among the choices of his exchange, beside the discard; not for younger.
    s = deal(*ELDER_BLANK)
    assert labels(s, ELDER) == [f"Carte blanche, taking {n}"
                                for n in ("five", "four", "three", "two", "one")] \
        + ["Discard 1 to 5 cards"]
    assert labels(s, YOUNGER) == []
    with pytest.raises(IllegalActionError):
        engine.apply(s, YOUNGER, {"type": "carte_blanche", "announce": True})


def test_younger_announces_at_the_start_and_proves_it_after_elder_has_exchanged() -> None:
    s = deal(*YOUNGER_BLANK)
    s = say(s, YOUNGER, "Carte blanche")
    assert scores(s) == (0, 10)  # at once
    assert bonuses(s) == [(YOUNGER, "carte_blanche", 10)]
    # Not yet proved: elder, about to exchange, sees none of her cards.
    assert s.step is Step.ELDER_EXCHANGE
    assert engine.view(s, ELDER)["shown"] == []
    assert not seen(engine.view(s, ELDER)) & names(YOUNGER_BLANK[1])
    s = discard(s, ELDER, "KD QD JD")
    # Proved before she discards: all twelve laid face up for elder.
    assert s.step is Step.YOUNGER_EXCHANGE
    shown = engine.view(s, ELDER)["shown"]
    assert [(x["seat"], x["what"]) for x in shown] == [(YOUNGER, "Carte blanche")]
    assert set(shown[0]["cards"]) == names(YOUNGER_BLANK[1])
    s = discard(s, YOUNGER, "7D")
    assert set(engine.view(s, ELDER)["shown"][0]["cards"]) == names(YOUNGER_BLANK[1])


def test_which_shown_cards_the_holder_then_discards_stays_private() -> None:
    s = discard(say(deal(*YOUNGER_BLANK), YOUNGER, "Carte blanche"), ELDER, "KD QD JD")
    one = discard(s, YOUNGER, "7D 9D")
    other = discard(s, YOUNGER, "AS 10C")
    assert hand(one, YOUNGER) != hand(other, YOUNGER)
    assert engine.view(one, ELDER) == engine.view(other, ELDER)


def test_elder_announces_it_with_how_many_he_will_take_then_younger_discards_first() -> None:
    s = deal(*ELDER_BLANK)
    s = say(s, ELDER, "Carte blanche, taking three")
    assert scores(s) == (10, 0)
    assert "Carte blanche, taking three" in [x["text"] for x in engine.view(s, YOUNGER)["log"]]
    # Younger discards first, face down; she may leave what elder will not take (8 - 3).
    assert s.step is Step.YOUNGER_DISCARD and s.to_move == YOUNGER
    template = engine.view(s, YOUNGER)["legal"][0]
    assert (template["type"], template["min"], template["max"]) == ("discard", 1, 5)
    assert engine.view(s, YOUNGER)["shown"] == []
    s = discard(s, YOUNGER, "KS QS")
    # Then elder's hand is shown; younger has not drawn yet.
    assert s.step is Step.ELDER_EXCHANGE
    assert engine.view(s, YOUNGER)["opponent_hand_count"] == 12
    assert engine.view(s, ELDER)["opponent_hand_count"] == 10
    shown = engine.view(s, YOUNGER)["shown"]
    assert [(x["seat"], x["what"]) for x in shown] == [(ELDER, "Carte blanche")]
    assert set(shown[0]["cards"]) == names(ELDER_BLANK[0])
    assert not seen(engine.view(s, ELDER)) & {"KS", "QS"}
    # Then elder exchanges exactly the number he said; then younger draws.
    for wrong in ("9S 8S", "10S 9S 8S 7S"):
        with pytest.raises(IllegalActionError):
            discard(s, ELDER, wrong)
    s = discard(s, ELDER, "9S 8S 7S")
    assert {"9C", "8C", "7C"} <= set(hand(s, ELDER).split())
    assert {"AD", "10D"} <= set(hand(s, YOUNGER).split())
    assert engine.view(s, ELDER)["took"] == [3, 2]
    assert s.step is Step.ELDER_CALL


def test_the_holder_may_decline_to_announce_it() -> None:
    # Younger declines by letting elder exchange without announcing it: then it is too late.
    s = discard(deal(*YOUNGER_BLANK), ELDER, "KD QD JD")
    assert scores(s) == (0, 0) and bonuses(s) == []
    assert engine.view(s, ELDER)["shown"] == []
    assert "Carte blanche" not in labels(s, YOUNGER)
    with pytest.raises(IllegalActionError):
        engine.apply(s, YOUNGER, {"type": "carte_blanche", "announce": True})
    # Elder declines by discarding without announcing it.
    s = discard(deal(*ELDER_BLANK), ELDER, "9S 8S 7S")
    assert s.step is Step.YOUNGER_EXCHANGE and scores(s) == (0, 0) and bonuses(s) == []
    assert engine.view(s, YOUNGER)["shown"] == []


def _younger_blank_declared(announce: bool) -> State:
    """Elder declares 37 (point 6, sixième 16, two tierces, three trios), all good."""
    s = deal(*YOUNGER_BLANK)
    if announce:
        s = say(s, YOUNGER, "Carte blanche")
    s = exchange(s, "KD QD JD", "7D")
    s = good(s, "Point of six")
    s = good(s, "Sixième to the ace")
    s = say(s, ELDER, "Tierce to the king")
    s = say(s, ELDER, "Tierce to the king")
    s = say(s, ELDER, "Done")
    s = good(s, "Three kings")
    s = say(s, ELDER, "Three queens")
    s = say(s, ELDER, "Three jacks")
    s = say(s, ELDER, "Done")
    assert s.step is Step.LEAD
    return s


def test_younger_carte_blanche_reckons_first_and_blocks_elders_repique() -> None:
    declined = _younger_blank_declared(announce=False)
    assert scores(declined) == (37 + 60, 0)
    assert bonuses(declined) == [(ELDER, "repique", 60)]
    s = _younger_blank_declared(announce=True)
    assert scores(s) == (37, 10)
    assert bonuses(s) == [(YOUNGER, "carte_blanche", 10)]


def _elder_blank_declared(announce: bool) -> State:
    """Younger wins every category: point 5, quint and two tierces, four jacks and two trios."""
    s = deal(*ELDER_BLANK)
    if announce:
        s = say(s, ELDER, "Carte blanche, taking three")
        s = discard(discard(s, YOUNGER, "KS QS"), ELDER, "9S 8S 7S")
    else:
        s = exchange(s, "9S 8S 7S", "KS QS")
    assert hand(s, YOUNGER) == "JS KH QH JH KC QC JC AD KD QD JD 10D"
    s = say(s, ELDER, "Point of five")
    s = say(say(s, YOUNGER, "Equal"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Quart to the ten"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Three aces"), YOUNGER, "Not good")
    s = lead(s, "AS")
    for words in ("Point of five", "Quint to the ace", "Tierce to the king", "Tierce to the king",
                  "Done", "Four jacks", "Three kings", "Three queens", "Done"):
        s = say(s, YOUNGER, words)
    assert s.step is Step.FOLLOW
    return s


def test_elder_carte_blanche_reckons_first_and_blocks_youngers_repique() -> None:
    declined = _elder_blank_declared(announce=False)
    assert scores(declined) == (1, 46 + 60)
    assert bonuses(declined) == [(YOUNGER, "repique", 60)]
    s = _elder_blank_declared(announce=True)
    assert scores(s) == (10 + 1, 46)
    assert bonuses(s) == [(ELDER, "carte_blanche", 10)]


def test_carte_blanche_counts_towards_the_holders_own_repique() -> None:
    # Younger: carte blanche 10, point 5, quart 4, four aces and four tens 28 = 47.
    s = deal("KS QS JS KH QH JH KC QC JC KD QD JD",
             "AS AH AC AD 10S 10H 10C 10D 9H 8H 7H 9S",
             "7C 8S 9C 9D 8C 8D 7S 7D")
    s = say(s, YOUNGER, "Carte blanche")
    s = exchange(s, "JD", "9S")
    s = say(say(s, ELDER, "Point of four"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Tierce to the king"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Four kings"), YOUNGER, "Not good")
    s = lead(s, "KS")
    for words in ("Point of five", "Quart to the ten", "Done", "Four aces", "Four tens", "Done"):
        s = say(s, YOUNGER, words)
    assert bonuses(s) == [(YOUNGER, "carte_blanche", 10), (YOUNGER, "repique", 60)]
    assert scores(s) == (1, 47 + 60)



@pytest.mark.parametrize("level", ["basic", "good", "strong"])
def test_every_computer_level_announces_its_carte_blanche_as_elder_and_as_younger(
    level: str,
) -> None:
    """Ten points, and no secret kept by declining (the hand is shown either way once it
    is announced, and a hand with no court card plays no better unannounced). The good
    and strong levels' exchange search once weighed only discards, so as elder they threw
    the carte blanche away."""
    from engine.computer import LEVELS

    blank = "AS 10S 9S 8S 7S AH 10H 9H 8H 7H AD 10D"
    courts = "KS QS JS KH QH JH KD QD JD KC QC JC"
    for holder in (ELDER, YOUNGER):
        s = deal(blank, courts) if holder == ELDER else deal(courts, blank)
        view = engine.view(s, holder)
        action = LEVELS[level].choose(view)
        assert action["type"] == "carte_blanche" and action["announce"], (level, holder)
        engine.apply(s, holder, action)  # and it is legal
