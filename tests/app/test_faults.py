"""Faults over real sockets (issue 6): a client that stops reading, a socket cut in the
middle of an action, a burst of reconnects, a client faster than the rate limit, and a
server shutdown. Each test runs its own `python -m app` on loopback (livekit.py).

What is already covered elsewhere is not repeated: test_limits.py drops a stalled
socket at the Room level and test_bad_input.py closes a pinging flood with 1008
through the TestClient; here the same faults meet uvicorn and the kernel's buffers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from livekit import LiveSeat, LiveServer, RawSeat, live_server
from tablekit import SeatSocket, new_room, next_move, serve
from websockets.exceptions import ConnectionClosed

from app.connection import CLOSE_TIMEOUT
from app.registry import RoomRegistry
from tests.serverproc import children, session_members


async def play_step(a: LiveSeat, b: LiveSeat, rng: random.Random,
                    *watchers: LiveSeat) -> None:
    """One action ("Play again" by each seat once the partie is over); every socket sees
    version + 1."""
    if a.view["phase"] == "partie_over":
        who = b if a.seat in a.state["room"]["rematch"] else a
        text = json.dumps({"type": "new_match", "version": who.version, "id": who.next_id()})
    else:
        who, action = next_move(a, b, rng)  # type: ignore[arg-type]
        text = who.action_text(action)
    before = who.version
    await who.ws.send(text)
    for seat in (a, b, *watchers):
        assert (await seat.expect("state"))["version"] == before + 1


async def open_pair(server: LiveServer) -> tuple[str, tuple[str, str], LiveSeat, LiveSeat]:
    room_id, t0, t1 = server.friend_room()
    a = await LiveSeat.open(server, room_id, t0)
    await a.expect("state")
    b = await LiveSeat.open(server, room_id, t1)
    await b.expect("state")
    return room_id, (t0, t1), a, b


# --- a client that stops reading ---------------------------------------------------------


def test_a_client_that_stops_reading_is_dropped_and_the_table_plays_on(tmp_path: Path) -> None:
    """Seat 0 has two windows: one stops reading (a frozen tab), one plays on. The
    kernel's buffers and uvicorn's fill up, a write to the stalled socket waits, and once
    it is more changes behind than its queue size it is dropped; meanwhile every action
    of the live sockets is answered at once. The dropped socket does not linger half
    open: when its client reads again it finds the backlog and then the end of the
    connection (1013, or the connection simply closed)."""
    # No keepalive within the test (a ping interval of an hour): on a busy machine the
    # buffers may take longer than three intervals to fill, and a silent socket is then
    # closed for not answering pings (4408) before it is ever behind.
    with live_server(tmp_path, PIQUET_SEND_QUEUE_SIZE="8", PIQUET_PING_INTERVAL="3600") as server:

        async def scenario() -> RawSeat:
            room_id, tokens, a, b = await open_pair(server)
            stalled = RawSeat(server, room_id, tokens[0])  # reads nothing from now on
            await b.expect("presence")
            rng = random.Random(61)
            actions = 0
            while "drop room=" not in server.log():
                await play_step(a, b, rng)
                actions += 1
                assert actions < 6000, "the stalled socket was never dropped"
            # Past the point where the stalled socket's buffers were full, the room went
            # on; it goes on after the drop too.
            for _ in range(20):
                await play_step(a, b, rng)
            # Seat 0 is still there, through its other window.
            assert b.state["room"]["seats"][0]["connected"] is True
            await a.ws.close()
            await b.ws.close()
            return stalled

        stalled = asyncio.run(scenario())
        assert re.search(r"drop room=\S+ seat=0: \d+ changes behind", server.log())
        # The client still reads nothing: the close frame cannot get out, and the try
        # gives up after CLOSE_TIMEOUT. The socket's handler ends all the same (the drop
        # cancels its reader), so the server lets the connection go: two seat-0 sockets gone.
        time.sleep(CLOSE_TIMEOUT + 0.5)
        deadline = time.monotonic() + 10
        while len(re.findall(r"disconnect room=\S+ seat=0", server.log())) < 2:
            assert time.monotonic() < deadline, "the dropped socket is still served"
            time.sleep(0.05)
        stalled.read_all(timeout=10)
        assert stalled.frames, "the backlog was lost"
        if stalled.close_frame is not None:
            assert struct.unpack("!H", stalled.close_frame.data[:2])[0] == 1013
        else:
            assert stalled.eof, "the dropped socket was left open"
        stalled.close()


# --- a socket cut in the middle of an action ---------------------------------------------


def cut(raw: RawSeat, data: bytes) -> None:
    """Send `data` and cut the connection: a reset, no closing handshake."""
    if data:
        raw.sock.sendall(data)
    raw.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    raw.close()


def test_a_socket_cut_in_the_middle_of_an_action_applies_it_once_or_not_at_all(
    tmp_path: Path,
) -> None:
    """The acting seat's connection is cut while it sends an action: after a random
    number of the frame's bytes (none, part of the header, part of the JSON, all of it),
    or, with the `websockets` client, just after the whole frame went out. On
    reconnecting, the version says whether the action was applied; resending the very
    same message (same id, same version) never applies it a second time."""
    with live_server(tmp_path) as server:

        async def scenario() -> dict[str, int]:
            room_id, tokens, a, b = await open_pair(server)
            await a.expect("presence")
            rng = random.Random(63)
            outcomes = {"applied": 0, "not applied": 0}
            for trial in range(60):
                who, action = next_move(a, b, rng)  # type: ignore[arg-type]
                other = b if who is a else a
                version = who.version
                text = who.action_text(action, f"cut-{trial}")
                if trial % 3 == 0:
                    cutter = await LiveSeat.open(server, room_id, tokens[who.seat])
                    await cutter.expect("state")
                    await cutter.ws.send(text)
                    cutter.ws.transport.abort()  # type: ignore[attr-defined]
                else:
                    raw = RawSeat(server, room_id, tokens[who.seat])
                    raw.proto.send_text(text.encode())
                    frame = b"".join(raw.proto.data_to_send())
                    cut(raw, frame[: rng.randint(0, len(frame))])
                again = await LiveSeat.open(server, room_id, tokens[who.seat])
                seen = (await again.expect("state"))["version"]
                assert seen in (version, version + 1), (version, seen)
                await again.ws.send(text)  # the page resends what it had not seen answered
                if seen == version + 1:
                    outcomes["applied"] += 1
                    error = await again.answer()
                    assert error["type"] == "error" and error["code"] == "duplicate_id", error
                    assert (await again.expect("state"))["version"] == version + 1
                else:
                    outcomes["not applied"] += 1
                    assert (await again.answer())["version"] == version + 1
                # Exactly one new state reached the other seat and the old windows.
                for seat in (other, who):
                    assert (await seat.expect("state"))["version"] == version + 1
                await again.ws.close()
            # Nothing more is on its way: no state was sent twice.
            for seat in (a, b):
                await seat.ws.send('{"type": "ping"}')
                assert await seat.answer() == {"type": "pong"}
                await seat.ws.close()
            return outcomes

        outcomes = asyncio.run(scenario())
        print(f"cut in the middle of an action: {outcomes}")
        assert sum(outcomes.values()) == 60
        assert outcomes["not applied"] > 0 and outcomes["applied"] > 0


# --- a burst of reconnects ---------------------------------------------------------------


def test_a_burst_of_reconnects_to_one_room(tmp_path: Path) -> None:
    """Sixty sockets for seat 0 in waves of twelve, half cut without a goodbye: each
    gets the current state, the oldest past four per seat are closed 4409, the other
    seat keeps playing, and once the burst is over nothing of it is left in the server."""
    with live_server(tmp_path, PIQUET_LOG_LEVEL="warning") as server:

        async def scenario() -> None:
            room_id, tokens, a, b = await open_pair(server)
            await a.expect("presence")
            rng = random.Random(64)
            for _ in range(4):
                await play_step(a, b, rng)
            await a.ws.close()
            await b.expect("presence")
            await asyncio.sleep(0.3)
            fds_before = server.open_fds()
            replaced = 0
            for wave in range(5):
                burst = await asyncio.gather(
                    *(LiveSeat.open(server, room_id, tokens[0]) for _ in range(12)))
                for sock in burst:
                    assert (await sock.expect("state"))["version"] == b.version
                # Four stay per seat; the others were told a newer window took the seat.
                for sock in burst:
                    try:
                        while True:  # presence frames, until quiet or closed
                            frame = await sock.recv(timeout=0.3)
                            assert frame["type"] in ("presence", "ping"), frame
                    except TimeoutError:
                        continue
                    except ConnectionClosed as exc:
                        assert exc.rcvd is not None and exc.rcvd.code == 4409, exc
                        replaced += 1
                for i, sock in enumerate(burst):
                    if i % 2:
                        sock.ws.transport.abort()  # type: ignore[attr-defined]
                    else:
                        await sock.ws.close()
                # Seat 1 is answered at once between waves.
                await b.ws.send('{"type": "ping"}')
                assert await b.answer() == {"type": "pong"}, wave
            assert replaced >= 5 * (12 - 4) - 5  # all but a few raced with the cut
            # The last presence seat 1 had says seat 0 is gone.
            deadline = time.monotonic() + 10
            while b.frames[-1].get("type") != "presence" or \
                    b.frames[-1]["seats"][0]["connected"]:
                assert time.monotonic() < deadline, b.frames[-3:]
                with contextlib.suppress(TimeoutError):
                    await b.recv(timeout=0.5)
            deadline = time.monotonic() + 10
            while server.open_fds() > fds_before:
                assert time.monotonic() < deadline, (fds_before, server.open_fds())
                await asyncio.sleep(0.1)
            # Seat 0 comes back once and the partie goes on.
            a = await LiveSeat.open(server, room_id, tokens[0])
            assert (await a.expect("state"))["version"] == b.version
            for _ in range(6):
                await play_step(a, b, rng)
            for sock in (a, b):
                await sock.ws.close()

        asyncio.run(scenario())
        assert "Traceback" not in server.log()


# --- a client faster than the rate limit -------------------------------------------------


def test_a_flood_of_actions_is_cut_off_and_applied_at_most_once(tmp_path: Path) -> None:
    """Real sockets, a flood of actions (not pings): the first applies, copies made on
    the same version are refused stale, then the limit closes the socket with 1008.
    The other seat saw one change and stays; the flooder comes back and play goes on."""
    with live_server(tmp_path, PIQUET_RATE_LIMIT_PER_SECOND="5",
                     PIQUET_RATE_LIMIT_BURST="10") as server:

        async def scenario() -> None:
            room_id, tokens, a, b = await open_pair(server)
            await a.expect("presence")
            rng = random.Random(65)
            who, action = next_move(a, b, rng)  # type: ignore[arg-type]
            other = b if who is a else a
            version = who.version
            start = len(who.frames)
            await asyncio.gather(*(who.ws.send(who.action_text(action)) for _ in range(40)))
            code, reason = await who.closed()
            assert code == 1008, (code, reason)
            flood = [f for f in who.frames[start:] if f["type"] != "presence"]
            kinds = [(f["type"], f.get("code")) for f in flood]
            assert kinds.count(("error", "rate_limited")) == 1
            assert kinds[-1] == ("error", "rate_limited")
            # The burst of ten, less the connection and the one applied (and one more if
            # the bucket refilled, at 5 a second, while the presence came: 0.25 s).
            assert kinds.count(("error", "stale_version")) in (8, 9)
            versions = {f["version"] for f in flood if f["type"] == "state"}
            assert versions == {version + 1}
            # The other seat: one new state, then the flooder's seat goes away; open still.
            assert (await other.expect("state"))["version"] == version + 1
            gone = await other.expect("presence")
            assert gone["seats"][who.seat]["connected"] is False
            # The limit is the seat's, across sockets: back after a second's pause.
            await asyncio.sleep(1)
            back = await LiveSeat.open(server, room_id, tokens[who.seat])
            assert (await back.expect("state"))["version"] == version + 1
            assert (await other.expect("presence"))["seats"][who.seat]["connected"] is True
            pair = (back, other) if who.seat == 0 else (other, back)
            for _ in range(4):
                await asyncio.sleep(0.25)  # a person's pace, under the limit
                await play_step(*pair, rng)
            for sock in pair:
                await sock.ws.close()

        asyncio.run(scenario())


# --- server shutdown ---------------------------------------------------------------------


def test_sigterm_closes_every_socket_with_1012_and_a_restart_forgets_rooms(
    tmp_path: Path,
) -> None:
    server = LiveServer(tmp_path / "server.log", PIQUET_STORE="memory").start()
    try:

        async def open_sockets() -> tuple[list[LiveSeat], tuple[str, str]]:
            room_id, tokens, a, b = await open_pair(server)
            made = server.post("/api/rooms", {"opponent": "computer"})
            c = await LiveSeat.open(server, made["room_id"], made["token"])
            await c.expect("state")
            return [a, b, c], (room_id, tokens[0])

        async def scenario() -> tuple[str, str]:
            sockets, old = await open_sockets()
            stopping = asyncio.create_task(asyncio.to_thread(server.stop))
            codes = [await sock.closed(timeout=15) for sock in sockets]
            assert [c for c, _ in codes] == [1012, 1012, 1012], codes
            assert all(r == "The server is restarting." for _, r in codes), codes
            await stopping
            return old

        room_id, token = asyncio.run(scenario())
        assert server.proc is not None and server.proc.returncode in (0, -15)
        assert "Application shutdown complete" in server.log()
        # The same port again: rooms lived in memory only (PIQUET_STORE=memory), so the
        # old room is unknown.
        server.start()

        async def after_restart() -> tuple[int | None, str]:
            sock = await LiveSeat.open(server, room_id, token)
            return await sock.closed()

        code, reason = asyncio.run(after_restart())
        assert code == 4404 and "No such table" in reason
    finally:
        server.kill()


def test_a_move_sent_while_the_server_stops_is_answered(templates_dir: Path) -> None:
    """SIGTERM makes the rooms take no more moves (app/__main__.py): one that arrives
    then is answered "unavailable" with the state, never left without a word before the
    socket's 1012."""
    with serve(templates_dir) as client:
        made = new_room(client, "computer")
        sock = SeatSocket(client, made["room_id"], made["token"])
        sock.connect()
        client.app.state.rooms.stop_taking_actions()  # type: ignore[attr-defined]
        sock.send({"type": "new_match", "version": sock.version, "id": "late"})
        refused = sock.recv()
        while refused["type"] != "error":  # (the computer's first move may come first)
            refused = sock.recv()
        assert refused["code"] == "unavailable", refused
        assert "nothing changed" in refused["message"]
        assert sock.expect("state")["version"] == refused["version"]


def test_the_lifespan_closes_what_is_still_open_with_1012(
    templates_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Behind uvicorn, the server closes its sockets (1012) before the app's shutdown;
    the app's shutdown then closes every room, and any socket still attached, with 1012."""
    codes: list[int] = []
    close_all = RoomRegistry.close_all

    async def spy(self: RoomRegistry, code: int, reason: str) -> None:
        codes.append(code)
        await close_all(self, code, reason)

    monkeypatch.setattr(RoomRegistry, "close_all", spy)
    with serve(templates_dir) as client:
        made = new_room(client, "computer")
        rooms: RoomRegistry = client.app.state.rooms  # type: ignore[attr-defined]
        room = rooms.get(made["room_id"])
        sock = SeatSocket(client, made["room_id"], made["token"])
        sock.connect()
        # What the lifespan does at shutdown, while this socket is open.
        client.portal.call(rooms.close_all, 1012, "The server is restarting.")  # type: ignore[union-attr]
        code, reason = sock.expect_closed()
        assert code == 1012 and "restarting" in reason
        assert room is not None and room.closed and len(rooms) == 0
        assert client.get(f"/r/{made['room_id']}").status_code == 404
        codes.clear()
    assert codes == [1012]  # the lifespan's own call, on leaving


def _worker_pids(pid: int) -> set[int]:
    """The server's computer workers: its children started by multiprocessing's spawn."""
    return {c for c in children(pid) if _running(c) and b"spawn_main" in _cmdline(c)}


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return b""


def _running(pid: int) -> bool:
    """Alive, and not a zombie (an exited orphan that no init has reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.parametrize("moment", ["made", "first_worker", "workers_up"])
def test_a_killed_server_leaves_no_computer_worker_behind(tmp_path: Path, moment: str) -> None:
    """SIGKILL (the out-of-memory killer's way) leaves the server no time to stop its pool
    of computer workers: they end on their own when it is gone, instead of waiting on their
    queue for ever and piling up with each restart. Killed at several moments of the
    workers' start: as the pool is made, as soon as a worker process exists (before it
    has re-imported and run its initializer), and once both are up. The server runs in a
    session of its own, so every process it started (workers, multiprocessing's resource
    tracker) is found by session even once orphaned."""
    server = LiveServer(tmp_path / "server.log", new_session=True,
                        PIQUET_COMPUTER_WORKERS="2").start()
    try:
        assert server.proc is not None
        pid = server.proc.pid
        server.post("/api/rooms", {"opponent": "computer", "level": "good"})
        deadline = time.monotonic() + 60
        want = {"made": 0, "first_worker": 1, "workers_up": 2}[moment]
        while len(_worker_pids(pid)) < want and time.monotonic() < deadline:
            time.sleep(0.002)
        assert len(_worker_pids(pid)) >= want, f"the good table started no {want} workers"
        server.proc.kill()
        server.proc.wait()
        deadline = time.monotonic() + 60
        while session_members(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = {p: _cmdline(p) for p in session_members(pid)}
        assert not left, f"killed at {moment!r}, these outlived their server: {left}"
    finally:
        server.kill()
        for p in session_members(server.proc.pid if server.proc else -1):
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)


def test_the_computer_thinks_below_the_server_and_teaching_below_both(tmp_path: Path) -> None:
    """The event loop serves every table, so a machine full of searches must still give it
    the CPU first: the computer's workers run at a lower priority than the server (nice
    +5), and the teaching workers (hints, reviews) lower still (+10)."""
    server = LiveServer(tmp_path / "server.log", PIQUET_COMPUTER_WORKERS="2").start()
    try:
        assert server.proc is not None
        pid = server.proc.pid
        base = os.getpriority(os.PRIO_PROCESS, pid)
        server.post("/api/rooms", {"opponent": "computer", "level": "good"})
        deadline = time.monotonic() + 60
        nice: dict[int, int] = {}
        while time.monotonic() < deadline:
            nice = {}
            for worker in _worker_pids(pid):
                with contextlib.suppress(ProcessLookupError):
                    nice[worker] = os.getpriority(os.PRIO_PROCESS, worker)
            if len(nice) == 2 and all(n != base for n in nice.values()):
                break  # (each sets its own priority once it has started)
            time.sleep(0.05)
        assert sorted(nice.values()) == [min(base + 5, 19)] * 2, (base, nice)
    finally:
        server.kill()
    code = ("import os; from app.pools import {f}; {f}(os.getppid()); "
            "print(os.getpriority(os.PRIO_PROCESS, 0))")
    for initializer, step in (("computer_worker", 5), ("coach_worker", 10)):
        out = subprocess.run([sys.executable, "-c", code.format(f=initializer)],
                             capture_output=True, text=True, timeout=60, check=True,
                             cwd=Path(__file__).resolve().parents[2])
        assert int(out.stdout) == min(os.getpriority(os.PRIO_PROCESS, 0) + step, 19)
