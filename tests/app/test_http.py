"""The HTTP side: pages, seat cookies, the JSON API, health and the protocol's schema."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from tablekit import TestClient, room_of, serve

import engine
from app.pages import COOKIE_MAX_AGE
from app.protocol import View
from app.settings import ROOT
from tests.stacked import AU_CENT, GAME_IN_ONE_HANDS


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


# --- the rules a room is made under (RULES.md §8) -------------------------------------------

def test_a_room_is_made_under_the_rules_the_lobby_s_form_chose(client: TestClient) -> None:
    """The chooser's fields (templates/_rules_choice.html) make the room's rules; nothing
    chosen is Rubicon Piquet; a tie rule ticked and then au cent chosen is not read."""
    cases = [
        ({}, engine.RUBICON),
        ({"game": "au_cent", "carte_rouge": "on"}, AU_CENT),
        ({"game": "au_cent", "carte_rouge": "on", "tie": "one_more"}, AU_CENT),
        ({"game": "rubicon", "cards_towards_pique": "on", "tie": "one_more"},
         engine.Rules(cards_towards_pique=True, tie="one_more")),
    ]
    for fields, rules in cases:
        for opponent in ("computer", "friend", "practice"):
            made = client.post("/rooms", data={"opponent": opponent, **fields},
                               follow_redirects=False)
            assert made.status_code == 303, made.text
            room = room_of(client, made.headers["location"].rsplit("/r/", 1)[1])
            assert room.options.rules == rules, (fields, opponent)
            assert room.state.rules == rules


def test_rules_that_make_no_sense_are_refused_in_words_and_make_nothing(
    client: TestClient,
) -> None:
    rooms = client.app.state.rooms  # type: ignore[attr-defined]
    for fields, words in [({"game": "piquet_a_ecrire"}, "au_cent"),
                          ({"game": "rubicon", "tie": "three_more"}, "one_more")]:
        page = client.post("/rooms", data={"opponent": "friend", **fields})
        assert page.status_code == 400 and page.text.startswith("message|Unknown rules|")
        assert words in page.text
    for rules, words in [({"game": "au_cent", "tie": "one_more"}, "Rubicon Piquet only"),
                         ({"carte_rouge": "yes"}, "true or false"),
                         ({"carte_blanche": True}, "no such rule")]:
        answer = client.post("/api/rooms", json={"opponent": "friend", "rules": rules})
        assert answer.status_code == 422, rules
        assert answer.json()["detail"].startswith("Unknown rules: ") and words in answer.text
    # Not an object at all: the body is refused as any bad body is.
    assert client.post("/api/rooms", json={"opponent": "friend", "rules": "au_cent"}
                       ).status_code == 422
    assert len(rooms) == 0
    made = client.post("/api/rooms", json={"opponent": "computer", "rules": AU_CENT.to_json()})
    assert made.status_code == 201
    assert room_of(client, made.json()["room_id"]).options.rules == AU_CENT


def test_the_lobby_offers_the_rules_each_with_its_line_and_paragraph() -> None:
    with serve(ROOT / "templates") as client:
        lobby = client.get("/").text
        rules = client.get("/rules").text
    for form in ("computer", "friend"):
        for key, anchor in [("rubicon", "partie"), ("au_cent", "au-cent"),
                            ("cards_towards_pique", "cards-towards-pique"),
                            ("carte_rouge", "carte-rouge"), ("one_more", "one-more-deal")]:
            note = lobby.split(f'id="{form}-rule-{key}">', 1)[1].split("</p>", 1)[0]
            assert f'href="/rules#{anchor}"' in note and len(note) > 60, (form, key)
            assert f'aria-describedby="{form}-rule-{key}"' in lobby
            assert f'id="{anchor}"' in rules
    assert lobby.count("<legend") >= 3 and 'href="#variants"' in rules


def test_the_table_page_tells_the_rules_before_the_friend_sits_and_to_watchers() -> None:
    """Under variants the friend's page (claim mode) says the rules and waits for "Take
    the seat"; a watcher's says them too; under Rubicon Piquet's own the page is as ever."""
    with serve(ROOT / "templates") as client:
        made = client.post("/api/rooms", json={"opponent": "friend",
                                               "rules": AU_CENT.to_json()}).json()
        plain = client.post("/api/rooms", json={"opponent": "friend"}).json()
        client.cookies.clear()  # the friend's browser
        friend = client.get(f"/r/{made['room_id']}").text
        assert 'data-claim="true"' in friend and "data-sit" in friend
        assert "Rules at this table: Piquet au cent, carte rouge" in friend
        assert '<details class="rules-here" id="rules-here" open>' in friend
        assert 'href="/rules#au-cent"' in friend and 'href="/rules#carte-rouge"' in friend
        assert "the cut is made once you sit down" in friend
        ordinary = client.get(f"/r/{plain['room_id']}").text
        assert 'data-claim="true"' in ordinary
        assert "rules-here" not in ordinary and "data-sit" not in ordinary
        assert client.post(f"/r/{made['room_id']}/seat").status_code == 200
        seated = client.get(f"/r/{made['room_id']}").text
        assert "Rules at this table" in seated and "data-sit" not in seated
        client.cookies.clear()  # a third browser
        watcher = client.get(f"/r/{made['room_id']}").text
        assert 'data-seat="watch"' in watcher
        assert "Rules at this table: Piquet au cent, carte rouge" in watcher


def every_rules() -> list[engine.Rules]:
    return [engine.Rules(game=g, cards_towards_pique=c, carte_rouge=r, tie=t)
            for g in ("rubicon", "au_cent") for c in (False, True) for r in (False, True)
            for t in (("two_more", "one_more") if g == "rubicon" else ("two_more",))]


def random_move(state: engine.State, rng: random.Random) -> tuple[int, dict[str, Any]]:
    seat = rng.choice([s for s in (0, 1) if engine.view(state, s, log=False)["legal"]])
    view = engine.view(state, seat, log=False)
    entry = {k: v for k, v in rng.choice(view["legal"]).items() if k not in ("label", "say")}
    if entry["type"] == "discard":
        action: dict[str, Any] = {
            "type": "discard",
            "cards": rng.sample(view["hand"], rng.randint(entry["min"], entry["max"]))}
        if entry["expose_choice"]:
            action["expose"] = rng.random() < 0.5
        return seat, action
    return seat, entry


def check_views(state: engine.State, rules: engine.Rules) -> set[str]:
    """Each seat's view and the watcher's, as the View model reads them; what they held."""
    held: set[str] = set()
    for v in (engine.view(state, 0), engine.view(state, 1), engine.public_view(state)):
        model = View.model_validate(v)
        assert model.rules.model_dump(exclude_none=True) == rules.to_json()
        assert (model.games is not None) == (rules.game == "au_cent")
        held |= {b.kind for b in model.bonuses}
        held |= {"double" if g.double else "single" for g in (model.games.finished
                                                             if model.games else [])}
    return held


@pytest.mark.parametrize("rules", every_rules(), ids=lambda r: r.describe())
def test_the_view_model_describes_every_view_under_every_rules(rules: engine.Rules) -> None:
    """/protocol.json's View against what engine.view sends, step by step, in random
    parties under every combination of RULES.md §8, each seat's and a watcher's."""
    rng = random.Random(rules.describe())
    state = engine.new_partie(seed=rng.getrandbits(32), rules=rules)
    while state.phase is not engine.Phase.PARTIE_OVER:
        check_views(state, rules)
        state = engine.apply(state, *random_move(state, rng))
    check_views(state, rules)
    assert View.model_validate(engine.view(state, 0)).result is not None


def test_the_view_model_describes_au_cent_s_game_won_with_carte_rouge() -> None:
    """A stacked deal (tests/stacked.py): elder's eight hearts, trios of aces and kings
    (carte rouge) and the repique take him past 100 before a card is played: a double."""
    state = engine.new_partie(seed=1, rules=AU_CENT, hands=[GAME_IN_ONE_HANDS])
    held: set[str] = set()
    while state.phase is engine.Phase.CUT or state.deal_number == 1:
        mover = next(s for s in (0, 1) if engine.view(state, s)["to_move"] == s)
        view = engine.view(state, mover)
        entry = {k: v for k, v in view["legal"][0].items() if k not in ("label", "say")}
        if entry["type"] == "discard":
            entry = {"type": "discard", "cards": view["hand"][:entry["min"]]}
        state = engine.apply(state, mover, entry)
        held |= check_views(state, AU_CENT)
        if state.phase is engine.Phase.DEAL_OVER:
            break
    assert {"carte_rouge", "repique", "double"} <= held
