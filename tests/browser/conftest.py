"""Browser tests: the real server (`python -m app`) on a free port, Debian's Chromium
driven by Playwright, and a watch on every page for console errors, failed requests
and requests to anything but the server."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from browserkit import Seat, launch
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from tests.serverproc import stop

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("PIQUET_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of the real server, started exactly as `make run` does: `python -m app`."""
    proc, base = launch("app", tmp_path_factory.mktemp("server") / "server.log")
    try:
        yield base
    finally:
        stop(proc)


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """own_server(**PIQUET_ env) -> the base URL of a server of the test's own. List it
    before `open_seat`: it is then stopped after the test's pages are closed. A page whose
    server stops is told 1012 and reconnects at once, so a server stopped under an open
    page leaves a refused connection in its console."""
    procs = []

    def make(**env: str) -> str:
        proc, base = launch("app", tmp_path / f"server{len(procs)}.log", **env)
        procs.append(proc)
        return base

    yield make
    for proc in procs:
        stop(proc)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if not executable:
        pytest.fail("Debian's chromium is missing: `make browser-deps` installs it")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable)
        yield browser
        browser.close()


CSP_WATCH = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"}`);
});
"""


class Watch:
    """Everything that went wrong on any page of one test."""

    def __init__(self, base: str) -> None:
        self.origins = {urlsplit(base).netloc}
        self.problems: list[str] = []
        # Per test: (kind, text fragment) pairs that are expected, e.g. a 409 page.
        self.allowed: list[tuple[str, str]] = []

    def allow(self, kind: str, fragment: str) -> None:
        self.allowed.append((kind, fragment))

    def note(self, kind: str, text: str) -> None:
        if any(k == kind and f in text for k, f in self.allowed):
            return
        self.problems.append(f"{kind}: {text}")

    def attach(self, page: Page) -> None:
        # Every breach of the Content-Security-Policy (app/security.py) is a problem too: a
        # blocked script or style would leave the page quietly broken.
        page.add_init_script(CSP_WATCH)
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.note("pageerror", str(e)))
        page.on("requestfailed", self._failed)
        page.on(
            "response",
            lambda r: self.note("http", f"{r.status} {r.url}") if r.status >= 400 else None,
        )
        page.on("request", self._check_origin)

    def _failed(self, request: Any) -> None:
        # A page's fetch still on its way when the test goes to another page is cancelled
        # by the browser (the lobby asks for "My tables" as it opens): not a failure.
        if request.failure == "net::ERR_ABORTED" and request.resource_type in ("fetch", "xhr"):
            return
        self.note("requestfailed", f"{request.url} {request.failure}")

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.note("console", f"{message.text} ({message.location})")

    def _check_origin(self, request: Any) -> None:
        url = urlsplit(request.url)
        if url.scheme in ("data", "blob", "about"):
            return
        if url.netloc not in self.origins:
            self.note("external", request.url)


OpenSeat = Callable[..., Seat]


@pytest.fixture
def watch(server: str) -> Watch:
    return Watch(server)


@pytest.fixture
def open_seat(chromium: Browser, server: str, watch: Watch) -> Iterator[OpenSeat]:
    """open_seat(**context options) -> a Seat on a fresh browser context (its own cookies)."""
    contexts: list[BrowserContext] = []

    def make(**options: Any) -> Seat:
        options.setdefault("viewport", {"width": 1280, "height": 900})
        options.setdefault("base_url", server)
        watch.origins.add(urlsplit(options["base_url"]).netloc)
        context = chromium.new_context(**options)
        context.set_default_timeout(15000)
        contexts.append(context)
        page = context.new_page()
        watch.attach(page)
        return Seat(page).listen()

    yield make
    for context in contexts:
        context.close()
    assert not watch.problems, "\n".join(watch.problems)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
