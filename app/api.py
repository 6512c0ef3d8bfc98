"""JSON endpoints: rooms for bots and tests, the protocol's schema, health."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel

from app.protocol import Level, Opponent, json_schema
from app.registry import RoomRegistry, RoomsFullError, TooManyRooms
from app.runtime import LoopMonitor
from app.security import TOO_MANY_ROOMS, may_make_room

router = APIRouter()


class CreateRoom(BaseModel):
    opponent: Opponent
    level: Level = "basic"  # the computer's level (ignored with a friend)


class SeatGranted(BaseModel):
    room_id: str
    seat: int
    token: str  # send it back as the cookie piquet_seat_{room_id}
    url: str


class Health(BaseModel):
    status: str
    rooms: int
    # With ?detail=1: the event loop's lag and the collector's passes (app/runtime.py);
    # rooms that came here from the store and went to another process since the start
    # (many per action: the proxy does not route by room); the store's sends again and
    # writes whose outcome stayed unknown.
    loop: dict[str, Any] | None = None
    moved: dict[str, int] | None = None
    store: dict[str, Any] | None = None


def _rooms(request: Request) -> RoomRegistry:
    rooms: RoomRegistry = request.app.state.rooms
    return rooms


def _address(request: Request) -> str:
    """The client's address (the forwarded one behind a trusted proxy)."""
    return request.client.host if request.client else "?"


@router.post("/api/rooms", status_code=201)
async def create_room(body: CreateRoom, request: Request) -> SeatGranted:
    if not may_make_room(request):
        raise HTTPException(429, TOO_MANY_ROOMS, headers={"Retry-After": "60"})
    try:
        room, token = await _rooms(request).create(body.opponent, body.level,
                                                   _address(request))
    except RoomsFullError as exc:
        raise HTTPException(503, str(exc)) from None
    except TooManyRooms as exc:
        raise HTTPException(429, str(exc)) from None
    url = str(request.url_for("table", room_id=room.room_id))
    return SeatGranted(room_id=room.room_id, seat=0, token=token, url=url)


@router.post("/api/rooms/{room_id}/join")
async def join_room(room_id: str, request: Request) -> SeatGranted:
    room = await _rooms(request).find(room_id, arriving=True)
    if room is None:
        raise HTTPException(404, "No such table (it may have expired).")
    try:
        claimed = await _rooms(request).join(room, _address(request))
    except TooManyRooms as exc:
        raise HTTPException(429, str(exc)) from None
    if claimed is None:
        raise HTTPException(409, "This table is full.")
    seat, token = claimed
    url = str(request.url_for("table", room_id=room.room_id))
    return SeatGranted(room_id=room.room_id, seat=seat, token=token, url=url)


@router.get("/healthz", response_model_exclude_none=True)
async def healthz(request: Request, detail: bool = False) -> Health:
    rooms = len(_rooms(request))
    if not detail:
        return Health(status="ok", rooms=rooms)
    monitor: LoopMonitor = request.app.state.monitor
    registry = _rooms(request)
    store: dict[str, Any] | None = None
    if registry.store is not None:
        store = {"name": registry.store.name,
                 "sends_again": getattr(registry.store, "retries", 0),
                 "unknown": getattr(registry.store, "unknown", 0)}
    return Health(status="ok", rooms=rooms, loop=monitor.snapshot(),
                  moved=dict(registry.moved), store=store)


@router.get("/protocol.json")
async def protocol_schema() -> dict[str, Any]:
    return json_schema()
