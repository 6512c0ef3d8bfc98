"""The lobby (issue 37): open tables listed, newest first, with the maker's name, the
rules and how long they waited; gone the moment the second seat is taken, the maker takes
them out, or they waited too long (the maker told); the quick game; the tables being
played that anyone may watch; and nothing of a hand, a token or a link table told."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

from lobbykit import Browser, LobbyWatch
from tablekit import FakeClock, SeatSocket, TestClient, one_move, room_of, serve

from app.connection import Connection
from app.lobby import Lobby
from app.lobby_store import MemoryLobby, OpenTable
from app.store import MemoryStore

AU_CENT = {"game": "au_cent", "cards_towards_pique": False, "carte_rouge": False}


def open_table(browser: Browser, **more: object) -> dict[str, str]:
    answer = browser.post("/api/rooms", json={"opponent": "friend", "seating": "open", **more})
    assert answer.status_code == 201, answer.text
    made: dict[str, str] = answer.json()
    browser.keep(made)
    return made


def test_an_open_table_is_listed_with_its_makers_name_rules_and_wait(client: TestClient) -> None:
    watch = LobbyWatch(client)
    assert watch.open == {} and watch.playing == {}
    alice = Browser(client, "Alice")
    first = open_table(alice)
    second = open_table(Browser(client, "Carol"), rules=AU_CENT, practice=True)
    linked = alice.post("/api/rooms", json={"opponent": "friend", "watching": True}).json()
    watch.until(lambda w: second["room_id"] in w.open and first["room_id"] in w.open)
    table = watch.open[second["room_id"]]
    assert set(table) == {"room_id", "name", "rules", "practice", "waited"}
    assert (table["name"], table["rules"]["game"], table["practice"]) == ("Carol", "au_cent", True)
    assert watch.open[first["room_id"]]["name"] == "Alice"
    assert 0 <= table["waited"] < 60
    # A new watcher gets the whole list, newest first; a link table is never in it.
    late = LobbyWatch(client)
    assert [t["room_id"] for t in late.messages[0]["open"]] == [second["room_id"],
                                                               first["room_id"]]
    assert linked["room_id"] not in late.text() + watch.text()


def test_a_table_leaves_the_list_when_its_second_seat_is_taken(client: TestClient) -> None:
    watch = LobbyWatch(client)
    made = open_table(Browser(client, "Alice"))
    watch.until(lambda w: made["room_id"] in w.open)
    bob = Browser(client, "Bob")
    sat = bob.post(f"/r/{made['room_id']}/seat")
    assert sat.status_code == 200 and sat.json() == {"seat": 1}
    watch.until(lambda w: made["room_id"] not in w.open)
    # Now it is played, and anyone may watch it: listed with both names.
    watch.until(lambda w: made["room_id"] in w.playing)
    playing = watch.playing[made["room_id"]]
    assert playing["names"] == ["Alice", "Bob"] and playing["scores"] == [0, 0]
    # A third visitor finds the table full: it watches.
    late = Browser(client, "Carol").post(f"/r/{made['room_id']}/seat")
    assert late.status_code == 409


def test_its_maker_takes_it_out_lists_it_again_and_is_told(client: TestClient) -> None:
    watch = LobbyWatch(client)
    alice = Browser(client, "Alice")
    made = open_table(alice)
    room_id = made["room_id"]
    page = alice.socket(room_id)
    assert page.connect()["room"]["listing"] == "listed"
    assert page.state["room"]["seating"] == "open"
    # Nobody else may take it out.
    stranger = Browser(client, "Mallory").post(f"/r/{room_id}/listing", json={"listed": False})
    assert stranger.status_code == 409
    out = alice.post(f"/r/{room_id}/listing", json={"listed": False})
    assert out.json() == {"listing": "unlisted"}
    watch.until(lambda w: room_id not in w.open)
    assert page.expect("state")["room"]["listing"] == "unlisted"
    # Not listed: the quick game finds nothing of it.
    bob = Browser(client, "Bob")
    assert bob.quick()["room_id"] != room_id
    back = alice.post(f"/r/{room_id}/listing", json={"listed": True})
    assert back.json() == {"listing": "listed"}
    watch.until(lambda w: room_id in w.open)
    assert page.expect("state")["room"]["listing"] == "listed"


def test_a_table_waiting_too_long_leaves_the_list_and_its_maker_is_told(
    templates_dir: Path,
) -> None:
    with serve(templates_dir, open_table_seconds=0.3) as client:
        watch = LobbyWatch(client)
        alice = Browser(client, "Alice")
        made = open_table(alice)
        page = alice.socket(made["room_id"])
        page.connect()
        watch.until(lambda w: made["room_id"] in w.open)
        watch.until(lambda w: made["room_id"] not in w.open)
        while page.state["room"]["listing"] != "expired":
            page.expect("state")
        # The maker may wait again (or play the computer: the seat is still free).
        assert room_of(client, made["room_id"]).has_free_seat()
        again = alice.post(f"/r/{made['room_id']}/listing", json={"listed": True})
        assert again.json() == {"listing": "listed"}
        watch.until(lambda w: made["room_id"] in w.open)


def test_an_open_table_loaded_from_the_store_tells_its_maker_where_it_stands(
    templates_dir: Path,
) -> None:
    """A table loaded from the store by a process whose lobby does not list it (another
    process had it, or a restart in memory): its maker's page is told it is not in the
    lobby, with the offer to list it again, and it counts from then before it closes
    unused, however long it waited before."""
    store = MemoryStore()
    with serve(templates_dir, store=store) as client:
        alice = Browser(client, "Alice")
        made = open_table(alice)
    store.rooms[made["room_id"]].moved_at -= 500  # made (and listed) 500 s ago
    clock = FakeClock()
    with serve(templates_dir, store=store, clock=clock, room_unused_seconds=600) as client:
        alice.client = client
        page = alice.socket(made["room_id"])
        assert page.connect()["room"]["listing"] == "unlisted"
        clock.advance(200)
        client.portal.call(client.app.state.rooms.sweep)  # type: ignore[attr-defined]
        assert room_of(client, made["room_id"]).has_free_seat()  # still open to list again
        again = alice.post(f"/r/{made['room_id']}/listing", json={"listed": True})
        assert again.json() == {"listing": "listed"}


def test_quick_game_pairs_two_browsers_and_never_a_browser_with_itself(
    client: TestClient,
) -> None:
    alice, bob = Browser(client, "Alice"), Browser(client, "Bob")
    waiting = alice.quick()
    assert waiting["waiting"] and waiting["seat"] == 0
    # Alice again (another tab): the same table, not a second one, not against herself.
    again = alice.quick()
    assert again["room_id"] == waiting["room_id"] and again["token"] is None
    paired = bob.quick()
    assert paired["room_id"] == waiting["room_id"]
    assert (paired["seat"], paired["waiting"]) == (1, False)
    room = room_of(client, waiting["room_id"])
    assert room.options.names == ("Alice", "Bob") and not room.has_free_seat()
    # Other rules: another queue.
    carol = Browser(client, "Carol").quick(rules=AU_CENT)
    assert carol["waiting"] and carol["room_id"] != waiting["room_id"]
    dave = Browser(client, "Dave").quick()
    assert dave["waiting"]  # nothing of Rubicon's rules waited: he waits
    assert Browser(client).quick(rules=AU_CENT)["room_id"] == carol["room_id"]


def test_quick_game_refuses_a_name_like_the_waiting_players(client: TestClient) -> None:
    Browser(client, "Alice").quick()
    refused = Browser(client, "ALICE").post("/api/lobby/quick", json={})
    assert refused.status_code == 422 and "“Alice”" in refused.json()["detail"]


def test_one_address_holds_three_open_tables_at_most(client: TestClient) -> None:
    players = [Browser(client, f"Player {n}") for n in range(3)]
    made = [open_table(player) for player in players]
    fourth = Browser(client, "Player 3").post(
        "/api/rooms", json={"opponent": "friend", "seating": "open"})
    assert fourth.status_code == 429 and "3 tables" in fourth.json()["detail"]
    quick = Browser(client, "Player 4").post("/api/lobby/quick", json={"rules": AU_CENT})
    assert quick.status_code == 429
    assert len(client.app.state.lobby.open) == 3  # type: ignore[attr-defined]
    # Taking one out of the list makes room for another.
    players[0].post(f"/r/{made[0]['room_id']}/listing", json={"listed": False})
    assert Browser(client, "Player 4").post(
        "/api/lobby/quick", json={"rules": AU_CENT}).status_code == 200


def test_listing_and_the_quick_game_draw_on_the_addresss_allowance(
    templates_dir: Path,
) -> None:
    with serve(templates_dir, rooms_burst=3, rooms_per_minute=0.001) as client:
        alice = Browser(client, "Alice")
        made = open_table(alice)
        assert alice.post(f"/r/{made['room_id']}/listing",
                          json={"listed": False}).status_code == 200
        assert Browser(client, "Bob").post("/api/lobby/quick", json={}).status_code == 200
        assert Browser(client, "Carol").post("/api/lobby/quick", json={}).status_code == 429
        assert alice.post(f"/r/{made['room_id']}/listing",
                          json={"listed": True}).status_code == 429


CARD = re.compile(r'"(?:10|[AKQJ987])[SHDC]"')


def test_the_lobby_tells_nothing_of_a_hand_a_token_or_a_link_table(client: TestClient) -> None:
    watch = LobbyWatch(client)
    alice, bob = Browser(client, "Alice"), Browser(client, "Bob")
    made = open_table(alice)
    bob.post(f"/r/{made['room_id']}/seat")
    secret_friend = alice.post("/api/rooms", json={"opponent": "friend"}).json()
    secret_computer = alice.post("/api/rooms", json={"opponent": "computer"}).json()
    seats = [alice.socket(made["room_id"]), bob.socket(made["room_id"])]
    for seat in seats:
        seat.connect()
    rng = random.Random(7)
    while seats[0].view["phase"] != "deal_over":  # a whole deal, its hands and discards
        one_move(seats, rng)
    watch.until(lambda w: w.playing.get(made["room_id"], {}).get("deal") == 1)
    text = watch.text()
    tokens = [made["token"], secret_friend["token"], secret_computer["token"],
              *(v for b in (alice, bob) for k, v in b.jar.items() if k != "piquet_name")]
    assert not any(token in text for token in tokens)
    assert secret_friend["room_id"] not in text and secret_computer["room_id"] not in text
    assert not CARD.search(text), CARD.search(text)
    assert "testclient" not in text and "visitor" not in text and "address" not in text


def strangers_at_a_table(client: TestClient
                         ) -> tuple[Browser, Browser, str, SeatSocket, SeatSocket]:
    """Alice and Bob paired by a quick game, both pages open: the browsers, the table,
    Alice's socket (seat 0) and Bob's (seat 1)."""
    alice, bob = Browser(client, "Alice"), Browser(client, "Bob")
    room_id = alice.quick()["room_id"]
    assert bob.quick()["room_id"] == room_id
    maker, stranger = alice.socket(room_id), bob.socket(room_id)
    maker.connect()
    stranger.connect()
    return alice, bob, room_id, maker, stranger


def test_a_stranger_away_a_minute_may_be_given_to_the_computer(templates_dir: Path) -> None:
    clock = FakeClock()
    with serve(templates_dir, clock=clock) as client:
        alice, bob, room_id, maker, stranger = strangers_at_a_table(client)
        maker.close()  # Alice leaves (seat 0): Bob, seat 1, is left
        away = stranger.expect("presence")["seats"][0]
        assert away["connected"] is False and away["away"] == 0
        clock.advance(59)
        give = {"type": "computer_seat", "version": stranger.version, "id": "b1",
                "level": "good"}
        stranger.send(give)
        assert "away a minute" in stranger.refused("not_allowed")["message"]
        clock.advance(2)
        stranger.send({**give, "id": "b2", "version": stranger.version})
        code, _ = stranger.expect_closed()  # Bob's seat moved: he reconnects
        assert code == 1012
        back = bob.socket(room_id)
        state = back.connect()
        assert state["room"]["seat"] == 0 and state["room"]["opponent"] == "computer"
        assert state["room"]["level"] == "good"
        assert state["room"]["notice"] == "Alice was away, so their seat went to the computer."
        assert [s["name"] for s in state["room"]["seats"]] == ["You", "Computer"]
        # Alice, back, holds no seat (her socket is refused; her page watches).
        gone = alice.socket(room_id)
        gone.open()
        assert gone.expect_closed()[0] == 4401


def test_after_three_minutes_the_partie_ends_abandoned_by_the_absent_seat(
    templates_dir: Path,
) -> None:
    clock = FakeClock()
    with serve(templates_dir, clock=clock) as client:
        _, bob, room_id, maker, stranger = strangers_at_a_table(client)
        stranger.close()  # Bob (seat 1) leaves
        clock.advance(179)
        ask = {"type": "abandon", "version": maker.version, "id": "a1"}
        maker.send(ask)
        assert "three minutes" in maker.refused("not_allowed")["message"]
        clock.advance(2)
        maker.send({**ask, "id": "a2", "version": maker.version})
        over = maker.expect("state")
        assert over["view"]["phase"] == "partie_over"
        assert over["view"]["result"]["abandoned"] == 1 and over["view"]["result"]["winner"] == 0
        # Bob, back, is told: the partie ended, abandoned by him.
        back = bob.socket(room_id).connect()
        assert back["view"]["result"]["abandoned"] == 1 and back["room"]["seat"] == 1
        assert back["view"]["phase"] == "partie_over"


def test_a_friends_table_may_not_be_ended_for_absence(templates_dir: Path) -> None:
    clock = FakeClock()
    with serve(templates_dir, clock=clock) as client:
        made = client.post("/api/rooms", json={"opponent": "friend"}).json()
        client.post(f"/api/rooms/{made['room_id']}/join")
        maker = SeatSocket(client, made["room_id"], made["token"])
        maker.connect()
        clock.advance(3600)
        maker.send({"type": "abandon", "version": maker.version, "id": "a1"})
        maker.refused("not_allowed")
        maker.send({"type": "computer_seat", "version": maker.version, "id": "a2"})
        maker.refused("not_allowed")


class Watcher:
    """A lobby socket as the lobby sees one: frames queued for it."""

    def __init__(self) -> None:
        self.sent: list[dict[str, object]] = []

    def send(self, text: str) -> bool:
        self.sent.append(json.loads(text))
        return True


def test_many_changes_at_once_make_one_message_to_each_watcher() -> None:
    """Forty tables listed in one go (no pause between: as many requests landing within
    the coalescing window) reach each of 250 watchers as one message, after the lists
    each was sent on arriving."""

    async def scenario() -> list[Watcher]:
        store = MemoryLobby()
        lobby = Lobby(store, open_seconds=900, open_per_address=100, coalesce=0.05)
        running = asyncio.create_task(lobby.run())
        await asyncio.sleep(0)
        watchers = [Watcher() for _ in range(250)]
        for watcher in watchers:
            lobby.watch(watcher)  # type: ignore[arg-type]
        for n in range(40):
            await store.put(OpenTable(f"table-{n:010d}", f"Player {n}", {}, False, n,
                                      address=f"10.0.0.{n}"), 3)
        for _ in range(200):
            if all(len(w.sent) == 2 for w in watchers):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)  # and nothing more comes
        running.cancel()
        return watchers

    watchers = asyncio.run(scenario())
    for watcher in watchers:
        assert [m["reset"] for m in watcher.sent] == [True, False]
        news = watcher.sent[1]["open"]
        assert isinstance(news, list) and len(news) == 40
        assert [t["name"] for t in news][:2] == ["Player 39", "Player 38"]  # newest first


class Reader:
    """A client that reads every frame, and answers a ping (as the pages do)."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.closes: list[int] = []
        self.conn: Connection | None = None

    async def send_text(self, text: str) -> None:
        self.frames.append(text)
        if '"ping"' in text and self.conn is not None:
            self.conn.heard()  # its pong

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closes.append(code)


def test_a_socket_told_of_changes_all_the_time_is_still_asked_whether_it_is_alive() -> None:
    """A lobby watcher (or a busy table's) is sent something every moment and sends
    nothing itself: it is pinged all the same, and kept while it answers (it was never
    pinged, and was closed as silent after three intervals)."""

    async def scenario() -> Reader:
        client = Reader()
        conn = client.conn = Connection(client, "lobby", -1, queue_size=64,  # type: ignore[arg-type]
                                        ping_interval=0.05)
        conn.start()
        for _ in range(60):  # 0.6 s: twelve intervals, a change every 10 ms
            conn.send('{"type": "lobby"}')
            await asyncio.sleep(0.01)
        await conn.stop()
        return client

    client = asyncio.run(scenario())
    assert '{"type":"ping"}' in client.frames and client.closes == []
