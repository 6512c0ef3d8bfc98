"""Learning at the table through the real protocol (issue 26): a hint when a seat asks,
the review of each deal, and the record of the partie; who may ask, what changes (the
partie: nothing), who is told (the asking socket only), and what they may hold (only
what the seat saw: twin deals that differ in cards a seat never saw give that seat the
same hints, reviews and record)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from tablekit import (
    History,
    SeatSocket,
    TestClient,
    first_legal,
    join,
    one_move,
    pick,
    room_of,
    serve,
)

import engine
from app.coach_work import review_for
from engine.computer import strong
from engine.computer.advice import hint
from engine.record import loads
from tests.engine.learnkit import VARIANTS, careless, seen_by, twin

Json = dict[str, Any]


def table(client: TestClient, body: Json) -> tuple[str, list[SeatSocket]]:
    made = client.post("/api/rooms", json=body).json()
    room_id = made["room_id"]
    seats = [SeatSocket(client, room_id, made["token"])]
    if body["opponent"] == "friend":
        seats.append(SeatSocket(client, room_id, join(client, room_id)["token"]))
    for seat in seats:
        seat.connect()
    return room_id, seats


def ask(seat: SeatSocket, kind: str, **fields: Any) -> Json:
    """Send a `hint` or `review` message; the first frame that answers it (a hint, a
    review, or an error), presence and states on the way kept."""
    seat.send({"type": kind, **fields})
    while True:
        frame = seat.recv(timeout=60)
        if frame["type"] in (kind, "error"):
            return frame


def quiet(seat: SeatSocket) -> list[Json]:
    """Every frame this socket got up to a ping's answer: what it was told meanwhile."""
    seat.send({"type": "ping"})
    frames = []
    while (frame := seat.recv())["type"] != "pong":
        frames.append(frame)
    return frames


def person_moves(person: SeatSocket, rng: random.Random) -> None:
    """At a computer table: the person's move if it is theirs (else wait for the next
    state). A move the computer's overtook is refused as stale: read on."""
    view = person.view
    if view["phase"] == "deal_over":
        mine = [e for e in view["legal"] if e["type"] == "next_deal"]
    else:
        mine = [e for e in view["legal"] if e["type"] != "see"] if view["to_move"] == 0 else []
    if not mine:
        person.expect("state")
        return
    person.act(pick({**view, "legal": mine}, rng))
    quiet(person)  # its answer, an error or a state, is in by the ping's answer


def to_decision(seats: list[SeatSocket], rng: random.Random, step: str,
                computer: bool = False) -> SeatSocket:
    """Play on (both seats, or the person against the computer) until a seat is to move
    at `step`; that seat."""
    for _ in range(400):
        for seat in seats:
            if seat.view["step"] == step and seat.view["to_move"] == seat.seat:
                return seat
        if computer:
            person_moves(seats[0], rng)
            continue
        one_move(seats, rng)
    raise AssertionError(f"no seat came to {step}")


# --- the hint ---------------------------------------------------------------------------


@pytest.mark.parametrize("step", ["elder_exchange", "younger_exchange", "lead", "follow"])
def test_the_person_at_a_computer_table_gets_the_strong_level_s_hint(
    templates_dir: Path, step: str
) -> None:
    """The hint is the strong level's move from this seat's view, with its words and the
    options it weighed; asking changes nothing: no new version, nothing in the log."""
    with serve(templates_dir, policy=first_legal) as client:
        room_id, seats = table(client, {"opponent": "computer", "level": "basic"})
        person = seats[0]
        assert person.state["room"]["hints"] is True
        rng = random.Random(hash(step) % 1000)
        try:
            to_decision(seats, rng, step, computer=True)
        except AssertionError:
            pytest.skip(f"the person was never to move at {step} in this partie")
        room = room_of(client, room_id)
        version, log = room.version, len(room.state.log)
        view = engine.view(room.state, 0, log=False)
        answer = ask(person, "hint", version=version)
        assert answer["type"] == "hint" and answer["version"] == version, answer
        advice = answer["hint"]
        assert advice == json.loads(json.dumps(hint(view)))
        assert advice["action"] == strong.choose(view)
        assert advice["why"] and advice["options"]
        assert room.version == version and len(room.state.log) == log
        assert [f for f in quiet(person) if f["type"] == "state"] == []


def test_hints_are_off_at_a_friend_s_table_on_at_a_practice_table_and_never_a_watcher_s(
    templates_dir: Path,
) -> None:
    with serve(templates_dir) as client:
        _, friends = table(client, {"opponent": "friend"})
        assert [s.state["room"]["hints"] for s in friends] == [False, False]
        refused = ask(friends[0], "hint", version=friends[0].version)
        assert refused["type"] == "error" and refused["code"] == "not_allowed"
        assert "practice table" in refused["message"]

        room_id, seats = table(client, {"opponent": "friend", "practice": True})
        assert [s.state["room"]["hints"] for s in seats] == [True, True]
        assert all(s.state["room"]["practice"] for s in seats)
        watcher = SeatSocket(client, room_id, None, watch=True)
        state = watcher.connect()
        assert state["room"]["practice"] is True and state["room"]["hints"] is False
        refused = ask(watcher, "hint", version=state["version"])
        assert refused["type"] == "error" and refused["code"] == "not_allowed"
        # Either seat may ask, and the other seat (and the watcher) is told nothing of it.
        rng = random.Random(3)
        mover = to_decision(seats, rng, "elder_exchange")
        other = seats[1 - seats.index(mover)]
        quiet(other)
        quiet(watcher)  # (what it was told of the play so far)
        answer = ask(mover, "hint", version=mover.version)
        assert answer["type"] == "hint"
        assert quiet(other) == [] and [f for f in quiet(watcher) if f["type"] != "presence"] == []


def test_one_hint_at_a_time_and_only_on_the_current_version(
    templates_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve(templates_dir, policy=first_legal) as client:
        room_id, seats = table(client, {"opponent": "computer", "level": "basic"})
        person = seats[0]
        to_decision(seats, random.Random(1), "lead", computer=True)
        teacher = room_of(client, room_id).coach.pool
        run = teacher.run

        async def slowly(fn: Any, *args: Any) -> Any:
            await asyncio.sleep(0.5)  # a hint still being worked out when the next comes
            return await run(fn, *args)

        monkeypatch.setattr(teacher, "run", slowly)
        person.send({"type": "hint", "version": person.version})
        busy = ask(person, "hint", version=person.version)
        assert busy["type"] == "error" and busy["code"] == "busy"
        stale = ask(person, "hint", version=person.version - 1)
        assert stale["type"] == "error" and stale["code"] == "stale_version"
        answer = ask(person, "hint", version=person.version)
        while answer["type"] != "hint":
            answer = ask(person, "hint", version=person.version)
        assert answer["hint"]["action"] in [
            {k: v for k, v in e.items() if k not in ("label", "say")} for e in person.view["legal"]]


# --- the review -----------------------------------------------------------------------------


def play_deal(seats: list[SeatSocket], rng: random.Random, computer: bool) -> None:
    for _ in range(600):
        if all(s.view["phase"] in ("deal_over", "partie_over") for s in seats):
            return
        if computer:
            person_moves(seats[0], rng)
        else:
            one_move(seats, rng)
    raise AssertionError("the deal did not end")


def test_a_review_comes_by_itself_when_a_deal_ends_at_a_computer_table(
    templates_dir: Path,
) -> None:
    with serve(templates_dir, policy=first_legal) as client:
        room_id, seats = table(client, {"opponent": "computer", "level": "basic"})
        person = seats[0]
        play_deal(seats, random.Random(5), computer=True)
        review = next((f for f in person.frames if f["type"] == "review"), None)
        while review is None:
            frame = person.recv(timeout=60)
            review = frame if frame["type"] == "review" else None
        assert review is not None and review["deal"] == 1 and review["ready"]
        room = room_of(client, room_id)
        coach = room.coach
        expected = review_for(coach.start, coach.entries, 0, 1, coach.names())
        assert review["review"] == json.loads(json.dumps(expected))
        assert "items" in review["review"] and "points_left" in review["review"]
        again = ask(person, "review", deal=1)
        assert again.get("ready") and again["review"] == review["review"], again
        early = ask(person, "review", deal=2)
        assert early["type"] == "error" and early["code"] == "not_allowed"


def test_at_a_friend_s_table_a_review_is_worked_out_when_asked(templates_dir: Path) -> None:
    with serve(templates_dir) as client:
        _, seats = table(client, {"opponent": "friend"})
        play_deal(seats, random.Random(8), computer=False)
        assert not [f for f in quiet(seats[0]) if f["type"] == "review"]
        coming = ask(seats[1], "review", deal=1)
        assert coming["type"] == "review" and coming["deal"] == 1
        if not coming["ready"]:
            coming = ask(seats[1], "review", deal=1)
        assert coming["ready"] and coming["review"]["deal"] == 1


# --- the record ---------------------------------------------------------------------------


def test_a_seat_s_record_holds_what_it_saw_and_a_watcher_s_no_hand(
    templates_dir: Path, history: History
) -> None:
    with serve(templates_dir, history=history, policy=first_legal) as client:
        room_id, seats = table(client, {"opponent": "computer", "level": "basic"})
        play_deal(seats, random.Random(9), computer=True)
        to_decision(seats, random.Random(10), "follow", computer=True)  # into deal 2
        room = room_of(client, room_id)
        cookie = {"cookie": f"piquet_seat_{room_id}={seats[0].token}"}
        answer = client.get(f"/r/{room_id}/record.json", headers=cookie)
        assert answer.status_code == 200
        assert "attachment" in answer.headers["content-disposition"]
        record = loads(answer.text)
        assert record["seat"] == 0 and len(record["deals"]) == 2
        assert record["reviews"] and record["reviews"][0]["deal"] == 1
        # Every card the record names was seen by seat 0, in the room's own states.
        states = [history.at(room, v) for v in range(1, room.version + 1)
                  if (room_id, v) in history.states]
        saw = seen_by(states[0], [(0, {}, s) for s in states[1:]], 0)
        named = set()
        for code in engine.CARD_NAMES:
            if f'"{code}"' in answer.text:
                named.add(code)
        assert named <= saw, named - saw
        client.cookies.clear()
        public = loads(client.get(f"/r/{room_id}/record.json").text)
        assert public["seat"] is None and "reviews" not in public
        assert all(not step["view"]["hand"] for d in public["deals"] for step in d["steps"])
        assert client.get("/record.schema.json").json()["properties"]["format"]


# --- twin deals: nothing a seat never saw -------------------------------------------------------


@pytest.mark.parametrize("rules", [engine.RUBICON, *VARIANTS], ids=lambda r: r.names())
def test_twin_deals_give_a_seat_the_same_hints_reviews_and_record(templates_dir: Path,
                                                                  rules: engine.Rules) -> None:
    """Two practice tables dealt twin deals: they differ only in cards seat 0 never sees
    (the other seat's discards, the stock nobody draws), the other seat's play matched.
    Seat 0 asks for a hint at each of its decisions, then for the deal's review and the
    record: both tables give it the same, word for word. Under each variant (RULES.md
    §8): the tables are made under it, and the record says it."""
    me = 0
    policies = [careless(11), careless(12)]
    a, steps_a, b, steps_b = twin(21, me, policies, rules)
    first_dealer = a.dealer
    assert first_dealer is not None
    seed = next(s for s in range(1, 500) if engine.new_partie(seed=s).cut_winner == 0)
    results = []
    for state, steps in ((a, steps_a), (b, steps_b)):
        pack = [c.code for c in engine.deck_for(
            state.hands[state.elder], state.hands[state.younger], state.stock)]
        packs = iter([pack])
        with serve(templates_dir, new_seed=lambda: seed,
                   new_pack=lambda packs=packs: next(packs, None)) as client:
            room_id, seats = table(client, {"opponent": "friend", "practice": True,
                                            "rules": rules.to_json()})
            seats[0].act({"type": "choose_dealer", "deal": first_dealer == 0})
            for seat in seats:
                seat.expect("state")
            hints = []
            for actor, action, _ in steps:
                mover = seats[actor]
                if actor == me:
                    hints.append(ask(mover, "hint", version=mover.version)["hint"])
                before = mover.version
                mover.act(action)
                for seat in seats:
                    while seat.expect("state")["version"] == before:
                        pass
            review = ask(seats[me], "review", deal=1)
            while not review.get("ready"):
                review = ask(seats[me], "review", deal=1)
            cookie = {"cookie": f"piquet_seat_{room_id}={seats[me].token}"}
            record = json.loads(client.get(f"/r/{room_id}/record.json", headers=cookie).text)
            record.pop("meta")
            assert record["rules"] == rules.to_json()
            assert record["deals"][0]["steps"][-1]["view"]["rules"] == rules.to_json()
            results.append((hints, review["review"], record))
    assert len(results[0][0]) >= 5
    assert results[0][0] == results[1][0]  # the hints
    assert results[0][1] == results[1][1]  # the review
    assert results[0][2] == results[1][2]  # the record
