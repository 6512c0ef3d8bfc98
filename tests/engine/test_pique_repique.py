"""RULES.md §6, pique and repique in the Law 67 order: I carte blanche, II point,
III sequences, IV sets (both seats, category by category, whatever the real timing),
V play as it happens; VI the cards never counts. One or the other, never both."""

from __future__ import annotations

import engine
from engine import State, Step
from tests.engine.kit import ELDER, YOUNGER, deal, play_out_tricks, say
from tests.engine.moves import (
    bonuses,
    declared_with_a_tie,
    exchange,
    good,
    lead,
    scores,
    tricks,
    younger_calls_nothing,
)

# Elder: eight hearts and a tierce to the ace in spades: 8 + 18 + 3 = 29, one short.
HUITIEME = "AH KH QH JH 10H 9H 8H 7H AS KS QS 7C"


def elder_at_29(younger: str, stock: str, younger_throws: str) -> State:
    s = exchange(deal(HUITIEME, younger, stock), "7C", younger_throws)  # 7C for 7D
    s = good(s, "Point of eight")
    s = good(s, "Huitième to the ace")
    s = say(s, ELDER, "Tierce to the ace")
    s = say(s, ELDER, "Done")
    s = say(s, ELDER, "Nothing")  # no set
    assert s.step is Step.LEAD and scores(s) == (29, 0) and bonuses(s) == []  # no repique
    return s


def test_repique_reaching_thirty_at_step_iii_is_not_undone_by_younger_scoring_at_step_iv() \
        -> None:
    # Elder: point 8, huitième 18, quart 4 = 30 by step III; younger's three tens are IV.
    s = deal("AH KH QH JH 10H 9H 8H 7H AS KS QS 7C",
             "10S 9S 8S 7S 10C 9C 8C AC 10D 9D 8D KD",
             "JS KC QC JC AD 7D QD JD")
    s = exchange(s, "7C", "AC")
    s = good(good(s, "Point of eight"), "Huitième to the ace")
    s = say(say(say(s, ELDER, "Quart to the ace"), ELDER, "Done"), ELDER, "Nothing")  # no set
    assert s.step is Step.LEAD and scores(s) == (30, 0)
    s = say(say(lead(s, "7H"), YOUNGER, "Three tens"), YOUNGER, "Done")
    assert bonuses(s) == [(ELDER, "repique", 60)]
    assert scores(s) == (30 + 60 + 1, 3)


def test_younger_makes_repique_although_elder_led_and_scored_his_set_first() -> None:
    # Younger reaches 30 at step III (point 8, huitième 18, quart 4); elder's three aces
    # (step IV) and his lead (step V) came first in real time, but reckon after.
    s = deal("AS 9S 8S 7S AC KC QC JC AD KD QD JD",
             "AH KH QH JH 10H 9H 8H 7H KS QS JS 7D",
             "7C 10S 10C 9C 8C 10D 9D 8D")
    s = exchange(s, "JC", "7D")
    s = say(say(s, ELDER, "Point of four"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Quart to the ace"), YOUNGER, "Not good")
    s = say(good(s, "Three aces"), ELDER, "Done")
    assert scores(s) == (3, 0)
    s = lead(s, "AS")
    for words in ("Point of eight", "Huitième to the ace", "Quart to the king", "Done"):
        s = say(s, YOUNGER, words)
    assert bonuses(s) == [(YOUNGER, "repique", 60)]
    assert scores(s) == (3 + 1, 30 + 60)


def test_pique_thirty_in_declarations_and_play_made_by_a_losing_lead() -> None:
    s = elder_at_29("JS 10S 9S 8S 7S AC KC QC 9C 8C AD KD", "7D 8D JC 10C QD JD 10D 9D", "8C")
    s = lead(s, "7D")  # the thirtieth point
    # Pique is reckoned once younger has said what she calls (here: "Nothing" in sets).
    assert bonuses(s) == [] and s.step is Step.YOUNGER_CALL
    s = younger_calls_nothing(s)
    assert bonuses(s) == [(ELDER, "pique", 30)]
    s = tricks(s, "AD")  # and the seven loses the trick
    assert engine.view(s, ELDER)["tricks"][0]["winner"] == YOUNGER
    assert scores(s) == (29 + 1 + 30, 1)


def test_younger_declarations_reckon_before_the_lead_and_block_elders_pique() -> None:
    s = elder_at_29("JS 10S 9S 8S 7S JC AC KC QC JD AD KD", "7D 8D 10C 9C 8C QD 10D 9D", "QC")
    s = lead(s, "7D")  # thirty in real time, but her three jacks reckon at step IV
    s = say(s, YOUNGER, "Three jacks")
    assert bonuses(s) == []
    assert scores(s) == (30, 3)


def test_only_a_score_blocks_younger_who_sinks_her_only_call_lets_elder_pique() -> None:
    s = elder_at_29("JS 10S 9S 8S 7S JC AC KC QC JD AD KD", "7D 8D 10C 9C 8C QD 10D 9D", "QC")
    s = younger_calls_nothing(lead(s, "7D"))
    assert bonuses(s) == [(ELDER, "pique", 30)]


def test_an_equal_category_scores_nothing_and_blocks_nothing() -> None:
    # Equal points; then elder's quart 4, four kings 14, four queens 14 = 32: repique.
    s = declared_with_a_tie()
    assert bonuses(s) == [(ELDER, "repique", 60)]
    assert scores(s) == (32 + 60, 0)


def test_the_cards_and_capot_never_count_towards_pique() -> None:
    # Elder: 14 in declarations + 13 in play = 27; capot's 40 would make 67: no pique.
    s = deal("AS KS QS JS 10S 9S 8S 7S AH KH AC AD",
             "JH 10H 9H 8H 7H KC QC JC 10C 9C KD QD",
             "QH 8C 7C JD 10D 9D 8D 7D")
    s = exchange(s, "7S", "7H")
    s = good(s, "Point of seven")
    s = good(s, "Quart to the ace")
    s = say(s, ELDER, "Tierce to the ace")
    s = say(s, ELDER, "Done")
    s = say(s, ELDER, "Nothing")
    s = play_out_tricks(younger_calls_nothing(lead(s, "AS")))
    assert bonuses(s) == [(ELDER, "capot", 40)]
    assert scores(s) == (14 + 13 + 40, 0)


def test_a_seat_scores_one_or_the_other_never_both() -> None:
    # Seed 000's hand: repique with 34; every later lead keeps younger at nothing.
    s = deal("AH KH QH JH 10H AS AC AD 7S 9S 8C 7D",
             "KS JS 8S 9H 8H 7H KC JC 9C KD JD 8D",
             "9D QS 10S QC 10C 7C QD 10D")
    s = exchange(s, "7D", "7H")
    for words in ("Point of five", "Quint to the ace", "Four aces"):
        s = good(s, words)
        if s.step is Step.ELDER_LESSER:
            s = say(s, ELDER, "Done")
    s = tricks(younger_calls_nothing(lead(s, "AH")), "9H KH 8H")
    assert scores(s) == (94 + 2, 0)
    assert bonuses(s) == [(ELDER, "repique", 60)]
