"""The page under the site's security headers (issue 15): the Content-Security-Policy is
in force and nothing of ours breaks it, and a link preview fetched before the friend
opens the link leaves the seat to the friend, whose page takes it by a POST."""

from __future__ import annotations

import httpx
from browserkit import start_table

PAGES = ("/", "/rules")


def test_the_policy_is_in_force_and_our_pages_keep_to_it(open_seat, watch, server) -> None:
    seat = open_seat()
    for path in PAGES:
        response = seat.page.goto(path)
        assert response is not None
        assert "script-src 'self'" in response.headers["content-security-policy"]
    start_table(seat, "computer")  # the table page: its scripts, styles and socket
    seat.wait_ready()
    # A script put in by hand (as an injection would) is blocked, and the watch sees it:
    # so a page of ours breaking the policy would not go unnoticed.
    watch.allow("console", "CSP violation")  # our listener's report
    watch.allow("console", "violates the following Content Security Policy")  # Chromium's
    ran = seat.page.evaluate("""() => new Promise((resolve) => {
        document.addEventListener("securitypolicyviolation", () => resolve(window.injected === 1));
        const s = document.createElement("script");
        s.textContent = "window.injected = 1";
        document.body.append(s);
    })""")
    assert ran is False


def test_a_link_preview_leaves_the_seat_to_the_friend(open_seat, watch, server) -> None:
    maker = open_seat()
    start_table(maker, "friend")
    link = maker.page.locator("#invite-url").input_value()
    # A chat app fetches the link for its preview: no cookie, no script run.
    with httpx.Client(trust_env=False, timeout=10,
                      headers={"user-agent": "Slackbot-LinkExpanding 1.0"}) as previewer:
        assert previewer.head(link).status_code == 200
        assert previewer.get(link).status_code == 200
        assert not previewer.cookies
    friend = open_seat()
    friend.page.goto(link)
    friend.wait_ready()
    assert friend.attrs()["seat"] == "1"
    maker.page.wait_for_function(
        "() => document.getElementById('table').dataset.opponentConnected === 'true'")
    # A third browser finds the table full.
    watch.allow("http", "409 ")
    watch.allow("console", "409")
    third = open_seat()
    response = third.page.goto(link)
    assert response is not None and response.status == 409
