"""Every WebSocket message as a pydantic model, split by direction (docs/protocol.md).

Client messages are validated strictly (no extra fields, no "7" for 7): a client
that sends something else learns it at once instead of being half-understood.
The action itself is a plain dict: the engine is the one judge of its shape.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from engine.cards import CARD_NAMES

Opponent = Literal["computer", "friend"]
# The computer's levels (engine.computer.LEVELS); a computer table plays one of them.
Level = Literal["basic", "good", "strong"]

ErrorCode = Literal[
    "bad_json",
    "bad_message",
    "unknown_type",
    "too_large",
    "rate_limited",
    "stale_version",
    "duplicate_id",
    "illegal_action",
    "out_of_turn",
    "not_allowed",
    "internal",
]

MessageId = Annotated[str, Field(min_length=1, max_length=64)]
Version = Annotated[int, Field(ge=0)]


class _ClientMessage(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _ServerMessage(BaseModel):
    model_config = ConfigDict(frozen=True)


# --- client to server ------------------------------------------------------------------


class ActionMessage(_ClientMessage):
    """An action taken from the view's `legal`, made on state `version`."""

    type: Literal["action"]
    version: Version
    id: MessageId
    action: dict[str, Any]


class NewMatchMessage(_ClientMessage):
    """Start a fresh partie (computer table any time; friend table once the partie is over)."""

    type: Literal["new_match"]
    version: Version
    id: MessageId


class ClientPing(_ClientMessage):
    type: Literal["ping"]


class ClientPong(_ClientMessage):
    type: Literal["pong"]


ClientMessage = Annotated[
    ActionMessage | NewMatchMessage | ClientPing | ClientPong,
    Field(discriminator="type"),
]
CLIENT_TYPES = frozenset({"action", "new_match", "ping", "pong"})
client_message_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


# --- server to client ------------------------------------------------------------------


class SeatPresence(_ServerMessage):
    name: str  # "You", "Computer" or "Friend", as the receiving seat sees it
    joined: bool  # a friend has taken the seat
    connected: bool  # at least one socket is open for that seat


class RoomInfo(_ServerMessage):
    room_id: str
    opponent: Opponent
    level: Level | None  # the computer's level at a computer table; None with a friend
    seat: int
    seats: list[SeatPresence]
    can_new_match: bool


class StateMessage(_ServerMessage):
    type: Literal["state"] = "state"
    version: int
    view: dict[str, Any]  # the engine's view of this seat, without its "log"
    new_log: list[dict[str, Any]]  # log lines new to this socket
    log_reset: bool  # true: new_log is the whole log of this deal (replace, don't append)
    room: RoomInfo


class PresenceMessage(_ServerMessage):
    type: Literal["presence"] = "presence"
    seats: list[SeatPresence]


class ErrorMessage(_ServerMessage):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    version: int | None = None  # the room's current version, when there is a room


class ServerPing(_ServerMessage):
    type: Literal["ping"] = "ping"


class ServerPong(_ServerMessage):
    type: Literal["pong"] = "pong"


ServerMessage = Annotated[
    StateMessage | PresenceMessage | ErrorMessage | ServerPing | ServerPong,
    Field(discriminator="type"),
]
server_message_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


# --- WebSocket close codes ---------------------------------------------------------------

CLOSE_UNKNOWN_ROOM = 4404
CLOSE_BAD_TOKEN = 4401
CLOSE_FOREIGN_ORIGIN = 4403
CLOSE_KEEPALIVE = 4408  # no message (not even a pong) for too long
CLOSE_REPLACED = 4409  # too many sockets for one seat: the oldest goes
CLOSE_ROOM_EXPIRED = 4410
CLOSE_POLICY = 1008  # rate limit
CLOSE_TOO_SLOW = 1013  # the client stopped reading: too far behind
CLOSE_GOING_AWAY = 1012  # server restart
CLOSE_INTERNAL = 1011  # the server failed on this socket (a bug): reconnect


def json_schema() -> dict[str, Any]:
    """The schema served at /protocol.json: one union per direction."""
    return {
        "title": "Piquet table WebSocket protocol",
        "description": "See docs/protocol.md. Each message is a JSON object tagged by `type`.",
        "client_to_server": client_message_adapter.json_schema(),
        "server_to_client": server_message_adapter.json_schema(),
        # Views write cards by code ("QH", "10S"); their names in words, for every card.
        "card_names": CARD_NAMES,
    }
