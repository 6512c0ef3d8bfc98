"""axe-core inside the page on every phase of a deal, in both contrast modes, for the
seat and for a watcher, on a desktop and a phone: no serious or critical violation
(issues 17, 27). Also the lobby and the rules page."""

from __future__ import annotations

import pytest
from browserkit import Seat, axe_problems, phase_is, start_table


def both_modes(seat: Seat, where: str, found: dict[str, list[str]]) -> None:
    page = seat.page
    toggle = page.locator("[data-contrast-toggle]")
    for mode in ("normal", "high contrast"):
        problems = axe_problems(page)
        if problems:
            found[f"{where}, {mode}"] = problems
        toggle.click()  # to the other mode (and back, after the second)


@pytest.mark.parametrize("width", [1280, 375])
def test_axe_finds_nothing_serious_on_any_phase(open_seat, width) -> None:
    """The seat at `width`, a watcher at the other width; the panels open on both."""
    seat = open_seat(viewport={"width": width, "height": 900})
    found: dict[str, list[str]] = {}
    seat.page.goto("/")
    both_modes(seat, "lobby", found)
    seat.page.goto("/rules")
    both_modes(seat, "rules", found)
    start_table(seat)
    watcher = open_seat(viewport={"width": 1655 - width, "height": 900})
    watcher.page.goto(seat.page.url)
    watcher.wait_ready()
    for page in (seat, watcher):
        page.open_panels()
    looked: set[str] = set()

    def look(s: Seat) -> None:
        a = s.attrs()
        whose = "mine" if a.get("myTurn") == "true" else "theirs"
        key = f"{a.get('phase')}/{a.get('step')}/{whose}"
        if key in looked or a.get("busy") == "true":
            return
        looked.add(key)
        both_modes(s, f"{width}px seat {key}", found)
        both_modes(watcher, f"watcher of {key}", found)

    seat.on_poll = look  # the computer's turns, as they go by
    seat.on_step = look  # and each of mine, before I act (a poll can miss a short phase)
    seat.play_until(phase_is("deal_over"))
    look(seat)
    assert {k.split("/")[0] for k in looked} >= {"exchange", "declare", "play", "deal_over"}
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())


def test_axe_finds_nothing_serious_in_the_lobby_and_at_an_open_table(
    own_server, open_seat, watch
) -> None:
    """The lobby with a table waiting and one being played, a name refused; the maker's
    page of an open table, listed and taken out of the lobby (issue 37)."""
    import httpx

    watch.allow("http", "400")
    watch.allow("console", "400")
    server = own_server(PIQUET_OPEN_TABLES_PER_ADDRESS="100")
    played = httpx.post(f"{server}/api/rooms", json={"opponent": "friend", "watching": True,
                                                     "name": "Carol"}, trust_env=False).json()
    httpx.post(f"{server}/api/rooms/{played['room_id']}/join", json={"name": "Dave"},
               trust_env=False)
    maker = open_seat(base_url=server)
    page = maker.page
    page.goto("/")
    page.check("[data-seating=open]")
    page.click("button[data-opponent=friend]")
    page.wait_for_url("**/r/**")
    maker.wait_ready()
    page.locator("#listing-status").wait_for()
    found: dict[str, list[str]] = {}
    both_modes(maker, "an open table, listed", found)
    page.click("#listing-toggle")
    page.locator("#listing-status[data-listing=unlisted]").wait_for()
    both_modes(maker, "an open table, out of the lobby", found)
    page.click("#listing-toggle")
    page.locator("#listing-status[data-listing=listed]").wait_for()
    for width in (1280, 375):
        seat = open_seat(base_url=server, viewport={"width": width, "height": 900})
        lobby = seat.page
        lobby.goto("/")
        lobby.locator("[data-list=open] li").first.wait_for()
        lobby.locator("[data-list=playing] li").first.wait_for()
        both_modes(seat, f"the lobby at {width}px", found)
        lobby.fill("#name-field", "<Computer>")
        lobby.click("[data-save-name]")
        lobby.locator("[data-name-error]").wait_for()
        lobby.locator("[data-list=open] li").first.wait_for()
        both_modes(seat, f"the lobby at {width}px, a name refused", found)
    assert not found, "\n".join(f"{k}: {v}" for k, v in found.items())
