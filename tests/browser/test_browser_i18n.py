"""The site in French (issue 38), through the real page: a whole deal played in French
with no English word on the page at any step; the language switched mid-partie, nothing
lost; the pseudo-locale, every message wrapped, finding any words that escaped
translation; axe-core on the French table.

The French deal is stacked (seeded_app.py): seed 4's cut goes to the person (seat 0), who
deals, so the computer is elder and calls; the person answers "Pas bon" to his point (she
holds six clubs to his five hearts) and "Égal" to his quart to the king (she holds one in
clubs), twice, so no sequence scores."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browserkit import Seat, axe_problems, launch, phase_is, start_table

from tests.serverproc import stop
from tests.stacked import pack_of

SEED = "4"  # the cut goes to seat 0
ELDER = "AS KS QS JS 10S KH QH JH 10H 7H AD 8D"  # the computer: throws its spades
YOUNGER = "KC QC JC 10C 8C 7C KD QD JD 10D 9D 7D"  # the person: throws JD 10D 9D
STOCK = "9S 8S 7S AC 9C AH 9H 8H"
PACK = pack_of(ELDER, YOUNGER, STOCK)

# Words the table says in English, and French never does (some English words are French
# too: point, partie, capot, carte blanche, pique as a suit, Rubicon, table, total).
ENGLISH = ("Deal", "deal", "deals", "Trick", "trick", "tricks", "Good", "Equal", "Nothing",
           "Done", "Discard", "discard", "Your", "your", "You", "you", "Computer",
           "elder", "younger", "Stock", "Score sheet", "Hint", "Review", "Leads", "Plays",
           "Wins", "wins", "Takes", "Scores", "Shows", "See", "Waiting", "the", "of", "and",
           "Spades", "Hearts", "Clubs", "Diamonds", "Queen", "King", "Jack", "Ace",
           "Declarations", "Scored", "tied", "Rules", "High contrast", "Log", "Download",
           "record", "Replay", "New match", "Play", "play", "card", "cards", "Quart",
           "Quint", "Sequence", "Sequences", "Set", "Sets", "Repique", "Game", "games",
           "Not good", "Making", "lead", "won", "hand", "Connecting", "Level")
_ENGLISH = re.compile(r"(?<![\w'])(?:" + "|".join(map(re.escape, ENGLISH)) + r")(?![\w'])")

# Every piece of words the page shows or says: visible text nodes (a screen reader's too,
# visually hidden), and the labels and titles an ear hears; not a card's face (its rank
# and suit letters), nor what is marked as another language (the header's "English").
WORDS_JS = """() => {
  const lang = document.documentElement.lang;
  const mine = (el) => (el.closest("[lang]")?.lang || lang) === lang;
  const face = ".card-index, .card-letter, .card-rank, .brand, script, style, noscript";
  const texts = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.data.trim() || el.closest(face) || !mine(el)) continue;
    if (!el.checkVisibility()) continue;  // (visually hidden is still read: it counts)
    texts.push(n.data.trim());
  }
  const attrs = [];
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder]")) {
    if (!mine(el) || el.closest("[hidden]")) continue;
    for (const a of ["aria-label", "title", "placeholder"]) {
      if (el.getAttribute(a)) attrs.push(el.getAttribute(a));
    }
  }
  return {texts, attrs};
}"""


def fr(text: str) -> str:
    """French as the catalogue writes it: a no-break space before : ; ! ? and inside « »."""
    return re.sub(r" ([:;!?»])", "\u00a0\\1", text).replace("« ", "«\u00a0")


def page_words(page: Any) -> tuple[list[str], list[str]]:
    """The page's text nodes, in order, and its labels and titles."""
    found = page.evaluate(WORDS_JS)
    return found["texts"], found["attrs"]


def words(page: Any) -> list[str]:
    texts, attrs = page_words(page)
    return texts + attrs


def english(page: Any) -> list[str]:
    """The English words on the page, with the text each is in."""
    return [f"{m[0]!r} in {text!r}" for text in words(page) for m in _ENGLISH.finditer(text)]


@pytest.fixture(scope="module")
def french_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server dealing the French deal, its computer playing as the page's Seat does."""
    log = tmp_path_factory.mktemp("french") / "server.log"
    proc, base = launch("tests.browser.seeded_app", log, PIQUET_TEST_SEEDS=SEED,
                        PIQUET_TEST_PACKS=" ".join(PACK), PIQUET_TEST_COMPUTER="page")
    yield base
    stop(proc)


def entry_where(seat: Seat, test: Callable[[dict[str, Any]], bool]) -> str:
    """The selector of the control for the first legal entry `test` accepts."""
    view = seat.view_at(seat.version())
    assert view is not None
    index = next(i for i, e in enumerate(view["legal"]) if test(e))
    return f'#table [data-action="{index}"]'


def press(seat: Seat, selector: str) -> None:
    before = seat.version()
    seat.page.locator(selector).click()
    seat.wait_moved(before)


def french_step(seat: Seat, said: dict[str, bool]) -> bool:
    """One move of the person's, as the French deal has it; False if not hers now."""
    a = seat.attrs()
    if a.get("busy") == "true" or a.get("myTurn") != "true":
        return False
    view = seat.view_at(seat.version()) or {}
    page = seat.page
    if a.get("selecting") == "true":  # her exchange: the three diamonds in the middle
        for card in ("JD", "10D", "9D"):
            page.click(f'#hand [data-select="{card}"]')
        press(seat, "[data-confirm-discard]")
    elif view["step"] == "younger_answer":
        reply = "not_good" if view["declaring"]["category"] == "point" else "equal"
        said[reply] = True
        press(seat, entry_where(seat, lambda e: e.get("reply") == reply))
    elif view["step"] == "follow" and not said.get("see"):
        # His tied quart may be seen from his first lead: she asks to.
        said["see"] = True
        press(seat, entry_where(seat, lambda e: e["type"] == "see"))
    elif view["step"] == "follow" and not said.get("hint"):
        said["hint"] = True
        page.click("[data-hint]")
        page.wait_for_selector("#coach [data-hint-kind]")
        assert page.locator("#coach [data-hint-kind] strong").inner_text() == fr("Conseil :")
    else:
        seat.act()
    return True


def test_a_whole_deal_in_french(french_server: str, open_seat, artifacts) -> None:
    """A browser in French: the lobby, the cut, the exchange, the declarations with
    "Pas bon" and "Égal", showing, the tricks, the deal's score, the review and a hint, all
    in French, and no English word on the page at any step."""
    seat = open_seat(base_url=french_server, locale="fr-FR")
    page = seat.page
    page.goto("/")
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert page.locator("h1").inner_text() == "Piquet Rubicon"
    assert english(page) == []
    page.click("button[data-opponent=computer]")
    page.wait_for_url("**/r/**")
    seat.wait_ready()
    said: dict[str, bool] = {}
    steps = 0
    while seat.attrs().get("phase") != "deal_over":
        assert english(page) == [], f"English at {seat.attrs().get('step')}"
        if not french_step(seat, said):
            page.wait_for_timeout(20)
        steps += 1
        assert steps < 2000
    assert said == {"not_good": True, "equal": True, "see": True, "hint": True}
    page.wait_for_selector("#middle [data-area=deal-table]")
    seat.open_panels()
    page.screenshot(path=str(artifacts / "french-deal-over.png"), full_page=True)
    assert english(page) == []
    log = " | ".join(seat.log_lines())
    for line in ("Ordinateur : Point de cinq", "Vous : Pas bon", "Ordinateur : Une quatrième",
                 "Vous : Égal", "Ordinateur : Au roi",
                 "Égal : personne ne marque de séquence", "Vous : Point de six",
                 "Ordinateur : Entame le neuf de pique", "Vous : Joue l'as de cœur",
                 "Ordinateur : Capot ! 40 pour toutes les levées", "Fin de la donne 1 : 6 à 53"):
        assert fr(line) in log, (line, log)
    assert "Demande à voir la quatrième au roi" in log
    # The cards' names a screen reader says, in French.
    assert page.locator("#deal-info [aria-label]").first.get_attribute("aria-label")
    # The review, in French.
    page.click("#actions [data-review='1']")
    page.wait_for_selector("[data-review-text]")
    assert page.locator("#review-title-1").inner_text() == "Bilan de la donne 1"
    assert english(page) == []
    page.screenshot(path=str(artifacts / "french-review.png"), full_page=True)


def test_the_lobby_and_the_table_follow_accept_language_and_the_header(open_seat) -> None:
    """A French browser gets French; the header's "English" brings English back, kept in
    a cookie; "Français" goes back to French."""
    seat = open_seat(locale="fr-FR")
    page = seat.page
    page.goto("/")
    page.wait_for_load_state("networkidle")  # (My tables asked for: not cut short)
    assert page.evaluate("document.documentElement.lang") == "fr"
    english_button = page.locator("[data-lang=en]")
    assert english_button.inner_text() == "English"
    assert english_button.get_attribute("lang") == "en"
    english_button.click()
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert page.locator("h1").inner_text() == "Rubicon Piquet"
    page.wait_for_load_state("networkidle")
    page.goto("/rules")
    assert page.evaluate("document.documentElement.lang") == "en"
    page.locator("[data-lang=fr]").click()
    page.wait_for_function("() => document.documentElement.lang === 'fr'")
    assert page.url.endswith("/rules")
    assert page.locator("h1").inner_text() == "Jouer au piquet Rubicon"


def test_switching_language_mid_partie_loses_nothing(open_seat) -> None:
    """Mid-partie, the cards chosen to throw, the panels opened, the hint shown and the log
    all come back when the language changes, in the other language."""
    seat = open_seat()
    page = seat.page
    start_table(seat)
    seat.play_until(lambda a: a.get("selecting") == "true")
    page.click("[data-hint]")
    page.wait_for_selector("#coach [data-hint-kind]")
    hint = seat.last_state()["version"]
    hand = seat.hand()
    chosen = hand[-2:]
    for card in chosen:
        page.click(f'#hand [data-select="{card}"]')
    seat.open_panels()
    log = seat.log_lines()
    assert log and page.locator("#coach [data-hint-kind] strong").inner_text() == "Hint:"

    page.locator("[data-lang=fr]").click()
    page.wait_for_function("() => document.documentElement.lang === 'fr'")
    seat.wait_ready()
    page.wait_for_selector("#coach [data-hint-kind]")
    assert seat.last_state()["version"] == hint  # the same position
    assert page.locator("#coach [data-hint-kind] strong").inner_text() == fr("Conseil :")
    assert sorted(page.eval_on_selector_all(
        "#hand [aria-pressed=true]", "els => els.map(e => e.dataset.card)")) == sorted(chosen)
    assert seat.hand() == hand
    for panel in page.locator("details.panel").all():
        assert panel.get_attribute("open") is not None
    french = seat.log_lines()
    assert len(french) == len(log) and french[0] == "Donne 1 sur 6" and log[0] == "Deal 1 of 6"
    assert english(page) == []
    # And the move goes on from there, in French.
    before = seat.version()
    page.click("[data-confirm-discard]")
    seat.wait_moved(before)


def unwrapped(text: str) -> list[str]:
    """What is left of `text` once every wrapped message ("[!! … !!]", nested) and every
    piece of data (numbers, signs, card glyphs and codes) is taken out: the words that
    escaped translation, each with a little of what stood around it."""
    rest = text
    while True:
        stripped = re.sub(r"\[!![^\[\]]*?!!\]", " ", rest)
        if stripped == rest:
            break
        rest = stripped
    rest = re.sub(r"\b(?:10|[AKQJ987])?[♠♥♦♣SHDC]\b|[♠♥♦♣]", " ", rest)
    return [rest[max(0, m.start() - 30):m.end() + 30]
            for m in re.finditer(r"[A-Za-zÀ-ÿ]{2,}", rest)]


def escaped(page: Any) -> list[str]:
    """The words on the page outside every wrapped message: its text nodes taken in
    order (a message with markup in it spans several), each label and title alone."""
    texts, attrs = page_words(page)
    return unwrapped(" ".join(texts)) + [x for a in attrs for x in unwrapped(a)]


def test_the_pseudo_locale_finds_no_word_left_untranslated(open_seat, server, artifacts) -> None:
    """In the pseudo-locale every message is wrapped "[!! … !!]": the lobby, a table played
    through a deal to its score, a hint and the review, and the rules page show no words
    outside a wrapping (the test lists any that do)."""
    seat = open_seat()
    page = seat.page
    page.context.add_cookies([{"name": "piquet_lang", "value": "xx", "url": server}])
    page.goto("/")
    assert page.evaluate("document.documentElement.lang") == "xx"
    found: dict[str, list[str]] = {}

    def look(where: str) -> None:
        left = escaped(page)
        if left:
            found.setdefault(where, left)

    page.evaluate("document.querySelectorAll('details').forEach((d) => (d.open = true))")
    look("lobby")
    page.click("button[data-opponent=computer]")
    page.wait_for_url("**/r/**")
    seat.wait_ready()
    seat.on_poll = lambda s: look(f"table {s.attrs().get('step')}")
    seat.play_until(lambda a: a.get("selecting") == "true")
    page.click("[data-hint]")
    page.wait_for_selector("#coach [data-hint-kind]")
    look("hint")
    seat.play_until(phase_is("deal_over"))
    seat.on_poll = None
    page.wait_for_selector("#middle [data-area=deal-table]")
    seat.open_panels()
    look("deal over")
    page.click("#actions [data-review]")
    page.wait_for_selector("[data-review-text], [data-review-coming]")
    look("review")
    page.screenshot(path=str(artifacts / "pseudo-table.png"), full_page=True)
    page.goto("/rules")
    look("rules")
    assert found == {}, found


@pytest.mark.parametrize("contrast", [False, True])
def test_axe_finds_nothing_serious_in_french(french_server: str, open_seat, contrast) -> None:
    """axe-core on the French lobby and table (the lang attribute, the labels in French),
    in both contrast modes."""
    seat = open_seat(base_url=french_server, locale="fr-FR")
    page = seat.page
    page.goto("/")
    if contrast:
        page.locator("[data-contrast-toggle]").click()
    assert axe_problems(page) == []
    page.click("button[data-opponent=computer]")
    page.wait_for_url("**/r/**")
    seat.wait_ready()
    said: dict[str, bool] = {}
    while seat.attrs().get("phase") not in ("play", "deal_over"):
        if not french_step(seat, said):
            page.wait_for_timeout(20)
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert axe_problems(page) == []
