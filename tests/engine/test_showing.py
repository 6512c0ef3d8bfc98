"""RULES.md §4, showing: from elder's first lead on, either seat may ask to see any
combination that scored, or that tied; its cards are then shown to both. Not before, and
nothing that was not called."""

from __future__ import annotations

import pytest

import engine
from engine import IllegalActionError, State
from tests.engine.kit import ELDER, YOUNGER, deal, labels, say
from tests.engine.moves import declared_with_a_tie, exchange, lead, seen


def combo_id(s: State, seat: int, label: str) -> int:
    return next(c["id"] for c in engine.view(s, YOUNGER)["combos"]
                if c["seat"] == seat and c["label"] == label)


def sees(labels_: list[str]) -> list[str]:
    return [x for x in labels_ if x.startswith("See")]


def test_nothing_can_be_seen_before_the_first_lead() -> None:
    s = declared_with_a_tie()
    assert sees(labels(s, YOUNGER)) == [] and sees(labels(s, ELDER)) == []
    for seat in (ELDER, YOUNGER):
        for combo in range(len(engine.view(s, seat)["combos"])):
            with pytest.raises(IllegalActionError):
                engine.apply(s, seat, {"type": "see", "combo": combo})


def test_from_the_first_lead_either_seat_may_see_what_scored_and_both_see_it() -> None:
    s = lead(declared_with_a_tie(), "KS")
    # In the words said: the tied point was told to its second stage, the quart "to the ace".
    assert sees(labels(s, YOUNGER)) == ["See the point of five, making 48",
                                        "See the quart to the ace", "See the four kings",
                                        "See the four queens"]
    quart = combo_id(s, ELDER, "Quart to the ace")
    s = engine.apply(s, YOUNGER, {"type": "see", "combo": quart})
    for seat in (ELDER, YOUNGER):
        v = engine.view(s, seat)
        assert v["combos"][quart]["cards"] == ["AH", "KH", "QH", "JH"]
        assert {"seat": ELDER, "what": "Quart to the ace",
                "say": {"code": "seq_to", "n": 4, "top": "A"},
                "cards": ["AH", "KH", "QH", "JH"]} in v["shown"]
    assert "See the quart to the ace" not in labels(s, YOUNGER)


def test_a_combination_that_tied_may_be_seen() -> None:
    s = lead(declared_with_a_tie(), "KS")
    assert sees(labels(s, ELDER)) == ["See the point of five, making 48"]  # hers tied
    point = combo_id(s, YOUNGER, "Point of five")
    assert engine.view(s, ELDER)["combos"][point]["cards"] is None
    s = engine.apply(s, ELDER, {"type": "see", "combo": point})  # not his turn: still fine
    assert engine.view(s, ELDER)["combos"][point]["cards"] == ["AS", "JS", "10S", "9S", "8S"]


def test_only_what_was_called_is_shown_never_what_lost_or_was_sunk() -> None:
    # Elder sinks: point of five from six hearts, three aces from four.
    s = deal("AH KH QH JH 10H 9H AS AC AD 7S 7C 8C",
             "KD QD JD 10D 9D 8D KS QS JS KC QC JC",
             "7D 9S 10S 8S 8H 7H 10C 9C")
    s = exchange(s, "8C", "JC")
    s = say(say(s, ELDER, "Point of five"), YOUNGER, "Not good")  # his point lost
    s = say(say(say(s, ELDER, "Quart to the ace"), YOUNGER, "Good"), ELDER, "Done")
    s = say(say(say(s, ELDER, "Three aces"), YOUNGER, "Good"), ELDER, "Done")
    s = lead(s, "7C")
    s = say(s, YOUNGER, "Point of six")
    # The quart was answered "Good" at the first stage: it is told as a quart only.
    assert sees(labels(s, YOUNGER)) == ["See the quart", "See the three aces"]
    for label in ("Quart", "Three aces"):
        s = engine.apply(s, YOUNGER, {"type": "see", "combo": combo_id(s, ELDER, label)})
    assert seen(engine.view(s, YOUNGER)) & {"10H", "9H", "AS"} == set()
    assert seen(engine.view(s, YOUNGER)) >= {"AH", "KH", "QH", "JH", "AC", "AD"}


def test_the_log_names_shown_cards_in_words() -> None:
    """The log is read, and read aloud: "Ace of Hearts", never "AH"."""
    s = lead(declared_with_a_tie(), "KS")
    quart = combo_id(s, ELDER, "Quart to the ace")
    s = engine.apply(s, YOUNGER, {"type": "see", "combo": quart})
    line = engine.view(s, YOUNGER)["log"][-1]
    assert line["kind"] == "show"
    assert line["text"] == ("Shows quart to the ace: "
                            "Ace of Hearts, King of Hearts, Queen of Hearts, Jack of Hearts")
