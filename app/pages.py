"""The HTML pages: lobby, table, rules, and the clear pages for a full or unknown table.

The seat token only ever travels in the HttpOnly cookie `piquet_seat_{room_id}`
(`__Host-piquet_seat_{room_id}` over HTTPS), never in a URL or a page (docs/protocol.md).
Links to a table are built from PIQUET_PUBLIC_URL when it is set (`table_url`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

import engine
from app.i18n import _, ngettext
from app.names import guest_name
from app.registry import RoomsFullError, TooManyRooms
from app.room import Room
from app.room_options import RoomOptions, rules_from_form
from app.security import TOO_MANY_ROOMS, may_make_room, well_formed_room_id
from app.settings import Settings
from app.sitting import (
    Refused,
    Visitor,
    address_of,
    lobby_of,
    over_https,
    remember,
    rooms_of,
    settings_of,
    sit_down,
    table_for,
    templates_of,
    visitor_of,
)
from app.ws import seat_cookie, seat_token
from engine.computer import LEVELS

router = APIRouter()

# A seat cookie outlives any room (rooms expire when idle); a week spans a long evening.
# At a slow table, twice its days without a move: a room lives that long after the last
# move, which may come that long after this browser's last visit (the other seat's).
COOKIE_MAX_AGE = 7 * 24 * 3600


def seat_cookie_age(settings: Settings, room: Room) -> int:
    """How long the browser keeps its seat cookie for `room`, from each visit."""
    if room.options.slow:
        return max(COOKIE_MAX_AGE, int(2 * settings.slow_room_seconds))
    return COOKIE_MAX_AGE


def table_url(request: Request, room_id: str) -> str:
    """The table's absolute link (the invite link, the redirect, the API's `url`): from
    PIQUET_PUBLIC_URL when set; else from the request (its Host header)."""
    public = settings_of(request).public_url
    if public:
        return f"{public}/r/{room_id}"
    return str(request.url_for("table", room_id=room_id))


def set_seat_cookie(request: Request, response: Response, room: Room, token: str) -> None:
    secure = over_https(request)
    room_id = room.room_id
    response.set_cookie(
        seat_cookie(room_id, secure),
        token,
        max_age=seat_cookie_age(settings_of(request), room),
        path="/",  # (and no Domain: as __Host- requires)
        httponly=True,
        samesite="lax",
        secure=secure,
    )
    if secure and seat_cookie(room_id) in request.cookies:
        # A seat given before the prefix: it moves to the __Host- cookie.
        response.delete_cookie(seat_cookie(room_id), path="/", httponly=True, samesite="lax")


def message_page(
    request: Request,
    status_code: int,
    title: str,
    message: str,
    action_url: str = "/",
    action_label: str | None = None,
) -> HTMLResponse:
    context: dict[str, Any] = {
        "title": title,
        "message": message,
        "action_url": action_url,
        "action_label": action_label or _("Start a new table"),
    }
    return templates_of(request).TemplateResponse(
        request, "message.html", context, status_code=status_code
    )


@router.get("/rules", response_class=HTMLResponse)
async def rules(request: Request) -> HTMLResponse:
    return templates_of(request).TemplateResponse(request, "rules.html", {})


@router.post("/rooms", response_model=None)
async def make_room(
    request: Request,
    opponent: Annotated[str, Form()] = "computer",
    level: Annotated[str, Form()] = "basic",
    seating: Annotated[str, Form()] = "link",
    watching: Annotated[str, Form()] = "",
) -> Response:
    form = await request.form()
    visitor = visitor_of(request)
    options = _form_options({k: v for k, v in form.items() if isinstance(v, str)},
                            opponent, level, seating, watching, visitor)
    if isinstance(options, tuple):
        return message_page(request, 400, *options)
    if not may_make_room(request):
        page = message_page(request, 429, _("Too many new tables"), str(TOO_MANY_ROOMS),
                            action_label=_("Back to the lobby"))
        page.headers["Retry-After"] = "60"
        return page
    try:
        room, token = await rooms_of(request).create(options, address_of(request))
        if options.seating == "open":
            await list_new_table(request, room, visitor)
    except TooManyRooms as exc:
        return message_page(request, 429, _("Too many open tables"), str(exc),
                            action_label=_("Back to the lobby"))
    except Refused as exc:
        return message_page(request, exc.status, exc.title, exc.detail,
                            action_label=_("Back to the lobby"))
    except RoomsFullError:
        return message_page(
            request,
            503,
            _("All tables are in use"),
            _("Every table on this server is taken just now. Please try again in a few "
              "minutes."),
            action_label=_("Back to the lobby"),
        )
    return seated_response(request, room, token, visitor)


def _form_options(form: dict[str, str], opponent: str, level: str, seating: str,
                  watching: str, visitor: Visitor) -> RoomOptions | tuple[str, str]:
    """The table the lobby's form asks for, or why it is not one we make: the page's
    title and its words."""
    try:
        rules = rules_from_form(form)
    except ValueError as exc:
        return _("Unknown rules"), str(exc)
    if opponent not in ("computer", "friend", "practice"):
        return (_("Unknown opponent"),
                _("Choose the computer, a friend, or practice with a friend as your "
                  "opponent."))
    if level not in LEVELS:
        return (_("Unknown computer level"),
                _("Choose one of the computer's levels: {levels}.", levels=", ".join(LEVELS)))
    if seating not in ("link", "open"):
        return _("Unknown seating"), _("Choose who may sit down: people with the link, or "
                                       "anyone.")
    pace = form.get("pace") or "now"
    if pace not in ("now", "slow"):
        return _("Unknown pace"), _("Choose to play now, or to take your time.")
    return RoomOptions(
        opponent="computer" if opponent == "computer" else "friend",
        level="strong" if level == "strong" else "good" if level == "good" else "basic",
        practice=opponent == "practice", rules=rules,
        seating="open" if seating == "open" else "link", watching=watching == "on",
        names=(visitor.name or guest_name(), ""), pace="slow" if pace == "slow" else "now")


async def list_new_table(request: Request, room: Room, visitor: Visitor) -> None:
    """An open table just made goes on the lobby's list; Refused (and the table is not
    kept) when the maker's address has its share of tables listed already."""
    lobby = lobby_of(request)
    if await lobby.list_table(room, address_of(request), visitor.digest):
        room.set_listing("listed")
        return
    await rooms_of(request).discard(room)
    raise Refused(429, _("Too many open tables"), too_many_open(lobby.open_per_address))


def in_words(seconds: float) -> str:
    """A span of time in words: "45 seconds", "15 minutes", "2 hours", "30 days"."""
    if seconds >= 2 * 86400:
        return ngettext("{n} day", "{n} days", round(seconds / 86400))
    if seconds >= 2 * 3600:
        return ngettext("{n} hour", "{n} hours", round(seconds / 3600))
    if seconds >= 2 * 60:
        return ngettext("{n} minute", "{n} minutes", round(seconds / 60))
    return ngettext("{n} second", "{n} seconds", round(seconds))


def open_wait(settings: Settings) -> str:
    """How long an open table waits in the lobby, in words ("15 minutes")."""
    return in_words(settings.open_table_seconds)


def paces(settings: Settings) -> dict[str, str]:
    """How long a table is kept without a move, in words, at each pace."""
    return {"now": in_words(settings.room_idle_seconds),
            "slow": in_words(settings.slow_room_seconds)}


def too_many_open(limit: int) -> str:
    return ngettext("{n} table from your address is waiting in the lobby already. Sit "
                    "down at it, or take it out of the lobby, before opening another.",
                    "{n} tables from your address are waiting in the lobby already. Sit "
                    "down at one, or take one out of the lobby, before opening another.",
                    limit)


def seated_response(request: Request, room: Room, token: str | None,
                    visitor: Visitor) -> Response:
    """To the table, the seat cookie set (`token`: none when the browser holds its seat
    there already). With no public URL, a relative link: a redirect needs no host, so
    none is taken from the request's Host header."""
    public = settings_of(request).public_url
    where = table_url(request, room.room_id) if public else f"/r/{room.room_id}"
    response = RedirectResponse(where, status_code=303)
    if token is not None:
        set_seat_cookie(request, response, room, token)
    remember(request, response, visitor)
    return response


@router.api_route("/r/{room_id}", methods=["GET", "HEAD"], name="table", response_model=None)
async def table(request: Request, room_id: str) -> Response:
    """The table page. A GET (or HEAD) never takes a seat: a chat app fetching a preview
    of the link would take the friend's. A visitor holding no seat at a table with a free
    one gets the page in `claim` mode, and its script takes the seat with a POST."""
    if not well_formed_room_id(room_id):
        return _no_such_table(request)
    room = await rooms_of(request).find(room_id, arriving=True)
    if room is None:
        return _no_such_table(request)
    token = seat_token(request.cookies, room_id)
    seat = room.seat_for_token(token)
    claim = seat is None
    if claim:
        if not room.has_free_seat():
            return _watch_page(request, room)
        seat = 1
    context: dict[str, Any] = {
        "room_id": room_id,
        "seat": seat,
        "claim": claim,
        "opponent": room.opponent,
        "level": room.level,
        "levels": list(LEVELS),
        "room_url": table_url(request, room_id),
        "seating": room.options.seating,
        "open_wait": open_wait(settings_of(request)),
        "away_seconds": settings_of(request).stranger_away_seconds,
        "abandon_seconds": settings_of(request).stranger_abandon_seconds,
        **_table_context(request, room),
    }
    response = templates_of(request).TemplateResponse(request, "table.html", context)
    if token is not None and not claim:
        # Set again on every visit, so the cookie lives as long as the table is in use.
        set_seat_cookie(request, response, room, token)
    return response


@router.post("/r/{room_id}/seat", name="claim_seat", response_model=None)
async def claim_seat(request: Request, room_id: str) -> Response:
    """The table page's script takes the free seat (a person has opened the link in a
    browser, or sat down from the lobby): the seat cookie, and the seat number as JSON. A
    browser that holds a seat here already keeps it. Refused from another site's page
    (app/security.py)."""
    room = await table_for(request, room_id)
    if not isinstance(room, Room):
        return room  # (a 404)
    token = seat_token(request.cookies, room_id)
    seat = room.seat_for_token(token)
    visitor = visitor_of(request)
    if seat is None:
        try:
            seat, token = await sit_down(request, room, visitor)
        except Refused as exc:
            return JSONResponse({"detail": exc.detail}, exc.status)
    assert token is not None
    response = JSONResponse({"seat": seat})
    set_seat_cookie(request, response, room, token)
    remember(request, response, visitor)
    return response


@router.get("/r/{room_id}/record.json", name="record", response_model=None)
async def record(request: Request, room_id: str) -> Response:
    """The record of the partie so far (docs/record.md): a seat's (its seat cookie) holds
    what that seat saw and the reviews of its finished deals; anyone else gets a
    watcher's, the public part only. Worked out in the teaching workers."""
    room = await table_for(request, room_id)
    if not isinstance(room, Room):
        return room  # (a 404)
    seat = room.seat_for_token(seat_token(request.cookies, room_id))
    meta = {"room": room_id, "opponent": room.opponent, "level": room.level,
            "practice": room.practice, "match": room.match,
            "saved": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    body = await room.coach.record(seat, meta)
    who = "watcher" if seat is None else f"seat{seat}"
    return Response(body, media_type="application/json", headers={
        "Content-Disposition": f'attachment; filename="piquet-{room_id}-{who}.json"'})


@router.get("/replay", response_class=HTMLResponse)
async def replay(request: Request) -> HTMLResponse:
    """The replay page: a record (docs/record.md) chosen or dropped, stepped through."""
    context = {"record_url": None, "seat": 0}
    return templates_of(request).TemplateResponse(request, "replay.html", context)


@router.get("/r/{room_id}/replay", name="table_replay", response_model=None)
async def table_replay(request: Request, room_id: str) -> Response:
    """The replay page for a table: its script fetches the table's record with the
    visitor's cookie (a seat's record, or a watcher's)."""
    if not well_formed_room_id(room_id) or await rooms_of(request).find(room_id) is None:
        return _no_such_table(request)
    context = {"record_url": f"/r/{room_id}/record.json", "seat": 0}
    return templates_of(request).TemplateResponse(request, "replay.html", context)


def _no_such_table(request: Request) -> HTMLResponse:
    return message_page(
        request,
        404,
        _("No such table"),
        _("This table does not exist or has closed after a long pause."),
    )


def _table_context(request: Request, room: Room) -> dict[str, Any]:
    """What the table page says of the table to everyone: `rules` (an engine.Rules) and
    `variant`, whether they are other than Rubicon Piquet's own (then the page says them
    before the cut: RULES.md §8); its `pace`, and how long a table is `kept` without a
    move at each pace."""
    rules = room.options.rules
    return {"rules": rules, "variant": rules != engine.RUBICON, "pace": room.options.pace,
            "kept": paces(settings_of(request))}


def _watch_page(request: Request, room: Room) -> Response:
    """A full table's third visitor watches: the table page with no seat (and no cookie);
    its socket asks for the public view (`/ws/{room_id}?watch=1`)."""
    context: dict[str, Any] = {
        "room_id": room.room_id,
        "seat": "watch",
        "claim": False,
        "opponent": room.opponent,
        "room_url": table_url(request, room.room_id),
        **_table_context(request, room),
    }
    return templates_of(request).TemplateResponse(request, "table.html", context)
