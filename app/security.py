"""What every HTTP answer carries and every state-changing request must pass (issue 15).

`Guard` is a plain ASGI middleware (not Starlette's BaseHTTPMiddleware, which would sit
in every WebSocket's path too): on each HTTP request it

- refuses a POST sent by another site's page (`Sec-Fetch-Site`, else `Origin`): 403;
- refuses a request body larger than `max_body_bytes`: 413, counted as it arrives, so a
  body without `Content-Length` is held to the same limit;
- adds the headers below to every answer: a Content-Security-Policy that lets the pages
  load only the site's own scripts, styles and sockets, and no one frame them;
  `nosniff`; `no-referrer` (a table's link is its secret); `no-store` on everything but
  the static files (a table page is one person's seat).

Also here: `RateLimit`, the token bucket a seat's messages and a client's new rooms draw
from, and `ClientLimits`, one bucket per client address for making rooms; `WatchLimits`,
the watchers' allowances (by address, per table and across tables); what a room id
looks like (`well_formed_room_id`); and `loggable`, which makes a client's text safe to
write in a log line.
"""

from __future__ import annotations

import re
import time
import weakref
from collections import Counter, OrderedDict
from typing import Protocol
from urllib.parse import urlsplit

import orjson
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.i18n import N_, _
from engine.cards import CARD_NAMES

# 'self' covers ws:// and wss:// to this host in CSP Level 3 (every current browser).
# img-src data: is the inline favicon. No inline script or style runs: the one inline
# <script> is type="application/json" data, which CSP does not block.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers that predate it
]
NO_STORE = (b"cache-control", b"no-store")
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Sec-Fetch-Site values a page of ours (or the person, typing or from a bookmark) sends.
OWN_SITE = frozenset({"same-origin", "none"})


# A room id as the server makes them (app/registry.py, new_room_id: secrets.token_urlsafe(12),
# 16 characters of URL-safe base64). Anything else is refused before it is logged, looked
# up or sent to the store: a line break in it would write a log line of the sender's
# making, and a brace would move a Redis Cluster hash tag.
ROOM_ID = re.compile(r"[A-Za-z0-9_-]{16}")
NOT_A_ROOM = N_("No such table: that is not a table's address.")


def well_formed_room_id(room_id: str) -> bool:
    return ROOM_ID.fullmatch(room_id) is not None


# What a log line must not hold raw: control characters (C0, DEL, C1: a line break would
# start a line of the sender's making, an escape sequence would drive the terminal), the
# line and paragraph separators, and the marks that reorder text on screen.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e"
                     "\u2066-\u2069]")


def _escape(found: re.Match[str]) -> str:
    code = ord(found[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def loggable(text: str) -> str:
    """`text` with every character a log line must not hold raw written as an escape
    (`\\x0a`, `\\u2028`): one line, whatever a client sent."""
    return _UNSAFE.sub(_escape, text)


# A card by code ("QH", "10s": a client may write it either way) or by name, and where
# a refusal's list of what the seat may do begins (engine/rules.py, `_refusal`).
_CARD = re.compile("(?<![A-Za-z0-9])(?:10|[AKQJ987])[SHDC](?![A-Za-z0-9])|"
                   + "|".join(re.escape(name) for name in CARD_NAMES.values()), re.IGNORECASE)
_ALLOWED = "; allowed:"


def card_free(text: str) -> str:
    """`text` with no card in it, for a log line: a refusal's list of what the seat may
    do (its legal cards, its calls) is cut off, and any card it names is written `(card)`.
    The seat itself gets the whole message; a log names no card a seat holds."""
    cut = text.find(_ALLOWED)
    if cut >= 0:
        text = text[:cut]
    return _CARD.sub("(card)", text)


class Allowance(Protocol):
    """What a socket's messages draw on: a seat's bucket, or a watcher's (app/ws.py)."""

    def take(self, now: float | None = None) -> bool: ...


class RateLimit:
    """A token bucket: `per_second` on average, `burst` at once."""

    __slots__ = ("at", "burst", "per_second", "tokens")

    def __init__(self, per_second: float, burst: float, now: float | None = None) -> None:
        self.per_second = per_second
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic() if now is None else now

    def take(self, now: float | None = None) -> bool:
        self.refill(time.monotonic() if now is None else now)
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.at) * self.per_second >= self.burst


class ClientLimits:
    """One bucket per client address (the forwarded one behind a trusted proxy: uvicorn's
    ProxyHeadersMiddleware has put it in `request.client`). Buckets that have filled up
    again are forgotten, and at most `max_clients` are kept, so the map stays small."""

    def __init__(
        self, per_minute: float, burst: int, *, max_clients: int = 10_000
    ) -> None:
        self.per_second = per_minute / 60
        self.burst = burst
        self.max_clients = max_clients
        self.buckets: OrderedDict[str, RateLimit] = OrderedDict()

    def take(self, client: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        return self.bucket(client, now).take(now)

    def bucket(self, client: str, now: float) -> RateLimit:
        """This client's bucket (a new, full one if none is kept: a bucket is forgotten
        only once full, so forgetting it gives nobody more)."""
        bucket = self.buckets.get(client)
        if bucket is None:
            self._forget_full(now)
            bucket = self.buckets[client] = RateLimit(self.per_second, self.burst, now)
        self.buckets.move_to_end(client)
        return bucket

    def _forget_full(self, now: float) -> None:
        while len(self.buckets) >= self.max_clients:
            self.buckets.popitem(last=False)  # the least recently seen
        if len(self.buckets) > 64:
            for client in [c for c, b in self.buckets.items() if b.full(now)]:
                del self.buckets[client]


def take_from_all(buckets: tuple[RateLimit, ...], now: float | None = None) -> bool:
    """One token from each bucket, or from none if any is empty."""
    now = time.monotonic() if now is None else now
    for bucket in buckets:
        bucket.refill(now)
    if any(bucket.tokens < 1 for bucket in buckets):
        return False
    for bucket in buckets:
        bucket.tokens -= 1
    return True


TOO_MANY_ROOMS = N_("You have made many tables in a short time. "
                    "Please wait a minute before making another.")


def may_make_room(request: Request) -> bool:
    """Take one from this client's allowance of new rooms (False: none left just now).
    Behind a proxy in FORWARDED_ALLOW_IPS, uvicorn has put the forwarded address in
    `request.client`; anyone else's X-Forwarded-For is ignored."""
    limits: ClientLimits = request.app.state.room_limits
    return limits.take(request.client.host if request.client else "?")


def origin_allowed(origin: str | None, host: str | None, allowed: list[str]) -> bool:
    """Browsers always send Origin on a WebSocket and on a cross-site POST; other clients
    (bots, curl) need not. With no list configured, the page must come from the host it
    connects to, which stops another site's page from using a visitor's seat cookie."""
    if origin is None:
        return True
    origin = origin.rstrip("/").lower()
    if allowed:
        return origin in allowed
    return host is not None and urlsplit(origin).netloc == host.lower()


def foreign_request(headers: dict[bytes, bytes], allowed: list[str]) -> str | None:
    """Why a state-changing request comes from another site's page, or None if it does not.

    Every current browser says where a request comes from in `Sec-Fetch-Site`, and that
    decides. `Origin` is the fallback for older ones; it cannot come first, because under
    our `Referrer-Policy: no-referrer` a browser sends `Origin: null` with a form posted
    from our own page. A client that sends neither is not a browser acting for someone
    else's page, and holds no visitor's cookie to abuse.
    """
    site = headers.get(b"sec-fetch-site", b"").decode("latin-1").lower()
    origin_raw = headers.get(b"origin")
    origin = origin_raw.decode("latin-1") if origin_raw is not None else None
    host_raw = headers.get(b"host")
    host = host_raw.decode("latin-1") if host_raw is not None else None
    if site:
        if site in OWN_SITE:
            return None
        if origin and allowed and origin_allowed(origin, host, allowed):
            return None  # a page of ours on a sibling host, listed in allowed_origins
        return f"Sec-Fetch-Site: {site}"
    if not origin_allowed(origin, host, allowed):
        return f"Origin: {origin}"
    return None


class Guard:
    """The ASGI middleware (see the module's docstring)."""

    def __init__(self, app: ASGIApp, *, allowed_origins: list[str], max_body_bytes: int) -> None:
        self.app = app
        self.allowed_origins = allowed_origins
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        extra = list(PAGE_HEADERS)
        if not path.startswith("/static/"):
            extra.append(NO_STORE)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (name, value) for name, value in extra if name not in present
                ]
            await send(message)

        headers = dict(scope["headers"])
        if scope["method"] in STATE_CHANGING:
            why = foreign_request(headers, self.allowed_origins)
            if why is not None:
                await _refuse(scope, send_with_headers, 403,
                              _("Refused: this request was sent by another site's page "
                                "({why}).", why=why))
                return
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body_bytes):
            await _refuse(scope, send_with_headers, 413, self._too_large)
            return
        if scope["method"] not in STATE_CHANGING:
            await self.app(scope, receive, send_with_headers)
            return
        # The body is read here, up to the limit, and handed on whole: a body sent without
        # Content-Length is held to the same limit, and refused with the same clear 413
        # (from inside the app, a failed read would be a parser's 400).
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.max_body_bytes:
                await _refuse(scope, send_with_headers, 413, self._too_large)
                return
            if not message.get("more_body", False):
                break
        handed = False

        async def replay() -> Message:
            nonlocal handed
            if handed:
                return await receive()  # after the body: only a disconnect comes
            handed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send_with_headers)

    @property
    def _too_large(self) -> str:
        return _("Request body too large; the limit is {most} bytes.",
                 most=self.max_body_bytes)


async def _refuse(scope: Scope, send: Send, status: int, message: str) -> None:
    """A clear refusal: JSON for the API (as FastAPI's own errors), plain text otherwise."""
    if scope["path"].startswith("/api/"):
        body, kind = orjson.dumps({"detail": message}), b"application/json"
    else:
        body, kind = message.encode(), b"text/plain; charset=utf-8"
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())],
    })
    await send({"type": "http.response.body", "body": body})


class RoomWatchers:
    """What one table keeps about its watchers, by client address: a bucket each (their
    sockets' openings and messages), and how many sockets each has watching."""

    __slots__ = ("limits", "open")

    def __init__(self, per_second: float, burst: int) -> None:
        self.limits = ClientLimits(per_second * 60, burst, max_clients=1024)
        self.open: Counter[str] = Counter()

    def left(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


class WatchLimits:
    """A watching socket holds no seat whose bucket it could share, so watchers' allowances
    are kept by client address (the forwarded one behind a trusted proxy): one bucket per
    (table, address), kept as long as the table is (a weak map: it goes with the room),
    and one per address across every table, kept by the app. Opening a watching socket
    and every message it sends take one from both, so reconnecting, or moving to another
    table, finds no fresh allowance. Each is as large as a seat's (rate_limit_per_second,
    rate_limit_burst): a watcher sends only pings and pongs. And one address may have at
    most `max_watchers_per_address` sockets watching one table."""

    def __init__(self, per_second: float, burst: int, per_address: int) -> None:
        self.per_second = per_second
        self.burst = burst
        self.per_address = per_address
        self.everywhere = ClientLimits(self.per_second * 60, self.burst)
        self.tables: weakref.WeakKeyDictionary[object, RoomWatchers] = \
            weakref.WeakKeyDictionary()

    def table(self, room: object) -> RoomWatchers:
        found = self.tables.get(room)
        if found is None:
            found = self.tables[room] = RoomWatchers(self.per_second, self.burst)
        return found

    def allowance(self, room: object, address: str) -> WatcherAllowance:
        return WatcherAllowance(self, room, address)


class WatcherAllowance:
    """A watching socket's allowance: its (table, address) bucket and its address's, looked
    up at each message (a bucket forgotten once full is made afresh, and full)."""

    __slots__ = ("address", "limits", "room")

    def __init__(self, limits: WatchLimits, room: object, address: str) -> None:
        self.limits = limits
        self.room = room
        self.address = address

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        table = self.limits.table(self.room).limits.bucket(self.address, now)
        return take_from_all((table, self.limits.everywhere.bucket(self.address, now)), now)
