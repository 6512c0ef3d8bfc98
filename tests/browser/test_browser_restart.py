"""The page when the server goes away and comes back, and the closes after which the page
stops rather than reconnecting in a loop (4404, 4409, 4410; docs/protocol.md)."""

from __future__ import annotations

import re
import socket
from pathlib import Path

from browserkit import ROOT_JS, Seat, launch, phase_is, start_table
from playwright.sync_api import WebSocket

from tests.cluster import App, Nginx, Redis
from tests.serverproc import stop


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def count_sockets(seat: Seat) -> list[str]:
    """The WebSockets this page opens from now on."""
    opened: list[str] = []
    seat.page.on("websocket", lambda ws: opened.append(ws.url))
    return opened


def wait_connection(seat: Seat, status: str, timeout_s: float = 30) -> None:
    seat.page.wait_for_function(f"() => {ROOT_JS}.dataset.connection === '{status}'",
                                timeout=timeout_s * 1000)


def test_a_restart_shows_the_banner_then_says_the_table_is_gone(
    open_seat, watch, tmp_path: Path
) -> None:
    watch.allow("console", "WebSocket connection to")  # the tries while the server is down
    port = _free_port()
    log = tmp_path / "server.log"
    proc, base = launch("app", log, port=port, PIQUET_STORE="memory")
    try:
        seat = open_seat(base_url=base)
        start_table(seat)
        seat.play_until(phase_is("exchange", "declare", "play"))
        banner = seat.page.locator("#conn-banner")
        assert not banner.is_visible()
        opened = count_sockets(seat)

        stop(proc)  # SIGTERM: uvicorn closes the page's socket with 1012
        banner.wait_for(state="visible", timeout=10000)
        assert "Connection lost. Reconnecting" in banner.inner_text()
        assert seat.attrs()["connection"] == "lost"
        seat.page.wait_for_timeout(1500)  # a try or two against the stopped server

        # The same address, but rooms were in memory only.
        proc, _ = launch("app", log, port=port, PIQUET_STORE="memory")
        wait_connection(seat, "closed")
        text = banner.inner_text()
        assert "This table no longer exists" in text and "Reconnecting" not in text
        link = banner.locator("a.conn-action")
        assert link.get_attribute("href") == "/"
        assert link.inner_text() == "Start a new table"
        assert opened, "the page never tried to reconnect"
        tries = len(opened)
        seat.page.wait_for_timeout(3000)
        assert len(opened) == tries, "the page keeps reconnecting to a table that is gone"

        link.click()  # and the way on works
        seat.page.wait_for_url(f"{base}/")
        seat.page.click("button[data-opponent=computer]")
        seat.page.wait_for_url("**/r/**")
        seat.wait_ready()
        wait_connection(seat, "open")
        assert not banner.is_visible()
    finally:
        stop(proc)


def test_a_restart_keeps_the_table_and_the_deal_is_finished_in_the_same_page(
    open_seat, watch, tmp_path: Path
) -> None:
    """Rooms kept in a SQLite file, as `make run` keeps them: half a deal played against
    the computer, the server stopped (Ctrl+C) and started again on the same data
    directory. The page, never reloaded, reconnects by itself, shows the same hand at
    the same version, and the deal is played to its end."""
    watch.allow("console", "WebSocket connection to")  # the tries while the server is down
    port = _free_port()
    env = {"PIQUET_STORE": "sqlite", "PIQUET_DATA_DIR": str(tmp_path / "data")}
    proc, base = launch("app", tmp_path / "server.log", port=port, **env)
    try:
        seat = open_seat(base_url=base)
        start_table(seat)
        seat.play_until(lambda a: a.get("phase") == "play" and len(seat.view()["tricks"]) >= 6)
        version, hand = seat.version(), seat.view()["hand"]
        seat.page.evaluate("window.beforeTheRestart = true")
        opened = count_sockets(seat)
        seen = len(seat.states())

        stop(proc)  # as Ctrl+C does: the page's socket is closed with 1012
        banner = seat.page.locator("#conn-banner")
        banner.wait_for(state="visible", timeout=10000)
        proc, _ = launch("app", tmp_path / "server2.log", port=port, **env)
        wait_connection(seat, "open")
        assert opened, "the page never reconnected"
        for _ in range(300):  # its first state from the new server (the socket opens first)
            if len(seat.states()) > seen:
                break
            seat.page.wait_for_timeout(50)
        back = seat.states()[seen]  # the table as the new server loaded it
        assert back["version"] >= version  # (the computer may have moved at once)
        if back["version"] == version:
            assert back["view"]["hand"] == hand
        assert not banner.is_visible()
        seat.play_until(phase_is("deal_over", "partie_over"))
        assert seat.page.evaluate("window.beforeTheRestart === true"), "the page was reloaded"
        assert len(seat.view()["tricks"]) == 12
    finally:
        stop(proc)


def test_a_newer_window_takes_the_seat_and_the_old_one_stops(open_seat) -> None:
    """More windows of one seat than the server keeps (4): the oldest is closed 4409,
    says so, and waits for the person; its button takes the seat back."""
    first = open_seat()
    start_table(first)
    opened = count_sockets(first)
    context = first.page.context
    others = []
    for _ in range(4):
        page = context.new_page()
        page.goto(first.page.url)
        other = Seat(page).listen()
        other.wait_ready()
        others.append(other)
    wait_connection(first, "closed", 15)
    banner = first.page.locator("#conn-banner")
    assert "open in another window" in banner.inner_text()
    again = banner.locator("button.conn-action")
    assert again.inner_text() == "Play in this window"
    first.page.wait_for_timeout(2500)
    assert opened == [], "the replaced window reconnected by itself"

    again.click()  # by hand: it takes the seat back, and the oldest other window stops
    wait_connection(first, "open", 15)
    assert not banner.is_visible()
    wait_connection(others[0], "closed", 15)
    for other in others[1:]:
        assert other.attrs()["connection"] == "open"


def test_an_expired_table_says_so_and_stops(open_seat, tmp_path: Path) -> None:
    proc, base = launch("app", tmp_path / "server.log", PIQUET_ROOM_IDLE_SECONDS="2",
                        PIQUET_SWEEP_INTERVAL="0.2")
    try:
        seat = open_seat(base_url=base)
        start_table(seat)
        opened = count_sockets(seat)
        wait_connection(seat, "closed", 20)  # nobody plays: 4410
        banner = seat.page.locator("#conn-banner")
        assert "This table has expired" in banner.inner_text()
        assert banner.locator("a.conn-action").get_attribute("href") == "/"
        seat.page.wait_for_timeout(2500)
        assert opened == [], "the page reconnected to an expired table"
    finally:
        stop(proc)


def test_a_server_process_replaced_mid_deal_and_the_page_carries_on(
    open_seat, watch, tmp_path: Path
) -> None:
    """Rooms kept in Redis, nginx in front (deploy/nginx.conf): a deploy starts a new
    process and stops the old one (SIGTERM) mid-deal. The page, left alone, reconnects
    at once through nginx to the new process, shows the same hand at the same version,
    and the game goes on, the computer answering. A watcher's page (nothing of it is
    stored) comes back by itself too, and follows the play."""
    watch.allow("console", "WebSocket connection to")
    redis = Redis(tmp_path / "redis").start()
    old = App(tmp_path / "old.log", redis.url).start()
    new = App(tmp_path / "new.log", redis.url)  # its port is in nginx's list already
    nginx = Nginx(tmp_path / "nginx", [old.port, new.port]).start()
    try:
        seat = open_seat(base_url=nginx.http)
        start_table(seat)
        seat.play_until(phase_is("declare", "play"))
        version, hand = seat.version(), seat.hand()
        watcher = open_seat(base_url=nginx.http)  # a full table: its visitor watches
        watcher.page.goto(seat.page.url)
        watcher.wait_ready()
        assert watcher.attrs()["seat"] == "watch"
        opened = count_sockets(seat)
        watcher_opened = count_sockets(watcher)

        new.start()
        old.terminate()  # the page's socket is closed with 1012
        deadline = seat.page.evaluate("Date.now()") + 15000
        while not opened or seat.attrs()["connection"] != "open":
            assert seat.page.evaluate("Date.now()") < deadline, (
                seat.attrs(), opened, (tmp_path / "nginx" / "nginx.log").read_text()[-3000:])
            seat.page.wait_for_timeout(50)
        assert seat.version() >= version
        if seat.version() == version:
            assert seat.hand() == hand
        assert not seat.page.locator("#conn-banner").is_visible()
        assert new.rooms() == 1
        # Coming back, the page said which version it was last shown, with its receipt
        # (so a store that had lost it would be found out: tests/app/test_store_faults.py).
        assert re.search(r"/ws/[\w-]+\?seen=\d+\.[0-9a-f]{24}", new.log()), new.log()[-2000:]

        # It carries on: the person plays and the computer answers, through the new one.
        seat.play_until(lambda a: int(a.get("version", "0")) >= version + 6)
        assert new.rooms() == 1
        # The watcher reconnected by itself (a 1012 too) and sees the play go on.
        watcher.page.wait_for_function(
            f"() => {ROOT_JS}.dataset.connection === 'open' && "
            f"+{ROOT_JS}.dataset.version >= {version + 6}", timeout=15000)
        assert watcher_opened, "the watcher's page never reconnected"
        assert watcher.attrs()["seat"] == "watch"
    finally:
        nginx.stop()
        new.kill()
        old.kill()
        redis.stop()


def test_with_its_store_down_the_page_waits_longer_between_tries(
    open_seat, watch, tmp_path: Path
) -> None:
    """Redis stops under an open table, and the page's socket drops: every try after is
    accepted and closed 1012 at once (the table cannot be loaded just now). The page
    waits longer and longer between tries, as after any failed try: a 1012 means "come
    back at once" only from a socket that was serving the table (a restart, a hand-over),
    or every page would ask again about four times a second for as long as Redis is out."""
    redis = Redis(tmp_path / "redis").start()
    app = App(tmp_path / "app.log", redis.url).start()
    seat: Seat | None = None
    try:
        seat = open_seat(base_url=app.http)
        start_table(seat)
        opened: list[WebSocket] = []
        seat.page.on("websocket", lambda ws: opened.append(ws))
        redis.stop()
        seat.page.evaluate("window.piquetTable.socket.ws.close()")
        seat.page.wait_for_timeout(4500)
        # Waits of 0.2-0.4, 0.4-0.8, 0.8-1.6, 1.6-3.2 s, each try answered within about a
        # second (the store's patience for a command that never reached Redis): 2 to 4
        # tries in 4.5 s (fewer on a slow machine); at once after each 1012, about 35.
        assert 1 <= len(opened) <= 5, len(opened)
        # Every try is answered "not just now", but the last may still be on its way.
        closed = [ws for ws in opened if ws.is_closed()]
        refused = app.log().count("The table could not be loaded just now")
        assert closed and len(closed) <= refused <= len(opened), (len(opened), refused)
        assert len(opened) - len(closed) <= 1, "a try was left waiting for its answer"
        assert seat.attrs()["connection"] in ("open", "lost")  # still trying
        assert "Reconnecting" in seat.page.locator("#conn-banner").inner_text()
    finally:
        # The page first: it is still trying, and a try cut by the server's end would be a
        # failed handshake on its console (every try while Redis is down must be accepted).
        if seat is not None:
            seat.page.context.close()
        app.kill()
        redis.stop()
