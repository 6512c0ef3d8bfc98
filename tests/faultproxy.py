"""A TCP proxy that can lose an answer: between a client and a real server on loopback,
in a thread of its own. `lose_answer_to(b"EVALSHA")` makes it swallow the answer to the
next request holding those bytes and cut that client's connection, as when Redis dies
after applying a write and before its answer leaves, or the network fails just then."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from tests.serverproc import HOST, free_port


class FaultProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.url = f"redis://{HOST}:{self.port}/0"
        self._lose: bytes | None = None
        self.lost = 0  # answers swallowed
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fault-proxy", daemon=True)

    def start(self) -> FaultProxy:
        self._thread.start()
        self._ready.wait(10)
        return self

    def lose_answer_to(self, marker: bytes) -> None:
        self._lose = marker

    def stop(self) -> None:
        async def shut() -> None:
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()
            self._loop.stop()

        asyncio.run_coroutine_threadsafe(shut(), self._loop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, HOST, self.port))
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(HOST, self.target_port)
        except OSError:
            client_w.close()
            return

        doomed = False  # the next answer on this connection is to be lost

        async def up() -> None:
            nonlocal doomed
            while data := await client_r.read(65536):
                if self._lose is not None and self._lose in data:
                    self._lose = None
                    doomed = True
                server_w.write(data)
                await server_w.drain()

        async def down() -> None:
            while data := await server_r.read(65536):
                if doomed:
                    self.lost += 1
                    client_w.transport.abort()  # the answer never arrives
                    return
                client_w.write(data)
                await client_w.drain()

        with contextlib.suppress(OSError, ConnectionError):
            await asyncio.wait([asyncio.ensure_future(up()), asyncio.ensure_future(down())],
                               return_when=asyncio.FIRST_COMPLETED)
        for writer in (client_w, server_w):
            writer.close()
