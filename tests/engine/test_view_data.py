"""The view as data (docs/engine-api.md, "What the seat knows, as data"): what was said in
each category, who owes what, the score by part, the cards seen, all beside the words, so
that a bot plays from the view without parsing a label."""

from __future__ import annotations

import os
import random
from typing import Any

import engine
from engine import Card, State, Step
from tests.engine.kit import ELDER, YOUNGER, deal, discard, random_action, say
from tests.engine.moves import exchange, lead

PARTIES = int(os.environ.get("PIQUET_RANDOM_PARTIES", "200")) // 10 + 2

def call(**told: Any) -> dict[str, Any]:
    """A call record: only what was told is in it."""
    return told


def decl(s: State, seat: int, category: str) -> dict[str, Any]:
    v = engine.view(s, seat)
    return next(d for d in v["declarations"] if d["category"] == category)


def equal_points_deal() -> State:
    """Elder: point of five making 49 in hearts, a quart to the ace, three kings.
    Younger: point of five making 48 in spades, a tierce to the jack in clubs."""
    s = deal("AH KH QH JH 8H AC KC 7C KD QD 7D 8C",
             "AS KS QS JS 7S 10C 9C 7H JC 9D 8D 10H",
             "8S 9H 9S 10S QC JD 10D AD")
    return exchange(s, "7D", "10H")


def test_elders_call_is_told_as_data_stage_by_stage() -> None:
    s = say(equal_points_deal(), ELDER, "Point of five")
    v = engine.view(s, YOUNGER)
    assert v["declaring"] == {"category": "point", "stage": "length"}
    point = v["declarations"][0]
    assert point["elder_call"] == call(length=5)  # the pips are not told yet
    assert (point["to_speak"], point["owed"]) == (YOUNGER, "answer")
    assert [(d["to_speak"], d["owed"]) for d in v["declarations"][1:]] == \
        [(ELDER, "call"), (ELDER, "call")]
    s = say(s, YOUNGER, "Equal")
    assert engine.view(s, YOUNGER)["declaring"] == {"category": "point", "stage": "pips"}
    point = decl(s, YOUNGER, "point")
    assert point["elder_call"] == call(length=5, pips=49)
    assert point["answers"] == ["equal"]
    s = say(s, YOUNGER, "Good")
    point = decl(s, ELDER, "point")
    assert point["answers"] == ["equal", "good"] and point["outcome"] == "elder"
    assert (point["to_speak"], point["owed"]) == (None, None)
    assert engine.view(s, YOUNGER)["declaring"] == {"category": "sequence", "stage": "length"}


def test_a_call_answered_good_at_the_first_stage_tells_no_more_to_the_other_seat() -> None:
    s = say(say(equal_points_deal(), ELDER, "Point of five"), YOUNGER, "Good")
    theirs = engine.view(s, YOUNGER)["combos"][0]
    assert theirs["call"] == call(length=5) and theirs["cards"] is None
    mine = engine.view(s, ELDER)["combos"][0]
    assert mine["call"] == call(length=5, pips=49)


def test_younger_owes_her_calls_after_elders_nothing() -> None:
    s = say(equal_points_deal(), ELDER, "Nothing")  # elder sinks his point
    s = say(s, ELDER, "Nothing")  # and his quart
    point, sequence, sets = engine.view(s, ELDER)["declarations"]
    assert point["elder_nothing"] and point["elder_call"] is None
    assert (point["to_speak"], point["owed"]) == (YOUNGER, "call")
    assert (sequence["to_speak"], sequence["owed"]) == (YOUNGER, "call")
    assert (sets["to_speak"], sets["owed"]) == (ELDER, "call")
    s = say(say(s, ELDER, "Three kings"), YOUNGER, "Good")
    assert engine.view(s, YOUNGER)["declaring"] == {"category": "set", "stage": "lesser"}
    s = say(s, ELDER, "Done")
    s = lead(s, "AC")
    v = engine.view(s, ELDER)
    assert v["step"] == "younger_call"
    assert v["declaring"] == {"category": "point", "stage": "length"}
    s = say(s, YOUNGER, "Point of five")
    point = decl(s, ELDER, "point")
    assert point["younger_call"] == call(length=5) and point["outcome"] == "younger"
    assert (point["to_speak"], point["owed"]) == (None, None)
    s = say(s, YOUNGER, "Tierce to the jack")
    v = engine.view(s, ELDER)
    assert v["declaring"] == {"category": "sequence", "stage": "lesser"}
    assert (v["declarations"][1]["to_speak"], v["declarations"][1]["owed"]) == \
        (YOUNGER, "lesser")
    assert v["declarations"][1]["younger_call"] == call(length=3)
    s = say(s, YOUNGER, "Done")
    assert engine.view(s, ELDER)["declaring"] is None
    assert [(d["to_speak"], d["owed"]) for d in engine.view(s, ELDER)["declarations"]] == \
        [(None, None)] * 3


def test_the_score_is_given_by_part_for_the_deal_and_on_the_sheet() -> None:
    s = say(say(equal_points_deal(), ELDER, "Point of five"), YOUNGER, "Good")
    parts = engine.view(s, YOUNGER)["scores"]["parts"]
    assert parts == [{"point": 5}, {}]  # a part that scored nothing is left out
    assert engine.view(s, ELDER)["scores"]["sheet_parts"] == [parts]
    assert engine.PARTS == ("carte_blanche", "point", "sequences", "sets", "play", "cards",
                            "capot", "pique", "repique")


def test_the_cards_a_seat_has_seen_are_grouped_by_how() -> None:
    s = deal("AH KH QH JH 8H AC KC 7C KD QD 7D 8C",
             "AS KS QS JS 7S 10C 9C 7H JC 9D 8D 10H",
             "8S 9H 9S 10S QC JD 10D AD")
    s = discard(s, ELDER, "7D 8C")  # takes two, sees the rest of his five
    s = discard(s, YOUNGER, "7H", expose=True)  # takes one of six, leaves five turned up
    assert engine.view(s, ELDER)["seen"]["rest_of_five"] == ["9S", "10S", "QC"]  # stock order
    assert engine.view(s, YOUNGER)["seen"]["rest_of_five"] == []
    assert engine.view(s, YOUNGER)["seen"]["discards"] == ["7H"]
    assert engine.view(s, ELDER)["seen"]["discards"] == ["8C", "7D"]
    assert engine.view(s, YOUNGER)["took"] == [2, 1]
    while s.step is not Step.LEAD:
        s = say(s, ELDER, "Nothing")
    assert engine.view(s, ELDER)["seen"]["exposed"] == []
    s = lead(s, "AC")
    for seat in (ELDER, YOUNGER):
        seen = engine.view(s, seat)["seen"]
        assert seen["exposed"] == ["10S", "QC", "JD", "10D", "AD"]
        assert seen["played"] == ["AC"]
        assert seen["shown"] == []


# --------------------------------------------------------------------------- a bot without words

WORDS = {"label", "said", "log", "text", "what"}


def without_words(x: Any) -> Any:
    """The view with every field of words taken out: what is left is data."""
    if isinstance(x, dict):
        return {k: without_words(v) for k, v in x.items() if k not in WORDS}
    if isinstance(x, list):
        return [without_words(v) for v in x]
    return x


def beats(mine: dict[str, Any], theirs: dict[str, Any], stage: str) -> bool:
    """Does my call beat what I was told of theirs, compared at this stage?"""
    if stage == "whole":
        return (mine["count"], RANKS.index(mine["rank"])) > \
            (theirs["count"], RANKS.index(theirs["rank"]))
    assert set(theirs) == {"length"}  # at the first stage, elder has told the length only
    if stage == "length":
        return bool(mine["length"] > theirs["length"])
    key = "pips" if stage == "pips" else "top"
    if key == "top":
        return mine["length"] == theirs["length"] and \
            RANKS.index(mine["top"]) > RANKS.index(theirs["top"])
    return bool(mine["length"] == theirs["length"] and mine["pips"] > theirs["pips"])


RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"]


def data_player(v: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A bot that reads only data: it declares everything it holds, answers by comparing
    its best call (from engine.combos) with elder's call as told, and plays at random."""
    legal = v["legal"]
    see = [e for e in legal if e["type"] == "see"]
    if see:
        return see[0]
    if v["to_move"] != v["seat"]:
        return next(e for e in legal if e["type"] in ("next_deal", "carte_blanche"))
    kinds = {e["type"] for e in legal}
    if "discard" in kinds:
        rule = next(e for e in legal if e["type"] == "discard")
        n = rng.randint(rule["min"], rule["max"])
        return {"type": "discard", "cards": rng.sample(v["hand"], n), "expose": rng.random() < .5}
    if "answer" in kinds:
        now = v["declaring"]
        category = engine.Category.from_word(now["category"])
        told = v["declarations"][category]["elder_call"]
        held = engine.combos.best_call(category, [Card.parse(c) for c in v["hand"]])
        mine = None if held is None else held.told(2)
        # Legal offers "not good" exactly when the hand beats the call at this stage.
        can_beat = mine is not None and beats(mine, told, now["stage"])
        # (It never says "equal", so every answer is at the first stage.)
        assert can_beat == any(e.get("reply") == "not_good" for e in legal)
        return {"type": "answer", "reply": "not_good" if can_beat else "good"}
    calls = [e for e in legal if e["type"] == "call"]
    if calls or "pass" in kinds:
        # Declaring everything: the first call offered is the best; at a lesser step,
        # the first call again until only "Done" (pass) is left.
        return calls[0] if calls else {"type": "pass"}
    return rng.choice(legal)


def test_a_bot_that_never_reads_a_word_plays_whole_parties() -> None:
    rng = random.Random(11)
    for n in range(PARTIES):
        s = engine.new_partie(seed=n)
        deals = 0
        while s.step is not Step.PARTIE_OVER:
            for seat in (0, 1):
                v = without_words(engine.view(s, seat))
                assert "label" not in str(v)
                parts = v["scores"]["parts"]
                assert [sum(p.values()) for p in parts] == v["scores"]["deal"]
                assert [[sum(p.values()) for p in row] for row in v["scores"]["sheet_parts"]] \
                    == v["scores"]["sheet"]
                seen = [c for group in v["seen"].values() for c in group]
                assert not set(seen) & set(v["hand"])
            seat = s.to_move if s.to_move is not None else 0
            action = data_player(without_words(engine.view(s, seat)), rng)
            if s.step is Step.DEAL_OVER:
                deals += 1
            s = engine.apply(s, seat, action)
        assert deals + 1 in (6, 8)
        assert s.result is not None


def test_a_view_is_the_same_worked_out_afresh() -> None:
    """The view keeps what it worked out for the states before (the tricks, the
    dialogue...) while the fields it came from keep their value: what it gives is what a
    state with nothing kept gives, at every step."""
    rng = random.Random(7)
    for n in range(max(2, PARTIES // 3)):
        s = engine.new_partie(seed=n, packet=2 + n % 2)
        while s.step is not Step.PARTIE_OVER:
            for seat in (0, 1):
                fresh = s.copy()
                fresh.carried = {}
                assert engine.view(s, seat) == engine.view(fresh, seat), s.step
            seat = s.to_move if s.to_move is not None else rng.randrange(2)
            if not engine.legal(s, seat):
                seat = 1 - seat
            s = engine.apply(s, seat, random_action(s, seat, rng))
