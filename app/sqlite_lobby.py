"""The lobby's open tables kept in the SQLite file too, so that a restart lists again the
tables that were waiting (app/sqlite_store.py: one process).

The lists live in this process's memory (`MemoryLobby`, whose steps stay atomic: nothing
here waits between reading the list and changing it); each open table listed, and each
gone from the list, is written to the file after (in the order made, by the store's
writer), and read back at start. So a table waiting when the server stopped is listed
again, its maker's name, rules and browser as they were, waiting since it was first
listed: one that has waited `PIQUET_OPEN_TABLE_SECONDS` by then leaves the list at the
lobby's first sweep, its maker told. The tables being played are not kept: each is
listed again once one of its pages is back (the room loaded, app/registry.py). A write
the file refuses (a full disk) is logged: the list in memory is right, and the file's
is put right by the next change of that table.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from app.lobby_store import Event, MemoryLobby, OpenTable
from app.sqlite_store import SQLiteStore
from app.store import StoreError

log = logging.getLogger("piquet.lobby")


class SQLiteLobby(MemoryLobby):
    def __init__(self, store: SQLiteStore, clock: Callable[[], float] = time.time) -> None:
        super().__init__(clock)
        self.file = store
        kept = [OpenTable.from_json(entry) for entry in store.listed()]
        for table in sorted(kept, key=lambda t: t.since):  # (in the order listed)
            self.open[table.room_id] = table
        self._writes: set[asyncio.Future[None]] = set()

    def _tell(self, event: Event) -> None:
        if "open" in event:
            self._keep(event["open"]["room_id"], event["open"])
        elif "gone" in event:
            self._keep(event["gone"], None)
        super()._tell(event)

    def _keep(self, room_id: str, entry: dict[str, Any] | None) -> None:
        write = asyncio.ensure_future(self.file.keep_listed(room_id, entry))
        self._writes.add(write)
        write.add_done_callback(self._written)

    async def written(self) -> None:
        """Until every write asked so far is done (for tests)."""
        await asyncio.gather(*self._writes, return_exceptions=True)

    def _written(self, write: asyncio.Future[None]) -> None:
        self._writes.discard(write)
        if not write.cancelled() and isinstance(write.exception(), StoreError):
            log.error("lobby: the open tables not kept in the file: %s", write.exception())
