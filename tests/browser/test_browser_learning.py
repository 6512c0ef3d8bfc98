"""Learning at the table, the page's side (issue 26): the hint on each kind of decision, a
deal's review and a look back at one of its positions, the practice table as both seats
and a watcher see it, and the record downloaded and replayed (from the file, and from the
table's own replay link), with axe-core on each new part in both contrast modes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from browserkit import ROOT_JS, Seat, axe_problems, phase_is, play_together, start_table

Json = dict[str, Any]


# ---- what the server sent ----------------------------------------------------------------


def frames_of(seat: Seat, kind: str) -> list[Json]:
    return [m for m in (json.loads(f) for f in list(seat.frames)) if m.get("type") == kind]


def same(action: Json) -> str:
    """An action or legal entry as compared: no label, cards as a set (as learn.js does)."""
    return json.dumps({k: sorted(v) if k == "cards" else v for k, v in action.items()
                       if k not in ("label", "say")}, sort_keys=True)


def decision(view: Json) -> str:
    """The kind of decision the view asks of its seat: the hint's kinds."""
    types = {e["type"] for e in view["legal"]}
    if "discard" in types:
        return "exchange"
    if "play" in types:
        return "play"
    if "answer" in types:
        return "answer"
    if view["step"] in ("elder_lesser", "younger_lesser"):
        return "lesser"
    return "call" if types & {"call", "pass"} else "other"


def both_modes(page: Any, where: str) -> list[str]:
    """axe in both contrast modes at 1280 and 375 px (the page is left as it was)."""
    found = []
    size = page.viewport_size
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 900})
        for mode in ("normal", "high contrast"):
            found += [f"{where}, {width}px, {mode}: {p}" for p in axe_problems(page)]
            page.locator("[data-contrast-toggle]").click()
    page.set_viewport_size(size)
    return found


# ---- the hint ------------------------------------------------------------------------------


def ask_hint(seat: Seat, by_key: bool = False) -> Json:
    """Presses Hint (or H) on this state; the hint the page shows, as the server sent it."""
    page = seat.page
    version = seat.version()
    button = page.locator("[data-hint]")
    assert button.inner_text() == "Hint"
    if by_key:
        page.locator("body").focus()
        page.keyboard.press("h")
    else:
        button.click()
    page.wait_for_selector("#coach [data-hint-kind]")
    hints = [m for m in frames_of(seat, "hint") if m["version"] == version]
    assert hints, "the page shows a hint the server never sent"
    return dict(hints[-1]["hint"])


def check_hint_drawn(seat: Seat, hint: Json) -> None:
    """The hint on the table: its words, its cards outlined or its card raised, its button
    ringed; never a card the view does not hold."""
    page = seat.page
    view = seat.view_at(seat.version())
    assert view is not None
    coach = page.locator("#coach").inner_text()
    assert hint["why"] in coach
    advised = page.eval_on_selector_all("#hand .advised", "els => els.map(e => e.dataset.card)")
    assert set(advised) <= set(view["hand"]), (advised, view["hand"])
    if hint["kind"] == "exchange":
        assert sorted(advised) == sorted(hint["action"]["cards"])
        # The best two or three weighed, with their points beside the hint.
        options = page.locator(".hint-options li")
        assert options.count() == len(hint["options"]) - 1 >= 1
        for li, option in zip(options.all(), hint["options"][1:], strict=True):
            assert option["label"] in li.inner_text()
            assert float(li.get_attribute("data-points") or "1") == option["points"] <= 0
        return
    index = next(i for i, e in enumerate(view["legal"]) if same(e) == same(hint["action"]))
    marked = page.locator(f"#table [data-action='{index}']")
    assert "advised" in (marked.get_attribute("class") or "")
    assert page.locator("#table .advised:not(#hand .card)").count() <= 1
    if hint["kind"] == "play":
        card = hint["action"]["card"]
        assert advised == [card]
        # Raised above the rest of the hand (once it has risen).
        page.evaluate("Promise.all(document.getAnimations().map(a => a.finished))")
        tops = page.eval_on_selector_all(
            "#hand .card", "els => els.map(e => [e.dataset.card, e.getBoundingClientRect().top])")
        mine = dict(tops)[card]
        assert all(mine < top - 8 for code, top in tops if code != card), tops


def test_a_hint_on_each_kind_of_decision(open_seat, artifacts) -> None:
    """At a computer table: the exchange (its cards outlined, the options weighed), a call or
    an answer (its button ringed), a card to play (raised); asked by button and by key; gone
    once the table moves on; a second hint on its way told gently; axe on a hint shown."""
    seat = open_seat()
    start_table(seat)
    page = seat.page
    shown: dict[str, Json] = {}
    problems: list[str] = []
    hinted_at = [0]

    def look(s: Seat) -> None:
        # A hint is gone once the state it was asked on is.
        version, advised, coach = page.evaluate(
            f"() => [+{ROOT_JS}.dataset.version, document.querySelectorAll('.advised').length,"
            " document.querySelector('#coach').textContent]")
        if hinted_at[0] and version > hinted_at[0]:
            assert advised == 0 and "Hint" not in coach, (version, hinted_at, coach)

    def on_step(s: Seat) -> None:
        look(s)
        view = s.view_at(s.version())
        assert view is not None
        kind = decision(view)
        if kind not in ("exchange", "play", "call", "answer") or kind in shown:
            return
        if kind in ("call", "answer") and {"call", "answer"} & set(shown):
            return  # one of the two is enough
        if kind == "exchange":
            # The button says it is asking. A hint asked from another window of this seat
            # meanwhile would have this one refused "busy" (the server's side: test_teaching):
            # such a frame, handed to the page in the same task as the click (so before any
            # answer), is said gently, not as a refusal; the hint asked then still shows.
            page.evaluate(f"""() => {{
                window.__coach = [];
                new MutationObserver(() => window.__coach.push(
                    document.querySelector('#coach').textContent + '|'
                    + (document.querySelector('[data-hint]')?.textContent || '')))
                  .observe({ROOT_JS}, {{subtree: true, childList: true, characterData: true}});
                document.querySelector('[data-hint]').click();
                const version = +{ROOT_JS}.dataset.version;
                window.__coach.push('asking:' + document.querySelector('[data-hint]').textContent);
                window.piquetTable.socket.on.message({{type: 'error', code: 'busy', version,
                    message: 'A hint is on its way; one at a time.'}});
                window.__coach.push('notice:' + document.querySelector('#prompt').textContent);
            }}""")
            seen = page.evaluate("window.__coach")
            assert "asking:Asking…" in seen, seen
            assert any("A hint is on its way already" in text for text in seen), seen
            assert not any(x.startswith("notice:") and "on its way" in x for x in seen), seen
            page.locator("[data-hint]").click()  # asked again
            page.wait_for_selector("#coach [data-hint-kind]")
            hint = [m for m in frames_of(s, "hint") if m["version"] == s.version()][-1]["hint"]
        else:
            hint = ask_hint(s, by_key=kind == "play")
        while hint["kind"] == "see":
            # The strong level asks to see what scored against it first: its button ringed.
            # Taken, as a person would, and then asked again.
            check_hint_drawn(s, hint)
            before = s.version()
            page.locator("#table [data-action].advised").click()
            s.wait_moved(before)
            hint = ask_hint(s)
        hinted_at[0] = s.version()
        assert hint["kind"] == kind, (hint["kind"], kind)
        check_hint_drawn(s, hint)
        shown[kind] = hint
        if kind == "exchange":
            page.screenshot(path=str(artifacts / "hint-exchange.png"), full_page=True)
            problems.extend(both_modes(page, "the exchange's hint"))
        elif kind == "play":
            problems.extend(both_modes(page, "a card's hint"))

    seat.on_step = on_step
    seat.on_poll = look
    seat.play_until(phase_is("deal_over"))
    assert {"exchange", "play"} <= set(shown) and {"call", "answer"} & set(shown), shown
    assert not problems, "\n".join(problems)
    # At the deal's end nothing is left to hint.
    assert page.locator("[data-hint]").count() == 0


# ---- the review ------------------------------------------------------------------------------


def open_review(seat: Seat, deal: int) -> Json:
    """Presses the Review (of `deal`, 0: the partie's); the review the page shows, once it
    is there (the page says it is coming until then)."""
    page = seat.page
    page.click(f"#actions [data-review='{deal}']")
    title = "Review of the partie" if deal == 0 else f"Review of deal {deal}"
    heading = page.locator(f"#review-title-{deal}")
    assert heading.inner_text() == title
    assert page.evaluate("document.activeElement.id") == f"review-title-{deal}"
    page.wait_for_selector(f"#review-title-{deal} ~ p:not([data-review-coming])", timeout=60000)
    ready = [m for m in frames_of(seat, "review") if m["deal"] == deal and m["ready"]]
    assert ready, "the page shows a review the server never sent"
    return dict(ready[-1]["review"])


def check_items(seat: Seat, items: list[Json], review_text: str) -> None:
    """Each item: where, what you did, what the strong level would have done, its cost."""
    rows = seat.page.locator("#review .review-item")
    assert rows.count() == len(items)
    for row, x in zip(rows.all(), items, strict=True):
        text = row.inner_text()
        assert f"You: {x['you']['label']}" in text and x["strong"]["label"] in text, text
        # In whole points, as the review's text writes them.
        assert f"−{x['cost']:.0f}" in text and ("about" in text) is not x["exact"], text
        assert f"−{x['cost']:.0f}" in review_text
        assert (f"Trick {x['trick']}" in text) if x["trick"] else x["kind"] != "play"


def look_back(seat: Seat, review: Json, x: Json, how: str) -> list[str]:
    """One click on an item: that position on the table, read-only, with its banner; then
    back (`how`: "Escape" or the button) to the table as it is, the item focused again."""
    page = seat.page
    page.click(f"#review [data-review-item='{x['deal']}:{x['step']}']")
    banner = page.locator("#look-back")
    banner.wait_for()
    where = f"trick {x['trick']}" if x["trick"] else {"exchange": "the exchange"}.get(
        x["kind"], "a")
    assert banner.inner_text().startswith(f"Looking back at deal {x['deal']}, {where}")
    position = review["positions"][str(x["step"])]
    attrs = seat.attrs()
    assert attrs["lookBack"] == "true" and attrs["phase"] == position["phase"]
    assert seat.hand() == position["hand"]
    assert page.locator("#table [data-action], #table [data-select]").count() == 0  # nothing acts
    marked = page.eval_on_selector_all(
        "#hand .advised", "els => els.map(e => e.dataset.card)")
    yours = page.eval_on_selector_all("#hand .yours", "els => els.map(e => e.dataset.card)")
    strong, you = x["strong"]["action"], x["you"]["action"]
    if x["kind"] in ("exchange", "play"):
        assert sorted(marked) == sorted(strong.get("cards") or [strong["card"]])
        assert sorted(yours) == sorted(you.get("cards") or [you["card"]])
    assert x["you"]["label"] in page.locator("#prompt").inner_text()
    assert page.locator(f"[data-review-item='{x['deal']}:{x['step']}']").get_attribute(
        "aria-current") == "step"
    problems = both_modes(page, f"looking back at {where}")
    if how == "Escape":
        page.keyboard.press("Escape")
    else:
        page.click("#look-back [data-back]")
    banner.wait_for(state="hidden")
    assert seat.attrs()["lookBack"] == "false" and seat.attrs()["phase"] == "deal_over"
    assert seat.hand() == seat.view()["hand"]
    assert page.evaluate("document.activeElement.dataset.reviewItem") == f"{x['deal']}:{x['step']}"
    return problems


def test_the_review_of_a_deal_and_a_look_back(open_seat, artifacts) -> None:
    """When a deal ends, Review beside "Deal next hand": the decisions the strong level would
    have made otherwise, what each cost, the deal's total; a click puts that position back
    on the table read-only, Escape or "Back to the table" returns."""
    seat = open_seat()
    start_table(seat)
    page = seat.page
    for _ in range(4):  # a deal the page's plain choices played as the strong level would
        seat.play_until(phase_is("deal_over"))  # has nothing to review: the next one then
        deal = seat.view()["deal_number"]
        buttons = page.locator("#actions button").all_inner_texts()
        assert buttons == ["Deal next hand", "Review"], buttons
        review = open_review(seat, deal)
        if review["items"]:
            break
        before = seat.version()
        page.click("#actions [data-type=next_deal]")
        seat.wait_moved(before)
        assert page.locator("#review").is_hidden()  # the next deal closes it
    items = review["items"]
    assert items and review["deal"] == deal
    assert page.locator("[data-review-text]").inner_text() == review["text"]
    check_items(seat, items, review["text"])
    page.screenshot(path=str(artifacts / "review.png"), full_page=True)
    problems = both_modes(page, "a deal's review")
    plays = [x for x in items if x["kind"] == "play"]
    problems += look_back(seat, review, items[0], "Escape")
    problems += look_back(seat, review, (plays or items)[-1], "button")
    assert not problems, "\n".join(problems)


# ---- the practice table --------------------------------------------------------------------


def test_a_practice_table_as_both_seats_and_a_watcher_see_it(open_seat, artifacts) -> None:
    """Made from the lobby: both seats and a watcher are told it is a practice table, both
    seats may ask for a hint (each answer goes to its own page alone), a watcher never is
    offered one, and downloads the public record."""
    maker = open_seat()
    start_table(maker, "practice")
    friend = open_seat()
    friend.page.goto(maker.page.url)
    friend.wait_ready()
    watcher = open_seat(viewport={"width": 375, "height": 812})
    watcher.page.goto(maker.page.url)
    watcher.wait_ready()
    assert watcher.attrs()["seat"] == "watch"
    seats = {"maker": maker, "friend": friend, "watcher": watcher}
    line = "A practice table: both players may ask for hints."
    for name, s in seats.items():
        s.page.locator("#practice-line").wait_for()
        assert s.page.locator("#practice-line").inner_text() == line, name
        room = s.last_state()["room"]
        assert room["practice"] is True and room["hints"] is (name != "watcher"), (name, room)
    asked: dict[str, Json] = {}

    def hint_once(name: str) -> Any:
        def ask(s: Seat) -> None:
            view = s.view_at(s.version())
            if name in asked or view is None or decision(view) != "exchange":
                return
            asked[name] = ask_hint(s)
            check_hint_drawn(s, asked[name])
        return ask

    maker.on_step, friend.on_step = hint_once("maker"), hint_once("friend")

    def never_offered() -> None:
        assert watcher.page.locator("[data-hint], [data-review], #coach *").count() == 0

    play_together([maker, friend], lambda attrs: all(a["phase"] == "deal_over" for a in attrs),
                  on_step=never_offered)
    assert set(asked) == {"maker", "friend"}
    # Each hint went to the page that asked, and to no one else.
    assert [m["hint"] for m in frames_of(maker, "hint")] == [asked["maker"]]
    assert [m["hint"] for m in frames_of(friend, "hint")] == [asked["friend"]]
    assert frames_of(watcher, "hint") == [] and frames_of(watcher, "review") == []
    watcher.page.wait_for_function(f"() => {ROOT_JS}.dataset.phase === 'deal_over'")
    never_offered()
    assert watcher.page.locator("#practice-line").is_visible()
    watcher.page.screenshot(path=str(artifacts / "practice-watcher.png"), full_page=True)
    problems = both_modes(watcher.page, "a practice table's watcher")
    # Each seat reviews its own deal.
    for s in (maker, friend):
        review = open_review(s, 1)
        assert review["deal"] == 1 and review["role"] == s.view()["role"]
    # The watcher's record: the public one.
    with watcher.page.expect_download() as download:
        watcher.page.click("[data-record-link]")
    record = json.loads(Path(download.value.path()).read_text())
    assert record["seat"] is None and "reviews" not in record
    assert record["meta"]["practice"] is True
    assert not problems, "\n".join(problems)


# ---- the record and the replay ----------------------------------------------------------------


def replay_positions(record: Json) -> tuple[list[Json], list[int]]:
    """The record flattened as the replay steps through it: the start, then every step's
    view; and where each deal starts."""
    views, starts = [record["start"]], []
    for deal in record["deals"]:
        starts.append(len(views))
        views += [step["view"] for step in deal["steps"]]
    return views, starts


def check_replay_at(replay: Seat, views: list[Json], i: int) -> None:
    page = replay.page
    page.wait_for_function(f"() => +{ROOT_JS}.dataset.version === {i}")
    assert replay.hand() == views[i]["hand"]
    assert page.locator("#table [data-action], #table [data-select]").count() == 0


def test_the_record_downloaded_and_replayed(open_seat, watch, artifacts, tmp_path) -> None:
    """A whole partie: its summary over the deals; the record downloaded through the link,
    opened in /replay from the file (and dropped), stepped through by keys with its review
    beside it; and the finished table's own replay link."""
    seat = open_seat()
    start_table(seat)
    page = seat.page
    assert page.locator("[data-replay-link]").is_hidden()  # no deal over yet
    seat.play_until(phase_is("partie_over"), timeout_s=280)
    assert page.locator("#actions button").all_inner_texts() == ["Review", "The partie's review"]
    partie = open_review(seat, 0)
    summary = partie["summary"]
    text = page.locator("#review").inner_text()
    assert summary["text"] in text
    assert page.locator("#review .review-deals li").count() == len(summary["deals"]) == 6
    assert page.locator("#review .review-item").count() == len(summary["biggest"])

    link = page.locator("[data-record-link]")
    room_id = seat.attrs()["roomId"]
    assert link.get_attribute("href") == f"/r/{room_id}/record.json"
    assert link.get_attribute("download") is not None
    with page.expect_download() as download:
        link.click()
    saved = tmp_path / "record.json"
    download.value.save_as(saved)
    record = json.loads(saved.read_text())
    assert record["format"] == "piquet-record" and record["seat"] == 0
    assert len(record["reviews"]) == len(record["deals"]) == 6 and record["summary"]
    views, starts = replay_positions(record)

    replay = open_seat()  # another browser: the file is all it has
    rp = replay.page
    rp.goto("/replay")
    # Something else dropped on the page: said so, and nothing drawn.
    drop = """([name, text]) => { const dt = new DataTransfer();
        dt.items.add(new File([text], name, {type: 'application/json'}));
        dispatchEvent(new DragEvent('drop', {dataTransfer: dt, cancelable: true})); }"""
    rp.evaluate(drop, ["notes.json", '{"hello": 1}'])
    rp.wait_for_function("() => document.getElementById('replay-status').textContent"
                         ".includes('not a Piquet record')")
    assert rp.locator("#table").is_hidden()
    rp.set_input_files("#record-file", str(saved))
    rp.locator("#replay-bar").wait_for()
    check_replay_at(replay, views, 0)
    assert "A record of 6 deals" in rp.locator("#replay-status").inner_text()
    rp.locator("body").press("ArrowRight")
    check_replay_at(replay, views, 1)
    assert "Deal 1, step 1 of" in rp.locator("#replay-where").inner_text()
    rp.keyboard.press("ArrowRight")
    check_replay_at(replay, views, 2)
    rp.keyboard.press("ArrowLeft")
    check_replay_at(replay, views, 1)
    rp.keyboard.press("PageDown")
    check_replay_at(replay, views, starts[1])
    rp.keyboard.press("]")
    check_replay_at(replay, views, starts[2])
    rp.keyboard.press("[")
    check_replay_at(replay, views, starts[1])
    rp.keyboard.press("PageUp")
    check_replay_at(replay, views, starts[0])
    rp.keyboard.press("End")
    check_replay_at(replay, views, len(views) - 1)
    assert rp.locator("#middle [data-result-text]").inner_text() == record["result"]["text"]
    rp.keyboard.press("Home")
    check_replay_at(replay, views, 0)
    # The review beside the deal: a click on a decision goes to where it was made.
    reviewed = next(r for r in record["reviews"] if r["items"])
    first = starts[reviewed["index"]]
    rp.click("[data-go='deal+']")
    while int(replay.attrs()["version"]) < first:
        rp.click("[data-go='deal+']")
    check_replay_at(replay, views, first)
    assert rp.locator(f"#review-title-{reviewed['deal']}").is_visible()
    assert rp.locator("#review-title-0").is_visible()  # and the partie's summary
    x = reviewed["items"][-1]
    item = rp.locator(f"#review [data-review-item='{x['deal']}:{x['step']}']").first
    item.click()
    check_replay_at(replay, views, first + x["step"] - 1)
    assert x["you"]["label"] in rp.locator("#prompt").inner_text()
    assert item.get_attribute("aria-current") == "step"
    rp.screenshot(path=str(artifacts / "replay.png"), full_page=True)
    problems = both_modes(rp, "the replay")

    # The table's own link: the replay beside the table, with this seat's record.
    replay_link = page.locator("[data-replay-link]")
    assert replay_link.get_attribute("href") == f"/r/{room_id}/replay"
    with page.context.expect_page() as opened:
        replay_link.click()
    tab = opened.value
    watch.attach(tab)
    tab.locator("#replay-bar").wait_for()
    assert "A record of 6 deals, as Host saw it" in tab.locator("#replay-status").inner_text()
    tab.keyboard.press("End")
    tab.wait_for_function(f"() => +{ROOT_JS}.dataset.version === {len(views) - 1}")
    assert tab.locator("#middle [data-result-text]").inner_text() == record["result"]["text"]
    tab.close()
    assert not problems, "\n".join(problems)
