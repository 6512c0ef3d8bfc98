"""Watchers as an attacker uses them (issue 25): a watcher's message allowance renewed with
every socket (reconnecting after each close got thousands of refused messages a second
answered, each with an error and a full public state); watchers opened and closed in a
loop sent each seated player hundreds of presence frames a second; and one address could
take every watcher slot of a table."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from tablekit import SeatSocket, TestClient, friend_seats, serve

import app.seating
from app.protocol import CLOSE_POLICY
from app.seating import MAX_WATCHERS


def from_address(client: TestClient, host: str) -> TestClient:
    """Another client of the same app, from `host` (SeatSocket needs its `sockets`)."""
    other = TestClient(client.app, client=(host, 40000))
    other.sockets = client.sockets  # type: ignore[attr-defined]  # (closed at the end)
    return other


def flood(sock: SeatSocket, rounds: int, per_round: int, message: dict[str, Any]) -> int:
    """Open, send `per_round` messages, wait for the close, again and again: the frames
    that answered (pongs, or errors and states)."""
    answered = 0
    for _ in range(rounds):
        sock.open()
        for _ in range(per_round):
            sock.send(message)
        try:
            sock.expect_closed(timeout=5)
        except TimeoutError:
            pytest.fail("the socket was not closed for its flood")
        answered += sum(1 for f in sock.frames if f["type"] in ("pong", "error"))
        sock.frames.clear()
        sock.close()
    return answered


# --- a watcher's allowance holds across reconnects ------------------------------------------


@pytest.mark.parametrize("message", [{"type": "ping"},
                                     {"type": "new_match", "version": 1, "id": "x"}])
def test_a_watchers_message_limit_holds_across_reconnects(
    templates_dir: Path, message: dict[str, Any]
) -> None:
    with serve(templates_dir, rate_limit_per_second=2, rate_limit_burst=10) as client:
        room_id, a, b = friend_seats(client)
        a.connect()
        b.connect()
        watcher = SeatSocket(client, room_id, None, watch=True)
        start = time.monotonic()
        answered = flood(watcher, 8, 12, message)
        elapsed = time.monotonic() - start
        # One bucket for this address at this table: every socket and message drew on it.
        assert answered <= 10 + 2 * elapsed, (answered, elapsed)


def test_a_watchers_limit_holds_across_tables(templates_dir: Path) -> None:
    """Hopping from table to table finds no fresh allowance either: one bucket per address
    across every table (each table's own allows more than this flood takes)."""
    with serve(templates_dir, rate_limit_per_second=2, rate_limit_burst=10) as client:
        rooms = [friend_seats(client)[0] for _ in range(8)]
        start = time.monotonic()
        answered = 0
        for room_id in rooms:
            answered += flood(SeatSocket(client, room_id, None, watch=True), 1, 12,
                              {"type": "ping"})
        elapsed = time.monotonic() - start
        assert answered <= 10 + 2 * elapsed, (answered, elapsed)


def test_another_address_has_its_own_allowance(templates_dir: Path) -> None:
    with serve(templates_dir, rate_limit_per_second=2, rate_limit_burst=10) as client:
        room_id = friend_seats(client)[0]
        watcher = SeatSocket(client, room_id, None, watch=True)
        flood(watcher, 3, 12, {"type": "ping"})
        other = SeatSocket(from_address(client, "198.51.100.9"), room_id, None, watch=True)
        other.connect()
        other.send({"type": "ping"})
        assert other.expect("pong")["type"] == "pong"


# --- presence is coalesced -------------------------------------------------------------------


def test_watchers_opened_and_closed_in_a_loop_send_the_players_few_presence_frames(
    templates_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each open and close of a watching socket is a presence change; the seats get at
    most one presence frame per PRESENCE_DELAY, carrying the count as it is then, and the
    last one tells the truth."""
    with serve(templates_dir) as client:
        room_id, a, b = friend_seats(client)
        a.connect()
        b.connect()
        a.barrier()
        b.barrier()
        a.frames.clear()
        start = time.monotonic()
        cycles = 60
        for _ in range(cycles):
            watcher = SeatSocket(client, room_id, None, watch=True)
            watcher.connect()
            watcher.close()
        elapsed = time.monotonic() - start
        last = a.expect("presence")
        while last["watchers"] != 0:
            last = a.expect("presence")
        a.barrier()
        presences = [f for f in a.frames if f["type"] == "presence"]
        delay = app.seating.PRESENCE_DELAY
        assert 0 < delay <= 0.5
        # Uncoalesced: two frames a cycle (120). Coalesced: one per window at most, and
        # the windows are counted from the time the loop took (a slow machine, more).
        assert len(presences) <= elapsed / delay + 2, (len(presences), elapsed)
        assert presences[-1]["watchers"] == 0
        assert [s["connected"] for s in presences[-1]["seats"]] == [True, True]


def test_a_presence_change_reaches_the_other_seat(client: TestClient) -> None:
    _, a, b = friend_seats(client)
    a.connect()
    b.connect()
    assert a.expect("presence")["seats"][1]["connected"] is True
    b.close()
    assert a.expect("presence")["seats"][1]["connected"] is False


# --- one address holds a few of a table's watcher slots ------------------------------------------


def test_one_address_cannot_hold_every_watcher_slot(templates_dir: Path) -> None:
    with serve(templates_dir, max_watchers_per_address=4) as client:
        room_id = friend_seats(client)[0]
        mine = [SeatSocket(client, room_id, None, watch=True) for _ in range(4)]
        for w in mine:
            w.connect()
        extra = SeatSocket(client, room_id, None, watch=True)
        extra.open()
        code, reason = extra.expect_closed()
        assert code == CLOSE_POLICY and "watching" in reason
        # Others still find room to watch; and once one of mine closes, I may open one.
        for n in range(MAX_WATCHERS - 4):
            SeatSocket(from_address(client, f"198.51.100.{n + 1}"), room_id, None,
                       watch=True).connect()
        mine[0].close()
        again = SeatSocket(client, room_id, None, watch=True)
        assert again.connect()["room"]["seat"] is None
