"""The variants (RULES.md §8) through the page: the lobby's Rules chooser, the rules told
to a friend before sitting and to a watcher, the counter naming them, a game of Piquet au
cent won and its result, and a Rubicon partie level after six going to one more deal.
The deals are stacked (seeded_app.py's PIQUET_TEST_PACKS), so a game ends in one deal."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest
from browserkit import ROOT_JS, axe_problems, launch, phase_is, play_together
from deals import fewest_choice, stacked

import engine
from tests.serverproc import stop
from tests.stacked import AU_CENT, GAME_IN_ONE_PACK

ONE_MORE = engine.Rules(tie="one_more")


def shuffled(seed: int) -> tuple[str, ...]:
    deck = [c.code for c in engine.DECK]
    random.Random(seed).shuffle(deck)
    return tuple(deck)


# A pack dealt every deal, both seats playing as the page does: each scores the same as
# elder and as younger, so the partie is level after six deals.
LEVEL_PACK = shuffled(3)


@pytest.fixture(scope="module")
def stacked_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., str]]:
    """stacked_server(packs, **env) -> a server dealing `packs` in turn, the cut from seed 1."""
    procs = []

    def make(packs: list[tuple[str, ...]], **env: str) -> str:
        log = tmp_path_factory.mktemp("stacked") / "server.log"
        proc, base = launch("tests.browser.seeded_app", log, PIQUET_TEST_SEEDS="1",
                            PIQUET_TEST_PACKS=";".join(" ".join(p) for p in packs), **env)
        procs.append(proc)
        return base

    yield make
    for proc in procs:
        stop(proc)


def choose_rules(page, form: str, *, game: str = "rubicon", ticks: tuple[str, ...] = ()) -> None:
    """Opens `form`'s Rules chooser ("computer" or "friend") and chooses, as a person does."""
    chooser = page.locator(f"form:has(button[data-opponent={form}]) [data-rules-choice]")
    chooser.locator("summary").click()
    chooser.locator(f"input[name=game][value={game}]").check()
    for name in ticks:
        chooser.locator(f"input[name={name}]").check()


def seen(page, selector: str) -> str:
    """The text as one sees it (a separator's words for the ear left out)."""
    text: str = page.locator(selector).evaluate(
        "e => { const c = e.cloneNode(true); c.querySelectorAll('.visually-hidden')"
        ".forEach(x => x.remove()); return c.textContent.replace(/\\s+/g, ' ').trim(); }")
    return text


def axe_in_both_modes(page) -> list[str]:
    """axe-core's serious and critical findings, in normal and then high contrast."""
    found = []
    for _ in range(2):
        found += axe_problems(page)
        page.locator("[data-contrast-toggle]").click()
    return found


def no_sideways_scroll(page) -> None:
    wide = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert wide[0] <= wide[1], f"the page is {wide[0]}px wide in a {wide[1]}px window"


def test_the_rules_chooser_explains_links_and_fits_a_phone(open_seat, artifacts) -> None:
    seat = open_seat(viewport={"width": 320, "height": 800}, is_mobile=True, has_touch=True)
    page = seat.page
    page.goto("/")
    chooser = page.locator("form:has(button[data-opponent=friend]) [data-rules-choice]")
    # Closed, it says what a table is played under unless a variant is chosen.
    assert "Rubicon Piquet" in chooser.locator("summary").inner_text()
    chooser.locator("summary").click()
    # Each rule: a labelled control, its line, and a link to its paragraph on the rules page.
    links = {}
    for control in chooser.locator("input").all():
        key = control.get_attribute("value") if control.get_attribute("type") == "radio" else (
            control.get_attribute("name"))
        note = page.locator(f"#{control.get_attribute('aria-describedby')}")
        assert len(note.inner_text()) > 30, key
        assert control.evaluate("e => !!e.closest('label')"), key
        links[key] = note.locator("a").get_attribute("href")
    assert links == {"rubicon": "/rules#partie", "au_cent": "/rules#au-cent",
                     "cards_towards_pique": "/rules#cards-towards-pique",
                     "carte_rouge": "/rules#carte-rouge", "tie": "/rules#one-more-deal"}
    assert chooser.locator("legend").count() == 1
    # "One more deal" is Rubicon's: gone while au cent is chosen, back with Rubicon.
    tie = chooser.locator("input[name=tie]")
    assert tie.is_visible()
    chooser.locator("input[value=au_cent]").check()
    assert not tie.is_visible()
    chooser.locator("input[name=carte_rouge]").check()
    no_sideways_scroll(page)
    chooser.screenshot(path=str(artifacts / "rules-chooser-320.png"))
    assert not axe_in_both_modes(page)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=str(artifacts / "rules-chooser.png"), full_page=True)
    chooser.locator("input[value=rubicon]").check()
    assert tie.is_visible()
    # Each link finds its paragraph on the rules page, listed in its contents.
    page.goto("/rules")
    for href in links.values():
        assert page.locator(f"#{href.split('#')[1]}").count() == 1, href
    assert page.locator("nav a[href='#variants']").count() == 1
    headings = page.locator("#variants ~ h3").all_inner_texts()
    assert {"Piquet au cent", "Cards towards pique", "Carte rouge", "One more deal"} <= set(
        headings)


def test_an_au_cent_game_with_carte_rouge_told_played_and_won(open_seat, stacked_server,
                                                              artifacts) -> None:
    # As planned: each deal wins its elder a double game; the partie, 4 games to 2.
    plan = stacked(1, AU_CENT, [GAME_IN_ONE_PACK], choose=fewest_choice)
    assert len(plan.sheet) == 3 and plan.result is not None
    assert plan.result.text == "4 games to 2"
    base = stacked_server([GAME_IN_ONE_PACK])
    maker = open_seat(base_url=base)
    page = maker.page
    page.goto("/")
    choose_rules(page, "friend", game="au_cent", ticks=("carte_rouge",))
    page.click("button[data-opponent=friend]")
    page.wait_for_url("**/r/**")
    maker.wait_ready()
    assert maker.view()["rules"] == AU_CENT.to_json()
    assert seen(page, "#counter-deal").startswith("Au cent · carte rouge")

    # The friend opens the link: the rules first, and no seat until she takes it.
    friend = open_seat(base_url=base)
    friend.page.goto(page.locator("#invite-url").input_value())
    told = friend.page.locator("#rules-here")
    assert told.get_attribute("open") is not None
    text = told.inner_text()
    assert "Rules at this table: Piquet au cent, carte rouge" in text
    assert "Games of 100 up" in text and "20 more" in text
    assert told.locator("a[href='/rules#au-cent']").count() == 1
    friend.page.screenshot(path=str(artifacts / "variants-friend-rules.png"), full_page=True)
    assert not axe_in_both_modes(friend.page)
    friend.page.wait_for_timeout(300)
    assert friend.attrs()["version"] == "0" and friend.attrs().get("claim") == "true"
    assert maker.view()["deal_number"] == 0 and page.locator("[data-presence=waiting]").count()
    friend.page.click("[data-sit]")
    friend.wait_ready()
    assert friend.attrs()["seat"] == "1" and friend.page.locator("[data-sit]").count() == 0
    assert told.get_attribute("open") is None  # said; folded once seated

    # A watcher is told them too.
    third = open_seat(base_url=base)
    third.page.goto(page.url)
    third.wait_ready()
    assert third.attrs()["seat"] == "watch"
    assert "Piquet au cent, carte rouge" in third.page.locator("#rules-here summary").inner_text()
    assert seen(third.page, "#counter-deal").startswith("Au cent · carte rouge")

    # They play (younger stands pat): elder reaches 100 before a card is played.
    for seat in (maker, friend):
        seat.discard_fewest = True
    play_together([maker, friend], lambda attrs: all(a.get("phase") == "deal_over" for a in attrs))
    for seat in (maker, friend, third):
        seat.page.wait_for_function(f"() => {ROOT_JS}.dataset.phase === 'deal_over'")
        view = seat.view()
        games = view["games"]
        assert games["won"] in ([2, 0], [0, 2]) and games["number"] == 2
        won = games["finished"][0]
        over = seat.page.locator("#middle [data-area=game-over]")
        assert over.get_attribute("data-double") == "true"
        me = 0 if view["seat"] is None else view["seat"]
        names = seat.page.locator("#counter .score-name").all_inner_texts()
        title = over.locator(".result-title").inner_text()
        assert title == ("You win game 1" if won["winner"] == view["seat"] else
                         f"{names[0 if won['winner'] == me else 1]} wins game 1")
        assert "A double" in over.inner_text()
        said = over.locator("[data-area=games-won]").inner_text()
        assert f"{names[0]} {games['won'][me]}" in said
        assert f"{names[1]} {games['won'][1 - me]}" in said
        # The deal part by part, carte rouge and the repique in it, and the game's score.
        table = seat.page.locator("#middle [data-area=deal-table]")
        assert table.locator("tr[data-part=carte_rouge] td").all_inner_texts().count("20") == 1
        assert table.locator("tr[data-game] td").all_inner_texts() == [
            str(won["scores"][me]), str(won["scores"][1 - me])]
        counter = seen(seat.page, "#counter-deal")
        assert counter.startswith("Au cent · carte rouge · Game 2 · games ")
    winner = maker if games["finished"][0]["winner"] == maker.view()["seat"] else friend
    winner.page.screenshot(path=str(artifacts / "variants-au-cent-game-won.png"), full_page=True)
    assert not axe_in_both_modes(winner.page)

    # On to the partie's end: its games, each a double, and who won it.
    play_together([maker, friend], lambda attrs: all(a.get("phase") == "partie_over"
                                                     for a in attrs))
    for seat in (maker, friend):
        view = seat.view()
        result = seat.page.locator("#middle [data-area=result]")
        rows = result.locator("[data-area=games] tbody tr")
        assert rows.count() == 3 and rows.evaluate_all(
            "els => els.every(e => e.dataset.double === 'true')")
        assert "a double" in rows.first.inner_text()
        assert result.locator("[data-result-text]").inner_text() == "4 games to 2"
        won = view["result"]["winner"] == view["seat"]
        other = seat.last_state()["room"]["seats"][1 - view["seat"]]["name"]  # (a guest's)
        assert result.locator(".result-title").inner_text() == (
            "You win the partie" if won else f"{other} wins the partie")
        assert seen(seat.page, "#counter-deal") == (
            "Au cent · carte rouge · Partie over after 3 games")
        # The score sheet (opened at the end): each game's row after its deal.
        assert seat.page.locator("#scores-body tr.game-row").count() == 3
    maker.page.screenshot(path=str(artifacts / "variants-au-cent-partie-over.png"), full_page=True)
    assert not axe_in_both_modes(maker.page)

    # "Play again", both: a new partie under the same rules.
    for seat in (maker, friend):
        before = seat.version()
        seat.page.click("[data-new-match=confirm]")
        seat.wait_moved(before)
    for seat in (maker, friend):
        seat.page.wait_for_function(f"() => {ROOT_JS}.dataset.phase !== 'partie_over'")
        assert seat.view()["rules"] == AU_CENT.to_json() and seat.view()["games"]["won"] == [0, 0]
        assert seen(seat.page, "#counter-deal").startswith(
            "Au cent · carte rouge · Game 1 · games 0–0")


def test_one_more_deal_when_level_after_six(open_seat, stacked_server, artifacts) -> None:
    plan = stacked(1, ONE_MORE, [LEVEL_PACK])
    sheet = engine.view(plan, 0)["scores"]["sheet"]
    assert len(sheet) == 7
    assert sum(r[0] for r in sheet[:6]) == sum(r[1] for r in sheet[:6])
    base = stacked_server([LEVEL_PACK], PIQUET_TEST_COMPUTER="page")
    # On the narrowest phone: the rules' words in the counter never widen the page.
    seat = open_seat(base_url=base, viewport={"width": 320, "height": 800}, is_mobile=True,
                     has_touch=True)
    seat.on_step = lambda s: no_sideways_scroll(s.page)
    page = seat.page
    page.goto("/")
    choose_rules(page, "computer", ticks=("tie",))
    page.click("button[data-opponent=computer]")
    page.wait_for_url("**/r/**")
    seat.wait_ready()
    assert seat.view()["rules"] == ONE_MORE.to_json()
    assert "Rules at this table: Rubicon Piquet, one more deal" in page.locator(
        "#rules-here summary").inner_text()
    seat.play_until(lambda a: seat.view()["deal_number"] == 6 and a.get("phase") == "deal_over",
                    timeout_s=400)
    view = seat.view()
    assert view["scores"]["partie"][0] == view["scores"]["partie"][1]
    assert seen(page, "#counter-deal").startswith(
        "Rubicon · one more deal · Deal 6 of 7")
    level = f"Level at {view['scores']['partie'][0]}: one more deal"
    assert level in [line["text"] for line in seat.log_at(seat.version())]
    seat.play_until(phase_is("partie_over"), timeout_s=120)
    view = seat.view()
    assert view["deal_number"] == 7 and view["result"]["winner"] is not None
    assert seen(page, "#counter-deal").startswith(
        "Rubicon · one more deal · Partie over after 7 deals")
    assert page.locator("#middle [data-area=final-sheet] tbody tr").count() == 7
    assert page.locator("[data-result-text]").inner_text() == view["result"]["text"]
    no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / "variants-one-more-deal-320.png"), full_page=True)
