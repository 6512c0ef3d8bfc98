"""A table at your own pace in two browsers (issue 36): Alice makes a "Take your time"
table, Bob sits down; each one's lobby lists it under "My tables", with "Your move" for
the one the partie waits for and not for the other, and one click goes back to it. While
the other's table is in a background tab, its move puts "(Your move)" in the title and a
dot on the icon, and, since they pressed the button that asks for it (and only then), a
notification. They leave from the list, and the first player's table says so. The
lobby's "My tables" goes to test-artifacts/my-tables.png."""

from __future__ import annotations

from typing import Any

from browserkit import ROOT_JS, Seat, axe_problems, named, play_together
from playwright.sync_api import Page

# Before any page script: document.hidden as the test says (the tab sent to the
# background), and window.Notification recorded; the permission reads "default" until
# the page asks for it, then what the browser context grants.
AWAY_AND_NOTIFICATIONS = """
window.__hidden = false;
Object.defineProperty(document, "hidden", {configurable: true, get: () => window.__hidden});
Object.defineProperty(document, "visibilityState", {
  configurable: true, get: () => (window.__hidden ? "hidden" : "visible")});
window.__asked = 0;
window.__notes = [];
const Real = window.Notification;
window.Notification = class {
  constructor(title, options) { window.__notes.push({title, body: options && options.body}); }
  close() {}
  static get permission() { return window.__asked ? Real.permission : "default"; }
  static requestPermission() { window.__asked += 1; return Real.requestPermission(); }
};
"""


def set_away(page: Page, hidden: bool) -> None:
    page.evaluate(f"window.__hidden = {str(hidden).lower()}; "
                  "document.dispatchEvent(new Event('visibilitychange'))")


def lobby_row(seat: Seat, room_id: str) -> tuple[Page, Any]:
    """A second tab of this browser on the lobby, and its "My tables" row for the table."""
    page = seat.page.context.new_page()
    page.goto("/")
    row = page.locator(f"#my-tables [data-room='{room_id}']")
    row.wait_for()
    return page, row


def test_my_tables_your_move_and_the_title_of_a_tab_in_the_background(
    open_seat: Any, watch: Any, artifacts: Any
) -> None:
    alice, bob = open_seat(), open_seat()
    for seat in (alice, bob):
        context = seat.page.context
        context.add_init_script(AWAY_AND_NOTIFICATIONS)
        context.grant_permissions(["notifications"])  # what the visitor answers, if asked
        context.on("page", watch.attach)  # (the lobby's tabs below, watched too)
    page_a = named(alice, "Alice")
    assert not page_a.locator("#my-tables").is_visible()  # no table yet: no section
    friend_form = page_a.locator("form:has(button[data-opponent=friend])")
    friend_form.locator("[data-pace=slow]").check()
    friend_form.locator("button[data-opponent=friend]").click()
    page_a.wait_for_url("**/r/**")
    alice.wait_ready()
    room_id = page_a.url.rsplit("/r/", 1)[1]
    page_b = named(bob, "Bob")
    page_b.goto(f"/r/{room_id}")
    bob.wait_ready()
    for page in (page_a, page_b):
        assert page.locator("#pace-line").inner_text().startswith("Take your time")
    play_together([alice, bob], lambda attrs: any(a.get("phase") == "exchange" for a in attrs))
    movers = [seat for seat in (alice, bob) if seat.attrs()["myTurn"] == "true"]
    assert len(movers) == 1
    mover = movers[0]
    waiter = bob if mover is alice else alice
    names = {id(alice): "Alice", id(bob): "Bob"}
    mover_name, waiter_name = names[id(mover)], names[id(waiter)]

    # Each one's lobby, in another tab: the table, with "Your move" for the mover alone.
    lobby_m, row_m = lobby_row(mover, room_id)
    lobby_w, row_w = lobby_row(waiter, room_id)
    assert row_m.get_attribute("data-your-move") == "true"
    assert row_m.locator("[data-move]").inner_text() == "Your move"
    assert row_w.get_attribute("data-your-move") == "false"
    assert row_w.locator("[data-move]").inner_text() == f"{mover_name}'s move"
    for row, other in ((row_m, waiter_name), (row_w, mover_name)):
        assert row.locator("[data-who]").inner_text() == f"Against {other}"
        assert "take your time" in row.inner_text() and "Last move" in row.inner_text()
    lobby_m.screenshot(path=str(artifacts / "my-tables.png"), full_page=True)
    assert not axe_problems(lobby_m)  # the list, and its "Leave" asking to be sure
    row_m.locator("[data-leave]").click()
    row_m.locator("[data-leave-no]").wait_for()
    assert not axe_problems(lobby_m) and not axe_problems(waiter.page)  # (the pace line)
    row_m.locator("[data-leave-no]").click()
    row_m.locator(".leave-confirm").wait_for(state="detached")
    row_m.locator("[data-go]").click()  # one click back to the table, the same seat
    lobby_m.wait_for_url(f"**/r/{room_id}")
    lobby_m.wait_for_function(f"() => +{ROOT_JS}.dataset.version > 0")
    assert lobby_m.evaluate(f"{ROOT_JS}.dataset.seat") == mover.attrs()["seat"]
    lobby_m.close()

    # The waiter's table asks for notifications only when the button is pressed: nothing
    # before, not even when the tab goes to the background.
    page_w = waiter.page
    set_away(page_w, True)
    set_away(page_w, False)
    assert page_w.evaluate("window.__asked") == 0
    page_w.locator("[data-notify]").click()
    page_w.wait_for_selector("span[data-notify=granted]")
    assert page_w.evaluate("window.__asked") == 1

    # The waiter's tab in the background: the mover moves, and it becomes the waiter's
    # move: the title, the icon, and a notification.
    icon = "document.querySelector('link[rel=icon]').getAttribute('href')"
    plain_icon = page_w.evaluate(icon)
    set_away(page_w, True)
    assert not page_w.title().startswith("(Your move)")
    mover.play_until(lambda a: a["myTurn"] != "true")
    waiter.play_until(lambda a: a["myTurn"] == "true")
    page_w.wait_for_function("() => document.title.startsWith('(Your move)')")
    assert "circle" in page_w.evaluate(icon)
    page_w.wait_for_function("() => window.__notes.length === 1")
    note = page_w.evaluate("window.__notes[0]")
    assert note["title"] == "Your move" and mover_name in note["body"]
    assert mover.page.evaluate("[window.__asked, window.__notes.length]") == [0, 0]
    set_away(page_w, False)
    assert not page_w.title().startswith("(Your move)")
    assert page_w.evaluate(icon) == plain_icon

    # The waiter leaves from the list: the partie ends, abandoned by them, and the other
    # player is told.
    lobby_w.reload()
    row = lobby_w.locator(f"#my-tables [data-room='{room_id}']")
    row.locator("[data-leave]").click()
    assert f"abandoned by you, and {mover_name} is told" in row.locator(
        ".leave-confirm").inner_text()
    row.locator("[data-leave-yes]").click()
    row.wait_for(state="detached")
    assert f"You left the table against {mover_name}" in lobby_w.locator(
        "[data-mine-status]").inner_text()
    seat = mover.attrs()["seat"]
    mover.page.wait_for_selector(f"#middle .result-text[data-abandoned='{1 - int(seat)}']")
    assert f"{waiter_name} left the table" in mover.page.locator(
        "#middle .result-text").inner_text()
