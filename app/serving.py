"""The connection limits uvicorn lacks: a deadline for a request's head, and caps on
connections in all and from one address (issue 15, docs/reliability.md).

uvicorn closes an idle keep-alive connection after `timeout_keep_alive`, but arms that
timer only once a response is complete: a connection that never finishes its first
request head is held for ever. 1,100 such sockets, opened in 0.04 s, used up a 1,024
file limit, and nobody was served for as long as they were held. Its one cap,
`limit_concurrency`, answers 503 to new HTTP requests once that many connections are
open, idle ones included, and does not count WebSocket upgrades against itself: it
turns the same attack into a 503 for everyone.

So the table serves HTTP with `GuardedH11`, uvicorn's own h11 protocol with three
additions, none of which touch a request that is going well:

- a connection that has not sent a whole request head within `header_timeout` seconds
  of opening (or of its last response) is closed; so is one that sends a body more
  slowly than that;
- a new connection beyond `max_connections` open in all is closed at once, so the file
  limit (raised to its hard limit at start, `raise_file_limit`) is never reached;
- a new connection from an address that already holds `max_connections_per_address` is
  closed at once, unless that address is a trusted proxy (FORWARDED_ALLOW_IPS, as for
  uvicorn's proxy headers), whose connections carry many visitors.

Behind a front proxy, the proxy's own limits do this job first (README.md).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import Any

import h11
from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from app.settings import Settings

log = logging.getLogger("piquet.serving")

# Refusals are logged at most this often (with a count), not once per connection.
REFUSAL_LOG_SECONDS = 10.0


class _Refusals:
    """Counts connections closed by the caps, and logs them now and then."""

    def __init__(self) -> None:
        self.count = 0
        self.logged_at = 0.0

    def note(self, why: str) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.logged_at >= REFUSAL_LOG_SECONDS:
            log.warning("refused %d connection(s) in the last %.0f s; latest: %s",
                        self.count, REFUSAL_LOG_SECONDS, why)
            self.count = 0
            self.logged_at = now


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol, with the deadline and the caps (see the module's docstring).
    `guarded_h11(settings)` makes the subclass with the limits filled in."""

    header_timeout: float = 10.0
    max_connections: int = 4000
    max_connections_per_address: int = 100
    refusals: _Refusals = _Refusals()
    _trusted: _TrustedHosts | None = None

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        cls = type(self)
        if cls._trusted is None:
            cls._trusted = _TrustedHosts(config.forwarded_allow_ips)
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_since = 0.0  # when the connection began to wait for a request head
        self._slow_cycle: object = None  # a request whose body was still coming at a look

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        why = self._over_cap()
        if why is not None:
            self.refusals.note(why)
            transport.abort()
            return
        self._waiting_since = self.loop.time()
        self._deadline = self.loop.call_later(self.header_timeout, self._look)

    def _over_cap(self) -> str | None:
        connections = self.connections  # every open one, WebSockets included; this one too
        if len(connections) > self.max_connections:
            return f"{len(connections) - 1} connections open (max_connections)"
        host = self.client[0] if self.client else None
        if len(connections) <= self.max_connections_per_address or host in self._trusted_hosts:
            return None
        mine = sum(1 for c in connections if (getattr(c, "client", None) or ("",))[0] == host)
        if mine > self.max_connections_per_address:
            return f"{mine - 1} connections open from {host} (max_connections_per_address)"
        return None

    @property
    def _trusted_hosts(self) -> _TrustedHosts:
        assert self._trusted is not None
        return self._trusted

    def on_response_complete(self) -> None:
        self._waiting_since = self.loop.time()
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)

    def _look(self) -> None:
        """Every header_timeout: close the connection if it is stuck before or in a
        request's head, or in a body that has not moved on since the last look."""
        self._deadline = None
        transport = self.transport
        if transport.is_closing() or transport.get_protocol() is not self:
            return  # closed, or now a WebSocket (which has pings of its own)
        now = self.loop.time()
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            # A request is being answered. Its body still coming at two looks running
            # (header_timeout apart) is a client too slow to be waited for.
            if self.conn.their_state is h11.SEND_BODY:
                if self._slow_cycle is cycle:
                    self._close("request body not sent in time")
                    return
                self._slow_cycle = cycle
            wait = self.header_timeout
        else:
            waited = now - self._waiting_since
            if waited >= self.header_timeout:
                self._close("request head not sent in time")
                return
            wait = self.header_timeout - waited
        self._deadline = self.loop.call_later(wait, self._look)

    def _close(self, why: str) -> None:
        log.debug("closing connection from %s: %s", self.client, why)
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True
        self.transport.abort()


def guarded_h11(settings: Settings, max_connections: int | None = None) -> type[GuardedH11]:
    """GuardedH11 with this server's limits (a class: uvicorn makes one per connection);
    `max_connections`, if given, in place of the setting (see `connection_cap`)."""
    return type("GuardedH11", (GuardedH11,), {
        "header_timeout": settings.header_timeout,
        "max_connections": max_connections or settings.max_connections,
        "max_connections_per_address": settings.max_connections_per_address,
        "refusals": _Refusals(),
        "_trusted": None,
    })


# Files the process needs besides its connections: the listening socket, logs, templates,
# the event loop's own, a margin.
SPARE_FILES = 64


def connection_cap(settings: Settings) -> int:
    """max_connections, after raising the file limit for it: lowered (with a warning) if
    the hard limit leaves no room, so that accepting never fails for want of a file."""
    limit = raise_file_limit(settings.max_connections + SPARE_FILES)
    if limit - SPARE_FILES < settings.max_connections:
        cap = max(16, limit - SPARE_FILES)
        log.warning("open-file limit %d: max_connections lowered from %d to %d",
                    limit, settings.max_connections, cap)
        return cap
    return settings.max_connections


def raise_file_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards `wanted` (up to the hard limit);
    returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return int(soft) if soft != resource.RLIM_INFINITY else wanted
