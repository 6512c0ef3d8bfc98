"""What a player noticed in a first whole partie (issue 17): each a fix the page keeps."""

from __future__ import annotations

from browserkit import Seat, start_table


def test_face_up_leftovers_are_drawn_once_in_the_stocks_place(open_seat) -> None:
    """Younger leaves two cards face up: after the lead they lie where the stock was,
    once, and not again under "You showed"; no face-down back is left on the pile."""
    seat = open_seat()
    seat.discard_fewest = True
    seat.expose = True
    start_table(seat)
    page = seat.page
    checked = False

    def look(s: Seat) -> None:
        nonlocal checked
        exposed = s.view().get("exposed_stock") or []
        if not exposed or s.attrs().get("phase") != "play":
            return
        if s.view_at(s.version()) is None:
            return
        on_table = page.eval_on_selector_all(
            "#table [data-card]", "els => els.map(e => e.dataset.card)"
        )
        for card in exposed:
            assert on_table.count(card) == 1, (card, on_table)
        assert page.locator("[data-area=exposed-stock] [data-card]").count() == len(exposed)
        assert page.locator("#middle .stock-card").count() == 0
        assert "stock" not in " ".join(
            page.locator("#deal-info [data-area=shown] .mini-title").all_inner_texts()
        ).lower()
        checked = True

    seat.on_poll = look
    seat.play_until(lambda a: checked or int(seat.view()["deal_number"]) > 2)
    assert checked, "younger never left a card face up in two deals"
