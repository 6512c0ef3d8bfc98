"""`create_app()`: the FastAPI app, built from one Settings object."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ProcessPoolExecutor

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.types import Receive, Scope, Send

from app import api, i18n, languages, lobby_routes, my_tables, pages, ws
from app.computer_seat import Pace, Policy
from app.i18n import N_
from app.lobby import Lobby
from app.lobby_store import LobbyStore, MemoryLobby
from app.pools import CoachPool, ComputerPool, computer_worker
from app.protocol import CLOSE_GOING_AWAY
from app.redis_store import RedisStore
from app.registry import RoomRegistry, random_seed
from app.room_setup import Clock, PackSource, RoomSetup, SeedSource, secure_pack
from app.runtime import LoopMonitor, collect_on_a_clock, settle_collector
from app.security import ClientLimits, Guard, WatchLimits
from app.settings import Settings
from app.sqlite_store import FILE_NAME as SQLITE_FILE
from app.sqlite_store import SQLiteStore
from app.store import RoomStore, StoreError, StoreFull

log = logging.getLogger("piquet")

STORE_DOWN = N_("The tables' store is not answering just now; nothing was made or changed. "
                "Please try again in a moment.")
STORE_FULL = N_("The tables cannot be saved just now (the server's disk is full); nothing "
                "was made or changed. Please try again later.")


async def store_failed(request: Request, exc: Exception) -> Response:
    """The store did not answer (or its disk is full) while a request made, loaded or
    seated at a room: 503 with a clear message and a Retry-After, not a 500. The lobby's
    form and the table page get a page; the API and the page script's seat claim get
    JSON (the script tries again by itself)."""
    log.error("store failed on %s %s: %s", request.method, request.url.path, exc)
    headers = {"Retry-After": "5"}
    message = STORE_FULL if isinstance(exc, StoreFull) else STORE_DOWN
    page = request.method in ("GET", "HEAD") or request.url.path == "/rooms"
    said = str(message)  # (in the request's language)
    if page and not request.url.path.startswith("/api/"):
        response = pages.message_page(request, 503, i18n._("Tables out of reach"), said,
                                      action_label=i18n._("Back to the lobby"))
        response.headers.update(headers)
        return response
    return JSONResponse({"detail": said}, 503, headers=headers)


class PiquetApp(FastAPI):
    """The app: a table's socket goes straight to its handler (`ws.shortcut`)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            scope["app"] = self  # (what Starlette sets: the handler reads app.state)
            if await ws.shortcut(scope, receive, send):
                return
        await super().__call__(scope, receive, send)


def settings_store(settings: Settings) -> RoomStore | None:
    """The store the settings name (None: rooms in this process's memory only): a SQLite
    file in the data directory by default (StoreRefused if it cannot be used), Redis
    with a URL. Its copy of a room outlives the room's idle time by two sweeps: the
    owner renews it at every sweep, and deletes it when the room closes; a slow table's
    outlives its `slow_room_days` so, counted from its last write."""
    sweeps = 2 * settings.sweep_interval
    ttl = settings.room_idle_seconds + sweeps
    slow_ttl = settings.slow_room_seconds + sweeps
    kind = settings.store_kind
    if kind == "sqlite":
        return SQLiteStore(settings.data_dir / SQLITE_FILE, ttl_seconds=ttl,
                           slow_ttl_seconds=slow_ttl, patience=settings.store_patience,
                           purge_seconds=settings.sweep_interval)
    if kind == "redis":
        return RedisStore(settings.redis_url, ttl_seconds=ttl, slow_ttl_seconds=slow_ttl,
                          cluster=settings.redis_cluster, replicas=settings.redis_replicas,
                          patience=settings.store_patience, timeout=settings.redis_timeout)
    return None


def room_setup(settings: Settings, *, clock: Clock, new_seed: SeedSource,
               new_pack: PackSource, policy: Policy | None,
               store: RoomStore | None) -> RoomSetup:
    """What every room is made with: the tests' replacements, the store, the computer's
    pace from the settings, and the computer's and the coach's worker pools."""
    return RoomSetup(
        clock=clock,
        new_seed=new_seed,
        new_pack=new_pack,
        max_connections_per_seat=settings.max_connections_per_seat,
        store=store,
        policy=policy,
        computer_pace=Pace(settings.computer_delay, settings.computer_exchange_delay,
                           settings.computer_lead_delay, settings.computer_trick_hold,
                           settings.computer_declare_delay, settings.computer_pace),
        computer_pool=computer_pool(settings),
        coach_pool=CoachPool(settings.teaching_workers),
        away_seconds=settings.stranger_away_seconds,
        abandon_seconds=settings.stranger_abandon_seconds,
    )


def computer_pool(settings: Settings) -> ComputerPool | None:
    """Where the good and strong levels think: worker processes, made when the first good
    or strong table is ("spawn": nothing of the server's threads or sockets is
    inherited); each ends when the server does, however it ends (app/pools.py). None
    (no workers): they think in the event loop."""
    if not settings.computer_workers:
        return None

    def workers() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            settings.computer_workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=computer_worker, initargs=(os.getpid(),))

    return ComputerPool(workers, settings.computer_workers)


def room_registry(settings: Settings, setup: RoomSetup) -> RoomRegistry:
    """The rooms, with their limits from the settings."""
    return RoomRegistry(
        setup,
        max_rooms=settings.max_rooms,
        idle_seconds=settings.room_idle_seconds,
        unused_seconds=settings.room_unused_seconds,
        rooms_per_address=settings.rooms_per_address,
        give_way_seconds=settings.room_give_way_seconds,
        slow_seconds=settings.slow_room_seconds,
    )


Lifespan = Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]


def lobby_for(settings: Settings, rooms: RoomRegistry) -> Lobby:
    """The lobby, its lists kept where the rooms are (Redis; this process, its open
    tables in the SQLite file too; or this process alone), told of every change of a
    room and telling the rooms of this process their news."""
    store: LobbyStore
    if isinstance(rooms.store, RedisStore):
        from app.redis_lobby import RedisLobby

        store = RedisLobby(rooms.store)
    elif isinstance(rooms.store, SQLiteStore):
        from app.sqlite_lobby import SQLiteLobby

        store = SQLiteLobby(rooms.store)
    else:
        store = MemoryLobby()
    lobby = Lobby(store, open_seconds=settings.open_table_seconds,
                  open_per_address=settings.open_tables_per_address,
                  coalesce=settings.lobby_coalesce)
    rooms.lobby = lobby
    lobby.news = rooms.lobby_news
    rooms.listeners.append(lobby.room_changed)
    return lobby


def server_lifespan(settings: Settings, rooms: RoomRegistry, monitor: LoopMonitor,
                    *, settle_gc: bool) -> Lifespan:
    """While the server runs: the collector's clock (with `settle_gc`), the rooms' sweep,
    the lobby, the loop monitor and the store's hand-over listener; at the end, every
    task cancelled, every room closed (going away) and the workers stopped."""
    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        tasks = []
        if settle_gc:
            monitor.frozen_at_start = settle_collector()
            tasks.append(asyncio.create_task(
                collect_on_a_clock(full_every=settings.collector_full_seconds)))
        tasks.append(asyncio.create_task(rooms.sweep_forever(settings.sweep_interval)))
        if rooms.lobby is not None:
            tasks.append(asyncio.create_task(rooms.lobby.run()))
        tasks.append(asyncio.create_task(
            monitor.run(lambda: f"rooms {len(rooms)}", watch_stalls=settings.watch_stalls)))
        if rooms.store is not None:
            for problem in await rooms.store.check():
                log.error("store: %s", problem)
            tasks.append(asyncio.create_task(rooms.store.listen(rooms.hand_over)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await rooms.close_all(CLOSE_GOING_AWAY, "The server is restarting.")
            rooms.stop_workers()

    return lifespan


def add_routes(app: FastAPI, settings: Settings) -> None:
    """The pages, the API, the table's socket and the static files, behind the Guard
    (origins, body size); a store that fails answers 503 (`store_failed`)."""
    app.include_router(lobby_routes.router)
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(my_tables.router)
    app.include_router(languages.router)
    app.add_exception_handler(StoreError, store_failed)
    app.router.routes.append(ws.ROUTE)
    # check_dir=False: the app starts even before static/ has files (tests, fresh clones).
    app.mount("/static", StaticFiles(directory=settings.static_dir, check_dir=False), "static")
    app.add_middleware(
        Guard, allowed_origins=settings.allowed_origins, max_body_bytes=settings.max_body_bytes
    )
    app.add_middleware(languages.Languages)  # (outermost: the Guard's refusals in it too)


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock = time.monotonic,
    new_seed: SeedSource = random_seed,
    policy: Policy | None = None,
    settle_gc: bool = False,
    store: RoomStore | None = None,
    new_pack: PackSource = secure_pack,
) -> FastAPI:
    """The app. `clock` drives idle expiry, `new_seed` the partie seeds (the cut),
    `new_pack` each deal's pack as it is dealt (None from it: the engine's own, from the
    seed) and `policy` the computer seat (default: engine.computer.choose); tests
    replace them.
    `settle_gc`: once started, freeze what start-up made and set the collector's
    thresholds (app/runtime.py); `python -m app` does, the tests' processes do not.
    `store`: where rooms are kept beyond memory (default: the one the settings name,
    `settings_store`)."""
    settings = settings or Settings()
    if store is None:
        store = settings_store(settings)
    setup = room_setup(settings, clock=clock, new_seed=new_seed, new_pack=new_pack,
                       policy=policy, store=store)
    rooms = room_registry(settings, setup)
    monitor = LoopMonitor()
    # No /docs, /redoc or /openapi.json: the API is two routes, described in README.md and
    # docs/protocol.md, and the WebSocket protocol has its own schema at /protocol.json.
    app = PiquetApp(title="Piquet table",
                    lifespan=server_lifespan(settings, rooms, monitor, settle_gc=settle_gc),
                    docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    app.state.rooms = rooms
    app.state.lobby = lobby_for(settings, rooms)
    app.state.watch_limits = WatchLimits(settings.rate_limit_per_second,
                                         settings.rate_limit_burst,
                                         settings.max_watchers_per_address)
    app.state.room_limits = ClientLimits(settings.rooms_per_minute, settings.rooms_burst)
    app.state.monitor = monitor
    app.state.templates = Jinja2Templates(directory=settings.templates_dir)
    i18n.install(app.state.templates.env)
    add_routes(app, settings)
    return app
