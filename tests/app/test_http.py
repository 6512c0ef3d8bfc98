"""The HTTP side: pages, seat cookies, the JSON API, health and the protocol's schema."""

from __future__ import annotations

from pathlib import Path

import pytest
from tablekit import TestClient, room_of, serve

import engine
from app.pages import COOKIE_MAX_AGE
from app.protocol import View
from app.settings import ROOT


def make_room_by_form(client: TestClient, opponent: str) -> tuple[str, str]:
    """POST /rooms as the lobby's form does; returns (room id, seat token from the cookie)."""
    response = client.post("/rooms", data={"opponent": opponent}, follow_redirects=False)
    assert response.status_code == 303
    location = response.headers["location"]
    room_id = location.rsplit("/r/", 1)[1]
    cookie = response.headers["set-cookie"]
    name = f"piquet_seat_{room_id}="
    assert cookie.startswith(name)
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    token = cookie[len(name):].split(";")[0]
    assert len(token) >= 32 and token not in location
    return room_id, token


def test_lobby_and_rules(client: TestClient) -> None:
    assert client.get("/").status_code == 200
    assert client.get("/rules").status_code == 200


def test_making_a_room_against_the_computer(client: TestClient) -> None:
    room_id, token = make_room_by_form(client, "computer")
    assert len(room_id) >= 16  # 96 bits in URL-safe base64
    page = client.get(f"/r/{room_id}")  # the client keeps the cookie
    assert page.status_code == 200
    assert page.text == f"table|{room_id}|0|computer|http://testserver/r/{room_id}"
    assert token not in page.text
    assert room_of(client, room_id).seat_for_token(token) == 0


def test_a_friend_takes_the_free_seat_and_a_third_visitor_watches(
    client: TestClient,
) -> None:
    room_id, token = make_room_by_form(client, "friend")
    assert client.get(f"/r/{room_id}").text.startswith(f"table|{room_id}|0|friend|")
    client.cookies.clear()  # the friend's browser
    friend = client.get(f"/r/{room_id}")
    assert friend.status_code == 200 and friend.text.startswith(f"table|{room_id}|1|friend|")
    assert "set-cookie" not in friend.headers  # the page takes the seat, by POST
    taken = client.post(f"/r/{room_id}/seat")
    assert taken.status_code == 200 and taken.json() == {"seat": 1}
    friend_token = taken.cookies[f"piquet_seat_{room_id}"]
    assert friend_token != token and friend_token not in taken.text
    assert client.get(f"/r/{room_id}").text.startswith(f"table|{room_id}|1|")  # a refresh
    client.cookies.clear()  # a third browser
    third = client.get(f"/r/{room_id}")
    assert third.status_code == 200
    assert third.text.startswith(f"table|{room_id}|watch|friend|")  # no seat: watching
    assert "set-cookie" not in third.headers


def test_the_computer_seat_is_never_free(client: TestClient) -> None:
    room_id, _ = make_room_by_form(client, "computer")
    client.cookies.clear()
    assert client.get(f"/r/{room_id}").text.startswith(f"table|{room_id}|watch|computer|")


def test_an_unknown_room_gets_a_clear_page(client: TestClient) -> None:
    page = client.get("/r/not-a-room")
    assert page.status_code == 404
    assert page.text.startswith("message|No such table|")


def test_an_unknown_opponent_is_refused(client: TestClient) -> None:
    assert client.post("/rooms", data={"opponent": "martian"}).status_code == 400
    assert client.post("/api/rooms", json={"opponent": "martian"}).status_code == 422


def test_api_rooms_for_bots(client: TestClient) -> None:
    made = client.post("/api/rooms", json={"opponent": "friend"})
    assert made.status_code == 201
    body = made.json()
    assert body["seat"] == 0 and body["url"] == f"http://testserver/r/{body['room_id']}"
    joined = client.post(f"/api/rooms/{body['room_id']}/join")
    assert joined.status_code == 200
    assert joined.json()["seat"] == 1 and joined.json()["token"] != body["token"]
    assert client.post(f"/api/rooms/{body['room_id']}/join").status_code == 409
    computer = client.post("/api/rooms", json={"opponent": "computer"}).json()
    assert client.post(f"/api/rooms/{computer['room_id']}/join").status_code == 409


def test_healthz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "rooms": 0}
    client.post("/api/rooms", json={"opponent": "friend"})
    assert client.get("/healthz").json() == {"status": "ok", "rooms": 1}


def test_protocol_json_describes_every_message(client: TestClient) -> None:
    schema = client.get("/protocol.json").json()
    text = str(schema)
    for name in ("ActionMessage", "NewMatchMessage", "ClientPing", "ClientPong"):
        assert name in str(schema["client_to_server"])
    for name in ("StateMessage", "PresenceMessage", "ErrorMessage", "ServerPing", "ServerPong"):
        assert name in str(schema["server_to_client"])
    for code in ("stale_version", "duplicate_id", "rate_limited", "too_large"):
        assert code in text
    assert schema["client_to_server"]["discriminator"]["propertyName"] == "type"
    assert len(schema["card_names"]) == 32 and schema["card_names"]["10S"] == "Ten of Spades"


def test_protocol_json_describes_the_view_field_by_field(client: TestClient) -> None:
    """The view's schema names what the seat knows as data, down to a call as told."""
    defs = client.get("/protocol.json").json()["server_to_client"]["$defs"]
    view = defs["View"]["properties"]
    for field in ("hand", "legal", "declaring", "declarations", "combos", "scores", "seen"):
        assert field in view
    assert set(defs["Told"]["properties"]) == {"length", "pips", "top", "rank", "count"}
    assert set(defs["DeclarationView"]["properties"]) >= {"elder_call", "answers",
                                                          "younger_call", "to_speak", "owed"}
    assert set(defs["Parts"]["properties"]) == set(engine.ALL_PARTS)  # carte rouge's too
    assert set(defs["SeenView"]["properties"]) == {"discards", "rest_of_five", "exposed",
                                                   "shown", "played"}


def test_a_view_with_an_undescribed_field_inside_fails_the_schema() -> None:
    v = engine.view(engine.new_partie(seed=1, first_dealer=0), 1)
    View.model_validate(v)
    v["seen"] = {**v["seen"], "stock": ["AS"]}
    with pytest.raises(ValueError):
        View.model_validate(v)


def test_static_files_are_served(templates_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "table.js").write_text("export const table = 1;\n")
    (tmp_path / "table.css").write_text("body { color: black; }\n")
    with serve(templates_dir, static_dir=tmp_path) as client:
        script = client.get("/static/js/table.js")
        assert script.status_code == 200 and script.text == "export const table = 1;\n"
        # A module script is only run by a browser if served as JavaScript.
        assert script.headers["content-type"].startswith("text/javascript")
        style = client.get("/static/table.css")
        assert style.status_code == 200 and style.text == "body { color: black; }\n"
        assert style.headers["content-type"].startswith("text/css")
        assert client.get("/static/no-such-file.js").status_code == 404
        assert client.get("/static/../pyproject.toml").status_code == 404
    with serve(templates_dir) as client:  # the real directory, by default
        for name in ("js/table.js", "css/table.css"):
            response = client.get(f"/static/{name}")
            assert response.status_code == 200
            assert response.content == (ROOT / "static" / name).read_bytes()


def test_the_seat_cookie_lasts_a_week_and_is_secure_over_https(client: TestClient) -> None:
    plain = client.post("/rooms", data={"opponent": "computer"}, follow_redirects=False)
    cookie = plain.headers["set-cookie"]
    assert f"Max-Age={COOKIE_MAX_AGE}" in cookie and COOKIE_MAX_AGE == 7 * 24 * 3600
    assert "secure" not in cookie.lower()  # plain http (a local game): it would be dropped
    secure = client.post("https://testserver/rooms", data={"opponent": "computer"},
                         follow_redirects=False)
    cookie = secure.headers["set-cookie"]
    assert "; Secure" in cookie and f"Max-Age={COOKIE_MAX_AGE}" in cookie
    room_id = secure.headers["location"].rsplit("/r/", 1)[1]
    # A visit sets it again (so it lives as long as the table is in use), still Secure.
    again = client.get(f"https://testserver/r/{room_id}")
    assert again.status_code == 200
    assert "; Secure" in again.headers["set-cookie"]
    assert f"Max-Age={COOKIE_MAX_AGE}" in again.headers["set-cookie"]


@pytest.mark.parametrize("page", ["lobby.html", "table.html", "message.html", "rules.html"])
def test_the_real_templates_render(page: str) -> None:
    """The page engineer's templates with the context the server gives them."""
    assert (ROOT / "templates" / page).exists(), f"templates/{page} is missing"
    with serve(ROOT / "templates") as client:
        if page == "lobby.html":
            assert client.get("/").status_code == 200
        elif page == "rules.html":
            assert client.get("/rules").status_code == 200
        elif page == "message.html":
            response = client.get("/r/nowhere")
            assert response.status_code == 404 and "No such table" in response.text
        else:
            room_id, token = make_room_by_form(client, "friend")
            response = client.get(f"/r/{room_id}")
            assert response.status_code == 200 and room_id in response.text
            assert token not in response.text
