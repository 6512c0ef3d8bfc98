"""The lobby's "My tables": the tables this browser holds a seat at, read from the seat
cookies it sends (HttpOnly: only the server reads them), and leaving one.

`GET /api/my-tables` names the tables the cookies point at (their ids only: nothing is
looked up). Each table is then asked for on its own, `GET /api/rooms/{id}/mine` and
`POST /api/rooms/{id}/leave`: paths that name the room, so a proxy routing by room id
sends them to the process that serves it (deploy/nginx-table.conf), which loads it from
the store if it rests there. A cookie whose token is not that table's seat, or that
names a table gone, is cleared, and the table is answered as gone (the same answer for
both: a forged cookie learns nothing of another's table).
"""

from __future__ import annotations

import re

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from app.i18n import N_
from app.pages import set_seat_cookie
from app.room import Room
from app.seat_view import my_table
from app.security import NOT_A_ROOM, well_formed_room_id
from app.sitting import address_of, over_https, rooms_of
from app.ws import seat_cookie, seat_token

router = APIRouter()

# At most this many of a browser's seat cookies are read (the newest, as the browser
# sends them oldest first); a browser holding more sees its latest tables.
MAX_MY_TABLES = 20
SEAT_COOKIE = re.compile(r"(?:__Host-)?piquet_seat_(.+)")
NO_SEAT = N_("You hold no seat at this table (it may have closed).")
CLOSED = "Its player left this table, so it closed."  # (a close reason: English)


def my_room_ids(cookies: dict[str, str]) -> list[str]:
    """The tables the browser's seat cookies name, newest first, at most MAX_MY_TABLES
    (each once: a table's plain and __Host- cookies are one)."""
    found: list[str] = []
    for name, value in cookies.items():
        match = SEAT_COOKIE.fullmatch(name)
        if match and value and well_formed_room_id(match[1]) and match[1] not in found:
            found.append(match[1])
    return found[::-1][:MAX_MY_TABLES]


@router.get("/api/my-tables")
async def my_tables(request: Request) -> dict[str, list[str]]:
    """The ids of the tables this browser holds a seat cookie for (not yet checked)."""
    return {"rooms": my_room_ids(request.cookies)}


def forget_seat(request: Request, response: Response, room_id: str) -> Response:
    """`response`, clearing the browser's seat cookie(s) for `room_id`."""
    for secure in {False, over_https(request)}:
        response.delete_cookie(seat_cookie(room_id, secure), path="/", secure=secure,
                               httponly=True, samesite="lax")
    return response


async def my_seat(request: Request, room_id: str) -> tuple[Room, int] | None:
    """The table and this browser's seat at it; None: no such table, or the cookie is
    not one of its seats."""
    if not well_formed_room_id(room_id):
        return None
    room = await rooms_of(request).find(room_id, arriving=True)
    seat = None if room is None else room.seat_for_token(seat_token(request.cookies, room_id))
    return None if room is None or seat is None else (room, seat)


@router.get("/api/rooms/{room_id}/mine", response_model=None)
async def mine(request: Request, room_id: str) -> Response:
    """This browser's seat at the table, as "My tables" lists it (seat_view.my_table);
    the seat cookie is set again, so it lives while the lobby is visited. A table gone,
    or a cookie that is not its seat: `{"room_id", "gone": true}`, the cookie cleared (a
    table that closed is no error: the lobby drops it from the list)."""
    found = await my_seat(request, room_id)
    if found is None:
        if not well_formed_room_id(room_id):
            return JSONResponse({"detail": str(NOT_A_ROOM)}, 404)
        return forget_seat(request, JSONResponse({"room_id": room_id, "gone": True}), room_id)
    room, seat = found
    since = rooms_of(request).clock() - room.last_move
    response = JSONResponse(my_table(room_id, seat, room.options, room.state,
                                     waiting=room.has_free_seat(), since=since))
    token = seat_token(request.cookies, room_id)
    assert token is not None
    set_seat_cookie(request, response, room, token)
    return response


@router.post("/api/rooms/{room_id}/leave", response_model=None)
async def leave(request: Request, room_id: str) -> Response:
    """This browser leaves the table for good, and its seat cookie is cleared: at a
    friend's (or a stranger's) table the partie under way ends, abandoned by it, and the
    other seat is told; a computer's table, or one nobody else sat down at, is closed."""
    found = await my_seat(request, room_id)
    if found is None:
        return forget_seat(request, JSONResponse({"detail": str(NO_SEAT)}, 404), room_id)
    room, seat = found
    rooms = rooms_of(request)
    if room.opponent == "computer" or room.has_free_seat():
        await rooms.discard(room, CLOSED)  # (an open table leaves the lobby's list too)
        left = "closed"
    else:
        left = "abandoned" if await room.leave(seat) else "left"
        rooms.release(room_id, address_of(request))
    return forget_seat(request, JSONResponse({"left": left}), room_id)
