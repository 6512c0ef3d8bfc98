"""JSON endpoints: rooms for bots and tests, the protocol's schema, health."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel

from app.protocol import Level, Opponent, json_schema
from app.registry import RoomRegistry, RoomsFullError
from app.runtime import LoopMonitor
from app.security import NOT_A_ROOM, TOO_MANY_ROOMS, may_make_room, well_formed_room_id

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
    # With ?detail=1: the event loop's lag and the collector's passes (app/runtime.py).
    loop: dict[str, Any] | None = None


def _rooms(request: Request) -> RoomRegistry:
    rooms: RoomRegistry = request.app.state.rooms
    return rooms


@router.post("/api/rooms", status_code=201)
async def create_room(body: CreateRoom, request: Request) -> SeatGranted:
    if not may_make_room(request):
        raise HTTPException(429, TOO_MANY_ROOMS, headers={"Retry-After": "60"})
    try:
        room, token = await _rooms(request).create(body.opponent, body.level)
    except RoomsFullError as exc:
        raise HTTPException(503, str(exc)) from None
    url = str(request.url_for("table", room_id=room.room_id))
    return SeatGranted(room_id=room.room_id, seat=0, token=token, url=url)


@router.post("/api/rooms/{room_id}/join")
async def join_room(room_id: str, request: Request) -> SeatGranted:
    if not well_formed_room_id(room_id):
        raise HTTPException(404, NOT_A_ROOM)
    room = await _rooms(request).find(room_id, arriving=True)
    if room is None:
        raise HTTPException(404, "No such table (it may have expired).")
    claimed = await room.claim_free_seat()
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
    return Health(status="ok", rooms=rooms, loop=monitor.snapshot())


@router.get("/protocol.json")
async def protocol_schema() -> dict[str, Any]:
    return json_schema()
