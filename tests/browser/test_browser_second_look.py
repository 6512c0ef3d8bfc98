"""The table, second look (issue 27): what a player, a watcher and a phone noticed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browserkit import ROOT_JS, Seat, axe_problems, launch, phase_is, start_table
from deals import find_seed
from websockets.sync.client import connect as ws_connect

import engine
from tests.serverproc import stop

DECLARING = ("elder_call", "younger_answer", "elder_lesser", "younger_call", "younger_lesser")


def contrast(fg: str, bg: str) -> float:
    """WCAG contrast ratio of two computed colours ("rgb(r, g, b)")."""

    def luminance(colour: str) -> float:
        channels = [int(x) / 255 for x in re.findall(r"[\d.]+", colour)[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    light, dark = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def both_modes_clean(page: Any, where: str) -> list[str]:
    """axe in normal and high contrast (the page is left as it was)."""
    found = []
    toggle = page.locator("[data-contrast-toggle]")
    for mode in ("normal", "high contrast"):
        found += [f"{where}, {mode}: {p}" for p in axe_problems(page)]
        toggle.click()
    return found


def watcher_of(open_seat: Callable[..., Seat], seat: Seat, **options: Any) -> Seat:
    """A third visitor at `seat`'s full table: the link opens the watcher's page."""
    third = open_seat(**options)
    third.page.goto(seat.page.url)
    third.wait_ready()
    assert third.attrs()["seat"] == "watch"
    return third


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., str]]:
    """seeded(wanted, **env) -> a server whose every room deals the first seed where the
    page's play against the basic computer comes to a state where `wanted` holds."""
    procs = []

    def make(wanted: Callable[[engine.State], bool], **env: str) -> str:
        seed = find_seed(wanted)
        log = tmp_path_factory.mktemp("seeded") / "server.log"
        proc, base = launch("tests.browser.seeded_app", log, PIQUET_TEST_SEEDS=str(seed), **env)
        procs.append(proc)
        return base

    yield make
    for proc in procs:
        stop(proc)


# ---- the seat to the computer ---------------------------------------------------------


@pytest.mark.parametrize("width", [1280, 320])
def test_the_seat_goes_to_the_computer_from_a_chooser_that_fits(open_seat, artifacts,
                                                                 width) -> None:
    """The level chooser beside "Play the computer" fits a 320px phone and reads at AA
    contrast; once the seat is the computer's, every page at the table names the level."""
    maker = open_seat(viewport={"width": width, "height": 800})
    start_table(maker, "friend")
    page = maker.page
    for mode in ("normal", "high contrast"):
        wide = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert wide[0] <= wide[1], f"{mode}: the page is {wide[0]}px wide in {wide[1]}px"
        for part in ("#computer-level", "#computer-seat"):
            box = page.locator(part).bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (part, box)
        assert page.locator("#computer-level").bounding_box()["width"] < 250  # type: ignore[index]
        fg, bg = page.eval_on_selector(
            "#computer-level", "e => [getComputedStyle(e).color,"
                               " getComputedStyle(e).backgroundColor]")
        assert contrast(fg, bg) >= 4.5, (mode, fg, bg)
        if mode == "normal":
            page.screenshot(path=str(artifacts / f"seat-to-computer-{width}.png"))
        page.locator("[data-contrast-toggle]").click()
    assert not both_modes_clean(page, "the invite")
    assert page.locator("#level-line").is_hidden()  # no computer yet

    page.select_option("#computer-level", "good")
    before = maker.version()
    page.click("#computer-seat")
    maker.wait_moved(before)
    line = "The computer plays at the good level."
    assert page.locator("#level-line").inner_text() == line  # at once, no reload
    third = watcher_of(open_seat, maker)
    assert third.page.locator("#level-line").inner_text() == line


# ---- what a watcher is told -------------------------------------------------------------


def never_you(watcher: Seat) -> None:
    """The watcher's page names both seats: no "you" anywhere but in its own line."""
    page = watcher.page
    text = page.evaluate(
        f"""() => {{ const t = {ROOT_JS}.cloneNode(true);
                   t.querySelector('#prompt').remove();
                   t.querySelectorAll('#invite, noscript, #announcer').forEach(e => e.remove());
                   return [t.textContent,
                           ...[...t.querySelectorAll('[aria-label]')]
                             .map(e => e.getAttribute('aria-label')),
                           ...[...document.querySelectorAll('summary')].map(e => e.textContent)]
                     .join(' | '); }}""")
    assert not re.search(r"\byou(r)?\b", text, re.I), text
    prompt = page.locator("#prompt").inner_text()
    assert prompt.startswith("You are watching: you see what is public, never a hand.")
    assert not re.search(r"\byou(r)?\b", prompt.split("never a hand.", 1)[1], re.I), prompt


def test_a_watcher_is_told_who_does_what(open_seat, artifacts) -> None:
    """At a computer table, the watcher: both seats named, the host's backs named, the
    counter says who deals and who is elder, the prompt what the seat to move is doing."""
    seat = open_seat()
    start_table(seat)
    third = watcher_of(open_seat, seat)
    page = third.page
    assert page.locator("#level-line").inner_text() == "The computer plays at the basic level."
    # The host by the name they go by (a guest's: they gave none).
    host_name = third.last_state()["room"]["seats"][0]["name"]
    assert host_name.startswith("Guest ")
    saw: set[str] = set()

    def look(_: Seat) -> None:
        # The page read in one go, against the state it draws (the next may come any time).
        version, counter, prompt, host, caption = page.evaluate(
            f"""() => [+{ROOT_JS}.dataset.version,
                       ...['#counter-deal', '#prompt', '#hand .watched-seat .seat-name',
                           '.trick-caption'].map(s => document.querySelector(s)?.innerText)]""")
        view = third.view_at(version)
        if view is None or not view["deal_number"]:
            return
        never_you(third)
        names = {0: host_name, 1: "Computer"}
        assert f"{names[view['dealer']]} deals" in counter, counter
        assert f"{names[view['elder']]} is elder hand" in counter, counter
        assert host == host_name
        if view["to_move"] is not None and view["step"] in DECLARING:
            who = names[view["to_move"]]
            assert f"{who} is declaring" in prompt or f"{who} is answering" in prompt, prompt
            saw.add("declaring")
        if view["phase"] == "play" and (view["trick"] or view["tricks"]):
            assert re.search(rf"({host_name}|Computer) (led|won the trick)", caption), caption
            if len(view["tricks"]) >= 2 and "trick" not in saw:
                page.evaluate("Promise.all(document.getAnimations().map(a => a.finished))")
                page.screenshot(path=str(artifacts / "watcher-trick.png"))
                saw.add("trick")

    seat.on_step = look
    seat.on_poll = look
    seat.play_until(lambda a: a.get("phase") == "play" and len(seat.view()["tricks"]) >= 3)
    third.page.wait_for_function(f"() => +{ROOT_JS}.dataset.version >= {seat.version()}")
    look(seat)
    third.open_panels()
    never_you(third)
    assert f"Tricks won: {host_name}" in page.locator("#cards-body .tricks-won").inner_text()
    assert saw == {"declaring", "trick"}, saw
    assert not axe_problems(page)


# ---- the log, the counter heard, the See buttons ------------------------------------------


def test_the_log_is_reached_by_keyboard_and_keeps_the_readers_place(open_seat) -> None:
    seat = open_seat()
    start_table(seat)
    page = seat.page
    seat.play_until(lambda a: a.get("phase") == "play" and len(seat.view()["tricks"]) >= 3)
    page.locator("#panel-log summary").focus()
    page.keyboard.press("Enter")
    log = page.locator("#log-body .log")
    log.wait_for()
    first_line_shown = (
        "() => { const l = document.querySelector('#log-body .log');"
        " const f = l.querySelector('li').getBoundingClientRect();"
        " const b = l.getBoundingClientRect();"
        " return f.top >= b.top - 1 && f.bottom <= b.bottom + 1; }")
    assert log.evaluate("l => l.scrollHeight > l.clientHeight"), "a log too short to scroll"
    assert page.evaluate(first_line_shown), "the log opened past its first line"
    page.keyboard.press("Tab")  # from its summary, the next stop is the log itself
    assert page.evaluate("document.activeElement.matches('#log-body .log')")
    assert not [p for p in axe_problems(page) if "scrollable-region" in p]
    # Play on: a new line does not scroll the reader away from where they are.
    page.locator("body").focus()
    before = seat.version()
    seat.play_until(lambda a: int(a["version"]) > before + 2)
    assert page.evaluate(first_line_shown), "a new state scrolled the log"
    # At its end, it follows the play.
    log.evaluate("l => { l.scrollTop = l.scrollHeight; }")
    before = seat.version()
    seat.play_until(lambda a: int(a["version"]) > before + 2)
    assert log.evaluate("l => l.scrollTop + l.clientHeight >= l.scrollHeight - 2")


def alike_sees(state: engine.State) -> bool:
    """The computer scored two calls of the same words ("Tierce", "Tierce")."""
    labels = [a["label"] for a in engine.view(state, 0)["legal"] if a["type"] == "see"]
    return len(labels) != len(set(labels))


def test_two_calls_alike_are_told_apart_and_the_counter_is_heard_whole(open_seat, seeded) -> None:
    seat = open_seat(base_url=seeded(alike_sees))
    start_table(seat)
    page = seat.page
    seat.play_until(lambda a: page.locator("#deal-info [data-type=see]").count() >= 2,
                    timeout_s=120)
    names = page.eval_on_selector_all("#deal-info [data-type=see]",
                                      "els => els.map(e => e.textContent.trim())")
    words = [a["label"] for a in seat.view()["legal"] if a["type"] == "see"]
    assert len(set(words)) < len(words), words  # the engine words two alike
    assert len(set(names)) == len(names), names  # the page tells them apart
    assert all(any(n.startswith(w) for w in words) for n in names), (names, words)
    # Read aloud, the counter keeps its pauses: "Computer deals, you are elder hand".
    heard = page.locator("#counter-deal").aria_snapshot()
    assert re.search(r"deals?\W+you are (elder|younger) hand", heard), heard


# ---- presence alone -----------------------------------------------------------------------


def test_watchers_coming_and_going_redraw_only_who_is_here(open_seat) -> None:
    """A presence message changes the presence line, not the table: the hand, the middle,
    the prompt and the buttons are not drawn again however many watchers come and go."""
    seat = open_seat()
    start_table(seat)
    page = seat.page
    # My exchange: the computer waits for me, so nothing else changes meanwhile.
    seat.play_until(lambda a: a.get("selecting") == "true")
    version = seat.version()
    page.evaluate(
        """() => { window.__redrawn = [];
                   for (const part of ['#counter', '#middle', '#hand', '#prompt', '#actions',
                                       '#deal-info', '.panels']) {
                     new MutationObserver(() => window.__redrawn.push(part))
                       .observe(document.querySelector(part), {childList: true, subtree: true});
                   } }""")
    room_id = page.url.rsplit("/", 1)[1]
    url = seat.page.url.replace("http", "ws", 1).replace(f"/r/{room_id}", f"/ws/{room_id}?watch=1")
    for _ in range(8):
        with ws_connect(url) as ws:
            ws.recv(timeout=10)  # its state: it is watching
            page.wait_for_selector("[data-watchers='1']")
    page.wait_for_function("() => !document.querySelector('[data-watchers]')")
    assert seat.version() == version
    assert page.evaluate("window.__redrawn") == []


# ---- the computer's pace ------------------------------------------------------------------


def test_a_trick_the_computer_won_stays_until_the_person_goes_on(own_server, open_seat) -> None:
    """The computer holds its lead after a trick it won (here far longer than any test
    waits), the trick in view, until the person presses a key: then it leads."""
    base = own_server(PIQUET_COMPUTER_TRICK_HOLD="600")
    seat = open_seat(base_url=base)
    start_table(seat)
    page = seat.page

    def held(a: dict[str, str]) -> bool:
        view = seat.view_at(int(a["version"]))
        return bool(view and view["step"] == "lead" and view["to_move"] != view["seat"]
                    and view["tricks"] and not view["trick"])

    seat.play_until(lambda a: held(a) or a.get("phase") == "deal_over")
    assert held(seat.attrs()), "the computer never won a trick and led after it"
    before = seat.version()
    trick = page.locator("#middle .trick.finished")
    assert trick.locator(".played").count() == 2
    assert page.locator(".trick-caption").inner_text().endswith("Computer won the trick")
    assert "press a key to go on" in page.locator("#prompt").inner_text()
    page.keyboard.press("Shift")
    seat.wait_moved(before)  # its lead, long before the hold would end
    assert {"type": "go_on", "version": before} in [json.loads(m) for m in seat.sent]
    view = seat.view()
    assert view["trick"] and view["trick"]["leader"] == 1 - view["seat"]


def calls_after_the_lead(state: engine.State) -> bool:
    """The computer, younger, has made a call after elder's first lead and has more to say."""
    v = engine.view(state, 0)
    if v["to_move"] != 1 or v["step"] not in ("younger_call", "younger_lesser"):
        return False
    run = []
    for line in reversed(engine.deal_log(state, 0)):
        if line["seat"] != 1 or line["kind"] not in ("call", "answer", "score", "bonus"):
            break
        run.append(line)
    return any(line["kind"] == "call" for line in run)


def test_the_computer_says_its_calls_as_it_makes_them(open_seat, seeded) -> None:
    """As elder, after the lead: "Computer is declaring: Point of four, Quart…", each call
    in the prompt as it is made (the computer at a pace a test can see each step at)."""
    seat = open_seat(base_url=seeded(calls_after_the_lead, PIQUET_COMPUTER_DELAY="1",
                                     PIQUET_COMPUTER_DECLARE_DELAY="1"))
    start_table(seat)
    page = seat.page
    told: list[list[str]] = []

    def look(s: Seat) -> None:
        shown = page.evaluate(f"[+{ROOT_JS}.dataset.version, "
                              "document.getElementById('prompt').innerText]")
        view = s.view_at(shown[0])
        if not view or view["to_move"] != 1 - view["seat"]:
            return
        if view["step"] not in ("younger_call", "younger_lesser"):
            return
        said = []
        for line in reversed(s.log_at(shown[0])):
            if line["seat"] != 1 - view["seat"] or line["kind"] not in ("call", "answer",
                                                                        "score", "bonus"):
                break
            if line["kind"] in ("call", "answer"):
                said.insert(0, line["text"])
        assert shown[1].startswith("Computer is declaring"), shown
        for text in said:
            assert text in shown[1], (said, shown)
        told.append(said)

    seat.on_poll = look
    seat.play_until(lambda a: any(told_ for told_ in told) or a.get("phase") == "deal_over")
    assert any(told), "the computer made no call after the lead that the page showed"


# ---- a phone: what is answered, and the deal's end ----------------------------------------


def person_answers(state: engine.State) -> bool:
    v = engine.view(state, 0)
    return v["step"] == "younger_answer" and v["to_move"] == 0


def test_on_a_phone_the_call_answered_and_the_deals_result_are_in_view(open_seat, seeded,
                                                                      artifacts) -> None:
    seat = open_seat(base_url=seeded(person_answers),
                     viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
    seat.use_tap = True
    start_table(seat)
    page = seat.page
    answered = []

    def look(s: Seat) -> None:
        a = s.attrs()
        if a.get("step") != "younger_answer" or a.get("myTurn") != "true":
            return
        view = s.view_at(int(a["version"]))
        assert view is not None
        page.evaluate("window.scrollTo(0, 0)")
        height = page.evaluate("window.innerHeight")
        for part in ("#prompt [data-area=said-now]", "#actions > [data-action]"):
            for top, bottom in page.eval_on_selector_all(
                    part, "els => els.map(e => { const r = e.getBoundingClientRect();"
                          " return [r.top, r.bottom]; })"):
                assert top >= 0 and bottom <= height + 0.5, (part, top, bottom)
        said = page.locator("#prompt [data-area=said-now]").inner_text()
        category = view["declaring"]["category"]
        now = next(d for d in view["declarations"] if d["category"] == category)
        assert now["said"][-1].split(": ", 1)[1] in said, (said, now)
        assert "Computer: " in said
        if not answered:
            page.screenshot(path=str(artifacts / "phone-answering-a-call.png"))
        answered.append(view["declaring"]["category"])

    seat.on_step = look
    seat.play_until(phase_is("deal_over"))
    assert answered
    # The deal's end: its table right above "Deal next hand", no empty band between.
    page.evaluate("window.scrollTo(0, 0)")
    table = page.locator("#middle [data-area=deal-table]").bounding_box()
    todo = page.locator("#prompt").bounding_box()
    assert table and todo
    assert todo["y"] - (table["y"] + table["height"]) < 60, (table, todo)
    page.locator("#actions [data-type=next_deal]").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "phone-deal-result.png"))


# ---- the deal's result -----------------------------------------------------------------------


def test_the_deals_result_is_told_part_by_part(open_seat, artifacts) -> None:
    seat = open_seat()
    start_table(seat)
    page = seat.page
    seat.play_until(phase_is("deal_over"))
    view = seat.view()
    me, them = view["seat"], 1 - view["seat"]
    sc = view["scores"]
    table = page.locator("#middle [data-area=deal-table]")
    assert table.locator("thead th").all_inner_texts() == ["You", "Computer"]
    parts = sc["parts"]
    for key in ("point", "sequences", "sets", "pique", "play", "cards", "capot"):
        cells = table.locator(f"tr[data-part='{key}'] td").all_inner_texts()
        want = [parts[s].get(key, 0) or (parts[s].get("repique", 0) if key == "pique" else 0)
                for s in (me, them)]
        assert cells == [str(x) for x in want], (key, cells, want)
    assert table.locator("tr[data-total] td").all_inner_texts() == [
        str(sc["deal"][me]), str(sc["deal"][them])]
    assert table.locator("tr[data-partie] td").all_inner_texts() == [
        str(sc["partie"][me]), str(sc["partie"][them])]
    # Beside "Deal next hand": both in view together.
    button = page.locator("#actions [data-type=next_deal]")
    button.scroll_into_view_if_needed()
    assert table.is_visible() and button.is_visible()
    box, under = table.bounding_box(), button.bounding_box()
    assert box and under and under["y"] + under["height"] - box["y"] < page.viewport_size["height"]  # type: ignore[index]
    page.screenshot(path=str(artifacts / "deal-result.png"))
    assert not both_modes_clean(page, "deal over")
