"""Rooms in a SQLite file: the default store, for one process (app/store.py's contract).

With no Redis, rooms are kept in `PIQUET_DATA_DIR/piquet.db` (`./data` by default, made
on first start) with Python's own `sqlite3`: nothing to install, and every table comes
back after a restart, a crash or `kill -9`.

- **Told once durable.** WAL mode with `synchronous=FULL`: a COMMIT returns once the
  write-ahead log is fsync'd, and no socket is told a change before its COMMIT has
  returned. (With NORMAL the log is fsync'd only at checkpoints: a process killed
  would lose nothing, the log being in the kernel's cache, but a power cut or a kernel
  crash could take back the last moves both seats were shown. Not acceptable here.)
- **Off the event loop, commits grouped.** One writer thread takes every write waiting
  and makes them one transaction, one COMMIT, one fsync, then answers each in one call
  into the loop; a reader thread loads rooms on a connection of its own (a WAL reader
  never waits for the writer); a third copies the log into the database once a second
  (a PASSIVE checkpoint), so no write waits for a checkpoint. Every wait for the disk
  has the store's patience, as with Redis: a write not yet begun when it runs out is
  StoreUnavailable (and is never made), one being committed StoreUnknown.
- **One process.** An exclusive `flock` on `piquet.db.lock`, held while the store is
  open: a second server pointed at the same directory is refused at start. So the
  version check is the whole of "one writer per room", and `own` answers from the
  versions this process wrote or read.
- **Refused, never wiped.** A file that is not a SQLite database, is damaged (`PRAGMA
  quick_check`), holds tables of something else, or is of a newer schema than this
  server knows is refused at start (StoreRefused, naming the file); nothing is written
  to it. A schema older than this one is brought up to date by `MIGRATIONS`, each step
  in a transaction (`PRAGMA user_version` is the schema).
- **Expiry, as Redis's.** Each room has an expiry time (the wall clock: it outlives the
  process): its last write plus its own keep (app/store.py's `keep_seconds`, from its
  options when made and when a write changes them): a room played now `ttl_seconds`,
  renewed too by the sweeps' `keep_alive` (which never shortens an expiry), a slow
  table ("Take your time") `slow_ttl_seconds`, renewed by its writes alone. Past it a
  room is gone to load and to write, and `listen` (one process has no hand-overs to
  listen for) deletes expired rooms from the file every `purge_seconds`. Each room
  keeps when it was last written (`moved_at`: how long ago its last move was, after a
  restart).
- **Disk full.** SQLite rolls the transaction back (SQLITE_FULL): nothing written,
  StoreFull, and the next write after space returns goes through.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import queue
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from app.store import (
    Change,
    HandOver,
    SeatTaken,
    StoredRoom,
    StoreError,
    StoreFull,
    StoreRefused,
    StoreUnavailable,
    StoreUnknown,
    VersionConflict,
    Waiting,
    WritesByKind,
    decode_entry,
    encode_entry,
    keep_seconds,
)

log = logging.getLogger("piquet.store")

FILE_NAME = "piquet.db"
SCHEMA = 1
# MIGRATIONS[n]: from schema n to n + 1 (0: an empty file). Schema 1: a row a room (the
# seed as text: it is 64 bits unsigned; the options and "Play again" as JSON; each seat's
# token digest or NULL; when it was last written, how long it is kept after a write, and
# its expiry, in seconds of the wall clock), a row an entry of the match, keyed by the
# room's row and the version it made, and a row an open table waiting in the lobby (its
# entry as JSON: app/sqlite_lobby.py).
MIGRATIONS = [
    """
    CREATE TABLE rooms (
        key INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        options TEXT NOT NULL,
        seed TEXT NOT NULL,
        match INTEGER NOT NULL,
        version INTEGER NOT NULL,
        seat0 TEXT,
        seat1 TEXT,
        first_dealer INTEGER,
        first_pack TEXT,
        rematch TEXT NOT NULL,
        secret TEXT NOT NULL,
        moved REAL NOT NULL,
        keep REAL NOT NULL,
        expires REAL NOT NULL
    );
    CREATE TABLE actions (
        room INTEGER NOT NULL,
        version INTEGER NOT NULL,
        entry TEXT NOT NULL,
        PRIMARY KEY (room, version)
    ) WITHOUT ROWID;
    CREATE TABLE lobby (
        room TEXT PRIMARY KEY,
        entry TEXT NOT NULL
    ) WITHOUT ROWID;
    """,
]
assert len(MIGRATIONS) == SCHEMA

# A write waiting this long has the table say it waits for its store.
WAITING_AFTER = 1.0
CHECKPOINT_SECONDS = 1.0
LONG_LOG_FRAMES = 1000  # pages in the write-ahead log (~4 MiB): begin it afresh
MOST_IN_A_COMMIT = 512
PURGE_BATCH = 200
_SEATS = ("seat0", "seat1")
_ROOM_COLUMNS = ("key, options, seed, match, version, seat0, seat1, first_dealer, "
                 "first_pack, rematch, secret, moved")

Run = Callable[[sqlite3.Connection, float], Any]
# An action's write: room id, the version it makes, its entry, when it was made.
Append = tuple[str, int, str, float]


# --- opening: the lock, the checks, the schema ---------------------------------------------


def take_lock(path: Path) -> IO[str]:
    """The lock that keeps a second process off the file (held until closed)."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = lock_path.open("a+")
    except OSError as exc:
        raise StoreRefused(f"cannot make or open {lock_path}: {exc.strerror}") from exc
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise StoreRefused(
            f"{path} is in use by another server process (it holds {lock_path}): stop "
            f"that one first, or give this one its own PIQUET_DATA_DIR") from None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")  # (for the operator: which process holds it)
    handle.flush()
    return handle


def prepare(path: Path) -> None:
    """Check the file and bring its schema up to date: StoreRefused, having written
    nothing, if it is not ours to use."""
    try:
        conn = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreRefused(f"cannot open {path}: {exc}") from exc
    try:
        started = time.monotonic()
        found = _check(conn, path)
        conn.execute("PRAGMA journal_mode=WAL")
        for schema in range(found, SCHEMA):
            conn.executescript(f"BEGIN IMMEDIATE; {MIGRATIONS[schema]}; "
                               f"PRAGMA user_version = {schema + 1}; COMMIT;")
            log.info("store: %s brought from schema %d to %d", path, schema, schema + 1)
        rooms = conn.execute("SELECT count(*) FROM rooms").fetchone()[0]
        log.info("store: %s holds %d rooms, %.1f MiB, checked in %.2f s", path, rooms,
                 path.stat().st_size / 2**20, time.monotonic() - started)
    except sqlite3.Error as exc:
        raise StoreRefused(f"cannot use {path} ({exc}); nothing was changed") from exc
    finally:
        conn.close()


def _check(conn: sqlite3.Connection, path: Path) -> int:
    """The file's schema, once it is known to be a sound database of ours (or empty)."""
    damaged = (f"{path} is damaged or is not a SQLite database; the server will not "
               f"start on it and has changed nothing: restore it from a backup, or move "
               f"it aside to start with no tables")
    try:
        found = int(conn.execute("PRAGMA user_version").fetchone()[0])
        problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise StoreRefused(f"{damaged} ({exc})") from exc
    if problems != ["ok"]:
        raise StoreRefused(f"{damaged} ({'; '.join(problems)})")
    if found > SCHEMA:
        raise StoreRefused(
            f"{path} was written by a newer version of the server (schema {found}; this "
            f"one reads up to {SCHEMA}); it will not start on it and has changed "
            f"nothing: run the newer version, or restore a backup")
    if found == 0 and tables:
        raise StoreRefused(f"{path} holds tables of something else, not the Piquet "
                           f"table's; the server will not start on it and has changed "
                           f"nothing")
    return found


def connect(path: Path, *, writes: bool) -> sqlite3.Connection:
    """A connection for one of the store's threads."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=10000")
    if writes:
        conn.execute("PRAGMA wal_autocheckpoint=0")  # the checkpoint thread's job
        conn.execute(f"PRAGMA journal_size_limit={16 << 20}")
    return conn


# --- reading a room ------------------------------------------------------------------------


def read_room(conn: sqlite3.Connection, room_id: str, now: float) -> StoredRoom | None:
    """A room as the file holds it (None: no such room, or expired); ValueError or
    KeyError if a row does not read. For tests and tools too (any connection)."""
    row = conn.execute(f"SELECT {_ROOM_COLUMNS} FROM rooms WHERE id = ? AND expires > ?",
                       (room_id, now)).fetchone()
    if row is None:
        return None
    (key, options, seed, match, version, seat0, seat1, first_dealer, pack, rematch, secret,
     moved) = row
    # The entries in one row (one statement step, not one a row: see `append_all`).
    made = conn.execute("SELECT json_group_array(json_array(version, entry)) FROM actions "
                        "WHERE room = ?", (key,)).fetchone()[0]
    entries = [entry for _, entry in sorted(json.loads(made))]
    first_pack = tuple(pack.split()) if pack else None
    if first_pack is not None and len(first_pack) != 32:
        raise ValueError(f"a first pack of {len(first_pack)} cards")
    return StoredRoom(room_id=room_id, options=json.loads(options), seed=int(seed),
                      match=match, version=version, seat_hashes=[seat0, seat1],
                      actions=[decode_entry(e) for e in entries],
                      first_dealer=first_dealer,
                      rematch=[int(s) for s in json.loads(rematch)],
                      first_pack=first_pack, secret=secret, moved_at=moved)


def room_ids(conn: sqlite3.Connection) -> list[str]:
    return [room_id for (room_id,) in conn.execute("SELECT id FROM rooms ORDER BY key")]


# --- the threads ---------------------------------------------------------------------------


class Job:
    """One read or write, from the event loop to a thread and back."""

    __slots__ = ("append", "error", "future", "result", "run", "state", "timer")

    QUEUED, TAKEN, ABANDONED = 0, 1, 2

    def __init__(self, future: asyncio.Future[Any], run: Run | None,
                 append: Append | None = None) -> None:
        self.future = future
        self.run = run
        # A seat's action (most writes): made with every other of its batch in a few
        # statements (`append_all`), not a few statements each.
        self.append = append
        self.result: Any = None
        self.error: BaseException | None = None
        self.state = Job.QUEUED
        self.timer: asyncio.TimerHandle | None = None  # the store's patience


class Worker:
    """A connection and the thread that uses it: jobs queued from the loop are taken in
    batches (`do_batch` runs one), and each batch is answered in one call into the loop."""

    def __init__(self, name: str, conn: sqlite3.Connection,
                 do_batch: Callable[[sqlite3.Connection, list[Job]], None],
                 after: Callable[[sqlite3.Connection], None] | None = None) -> None:
        self.conn = conn
        self.do_batch = do_batch
        self.after = after  # run once a batch is answered
        self.jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self.lock = threading.Lock()  # a job is taken or abandoned, never both
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def submit(self, job: Job) -> None:
        self.jobs.put(job)

    def abandon(self, job: Job) -> bool:
        """True if the job had not been taken: it never will be."""
        with self.lock:
            if job.state == Job.QUEUED:
                job.state = Job.ABANDONED
                return True
            return False

    def stop(self) -> None:
        self.jobs.put(None)

    def _run(self) -> None:
        running = True
        while running:
            first = self.jobs.get()
            batch = [first] if first is not None else []
            running = first is not None
            while running and len(batch) < MOST_IN_A_COMMIT:
                try:
                    job = self.jobs.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    running = False
                else:
                    batch.append(job)
            with self.lock:
                batch = [job for job in batch if job.state == Job.QUEUED]
                for job in batch:
                    job.state = Job.TAKEN
            if batch:
                try:
                    self.do_batch(self.conn, batch)
                except Exception as exc:  # a bug: the jobs fail, the thread goes on
                    log.exception("store: %s failed", self.thread.name)
                    if self.conn.in_transaction:
                        with contextlib.suppress(sqlite3.Error):
                            self.conn.execute("ROLLBACK")
                    for job in batch:
                        job.error = StoreUnknown(f"the store failed: {exc!r}")
                _answer(batch)
                if self.after is not None:
                    self.after(self.conn)
        self.conn.close()


def _answer(batch: list[Job]) -> None:
    with contextlib.suppress(RuntimeError):  # (the loop is closed: nobody waits)
        batch[0].future.get_loop().call_soon_threadsafe(_settle, batch)


def _settle(batch: list[Job]) -> None:
    for job in batch:
        if job.future.done():
            continue  # given up on (the store's patience ran out)
        if job.error is not None:
            job.future.set_exception(job.error)
        else:
            job.future.set_result(job.result)


def _failure(exc: Exception, path: Path, *, committing: bool) -> StoreError:
    """What an error means for the writes of a transaction it ended."""
    if not isinstance(exc, sqlite3.Error):
        log.error("store: a write failed", exc_info=exc)
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code == sqlite3.SQLITE_FULL:
        return StoreFull(f"{path}: the disk is full ({exc}); nothing was written")
    if committing:
        return StoreUnknown(f"{path}: the commit failed ({exc}); whether it holds the "
                            f"writes is unknown")
    return StoreUnavailable(f"{path}: {exc}; nothing was written")


# --- the store -----------------------------------------------------------------------------


class SQLiteStore(WritesByKind):
    """Rooms in one SQLite file, for one process: `path` (its directory is made if
    missing), rooms kept `ttl_seconds` after their last write or keep_alive, a slow
    table `slow_ttl_seconds` after its last write (keep_seconds)."""

    name = "sqlite"
    may_lose_writes = False  # (synchronous=FULL: a commit is on the disk)

    def __init__(self, path: Path, *, ttl_seconds: float, patience: float = 10.0,
                 purge_seconds: float = 60.0, clock: Callable[[], float] = time.time,
                 slow_ttl_seconds: float | None = None) -> None:
        self.path = Path(path)
        self.ttl = ttl_seconds
        self.slow_ttl = slow_ttl_seconds or ttl_seconds
        self.patience = patience
        self.purge_seconds = purge_seconds
        self.clock = clock
        self.closed = False
        # The version of each room this process wrote or read last (`own`).
        self.versions: dict[str, int] = {}
        # For /healthz?detail=1 and the benchmarks.
        self.commits = self.writes = self.unknown = 0
        self.lock_file = take_lock(self.path)
        try:
            prepare(self.path)
            self.writer = Worker("piquet-sqlite-writer", connect(self.path, writes=True),
                                 self._write_batch, self._log_caught_up)
            self.reader = Worker("piquet-sqlite-reader", connect(self.path, writes=False),
                                 self._read_batch)
        except BaseException:
            self.lock_file.close()
            raise
        self.stopping = threading.Event()
        self.log_is_long = threading.Event()  # (the checkpoint thread asks the writer)
        self.checkpointer = threading.Thread(target=self._checkpoints, daemon=True,
                                             name="piquet-sqlite-checkpoint")
        self.checkpointer.start()

    # --- the threads' side ---------------------------------------------------------------

    def _write_batch(self, conn: sqlite3.Connection, batch: list[Job]) -> None:
        """The writes as one transaction; if SQLite fails before the commit (not for a
        full disk), each is tried alone, so only the one at fault fails. (Few statements
        a batch, not a few a write: each statement hands Python's GIL back and forth
        with the event loop's thread, and a busy loop makes each hand-over wait.)"""
        committing = False
        try:
            conn.execute("BEGIN IMMEDIATE")
            now = self.clock()
            appends = [job for job in batch if job.append is not None]
            if appends:
                append_all(conn, appends, now)
            for job in batch:
                if job.run is None:
                    continue
                try:
                    job.result = job.run(conn, now)
                except StoreError as exc:  # refused (a version, a seat): it wrote nothing
                    job.error = exc
            committing = True
            conn.execute("COMMIT")
            self.commits += 1
            self.writes += len(batch)
        except Exception as exc:  # (SQLite's, or a bug in one job: tried alone below)
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            error = _failure(exc, self.path, committing=committing)
            if len(batch) > 1 and not committing and not isinstance(error, StoreFull):
                for job in batch:
                    job.error = None
                    self._write_batch(conn, [job])
                return
            log.error("store: %s", error)
            for job in batch:
                job.error = error

    def _log_caught_up(self, conn: sqlite3.Connection) -> None:
        """In the writer, once a batch is answered: if the log is long, the checkpoint
        completed where nothing can be written meanwhile (a few pages left to copy)."""
        if self.log_is_long.is_set():
            self.log_is_long.clear()
            with contextlib.suppress(sqlite3.Error):  # (the checkpoint thread says why)
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()

    def _read_batch(self, conn: sqlite3.Connection, batch: list[Job]) -> None:
        """The reads, in one read transaction: each sees every write committed, whole."""
        try:
            conn.execute("BEGIN")
            now = self.clock()
            for job in batch:
                assert job.run is not None
                try:
                    job.result = job.run(conn, now)
                except (ValueError, KeyError, TypeError) as exc:
                    job.error = exc
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            for job in batch:
                job.error = StoreUnavailable(f"{self.path}: {exc}")

    def _checkpoints(self) -> None:
        """Once a second, the log copied into the database (PASSIVE: writers go on). A
        checkpoint made while writes go on never catches up with the last of them, and
        the log is begun afresh only once all of it is copied: so when it is long the
        writer, between two commits, copies the little left (`_log_caught_up`), and its
        next commit starts the log again from its beginning."""
        conn = connect(self.path, writes=False)
        failed = False
        while not self.stopping.wait(CHECKPOINT_SECONDS):
            try:
                _, frames, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if frames > LONG_LOG_FRAMES:
                    self.log_is_long.set()
                failed = False
            except sqlite3.Error as exc:
                if not failed:  # (once a spell: the disk is full, say)
                    log.error("store: checkpoint of %s failed: %s", self.path, exc)
                failed = True
        with contextlib.suppress(sqlite3.Error):
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        conn.close()

    # --- the loop's side -----------------------------------------------------------------

    async def _ask(self, worker: Worker, run: Run | None, *, write: bool,
                   waiting: Waiting | None = None, append: Append | None = None) -> Any:
        """`run` in `worker`'s thread, within the store's patience: after WAITING_AFTER
        `waiting()` is called (the table says it waits for its store), and after
        `patience` the caller is answered without it (`_give_up`)."""
        if self.closed:
            raise StoreUnavailable(f"{self.path}: the store is closed")
        loop = asyncio.get_running_loop()
        job = Job(loop.create_future(), run, append)
        worker.submit(job)
        job.timer = loop.call_later(min(WAITING_AFTER, self.patience), self._slow, worker,
                                    job, write, waiting)
        try:
            return await job.future
        finally:
            job.timer.cancel()

    def _slow(self, worker: Worker, job: Job, write: bool, waiting: Waiting | None) -> None:
        if job.future.done():
            return
        if waiting is not None:
            waiting()
        job.timer = asyncio.get_running_loop().call_later(
            max(0.0, self.patience - WAITING_AFTER), self._give_up, worker, job, write)

    def _give_up(self, worker: Worker, job: Job, write: bool) -> None:
        if job.future.done():
            return
        if worker.abandon(job) or not write:
            job.future.set_exception(StoreUnavailable(
                f"{self.path}: no answer from the disk for {self.patience:.0f} s; "
                f"nothing was written"))
            return
        self.unknown += 1
        job.future.set_exception(StoreUnknown(
            f"{self.path}: no answer from the disk for {self.patience:.0f} s; whether "
            f"it holds the write is unknown"))

    async def _write(self, run: Run | None, waiting: Waiting | None = None,
                     append: Append | None = None) -> Any:
        return await self._ask(self.writer, run, write=True, waiting=waiting, append=append)

    async def _read(self, run: Run) -> Any:
        return await self._ask(self.reader, run, write=False)

    # --- the contract ------------------------------------------------------------------

    def keep(self, options: dict[str, Any]) -> float:
        """How long a room of these options is kept after a write."""
        return keep_seconds(options, self.ttl, self.slow_ttl)

    async def create(self, room: StoredRoom) -> None:
        keep = self.keep(room.options)
        values = (room.room_id, json.dumps(room.options), str(room.seed), room.match,
                  room.version, *room.seat_hashes, room.first_dealer,
                  " ".join(room.first_pack) if room.first_pack else None,
                  json.dumps(room.rematch), room.secret)

        def run(conn: sqlite3.Connection, now: float) -> None:
            found = conn.execute("SELECT key, version, expires FROM rooms WHERE id = ?",
                                 (room.room_id,)).fetchone()
            if found is not None:
                if found[2] > now:
                    raise VersionConflict(f"room {room.room_id} exists", found[1])
                _remove(conn, found[0])  # an expired room not yet purged
            conn.execute(
                "INSERT INTO rooms (id, options, seed, match, version, seat0, seat1, "
                "first_dealer, first_pack, rematch, secret, moved, keep, expires) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, room.moved_at or now, keep, now + keep))

        await self._write(run)
        self.versions[room.room_id] = room.version

    async def save(self, room_id: str, change: Change, *,
                   waiting: Waiting | None = None) -> None:
        if change.kind == "action" and change.free is None:
            assert change.entry is not None
            await self._write(None, waiting, (room_id, change.version,
                                              encode_entry(change.entry), change.at))
            self.versions[room_id] = change.version
            return
        statements = _statements(change)
        keep = None if change.options is None else self.keep(change.options)

        def run(conn: sqlite3.Connection, now: float) -> None:
            row = conn.execute("SELECT key, version, seat0, seat1, keep FROM rooms "
                               "WHERE id = ? AND expires > ?", (room_id, now)).fetchone()
            stored: int | None = None if row is None else int(row[1])
            if row is None or stored is None or stored + 1 != change.version:
                raise refused(room_id, change.version, stored)
            if change.free is not None and row[2 + change.free] is not None:
                raise SeatTaken(f"room {room_id}: seat {change.free} is taken")
            for sql, args in statements:
                conn.execute(sql, (*args, row[0]))
            kept = row[4] if keep is None else keep
            conn.execute("UPDATE rooms SET version = ?, moved = ?, keep = ?, expires = ? "
                         "WHERE key = ?", (change.version, change.at, kept, now + kept, row[0]))

        await self._write(run, waiting)
        self.versions[room_id] = change.version

    async def claim_seat(self, room_id: str, seat: int, token_hash: str) -> bool:
        column = _SEATS[seat]

        def run(conn: sqlite3.Connection, now: float) -> bool:
            row = conn.execute(f"SELECT {column} FROM rooms WHERE id = ? AND expires > ?",
                               (room_id, now)).fetchone()
            if row is None:
                return False
            if row[0] is None:
                conn.execute(f"UPDATE rooms SET {column} = ? WHERE id = ?",
                             (token_hash, room_id))
                return True
            return secrets.compare_digest(row[0].encode(), token_hash.encode())

        return bool(await self._write(run))

    async def load(self, room_id: str) -> StoredRoom | None:
        try:
            room: StoredRoom | None = await self._read(
                lambda conn, now: read_room(conn, room_id, now))
        except (ValueError, KeyError, TypeError) as exc:
            log.error("room %s: unreadable in the store (%r)", room_id, exc)
            return None
        if room is None:
            self.versions.pop(room_id, None)
        else:
            self.versions[room_id] = room.version
        return room

    async def own(self, room_id: str) -> int:
        """The stored version (-1: gone). This process is the file's only writer, so
        the version it last wrote or read is the stored one."""
        known = self.versions.get(room_id)
        if known is not None:
            return known

        def run(conn: sqlite3.Connection, now: float) -> int:
            row = conn.execute("SELECT version FROM rooms WHERE id = ? AND expires > ?",
                               (room_id, now)).fetchone()
            return -1 if row is None else int(row[0])

        return int(await self._read(run))

    async def listen(self, hand_over: HandOver) -> None:
        """Until cancelled: nobody hands rooms over to one process; expired rooms are
        deleted from the file, at once and then every `purge_seconds`."""
        while True:
            try:
                purged = await self.purge()
                if purged:
                    log.info("store: %d expired rooms deleted from %s", purged, self.path)
            except StoreError as exc:
                log.error("store: expired rooms not deleted: %s", exc)
            await asyncio.sleep(self.purge_seconds)

    async def purge(self) -> int:
        """Delete the expired rooms (and forget their versions: `own` says they are
        gone); how many."""
        def run(conn: sqlite3.Connection, now: float) -> list[str]:
            found = conn.execute("SELECT key, id FROM rooms WHERE expires <= ? LIMIT ?",
                                 (now, PURGE_BATCH)).fetchall()
            for key, _ in found:
                _remove(conn, key)
            return [room_id for _, room_id in found]

        total = 0
        while purged := await self._write(run):
            total += len(purged)
            for room_id in purged:
                self.versions.pop(room_id, None)
        return total

    async def delete(self, room_id: str, version: int) -> None:
        def run(conn: sqlite3.Connection, now: float) -> None:
            row = conn.execute("SELECT key FROM rooms WHERE id = ? AND version = ?",
                               (room_id, version)).fetchone()
            if row is not None:
                _remove(conn, row[0])

        await self._write(run)
        if self.versions.get(room_id) == version:
            del self.versions[room_id]

    async def keep_alive(self, room_ids: Iterable[str]) -> None:
        """The rooms kept `ttl_seconds` from now, or longer if they were already (a slow
        table's expiry is its last write's, never brought nearer)."""
        ids = list(room_ids)

        def run(conn: sqlite3.Connection, now: float) -> None:
            conn.executemany("UPDATE rooms SET expires = max(expires, ?) WHERE id = ?",
                             [(now + self.ttl, room_id) for room_id in ids])

        if ids:
            await self._write(run)

    async def check(self) -> list[str]:
        return []

    # --- the lobby's open tables (app/sqlite_lobby.py) ---------------------------------

    def listed(self) -> list[dict[str, Any]]:
        """The open tables the file holds: read once, as the server starts."""
        with contextlib.closing(connect(self.path, writes=False)) as conn:
            return [json.loads(entry) for (entry,) in conn.execute("SELECT entry FROM lobby")]

    async def keep_listed(self, room_id: str, entry: dict[str, Any] | None) -> None:
        """An open table listed (`entry`, its JSON), or gone from the list (None)."""
        text = None if entry is None else json.dumps(entry)

        def run(conn: sqlite3.Connection, now: float) -> None:
            if text is None:
                conn.execute("DELETE FROM lobby WHERE room = ?", (room_id,))
            else:
                conn.execute("INSERT OR REPLACE INTO lobby (room, entry) VALUES (?, ?)",
                             (room_id, text))

        await self._write(run)

    def figures(self) -> dict[str, Any]:
        """For /healthz?detail=1: the file, its size and its log's, commits and writes."""
        sizes = []
        for suffix in ("", "-wal"):
            try:
                sizes.append(self.path.with_name(self.path.name + suffix).stat().st_size)
            except OSError:
                sizes.append(0)
        return {"file": str(self.path), "bytes": sizes[0], "log_bytes": sizes[1],
                "commits": self.commits, "writes": self.writes}

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.writer.stop()
        self.reader.stop()
        self.stopping.set()
        for thread in (self.writer.thread, self.reader.thread, self.checkpointer):
            await asyncio.to_thread(thread.join, self.patience)
        self.lock_file.close()


def refused(room_id: str, version: int, stored: int | None) -> VersionConflict:
    told = "gone" if stored is None else f"at version {stored}"
    return VersionConflict(f"room {room_id}: write of version {version} refused, the store "
                           f"has it {told}", stored)


def append_all(conn: sqlite3.Connection, jobs: list[Job], now: float) -> None:
    """Seats' actions, each on the version after its room's: three statements for them
    all (the rooms' versions read, the entries added, the versions, times and expiries
    set, each room's by its own keep), the rooms and entries passed as JSON. A job whose
    version is not its room's next gets VersionConflict."""
    ids = json.dumps([job.append[0] for job in jobs if job.append is not None])
    found = conn.execute(
        "SELECT json_group_array(json_array(id, key, version, keep)) FROM rooms "
        "WHERE id IN (SELECT value FROM json_each(?)) AND expires > ?", (ids, now)).fetchone()
    stored = {room_id: (key, version) for room_id, key, version, _ in json.loads(found[0])}
    keeps = {key: keep for _, key, _, keep in json.loads(found[0])}
    entries: list[tuple[int, int, str]] = []
    latest: dict[int, tuple[int, float]] = {}  # a room's key: its version, when made
    for job in jobs:
        assert job.append is not None
        room_id, version, entry, at = job.append
        key, was = stored.get(room_id, (0, None))
        if was is None or was + 1 != version:
            job.error = refused(room_id, version, was)
            continue
        stored[room_id] = (key, version)
        entries.append((key, version, entry))
        latest[key] = (version, at)
    if not entries:
        return
    conn.execute("INSERT INTO actions (room, version, entry) SELECT json_extract(value, '$[0]'), "
                 "json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?)",
                 (json.dumps(entries),))
    rows = [(key, version, at, now + keeps[key]) for key, (version, at) in latest.items()]
    conn.execute("UPDATE rooms SET version = json_extract(v.value, '$[1]'), "
                 "moved = json_extract(v.value, '$[2]'), expires = json_extract(v.value, '$[3]') "
                 "FROM json_each(?) AS v WHERE rooms.key = json_extract(v.value, '$[0]')",
                 (json.dumps(rows),))


def _remove(conn: sqlite3.Connection, key: int) -> None:
    conn.execute("DELETE FROM actions WHERE room = ?", (key,))
    conn.execute("DELETE FROM rooms WHERE key = ?", (key,))


def _statements(change: Change) -> list[tuple[str, tuple[Any, ...]]]:
    """What a change writes, each statement's last parameter the room's key (the version
    and expiry are written after them)."""
    if change.kind == "action":
        assert change.entry is not None
        return [("INSERT INTO actions (version, entry, room) VALUES (?, ?, ?)",
                 (change.version, encode_entry(change.entry)))]
    if change.kind == "rematch":
        return [("UPDATE rooms SET rematch = ? WHERE key = ?",
                 (json.dumps(list(change.rematch)),))]
    fields = {"seed": str(change.seed), "match": change.match,
              "first_dealer": change.first_dealer,
              "first_pack": " ".join(change.first_pack) if change.first_pack else None,
              "rematch": "[]"}
    if change.options is not None:
        fields["options"] = json.dumps(change.options)
    if change.claim is not None:
        fields[_SEATS[change.claim[0]]] = change.claim[1]
    assignments = ", ".join(f"{name} = ?" for name in fields)
    return [("DELETE FROM actions WHERE room = ?", ()),
            (f"UPDATE rooms SET {assignments} WHERE key = ?", tuple(fields.values()))]
