"""The page as a device and a person meet it: reload, high contrast, a phone,
the keyboard, a lost connection, the lobby and rules pages, and the page's weight."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from browserkit import ROOT_JS, Seat, hand_moves, phase_is, start_table


def test_a_reload_mid_deal_keeps_seat_hand_and_log(open_seat) -> None:
    seat = open_seat()
    start_table(seat)
    seat.play_until(lambda a: a.get("phase") == "play" and len(seat.view()["tricks"]) >= 2)
    seat.open_panels()
    before = seat.attrs()
    hand = seat.hand()
    log = seat.log_lines()
    assert hand and log
    url = seat.page.url

    seat.page.reload()
    seat.wait_ready()
    seat.page.wait_for_function(f"() => +{ROOT_JS}.dataset.version >= {before['version']}")
    after = seat.attrs()
    assert seat.page.url == url
    assert after["seat"] == before["seat"]
    assert seat.view()["seat"] == int(before["seat"])
    assert seat.hand() == hand
    seat.open_panels()
    assert seat.log_lines() == log
    # And play goes on from there.
    seat.play_until(phase_is("deal_over"))


def test_high_contrast_survives_a_reload(open_seat) -> None:
    seat = open_seat()
    page = seat.page
    page.goto("/")
    toggle = page.locator("[data-contrast-toggle]")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert page.evaluate("document.documentElement.classList.contains('hc')")
    assert toggle.get_attribute("aria-pressed") == "true"
    start_table(seat)
    seat.play_until(phase_is("exchange", "declare", "play"))
    page.reload()
    seat.wait_ready()
    assert page.evaluate("document.documentElement.classList.contains('hc')")
    assert page.locator("[data-contrast-toggle]").get_attribute("aria-pressed") == "true"
    # Grayscale: the felt and the red suits carry no colour.
    colours = page.evaluate(
        """() => [
            getComputedStyle(document.querySelector('.counter')).backgroundColor,
            ...[...document.querySelectorAll('#hand .card')].map(e => getComputedStyle(e).color),
        ]"""
    )
    for colour in colours:
        r, g, b = (int(x) for x in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3])
        assert r == g == b, colour
    # Suits stay apart without colour: a letter on every card, outline glyphs for red suits.
    for card in seat.hand():
        letter = page.locator(f"#hand [data-card='{card}'] .card-letter").inner_text()
        assert letter == card[-1]
    glyphs = page.evaluate(
        """() => [...document.querySelectorAll('#hand .card .card-pip')].map(
            e => [e.closest('.card').dataset.card, getComputedStyle(e, '::before').content])"""
    )
    outline = {"H": '"\u2661"', "D": '"\u2662"', "S": '"\u2660"', "C": '"\u2663"'}
    for card, content in glyphs:
        assert content == outline[card[-1]], (card, content)
    # And off again, also remembered.
    page.locator("[data-contrast-toggle]").click()
    page.reload()
    seat.wait_ready()
    assert not page.evaluate("document.documentElement.classList.contains('hc')")


@pytest.mark.parametrize("width", [375, 320])
def test_a_phone_never_scrolls_sideways(open_seat, artifacts, width) -> None:
    """A phone (375px, and the narrowest in use, 320px): no sideways scroll, touch targets of
    44px, and the hand never moves during a deal, after any state the page draws -- a
    trick the computer won, left on the table until its next lead, included."""
    phone = {"width": width, "height": 812}
    seat = open_seat(viewport=phone, is_mobile=True, has_touch=True, device_scale_factor=2)
    seat.use_tap = True
    seat.watch_hand()
    page = seat.page
    seen: list[str] = []
    for old in artifacts.glob(f"phone-{width}-*.png"):
        old.unlink()

    def check(s: Seat) -> None:
        a = s.attrs()
        if a.get("busy") == "true":
            return
        key = f"{a['phase']}-{a['step']}"
        wide = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert wide[0] <= wide[1], f"{key}: page is {wide[0]}px wide in a {wide[1]}px window"
        # Touch targets: every control in the table's choices is at least 44px high.
        for box in page.eval_on_selector_all(
            "#actions .button, #hand .card, #counter-tools .button, #deal-info .button",
            "els => els.filter(e => e.offsetParent).map(e => e.getBoundingClientRect().height)",
        ):
            assert box >= 44, f"{key}: a {box}px control"
        if key not in seen:
            seen.append(key)
            shot = artifacts / f"phone-{width}-{len(seen):02d}-{key}.png"
            page.screenshot(path=str(shot), full_page=True)

    page.goto("/")
    check_lobby = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert check_lobby[0] <= check_lobby[1]
    page.screenshot(path=str(artifacts / f"phone-{width}-00-lobby.png"), full_page=True)
    page.locator("button[data-opponent=computer]").tap()
    page.wait_for_url("**/r/**")
    seat.wait_ready()
    seat.on_poll = check  # the computer's turns, as they go by
    seat.on_step = check  # and each of mine, before I act: every phase I play is looked at
    seat.play_until(phase_is("deal_over"))
    seat.on_poll = seat.on_step = None
    check(seat)
    assert {"exchange", "play", "deal_over"} <= {k.split("-")[0] for k in seen}
    tops = seat.hand_positions("exchange", "declare", "play")
    assert len(tops) == 1, f"the hand moved during the deal: {hand_moves(tops)}"


def test_a_deal_by_keyboard(open_seat) -> None:
    """Tab into the table, arrows along the hand, Enter to play; every control by key."""
    seat = open_seat()
    seat.use_keyboard = True
    seat.discard_fewest = True  # elder takes fewer and sees the rest of his five
    seat.expose = True  # younger leaves cards and turns them face up
    start_table(seat)
    page = seat.page
    seat.play_until(phase_is("play"))
    saw_rest_of_five = False
    saw_exposed = False
    for _ in range(2000):
        a = seat.attrs()
        # Younger's calls after the first lead are the declaring phase again, mid-trick.
        if a["phase"] not in ("play", "declare"):
            break
        if a.get("busy") == "true" or a["myTurn"] != "true":
            page.wait_for_timeout(20)
            continue
        if seat.view().get("seen_stock"):
            saw_rest_of_five = True
            assert page.locator("[data-area=seen-stock] [data-card]").count() == len(
                seat.view()["seen_stock"]
            )
        exposed = seat.view().get("exposed_stock") or []
        if exposed:
            saw_exposed = True
            shown = page.locator("[data-area=exposed-stock] [data-card]").all()
            assert [e.get_attribute("data-card") for e in shown] == exposed
        if page.locator("#hand [data-action]").count() == 0:
            seat.act()  # a declaration after the first lead: a button, pressed by key
            continue
        # Tab until the focus is in the hand (the hand is one tab stop).
        if not page.evaluate("!!document.activeElement.closest('#hand')"):
            page.locator("body").focus()
            page.evaluate("document.activeElement.blur()")
            for _ in range(60):
                page.keyboard.press("Tab")
                if page.evaluate("!!document.activeElement.closest('#hand')"):
                    break
            assert page.evaluate("!!document.activeElement.closest('#hand')"), "hand not reachable"
        page.keyboard.press("Home")
        for _ in range(12):
            if page.evaluate("document.activeElement.hasAttribute('data-action')"):
                break
            page.keyboard.press("ArrowRight")
        focused = page.evaluate(
            """() => { const e = document.activeElement;
                       return {card: e.dataset.card, action: e.dataset.action,
                               tip: getComputedStyle(e.querySelector('.card-tip')).display,
                               outline: getComputedStyle(e).outlineStyle}; }"""
        )
        assert focused["action"] is not None, focused
        # The card's name is visible on focus, and so is the focus.
        assert focused["tip"] == "block" and focused["outline"] != "none", focused
        before = int(a["version"])
        page.keyboard.press("Enter")
        seat.wait_moved(before)
    assert seat.attrs()["phase"] == "deal_over"
    view = seat.view()
    if view["elder"] == view["seat"]:
        assert saw_rest_of_five  # took one, saw the other four of his five
    else:
        assert saw_exposed  # took one of three, the other two face up after the lead


def test_a_lost_connection_shows_a_banner_and_heals(open_seat, watch) -> None:
    watch.allow("console", "WebSocket connection to")
    seat = open_seat()
    start_table(seat)
    seat.play_until(phase_is("exchange", "declare", "play"))
    page = seat.page
    version = seat.version()
    hand = seat.hand()
    banner = page.locator("#conn-banner")
    assert not banner.is_visible()
    page.context.set_offline(True)
    page.evaluate("window.piquetTable.socket.ws.close()")
    banner.wait_for(state="visible", timeout=5000)
    assert "Reconnecting" in banner.inner_text()
    page.context.set_offline(False)
    banner.wait_for(state="hidden", timeout=20000)
    page.wait_for_function(f"() => {ROOT_JS}.dataset.connection === 'open'")
    assert seat.version() >= version
    assert seat.hand() == hand
    seat.play_until(phase_is("deal_over"))


def test_lobby_and_rules_pages(open_seat) -> None:
    seat = open_seat()
    page = seat.page
    page.goto("/")
    assert "card game for two" in page.locator(".lead").inner_text()
    assert page.locator("button[data-opponent=computer]").is_visible()
    assert page.locator("button[data-opponent=friend]").is_visible()
    page.click("main a[href='/rules']")
    page.wait_for_url("**/rules")
    headings = page.locator("h2").all_inner_texts()
    for expected in ("The exchange", "Declaring", "Pique and repique", "Scoring reference"):
        assert expected in headings
    assert "319" in page.locator("#partie ~ p.example").first.inner_text()


def test_the_table_page_weighs_under_100_kb(open_seat) -> None:
    """The JS and CSS the table page fetches before it is drawn weigh under 100 KiB. What it
    does not use at first comes when used: the deal's notes once a deal is dealt, the
    smaller calls' menu once a call is offered; the coach's script and styles once a hint
    is asked (and they draw it), the review from them; the results (the deal's score, the
    score sheet) once a deal ends, drawn with their styles; the replay page's own. (The
    page's words are its language's catalogue, JSON from /i18n/, not scripts.)"""
    seat = open_seat()
    page = seat.page
    # Every file from the server, as a first visit fetches it (not the lobby's cached copy).
    page.context.new_cdp_session(page).send("Network.setCacheDisabled", {"cacheDisabled": True})
    sizes: dict[str, int] = {}
    page.on(
        "response",
        lambda r: sizes.__setitem__(urlsplit(r.url).path, len(r.body()))
        if "/static/" in r.url else None,
    )
    # Counted from the table page's own navigation: the lobby's files are the lobby's.
    page.on("framenavigated", lambda f: f == page.main_frame and "/r/" in f.url and sizes.clear())
    start_table(seat)
    page.wait_for_load_state("networkidle")
    on_demand = {"/static/js/coach.js", "/static/css/coach.css"}
    results = {"/static/js/results.js", "/static/css/results.css"}
    # The deal's notes and the smaller calls' menu: once a deal is dealt, once a call is
    # offered. The table opens at the cut; if the computer wins it, it may choose and deal
    # before the page goes quiet, and the deal's notes then come with that first deal.
    dealt = {"/static/js/dealinfo.js", "/static/css/dealinfo.css"}
    calls = {"/static/js/sinking.js", "/static/css/sinking.css"}
    first = dict(sizes)
    dealt_yet = seat.attrs().get("phase") != "cut"  # (read after: a phase only moves on)
    assert any(url.endswith(".js") for url in first) and any(url.endswith(".css") for url in first)
    assert sum(n for url, n in first.items() if url not in dealt) < 100 * 1024, first
    assert not (on_demand | results | calls) & set(first), first
    assert dealt_yet or not dealt & set(first), first
    assert "/static/js/yourmove.js" not in sizes  # (the tab never went to the background)

    seat.play_until(lambda a: a.get("selecting") == "true")  # an exchange: a hint is offered
    assert not on_demand & set(sizes), sizes
    assert dealt <= set(sizes), sizes  # (drawn with the deal's first state)
    page.locator("[data-hint]").click()
    page.wait_for_selector("#coach [data-hint-kind]")
    assert on_demand <= set(sizes), sizes
    # Drawn with the coach's styles: the advised cards outlined, dashed.
    styles = page.eval_on_selector_all(
        "#hand .advised", "els => els.map(e => getComputedStyle(e).outlineStyle)")
    assert styles and set(styles) == {"dashed"}, styles

    assert not results & set(sizes), sizes
    seat.play_until(phase_is("deal_over"))
    assert results <= set(sizes), sizes
    # Drawn with the results' styles: the deal's table on the felt, on the panel's colour.
    assert page.locator("#middle [data-area=deal-table]").evaluate(
        "e => getComputedStyle(e).borderRadius") == "8px"
    deal = seat.view()["deal_number"]
    page.click(f"#actions [data-review='{deal}']")
    heading = page.locator(f"#review-title-{deal}")
    assert heading.inner_text() == f"Review of deal {deal}"
    assert page.evaluate("document.activeElement.id") == f"review-title-{deal}"

    page.goto("/replay")
    page.locator("#record-file").wait_for()
    page.wait_for_load_state("networkidle")
    assert {"/static/js/replay.js", "/static/css/replay.css"} <= set(sizes), sizes
    assert page.locator(".replay-open").evaluate("e => getComputedStyle(e).paddingLeft") == "14px"
