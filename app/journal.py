"""A room's journal: every change written to the store before anyone is told of it, and
the match's entries as stored (the coach's record and reviews are worked out from them).

It owns what the room needs to keep its word about versions:
- `commit(change)`: the write, with the store's patience (app/store.py), and the room's
  sockets told while it waits ("waiting for the store");
- the last writes the store acknowledged (`TAIL`), so that a store found behind this
  process (Redis lost its last writes, and this process still has them) gets them
  again, in order, instead of the room being let go and the seats shown an older table;
- receipts: each version a seat is shown comes with a receipt (an HMAC of the room id
  and the version under the room's secret), so a seat coming back can prove which
  version it saw; if the store holds an older one and no process still has the lost
  writes, the room knows it (`Room.recover`) instead of resuming as if nothing happened.
With no store, a commit writes nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from collections import deque
from collections.abc import Callable

from app.store import Change, Entry, RoomStore, Start, VersionConflict, encode_entry

log = logging.getLogger("piquet.rooms")

# Writes kept to write again if the store turns out to have lost them. Redis with
# appendfsync everysec lost up to the last second's writes: a few per room.
TAIL = 32


def new_secret() -> str:
    return secrets.token_hex(16)


class Journal:
    __slots__ = ("entries", "last_receipt", "room_id", "secret", "start", "store", "tail",
                 "waiting")

    def __init__(self, room_id: str, store: RoomStore | None, start: Start,
                 secret: str = "") -> None:
        self.room_id = room_id
        # Where this match started, and its entries so far, encoded as stored.
        self.start = start
        self.entries: list[str] = []
        self.store = store
        self.secret = secret or new_secret()
        # The latest acknowledged writes, oldest first: only with a store that may lose
        # writes it acknowledged (32 writes are ~13 KiB a room).
        self.tail: deque[Change] | None = (
            deque(maxlen=TAIL) if store is not None and store.may_lose_writes else None)
        self.waiting = False  # a write is waiting for the store to answer
        # The latest version's receipt: every message of one version carries it.
        self.last_receipt: tuple[int, str] = (0, "")

    def receipt(self, version: int) -> str:
        """What proves that a seat was shown `version` of this room."""
        if self.last_receipt[0] == version:
            return self.last_receipt[1]
        receipt = self._receipt(version)
        self.last_receipt = (version, receipt)
        return receipt

    def _receipt(self, version: int) -> str:
        text = f"{self.room_id}:{version}".encode()
        return hmac.new(self.secret.encode(), text, hashlib.sha256).hexdigest()[:24]

    def shown(self, seen: str | None) -> int | None:
        """The version a client's `seen` ("VERSION.RECEIPT") proves it was shown; None if
        it proves nothing."""
        if not seen or seen.count(".") != 1:
            return None
        number, receipt = seen.split(".")
        if not number.isdigit() or len(number) > 12:
            return None
        version = int(number)
        if not hmac.compare_digest(receipt.encode(), self._receipt(version).encode()):
            return None
        return version

    def resume(self, start: Start, entries: list[Entry]) -> None:
        """The match as loaded from the store."""
        self.start = start
        self.entries = [encode_entry(e) for e in entries]

    async def commit(self, change: Change, current: int,
                     on_wait: Callable[[bool], None]) -> str:
        """Write `change` (which makes version `current` + 1), and note it in the match's
        entries; the new version's receipt. StoreError if it is not kept (VersionConflict:
        another process has the room; StoreUnknown: the store did not answer, so whether
        it holds it is unknown; StoreUnavailable: not kept). `on_wait(True)` when the
        store is slow to answer, `on_wait(False)` once it has."""
        if self.store is not None:
            await self._save(change, current, on_wait)
        if change.kind == "action":
            assert change.entry is not None
            self.entries.append(encode_entry(change.entry))
        elif change.kind == "match":
            self.start = Start(change.seed, change.first_dealer, change.first_pack,
                               self.start.rules)  # (a room's rules are its own)
            self.entries = []
        return self.receipt(change.version)

    async def _save(self, change: Change, current: int,
                    on_wait: Callable[[bool], None]) -> None:
        assert self.store is not None

        def waiting() -> None:
            self.waiting = True
            on_wait(True)

        try:
            try:
                await self.store.save(self.room_id, change, waiting=waiting)
            except VersionConflict as exc:
                if not self._behind(exc.stored, current):
                    raise
                assert exc.stored is not None
                await self._write_again(exc.stored, current, waiting)
                await self.store.save(self.room_id, change, waiting=waiting)
        finally:
            if self.waiting:
                self.waiting = False
                on_wait(False)
        if self.tail is not None:
            self.tail.append(change)

    def _behind(self, stored: int | None, current: int) -> bool:
        """The store holds an older version than this process wrote, and this process
        still has every write since."""
        if stored is None or stored >= current or not self.tail:
            return False
        return self.tail[0].version <= stored + 1

    async def _write_again(self, stored: int, current: int, waiting: Callable[[], None]) -> None:
        assert self.store is not None and self.tail is not None
        lost = [c for c in self.tail if c.version > stored]
        log.error("store lost room=%s versions %d-%d (it holds %d): writing them again",
                  self.room_id, stored + 1, current, stored)
        for change in lost:
            await self.store.save(self.room_id, change, waiting=waiting)
