"""RULES.md §4, declaring: point, then sequence, then set; elder calls, younger answers good,
not good or equal; the second stage on equal; equal cancels (Law 63); sinking; lesser calls;
younger's calls after elder's first lead, beating his (Law 46)."""

from __future__ import annotations

import json

import pytest

import engine
from engine import Category, Combo, IllegalActionError, State, Step
from tests.engine.kit import ELDER, YOUNGER, call, cards, deal, labels, play, say
from tests.engine.moves import (
    elder_calls_nothing,
    equal_points,
    exchange,
    good,
    lead,
    legal_entries,
    outcome,
    said,
    scores,
)


def younger_holds_six_but_five_worse() -> State:
    """Elder: point of five making 51. Younger: six spades whose top five make only 49."""
    s = deal("AH KH QH JH 10H AC KC QC 7C AD KD 7D",
             "KS QS JS 10S 9S 8S 9H 8H 7H JC 10C 9C",
             "7S 8C AS QD JD 10D 9D 8D")
    return exchange(s, "7D", "7H")


def younger_beats_everything() -> State:
    """Elder: point of five making 50, quart to the ace, three kings and three queens.
    Younger: six spades (top five 51), sixième to the ace and a tierce, three aces, three tens."""
    s = deal("AH KH QH JH 9H KC QC 7C KD QD 7D 8C",
             "AS KS QS JS 10S 9S 10H 8H AC JC 10C 9C",
             "8S AD 7S 7H JD 10D 9D 8D")
    return exchange(s, "7D", "8H")


def elder_could_sink() -> State:
    """Elder: six hearts to the ace (a sixième) and four aces. Younger: six diamonds to the
    king (a sixième), trios of kings and queens."""
    s = deal("AH KH QH JH 10H 9H AS AC AD 7S 7C 8C",
             "KD QD JD 10D 9D 8D KS QS JS KC QC JC",
             "7D 9S 10S 8S 8H 7H 10C 9C")
    return exchange(s, "8C", "JC")


def test_point_is_compared_by_length_then_pips() -> None:
    s = say(younger_beats_everything(), ELDER, "Point of five")
    assert labels(s, YOUNGER) == ["Good", "Not good", "Equal"]  # a six, or five of them
    s = say(s, YOUNGER, "Equal")
    assert labels(s, YOUNGER) == ["Good", "Not good"]  # 51 beats 50; nothing makes 50
    s = say(s, YOUNGER, "Not good")
    assert said(s, "point") == ["Elder: Point of five", "Younger: Equal",
                                "Elder: Making 50", "Younger: Not good"]
    assert scores(s) == (0, 0)


def test_sequence_is_compared_by_length_then_top_card() -> None:
    s = say(say(equal_points(), ELDER, "Point of five"), YOUNGER, "Good")
    s = say(s, ELDER, "Quart to the ace")
    assert labels(s, YOUNGER) == ["Good", "Equal"]  # her quart to the jack
    s = say(s, YOUNGER, "Equal")
    # "To the ace": her jack cannot match it, so "Good" is all she may say.
    assert labels(s, YOUNGER) == ["Good"]
    s = say(s, YOUNGER, "Good")
    assert said(s, "sequence") == ["Elder: A quart", "Younger: Equal",
                                   "Elder: To the ace", "Younger: Good"]
    assert scores(s) == (5 + 4, 0)


def test_sets_tens_or_higher_any_quatorze_beats_any_trio_never_equal() -> None:
    s = deal("AS AH AC 9S 9H 9C 8S 8H 8C KD QD 7D",
             "10S 10H 10C 10D JS JH KS KH KC QS QH JC",
             "7S 7H QC 7C AD JD 9D 8D")
    s = exchange(s, "7D", "JC")
    s = say(say(s, ELDER, "Point of four"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Tierce to the nine"), YOUNGER, "Not good")
    assert labels(s, ELDER) == ["Three aces", "Nothing"]  # no nines, no eights
    s = say(s, ELDER, "Three aces")
    assert labels(s, YOUNGER) == ["Good", "Not good"]  # four tens; no "Equal" for sets
    s = say(s, YOUNGER, "Not good")
    s = lead(s, "AS")
    s = say(say(s, YOUNGER, "Point of five"), YOUNGER, "Quart to the king")
    s = say(s, YOUNGER, "Done")
    assert labels(s, YOUNGER) == ["Four tens"]  # three kings would not beat three aces
    s = say(s, YOUNGER, "Four tens")
    assert labels(s, YOUNGER) == ["Three kings", "Done"]
    s = say(s, YOUNGER, "Three kings")
    assert scores(s) == (1, 5 + 4 + 14 + 3)


def test_combinations_score_by_their_size() -> None:
    run = cards("AH KH QH JH 10H 9H 8H 7H")
    seq = {n: Combo(Category.SEQUENCE, tuple(run[:n])) for n in range(3, 9)}
    assert [(c.label, c.score) for c in seq.values()] == [
        ("Tierce to the ace", 3), ("Quart to the ace", 4), ("Quint to the ace", 15),
        ("Sixième to the ace", 16), ("Septième to the ace", 17), ("Huitième to the ace", 18)]
    assert Combo(Category.POINT, tuple(run[:6])).score == 6
    assert Combo(Category.SET, tuple(cards("AS AH AC AD"))).score == 14
    assert Combo(Category.SET, tuple(cards("10S 10H 10C"))).score == 3


def test_a_call_is_only_of_cards_held_and_only_a_natural_call() -> None:
    s = equal_points()
    for not_offered in ("AS JS 10S 9S 8S", "AH QH", "KH QH JH 7H"):  # hers; not top cards
        with pytest.raises(IllegalActionError):
            call(s, ELDER, "point", not_offered)
    hearts = [e["cards"] for e in legal_entries(s, ELDER, "Point of two")
              if e["cards"][0].endswith("H")]
    assert hearts == [["AH", "KH"]]


def test_only_the_first_stage_of_a_call_is_public() -> None:
    s = say(equal_points(), ELDER, "Point of five")
    text = json.dumps(engine.view(s, YOUNGER))
    assert "Point of five" in text and "Making" not in text and "48" not in text
    s = say(say(s, YOUNGER, "Equal"), YOUNGER, "Equal: point of five in spades")
    s = say(s, ELDER, "Quart to the ace")
    text = json.dumps(engine.view(s, YOUNGER))
    assert "A quart" in text and "to the ace" not in text.lower()


def test_a_sequence_answered_good_at_the_first_stage_keeps_its_top_card_private() -> None:
    s = say(say(equal_points(), ELDER, "Point of five"), YOUNGER, "Good")
    s = say(say(s, ELDER, "Quart to the ace"), YOUNGER, "Good")
    assert said(s, "sequence") == ["Elder: A quart", "Younger: Good"]
    assert scores(s)[ELDER] == 5 + 4
    assert "to the ace" not in json.dumps(engine.view(s, YOUNGER)).lower()
    # What she was told is all her view says; his own view has the full words.
    assert "Scores 4 for the quart" in [x["text"] for x in engine.view(s, YOUNGER)["log"]]
    assert [c["label"] for c in engine.view(s, YOUNGER)["combos"]] == ["Point of five", "Quart"]
    assert [c["label"] for c in engine.view(s, ELDER)["combos"]] == \
        ["Point of five", "Quart to the ace"]


def test_not_good_and_equal_are_offered_only_when_younger_could_call_so() -> None:
    s = say(younger_holds_six_but_five_worse(), ELDER, "Point of five")
    assert labels(s, YOUNGER) == ["Good", "Not good", "Equal"]
    s = say(elder_calls_nothing_but_point(), ELDER, "Point of six")
    # Her longest suit is four: "Good" is all she may say.
    assert labels(s, YOUNGER) == ["Good"]
    s = say(s, YOUNGER, "Good")
    assert said(s, "point") == ["Elder: Point of six", "Younger: Good"]


def elder_calls_nothing_but_point() -> State:
    s = deal("AS KS QS JS 10S 9S QH JH 10H 9H 8H 7H",
             "AH KH AC KC QC 7C AD KD 8S 7S QD JD",
             "7D 8D JC 10C 9C 10D 9D 8C")
    return exchange(s, "7H", "7C")


def test_equal_at_the_last_stage_nobody_scores_the_point() -> None:
    s = say(equal_points(), ELDER, "Point of five")
    assert labels(s, YOUNGER) == ["Good", "Equal"]
    s = say(s, YOUNGER, "Equal")
    # At the last stage her "Equal" names the call it ties with.
    assert labels(s, YOUNGER) == ["Good", "Equal: point of five in spades"]
    s = say(s, YOUNGER, "Equal: point of five in spades")
    assert said(s, "point") == ["Elder: Point of five", "Younger: Equal",
                                "Elder: Making 48", "Younger: Equal"]
    assert outcome(s, "point") == "equal"
    assert scores(s) == (0, 0)
    assert [(c["seat"], c["label"], c["status"]) for c in engine.view(s, YOUNGER)["combos"]] \
        == [(ELDER, "Point of five, making 48", "tied"), (YOUNGER, "Point of five", "tied")]


def two_equal_points() -> State:
    """Elder: a point of five making 50 in diamonds. Younger: points of five making 50 in
    hearts and in clubs (and quarts to the ace in both)."""
    s = deal("AD KD QD JD 9D AS KS QS 10H 8H 10C 8C",
             "AH KH QH JH 9H AC KC QC JC 9C 7S 8S", "9S 7D 8D JS 10D 10S 7H 7C")
    return say(say(exchange(s, "8H", "7S"), ELDER, "Point of five"), YOUNGER, "Equal")


def test_equal_at_the_last_stage_names_the_call_younger_chooses() -> None:
    """She holds two equal points: one "Equal" for each, and the tie recorded (and shown,
    if asked) is the one she named, not the first in suit order."""
    s = two_equal_points()
    entries = [e for e in engine.view(s, YOUNGER)["legal"] if e["type"] == "answer"]
    point = {"code": "point", "n": 5}
    assert entries == [
        {"type": "answer", "reply": "good", "label": "Good", "say": {"code": "good"}},
        {"type": "answer", "reply": "equal", "cards": ["AH", "KH", "QH", "JH", "9H"],
         "label": "Equal: point of five in hearts",
         "say": {"code": "equal_in", "what": point, "suit": "H"}},
        {"type": "answer", "reply": "equal", "cards": ["AC", "KC", "QC", "JC", "9C"],
         "label": "Equal: point of five in clubs",
         "say": {"code": "equal_in", "what": point, "suit": "C"}}]
    s = engine.apply(s, YOUNGER, {"type": "answer", "reply": "equal",
                                  "cards": ["9C", "JC", "QC", "KC", "AC"]})  # any order
    assert outcome(s, "point") == "equal" and scores(s) == (0, 0)
    tie = [r for r in s.combos if r.seat == YOUNGER]
    assert [str(c) for c in tie[0].combo.cards] == ["AC", "KC", "QC", "JC", "9C"]
    # Elder hears only "Equal", whichever she named.
    assert said(s, "point") == ["Elder: Point of five", "Younger: Equal",
                                "Elder: Making 50", "Younger: Equal"]


def test_an_equal_answer_must_name_an_equal_call_she_holds() -> None:
    s = two_equal_points()
    for cards_named in (["AD", "KD", "QD", "JD", "9D"],  # elder's
                        ["AH", "KH", "QH", "JH"],  # not a point of five
                        ["KC", "QC", "JC", "9C", "8S"]):
        with pytest.raises(IllegalActionError):
            engine.apply(s, YOUNGER, {"type": "answer", "reply": "equal", "cards": cards_named})
    with pytest.raises(IllegalActionError):  # the first stage's "Equal" names nothing
        engine.apply(say(equal_points(), ELDER, "Point of five"), YOUNGER,
                     {"type": "answer", "reply": "equal", "cards": ["AS", "JS", "10S", "9S",
                                                                    "8S"]})


def test_a_bare_equal_at_the_last_stage_still_replays_as_it_did() -> None:
    """A partie recorded before the answer named its call (a stored room) holds a bare
    "equal" there: it is taken as it was then, her first equal call in the hand's order.
    The table never offers it."""
    s = engine.apply(two_equal_points(), YOUNGER, {"type": "answer", "reply": "equal"})
    tie = [r for r in s.combos if r.seat == YOUNGER]
    assert [str(c) for c in tie[0].combo.cards] == ["AH", "KH", "QH", "JH", "9H"]
    assert {"type": "answer", "reply": "equal"} not in [
        {k: v for k, v in e.items() if k not in ("label", "say")}
        for e in engine.view(two_equal_points(), YOUNGER)["legal"]]


def test_the_computer_names_one_of_its_equal_calls() -> None:
    from engine.computer import LEVELS

    view = engine.view(two_equal_points(), YOUNGER)
    offered = [{k: v for k, v in e.items() if k not in ("label", "say")} for e in view["legal"]
               if e.get("reply") == "equal"]
    for level in LEVELS.values():
        chosen = level.choose(view)
        assert chosen in offered
        assert level.choose(view) == chosen  # the same view, the same choice


def test_equal_best_sequences_cancel_every_sequence_law_63() -> None:
    # Both hold a quart to the king and a tierce to the nine.
    s = deal("AS 9S KH QH JH 10H 8H AC 9C 8C 7C AD",
             "KS QS JS 10S 7S KC QC KD JD 9D 8D 7D",
             "8S JC AH 9H 7H 10C QD 10D")
    s = exchange(s, "9S", "QC")
    s = say(say(s, ELDER, "Point of five"), YOUNGER, "Good")
    s = say(s, ELDER, "Quart to the king")
    s = say(say(s, YOUNGER, "Equal"), YOUNGER, "Equal: quart to the king in spades")
    assert said(s, "sequence") == ["Elder: A quart", "Younger: Equal",
                                   "Elder: To the king", "Younger: Equal"]
    # No lesser sequence for elder: the next thing is his set.
    assert labels(s, ELDER)[0] == "Three aces" and "Tierce to the nine" not in labels(s, ELDER)
    s = good(s, "Three aces")  # her three kings lose
    s = say(s, ELDER, "Done")
    s = lead(s, "AC")
    assert s.step is Step.FOLLOW  # and none for younger after the lead
    assert outcome(s, "sequence") == "equal"
    assert scores(s) == (5 + 3 + 1, 0)


def test_held_to_the_length_after_equal_law_46() -> None:
    # She said "equal" to a point of five (sinking her six): her six no longer counts.
    s = say(younger_holds_six_but_five_worse(), ELDER, "Point of five")
    s = say(s, YOUNGER, "Equal")
    assert labels(s, YOUNGER) == ["Good"]
    s = say(s, YOUNGER, "Good")
    assert said(s, "point") == ["Elder: Point of five", "Younger: Equal",
                                "Elder: Making 51", "Younger: Good"]
    assert scores(s) == (5, 0)
    # And when her five does beat his, she calls a five, not her six.
    s = say(younger_beats_everything(), ELDER, "Point of five")
    s = say(say(s, YOUNGER, "Equal"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Quart to the ace"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Three kings"), YOUNGER, "Not good")
    s = lead(s, "8S")
    assert labels(s, YOUNGER) == ["Point of five"]
    assert [e["cards"] for e in legal_entries(s, YOUNGER, "Point of five")] == \
        [["AS", "KS", "QS", "JS", "10S"]]


def test_held_to_the_length_of_a_sequence_after_equal_law_46() -> None:
    # Younger holds a sixième to the king; she answers "equal" to elder's quart.
    s = deal("AH KH QH JH 8H 7H AC 9C 8C AD 9D 7S",
             "KS QS JS 10S 9S 7C 10C JC KC QC KD QD",
             "AS 8S 10H 9H 10D JD 8D 7D")
    s = say(say(exchange(s, "7S", "7C"), ELDER, "Point of six"), YOUNGER, "Good")
    s = say(s, ELDER, "Quart to the ace")
    assert labels(s, YOUNGER) == ["Good", "Not good", "Equal"]
    s = say(s, YOUNGER, "Equal")
    # Held to a quart, hers to the king cannot beat his to the ace.
    assert labels(s, YOUNGER) == ["Good"]
    s = say(s, YOUNGER, "Good")
    assert said(s, "sequence") == ["Elder: A quart", "Younger: Equal",
                                   "Elder: To the ace", "Younger: Good"]
    assert scores(s) == (6 + 4, 0)


def test_good_lets_elder_score_his_call_even_when_younger_held_better() -> None:
    s = say(elder_could_sink(), ELDER, "Point of five")
    assert "Not good" in labels(s, YOUNGER)  # six diamonds
    s = say(s, YOUNGER, "Good")
    assert scores(s) == (5, 0)  # at once, before the lead
    assert outcome(s, "point") == "elder"


def test_sinking_elder_may_call_less_than_he_holds() -> None:
    s = elder_could_sink()
    assert {"Point of six", "Point of five", "Point of four"} <= set(labels(s, ELDER))
    assert [e["cards"] for e in legal_entries(s, ELDER, "Point of five")] == \
        [["AH", "KH", "QH", "JH", "10H"]]  # a shorter point is the suit's highest cards
    s = say(say(s, ELDER, "Point of five"), YOUNGER, "Good")
    # Any run inside his sixième.
    assert {"Sixième to the ace", "Quint to the ace", "Quint to the king", "Quart to the ace",
            "Quart to the queen", "Tierce to the jack"} <= set(labels(s, ELDER))
    s = say(say(s, ELDER, "Quart to the ace"), YOUNGER, "Good")
    s = say(s, ELDER, "Done")
    assert "Four aces" in labels(s, ELDER) and "Three aces" in labels(s, ELDER)
    s = good(s, "Three aces")
    s = say(s, ELDER, "Done")
    assert s.step is Step.LEAD
    assert scores(s) == (5 + 4 + 3, 0)  # scores what he called, not what he held


def test_a_category_nobody_calls_scores_nothing() -> None:
    s = elder_calls_nothing(elder_calls_nothing_but_point())
    s = lead(s, "AS")
    for _ in range(3):
        s = say(s, YOUNGER, "Nothing")
    assert s.step is Step.FOLLOW
    assert scores(s) == (1, 0)
    assert [outcome(s, c) for c in ("point", "sequence", "set")] == ["none"] * 3


def test_lesser_calls_are_not_above_the_first_call() -> None:
    # Elder: a quint in hearts, a quart to the king in spades, a tierce to the ten in clubs.
    s = deal("AH KH QH JH 10H KS QS JS 10S 9C 8C 7C",
             "AS 9S 7S 9H 7H AC KC JC AD KD JD 9D",
             "10C 7D 8S 8H QC QD 10D 8D")
    s = exchange(s, "7C", "9D")
    s = good(s, "Point of five")
    s = call(s, ELDER, "sequence", "KS QS JS 10S")  # sinks the quint
    s = say(s, YOUNGER, "Good")
    assert s.step is Step.ELDER_LESSER
    lesser = labels(s, ELDER)
    assert "Quint to the ace" not in lesser and "Quart to the ace" not in lesser
    assert {"Quart to the king", "Tierce to the ace", "Tierce to the ten", "Done"} <= set(lesser)
    s = call(s, ELDER, "sequence", "KH QH JH 10H")
    assert labels(s, ELDER) == ["Tierce to the ten", "Done"]
    s = say(s, ELDER, "Tierce to the ten")
    assert scores(s) == (5 + 4 + 4 + 3, 0)
    # Nothing is left to call, but the step stays until he says "Done": ending it by
    # itself would tell younger that he holds no more.
    assert s.step is Step.ELDER_LESSER and labels(s, ELDER) == ["Done"]
    s = say(s, ELDER, "Done")
    assert s.step is Step.ELDER_CALL  # on to sets


def test_younger_calls_after_elders_first_lead_and_must_beat_his_call() -> None:
    s = say(younger_beats_everything(), ELDER, "Point of five")
    s = say(say(s, YOUNGER, "Equal"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Quart to the ace"), YOUNGER, "Not good")
    s = say(say(s, ELDER, "Three kings"), YOUNGER, "Not good")
    # Before the lead she has nothing to say, and nothing is scored for her.
    assert s.step is Step.LEAD and labels(s, YOUNGER) == [] and scores(s) == (0, 0)
    s = lead(s, "8S")
    assert scores(s) == (1, 0) and s.step is Step.YOUNGER_CALL
    with pytest.raises(IllegalActionError):
        play(s, YOUNGER, "9S")  # her calls come before she plays to the trick
    s = say(s, YOUNGER, "Point of five")
    # A sequence longer than his quart; she may not sink it after "not good".
    assert labels(s, YOUNGER) == ["Sixième to the ace", "Quint to the ace", "Quint to the king"]
    s = say(s, YOUNGER, "Sixième to the ace")
    assert labels(s, YOUNGER) == ["Tierce to the jack", "Done"]  # she adds her lesser ones
    s = say(s, YOUNGER, "Tierce to the jack")
    assert labels(s, YOUNGER) == ["Done"]
    s = say(s, YOUNGER, "Done")
    assert labels(s, YOUNGER) == ["Three aces"]  # three tens would not beat three kings
    s = say(s, YOUNGER, "Three aces")
    assert labels(s, YOUNGER) == ["Three tens", "Done"]
    s = say(s, YOUNGER, "Done")
    assert s.step is Step.FOLLOW and s.to_move == YOUNGER
    assert scores(s) == (1, 5 + 16 + 3 + 3)


def test_when_elder_calls_nothing_younger_may_call_anything_or_nothing() -> None:
    s = lead(elder_calls_nothing(elder_calls_nothing_but_point()), "AS")
    assert labels(s, YOUNGER)[-1] == "Nothing"
    assert "Point of five" in labels(s, YOUNGER) and "Point of one" in labels(s, YOUNGER)
    s = say(s, YOUNGER, "Point of five")
    assert scores(s) == (1, 5)


def test_elders_scores_land_before_the_first_card() -> None:
    s = say(say(elder_could_sink(), ELDER, "Point of five"), YOUNGER, "Good")
    s = say(say(say(s, ELDER, "Quart to the ace"), YOUNGER, "Good"), ELDER, "Done")
    s = say(good(s, "Three aces"), ELDER, "Done")
    log = engine.view(s, YOUNGER)["log"]
    assert [x["points"] for x in log if x["seat"] == ELDER and x["points"]] == [5, 4, 3]
    assert s.step is Step.LEAD and scores(s) == (12, 0)
