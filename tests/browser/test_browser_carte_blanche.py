"""Carte blanche through the page: the offer to announce it, the announcement shown on
the felt the moment it lands, and the hand laid face up when the rules say so."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browserkit import Seat, launch, start_table

import engine
from engine import computer
from tests.serverproc import stop


def _first_deal(seed: int) -> Any:
    """The partie from `seed` once the first dealer is chosen, as the test chooses:
    the person deals when she wins the cut; the computer chooses as it always does."""
    state = engine.new_partie(seed=seed)
    if engine.view(state, 0)["cut"]["winner"] == 0:
        return engine.apply(state, 0, {"type": "choose_dealer", "deal": True})
    return engine.apply(state, 1, computer.choose(engine.view(state, 1)))


def find_seed(holder: int) -> int:
    """A seed whose first deal gives seat `holder` carte blanche (about 1 deal in 900)."""
    for seed in range(1, 200_000):
        view = engine.view(_first_deal(seed), holder)
        if any(a["type"] == "carte_blanche" for a in view["legal"]):
            return seed
    raise AssertionError("no carte blanche in 200000 seeds")


@pytest.fixture(scope="module")
def seeded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    seeds = f"{find_seed(0)},{find_seed(1)}"
    log = tmp_path_factory.mktemp("seeded") / "server.log"
    # A person holding it as younger may announce it until the computer has exchanged.
    proc, base = launch("tests.browser.seeded_app", log, PIQUET_TEST_SEEDS=seeds,
                        PIQUET_COMPUTER_EXCHANGE_DELAY="3")
    try:
        yield base
    finally:
        stop(proc)


def choose_to_deal(seat: Seat) -> None:
    """If this seat won the cut, it deals (as `_first_deal` assumed)."""
    view = seat.view()
    if view["phase"] != "cut" or view["to_move"] != view["seat"]:
        return
    index = next(i for i, a in enumerate(view["legal"]) if a.get("deal") is True)
    before = seat.version()
    seat.page.click(f"#actions [data-action='{index}']")
    seat.wait_moved(before)


def test_carte_blanche_offered_announced_and_shown(open_seat, seeded_server) -> None:
    # Room 1: this seat holds carte blanche.
    seat = open_seat(base_url=seeded_server)
    start_table(seat)
    choose_to_deal(seat)
    page = seat.page
    offer = page.locator("#actions [data-type=carte_blanche]")
    offer.first.wait_for(state="visible")
    view = seat.view()
    labels = page.locator("#actions [data-type=carte_blanche] .label").all_inner_texts()
    assert labels == [a["label"] for a in view["legal"] if a["type"] == "carte_blanche"]
    assert "carte blanche" in page.locator("#prompt").inner_text().lower()
    before = seat.version()
    page.click("#actions [data-type=carte_blanche] >> nth=0")
    seat.wait_moved(before)
    # On the felt the moment it lands.
    toast = page.locator("#toast.show [data-bonus=carte_blanche]")
    toast.wait_for(state="visible", timeout=3000)
    assert "Carte blanche" in toast.inner_text()
    assert page.locator("#deal-info [data-bonus=carte_blanche]").count() == 1
    # Shown to the opponent once the opponent has discarded: the page says so too.
    seat.play_until(lambda a: any(s["seat"] == seat.view()["seat"] for s in seat.view()["shown"]))
    mine = page.locator(f"[data-area=shown][data-seat='{seat.view()['seat']}'] [data-card]")
    assert mine.count() == 12

    # Room 2: the computer holds it; its hand is laid face up on this page.
    other = open_seat(base_url=seeded_server)
    start_table(other)
    choose_to_deal(other)
    other.play_until(lambda a: any(s["seat"] == 1 for s in other.view()["shown"]))
    theirs = other.page.locator("[data-area=shown][data-seat='1'] [data-card]")
    assert theirs.count() == 12
    shown_text = other.page.locator("[data-area=shown] .mini-title").text_content()
    assert shown_text == "Computer showed: Carte blanche"
    assert other.page.locator("#deal-info [data-bonus=carte_blanche]").count() == 1
    other.play_until(lambda a: a.get("phase") == "deal_over")
