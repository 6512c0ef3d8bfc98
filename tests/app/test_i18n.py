"""The site in its reader's language (issue 38): choosing it (Accept-Language, the
header's cookie), the pages' catalogue, each socket's words in its own language, records
that keep codes, and the catalogues themselves: everything said is extracted, every
French message keeps its placeholders, the pseudo-locale wraps everything."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from tablekit import SeatSocket, TestClient, join, new_room

import engine
from app import catalogues, i18n
from app.i18n import choose, language
from engine.words import WORDS, english

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "app" / "locales"
FIELD = re.compile(r"\{(\w+)(?::[^}]+)?\}|%\((\w+)\)s")


def test_the_language_is_the_cookies_else_the_browsers_best_else_english() -> None:
    assert choose(None, None) == "en"
    assert choose(None, "fr-FR,fr;q=0.9,en;q=0.8") == "fr"
    assert choose(None, "de-DE, en;q=0.5, fr;q=0.7") == "fr"  # the best the site speaks
    assert choose(None, "de, ja") == "en"
    assert choose(None, "fr;q=0, en") == "en"  # refused outright
    assert choose("en", "fr") == "en"  # the header's choice, kept
    assert choose("fr", None) == "fr"
    assert choose("klingon", "fr") == "fr"  # a cookie it does not speak: as if none
    assert choose(None, "xx") == "en"  # the pseudo-locale is never chosen for you


def test_a_page_is_in_its_readers_language_and_says_so(client: TestClient) -> None:
    english_page = client.get("/")
    assert english_page.headers["content-language"] == "en"
    assert "Cookie" in english_page.headers["vary"]
    french = client.get("/", headers={"accept-language": "fr-CA, en;q=0.5"})
    assert french.headers["content-language"] == "fr"
    refused = client.post("/lang", data={"lang": "en", "next": "/rules"},
                          headers={"accept-language": "fr"}, follow_redirects=False)
    assert refused.status_code == 303 and refused.headers["location"] == "/rules"
    assert "piquet_lang=en" in refused.headers["set-cookie"]
    assert client.get("/", headers={"accept-language": "fr"}).headers[
        "content-language"] == "en"  # the cookie, over the browser's


def test_the_language_choice_goes_back_to_this_site_only(client: TestClient) -> None:
    for away in ("https://elsewhere.example/", "//elsewhere.example/x", "/\\elsewhere"):
        answer = client.post("/lang", data={"lang": "fr", "next": away},
                             follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == "/", away
    unknown = client.post("/lang", data={"lang": "tlh", "next": "/"}, follow_redirects=False)
    assert unknown.status_code == 404 and "set-cookie" not in unknown.headers


def test_the_pages_catalogue_is_cached_for_good_under_its_version(client: TestClient) -> None:
    fr = language("fr")
    answer = client.get(fr.catalogue_url)
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert answer.headers["etag"] == f'"{fr.version}"'
    body = answer.json()
    assert body["lang"] == "fr" and body["decimal"] == ","
    assert body["codes"]["leads"] == "Entame {card:the}"
    assert body["codes"]["takes"]["one"] == "En prend une"
    assert body["messages"]["Hint"] == "Conseil"
    assert "one" in body["plurals"] and body["plurals"][-1] == "other"
    # Asked without its version (or an old one): the current one, to be asked again.
    assert client.get("/i18n/fr.json").headers["cache-control"] == "no-cache"
    assert client.get("/i18n/fr.json?v=old").headers["cache-control"] == "no-cache"
    # English needs no translation, but the phrases' words: all of them.
    assert set(client.get(language("en").catalogue_url).json()["codes"]) == set(WORDS)
    for unknown in ("/i18n/tlh.json", "/i18n/fr.txt", "/i18n/fr"):
        assert client.get(unknown).status_code == 404, unknown


def test_each_socket_is_told_its_errors_in_its_own_language(client: TestClient) -> None:
    """Two seats at one table, one French, one English: a refused move is said to each in
    its own language; the state they share carries codes, not words."""
    made = new_room(client, "friend")
    room_id = made["room_id"]
    french = SeatSocket(client, room_id, made["token"], headers={"accept-language": "fr"})
    english_seat = SeatSocket(client, room_id, join(client, room_id)["token"])
    french.connect()
    english_seat.connect()
    for seat in (french, english_seat):
        seat.act({"type": "next_deal"}, version=seat.version - 1)  # made on an old version
    said_fr = french.refused("stale_version")["message"]
    said_en = english_seat.refused("stale_version")["message"]
    assert said_fr.startswith("Joué sur la version") and said_en.startswith("Made on version")
    # A move out of turn, refused by the engine: its phrase, in each one's language.
    mover = french if french.view["legal"] else english_seat
    other = english_seat if mover is french else french
    other.act({"type": "choose_dealer", "deal": True})
    refused = other.refused("out_of_turn")["message"]
    if other is french:
        assert refused == "Ce n'est pas votre tour."
    else:  # (in English, the engine's own message: it quotes the action, for a program too)
        assert "refused: it is not your turn" in refused
    # The view is the same data for both: its log lines carry their phrase.
    assert all(line["say"]["code"] for line in french.state["new_log"])


def test_a_record_made_in_french_is_the_same_record_and_replays_in_english(
        client: TestClient) -> None:
    """The record a French browser downloads is the record an English one does (codes and
    values; its English text for programs): each log line reads in English as its text
    says, and in French too."""
    made = new_room(client, "computer")
    human = SeatSocket(client, made["room_id"], made["token"])
    human.connect()
    cookie = f"piquet_seat_{made['room_id']}={made['token']}"
    records = [json.loads(client.get(f"/r/{made['room_id']}/record.json", headers={
        "cookie": f"{cookie}; piquet_lang={lang}"}).text) for lang in ("fr", "en")]
    for record in records:
        record["meta"].pop("saved")
    assert records[0] == records[1]
    lines = records[0]["start"]["log"]
    assert lines
    for line in lines:
        assert english(line["say"]) == line["text"]
        assert language("fr").say(line["say"]) != line["text"]


def test_old_records_without_phrases_still_read() -> None:
    """A record written before the phrases (its lines and entries with text alone) is
    still a record: loads reads it (the page renders its English text)."""
    from engine.record import dumps, loads

    state = engine.new_partie(3)
    record = engine.record_of(0, ["Ann", "Bob"], state, [])

    def strip(x: object) -> object:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("say", "says")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    old = strip(record)
    assert loads(dumps(old))["start"]["log"][0]["text"].startswith("Cuts the")


def test_the_catalogues_english_is_the_engines() -> None:
    """English through the catalogues says every phrase exactly as the engine does, over
    the log, the entries and the results of random parties; French says them all, with
    no placeholder or code left unsaid."""
    en, fr = language("en"), language("fr")
    rng = random.Random(38)
    for seed in range(4):
        s = engine.new_partie(seed, rules=engine.Rules(game="au_cent") if seed % 2 else
                              engine.RUBICON)
        for _ in range(400):
            for seat in (0, 1):
                v = engine.view(s, seat)
                phrases = [x["say"] for x in v["log"]] + [e["say"] for e in v["legal"]
                                                           if "say" in e]
                for p in phrases:
                    assert en.say(p) == english(p)
                    said = fr.say(p)
                    assert "{" not in said and p["code"] not in said, (p, said)
            movers = [x for x in (0, 1) if engine.legal(s, x)]
            if not movers or s.step is engine.Step.PARTIE_OVER:
                break
            seat = rng.choice(movers)
            action, _ = rng.choice(engine.legal(s, seat))
            if isinstance(action, engine.DiscardRule):
                action = engine.Discard(tuple(s.hands[seat][:action.max]))
            s = engine.apply(s, seat, action)


def _pot(domain: str) -> list[object]:
    with (LOCALES / f"{domain}.pot").open("rb") as f:
        return [m for m in read_po(f) if m.id]


def test_every_phrase_code_and_every_script_message_is_extracted() -> None:
    """`make messages` finds every code the engine says (engine.words.WORDS) and every
    t()/nt() message of the scripts (Babel's extractor misses one inside a template
    literal or nested in another call's arguments: none may be there), and nothing from
    Python but phrase codes goes to the scripts' domain."""
    messages = _pot("js")
    codes = {m.context for m in messages if m.context}  # type: ignore[attr-defined]
    assert set(WORDS) <= codes, set(WORDS) - codes
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in messages}  # type: ignore[attr-defined]
    called = re.compile(r'\bn?t\("((?:[^"\\]|\\.)*)"')
    for script in sorted((ROOT / "static" / "js").glob("*.js")):
        for number, line in enumerate(script.read_text().splitlines(), 1):
            for found in called.finditer(line):
                assert json.loads(f'"{found[1]}"') in ids, f"{script.name}:{number} {found[1]}"
    for m in messages:
        if any(where.endswith(".py") for where, _ in m.locations):  # type: ignore[attr-defined]
            assert m.context, m.locations  # type: ignore[attr-defined]


@pytest.mark.parametrize("domain", ["js", "messages"])
def test_french_says_everything_and_keeps_every_placeholder(domain: str) -> None:
    with (LOCALES / "fr" / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
        catalog = read_po(f, locale="fr")
    template = {(m.context, m.id if isinstance(m.id, str) else m.id[0])  # type: ignore[attr-defined]
                for m in _pot(domain)}
    for m in catalog:
        if not m.id:
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        assert all(strings), f"untranslated: {m.id!r}"
        assert not m.fuzzy, f"fuzzy: {m.id!r}"
        wanted = {a or b for a, b in FIELD.findall(" ".join(ids))}
        for s in strings:
            got = {a or b for a, b in FIELD.findall(s)}
            assert got <= wanted, (m.id, s)
        if len(strings) == 1:
            assert {a or b for a, b in FIELD.findall(strings[0])} == wanted, (m.id, strings)
        template.discard((m.context, ids[0]))
    assert not template, f"not in the French catalogue: {sorted(template)[:5]}"


def test_the_pseudo_locale_wraps_every_message(tmp_path: Path) -> None:
    for domain in ("js", "messages"):
        (tmp_path / f"{domain}.pot").write_bytes((LOCALES / f"{domain}.pot").read_bytes())
    made = catalogues.pseudo(tmp_path)
    assert {p.name for p in made} == {"js.mo", "messages.mo"}
    from babel.messages.mofile import read_mo

    with (tmp_path / "xx" / "LC_MESSAGES" / "js.mo").open("rb") as f:
        wrapped = [m for m in read_mo(f) if m.id]
    assert len(wrapped) == len(_pot("js"))
    for m in wrapped:
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        assert all(s.startswith("[!! ") and s.endswith(" !!]") for s in strings), m.id
    assert i18n.language("xx").say({"code": "leads", "card": "QH"}).startswith("[!! ")


def test_a_fresh_checkout_speaks_french_without_make(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """With no compiled catalogue (.mo) at all, the server reads the .po: a clone where
    nobody ran `make locales` is still in French."""
    fresh = tmp_path / "fr" / "LC_MESSAGES"
    fresh.mkdir(parents=True)
    for domain in ("js", "messages"):
        (fresh / f"{domain}.po").write_bytes(
            (LOCALES / "fr" / "LC_MESSAGES" / f"{domain}.po").read_bytes())
    monkeypatch.setattr(i18n, "LOCALES", tmp_path)
    assert i18n._translations("fr", "js").pgettext("good", "Good") == "Bon"
    assert i18n._translations("fr", "messages").gettext("Hint") == "Hint"  # (a page word)
    assert i18n._translations("fr", "messages").gettext("Rules") == "Règles"
