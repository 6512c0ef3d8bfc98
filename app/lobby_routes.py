"""The lobby's page and its requests: a name, the quick game, an open table listed again
or taken out of the list (docs/protocol.md, "The lobby"). The lists themselves come by
the lobby's socket (app/lobby_ws.py).

The quick game: sit at the oldest open table of the rules chosen that is not this
browser's, or open one and wait. Each look at the list is one step of the lobby's store
(app/lobby_store.py, `quick`), so two people pressing at once are paired, never left at
two tables each waiting for the other: the second to list finds the first's table.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel

import engine
from app.i18n import _
from app.names import NAME_COOKIE, NameRefused, display_name, guest_name, name_cookie_value
from app.pages import (
    message_page,
    open_wait,
    paces,
    seated_response,
    table_url,
    too_many_open,
)
from app.registry import RoomsFullError, TooManyRooms
from app.room import Room
from app.room_options import RoomOptions, rules_from_form
from app.security import TOO_MANY_ROOMS, may_make_room
from app.sitting import (
    Refused,
    Visitor,
    address_of,
    lobby_of,
    remember,
    rooms_of,
    settings_of,
    sit_down,
    table_for,
    templates_of,
    visitor_of,
)
from app.ws import seat_token
from engine.computer import LEVELS

router = APIRouter()

NAME_MAX_AGE = 365 * 24 * 3600
# A quick game looks at the list this many times, at most, if the tables it takes are
# gone by the time it sits down (their maker closed them meanwhile).
QUICK_TRIES = 3
Seated = tuple[Room, str | None]  # the table, and the new seat's token (None: the browser's)


def lobby_page(request: Request, visitor: Visitor, *, typed: str = "", error: str = "",
               status_code: int = 200) -> HTMLResponse:
    context: dict[str, Any] = {
        "levels": list(LEVELS),
        "name": visitor.name, "typed": typed, "name_error": error,
        "open_wait": open_wait(settings_of(request)),
        "kept": paces(settings_of(request)),
    }
    response: HTMLResponse = templates_of(request).TemplateResponse(
        request, "lobby.html", context, status_code=status_code)
    remember(request, response, visitor)
    return response


@router.get("/", response_class=HTMLResponse)
async def lobby(request: Request) -> HTMLResponse:
    return lobby_page(request, visitor_of(request))


@router.post("/name", response_model=None)
async def set_name(request: Request, name: Annotated[str, Form()] = "") -> Response:
    """The name this browser goes by from now (its cookie); empty: none, a guest. A name
    refused is said on the lobby page, beside the field, with what was typed (as text)."""
    visitor = visitor_of(request)
    try:
        chosen = display_name(name[:200])
    except NameRefused as exc:
        return lobby_page(request, visitor, typed=name[:200], error=str(exc), status_code=400)
    response = RedirectResponse("/#name", status_code=303)
    if chosen:
        response.set_cookie(NAME_COOKIE, name_cookie_value(chosen), max_age=NAME_MAX_AGE,
                            path="/", samesite="lax", httponly=True)
    else:
        response.delete_cookie(NAME_COOKIE, path="/")
    remember(request, response, visitor)
    return response


@router.post("/lobby/quick", response_model=None)
async def quick_page(request: Request, practice: Annotated[str, Form()] = "") -> Response:
    """The lobby's quick game button: to the table, seated (or waiting there)."""
    form = await request.form()
    visitor = visitor_of(request)
    try:
        rules = rules_from_form({k: v for k, v in form.items() if isinstance(v, str)})
    except ValueError as exc:
        return message_page(request, 400, _("Unknown rules"), str(exc))
    try:
        room, token = await quick_game(request, rules, practice == "on", visitor)
    except Refused as exc:
        page = message_page(request, exc.status, exc.title, exc.detail,
                            action_label=_("Back to the lobby"))
        if exc.status == 429:
            page.headers["Retry-After"] = "60"
        return page
    return seated_response(request, room, token, visitor)


class QuickGame(BaseModel):
    rules: dict[str, Any] | None = None  # engine.Rules.to_json's form; none: Rubicon
    practice: bool = False
    name: str | None = None  # the name to go by (else the name cookie's; else a guest)


class QuickSeat(BaseModel):
    room_id: str
    seat: int | None  # None: this browser holds its seat there already (its cookie)
    token: str | None  # send it back as the cookie piquet_seat_{room_id}
    url: str
    waiting: bool  # the table waits for someone to sit down (the presser made it)


@router.post("/api/lobby/quick")
async def quick_api(body: QuickGame, request: Request) -> JSONResponse:
    """The quick game for bots and tests (the visitor is the `piquet_visitor` cookie)."""
    try:
        rules = engine.RUBICON if body.rules is None else engine.Rules.from_json(body.rules)
        visitor = visitor_of(request, body.name)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    try:
        room, token = await quick_game(request, rules, body.practice, visitor)
    except Refused as exc:
        raise HTTPException(exc.status, exc.detail) from None
    seat = 0 if room.waiting_for_stranger() else 1
    answer = QuickSeat(room_id=room.room_id, seat=None if token is None else seat,
                       token=token, url=table_url(request, room.room_id),
                       waiting=room.waiting_for_stranger())
    response = JSONResponse(answer.model_dump())
    remember(request, response, visitor)
    return response


async def quick_game(request: Request, rules: engine.Rules, practice: bool,
                     visitor: Visitor) -> Seated:
    """Sit at the oldest open table of `rules` that is not this browser's, or open one
    and wait there. Refused (in words) beyond the address's allowances, for a name like
    the one waiting player's, or when every table is in use."""
    if not may_make_room(request):
        raise Refused(429, _("Too many new tables"), str(TOO_MANY_ROOMS))
    lobby = lobby_of(request)
    for _try in range(QUICK_TRIES):
        found = await lobby.quick(rules, practice, visitor.digest, visitor.name)
        seated = await _after_quick(request, found.kind, found.room_id, visitor)
        if seated is not None:
            return seated
        if found.kind == "none":
            break
    options = RoomOptions(opponent="friend", practice=practice, rules=rules, seating="open",
                          names=(visitor.name or guest_name(), ""))
    try:
        room, token = await rooms_of(request).create(options, address_of(request))
    except TooManyRooms as exc:
        raise Refused(429, _("Too many open tables"), str(exc)) from None
    except RoomsFullError:
        raise Refused(503, _("All tables are in use"), _(
            "Every table on this server is taken just now. Please try again in a few "
            "minutes.")) from None
    found = await lobby.quick(rules, practice, visitor.digest, visitor.name,
                              (room, address_of(request)))
    if found.kind == "listed":
        room.set_listing("listed")
        return room, token
    await rooms_of(request).discard(room)  # someone listed theirs meanwhile: sit there
    seated = await _after_quick(request, found.kind, found.room_id, visitor)
    if seated is None:
        raise Refused(503, _("Try again"), _("The table found for you closed as you sat "
                                             "down. Please press Quick game again."))
    return seated


async def _after_quick(request: Request, kind: str, room_id: str,
                       visitor: Visitor) -> Seated | None:
    """Where a look at the list leads: a seat at the table taken, or the browser's own
    table; None if that table is gone (the list is looked at again) or nothing was found."""
    if kind == "same_name":
        table = lobby_of(request).open.get(room_id)
        why = _("The player waiting is called “{name}”: choose a name that does not look "
                "like theirs, then press Quick game again.", name=table.name) if table else \
            _("The player waiting is called as you are: choose a name that does not look "
              "like theirs, then press Quick game again.")
        raise Refused(422, _("Choose another name"), why)
    if kind == "full":
        raise Refused(429, _("Too many open tables"), too_many_open(
            lobby_of(request).open_per_address))
    if kind not in ("take", "mine"):
        return None
    room = await rooms_of(request).find(room_id, arriving=True)
    if room is None:
        await lobby_of(request).store.release(visitor.digest, room_id)
        return None
    if kind == "mine":
        return room, None
    try:
        _seat, token = await sit_down(request, room, visitor)
    except Refused:
        # Taken meanwhile by the link, or closed: look again, as if never found.
        await lobby_of(request).store.release(visitor.digest, room_id)
        return None
    return room, token


class Listed(BaseModel):
    listed: bool


@router.post("/r/{room_id}/listing", response_model=None)
async def listing(body: Listed, request: Request, room_id: str) -> Response:
    """The maker of an open table waiting for a player lists it again (from now) or takes
    it out of the lobby; its page is told (room.listing)."""
    room = await table_for(request, room_id)
    if not isinstance(room, Room):
        return room  # (a 404)
    seat = room.seat_for_token(seat_token(request.cookies, room_id))
    if seat != 0 or not room.waiting_for_stranger():
        return JSONResponse({"detail": _("Only the maker of a table waiting for anyone to "
                                         "sit down may list it.")}, 409)
    if not may_make_room(request):
        return JSONResponse({"detail": str(TOO_MANY_ROOMS)}, 429,
                            headers={"Retry-After": "60"})
    visitor = visitor_of(request)
    lobby = lobby_of(request)
    if not body.listed:
        await lobby.unlist(room_id, "unlisted")
        room.set_listing("unlisted")
    elif await lobby.list_table(room, address_of(request), visitor.digest):
        room.set_listing("listed")
    else:
        return JSONResponse({"detail": too_many_open(lobby.open_per_address)}, 429)
    response = JSONResponse({"listing": room.listing})
    remember(request, response, visitor)
    return response

