"""Display names (issue 37): 1-24 letters, digits, spaces and - _ . ', trimmed; a guest
without one; the computer's names and a name like the other seat's refused in words; never
markup. And the names at the table: both seats and any watcher see them."""

from __future__ import annotations

import pytest
from tablekit import SeatSocket, TestClient, room_of

from app.names import (
    NameRefused,
    display_name,
    guest_name,
    look,
    name_cookie_value,
    name_from_cookie,
    refuse_look_alike,
)


@pytest.mark.parametrize("typed, kept", [
    ("Alice", "Alice"),
    ("  Jean-Luc O'Brien  ", "Jean-Luc O'Brien"),
    ("Zoë_2.0", "Zoë_2.0"),
    ("Zoe\u0308", "Zoë"),  # a letter and its accent, composed
    ("Ямщик", "Ямщик"),
    ("x" * 24, "x" * 24),
    ("   ", ""),  # no name: a guest
])
def test_a_name_is_letters_digits_spaces_and_four_marks_trimmed(typed: str, kept: str) -> None:
    assert display_name(typed) == kept


@pytest.mark.parametrize("typed, why", [
    ("x" * 25, "at most 24 characters"),
    ("<b>Bob</b>", "“<” is not allowed"),
    ("Bob&amp;", "“&” is not allowed"),
    ('Bob"', "“\"” is not allowed"),
    ("Bob\u202eevil", "U+202E is not allowed"),  # right-to-left override
    ("\u200fBob", "U+200F is not allowed"),  # right-to-left mark (not trimmed away)
    ("Bob\nAlice", "U+000A is not allowed"),
    ("Bob\u200b", "U+200B is not allowed"),  # a zero-width space
    ("Computer", "the computer's name"),
    ("c0mputer", "the computer's name"),
    ("STRONG", "one of the computer's levels"),
    ("basic", "one of the computer's levels"),
    ("You", "what the table calls your own seat"),
])
def test_a_name_is_refused_with_its_reason(typed: str, why: str) -> None:
    with pytest.raises(NameRefused) as refused:
        display_name(typed)
    assert why in str(refused.value)


@pytest.mark.parametrize("other", ["alice", "ALICE", "Аlice", "A1ice", "AIice", "Alicé",
                                   " Alice "])
def test_a_name_like_the_other_seats_is_refused(other: str) -> None:
    """Differing only in case, accents, or letters that look alike (a Cyrillic А, a 1
    for an l, an I for an l)."""
    assert look(other) == look("Alice")
    with pytest.raises(NameRefused, match="The other player is called “Alice”"):
        refuse_look_alike(other, "Alice")
    refuse_look_alike("Alicia", "Alice")  # another name is fine


def test_a_guest_is_named_by_a_number_never_like_the_other_seat() -> None:
    names = {guest_name() for _ in range(50)}
    assert all(n.startswith("Guest ") and len(n) == 10 and n[6:].isdigit() for n in names)
    assert len(names) > 1
    assert all(guest_name("Guest 1234") != "Guest 1234" for _ in range(200))


def test_the_name_cookie_is_read_again_and_checked() -> None:
    assert name_from_cookie(name_cookie_value("Jean-Luc O'Brien")) == "Jean-Luc O'Brien"
    assert name_from_cookie("%3Cscript%3E") == ""  # a forged cookie: no name, a guest
    assert name_from_cookie(None) == ""


def test_the_lobby_keeps_a_name_and_says_why_one_is_refused(client: TestClient) -> None:
    answer = client.post("/name", data={"name": "  Alice  "}, follow_redirects=False)
    assert answer.status_code == 303
    assert client.cookies.get("piquet_name") == "Alice"
    assert "lobby|Alice|" in client.get("/").text
    # Markup is refused, and the page says so with what was typed, as text.
    bad = client.post("/name", data={"name": "<img src=x onerror=alert(1)>"})
    assert bad.status_code == 400
    assert "<img" not in bad.text and "&lt;img src=x onerror=alert(1)&gt;" in bad.text
    assert "“&lt;” is not allowed" in bad.text
    assert client.cookies.get("piquet_name") == "Alice"  # unchanged
    rtl = client.post("/name", data={"name": "Bob\u202e"})
    assert rtl.status_code == 400 and "U+202E" in rtl.text
    # An empty name: none, a guest again.
    client.post("/name", data={"name": ""}, follow_redirects=False)
    assert client.cookies.get("piquet_name") is None


def test_both_seats_and_watchers_see_the_names(client: TestClient) -> None:
    made = client.post("/api/rooms", json={"opponent": "friend", "name": "Alice"}).json()
    room_id = made["room_id"]
    # A friend whose name looks like the maker's is refused, and nothing changes.
    refused = client.post(f"/api/rooms/{room_id}/join", json={"name": "ALICE"})
    assert refused.status_code == 422 and "“Alice”" in refused.json()["detail"]
    assert room_of(client, room_id).has_free_seat()
    joined = client.post(f"/api/rooms/{room_id}/join", json={"name": "Bob"}).json()
    maker = SeatSocket(client, room_id, made["token"])
    friend = SeatSocket(client, room_id, joined["token"])
    watcher = SeatSocket(client, room_id, None, watch=True)
    assert [s["name"] for s in maker.connect()["room"]["seats"]] == ["You", "Bob"]
    assert [s["name"] for s in friend.connect()["room"]["seats"]] == ["Alice", "You"]
    assert [s["name"] for s in watcher.connect()["room"]["seats"]] == ["Alice", "Bob"]
    # The names travel as JSON text, never as markup: a name cannot hold any anyway.
    assert room_of(client, room_id).options.names == ("Alice", "Bob")


def test_a_name_refused_by_the_api_says_why(client: TestClient) -> None:
    answer = client.post("/api/rooms", json={"opponent": "friend", "name": "Strong"})
    assert answer.status_code == 422 and "computer's levels" in answer.json()["detail"]
