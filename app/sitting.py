"""Sitting down at a table, by the link, the lobby's list or a quick game: who the
visitor is (a browser), what they are called, and the checks before the seat is theirs.

A visitor is a browser: its cookie `piquet_visitor` (random, HttpOnly, set on its first
request that needs it), known to the lobby only by its digest. It keeps one browser from
being paired with itself, and a quick game pressed in two of its tabs at once from ending
at two tables. Its name is its `piquet_name` cookie's (app/names.py), or one the request
gives (the API's `name`); a visitor with none is a guest, "Guest 4821", at each table.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from fastapi.templating import Jinja2Templates

from app.i18n import _
from app.lobby import Lobby
from app.names import (
    NAME_COOKIE,
    NameRefused,
    display_name,
    guest_name,
    name_from_cookie,
    refuse_look_alike,
    same_name,
)
from app.registry import RoomRegistry, TooManyRooms
from app.room import Room
from app.security import NOT_A_ROOM, well_formed_room_id
from app.settings import Settings

T = TypeVar("T")

VISITOR_COOKIE = "piquet_visitor"
VISITOR_MAX_AGE = 365 * 24 * 3600


class Refused(Exception):
    """Sitting down (or listing, or a quick game) refused: the HTTP status, a title and
    the reason in words."""

    def __init__(self, status: int, title: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.title = title
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Visitor:
    """A browser: its digest (all the lobby knows of it), the cookie to set when the
    request brought none, and the name it goes by ("" for a guest)."""

    digest: str
    new_cookie: str | None
    name: str


def _state_reader(name: str, kind: type[T]) -> Callable[[Request], T]:
    """A reader of what the app keeps as `app.state.<name>`, typed as `kind`."""
    def read(request: Request) -> T:
        value: T = getattr(request.app.state, name)
        return value
    return read


rooms_of = _state_reader("rooms", RoomRegistry)
lobby_of = _state_reader("lobby", Lobby)
settings_of = _state_reader("settings", Settings)
templates_of = _state_reader("templates", Jinja2Templates)


def address_of(request: Request) -> str:
    """The client's address (the forwarded one behind a trusted proxy)."""
    return request.client.host if request.client else "?"


async def table_for(request: Request, room_id: str) -> Room | JSONResponse:
    """The table a script's request names (someone arriving: served by this process from
    now), or the 404 to answer, in words."""
    if not well_formed_room_id(room_id):
        return JSONResponse({"detail": str(NOT_A_ROOM)}, 404)
    room = await rooms_of(request).find(room_id, arriving=True)
    if room is None:
        return JSONResponse({"detail": _("No such table (it may have expired).")}, 404)
    return room


def over_https(request: Request) -> bool:
    """The browser reaches the site over HTTPS: this request came so (directly, or from a
    proxy in FORWARDED_ALLOW_IPS that says so), or the public URL is https."""
    return request.url.scheme == "https" or \
        settings_of(request).public_url.startswith("https:")


def visitor_of(request: Request, name: str | None = None) -> Visitor:
    """The browser of `request`, going by `name` when given (NameRefused, in words, if it
    is not one), else by its name cookie's."""
    cookie = request.cookies.get(VISITOR_COOKIE)
    fresh = None
    if not cookie or len(cookie) > 64:
        cookie = fresh = secrets.token_urlsafe(16)
    digest = hashlib.sha256(cookie.encode()).hexdigest()[:32]
    called = (name_from_cookie(request.cookies.get(NAME_COOKIE)) if name is None
              else display_name(name))
    return Visitor(digest, fresh, called)


def remember(request: Request, response: Response, visitor: Visitor) -> None:
    """Set the visitor cookie on `response` if the request came without one."""
    if visitor.new_cookie is not None:
        response.set_cookie(VISITOR_COOKIE, visitor.new_cookie, max_age=VISITOR_MAX_AGE,
                            path="/", httponly=True, samesite="lax",
                            secure=over_https(request))


async def sit_down(request: Request, room: Room, visitor: Visitor) -> tuple[int, str]:
    """`visitor` takes `room`'s free seat: (seat, token). An open table is taken from the
    lobby's list first, in one step of the lobby's store (never two people at one seat,
    never a browser against itself); a link table is anyone's with the link. Refused
    (its reason in words) for a name like the maker's, the visitor's own table, a table
    someone has just taken, a full one, or when the address holds its share of tables."""
    maker = room.options.names[0]
    try:
        if visitor.name:
            refuse_look_alike(visitor.name, maker)
    except NameRefused as exc:
        raise Refused(422, _("Choose another name"), str(exc)) from None
    if room.waiting_for_stranger():
        taken = await lobby_of(request).take(room.room_id, visitor.digest, visitor.name)
        if taken == "own":
            raise Refused(409, _("Your own table"), _("This is your own table: it is waiting "
                                                      "for someone else to sit down."))
        if taken == "same_name":  # (the lobby's copy of the maker's name, looked at again)
            raise Refused(422, _("Choose another name"), same_name(maker))
        if taken == "held":
            raise Refused(409, _("Table taken"), _("Someone has just sat down at this table."))
    try:
        claimed = await rooms_of(request).join(room, address_of(request),
                                               visitor.name or guest_name(maker))
    except TooManyRooms as exc:
        raise Refused(429, _("Too many open tables"), str(exc)) from None
    if claimed is None:
        raise Refused(409, _("Table full"), _("This table is full."))
    return claimed
