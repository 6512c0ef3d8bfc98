"""JSON endpoints: rooms for bots and tests, the protocol's schema, health."""

from __future__ import annotations

import ipaddress
import secrets
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

import engine
from app.i18n import _
from app.names import NameRefused, guest_name
from app.pages import list_new_table, table_url
from app.protocol import Level, Opponent, Pace, Seating, json_schema
from app.registry import RoomsFullError, TooManyRooms
from app.room_options import RoomOptions
from app.runtime import LoopMonitor
from app.security import NOT_A_ROOM, TOO_MANY_ROOMS, may_make_room, well_formed_room_id
from app.settings import Settings
from app.sitting import Refused, address_of, remember, rooms_of, sit_down, visitor_of

router = APIRouter()


class CreateRoom(BaseModel):
    opponent: Opponent
    level: Level = "basic"  # the computer's level (ignored with a friend)
    practice: bool = False  # a friend's table where both seats may ask for hints
    # The rules (engine.Rules.to_json's form, docs/engine-api.md); left out: Rubicon Piquet.
    rules: dict[str, Any] | None = None
    seating: Seating = "link"  # "open": anyone may sit down (listed in the lobby)
    watching: bool = False  # anyone may watch (listed in the lobby while played)
    name: str | None = None  # the maker's display name (else the name cookie's, or a guest)
    pace: Pace = "now"  # "slow": a move whenever you like, kept for days without one


class JoinRoom(BaseModel):
    name: str | None = None  # the display name to go by (else the cookie's, or a guest)


class SeatGranted(BaseModel):
    room_id: str
    seat: int
    token: str  # send it back as the cookie piquet_seat_{room_id}
    url: str  # the table's link (from PIQUET_PUBLIC_URL when set)


class Health(BaseModel):
    status: str
    rooms: int
    # With ?detail=1, for an operator (`operator`): the event loop's lag and the
    # collector's passes (app/runtime.py); rooms that came here from the store and went
    # to another process since the start (many per action: the proxy does not route by
    # room); the store's sends again and writes whose outcome stayed unknown (and for
    # the SQLite store, its file, its size and its commits and writes).
    loop: dict[str, Any] | None = None
    moved: dict[str, int] | None = None
    store: dict[str, Any] | None = None


@router.post("/api/rooms", status_code=201)
async def create_room(body: CreateRoom, request: Request) -> JSONResponse:
    if not may_make_room(request):
        raise HTTPException(429, str(TOO_MANY_ROOMS), headers={"Retry-After": "60"})
    try:
        rules = engine.RUBICON if body.rules is None else engine.Rules.from_json(body.rules)
        visitor = visitor_of(request, body.name)
    except NameRefused as exc:
        raise HTTPException(422, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(422, _("Unknown rules: {why}", why=str(exc))) from None
    options = RoomOptions(opponent=body.opponent,
                          level=body.level if body.opponent == "computer" else None,
                          practice=body.practice, rules=rules, seating=body.seating,
                          watching=body.watching, names=(visitor.name or guest_name(), ""),
                          pace=body.pace)
    try:
        room, token = await rooms_of(request).create(options, address_of(request))
        if options.seating == "open":
            await list_new_table(request, room, visitor)
    except RoomsFullError as exc:
        raise HTTPException(503, str(exc)) from None
    except TooManyRooms as exc:
        raise HTTPException(429, str(exc)) from None
    except Refused as exc:
        raise HTTPException(exc.status, exc.detail) from None
    url = table_url(request, room.room_id)
    granted = SeatGranted(room_id=room.room_id, seat=0, token=token, url=url)
    response = JSONResponse(granted.model_dump(), 201)
    remember(request, response, visitor)
    return response


@router.post("/api/rooms/{room_id}/join")
async def join_room(room_id: str, request: Request, body: JoinRoom | None = None
                    ) -> SeatGranted:
    if not well_formed_room_id(room_id):
        raise HTTPException(404, str(NOT_A_ROOM))
    room = await rooms_of(request).find(room_id, arriving=True)
    if room is None:
        raise HTTPException(404, _("No such table (it may have expired)."))
    try:
        visitor = visitor_of(request, None if body is None else body.name)
        seat, token = await sit_down(request, room, visitor)
    except NameRefused as exc:
        raise HTTPException(422, str(exc)) from None
    except Refused as exc:
        raise HTTPException(exc.status, exc.detail) from None
    url = table_url(request, room.room_id)
    return SeatGranted(room_id=room.room_id, seat=seat, token=token, url=url)


# Headers a proxy adds for the visitor it forwards: a request that has one is a visitor's,
# whatever address it comes from.
FORWARDED_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip")


def operator(request: Request) -> bool:
    """The request is an operator's: it carries PIQUET_OPERATOR_TOKEN as X-Operator-Token,
    or it comes from a loopback address and no proxy forwarded it (a proxy on this host
    makes every visitor's request come from loopback; uvicorn has already put a trusted
    proxy's forwarded address in `request.client`)."""
    settings: Settings = request.app.state.settings
    sent = request.headers.get("x-operator-token")
    if settings.operator_token and sent is not None:
        return secrets.compare_digest(sent.encode(), settings.operator_token.encode())
    if any(name in request.headers for name in FORWARDED_HEADERS):
        return False
    try:
        return request.client is not None and ipaddress.ip_address(
            request.client.host).is_loopback
    except ValueError:  # not an address ("testclient", a unix socket)
        return False


@router.get("/healthz", response_model_exclude_none=True)
async def healthz(request: Request, detail: bool = False) -> Health:
    """`{"status": "ok", "rooms": N}`; with ?detail=1, for an operator only, the loop's
    figures too (anyone else gets the plain answer: which code stalls, and how the
    collector runs, are not a visitor's business)."""
    rooms = len(rooms_of(request))
    if not detail or not operator(request):
        return Health(status="ok", rooms=rooms)
    monitor: LoopMonitor = request.app.state.monitor
    registry = rooms_of(request)
    store: dict[str, Any] | None = None
    if registry.store is not None:
        store = {"name": registry.store.name,
                 "sends_again": getattr(registry.store, "retries", 0),
                 "unknown": getattr(registry.store, "unknown", 0)}
        figures = getattr(registry.store, "figures", None)  # (the SQLite file's)
        if figures is not None:
            store.update(figures())
    return Health(status="ok", rooms=rooms, loop=monitor.snapshot(),
                  moved=dict(registry.moved), store=store)


@router.get("/record.schema.json")
async def record_schema() -> dict[str, Any]:
    """The JSON Schema of a partie's record (docs/record.md), beside the protocol's."""
    from engine.record import RECORD_SCHEMA

    return dict(RECORD_SCHEMA)


@router.get("/protocol.json")
async def protocol_schema() -> dict[str, Any]:
    return json_schema()
