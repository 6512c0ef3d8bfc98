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
# Who may take a friend's table's free seat: people with its link, or anyone (the table is
# listed in the lobby: docs/protocol.md, "The lobby").
Seating = Literal["link", "open"]
# A table's pace: "now", played in one sitting (it closes after `room_idle_seconds`
# without a move), or "slow", a move whenever you like (kept `slow_room_days` without one).
Pace = Literal["now", "slow"]
# An open table's place in the lobby, as its maker's page is told: listed; left the list
# after waiting `open_table_seconds` with nobody; taken out by its maker (or not found in
# the list); its maker sat down at another table from the lobby.
Listing = Literal["listed", "expired", "unlisted", "elsewhere"]
# The computer's levels (engine.computer.LEVELS); a computer seat plays one of them.
ComputerLevel = Literal["basic", "good", "strong"]
Level = ComputerLevel

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
    # The table cannot take moves just now (the server is stopping, the table moved, or
    # its store is not answering): nothing changed; send it again once reconnected.
    "unavailable",
    # A hint is on its way to this seat already: one at a time.
    "busy",
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


class ComputerSeatMessage(_ClientMessage):
    """At a friend's table nobody has joined yet: the maker gives the free seat to the
    computer (the partie starts afresh, with a new cut)."""

    type: Literal["computer_seat"]
    version: Version
    id: MessageId
    level: ComputerLevel = "basic"


class AbandonMessage(_ClientMessage):
    """At a table of strangers whose other player has been away three minutes: end the
    partie, recorded as abandoned by the absent seat (`result.abandoned`)."""

    type: Literal["abandon"]
    version: Version
    id: MessageId


class GoOnMessage(_ClientMessage):
    """The person has seen the trick the computer won: its wait before leading ends now
    (down to its usual pace). Changes nothing in the partie, so it is never answered;
    made on another `version` than the room's, or with no such wait, it does nothing."""

    type: Literal["go_on"]
    version: Version


class ClientPing(_ClientMessage):
    type: Literal["ping"]


class ClientPong(_ClientMessage):
    type: Literal["pong"]


class HintMessage(_ClientMessage):
    """What would the strong level do now? Answered on this socket only (`hint`), from
    this seat's view; changes nothing and tells the other seat nothing. Offered to the
    person at a computer table and to both seats of a practice table (`room.hints`)."""

    type: Literal["hint"]
    version: Version


class ReviewMessage(_ClientMessage):
    """The review of a finished deal (`deal`), or of the partie once it is over (0):
    answered with `review` (ready, or coming and then sent when ready)."""

    type: Literal["review"]
    deal: Annotated[int, Field(ge=0, le=16)]


ClientMessage = Annotated[
    ActionMessage | NewMatchMessage | ComputerSeatMessage | AbandonMessage | GoOnMessage
    | HintMessage | ReviewMessage | ClientPing | ClientPong,
    Field(discriminator="type"),
]
CLIENT_TYPES = frozenset({"action", "new_match", "computer_seat", "abandon", "go_on", "hint",
                          "review", "ping", "pong"})
client_message_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


# --- server to client ------------------------------------------------------------------


class SeatPresence(_ServerMessage):
    # "You" (the receiving seat's own), "Computer", or the display name of whoever sat
    # there (a seat nobody has taken yet: "Friend"; for a watcher "Host", "Guest"). Those
    # are English: `you`, `computer` and `unnamed` say which they are, and a page says
    # them in its reader's language.
    name: str
    you: bool | None = None  # true for the receiving seat's own (else absent)
    computer: bool | None = None  # true for the computer's seat
    unnamed: bool | None = None  # true for a seat whose player gave no name yet
    joined: bool  # a friend has taken the seat
    connected: bool  # at least one socket is open for that seat
    # A seat taken, with no socket open: how many whole seconds it has been away (at a
    # table of strangers, after AWAY_SECONDS the other may give it to the computer, and
    # after ABANDON_SECONDS end the partie as abandoned by it).
    away: int | None = None


class RoomInfo(_ServerMessage):
    room_id: str
    opponent: Opponent
    level: Level | None  # the computer's level at a computer table; None with a friend
    seat: int | None  # None: this socket watches (a full table's third visitor)
    seats: list[SeatPresence]
    can_new_match: bool
    watchers: int = 0  # how many sockets watch this table
    # At a friend's table after the partie: the seats that pressed "Play again".
    rematch: list[int] = []
    # "waiting": a change is waiting for the table's store to answer (Redis down or slow).
    store: Literal["ok", "waiting"] = "ok"
    # What the table itself did and both seats are told (a deal dealt again because the
    # store lost a move they had been shown), in this socket's language; None most of
    # the time.
    notice: str | None = None
    # A friend's table made for practice: both seats may ask for hints (issue 26).
    practice: bool = False
    # This socket's seat may ask for hints here (the person at a computer table, both
    # seats of a practice table; never a watcher).
    hints: bool = False
    # Who may take the free seat: people with the link, or anyone ("open": a table of
    # strangers, listed in the lobby while it waits).
    seating: Seating = "link"
    # An open table waiting for its second player: its place in the lobby (its maker's
    # page offers to list it again, or the computer, when it is no longer listed).
    listing: Listing | None = None
    # "slow": a table played at its players' own pace, kept for days without a move.
    pace: Pace = "now"
    # Proves this socket was shown this version: sent back on reconnecting
    # (`/ws/{room_id}?seen=VERSION.RECEIPT`), so a store found to have lost it is known.
    receipt: str = ""


# --- the engine's view of one seat (docs/engine-api.md), as the schema describes it ----------
# The server writes the view as the engine returns it (app/room.py); these models are its
# schema, and the tests check every frame against them.

Card = Annotated[str, Field(description='a card by code: "QH", "10S"')]
Seat = Annotated[int, Field(ge=0, le=1)]
CategoryWord = Literal["point", "sequence", "set"]


class _ViewPart(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Phrase(BaseModel):
    """What the engine says, as data (docs/engine-api.md, "Words"): a `code` and the
    values its words need (numbers, card codes, other phrases). A page renders it in its
    reader's language from the catalogue's words for the code (`/i18n/{lang}.json`); the
    English `text` and `label` beside it are for programs, and may change."""

    model_config = ConfigDict(frozen=True, extra="allow")
    code: str


class SaidBy(_ViewPart):
    seat: Seat
    say: Phrase


class CutView(_ViewPart):
    cards: list[Card]
    winner: Seat


class TrickView(_ViewPart):
    leader: Seat
    cards: list[tuple[Card, Seat]]
    winner: Seat | None = None  # finished tricks only


class Told(_ViewPart):
    """A call as far as the table was told it; what was not said is absent."""

    length: int | None = None  # point, sequence: cards in it
    pips: int | None = None  # point: its pips, once told ("making 48")
    top: str | None = None  # sequence: its top card's rank ("A", "10"), once told
    rank: str | None = None  # set: its rank ("A" .. "10")
    count: int | None = None  # set: 3 (trio) or 4 (quatorze)


class DeclaringView(_ViewPart):
    category: CategoryWord
    stage: Literal["length", "pips", "top", "whole", "lesser"]


class DeclarationView(_ViewPart):
    category: CategoryWord
    outcome: Literal["pending", "elder", "younger", "equal", "none"]
    said: list[str]  # English: "Elder: Point of five"
    says: list[SaidBy]  # the same, by seat, as phrases
    elder_call: Told | None
    elder_nothing: bool
    answers: list[Literal["good", "not_good", "equal"]]
    younger_call: Told | None
    younger_nothing: bool
    lesser: list[Told]
    to_speak: Seat | None
    owed: Literal["call", "answer", "lesser"] | None


class ComboView(_ViewPart):
    id: int
    seat: Seat
    category: CategoryWord
    call: Told
    label: str
    say: Phrase
    points: int
    status: Literal["scored", "tied"]
    shown: bool
    cards: list[Card] | None


class ShownView(_ViewPart):
    seat: Seat
    what: str
    say: Phrase
    cards: list[Card]


class Parts(_ViewPart):
    """A deal's score by part, in Law 67 order; a part that scored nothing is absent."""

    carte_blanche: int = 0
    point: int = 0
    sequences: int = 0
    sets: int = 0
    play: int = 0  # leads and tricks, the last trick's extra point included
    cards: int = 0  # 10 for more than six tricks
    capot: int = 0
    pique: int = 0
    repique: int = 0
    carte_rouge: int = 0  # under carte rouge (RULES.md §8)


class RulesView(_ViewPart):
    """The rules the partie is played under (engine.Rules.to_json: docs/engine-api.md)."""

    game: Literal["rubicon", "au_cent"]
    cards_towards_pique: bool
    carte_rouge: bool
    tie: Literal["two_more", "one_more"] | None = None  # Rubicon only


class GameView(_ViewPart):
    winner: Seat
    scores: list[int]
    double: bool  # won while the loser had under 50: it counts two
    deals: int


class GamesView(_ViewPart):
    """Piquet au cent: the game under way (its number and scores), games won (a double
    counting two), the games finished, and who has won the partie."""

    number: int
    scores: list[int]
    won: list[int]
    finished: list[GameView]
    winner: Seat | None


class ScoresView(_ViewPart):
    deal: list[int]
    partie: list[int]
    sheet: list[list[int]]
    parts: list[Parts]  # this deal, one per seat
    sheet_parts: list[list[Parts]]  # one row per deal, beside `sheet`


class SeenView(_ViewPart):
    discards: list[Card]
    rest_of_five: list[Card]
    exposed: list[Card]
    shown: list[Card]
    played: list[Card]


class BonusView(_ViewPart):
    seat: Seat
    kind: Literal["carte_blanche", "repique", "pique", "capot", "cards", "carte_rouge"]
    points: int


class ResultView(_ViewPart):
    winner: Seat | None
    totals: list[int]
    points: int
    rubiconed: bool
    text: str
    say: Phrase
    abandoned: Seat | None = None  # the seat that left: the partie ended, abandoned by it


class LogLineView(_ViewPart):
    seat: Seat | None
    role: Literal["elder", "younger"] | None
    kind: str
    text: str  # English
    points: int
    say: Phrase


class LegalEntry(BaseModel):
    """An action this seat may send now, plus its `label` (English) and `say` (its phrase;
    none for a card to play, named by its card); `discard` is a template (`min`, `max`,
    `expose_choice`). See docs/engine-api.md, `legal`."""

    model_config = ConfigDict(frozen=True, extra="allow")
    type: Literal["choose_dealer", "carte_blanche", "discard", "call", "pass", "answer",
                  "play", "see", "next_deal"]
    label: str
    say: Phrase | None = None


class View(_ViewPart):
    """Everything one seat may see (docs/engine-api.md, "The view"); for a watcher, the
    public view (engine.public_view): `seat`, `role` and `opponent_hand_count` null,
    `hand_counts` both seats' counts."""

    # Every field the engine writes is described here, and inside them nothing else may
    # appear; at the top level an unknown field is let through to the tests' own checks
    # (test_leaks's leaky server adds one and must be caught by the leak check).
    model_config = ConfigDict(frozen=True, extra="allow")

    seat: Seat | None  # None: a watcher's (public) view
    phase: Literal["cut", "exchange", "declare", "play", "deal_over", "partie_over"]
    step: str
    to_move: Seat | None
    deal_number: int
    deals_in_partie: int | None  # None under au cent: games, not deals, decide
    dealer: Seat | None
    elder: Seat | None
    role: Literal["elder", "younger"] | None
    cut: CutView | None
    hand: list[Card]
    discards: list[Card]
    seen_stock: list[Card]
    opponent_hand_count: int | None  # None in a watcher's view
    hand_counts: list[int] | None = None  # a watcher's view only: both seats' counts
    stock_count: int
    exposed_stock: list[Card]
    took: list[int | None]
    trick: TrickView | None
    tricks: list[TrickView]
    tricks_won: list[int]
    declaring: DeclaringView | None
    declarations: list[DeclarationView]
    combos: list[ComboView]
    shown: list[ShownView]
    scores: ScoresView
    seen: SeenView
    bonuses: list[BonusView]
    result: ResultView | None
    log: list[LogLineView] | None = None  # engine.view(log=True); not in a state message
    legal: list[LegalEntry]
    rules: RulesView
    games: GamesView | None  # under au cent only


class StateMessage(_ServerMessage):
    type: Literal["state"] = "state"
    version: int
    view: View  # the engine's view of this seat, without its "log"
    new_log: list[dict[str, Any]]  # log lines new to this socket
    log_reset: bool  # true: new_log is the whole log of this deal (replace, don't append)
    room: RoomInfo
    # A seat's state only, last: spaces that make the message as long as the largest view
    # the seat could have now by what is public (app/padding.py), so its length tells an
    # eavesdropper nothing of the seat's cards. Ignore it.
    pad: Annotated[str, Field(pattern="^ *$")] = ""


class PresenceMessage(_ServerMessage):
    type: Literal["presence"] = "presence"
    seats: list[SeatPresence]
    watchers: int = 0


class ErrorMessage(_ServerMessage):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    version: int | None = None  # the room's current version, when there is a room


class HintAnswer(_ServerMessage):
    """What the strong level would do now (docs/record.md, "The hint"): `hint.action` is
    one of the view's legal entries, with `label`, `why` in words and the `options` it
    weighed, best first. `version`: the state it was asked on."""

    type: Literal["hint"] = "hint"
    version: int
    hint: dict[str, Any]


class ReviewAnswer(_ServerMessage):
    """A deal's review (docs/record.md, "The review"), or the partie's (`deal` 0): `ready`
    false means it is being worked out and will follow. `review.positions` holds, by
    item step, the seat's view just before that decision, to show it again."""

    type: Literal["review"] = "review"
    deal: int
    ready: bool
    review: dict[str, Any] | None


class LobbyOpenTable(_ServerMessage):
    """A table waiting in the lobby for anyone to sit down (`/r/{room_id}` sits there)."""

    room_id: str
    name: str  # its maker's display name
    rules: RulesView
    practice: bool
    waited: int  # whole seconds it had waited in the list when this message was written


class LobbyPlayingTable(_ServerMessage):
    """A table being played that anyone may watch (`/r/{room_id}` watches)."""

    room_id: str
    names: list[str]  # seat 0's and seat 1's display names
    rules: RulesView
    practice: bool
    deal: int  # the deal under way (0: the cut)
    deals: int | None  # deals in the partie (None under au cent)
    scores: list[int]  # over the deals finished (au cent: the game under way's)


class LobbyMessage(_ServerMessage):
    """The lobby's socket (`/ws/lobby`): with `reset`, the whole lists (the first message
    on a socket); else what changed since the last message, many changes in one: tables
    newly listed (or listed again) in `open` and those that left the list in `gone`;
    tables played whose deal or scores changed, or newly listed, in `playing`, and those no
    longer played in `ended`. Open tables come newest first."""

    type: Literal["lobby"] = "lobby"
    reset: bool
    open: list[LobbyOpenTable]
    gone: list[str]
    playing: list[LobbyPlayingTable]
    ended: list[str]


class ServerPing(_ServerMessage):
    type: Literal["ping"] = "ping"


class ServerPong(_ServerMessage):
    type: Literal["pong"] = "pong"


ServerMessage = Annotated[
    StateMessage | PresenceMessage | ErrorMessage | HintAnswer | ReviewAnswer | LobbyMessage
    | ServerPing | ServerPong,
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
