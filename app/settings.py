"""The server's settings: one typed object, read from `PIQUET_*` environment variables.

The README lists every variable; keep the two in step.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal, cast
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent
StoreKind = Literal["sqlite", "redis", "memory"]
STORES: tuple[StoreKind, ...] = ("sqlite", "redis", "memory")

# The kinds of number the settings take.
Seconds = Annotated[float, Field(ge=0)]  # a wait; 0 is allowed (tests)
Period = Annotated[float, Field(gt=0)]  # a span or a rate that must be more than 0
Count = Annotated[int, Field(ge=1)]
AnyCount = Annotated[int, Field(ge=0)]  # a count that may be 0


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PIQUET_", frozen=True)

    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65535)] = 8000
    # The computer seat waits this long before each of its moves, so a person can follow.
    computer_delay: Seconds = 0.6
    # As elder it waits at least this long before its exchange, every deal alike (so the
    # wait tells nothing): time for a person holding carte blanche as younger to announce
    # it, which the rules allow only until elder has exchanged (RULES.md §2).
    computer_exchange_delay: Seconds = 3.0
    # Before it chooses the dealer and before each lead it waits at least this long, every
    # time alike: the cut, or the trick just won, stays in view long enough to be seen.
    computer_lead_delay: Seconds = 1.5
    # Before a lead after a trick it won, at least this long: that trick stays in view
    # (after the person's own lead, its only look at the computer's winning card), unless
    # the person goes on sooner (the `go_on` message).
    computer_trick_hold: Seconds = 2.5
    # Once it has said something in a deal, its further declaring steps come this soon
    # (at most its usual pace): every deal alike, and longer than any level's decision.
    computer_declare_delay: Seconds = 0.5
    # The good and strong levels think in this many worker processes (0: in the event
    # loop, for tests; by default, one a CPU core), fed earliest deadline first
    # (app/pools.py), and move at this fixed pace (seconds after the change they
    # answer), at least their worst decision on one core, so the pace tells nothing.
    computer_workers: AnyCount = Field(
        default_factory=lambda: os.cpu_count() or 1)
    # Processes where hints, reviews and records are worked out (app/coach.py), apart
    # from the computer's (0: in the event loop, for tests).
    teaching_workers: AnyCount = 1
    computer_pace: Seconds = 1.5
    max_rooms: Count = 1000
    room_idle_seconds: Period = 2 * 3600
    # A room nobody has used (no action by a person, no friend in the other seat) expires
    # after this, and gives way first when max_rooms are open (issue 15).
    room_unused_seconds: Period = 600
    # A table played at its own pace ("Take your time") is kept this many days without a
    # move (in the store; with a store, it leaves memory when nobody has had it open for
    # `room_idle_seconds`, and is loaded again on first use).
    slow_room_days: Period = 30
    sweep_interval: Period = 60
    # New rooms per client address (the forwarded one, from a proxy in
    # FORWARDED_ALLOW_IPS): `rooms_per_minute` on average, `rooms_burst` at once.
    rooms_per_minute: Period = 6
    rooms_burst: Count = 10
    # Rooms one client address holds open at once (made or joined; the forwarded address
    # behind a trusted proxy), and how long a room must have gone without a move before
    # it may give way to a new one when every table is taken (issue 25).
    rooms_per_address: Count = 10
    room_give_way_seconds: Seconds = 300
    # The lobby (app/lobby.py): an open table leaves the list after waiting this long with
    # nobody (its maker may list it again); one client address has at most this many
    # tables listed at once; the changes of this many seconds go to each of the lobby's
    # watchers in one message.
    open_table_seconds: Period = 15 * 60
    open_tables_per_address: Count = 3
    lobby_coalesce: Seconds = 0.5
    # At a table of strangers, a player whose opponent has had no page open this long may
    # give their seat to the computer, and after `stranger_abandon_seconds` end the partie
    # as abandoned by them.
    stranger_away_seconds: Period = 60
    stranger_abandon_seconds: Period = 180
    # The largest request body accepted (a form or the API's JSON is tens of bytes).
    max_body_bytes: Annotated[int, Field(ge=256)] = 8192
    # Connections (app/serving.py): a connection that has not sent a whole request head
    # within `header_timeout` seconds is closed; an idle keep-alive one after
    # `keep_alive_seconds`; past `max_connections` in all, or `max_connections_per_address`
    # from one address not in FORWARDED_ALLOW_IPS, a new connection is closed at once.
    header_timeout: Period = 10
    keep_alive_seconds: Count = 5
    max_connections: Annotated[int, Field(ge=16)] = 4000
    max_connections_per_address: Count = 100
    # Empty: only pages served from the same host as the request's Host header may connect.
    # NoDecode lets the variable be a plain comma-separated list as well as JSON.
    allowed_origins: Annotated[list[str], NoDecode] = []
    # The site's public origin (https://piquet.example.org): the invite link, the redirect
    # after making a room and the API's `url` are built from it, never from the request's
    # Host header (which a client, or a proxy passing it on, may forge); https here also
    # gives the seat cookie its __Host- name. Empty: links from the request's Host.
    public_url: str = ""
    # Sent as the X-Operator-Token header, it opens /healthz?detail=1 to a request from
    # anywhere; without it, only a request from a loopback address that no proxy forwarded
    # (none of X-Forwarded-For, Forwarded, X-Real-IP) gets the detail. Empty: loopback only.
    operator_token: str = ""
    max_message_bytes: Annotated[int, Field(ge=64)] = 4096
    rate_limit_per_second: Period = 20
    rate_limit_burst: Count = 40
    send_queue_size: Count = 64
    ping_interval: Period = 20
    # Sockets one client address may have watching one table (of its 16 watcher slots).
    max_watchers_per_address: Count = 4
    # Several tabs of one browser may hold the same seat; beyond this the oldest is closed.
    max_connections_per_seat: Count = 4
    # Frames above this are refused by uvicorn itself (close 1009), before the app sees them.
    ws_max_frame_bytes: Annotated[int, Field(ge=1024)] = 64 * 1024
    # permessage-deflate costs ~42 KiB of memory per socket and CPU per message, for
    # state messages of ~1.8 KB: off by default (docs/reliability.md).
    ws_deflate: bool = False
    # Freeze what start-up made and make the collector's full passes rare (app/runtime.py);
    # off gives Python's defaults (docs/reliability.md compares the two).
    collector_tuning: bool = True
    # With collector_tuning: seconds between full passes of the cyclic collector (the
    # young ones run every 50 ms: app/runtime.py).
    collector_full_seconds: Period = 3600
    # A thread that names what the event loop was running whenever it came round more than
    # 50 ms late (app/runtime.py, StallWatch): in /healthz?detail=1 and the minute's log line.
    watch_stalls: bool = True
    # Where rooms are kept (app/store.py): "sqlite", a file in `data_dir`, for one process
    # (app/sqlite_store.py); "redis", at `redis_url`, for several; "memory", in this
    # process only (gone with it). Empty: redis if `redis_url` is set, else sqlite.
    store: str = ""
    # The SQLite store's directory (made on first start), relative to where the server
    # starts: the rooms are in piquet.db there.
    data_dir: Path = Path("data")
    # Redis, to keep rooms for several processes (app/redis_store.py), e.g.
    # redis://127.0.0.1:6379/0.
    redis_url: str = ""
    # The URL names a node of a Redis Cluster: the cluster client is used (app/store.py).
    redis_cluster: bool = False
    # Each change waits for this many replicas to acknowledge it (WAIT) before anyone is
    # told; 0: Redis must fsync its append-only file before answering (appendfsync always,
    # checked at start). A cluster that fails over without losing a move needs 1.
    redis_replicas: AnyCount = 0
    # How long a change waits for the store to answer (sending it again: it is idempotent)
    # before the room is let go of as unknown (app/store.py).
    store_patience: Period = 10.0
    # How long one Redis command may take before it counts as unanswered (then sent
    # again, within the patience above).
    redis_timeout: Period = 5.0
    templates_dir: Path = ROOT / "templates"
    static_dir: Path = ROOT / "static"
    log_level: str = "info"

    @property
    def slow_room_seconds(self) -> float:
        """How long a slow table ("Take your time") is kept without a move."""
        return self.slow_room_days * 24 * 3600

    @field_validator("store")
    @classmethod
    def _known_store(cls, value: str) -> str:
        value = value.strip().lower()
        if value not in ("", *STORES):
            raise ValueError(f"must be sqlite, redis or memory (or empty: redis with "
                             f"PIQUET_REDIS_URL, else sqlite), not {value!r}")
        return value

    @model_validator(mode="after")
    def _redis_has_a_url(self) -> Settings:
        if self.store == "redis" and not self.redis_url:
            raise ValueError("PIQUET_STORE=redis needs PIQUET_REDIS_URL "
                             "(redis://host:6379/0)")
        return self

    @property
    def store_kind(self) -> StoreKind:
        """The store the settings name: PIQUET_STORE, else redis with a URL, else sqlite."""
        if self.store:
            return cast(StoreKind, self.store)  # (one of STORES: checked above)
        return "redis" if self.redis_url else "sqlite"

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator("public_url")
    @classmethod
    def _public_origin(cls, value: str) -> str:
        """An origin: http(s), a host, perhaps a port; no path, query or user."""
        value = value.strip().rstrip("/")
        if not value:
            return ""
        parts = urlsplit(value)
        if (parts.scheme not in ("http", "https") or not parts.hostname or parts.path
                or parts.query or parts.fragment or "@" in parts.netloc):
            raise ValueError(f"public_url must be an origin such as https://piquet.example.org,"
                             f" not {value!r}")
        return f"{parts.scheme}://{parts.netloc.lower()}"

    @field_validator("allowed_origins")
    @classmethod
    def _normalise_origins(cls, value: list[str]) -> list[str]:
        return [origin.rstrip("/").lower() for origin in value]
