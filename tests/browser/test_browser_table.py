"""What a player noticed in a first whole partie (issue 17): each a fix the page keeps."""

from __future__ import annotations

from browserkit import Seat, axe_problems, start_table


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
        # (The view the page has drawn: a newer state may have come and not be drawn yet.)
        drawn = s.view_at(s.version())
        exposed = (drawn or {}).get("exposed_stock") or []
        if not exposed or s.attrs().get("phase") != "play":
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


def test_the_sinking_menu_is_grouped_compact_and_explained(open_seat, artifacts) -> None:
    """The smaller calls sinking allows: by category, then one row per call with a
    button per suit, and a plain sentence saying what sinking is."""
    seat = open_seat()
    start_table(seat)
    page = seat.page
    seen = False

    def look(s: Seat) -> None:
        nonlocal seen
        if seen or s.attrs().get("myTurn") != "true" or not page.locator("details.sinking").count():
            return
        view = s.view_at(s.version())
        if view is None:
            return
        page.locator("details.sinking > summary").click()
        menu = page.locator("details.sinking")
        assert "keep your hand hidden" in menu.locator(".sinking-help").inner_text()
        buttons = menu.locator("[data-action]")
        entries = [view["legal"][int(i)] for i in
                   buttons.evaluate_all("els => els.map(e => e.dataset.action)")]
        assert entries and all(e["type"] == "call" for e in entries)
        # Grouped: every button sits in its category's group, in the row of its words.
        for group in menu.locator(".sink-group").all():
            category = group.get_attribute("data-category")
            for row in group.locator(".sink-row").all():
                for b in row.locator("[data-action]").all():
                    entry = view["legal"][int(b.get_attribute("data-action") or "0")]
                    assert entry["category"] == category
                    assert entry["label"] == row.get_attribute("data-label")
        rows = menu.locator(".sink-row").count()
        assert rows == len({(e["category"], e["label"]) for e in entries})
        # Compact: a call's suits share one line, not a button per line.
        for row in menu.locator(".sink-row").all():
            button = row.locator("[data-action]").first.bounding_box()
            box = row.bounding_box()
            assert button and box and box["height"] < 1.5 * button["height"], (box, button)
        menu.screenshot(path=str(artifacts / "sinking-menu.png"))
        # Its groups are named, not headings: the page's outline skips no level.
        order = [p for p in axe_problems(page, ("minor", "moderate", "serious", "critical"))
                 if p.startswith("heading-order")]
        assert not order, order
        page.locator("details.sinking > summary").click()
        seen = True

    seat.on_poll = look
    seat.play_until(lambda a: seen or int(seat.view()["deal_number"]) > 2)
    assert seen, "no sinking menu in two deals"


def test_the_rules_open_beside_the_table(open_seat) -> None:
    seat = open_seat()
    start_table(seat)
    page = seat.page
    table_url = page.url
    with page.context.expect_page() as opened:
        page.click("[data-rules-link]")
    rules = opened.value
    rules.wait_for_load_state()
    assert rules.url.endswith("/rules")
    assert page.url == table_url and seat.attrs()["connection"] == "open"
    rules.close()


def test_the_bonus_toast_hides_nothing(open_seat) -> None:
    """A pique, repique or capot toast lies over no part of the game."""
    seat = open_seat()
    start_table(seat)
    page = seat.page
    seat.play_until(lambda a: a.get("phase") == "play")
    page.evaluate(
        """() => { const t = document.getElementById('toast');
                   t.innerHTML = '<div class="toast-item"><strong>Repique!</strong>'
                     + '<span>You score 60</span></div>';
                   t.classList.add('show'); }"""
    )
    toast = page.locator("#toast").bounding_box()
    assert toast and toast["width"] > 0
    for part in ("#middle", "#hand", "#actions", "#prompt", "#deal-info", "#opponent .opp-hand",
                 "#counter-deal", "#counter-scores"):
        box = page.locator(part).bounding_box()
        if not box:
            continue
        apart = (toast["x"] + toast["width"] <= box["x"] or box["x"] + box["width"] <= toast["x"]
                 or toast["y"] + toast["height"] <= box["y"]
                 or box["y"] + box["height"] <= toast["y"])
        assert apart, f"the toast covers {part}: {toast} {box}"


def test_the_computers_play_can_be_followed(own_server, open_seat, artifacts) -> None:
    """At the computer's real pace before a lead (PIQUET_COMPUTER_LEAD_DELAY): the cut
    stays with both cards and its winner, in the log too, until the winner chooses; a
    trick the computer wins stays on the table, leaning to it, until its next lead; a
    card played moves in. With prefers-reduced-motion, nothing moves."""
    base = own_server(PIQUET_COMPUTER_LEAD_DELAY="1.5")
    seat = open_seat(base_url=base)
    start_table(seat)
    page = seat.page
    assert seat.attrs()["phase"] == "cut"
    assert page.locator("#middle [data-area=cut] [data-card]").count() == 2
    assert "the cut" in page.locator("#middle .cut-result").inner_text()
    page.screenshot(path=str(artifacts / "cut.png"))
    assert sum("Cuts the" in line for line in seat.log_lines()) >= 2  # in the log
    caught = False

    def look(s: Seat) -> None:
        nonlocal caught
        view = s.view_at(s.version())
        if caught or not view or view["phase"] != "play" or view["trick"]:
            return
        if not view["tricks"] or view["tricks"][-1]["winner"] == view["seat"]:
            return
        trick = page.locator("#middle .trick")
        assert "finished" in (trick.get_attribute("class") or "")
        assert "won-theirs" in (trick.get_attribute("class") or "")
        assert page.locator(".trick-caption").inner_text().endswith("Computer won the trick")
        moving = page.eval_on_selector_all(
            "#middle .played", "els => els.map(e => getComputedStyle(e).animationName)")
        assert any(name.startswith("from-") for name in moving), moving
        page.evaluate("Promise.all(document.getAnimations().map(a => a.finished))")
        page.screenshot(path=str(artifacts / "trick-won-by-computer.png"))
        caught = True

    seat.on_poll = look
    # Into the next deal if need be: in a deal where the computer takes no trick, or
    # only the last, it never leads after winning one.
    seat.play_until(lambda a: caught or a.get("phase") == "partie_over", timeout_s=600)
    assert caught, "the computer won no trick that the page showed"

    calm = open_seat(base_url=base, reduced_motion="reduce")
    start_table(calm)
    calm.play_until(lambda a: a.get("phase") == "play"
                    and calm.page.locator("#middle .played[class*=arrive]").count() > 0)
    names = calm.page.eval_on_selector_all(
        "#middle .played, #middle .trick-cards",
        "els => els.map(e => getComputedStyle(e).animationName)")
    assert set(names) == {"none"}, names


def test_on_a_phone_what_to_do_now_is_in_view_without_scrolling(open_seat, artifacts) -> None:
    """390 x 844: on each of the person's turns, with the page at its top, the prompt and
    every button of the turn (or the playable cards) are on screen, and the counter
    still says whether you are elder or younger hand."""
    seat = open_seat(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    seat.use_tap = True
    start_table(seat)
    page = seat.page
    looked: set[str] = set()

    def look(s: Seat) -> None:
        a = s.attrs()
        if a.get("myTurn") != "true" or a.get("busy") == "true":
            return
        key = a["step"]
        page.evaluate("window.scrollTo(0, 0)")
        height = page.evaluate("window.innerHeight")
        parts = ["#prompt", "#actions > [data-action]", "#actions > details > summary"]
        if page.locator("#hand .playable").count():
            parts.append("#hand .playable")
        for part in parts:
            for box in page.eval_on_selector_all(
                part, "els => els.map(e => { const r = e.getBoundingClientRect();"
                " return [r.top, r.bottom]; })"
            ):
                assert box[0] >= 0 and box[1] <= height + 0.5, f"{key}: {part} at {box}"
        if a["phase"] in ("exchange", "declare", "play"):
            role = page.locator("#counter-deal .role-me")
            assert role.is_visible() and "hand" in role.inner_text(), key
        if key not in looked:
            looked.add(key)
            page.screenshot(path=str(artifacts / f"phone-390-{len(looked):02d}-{key}.png"))

    seat.on_step = look  # each of the person's turns, before the person acts
    seat.play_until(lambda a: a.get("phase") == "deal_over")
    assert looked & {"lead", "follow"}, looked
    assert looked & {"elder_call", "younger_answer", "younger_call"}, looked


def test_the_lobby_fan_shows_every_corner(open_seat) -> None:
    """No card of the lobby's fan covers another's rank or suit letter."""
    for viewport in ({"width": 1280, "height": 900}, {"width": 390, "height": 844}):
        seat = open_seat(viewport=viewport)
        seat.page.goto("/")
        covered = seat.page.evaluate(
            """() => [...document.querySelectorAll(
                   '.lobby-fan .card-rank, .lobby-fan .card-letter')]
                 .filter(e => { const r = e.getBoundingClientRect();
                   const top = document.elementFromPoint(
                     r.left + r.width / 2, r.top + r.height / 2);
                   return !top || top.closest('.card') !== e.closest('.card'); })
                 .map(e => e.closest('.card').className + ' ' + e.className)"""
        )
        assert not covered, (viewport, covered)
