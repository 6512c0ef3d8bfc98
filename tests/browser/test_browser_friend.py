"""A friend's table: the link, the copy button, presence, a deal played by two people,
and the friend's page never holding the maker's cards (DOM and WebSocket frames)."""

from __future__ import annotations

import contextlib
import json
import random
import re
from typing import Any

from browserkit import Seat, axe_problems, play_together, start_table
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

from engine import CARD_NAMES

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
        """The page as drawn, against the maker's cards at the version it draws: read in
        one go (the page's version, its cards and its HTML), as separate reads straddle a
        new state on a busy machine (the page still on the cut, the maker's state read a
        moment later already in the deal, whose cards may share a name with a cut card)."""
        version, on_page_list, html = self.friend.page.evaluate(
            """() => [+document.getElementById('table').dataset.version,
                      [...document.querySelectorAll('[data-card]')].map(e => e.dataset.card),
                      document.documentElement.outerHTML]"""
        )
        # The 32 cards' names come with the language's catalogue (fetched as JSON), not
        # in the page: a card named in the HTML is a card drawn.
        assert 'id="card-names"' not in html
        on_page = set(on_page_list)
        drawn = [m for m in self.friend.states() if m["version"] == version]
        maker_states = [m for m in self.maker.states() if m["version"] <= version]
        if not drawn or not maker_states:
            return  # the frame has not reached this test yet: checked on a later look
        deal = drawn[-1]["view"]["deal_number"]
        maker_view = maker_states[-1]["view"]
        if maker_view["deal_number"] != deal:
            return  # the maker's page is a deal behind the friend's
        public: set[str] = set()
        for msg in self.friend.states() + maker_states:
            if msg["version"] <= version and msg["view"]["deal_number"] == deal:
                public |= public_cards(msg["view"])
        secret = private_cards(maker_view) - public
        names = CARD_NAMES
        assert not (secret & on_page), (
            f"version {version}: maker's cards on the friend's page: {secret & on_page}")
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
    # The friend by the name they go by (a guest's: they gave none).
    friend_name = maker.last_state()["room"]["seats"][1]["name"]
    assert friend_name.startswith("Guest ")
    assert page.locator("[data-presence=connected]").inner_text() == f"{friend_name} is connected"

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
    assert page.locator("[data-presence=disconnected]").inner_text() == (
        f"{friend_name} is not connected")


def test_a_third_visitor_watches_and_sees_only_what_is_public(open_seat, artifacts) -> None:
    maker = open_seat()
    start_table(maker, "friend")
    page = maker.page
    # Nobody has cut yet: the cut is made once the friend sits down.
    assert page.locator("#middle [data-card]").count() == 0
    assert "once your friend sits down" in page.locator("#middle").inner_text()
    link = page.locator("#invite-url").input_value()
    friend = open_seat()
    friend.page.goto(link)
    friend.wait_ready()
    # Both seated: both cut cards and who won, until the winner chooses.
    cut = maker.view()["cut"]
    page.wait_for_function("() => document.querySelectorAll('#middle [data-area=cut] [data-card]')"
                           ".length === 2")
    assert re.search(r"wins? the cut", page.locator("#middle .cut-result").inner_text())
    page.screenshot(path=str(artifacts / "cut-friend.png"))
    assert sorted(cut["cards"]) == sorted(
        page.eval_on_selector_all("#middle [data-card]", "els => els.map(e => e.dataset.card)"))

    third = open_seat()
    response = third.page.goto(link)
    assert response is not None and response.status == 200
    third.wait_ready()
    assert third.attrs()["seat"] == "watch"
    assert "watching" in third.page.locator("#prompt").inner_text()
    for seat in (maker, friend):
        seat.page.wait_for_function("() => !!document.querySelector('[data-watchers=\"1\"]')")
    checks = [LeakCheck(maker, third), LeakCheck(friend, third)]

    def look() -> None:
        for check in checks:
            check.dom()
        assert third.page.locator("#hand [data-action], #actions [data-action]").count() == 0

    play_together(
        [maker, friend],
        lambda attrs: all(a.get("phase") == "play" for a in attrs)
        and len(maker.view()["tricks"]) >= 3,
        on_step=look,
    )
    third.page.wait_for_function(
        f"() => +document.getElementById('table').dataset.version >= {maker.version()}")
    look()
    # The watcher sees both seats' backs, the played cards and the scores.
    view = third.view()
    assert view["seat"] is None and view["hand"] == []
    assert third.page.locator("#hand .back").count() == view["hand_counts"][0]
    assert third.page.locator("#opponent .back").count() == view["hand_counts"][1]
    third.page.screenshot(path=str(artifacts / "watcher.png"), full_page=True)
    assert not axe_problems(third.page)
    for check in checks:
        check.frames()
        assert check.checks > 5


def test_a_friend_who_never_comes_gives_the_seat_to_the_computer(open_seat) -> None:
    maker = open_seat()
    start_table(maker, "friend")
    page = maker.page
    options = page.locator("#computer-level option")
    assert [options.nth(i).get_attribute("value") for i in range(options.count())] == \
        ["basic", "good", "strong"]
    before = maker.version()
    page.click("#computer-seat")
    maker.wait_moved(before)
    assert maker.last_state()["room"]["opponent"] == "computer"
    assert not page.locator("#invite").is_visible()
    maker.play_until(lambda a: a.get("phase") == "play")
    assert "Computer" in page.locator("#opponent").inner_text()


def test_an_unknown_room_says_so(open_seat, watch) -> None:
    watch.allow("http", "404")
    watch.allow("console", "404")
    seat = open_seat()
    response = seat.page.goto("/r/no-such-room")
    assert response is not None and response.status == 404
    assert seat.page.locator("h1").inner_text() == "No such table"


class Bot:
    """One seat played from Python over its own WebSocket (the seat cookie taken from the
    browser), so a whole partie goes by quickly while the pages look on."""

    def __init__(self, ws: ClientConnection, seat: int) -> None:
        self.ws = ws
        self.seat = seat
        self.view: dict[str, Any] = {}
        self.version = 0
        self.ids = 0

    def read(self, timeout: float = 0.01) -> None:
        with contextlib.suppress(TimeoutError):
            while True:
                msg = json.loads(self.ws.recv(timeout=timeout))
                if msg["type"] == "state":
                    self.view, self.version = msg["view"], msg["version"]
                timeout = 0.001

    def act(self, entry: dict[str, Any], rng: random.Random) -> None:
        action = {k: v for k, v in entry.items() if k not in ("label", "say")}
        if action["type"] == "discard":
            action = {"type": "discard", "cards": rng.sample(self.view["hand"], entry["min"])}
        self.ids += 1
        self.ws.send(json.dumps({"type": "action", "version": self.version,
                                 "id": f"bot{self.seat}-{self.ids}", "action": action}))


def test_play_again_needs_both_and_the_other_seat_deals_first(own_server, open_seat) -> None:
    # A server of its own, whose per-seat message allowance lets the bots play at speed.
    server = own_server(PIQUET_RATE_LIMIT_PER_SECOND="1000", PIQUET_RATE_LIMIT_BURST="1000")
    play_again(open_seat, server)


def play_again(open_seat: Any, server: str) -> None:
    maker = open_seat(base_url=server)
    start_table(maker, "friend")
    link = maker.page.locator("#invite-url").input_value()
    friend = open_seat(base_url=server)
    friend.page.goto(link)
    friend.wait_ready()
    room_id = link.rsplit("/", 1)[1]
    bots = []
    sockets = contextlib.ExitStack()
    for number, seat in enumerate((maker, friend)):
        token = next(c["value"] for c in seat.page.context.cookies()
                     if c["name"] == f"piquet_seat_{room_id}")
        url = server.replace("http", "ws", 1) + f"/ws/{room_id}"
        ws = sockets.enter_context(
            ws_connect(url, additional_headers={"Cookie": f"piquet_seat_{room_id}={token}"}))
        bots.append(Bot(ws, number))
    rng = random.Random(17)
    for _ in range(3000):
        for bot in bots:
            bot.read()
        if bots[0].view.get("phase") == "partie_over":
            break
        moves = {b.seat: [e for e in b.view.get("legal", []) if e["type"] != "see"]
                 for b in bots}
        mover = next((b for b in bots if b.view.get("to_move") == b.seat and moves[b.seat]),
                     None) or next((b for b in bots if moves[b.seat]), None)
        if mover is None:  # a state still on its way
            for bot in bots:
                bot.read(timeout=0.2)
            continue
        before = mover.version
        mover.act(rng.choice(moves[mover.seat]), rng)
        while mover.version <= before:
            mover.read(timeout=5)
    first_dealer = 1 - bots[0].view["dealer"] if bots[0].view["deal_number"] % 2 == 0 \
        else bots[0].view["dealer"]
    sockets.close()
    for seat in (maker, friend):
        seat.page.wait_for_function("() => document.getElementById('table').dataset.phase"
                                    " === 'partie_over'")
    maker.page.click("[data-new-match=confirm]")
    maker.page.wait_for_selector("[data-rematch=asked]")
    assert "press Play again" in maker.page.locator("[data-rematch=asked]").inner_text()
    friend.page.wait_for_selector("[data-rematch=invited]")
    assert friend.attrs()["phase"] == "partie_over"
    friend.page.click("[data-new-match=confirm]")
    for seat in (maker, friend):
        seat.page.wait_for_function("() => document.getElementById('table').dataset.phase"
                                    " === 'exchange'")
        view = seat.view()
        assert view["deal_number"] == 1 and view["dealer"] == 1 - first_dealer
