"""The review of a deal (issue 26): where the record's seat chose otherwise than the strong
level, and what that cost, exactly for the play (the solver on the hands both saw played)
and by the strong level's estimate for the exchange and the declarations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.computer import decide, strong
from engine.computer.knowledge import CARD_OF
from engine.computer.solver import Solver
from engine.record import dumps, record_from_states
from engine.review import review_deal, review_record
from engine.selfplay import _who_acts
from tests.engine.kit import deal
from tests.engine.learnkit import (
    VARIANTS,
    Steps,
    careless,
    drive,
    level,
    twin,
    under_way,
)

ELDER = "KS QS JS 10S AH 7H 8H AC 8C AD 9D 7D"
YOUNGER = "AS 9S 8S KH QH JH 10H KC QC JC KD QD"
STOCK = "7S 9H 10C 9C 7C JD 10D 8D"


def exact(s: engine.State, seat: int, card: str, race: bool = True) -> float:
    """The solver's value of `seat` playing `card` now, on the true hands of the State
    (under au cent the race's, unless not `race`)."""
    v = engine.view(s, seat)
    hand = sum(1 << CARD_OF[c.code] for c in s.hands[seat])
    hers = sum(1 << CARD_OF[c.code] for c in s.hands[1 - seat])
    led = CARD_OF[v["trick"]["cards"][0][0]] if v["trick"] else None
    make = strong.race_for(v) if race else None
    search = Solver(strong._pique(v)) if make is None else make(hers)
    values = search.moves(hand, hers, 0 if led is None else 1, v["tricks_won"][seat], led, 0)
    return values[strong._rep(CARD_OF[card], hand, hers)]


def test_throwing_away_a_sure_trick_costs_what_the_solver_says() -> None:
    """Seat 0 plays as the strong level except once: following, where strong takes the
    trick, it plays a card that does not. The review lists that card, with the exact
    cost the solver gives on the true hands, and nothing else in the play."""
    s = deal(ELDER, YOUNGER, STOCK)
    start = s
    steps: Steps = []
    thrown_at = None
    while s.step is not engine.Step.DEAL_OVER:
        seat = _who_acts(s)
        v = engine.view(s, seat)
        action = decide("strong" if seat == 0 else "basic", v, True)
        if thrown_at is None and seat == 0 and v["step"] == "follow" and len(v["legal"]) > 1:
            led = v["trick"]["cards"][0][0]
            losers = [e["card"] for e in v["legal"] if e["type"] == "play"
                      and CARD_OF[e["card"]] >> 3 == CARD_OF[led] >> 3
                      and CARD_OF[e["card"]] < CARD_OF[led]]
            wins = CARD_OF[action["card"]] >> 3 == CARD_OF[led] >> 3 \
                and CARD_OF[action["card"]] > CARD_OF[led]
            if wins and losers and exact(s, 0, action["card"]) - exact(s, 0, losers[0]) > 1:
                cost = exact(s, 0, action["card"]) - exact(s, 0, losers[0])
                best, action = action, {"type": "play", "card": losers[0]}
                thrown_at = len(steps)
        s = engine.apply(s, seat, action)
        steps.append((seat, action, s))
    assert thrown_at is not None, "no sure trick to throw in this deal"
    review = review_deal(record_from_states(0, ["Ann", "Bob"], start, steps), 0)
    plays = [x for x in review["items"] if x["kind"] == "play"]
    assert len(plays) == 1
    item = plays[0]
    assert item["step"] == thrown_at and item["exact"]
    assert item["cost"] == cost
    assert item["you"]["action"] == {"type": "play", "card": losers[0]}
    assert item["strong"]["action"] == best
    assert item["trick"] == sum(1 for _, a, _ in steps[:thrown_at] if a["type"] == "play") // 2 + 1
    assert f"trick {item['trick']}, playing the " in item["text"] and f"−{cost}" in item["text"]
    assert review["points_left"] >= cost and review["text"].startswith(
        "This deal your choices left about ")


def test_a_deal_played_as_the_strong_level_plays_has_nothing_to_review() -> None:
    start = engine.new_partie(31)
    s, steps = drive(start, [level("strong"), level("good")])
    s = engine.apply(s, 0, {"type": "next_deal"})
    steps.append((0, {"type": "next_deal"}, s))
    _, more = drive(s, [level("strong"), level("good")])
    steps += more
    record = record_from_states(0, ["Ann", "Bob"], start, steps)
    assert len(record["deals"]) == 2
    review = review_record(record)
    for d in review["deals"]:
        assert d["complete"] and d["items"] == [] and d["points_left"] == 0
    assert review["summary"]["text"] == "Over 2 deals you chose as the strong level would."


def test_twin_deals_get_the_same_review() -> None:
    """Deals that differ only in cards the seat never saw (her discards, the stock nobody
    drew) get the same review: it reads the seat's record alone."""
    reviewed = with_items = 0
    for i in range(8):
        me = i % 2
        a, steps_a, b, steps_b = twin(300 + i, me, [careless(i), careless(-i)])
        end_a, end_b = steps_a[-1][2], steps_b[-1][2]
        if (end_a.discards[1 - me], end_a.stock) == (end_b.discards[1 - me], end_b.stock):
            continue
        ra = record_from_states(me, ["A", "B"], a, steps_a)
        rb = record_from_states(me, ["A", "B"], b, steps_b)
        first, second = review_deal(ra, 0), review_deal(rb, 0)
        assert first == second
        reviewed += 1
        with_items += bool(first["items"])
    assert reviewed >= 3 and with_items >= 2


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: r.names())
def test_twin_deals_get_the_same_review_under_each_variant(rules: engine.Rules) -> None:
    """As above under each variant; under au cent half the twins are dealt with the game
    well under way, so that the deal may end at 100 (what is struck after it, and the
    race the play is reviewed by, tell nothing either)."""
    reviewed = 0
    for i in range(4):
        me = i % 2
        game = (60 + 7 * i, 85 - 5 * i) if rules.game == "au_cent" and i >= 2 else None
        a, steps_a, b, steps_b = twin(400 + i, me, [careless(i), careless(-i)], rules, game)
        end_a, end_b = steps_a[-1][2], steps_b[-1][2]
        if (end_a.discards[1 - me], end_a.stock) == (end_b.discards[1 - me], end_b.stock):
            continue
        ra = record_from_states(me, ["A", "B"], a, steps_a)
        rb = record_from_states(me, ["A", "B"], b, steps_b)
        assert ra["rules"] == rb["rules"] == rules.to_json()
        assert review_deal(ra, 0) == review_deal(rb, 0)
        reviewed += 1
    assert reviewed >= 2


def test_under_au_cent_the_play_is_reviewed_by_the_race() -> None:
    """Piquet au cent, the game under way at 30 to 35: a careless player's deal, played
    to its end. Each play item costs what the race says on the true hands (race.py: the
    points in their order to 100, a game 100 either way), not the margin to the end of
    the deal (a point is worth more or less than a point as it moves the game)."""
    start = under_way(engine.new_partie(12, rules=engine.Rules(game="au_cent")), (30, 35))
    s, steps = drive(start, [careless(3), level("strong")], until=engine.Step.DEAL_OVER,
                     script=[{"type": "choose_dealer", "deal": True}])
    assert len(s.tricks) == 12 and not s.games
    record = record_from_states(0, ["A", "B"], start, steps)
    items = [x for x in review_deal(record, 0)["items"] if x["kind"] == "play"]
    assert items
    differs = 0
    for x in items:
        before = steps[x["step"] - 1][2]
        theirs, mine = x["strong"]["action"]["card"], x["you"]["action"]["card"]
        assert x["cost"] == round(exact(before, 0, theirs) - exact(before, 0, mine), 2)
        plain = exact(before, 0, theirs, race=False) - exact(before, 0, mine, race=False)
        differs += abs(x["cost"] - plain) > 0.5
    assert differs


def test_saying_good_holding_the_better_point_is_an_answer_item() -> None:
    """Younger holds six hearts against elder's point of five and says "Good": about 11
    left (his 5 scored, her 6 not)."""
    s = deal("AS KS QS JS 9S AC KC QC AD KD QD 7C", "AH KH QH JH 10H 9H 8S 7S 8C 9C 8D 7D",
             "10S 8H 7H JC 10C JD 10D 9D")
    start = s
    s, steps = drive(s, [level("basic"), level("basic")], script=[
        {"type": "discard", "cards": ["7C"]}, {"type": "discard", "cards": ["7D"]},
        {"type": "call", "category": "point", "cards": ["AS", "KS", "QS", "JS", "10S", "9S"]},
        {"type": "answer", "reply": "good"}])
    record = record_from_states(1, ["Ann", "Bob"], start, steps)
    items = review_deal(record, 0)["items"]
    answers = [x for x in items if x["kind"] == "answer"]
    assert len(answers) == 1
    x = answers[0]
    assert x["step"] == 3 and not x["exact"]
    assert x["you"]["label"] == "Good" and x["strong"]["label"] == "Not good"
    assert 10 <= x["cost"] <= 14
    assert x["text"].startswith("the point, answering “Good” (about −")


def test_done_before_a_lesser_call_and_a_poor_exchange() -> None:
    """Elder throws the quart the strong level keeps (an exchange item, about), and later
    says "Done" with a quart to the ten still to add (a lesser item: 4)."""
    s = deal("AS KS QS JS 10H 9H 8H 7H AC QC AD QD", "10S 9S 8S KH JH KC JC 10C KD JD 10D 9D",
             "7S 8C 9C 7D 8D 7C AH QH")
    start = s
    s = engine.apply(s, 0, {"type": "discard", "cards": ["QC"]})
    steps: Steps = [(0, {"type": "discard", "cards": ["QC"]}, s)]
    while not (s.to_move == 0 and s.step.word == "elder_lesser"):
        seat = _who_acts(s)
        action = decide("basic", engine.view(s, seat), True)
        s = engine.apply(s, seat, action)
        steps.append((seat, action, s))
    done = len(steps)
    s, more = drive(s, [level("basic"), level("basic")], script=[{"type": "pass"}])
    record = record_from_states(0, ["Ann", "Bob"], start, steps + more)
    items = {x["kind"]: x for x in review_deal(record, 0)["items"]}
    lesser = items["lesser"]
    assert lesser["step"] == done and lesser["cost"] == 4
    assert lesser["strong"]["label"] == "Quart to the ten" and lesser["you"]["label"] == "Done"
    exchange = items["exchange"]
    assert exchange["step"] == 0 and exchange["cost"] > 0.5 and not exchange["exact"]
    assert exchange["text"].startswith("the exchange, throwing Q♣ (about −")


def test_a_watchers_record_has_nothing_to_review() -> None:
    start = deal(ELDER, YOUNGER, STOCK)
    _, steps = drive(start, [level("basic"), level("basic")])
    with pytest.raises(ValueError, match="watcher"):
        review_deal(record_from_states(None, ["A", "B"], start, steps), 0)


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two deals of the basic level (seat 0) against the strong level."""
    start = engine.new_partie(77)
    s, steps = drive(start, [level("basic"), level("strong")])
    s = engine.apply(s, 0, {"type": "next_deal"})
    steps.append((0, {"type": "next_deal"}, s))
    _, more = drive(s, [level("basic"), level("strong")])
    path = tmp_path_factory.mktemp("records") / "partie.json"
    path.write_text(dumps(record_from_states(0, ["Ann", "Bob"], start, steps + more)))
    return path


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine.review", *args], capture_output=True,
                          text=True, timeout=300, cwd=Path(__file__).parents[2])


def test_the_command_line_prints_each_deal_and_the_summary(record_file: Path) -> None:
    out = run(str(record_file))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Deal 1 (you were ")
    assert any(line.startswith("Deal 2 (you were ") for line in lines)
    assert any(line.startswith("Over 2 deals your choices left about ") for line in lines)
    assert "  deal 2: " in out.stdout
    assert "2/2" in out.stderr  # the progress bar over the deals
    as_json = run(str(record_file), "--json", "--no-progress")
    review: dict[str, Any] = json.loads(as_json.stdout)
    assert [d["deal"] for d in review["deals"]] == [1, 2]
    assert as_json.stderr == ""
    items = [x for d in review["deals"] for x in d["items"]]
    assert items and all(x["cost"] > 0.5 for x in items)


def test_the_command_line_refuses_what_is_no_record(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "chess"}')
    out = run(str(bad))
    assert out.returncode == 2 and "bad.json: $: 'version' is missing" in out.stderr
