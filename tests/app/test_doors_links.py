"""What the server builds from a request's headers (issue 25): the invite link and the
redirects (from `Host`, unless PIQUET_PUBLIC_URL names the public origin), the seat
cookie's name over HTTPS (`__Host-`), and who may read /healthz?detail=1."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError
from tablekit import SeatSocket, TestClient, new_room, serve, settings_for_tests

PUBLIC = "https://piquet.example.org"
FORGED = {"host": "evil.example"}


def page_link(page_text: str) -> str:
    """The invite link in the stand-in table page (`table|room|seat|opponent|room_url`)."""
    return page_text.split("|")[4]


# --- links ---------------------------------------------------------------------------------


def test_links_use_the_public_url_whatever_the_host_header(templates_dir: Path) -> None:
    with serve(templates_dir, public_url=PUBLIC + "/") as client:
        made = client.post("/rooms", data={"opponent": "friend"}, headers=FORGED,
                           follow_redirects=False)
        assert made.status_code == 303
        location = made.headers["location"]
        room_id = location.rsplit("/r/", 1)[1]
        assert location == f"{PUBLIC}/r/{room_id}"
        api = client.post("/api/rooms", json={"opponent": "friend"}, headers=FORGED).json()
        assert api["url"] == f"{PUBLIC}/r/{api['room_id']}"
        joined = client.post(f"/api/rooms/{api['room_id']}/join", headers=FORGED).json()
        assert joined["url"] == f"{PUBLIC}/r/{api['room_id']}"
        # The invite link on the page of a seat, a claim and a watcher.
        for headers in ({**FORGED, "cookie": f"piquet_seat_{api['room_id']}={api['token']}"},
                        FORGED):
            page = client.get(f"/r/{api['room_id']}", headers=headers)
            assert page_link(page.text) == f"{PUBLIC}/r/{api['room_id']}", page.text
        other = new_room(client, "friend")
        page = client.get(f"/r/{other['room_id']}", headers=FORGED)  # claim mode
        assert page_link(page.text) == f"{PUBLIC}/r/{other['room_id']}"
        for text in (page.text, location, api["url"]):
            assert "evil" not in text


def test_without_a_public_url_the_redirect_names_no_host(client: TestClient) -> None:
    made = client.post("/rooms", data={"opponent": "computer"}, headers=FORGED,
                       follow_redirects=False)
    location = made.headers["location"]
    assert location.startswith("/r/") and "evil" not in location


@pytest.mark.parametrize("url", ["piquet.example.org", "ftp://piquet.example.org",
                                 "https://piquet.example.org/tables",
                                 "https://piquet.example.org/?x=1", "https://"])
def test_a_public_url_is_an_origin(templates_dir: Path, url: str) -> None:
    with pytest.raises(ValidationError):
        settings_for_tests(templates_dir, public_url=url)


# --- the seat cookie over HTTPS ------------------------------------------------------------


def test_over_https_the_seat_cookie_is_host_prefixed(client: TestClient) -> None:
    made = client.post("https://testserver/rooms", data={"opponent": "friend"},
                       follow_redirects=False)
    room_id = made.headers["location"].rsplit("/r/", 1)[1]
    cookie = made.headers["set-cookie"]
    name = f"__Host-piquet_seat_{room_id}="
    assert cookie.startswith(name), cookie
    assert "; Secure" in cookie and "Path=/" in cookie and "domain" not in cookie.lower()
    token = cookie[len(name):].split(";")[0]
    # The page (again a __Host- cookie) and the socket take it.
    again = client.get(f"https://testserver/r/{room_id}", headers={"cookie": name + token})
    assert again.text.split("|")[2] == "0"
    assert again.headers["set-cookie"].startswith(name)
    sock = SeatSocket(client, room_id, None, headers={"cookie": name + token})
    assert sock.connect()["room"]["seat"] == 0
    sock.close()
    # The friend's claim over https (another browser: no cookie).
    client.cookies.clear()
    claimed = client.post(f"https://testserver/r/{room_id}/seat")
    assert claimed.json() == {"seat": 1}
    assert claimed.headers["set-cookie"].startswith(name)


def test_over_plain_http_the_seat_cookie_keeps_its_name(client: TestClient) -> None:
    made = client.post("/rooms", data={"opponent": "friend"}, follow_redirects=False)
    room_id = made.headers["location"].rsplit("/r/", 1)[1]
    assert made.headers["set-cookie"].startswith(f"piquet_seat_{room_id}=")


def test_a_public_https_url_makes_the_cookie_host_prefixed(templates_dir: Path) -> None:
    """Behind a proxy that ends TLS (the app sees plain http), the public URL says what
    the browser sees."""
    with serve(templates_dir, public_url=PUBLIC) as client:
        api = client.post("/api/rooms", json={"opponent": "friend"}).json()
        claimed = client.post(f"/r/{api['room_id']}/seat")
        assert claimed.headers["set-cookie"].startswith(f"__Host-piquet_seat_{api['room_id']}=")
        assert "; Secure" in claimed.headers["set-cookie"]


# --- /healthz?detail=1 is for operators ---------------------------------------------------


def test_healthz_detail_needs_the_operator_token(templates_dir: Path) -> None:
    with serve(templates_dir, operator_token="s3cret-operator-token") as client:
        # The TestClient's address is no loopback: a visitor.
        plain = client.get("/healthz", params={"detail": 1})
        assert plain.status_code == 200 and "loop" not in plain.json()
        wrong = client.get("/healthz", params={"detail": 1},
                           headers={"x-operator-token": "guess"})
        assert "loop" not in wrong.json()
        right = client.get("/healthz", params={"detail": 1},
                           headers={"x-operator-token": "s3cret-operator-token"})
        assert "loop" in right.json()


def test_healthz_detail_from_loopback_only_when_not_forwarded(templates_dir: Path) -> None:
    with serve(templates_dir) as client:
        local = TestClient(client.app, client=("127.0.0.1", 5000))
        assert "loop" in local.get("/healthz", params={"detail": 1}).json()
        ipv6 = TestClient(client.app, client=("::1", 5000))
        assert "loop" in ipv6.get("/healthz", params={"detail": 1}).json()
        # A visitor through a proxy on this host: loopback, but forwarded.
        for header in ({"x-forwarded-for": "127.0.0.1"}, {"forwarded": "for=127.0.0.1"},
                       {"x-real-ip": "127.0.0.1"}):
            assert "loop" not in local.get("/healthz", params={"detail": 1},
                                           headers=header).json()
        visitor = TestClient(client.app, client=("198.51.100.7", 5000))
        assert "loop" not in visitor.get("/healthz", params={"detail": 1}).json()
