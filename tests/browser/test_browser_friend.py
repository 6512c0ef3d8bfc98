"""A friend's table: the link, the copy button, presence, a deal played by two people,
and the friend's page never holding the maker's cards (DOM and WebSocket frames)."""

from __future__ import annotations

import json
import re
from typing import Any

from browserkit import Seat, play_together, start_table

from engine import CARD_NAMES

CARD_NAMES_SCRIPT = re.compile(r'<script type="application/json" id="card-names">.*?</script>',
                               re.S)

CARD_TOKEN = re.compile(r'"((?:10|[AKQJ987])[SHDC])"')


def public_cards(view: dict[str, Any]) -> set[str]:
    """Cards this view shows face up to both seats."""
    out: set[str] = set(view.get("exposed_stock") or [])
    trick = view.get("trick") or {}
    out.update(card for card, _ in trick.get("cards") or [])
    for t in view.get("tricks") or []:
        out.update(card for card, _ in t["cards"])
    for s in view.get("shown") or []:
        out.update(s["cards"])
    for combo in view.get("combos") or []:
        if combo.get("shown"):
            out.update(combo.get("cards") or [])
    if view.get("phase") == "cut" or view.get("deal_number") == 0:
        out.update((view.get("cut") or {}).get("cards") or [])
    return out


def private_cards(view: dict[str, Any]) -> set[str]:
    return set(view["hand"]) | set(view["discards"]) | set(view.get("seen_stock") or [])


class LeakCheck:
    """The maker's private cards never reach the friend's page while they are private."""

    def __init__(self, maker: Seat, friend: Seat) -> None:
        self.maker = maker
        self.friend = friend
        self.checks = 0

    def dom(self) -> None:
        # The page as drawn: all but the fixed table of the 32 cards' names it carries.
        html = CARD_NAMES_SCRIPT.sub("", self.friend.page.content())
        assert "Queen of Hearts" in self.friend.page.content()  # that table is there
        on_page = set(
            self.friend.page.eval_on_selector_all(
                "[data-card]", "els => els.map(e => e.dataset.card)"
            )
        )
        friend_states = self.friend.states()
        maker_states = self.maker.states()
        if not friend_states or not maker_states:
            return
        maker_view = maker_states[-1]["view"]
        deal = maker_view["deal_number"]
        public: set[str] = set()
        for msg in friend_states + maker_states:
            if msg["view"]["deal_number"] == deal:
                public |= public_cards(msg["view"])
        secret = private_cards(maker_view) - public
        names = CARD_NAMES
        assert not (secret & on_page), f"maker's cards on the friend's page: {secret & on_page}"
        for card in secret:
            assert names[card] not in html, f"{names[card]} named on the friend's page"
        self.checks += 1

    def frames(self) -> None:
        """Every frame the friend's page received, against the maker's cards at that version."""
        maker = sorted(((m["version"], m["view"]) for m in self.maker.states()), key=lambda x: x[0])
        public_by_deal: dict[int, set[str]] = {}
        for raw in self.friend.frames:
            msg = json.loads(raw)
            if msg.get("type") != "state":
                assert not CARD_TOKEN.search(raw) or msg.get("type") == "error", raw
                continue
            view = msg["view"]
            deal = view["deal_number"]
            public = public_by_deal.setdefault(deal, set())
            public |= public_cards(view)
            earlier = [v for ver, v in maker if ver <= msg["version"] and v["deal_number"] == deal]
            if not earlier:
                continue
            # Cards the maker held (or threw away) and that nobody has shown since.
            secret: set[str] = set()
            for v in earlier:
                secret |= set(v["discards"]) | set(v.get("seen_stock") or [])
            secret |= private_cards(earlier[-1])
            secret -= public
            # The partie's cut cards come from their own shuffle: a maker's card may share
            # a name with one, so the cut is checked apart (it is public to both).
            names = CARD_NAMES
            assert "card_names" not in view  # cards are named once, by the page
            stripped = {k: v for k, v in view.items() if k != "cut"}
            text = json.dumps({**msg, "view": stripped}, ensure_ascii=False)
            sent = set(CARD_TOKEN.findall(text))
            assert not (secret & sent), f"version {msg['version']}: {secret & sent} sent"
            for card in secret:
                assert names[card] not in text, f"version {msg['version']}: {names[card]} sent"
            self.checks += 1


def test_friend_table(open_seat) -> None:
    maker = open_seat(permissions=["clipboard-read", "clipboard-write"])
    start_table(maker, "friend")
    page = maker.page
    # The link, a copy button, and "waiting for your friend".
    assert page.locator("#invite").is_visible()
    assert page.locator("[data-presence=waiting]").inner_text() == "Waiting for your friend…"
    page.click("#copy-link")
    page.wait_for_function(
        "() => document.getElementById('copy-status').textContent.includes('copied')")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link == page.locator("#invite-url").input_value()
    assert link.endswith(page.url.split("/r/", 1)[1])

    friend = open_seat()
    friend.page.goto(link)
    friend.wait_ready()
    assert friend.attrs()["seat"] == "1"
    invite = friend.page.locator("#invite")
    assert invite.count() == 0 or not invite.is_visible()
    page.wait_for_function(
        "() => document.getElementById('table').dataset.opponentConnected === 'true'")
    assert not page.locator("#invite").is_visible()
    assert page.locator("[data-presence=connected]").inner_text() == "Friend is connected"

    leaks = LeakCheck(maker, friend)
    play_together(
        [maker, friend],
        lambda attrs: all(a.get("phase") == "deal_over" for a in attrs),
        on_step=leaks.dom,
    )
    leaks.dom()
    leaks.frames()
    assert leaks.checks > 20
    for seat in (maker, friend):
        view = seat.view()
        seat.open_panels()
        row = seat.page.locator("#scores-body tr[data-deal='1']")
        assert row.locator(f"td[data-seat='{view['seat']}']").inner_text() == str(
            view["scores"]["sheet"][0][view["seat"]]
        )

    # The other seat's connection state.
    friend.page.close()
    page.wait_for_function(
        "() => document.getElementById('table').dataset.opponentConnected === 'false'")
    assert page.locator("[data-presence=disconnected]").inner_text() == "Friend is not connected"


def test_a_third_visitor_is_told_the_table_is_full(open_seat, watch, server) -> None:
    maker = open_seat()
    start_table(maker, "friend")
    link = maker.page.locator("#invite-url").input_value()
    friend = open_seat()
    friend.page.goto(link)
    friend.wait_ready()
    watch.allow("http", "409")
    watch.allow("console", "409")
    third = open_seat()
    response = third.page.goto(link)
    assert response is not None and response.status == 409
    assert third.page.locator("h1").inner_text() == "This table is full"
    third.page.click("a.button.primary")
    third.page.wait_for_url(f"{server}/")
    assert third.page.locator("button[data-opponent=computer]").is_visible()


def test_an_unknown_room_says_so(open_seat, watch) -> None:
    watch.allow("http", "404")
    watch.allow("console", "404")
    seat = open_seat()
    response = seat.page.goto("/r/no-such-room")
    assert response is not None and response.status == 404
    assert seat.page.locator("h1").inner_text() == "No such table"
