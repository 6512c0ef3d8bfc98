"""Parties at your own pace (issue 36): a table made to "Take your time" says so, is kept
for days without a move (out of memory, in the store, between moves), and the lobby's
"My tables" lists this browser's tables, from its seat cookies alone, and leaves one."""

from __future__ import annotations

import contextlib
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from lobbykit import LobbyWatch
from tablekit import (
    FakeClock,
    Json,
    SeatSocket,
    TestClient,
    computer_done,
    first_legal,
    join,
    one_move,
    play_computer_partie,
    room_of,
    serve,
)

from app.room_options import RoomOptions
from app.sqlite_store import SQLiteStore
from app.store import MemoryStore, RoomStore

HOUR = 3600.0
DAY = 24 * HOUR


def make(client: TestClient, opponent: str = "friend", pace: str = "slow",
         **more: Any) -> Json:
    made = client.post("/api/rooms", json={"opponent": opponent, "pace": pace, **more})
    assert made.status_code == 201, made.text
    body: Json = made.json()
    return body


def cookie(*seats: tuple[str, str]) -> dict[str, str]:
    """The Cookie header of a browser holding these (room id, token) seats."""
    return {"cookie": "; ".join(f"piquet_seat_{room}={token}" for room, token in seats)}


def slow_pair(client: TestClient) -> tuple[str, list[SeatSocket]]:
    """A slow friend's table, both seats taken and connected: its id and [maker, friend]."""
    made = make(client)
    room_id = made["room_id"]
    seats = [SeatSocket(client, room_id, made["token"]),
             SeatSocket(client, room_id, join(client, room_id)["token"])]
    for seat in seats:
        seat.connect()
    return room_id, seats


def mine(client: TestClient, room_id: str, token: str) -> Any:
    return client.get(f"/api/rooms/{room_id}/mine", headers=cookie((room_id, token)))


def leave(client: TestClient, room_id: str, token: str | None) -> Any:
    return client.post(f"/api/rooms/{room_id}/leave", headers=cookie((room_id, token or "")))


def cleared(response: Any, room_id: str) -> bool:
    """The answer clears the browser's seat cookie for this table."""
    return any(h.startswith(f"piquet_seat_{room_id}=") and "Max-Age=0" in h
               for h in response.headers.get_list("set-cookie"))


# --- the pace ---------------------------------------------------------------------------


def test_the_pace_is_one_of_the_room_s_options_kept_as_json() -> None:
    slow = RoomOptions(opponent="friend", pace="slow")
    assert slow.to_json()["pace"] == "slow" and slow.slow
    assert RoomOptions.from_json(slow.to_json()) == slow
    assert "pace" not in RoomOptions().to_json()  # "Play now", as every table was
    assert RoomOptions.from_json({"opponent": "computer"}).pace == "now"
    assert slow.with_computer("good").pace == "slow"  # the friend's seat to the computer
    with pytest.raises(ValueError, match="own pace"):
        RoomOptions(pace="later")  # type: ignore[arg-type]


def test_a_table_made_to_take_your_time_says_so_to_players_and_watchers(
        client: TestClient) -> None:
    room_id, seats = slow_pair(client)
    watcher = SeatSocket(client, room_id, None, watch=True)
    for sock in [*seats, watcher]:
        assert (sock.state if sock.state else sock.connect())["room"]["pace"] == "slow"
    assert room_of(client, room_id).options.pace == "slow"
    quick = make(client, pace="now")
    assert SeatSocket(client, quick["room_id"], quick["token"]).connect()["room"]["pace"] == "now"
    # The lobby's form: the same choice; anything else is refused, and nothing is made.
    form = client.post("/rooms", data={"opponent": "computer", "level": "good",
                                       "pace": "slow"}, follow_redirects=False)
    assert form.status_code == 303
    made = room_of(client, form.headers["location"].rsplit("/", 1)[1])
    assert made.options.pace == "slow" and made.level == "good"
    before = len(client.app.state.rooms)  # type: ignore[attr-defined]
    refused = client.post("/rooms", data={"opponent": "friend", "pace": "tomorrow"})
    assert refused.status_code == 400 and "take your time" in refused.text
    assert client.post("/api/rooms", json={"opponent": "friend", "pace": 1}).status_code == 422
    assert len(client.app.state.rooms) == before  # type: ignore[attr-defined]


def test_the_computer_at_a_slow_table_answers_at_its_usual_pace(client: TestClient) -> None:
    made = make(client, "computer")
    human = SeatSocket(client, made["room_id"], made["token"])
    human.connect()
    room = room_of(client, made["room_id"])
    assert room.computer is not None and room.computer.pace is room.setup.computer_pace
    play_computer_partie(human, random.Random(5), until=lambda v: v["phase"] == "play")
    computer_done(human, room)  # it moved by itself, without waiting for a day
    assert human.view["phase"] == "play"


# --- kept for days ------------------------------------------------------------------------


def test_a_slow_table_is_not_swept_after_hours_but_after_its_days(
        templates_dir: Path) -> None:
    clock = FakeClock()
    with serve(templates_dir, clock=clock, policy=first_legal, room_idle_seconds=2 * HOUR,
               slow_room_days=30) as client:
        rooms = client.app.state.rooms  # type: ignore[attr-defined]
        slow_id, slow = slow_pair(client)
        one_move(slow, random.Random(1))
        quick = make(client, pace="now")
        never = make(client)  # a slow table the friend has not come to yet
        for sock in slow:
            sock.close()
        clock.advance(2 * HOUR + 1)
        client.portal.call(rooms.sweep)  # type: ignore[union-attr]
        assert rooms.get(quick["room_id"]) is None  # a table played now: gone
        assert rooms.get(slow_id) is not None and rooms.get(never["room_id"]) is not None
        clock.advance(29 * DAY)
        client.portal.call(rooms.sweep)  # type: ignore[union-attr]
        assert rooms.get(slow_id) is not None
        clock.advance(DAY)  # 30 days and two hours without a move
        client.portal.call(rooms.sweep)  # type: ignore[union-attr]
        assert rooms.get(slow_id) is None and rooms.get(never["room_id"]) is None
        assert client.get(f"/r/{slow_id}").status_code == 404


def test_an_abandoned_slow_partie_closes_as_any_table_does(templates_dir: Path) -> None:
    clock = FakeClock()
    with serve(templates_dir, clock=clock, policy=first_legal,
               room_idle_seconds=2 * HOUR) as client:
        rooms = client.app.state.rooms  # type: ignore[attr-defined]
        room_id, seats = slow_pair(client)
        left = leave(client, room_id, seats[1].token)
        assert left.json() == {"left": "abandoned"}
        clock.advance(2 * HOUR + 1)
        client.portal.call(rooms.sweep)  # type: ignore[union-attr]
        assert rooms.get(room_id) is None


@pytest.fixture(params=["memory", "sqlite"])
def kept(request: pytest.FixtureRequest, tmp_path: Path) -> RoomStore:
    """A store for the app: in memory, or a SQLite file (its rooms kept as the settings
    would keep them: a slow table's for its days)."""
    if request.param == "memory":
        return MemoryStore()
    return SQLiteStore(tmp_path / "piquet.db", ttl_seconds=2 * HOUR + 120,
                       slow_ttl_seconds=30 * DAY + 120)


def moved_back(store: RoomStore, room_id: str, seconds: float) -> None:
    """The store's record of the room's last write, `seconds` earlier (time gone by)."""
    if isinstance(store, MemoryStore):
        store.rooms[room_id].moved_at -= seconds
        return
    assert isinstance(store, SQLiteStore)
    with contextlib.closing(sqlite3.connect(store.path, timeout=10)) as conn, conn:
        conn.execute("UPDATE rooms SET moved = moved - ? WHERE id = ?", (seconds, room_id))


def test_with_a_store_a_slow_table_rests_there_and_comes_back_on_first_use(
        templates_dir: Path, kept: RoomStore) -> None:
    """Nobody has it open for the idle time: it leaves memory, not the store; the next
    visit loads it as it was, and "My tables" still counts from its last move."""
    clock = FakeClock()
    store = kept
    with serve(templates_dir, clock=clock, policy=first_legal, store=store,
               room_idle_seconds=2 * HOUR) as client:
        rooms = client.app.state.rooms  # type: ignore[attr-defined]
        room_id, seats = slow_pair(client)
        one_move(seats, random.Random(2))
        before = [s.view for s in seats]
        tokens = [s.token or "" for s in seats]
        for sock in seats:
            sock.close()
        clock.advance(2 * HOUR + 1)
        assert client.portal.call(rooms.sweep) == 0  # type: ignore[union-attr]
        assert rooms.get(room_id) is None
        assert client.portal.call(store.load, room_id) is not None  # type: ignore[union-attr]
        moved_back(store, room_id, 3 * HOUR)  # its last move, three hours ago
        back = [SeatSocket(client, room_id, t).connect()["view"] for t in tokens]
        for was, now in zip(before, back, strict=True):
            assert (now["hand"], now["scores"], now["legal"]) == (
                was["hand"], was["scores"], was["legal"])
        assert mine(client, room_id, tokens[0]).json()["since"] >= 3 * HOUR


def test_in_memory_alone_a_slow_table_stays_there(templates_dir: Path) -> None:
    clock = FakeClock()
    with serve(templates_dir, clock=clock, room_idle_seconds=2 * HOUR) as client:
        rooms = client.app.state.rooms  # type: ignore[attr-defined]
        room_id, seats = slow_pair(client)
        for sock in seats:
            sock.close()
        clock.advance(5 * DAY)
        client.portal.call(rooms.sweep)  # type: ignore[union-attr]
        assert rooms.get(room_id) is not None


# --- My tables ------------------------------------------------------------------------


def test_my_tables_lists_this_browser_s_seats_with_whose_move_it_is(
        client: TestClient) -> None:
    room_id, seats = slow_pair(client)
    # Whoever is to move (the cut: either may; then each in turn): one at a time here.
    one_move(seats, random.Random(3))
    state = room_of(client, room_id).state
    to_move = state.to_move
    assert to_move in (0, 1)
    lines = [mine(client, room_id, s.token or "").json() for s in seats]
    assert [line["your_move"] for line in lines] == [to_move == 0, to_move == 1]
    maker, friend = lines
    assert maker["seat"] == 0 and friend["seat"] == 1
    assert maker["opponent_name"] == room_of(client, room_id).options.names[1]
    assert friend["opponent_name"] == room_of(client, room_id).options.names[0]
    assert maker["pace"] == "slow" and maker["url"] == f"/r/{room_id}"
    assert maker["scores"] == [0, 0] and maker["deal"] == 1 and maker["since"] >= 0
    assert "hand" not in maker and not maker["over"] and not maker["waiting"]
    # A computer table: its level is its opponent's.
    table = make(client, "computer", level="good", pace="now")
    line = mine(client, table["room_id"], table["token"]).json()
    assert (line["opponent"], line["opponent_name"], line["level"]) == (
        "computer", "Computer", "good")
    # The list of tables is the browser's cookies, newest last as a browser sends them.
    ids = client.get("/api/my-tables", headers=cookie(
        (room_id, seats[0].token or ""), (table["room_id"], table["token"]))).json()
    assert ids == {"rooms": [table["room_id"], room_id]}


def test_my_tables_never_shows_another_s_table_from_a_forged_cookie(
        client: TestClient) -> None:
    room_id, _ = slow_pair(client)
    other = make(client)
    for forged in ("x" * 32, other["token"]):  # a made-up token; a seat of another table
        answer = mine(client, room_id, forged)
        assert answer.json() == {"room_id": room_id, "gone": True}  # as if it had closed
        assert cleared(answer, room_id)
        assert leave(client, room_id, forged).status_code == 404
    assert room_of(client, room_id).state.result is None  # nobody left
    gone = mine(client, "NoSuchTable12345", "x" * 32)
    assert gone.json()["gone"] and cleared(gone, "NoSuchTable12345")
    assert mine(client, "not a room!", "x").status_code == 404


def test_my_tables_reads_a_sane_number_of_cookies() -> None:
    from app.my_tables import MAX_MY_TABLES, my_room_ids

    cookies = {f"piquet_seat_room{n:04d}xxxxxxxx": "t" for n in range(MAX_MY_TABLES + 30)}
    cookies |= {"piquet_seat_bad id!": "t", "piquet_name": "Alice", "piquet_seat_empty": ""}
    cookies["__Host-piquet_seat_room0049xxxxxxxx"] = "t"  # the same table over https: once
    ids = my_room_ids(cookies)
    assert len(ids) == MAX_MY_TABLES and ids[0] == "room0049xxxxxxxx" and len(set(ids)) == len(ids)
    assert "bad id!" not in ids and "empty" not in ids


def test_leaving_a_friend_s_table_ends_the_partie_abandoned_and_tells_the_other(
        client: TestClient) -> None:
    room_id, seats = slow_pair(client)
    one_move(seats, random.Random(4))
    friend = seats[1]
    left = leave(client, room_id, friend.token)
    assert left.status_code == 200 and left.json() == {"left": "abandoned"}
    assert cleared(left, room_id)
    told = seats[0].expect("state")
    assert told["view"]["phase"] == "partie_over"
    assert told["view"]["result"]["abandoned"] == 1 and told["view"]["result"]["winner"] == 0
    line = mine(client, room_id, seats[0].token or "").json()
    assert line["over"] and line["won"] and line["abandoned_by"] == "opponent"
    assert not line["your_move"]
    # Leaving again, now the partie is over: nothing more to end.
    assert leave(client, room_id, seats[0].token).json() == {"left": "left"}


def test_leaving_a_computer_table_or_one_nobody_joined_closes_it(client: TestClient) -> None:
    rooms = client.app.state.rooms  # type: ignore[attr-defined]
    lobby = LobbyWatch(client)
    waiting = make(client, "friend", seating="open")
    lobby.until(lambda w: waiting["room_id"] in w.open)
    for table in (make(client, "computer"), make(client, "friend", pace="now"), waiting):
        room_id = table["room_id"]
        sock = SeatSocket(client, room_id, table["token"])
        sock.connect()
        left = leave(client, room_id, table["token"])
        assert left.json() == {"left": "closed"} and cleared(left, room_id)
        assert sock.expect_closed()[0] == 4410
        assert rooms.get(room_id) is None
        assert mine(client, room_id, table["token"]).json()["gone"]
    lobby.until(lambda w: waiting["room_id"] not in w.open)  # it left the lobby's list
