"""The lobby in three browsers (issue 37): A opens a table anyone may sit down at, B sees
it appear without reloading and sits down, they play a deal, C sees it under "Being played
now" and watches; A and B press "Quick game" at the same moment and are seated together;
the name rules, and an open table's wait running out (a short setting) with its maker told.
Screenshots of the lobby with open and playing tables go to test-artifacts/."""

from __future__ import annotations

from typing import Any

from browserkit import ROOT_JS, named, play_together
from playwright.sync_api import Page

LOBBY_ENV = {"PIQUET_OPEN_TABLES_PER_ADDRESS": "100"}  # every browser here is 127.0.0.1


def open_table(page: Page) -> str:
    """From the lobby: a table anyone may sit down at; its id, once its page is there."""
    page.check("[data-seating=open]")
    page.click("button[data-opponent=friend]")
    page.wait_for_url("**/r/**")
    return room_of(page)


def room_of(page: Page) -> str:
    return page.url.rsplit("/r/", 1)[1]


def test_three_browsers_meet_in_the_lobby_play_and_watch(
    own_server: Any, open_seat: Any, artifacts: Any
) -> None:
    server = own_server(**LOBBY_ENV)
    a, b, c = (open_seat(base_url=server) for _ in range(3))
    lobby_b, lobby_c = named(b, "Bob"), named(c, "Carol")
    page_a = named(a, "Alice")
    room_id = open_table(page_a)
    a.wait_ready()
    assert "waits in the lobby" in page_a.locator("#listing-status").inner_text()
    assert page_a.locator("[data-presence=waiting]").inner_text() == (
        "Waiting for someone to sit down…")

    # B sees it appear, without reloading: Alice's name, the rules, how long it waited.
    row = lobby_b.locator(f"[data-list=open] [data-room='{room_id}']")
    row.wait_for()
    assert row.locator("[data-name]").inner_text() == "Alice"
    assert "Rubicon Piquet" in row.inner_text() and "waiting" in row.inner_text()
    lobby_c.locator(f"[data-list=open] [data-room='{room_id}']").wait_for()
    lobby_c.screenshot(path=str(artifacts / "lobby-open-table.png"), full_page=True)
    row.locator("[data-sit]").click()
    lobby_b.wait_for_url(f"**/r/{room_id}")
    b.wait_ready()
    assert b.attrs()["seat"] == "1"
    page_a.wait_for_function(f"() => {ROOT_JS}.dataset.opponentConnected === 'true'")
    assert page_a.locator("[data-presence=connected]").inner_text() == "Bob is connected"
    assert b.page.locator("[data-presence=connected]").inner_text() == "Alice is connected"
    # The table left the list at once; it is being played now, watchable.
    lobby_c.locator(f"[data-list=open] [data-room='{room_id}']").wait_for(state="detached")
    playing = lobby_c.locator(f"[data-list=playing] [data-room='{room_id}']")
    playing.wait_for()
    assert playing.locator("[data-names]").inner_text() == "Alice and Bob"

    play_together([a, b], lambda attrs: all(x.get("phase") == "deal_over" for x in attrs))
    lobby_c.wait_for_function(
        f"""() => document.querySelector("[data-list=playing] [data-room='{room_id}'] """
        """[data-score]")?.textContent.startsWith('deal 1 of 6')""")
    # Another open table waits, so the lobby shows both lists.
    other = open_table(named(open_seat(base_url=server), "Dora"))
    lobby_c.locator(f"[data-list=open] [data-room='{other}']").wait_for()
    lobby_c.screenshot(path=str(artifacts / "lobby-open-and-playing.png"), full_page=True)

    playing.locator("[data-watch]").click()
    lobby_c.wait_for_url(f"**/r/{room_id}")
    c.wait_ready()
    assert c.attrs()["seat"] == "watch"
    names = c.page.eval_on_selector_all(".seat-name", "els => els.map(e => e.textContent)")
    assert set(names) == {"Alice", "Bob"}


def test_two_quick_games_at_the_same_moment_sit_together(own_server: Any,
                                                           open_seat: Any) -> None:
    server = own_server(**LOBBY_ENV)
    a, b = open_seat(base_url=server), open_seat(base_url=server)
    page_a, page_b = named(a, "Alice"), named(b, "Bob")
    assert page_a.locator("[data-list=open] li").count() == 0  # nobody waits
    page_a.click("[data-quick]", no_wait_after=True)
    page_b.click("[data-quick]", no_wait_after=True)
    page_a.wait_for_url("**/r/**")
    page_b.wait_for_url("**/r/**")
    assert room_of(page_a) == room_of(page_b)
    a.wait_ready()
    b.wait_ready()
    assert {a.attrs()["seat"], b.attrs()["seat"]} == {"0", "1"}
    for seat, other in ((a, "Bob"), (b, "Alice")):
        seat.page.wait_for_selector(f"[data-presence=connected]:text-is('{other} is connected')")


def test_the_name_rules_are_shown(own_server: Any, open_seat: Any, watch: Any) -> None:
    watch.allow("http", "400")
    watch.allow("http", "422")
    watch.allow("console", "400")
    watch.allow("console", "422")
    server = own_server(**LOBBY_ENV)
    seat = open_seat(base_url=server)
    page = seat.page
    page.goto("/")
    for typed, why in (("<b>Ann</b>", "“<” is not allowed"),
                       ("Computer", "“Computer” is the computer's name"),
                       ("Ann\u202eevil", "U+202E is not allowed"),
                       ("A" * 25, "at most 24 characters")):
        page.fill("#name-field", typed)
        page.click("[data-save-name]")
        error = page.locator("[data-name-error]")
        assert why in error.inner_text(), error.inner_text()
        assert error.locator("*").count() == 0  # text, never markup
        assert page.locator("#name-field").input_value() == typed
        assert page.locator("main b").count() == 0
    open_table(named(seat, "Alice"))
    # A name like Alice's may not sit at her table: the page says why, and where to go.
    other = open_seat(base_url=server)
    named(other, "ALICE")
    other.page.goto(page.url)
    banner = other.page.locator("#conn-banner")
    banner.wait_for()
    assert "The other player is called “Alice”" in banner.inner_text()
    assert other.page.locator("#conn-banner a[href='/#name']").is_visible()


def test_an_open_tables_wait_runs_out_and_its_maker_may_wait_again(
    own_server: Any, open_seat: Any, artifacts: Any
) -> None:
    server = own_server(PIQUET_OPEN_TABLE_SECONDS="3", **LOBBY_ENV)
    maker, looker = open_seat(base_url=server), open_seat(base_url=server)
    page = named(maker, "Alice")
    lobby = named(looker, "Bob")
    assert "waits in the lobby 3 seconds" in page.locator("main").inner_text()
    room_id = open_table(page)
    maker.wait_ready()
    lobby.locator(f"[data-list=open] [data-room='{room_id}']").wait_for()
    status = page.locator("#listing-status[data-listing=expired]")
    status.wait_for(timeout=20000)
    assert status.inner_text() == ("Nobody sat down in 3 seconds, so your table left the "
                                   "lobby. Wait again, or play the computer.")
    lobby.locator(f"[data-list=open] [data-room='{room_id}']").wait_for(state="detached")
    assert page.locator("#computer-seat").is_visible()  # or play the computer
    page.screenshot(path=str(artifacts / "open-table-expired.png"))
    page.click("#listing-toggle")
    page.locator("#listing-status[data-listing=listed]").wait_for()
    lobby.locator(f"[data-list=open] [data-room='{room_id}']").wait_for()


def test_a_stranger_who_leaves_and_the_partie_ended_as_abandoned(own_server: Any,
                                                                   open_seat: Any) -> None:
    """Away the setting's while (a second here), the other player is offered the computer,
    then (two) to end the partie: it ends, abandoned by the absent one, and both are told."""
    server = own_server(PIQUET_STRANGER_AWAY_SECONDS="1", PIQUET_STRANGER_ABANDON_SECONDS="2",
                        **LOBBY_ENV)
    a, b = open_seat(base_url=server), open_seat(base_url=server)
    page_a, page_b = named(a, "Alice"), named(b, "Bob")
    page_a.click("[data-quick]")
    page_a.wait_for_url("**/r/**")
    page_b.click("[data-quick]")
    page_b.wait_for_url("**/r/**")
    table = page_b.url
    a.wait_ready()
    page_a.wait_for_selector("[data-presence=connected]")
    page_b.close()  # Bob leaves
    offer = page_a.locator("#away")
    offer.locator("[data-away=computer]").wait_for()
    assert "Bob" in offer.inner_text()
    offer.locator("[data-away=abandon]").click()
    result = page_a.locator("#middle .result-text[data-abandoned='1']")
    result.wait_for()
    assert result.inner_text() == "Bob left the table, so the partie ended: abandoned by Bob."
    assert page_a.locator("#middle .result-title").inner_text() == "You win the partie"
    back = b.page.context.new_page()
    back.goto(table)
    told = back.locator("#middle .result-text[data-abandoned='1']")
    told.wait_for()
    assert told.inner_text() == "You left the table, so the partie ended: abandoned by you."
