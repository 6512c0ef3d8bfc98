"""The record of a partie (issue 26; docs/record.md): what one seat saw and nothing it did
not, in a documented JSON format that reads back checked."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

import engine
from engine.record import (
    RECORD_SCHEMA,
    RecordBuilder,
    RecordError,
    dumps,
    loads,
    record_from_states,
    record_of,
    rules_of,
)
from tests.engine.learnkit import careless, drive, level, seen_by, twin
from tests.engine.moves import seen


def partie(seed: int, policies: Any) -> tuple[engine.State, list[Any]]:
    start = engine.new_partie(seed)
    _, steps = drive(start, policies, until=engine.Step.PARTIE_OVER)
    return start, steps


@pytest.fixture(scope="module")
def played() -> tuple[engine.State, list[Any]]:
    """A whole partie: the good level against a random player who exposes her leftovers
    now and then (so cards are turned up, shown, played, and some never seen)."""
    pick = random.Random(5)

    def random_player(v: dict[str, Any]) -> dict[str, Any]:
        rule = next((e for e in v["legal"] if e["type"] == "discard"), None)
        if rule is not None:
            n = pick.randint(rule["min"], rule["max"])
            return {"type": "discard", "cards": pick.sample(v["hand"], n),
                    "expose": rule["expose_choice"] and pick.random() < 0.5}
        return careless(pick.randrange(1 << 30))(v)

    return partie(2026, [level("good"), random_player])


def by_deal(steps: list[Any]) -> dict[int, list[Any]]:
    out: dict[int, list[Any]] = {}
    for step in steps:
        out.setdefault(step[2].deal_number, []).append(step)
    return out


@pytest.mark.parametrize("seat", [0, 1])
def test_a_seats_record_holds_no_card_it_never_saw(played: Any, seat: int) -> None:
    """Every card named anywhere in a deal's part of the record (as a code, in words or
    by name) is one this seat saw in that deal: its hands, its discards and draws, what
    was turned up, shown or played. Her discards and the stock it never saw are absent."""
    start, steps = played
    record = record_of(seat, ["Ann", "Bob"], start, [(s, a) for s, a, _ in steps])
    assert seen(record["start"]) <= seen_by(start, [], seat)
    groups = by_deal(steps)
    assert [d["number"] for d in record["deals"]] == sorted(groups)
    hidden_somewhere = 0
    for d in record["deals"]:
        deal_steps = groups[d["number"]]
        saw = seen_by(deal_steps[0][2], deal_steps, seat)
        named = seen(d)
        assert named <= saw, (d["number"], sorted(named - saw))
        end = deal_steps[-1][2]
        never = {c.code for c in end.discards[1 - seat] + end.stock} - saw
        hidden_somewhere += len(never)
        assert not named & never
        assert len(d["steps"]) == len(deal_steps)
    assert hidden_somewhere > 10  # not a vacuous pass: cards were hidden from this seat


def test_a_watchers_record_holds_no_hand(played: Any) -> None:
    start, steps = played
    record = record_of(None, ["Ann", "Bob"], start, [(s, a) for s, a, _ in steps])
    views = [record["start"]] + [x["view"] for d in record["deals"] for x in d["steps"]]
    for v in views:
        assert v["seat"] is None and v["hand"] == v["discards"] == v["seen_stock"] == []
        assert v["legal"] == []
    for d in record["deals"]:
        for x in d["steps"]:
            if x["action"]["type"] in ("discard", "call"):
                assert "cards" not in x["action"]
    groups = by_deal(steps)
    for d in record["deals"]:
        deal_steps = groups[d["number"]]
        assert seen(d) <= seen_by(deal_steps[0][2], deal_steps, None)


def test_the_other_seats_actions_are_as_the_table_told_them(played: Any) -> None:
    start, steps = played
    record = record_of(0, ["Ann", "Bob"], start, [(s, a) for s, a, _ in steps])
    kinds: dict[str, list[dict[str, Any]]] = {}
    for d in record["deals"]:
        for x in d["steps"]:
            if x["actor"] == 1:
                kinds.setdefault(x["action"]["type"], []).append(x["action"])
            else:
                assert "count" not in x["action"] and "told" not in x["action"]
    assert all(set(a) == {"type", "count"} for a in kinds["discard"])
    assert all(set(a) == {"type", "category", "told"} for a in kinds.get("call", []))
    assert {"play", "discard"} <= set(kinds)


def test_the_builder_fed_as_the_partie_goes_makes_the_same_record(played: Any) -> None:
    start, steps = played
    builder = RecordBuilder(0, ["Ann", "Bob"], {"room": "r1", "level": "good"})
    builder.start(start)
    for seat, action, state in steps[:40]:
        builder.add(seat, action, state)
    assert builder.record() == record_from_states(0, ["Ann", "Bob"], start, steps[:40],
                                                  {"room": "r1", "level": "good"})
    part = builder.record()
    assert part["result"] is None
    assert part["meta"] == {"room": "r1", "level": "good"}
    whole = record_of(0, ["Ann", "Bob"], start, [(s, a) for s, a, _ in steps])
    assert whole["result"] == engine.view(steps[-1][2], 0)["result"] is not None
    # each step's view is the seat's view after it; its log lines are the deal's new ones
    for (_, _, state), x in zip(steps, [x for d in whole["deals"] for x in d["steps"]],
                                        strict=True):
        assert x["view"] == json.loads(json.dumps(engine.view(state, 0, log=False)))
        lines = engine.deal_log(state)
        assert lines[len(lines) - len(x["log"]):] == x["log"]


def test_twin_deals_give_the_same_record() -> None:
    """Two deals that differ only in cards seat `me` never saw (her discards, the stock
    nobody drew or turned up) give `me` the same record, step by step."""
    compared = 0
    for i in range(10):
        me = i % 2
        a, steps_a, b, steps_b = twin(100 + i, me, [careless(i), careless(-i)])
        end_a, end_b = steps_a[-1][2], steps_b[-1][2]
        if (end_a.discards[1 - me], end_a.stock) == (end_b.discards[1 - me], end_b.stock):
            continue  # nothing hidden from `me` moved (she left nothing, or it came back)
        ra = record_from_states(me, ["A", "B"], a, steps_a)
        rb = record_from_states(me, ["A", "B"], b, steps_b)
        assert ra == rb
        compared += 1
    assert compared >= 5


def test_dumps_and_loads_round_trip(played: Any) -> None:
    start, steps = played
    for seat in (0, 1, None):
        record = record_of(seat, ["Ann", "Bob"], start, [(s, a) for s, a, _ in steps],
                           {"room": "abc", "dates": ["2026-12-02"]})
        assert loads(dumps(record)) == record
        assert loads(dumps(record).encode()) == record


@pytest.fixture(scope="module")
def short_record() -> dict[str, Any]:
    start = engine.new_partie(11)
    _, steps = drive(start, [level("basic"), level("basic")])
    return record_from_states(0, ["Ann", "Bob"], start, steps)


def _first(record: dict[str, Any], actor: int, kind: str) -> dict[str, Any]:
    return next(x for x in record["deals"][0]["steps"]
                if x["actor"] == actor and x["action"]["type"] == kind)


def _as_watcher(record: dict[str, Any]) -> None:
    record["seat"] = None
    for d in record["deals"]:
        for x in d["steps"]:
            x["action"] = {"type": "pass"}


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.update(format="chess"), r"\$\.format: expected \"piquet-record\""),
    (lambda r: r.update(version=2), r"\$\.version: expected 1, got 2"),
    (lambda r: r.pop("deals"), r"\$: 'deals' is missing"),
    (lambda r: r.update(seat=2), r"\$\.seat: expected one of \[0, 1, null\], got 2"),
    (lambda r: r.update(names=["Ann"]), r"\$\.names: expected at least 2 items, got 1"),
    (lambda r: r.update(extra=1), r"\$: unexpected field 'extra'"),
    (lambda r: _first(r, 0, "discard")["action"]["cards"].__setitem__(0, "ZZ"),
     r"\$\.deals\[0\]\.steps\[\d+\]\.action\.cards\[0\]: \"ZZ\" is not a card"),
    (lambda r: _first(r, 1, "discard")["action"].update(cards=["AS"]),
     r"\$\.deals\[0\]\.steps\[\d+\]\.action: unexpected field '(cards|count)'"),
    (lambda r: _first(r, 1, "discard")["action"].update(cards=["AS"], type="discard") or
     _first(r, 1, "discard")["action"].pop("count"),
     r"seat 1's discard names cards this record's seat never saw"),
    (lambda r: _first(r, 0, "play")["action"].update(type="dance"),
     r"\$\.deals\[0\]\.steps\[\d+\]\.action: not an action: \{\"type\": \"dance\""),
    (lambda r: r["deals"][0]["steps"][3]["view"].update(seat=1),
     r"\$\.deals\[0\]\.steps\[3\]\.view\.seat: a view for seat 1 in a record for seat 0"),
    (lambda r: r["deals"][0]["steps"][3].update(actor="me"),
     r"\$\.deals\[0\]\.steps\[3\]\.actor: expected one of \[0, 1\], got \"me\""),
    (lambda r: r["deals"].append(copy.deepcopy(r["deals"][0])),
     r"\$\.deals\[1\]\.number: deal 1 comes after deal 1"),
    (lambda r: r.update(seat=None),  # seat 0's record passed off as a watcher's
     r"steps\[1\]\.action: seat 0's discard names cards this record's seat never saw"),
    (lambda r: _as_watcher(r),  # ... its actions made harmless: the views still tell
     r"\$\.start\.seat: a view for seat 0 in a record for seat None"),
])
def test_loads_refuses_a_malformed_record_saying_what_is_wrong(
        short_record: dict[str, Any], change: Any, message: str) -> None:
    record = copy.deepcopy(short_record)
    change(record)
    with pytest.raises(RecordError, match=message):
        loads(dumps(record))


def test_loads_refuses_what_is_not_json_or_not_a_record() -> None:
    with pytest.raises(RecordError, match="a record must be JSON"):
        loads("{not json")
    with pytest.raises(RecordError, match=r"\$: expected object, got \[1, 2\]"):
        loads("[1, 2]")
    assert issubclass(RecordError, ValueError)


def test_a_watchers_view_with_a_hand_is_refused(short_record: dict[str, Any]) -> None:
    start = engine.new_partie(11)
    _, steps = drive(start, [level("basic"), level("basic")])
    record = record_from_states(None, ["Ann", "Bob"], start, steps[:5])
    record["deals"][0]["steps"][2]["view"]["hand"] = ["AS"]
    with pytest.raises(RecordError, match=r"steps\[2\]\.view: a watcher's view holds cards"):
        loads(dumps(record))


def test_the_schema_is_json_schema_draft_2020_12_and_plain_json() -> None:
    assert RECORD_SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert json.loads(json.dumps(RECORD_SCHEMA)) == RECORD_SCHEMA
    assert set(RECORD_SCHEMA["required"]) == {
        "format", "version", "seat", "names", "meta", "start", "deals", "result"}


def test_the_builder_refuses_what_is_no_record() -> None:
    with pytest.raises(ValueError, match="seat 0, 1 or None"):
        RecordBuilder(2, ["A", "B"])
    with pytest.raises(ValueError, match="two seats' names"):
        RecordBuilder(0, ["A"])
    builder = RecordBuilder(0, ["A", "B"])
    with pytest.raises(ValueError, match="start"):
        builder.add(0, {"type": "pass"}, engine.new_partie(1))


def test_the_seats_own_call_is_recorded_as_the_table_read_it() -> None:
    """A call sent with its cards in any order is recorded high first, as the legal
    entry lists them (so a page, and the review, find it among the entries)."""
    start = engine.new_partie(11)
    s, steps = drive(start, [level("basic"), level("basic")], until=engine.Step.ELDER_CALL)
    elder = s.to_move
    assert elder is not None
    entry = next(e for e in engine.view(s, elder)["legal"] if e["type"] == "call")
    sent = {"type": "call", "category": entry["category"], "cards": entry["cards"][::-1]}
    after = engine.apply(s, elder, sent)
    record = record_from_states(elder, ["A", "B"], start, [*steps, (elder, sent, after)])
    assert record["deals"][-1]["steps"][-1]["action"] == {
        "type": "call", "category": entry["category"], "cards": entry["cards"]}


def test_which_equal_call_she_named_is_in_her_record_only() -> None:
    """Equal at a call's last stage names her call (its cards, her choice: issue 25); the
    table hears "Equal", so elder's record holds the answer as said, and hers whole."""
    from tests.engine.kit import ELDER, YOUNGER, say
    from tests.engine.moves import equal_points

    start = equal_points()
    s = say(start, ELDER, "Point of five")
    s = say(s, YOUNGER, "Equal")
    answer = next(a for a, label in engine.legal(s, YOUNGER) if label.startswith("Equal:"))
    after = engine.apply(s, YOUNGER, answer)
    records = {}
    for seat in (ELDER, YOUNGER):
        builder = RecordBuilder(seat, ["Host", "Guest"])
        builder.start(s)
        builder.add(YOUNGER, answer.to_json(), after)
        records[seat] = loads(dumps(builder.record()))
    said = {seat: r["deals"][-1]["steps"][-1]["action"] for seat, r in records.items()}
    assert said[ELDER] == {"type": "answer", "reply": "equal"}
    assert said[YOUNGER]["cards"] == answer.to_json()["cards"]
    leaked = copy.deepcopy(records[ELDER])
    leaked["deals"][-1]["steps"][-1]["action"]["cards"] = said[YOUNGER]["cards"]
    with pytest.raises(RecordError, match="cards"):
        loads(dumps(leaked))


# --- the rules (RULES.md §8) -------------------------------------------------------------

AU_CENT_ROUGE = engine.Rules(game="au_cent", carte_rouge=True)


@pytest.fixture(scope="module")
def au_cent() -> tuple[engine.State, engine.State, list[Any]]:
    """A whole partie of Piquet au cent with carte rouge, the good level against basic."""
    start = engine.new_partie(35, rules=AU_CENT_ROUGE)
    end, steps = drive(start, [level("good"), level("basic")], until=engine.Step.PARTIE_OVER)
    assert end.step is engine.Step.PARTIE_OVER and len(end.games) >= 2
    return start, end, steps


@pytest.mark.parametrize("seat", [0, 1, None])
def test_a_record_says_its_rules_and_replays_under_them(au_cent: Any, seat: int | None) -> None:
    """The record of an au cent partie with carte rouge says so; replayed from its
    actions (under the start's rules) it is the same record; it reads back checked;
    and stepped through as /replay steps through it, its views end where the partie
    ended: the same sheet, games, doubles and result."""
    start, end, steps = au_cent
    record = record_from_states(seat, ["Ann", "Bob"], start, steps)
    assert record["rules"] == {"game": "au_cent", "cards_towards_pique": False,
                               "carte_rouge": True}
    assert record_of(seat, ["Ann", "Bob"], start, [(s, a) for s, a, _ in steps]) == record
    back = loads(dumps(record))
    assert back == record and rules_of(back) == AU_CENT_ROUGE
    last = back["deals"][-1]["steps"][-1]["view"]
    final = engine.public_view(end) if seat is None else engine.view(end, seat)
    assert last["scores"]["sheet"] == final["scores"]["sheet"]
    assert last["games"] == final["games"] and last["games"]["finished"]
    assert back["result"] == final["result"] and back["result"] is not None
    assert all(x["view"]["rules"] == record["rules"] for d in back["deals"] for x in d["steps"])


def test_a_record_whose_views_are_under_other_rules_is_refused(au_cent: Any) -> None:
    start, _, steps = au_cent
    record = record_from_states(0, ["Ann", "Bob"], start, steps[:40])
    record["rules"] = engine.RUBICON.to_json()
    with pytest.raises(RecordError, match=r"\$\.start\.rules: a view under .*au_cent.* in a "
                                          r"record under .*rubicon"):
        loads(dumps(record))
    record["rules"] = {"game": "au_cent", "tie": "one_more"}
    with pytest.raises(RecordError, match=r"\$\.rules: a tie rule is for Rubicon Piquet only"):
        loads(dumps(record))
    record["rules"] = {"game": "au cent"}
    with pytest.raises(RecordError, match=r"\$\.rules\.game: expected one of"):
        loads(dumps(record))


def test_a_record_made_before_records_said_their_rules_reads_as_rubicon_piquet(
        short_record: dict[str, Any]) -> None:
    old = copy.deepcopy(short_record)
    del old["rules"]
    for v in [old["start"]] + [x["view"] for d in old["deals"] for x in d["steps"]]:
        del v["rules"], v["games"]
    assert rules_of(loads(dumps(old))) == engine.RUBICON
    assert short_record["rules"] == engine.RUBICON.to_json()
