"""Against the computer: a deal by clicks only, a whole partie, the Rubicon line."""

from __future__ import annotations

import json

from browserkit import Seat, axe_problems, hand_moves, phase_is, start_table

from engine import CARD_NAMES


def test_a_deal_by_clicks_only(open_seat) -> None:
    seat = open_seat()
    seat.watch_hand()
    start_table(seat)
    page = seat.page
    # The cut: both cut cards on the table. What the page shows and the version it shows
    # are read at once: the computer may choose the dealer at any moment and move on.
    shown = page.evaluate("""() => ({
        version: +document.getElementById('table').dataset.version,
        cards: [...document.querySelectorAll('#middle [data-card]')].map(e => e.dataset.card),
    })""")
    at = seat.view_at(shown["version"])
    assert at is not None
    if at["deal_number"] == 0:
        for card in at["cut"]["cards"]:
            assert shown["cards"].count(card) == 1, (card, shown)

    asked_to_see = []

    def see_once(s: Seat) -> None:
        see = s.page.locator("[data-type=see]")
        if not asked_to_see and see.count():
            index = int(see.first.get_attribute("data-action") or "0")
            combo = s.view()["legal"][index]["combo"]
            before = s.version()
            see.first.click()
            s.wait_moved(before)
            asked_to_see.append(True)
            # The combination's cards are now on the table for both to see.
            shown = s.page.locator(f"[data-combo='{combo}'][data-shown=true] [data-card]")
            assert shown.count() >= 3

    # The log's lines on how many each side took, counted while they are recent: the
    # panel shows a deal's last 60 lines, and a long deal pushes them out by its end.
    took_lines = 0

    def measure(s: Seat) -> None:
        nonlocal took_lines
        if s.attrs().get("phase") in ("declare", "play"):
            took_lines = max(took_lines,
                             s.page.locator("#log-body li[data-kind=exchange]").count())

    seat.on_step = see_once
    seat.on_poll = measure
    seat.play_until(phase_is("play"))
    # Every card in the hand carries its name in words, in the order the view gives.
    view = seat.view()
    assert seat.hand() == view["hand"]
    for card in view["hand"]:
        el = page.locator(f"#hand [data-card='{card}']")
        assert el.get_attribute("title") == CARD_NAMES[card]
        assert CARD_NAMES[card] in (el.locator(".sr-name").text_content() or "")
    # The counter above the cards.
    counter = page.locator("#counter-deal").inner_text()
    assert f"Deal {view['deal_number']} of 6" in counter
    assert "deal" in counter.lower()

    seat.play_until(phase_is("deal_over"))
    # No layout jumps: the hand stayed where it was through the whole deal.
    tops = seat.hand_positions("exchange", "declare", "play")
    assert len(tops) == 1, f"the hand moved during the deal: {hand_moves(tops)}"
    view = seat.view()
    assert view["phase"] == "deal_over"
    seat.open_panels()
    row = page.locator("#scores-body tr[data-deal='1']")
    first = view["scores"]["sheet"][0]
    mine, theirs = first[view["seat"]], first[1 - view["seat"]]
    assert row.locator(f"td[data-seat='{view['seat']}']").inner_text() == str(mine)
    assert row.locator(f"td[data-seat='{1 - view['seat']}']").inner_text() == str(theirs)
    # The deal's score is also on the felt, and the next deal is one click away.
    summary = page.locator("[data-area=deal-over]").inner_text()
    assert f"You {mine}" in summary
    # The log said how many each side took.
    assert took_lines >= 2
    assert page.locator("#actions [data-type=next_deal]").inner_text() == "Deal next hand"
    # Every message the page sent names the version it was made on and a fresh id.
    sent = [json.loads(raw) for raw in seat.sent]
    actions = [m for m in sent if m["type"] == "action"]
    assert actions and all(isinstance(m["version"], int) for m in actions)
    ids = [m["id"] for m in actions]
    assert len(set(ids)) == len(ids)
    # The opponent's announcements were read out through the polite live region.
    assert page.locator("#announcer").get_attribute("aria-live") == "polite"
    assert "Computer: " in page.locator("#announcer").text_content()
    before = seat.version()
    page.click("#actions [data-type=next_deal]")
    seat.wait_moved(before)
    page.wait_for_function("() => document.getElementById('table').dataset.phase !== 'deal_over'")


def test_a_partie_to_the_rubicon_line(open_seat, artifacts) -> None:
    seat = open_seat()
    start_table(seat)
    seat.play_until(phase_is("partie_over"), timeout_s=280)
    view = seat.view()
    result = view["result"]
    assert result and result["text"]
    page = seat.page
    assert page.locator("[data-result-text]").inner_text() == result["text"]
    title = page.locator(".result-title").inner_text()
    if result["winner"] is None:
        assert "draw" in title.lower()
    elif result["winner"] == view["seat"]:
        assert title == "You win the partie"
    else:
        assert title == "Computer wins the partie"
    # The end of the partie keeps the last deal's result in view, with the whole sheet
    # (every deal, both sides, part by part) and the Rubicon sum, and no stale hand or role.
    last = view["scores"]["sheet"][-1]
    mine, theirs = last[view["seat"]], last[1 - view["seat"]]
    summary = page.locator("#middle [data-area=last-deal]").inner_text()
    assert f"Deal {view['deal_number']} scored" in summary and f"You {mine}" in summary
    assert f"Computer {theirs}" in summary
    final = page.locator("#middle [data-area=final-sheet]")
    assert final.locator("tbody tr").count() == view["deals_in_partie"]
    names = {"carte_blanche": "carte blanche", "cards": "the cards"}
    for i, row in enumerate(view["scores"]["sheet"]):
        cells = final.locator(f"tr[data-deal='{i + 1}'] td .pts")
        assert cells.all_inner_texts() == [str(row[view["seat"]]), str(row[1 - view["seat"]])]
        # Each deal part by part (point, sequences, sets, play, the cards, bonuses).
        parts = final.locator(f"tr[data-deal='{i + 1}'] td .parts").all_text_contents()
        for who, text in zip((view["seat"], 1 - view["seat"]), parts, strict=True):
            wanted = view["scores"]["sheet_parts"][i][who]
            assert text == " · ".join(f"{names.get(k, k)} {v}" for k, v in wanted.items())
    assert "Rubicon" in page.locator(".result-text").inner_text()
    assert "hand" not in page.locator("#opponent").inner_text()
    assert page.locator("#deal-info [data-category]").count() > 0  # the last deal's calls
    # The last deal part by part, the score sheet open, and nothing more to ask to see.
    last_table = page.locator("#middle [data-area=last-deal] [data-area=deal-table]")
    assert last_table.locator("tr[data-partie] td").all_inner_texts() == [
        str(view["scores"]["partie"][view["seat"]]),
        str(view["scores"]["partie"][1 - view["seat"]])]
    assert page.locator("#panel-scores").get_attribute("open") is not None
    assert page.locator("[data-type=see]").count() == 0
    page.screenshot(path=str(artifacts / "partie-end.png"), full_page=True)
    problems = []
    for width in (1280, 375):  # both contrast modes, a desktop and a phone
        page.set_viewport_size({"width": width, "height": 900})
        for _ in range(2):
            problems += [f"{width}px: {p}" for p in axe_problems(page)]
            page.locator("[data-contrast-toggle]").click()
    page.set_viewport_size({"width": 1280, "height": 900})
    assert not problems, problems
    seat.open_panels()
    assert page.locator("#scores-body tbody tr").count() == view["deals_in_partie"]
    # New match starts a fresh partie at the computer table.
    before = seat.version()
    page.click("[data-new-match=confirm]")
    seat.wait_moved(before)
    page.wait_for_function("() => document.getElementById('table').dataset.phase !== 'partie_over'")


def test_new_match_in_the_middle_of_a_partie(open_seat) -> None:
    seat = open_seat()
    start_table(seat)
    seat.play_until(
        lambda a: a.get("phase") == "play" and seat.view()["scores"]["partie"] != [0, 0]
    )
    page = seat.page
    page.click("[data-new-match=ask]")
    # Asked first, since it abandons the partie; "Keep playing" changes nothing.
    page.click("[data-new-match=cancel]")
    assert page.locator("[data-new-match=ask]").is_visible()
    page.click("[data-new-match=ask]")
    before = seat.version()
    page.click("[data-new-match=confirm]")
    seat.wait_moved(before)
    page.wait_for_function(
        "() => document.getElementById('table').dataset.phase === 'cut'"
        " || document.querySelector('#counter-deal').textContent.includes('Deal 1 of 6')"
    )
    view = seat.view()
    assert view["scores"]["partie"] == [0, 0]
    assert view["deal_number"] <= 1
    sent = [json.loads(raw) for raw in seat.sent]
    assert any(m["type"] == "new_match" and isinstance(m["version"], int) for m in sent)
