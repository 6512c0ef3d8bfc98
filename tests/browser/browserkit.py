"""Drives the table page like a player: reads the data attributes the page puts on
its elements (data-version, data-my-turn, data-action, data-card) and clicks.

It also keeps every WebSocket frame the page received, so a test can compare what
the page shows with the view the server sent, and check what a seat was never sent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from app.i18n import language
from tests.serverproc import ServerDidNotStart, free_port, store_env, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]

ROOT_JS = "document.getElementById('table')"  # the table's root element, in page scripts
ROOT_ATTRS_JS = f"() => ({{...{ROOT_JS}.dataset}})"
TURN_TIMEOUT_S = 20.0
# Where the hand starts on the page after each state the page draws, and what is above
# it then: recorded by the page itself, in the microtask after each draw (the table's
# data-version is set last, when the DOM is complete), so no state goes unmeasured however
# quickly the next one comes. From layout (offsetTop up the chain): neither the scroll
# position, nor the visual viewport, nor a card's transform.
HAND_WATCH_JS = """
window.__handTops = [];
document.addEventListener('DOMContentLoaded', () => {
  const table = document.getElementById('table');
  if (!table) return;
  const topOf = (e) => { let top = 0; for (let n = e; n; n = n.offsetParent) top += n.offsetTop;
                         return top; };
  const above = ['.site-header', '.computer-level', '#counter', '.felt', '#opponent', '#middle'];
  new MutationObserver(() => {
    const hand = document.getElementById('hand');
    if (!hand) return;
    window.__handTops.push({
      version: +table.dataset.version, phase: table.dataset.phase, step: table.dataset.step,
      top: topOf(hand),
      above: above.map((s) => { const e = document.querySelector(s);
                                return e ? [s, topOf(e), e.offsetHeight] : [s, -1, -1]; }),
    });
  }).observe(table, {attributes: true, attributeFilter: ['data-version']});
});
"""


class TableError(AssertionError):
    """The page refused a move, or the game stopped moving."""


@dataclass
class Seat:
    """One browser page at the table."""

    page: Page
    frames: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)
    use_keyboard: bool = False
    use_tap: bool = False
    discard_fewest: bool = False
    expose: bool = False  # younger turns her leftover cards face up
    on_step: Callable[[Seat], None] | None = None  # before each action
    on_poll: Callable[[Seat], None] | None = None  # on every look at the page

    def listen(self) -> Seat:
        def on_ws(ws: Any) -> None:
            ws.on("framereceived", lambda payload: self.frames.append(_text(payload)))
            ws.on("framesent", lambda payload: self.sent.append(_text(payload)))

        self.page.on("websocket", on_ws)
        return self

    # ---- what the server sent -------------------------------------------------------

    def states(self) -> list[dict[str, Any]]:
        out = []
        for raw in list(self.frames):
            msg = json.loads(raw)
            if msg.get("type") == "state":
                out.append(msg)
        return out

    def last_state(self) -> dict[str, Any]:
        states = self.states()
        assert states, "the page received no state"
        return states[-1]

    def view(self) -> dict[str, Any]:
        return dict(self.last_state()["view"])

    def view_at(self, version: int) -> dict[str, Any] | None:
        found = None
        for msg in self.states():
            if msg["version"] == version:
                found = msg["view"]
        return found

    def log_at(self, version: int) -> list[dict[str, Any]]:
        """The log lines the page holds at `version` (each state's `new_log` appended to
        what it kept, or in its place with `log_reset`: docs/protocol.md)."""
        lines: list[dict[str, Any]] = []
        for msg in self.states():
            if msg["version"] > version:
                break
            new = list(msg.get("new_log") or [])
            lines = new if msg.get("log_reset") else lines + new
        return lines

    # ---- what the page shows -------------------------------------------------------------

    def attrs(self) -> dict[str, str]:
        result: dict[str, str] = self.page.evaluate(ROOT_ATTRS_JS)
        return result

    def version(self) -> int:
        return int(self.attrs().get("version", "0"))

    def wait_ready(self, timeout_s: float = 15.0) -> None:
        self.page.wait_for_function(
            "() => +document.getElementById('table').dataset.version > 0",
            timeout=timeout_s * 1000,
        )

    def hand(self) -> list[str]:
        cards: list[str] = self.page.eval_on_selector_all(
            "#hand .card", "els => els.map(e => e.dataset.card)"
        )
        return cards

    def watch_hand(self) -> None:
        """From the next page loaded on: record where the hand is after every state drawn
        (`hand_positions`)."""
        self.page.add_init_script(HAND_WATCH_JS)

    def hand_positions(self, *phases: str) -> dict[int, dict[str, Any]]:
        """Each place the hand was drawn at (its top, in whole pixels) in these phases,
        with the first state drawn there: its version, phase and step, and each block
        above the hand (selector, top, height) -- for saying what moved when it did."""
        drawn: list[dict[str, Any]] = self.page.evaluate("window.__handTops || []")
        found: dict[int, dict[str, Any]] = {}
        for entry in drawn:
            if entry["phase"] in phases:
                found.setdefault(round(entry["top"]), entry)
        return found

    def log_lines(self) -> list[str]:
        lines: list[str] = self.page.eval_on_selector_all(
            "#log-body li", "els => els.map(e => e.textContent)"
        )
        return lines

    def open_panels(self) -> None:
        for panel in self.page.locator("details.panel").all():
            if panel.get_attribute("open") is None:
                panel.locator("summary").click()

    def notice(self) -> str:
        """A refusal shown under the prompt (not the table's own news: `table_note`)."""
        texts: list[str] = self.page.eval_on_selector_all(
            "#prompt .notice[role=alert]", "els => els.map(e => e.textContent)"
        )
        return " ".join(texts)

    def table_note(self) -> str:
        """What the table itself says under the prompt: a deal dealt again, its store slow
        to answer."""
        texts: list[str] = self.page.eval_on_selector_all(
            "#prompt .notice[role=status]", "els => els.map(e => e.textContent)"
        )
        return " ".join(texts)

    # ---- acting ----------------------------------------------------------------------------

    def check_buttons_are_legal(self) -> None:
        """The controls on the page are exactly the view's legal entries, each in the
        page's language: the words the server's catalogue gives the entry's phrase (in
        English, its label)."""
        a = self.attrs()
        view = self.view_at(int(a["version"]))
        if view is None:
            return
        shown: list[dict[str, str]] = self.page.eval_on_selector_all(
            "#table [data-action]",
            "els => els.map(e => ({i: e.dataset.action,"
            " text: (e.querySelector('.label') || e).textContent,"
            " label: e.getAttribute('aria-label') || e.querySelector('.sr-name')?.textContent"
            " || '', type: e.dataset.type}))",
        )
        legal = view["legal"]
        indices = sorted(int(s["i"]) for s in shown)
        assert indices == list(range(len(legal))), (indices, legal)
        words = language(self.page.evaluate("document.documentElement.lang"))
        for s in shown:
            entry = legal[int(s["i"])]
            assert s["type"] == entry["type"], (s, entry)
            if entry["type"] == "play":  # "Play the Queen of Hearts" (hand.js)
                name = words.speaker.form(entry["card"], "the")
                assert s["label"] == words.page_words("Play {card}").replace("{card}", name), \
                    (s, entry)
            elif entry["type"] != "discard":
                assert s["text"].strip() == words.say(entry["say"]), (s, entry)
                if words.code == "en":
                    assert s["text"].strip() == entry["label"], (s, entry)

    def act(self, choose: Callable[[Seat, list[dict[str, str]]], int] | None = None) -> bool:
        """Takes one action if it is this seat's turn; returns whether it acted."""
        a = self.attrs()
        if a.get("busy") == "true" or a.get("myTurn") != "true":
            return False
        if self.on_step:
            self.on_step(self)
        self.check_buttons_are_legal()
        before = int(a["version"])
        if a.get("selecting") == "true":
            self._discard()
        else:
            options: list[dict[str, str]] = self.page.eval_on_selector_all(
                "#hand [data-action], #actions [data-action]",
                "els => els.map(e => ({i: e.dataset.action, type: e.dataset.type,"
                " text: e.textContent.trim(), card: e.dataset.card || ''}))",
            )
            options = [o for o in options if o["type"] != "see"]
            assert options, f"my turn, but nothing to do: {a}"
            pick = choose(self, options) if choose else 0
            self._press(f'#table [data-action="{options[pick]["i"]}"]')
        self.wait_moved(before)
        return True

    def _press(self, selector: str) -> None:
        target = self.page.locator(selector)
        if self.use_keyboard:
            target.focus()
            self.page.keyboard.press("Enter")
        elif self.use_tap:
            target.tap()
        else:
            target.click()

    def _discard(self) -> None:
        confirm = self.page.locator("[data-confirm-discard]")
        most = int(confirm.get_attribute("data-max") or "1")
        if self.discard_fewest:
            most = int(confirm.get_attribute("data-min") or "1")
        for i in range(most):
            self._press(f"#hand .card[data-select]:nth-child({i + 1})")
        assert self.page.locator("#hand .card[aria-pressed=true]").count() == most
        box = self.page.locator("[data-expose]")
        if self.expose and box.count() and not box.is_checked():
            if self.use_keyboard:
                box.focus()
                self.page.keyboard.press("Space")
            else:
                box.check()
            assert box.is_checked()
        self._press("[data-confirm-discard]")

    def wait_moved(self, before: int, timeout_s: float = TURN_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.version() > before:
                return
            note = self.notice()
            if note:
                raise TableError(f"the table refused a move: {note}")
            self.page.wait_for_timeout(25)
        raise TableError(f"no new state after version {before}: {self.attrs()}")

    def play_until(
        self,
        done: Callable[[dict[str, str]], bool],
        choose: Callable[[Seat, list[dict[str, str]]], int] | None = None,
        max_actions: int = 2000,
        timeout_s: float = 240.0,
    ) -> None:
        """Plays against the computer until `done(root data attributes)` holds."""
        deadline = time.monotonic() + timeout_s
        actions = 0
        idle_since = time.monotonic()
        while time.monotonic() < deadline:
            if self.on_poll:
                self.on_poll(self)
            a = self.attrs()
            if a.get("busy") != "true" and done(a):
                return
            if self.act(choose):
                actions += 1
                idle_since = time.monotonic()
                assert actions <= max_actions, "too many actions"
            else:
                if time.monotonic() - idle_since > TURN_TIMEOUT_S:
                    raise TableError(f"the game stopped moving: {a}")
                self.page.wait_for_timeout(20)
        raise TableError(f"timed out; last attributes {self.attrs()}")


def play_together(
    seats: list[Seat],
    done: Callable[[list[dict[str, str]]], bool],
    on_step: Callable[[], None] | None = None,
    timeout_s: float = 240.0,
) -> None:
    """Two people at one table: whoever may act, acts."""
    deadline = time.monotonic() + timeout_s
    idle_since = time.monotonic()
    while time.monotonic() < deadline:
        if on_step:
            on_step()
        attrs = [s.attrs() for s in seats]
        if all(a.get("busy") != "true" for a in attrs) and done(attrs):
            return
        acted = False
        for seat in seats:
            if seat.act():
                acted = True
                break
        if acted:
            idle_since = time.monotonic()
        else:
            if time.monotonic() - idle_since > TURN_TIMEOUT_S:
                raise TableError(f"the game stopped moving: {attrs}")
            seats[0].page.wait_for_timeout(20)
    raise TableError("timed out")


def start_table(seat: Seat, opponent: str = "computer") -> None:
    """From the lobby, through the button a person would press."""
    seat.page.goto("/")
    seat.page.click(f"button[data-opponent={opponent}]")
    seat.page.wait_for_url("**/r/**")
    seat.wait_ready()


def named(seat: Seat, name: str) -> Page:
    """The lobby, with this browser's name kept."""
    page = seat.page
    page.goto("/")
    page.fill("#name-field", name)
    page.click("[data-save-name]")
    page.wait_for_selector(f"[data-my-name]:text-is('{name}')")
    wait_live(page)
    return page


def wait_live(page: Page) -> None:
    """The lobby's socket has sent its lists."""
    page.wait_for_function("() => +document.body.dataset.lobbyVersion > 0")


def hand_moves(positions: dict[int, dict[str, Any]]) -> str:
    """`Seat.hand_positions` in words, for a failure message."""
    return "; ".join(
        f"{top}px from version {e['version']} ({e['phase']} {e['step']}), above it {e['above']}"
        for top, e in sorted(positions.items())
    )


def phase_is(*phases: str) -> Callable[[dict[str, str]], bool]:
    return lambda a: a.get("phase") in phases


def _text(payload: str | bytes) -> str:
    return payload if isinstance(payload, str) else payload.decode("utf-8")


# ---- the server under test ----------------------------------------------------------


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def launch(
    module: str, log_path: Path, port: int | None = None, **env: str
) -> tuple[subprocess.Popen[bytes], str]:
    """Starts `python -m <module>` on `port` (by default a free one); returns it and its
    base URL once GET /healthz answers. The computer seat moves at once
    (PIQUET_COMPUTER_DELAY=0); its rooms are in memory unless `env` names a store."""
    port = port or free_port()
    full_env = {
        **os.environ,
        "PIQUET_HOST": "127.0.0.1",
        "PIQUET_PORT": str(port),
        "PIQUET_COMPUTER_DELAY": "0",
        "PIQUET_COMPUTER_EXCHANGE_DELAY": "0",
        "PIQUET_ROOMS_BURST": "100000",  # every test's rooms come from 127.0.0.1
        "PIQUET_ROOMS_PER_ADDRESS": "100000",  # and are held by it while open
        "PIQUET_COMPUTER_LEAD_DELAY": "0",
        "PIQUET_COMPUTER_TRICK_HOLD": "0",
        **store_env(env),
        **env,
    }
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            [_python(), "-m", module], cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(proc, base, details=log_path.read_text)
    except ServerDidNotStart as exc:
        pytest.fail(str(exc))
    return proc, base


# ---- accessibility: axe-core, run inside the page -----------------------------------

AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe.min.js"


def axe_problems(page: Page, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """axe-core's violations of these impacts on the page as it is now, one line each
    (rule, impact, and the first few elements). axe is loaded through the DevTools
    protocol, so it needs no <script> on the page and passes any CSP."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_JS.read_text() + "\n;undefined")
    # A card still arriving (its animation fades it in) is not the page as it is read:
    # the finite animations running now end first, however slow the machine is.
    page.evaluate(
        "() => Promise.race([Promise.all(document.getAnimations()"
        ".filter(a => a.effect?.getTiming().iterations !== Infinity)"
        ".map(a => a.finished.catch(() => null))),"
        " new Promise(done => setTimeout(done, 5000))])")
    violations: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))"
    )
    return [f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}"
            for v in violations if v["impact"] in impacts]
