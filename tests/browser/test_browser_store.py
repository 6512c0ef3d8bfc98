"""What the page says when the table's store is slow, lost a move (issue 24) or has no
room left on its disk (issue 36): a real Chromium, `python -m app` keeping rooms in a
real Redis that the test pauses, a server killed with the store behind what the page
was shown, and a SQLite file on a small file system filled up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browserkit import ROOT_JS, Seat, TableError, phase_is, start_table

import tests.disk
from app.redis_scripts import actions_key, room_key
from app.room import CANNOT_SAVE as CANNOT_SAVE_TEXT
from tests.cluster import App, Redis

WAITING = "Waiting for the table's store to answer"

CANNOT_SAVE = CANNOT_SAVE_TEXT.english  # as the seats are told it: in English


def my_card_to_play(seat: Seat) -> None:
    """Played on until a card of the hand may be played: in the tricks younger's first
    turn is her declarations, where no card is playable yet."""
    seat.play_until(lambda a: a.get("phase") == "play" and a.get("myTurn") == "true"
                    and seat.page.locator("#hand .playable").count() > 0)


def test_a_slow_store_is_told_and_the_move_lands_when_it_answers(
    open_seat, tmp_path: Path
) -> None:
    """Redis paused as the person plays a card: the move is not shown as made (it is not
    stored yet), the table says it waits for its store, and once Redis answers the move
    lands, the note goes and the computer plays on."""
    redis = Redis(tmp_path / "redis").start()
    app = App(tmp_path / "app.log", redis.url, PIQUET_REDIS_TIMEOUT="0.5").start()
    seat: Seat | None = None
    try:
        seat = open_seat(base_url=app.http)
        start_table(seat)
        my_card_to_play(seat)
        before = seat.version()
        assert seat.table_note() == ""
        redis.pause()
        try:
            seat.page.locator("#hand [data-action]").first.click()
            seat.page.wait_for_function(
                f"() => [...document.querySelectorAll('#prompt .notice[role=status]')]"
                f".some(e => e.textContent.includes(\"{WAITING}\"))", timeout=15000)
            assert seat.version() == before  # nothing shown as done before it is kept
            assert seat.notice() == ""  # not a refusal
        finally:
            redis.resume()
        seat.page.wait_for_function(
            f"() => +{ROOT_JS}.dataset.version > {before} && "
            "!document.querySelector('#prompt .notice[role=status]')", timeout=30000)
        seat.play_until(lambda a: int(a.get("version", "0")) >= before + 4)
    finally:
        if seat is not None:
            seat.page.context.close()
        app.kill()
        redis.stop()


def test_a_move_the_store_lost_everywhere_is_told_and_the_deal_dealt_again(
    open_seat, watch, tmp_path: Path
) -> None:
    """The server is killed and the store has lost the last move the page was shown
    (Redis without fsync, killed too). The page comes back to a new server with its
    receipt for that version: the deal is dealt again, and the page says so, instead of
    a card it saw played being back in a hand."""
    watch.allow("console", "WebSocket connection to")  # the tries while no server is up
    redis = Redis(tmp_path / "redis").start()
    app = App(tmp_path / "app.log", redis.url).start()
    seat: Seat | None = None
    try:
        seat = open_seat(base_url=app.http)
        start_table(seat)
        seat.play_until(lambda a: a.get("phase") == "play" and len(seat.view()["tricks"]) >= 1)
        deal = seat.view()["deal_number"]
        room_id = seat.page.url.rsplit("/r/", 1)[1]
        app.kill()
        r = redis.client()
        version = int(r.hget(room_key(room_id), "version")) - 1  # the last write, lost
        r.rpop(actions_key(room_id))
        r.hset(room_key(room_id), mapping={"version": version, "write": "lost"})

        app = App(tmp_path / "app2.log", redis.url, port=app.port).start()
        seat.page.wait_for_function(
            "() => [...document.querySelectorAll('#prompt .notice[role=status]')]"
            ".some(e => e.textContent.includes('dealt again'))", timeout=30000)
        view = seat.view()
        assert view["deal_number"] == deal and view["tricks"] == []
        assert view["phase"] == "exchange" and len(seat.hand()) == 12
        seat.play_until(phase_is("declare", "play"))  # the deal dealt again plays on
    finally:
        if seat is not None:
            seat.page.context.close()
        app.kill()
        redis.stop()


small_disk = pytest.fixture(tests.disk.small_disk)


def said(seat: Seat, text: str) -> list[str]:
    """The roles of the notes under the prompt that say `text`."""
    roles: list[str] = seat.page.eval_on_selector_all(
        "#prompt .notice", f"els => els.filter(e => e.textContent.includes({text!r}))"
        ".map(e => e.getAttribute('role'))")
    return roles


def test_a_full_disk_is_said_once_to_each_seat(
    own_server, open_seat, small_disk: Path
) -> None:
    """The SQLite file's disk fills up mid-deal at a friend's table: the move that cannot
    be saved is refused, and each page says "The table cannot save" once: the mover's
    as its refusal, the other's as the table's news. Once there is room, the same move
    is made and the note goes."""
    base = own_server(PIQUET_STORE="sqlite", PIQUET_DATA_DIR=str(small_disk / "data"))
    maker = open_seat(base_url=base)
    start_table(maker, "friend")
    friend = open_seat(base_url=base)
    friend.page.goto(maker.page.locator("#invite-url").input_value())
    friend.wait_ready()
    seats = [maker, friend]
    ballast = tests.disk.fill(small_disk)
    mover = next(refused_mover(seats))
    other = friend if mover is maker else maker
    for seat in seats:  # (the refusal comes first, then the state saying so: both drawn)
        seat.page.wait_for_function(
            f"() => window.piquetTable.ui.lastState.room.notice === {CANNOT_SAVE!r}")
    assert said(mover, CANNOT_SAVE) == ["alert"]
    assert said(other, CANNOT_SAVE) == ["status"]
    ballast.unlink()
    before = mover.version()
    # The move again (its refusal still shown until it is made: Seat.act would stop at it).
    if mover.attrs().get("selecting") == "true":  # an exchange: its cards still chosen
        mover.page.click("[data-confirm-discard]")
    else:
        mover.page.locator(", ".join(f"#{where} [data-action]:not([data-type=see])"
                                     for where in ("hand", "actions"))).first.click()
    for seat in seats:
        seat.page.wait_for_function(f"() => +{ROOT_JS}.dataset.version > {before}")
        assert said(seat, CANNOT_SAVE) == []


def refused_mover(seats: list[Seat]) -> Iterator[Seat]:
    """Whoever may move, moves, until a move is refused: the seat whose move it was."""
    for _ in range(400):
        for seat in seats:
            try:
                seat.act()
            except TableError:
                yield seat
                return
        seats[0].page.wait_for_timeout(20)
    raise AssertionError("400 rounds of moves on a full disk and none refused")
