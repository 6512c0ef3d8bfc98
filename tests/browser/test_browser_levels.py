"""The computer's level in the lobby (issue 12): the choice is offered with a line about
each level, remembered on the device, and the table says which level plays."""

from __future__ import annotations


def test_the_lobby_remembers_the_level_and_the_table_names_it(open_seat) -> None:
    seat = open_seat()
    page = seat.page
    page.goto("/")
    levels = page.locator("[data-level-choice]")
    assert [levels.nth(i).get_attribute("value") for i in range(levels.count())] == [
        "basic", "good", "strong"]
    assert page.locator("[data-level-choice][value=basic]").is_checked()  # the first choice
    assert "sinks nothing" in page.locator("label.level").first.inner_text()
    page.locator("[data-level-choice][value=good]").check()
    page.reload()
    assert page.locator("[data-level-choice][value=good]").is_checked()  # remembered
    page.click("button[data-opponent=computer]")
    page.wait_for_url("**/r/**")
    assert page.locator(".computer-level").inner_text() == (
        "The computer plays at the good level.")
