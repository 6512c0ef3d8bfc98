"""The lobby's tables in Redis, shared by every process (app/lobby_store.py's contract).

Every step that picks, takes or lists a table is one Lua script (one step in Redis:
two processes never both take a table), and each change is published on the channel
`piquet:lobby`, which every process's lobby listens to. A script that picks (the quick
game, a seat taken from the list) carries a request id and answers a resend as it
answered the first, so a send repeated after a lost answer never takes a second table.

The keys share the hash tag `{lobby}` (one slot of a Redis Cluster): the open tables (a
hash of their JSON, and a sorted set by the time they were listed: the list and the
quick game's queue in one), each address's count of them, the tables played (a hash,
and when each was last renewed by its process), and, short-lived, where a visitor's
quick game led (`visitor:`) and who took a table a moment ago (`held:`).
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import Any, cast

import orjson

from app.lobby_store import (
    HELD_SECONDS,
    VISITOR_SECONDS,
    Gone,
    Listener,
    OpenTable,
    PlayingTable,
    Quick,
    Take,
)
from app.redis_store import RedisStore

log = logging.getLogger("piquet.lobby")

PREFIX = "piquet:{lobby}:"
CHANNEL = "piquet:lobby"
KEYS = [f"{PREFIX}open", f"{PREFIX}open:time", f"{PREFIX}addresses", f"{PREFIX}playing",
        f"{PREFIX}playing:time"]
ANSWER_MS = 60_000  # how long a picking script's answer is kept for a resend

# Every script: ARGV[1] the key prefix, ARGV[2] now (seconds); KEYS as above.
PRELUDE = f"""
local P, NOW = ARGV[1], tonumber(ARGV[2])
local function publish(text) redis.call('PUBLISH', '{CHANNEL}', text) end
local function table_of(id) return cjson.decode(redis.call('HGET', KEYS[1], id)) end
local function remove(id, why)
  local text = redis.call('HGET', KEYS[1], id)
  if not text then return false end
  local t = cjson.decode(text)
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  if redis.call('HINCRBY', KEYS[3], t.address, -1) <= 0 then
    redis.call('HDEL', KEYS[3], t.address)
  end
  publish(cjson.encode({{gone = id, why = why}}))
  return true
end
local function put(id, text, address, since, limit)
  local old = redis.call('HGET', KEYS[1], id)
  local same = old and cjson.decode(old).address == address
  if not same and tonumber(redis.call('HGET', KEYS[3], address) or '0') >= limit then
    return false
  end
  if old then remove(id, 'relisted') end
  redis.call('HINCRBY', KEYS[3], address, 1)
  redis.call('HSET', KEYS[1], id, text)
  redis.call('ZADD', KEYS[2], since, id)
  publish('{{"open":' .. text .. '}}')
  return true
end
local function remember(visitor, id)
  redis.call('SET', P .. 'visitor:' .. visitor, id, 'PX', {int(VISITOR_SECONDS * 1000)})
end
local function seat(visitor, id)
  redis.call('SET', P .. 'held:' .. id, visitor, 'PX', {int(HELD_SECONDS * 1000)})
  remember(visitor, id)
  for _, other in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    if table_of(other).visitor == visitor then remove(other, 'elsewhere') end
  end
end
local function answered(req)
  return redis.call('GET', P .. 'req:' .. req)
end
local function answer(req, kind, id)
  local text = kind .. ':' .. (id or '')
  redis.call('SET', P .. 'req:' .. req, text, 'PX', {ANSWER_MS})
  return text
end
"""

# ARGV[3..]: request id, key, visitor, look, then for a table to list if nothing is
# found: its id, JSON, address, since, and the address's limit ('' when none).
QUICK = PRELUDE + """
local req, key, visitor, look = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local done = answered(req)
if done then return done end
local recent = redis.call('GET', P .. 'visitor:' .. visitor)
if recent then return answer(req, 'mine', recent) end
local mine, same_name = nil, nil
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local t = table_of(id)
  if t.key == key then
    if t.visitor == visitor then mine = mine or id
    elseif look ~= '' and t.look == look then same_name = same_name or id
    else
      remove(id, 'taken')
      seat(visitor, id)
      return answer(req, 'take', id)
    end
  end
end
if same_name then return answer(req, 'same_name', same_name) end
if mine then return answer(req, 'mine', mine) end
if ARGV[7] == '' then return answer(req, 'none') end
if not put(ARGV[7], ARGV[8], ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11])) then
  return answer(req, 'full')
end
remember(visitor, ARGV[7])
return answer(req, 'listed', ARGV[7])
"""

# ARGV[3..]: request id, room id, visitor, look.
TAKE = PRELUDE + """
local req, id, visitor, look = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local done = answered(req)
if done then return done end
local held = redis.call('GET', P .. 'held:' .. id)
if held then return answer(req, held == visitor and 'taken' or 'held') end
if not redis.call('HGET', KEYS[1], id) then return answer(req, 'not_listed') end
local t = table_of(id)
if t.visitor == visitor then return answer(req, 'own') end
if look ~= '' and t.look == look then return answer(req, 'same_name') end
remove(id, 'taken')
seat(visitor, id)
return answer(req, 'taken')
"""

# ARGV[3..]: room id, JSON, address, since, limit. 1: listed; 0: the address is full.
PUT = PRELUDE + """
if put(ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])) then return 1 end
return 0
"""

# ARGV[3..]: room id, why.
UNLIST = PRELUDE + """
if remove(ARGV[3], ARGV[4]) then return 1 end
return 0
"""

# ARGV[3..]: visitor, room id.
RELEASE = PRELUDE + """
local key = P .. 'visitor:' .. ARGV[3]
if redis.call('GET', key) == ARGV[4] then redis.call('DEL', key) end
return 0
"""

# ARGV[3]: before (seconds). The open tables listed before it leave the list.
EXPIRE = PRELUDE + """
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3])
for _, id in ipairs(gone) do remove(id, 'expired') end
return gone
"""

# ARGV[3..]: room id, JSON.
PLAYING = PRELUDE + """
redis.call('HSET', KEYS[4], ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[5], NOW, ARGV[3])
publish('{"playing":' .. ARGV[4] .. '}')
return 1
"""

# ARGV[3..]: room id; or, for STALE, before (seconds): the tables played nobody renewed.
ENDED_PRELUDE = PRELUDE + """
local function ended(id)
  if redis.call('HDEL', KEYS[4], id) == 1 then
    redis.call('ZREM', KEYS[5], id)
    publish(cjson.encode({ended = id}))
  end
end
"""
ENDED = ENDED_PRELUDE + """
ended(ARGV[3])
return 1
"""
STALE = ENDED_PRELUDE + """
local gone = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', '(' .. ARGV[3])
for _, id in ipairs(gone) do ended(id) end
return gone
"""

SCRIPTS = {"lobby_quick": QUICK, "lobby_take": TAKE, "lobby_put": PUT,
           "lobby_unlist": UNLIST, "lobby_release": RELEASE, "lobby_expire": EXPIRE,
           "lobby_playing": PLAYING, "lobby_ended": ENDED, "lobby_stale": STALE}


class RedisLobby:
    """The lobby's tables in the rooms' Redis (its client and its patience)."""

    def __init__(self, store: RedisStore) -> None:
        self.redis = store
        store.add_scripts(SCRIPTS)

    async def _run(self, name: str, *args: Any) -> Any:
        return await self.redis.run(f"lobby_{name}", KEYS, [PREFIX, time.time(), *args])

    async def put(self, table: OpenTable, limit: int) -> bool:
        text = orjson.dumps(table.to_json()).decode()
        return bool(await self._run("put", table.room_id, text, table.address, table.since,
                                    limit) == 1)

    async def quick(self, key: str, visitor: str, look: str, table: OpenTable | None,
                    limit: int) -> Quick:
        listing: list[Any] = ["", "", "", "", ""]
        if table is not None:
            listing = [table.room_id, orjson.dumps(table.to_json()).decode(), table.address,
                       table.since, limit]
        answer = await self._run("quick", secrets.token_hex(8), key, visitor, look, *listing)
        kind, _, room_id = _text(answer).partition(":")
        return Quick(cast(Any, kind), room_id)

    async def take(self, room_id: str, visitor: str, look: str) -> Take:
        answer = await self._run("take", secrets.token_hex(8), room_id, visitor, look)
        return cast(Take, _text(answer).partition(":")[0])

    async def unlist(self, room_id: str, why: Gone) -> bool:
        return bool(await self._run("unlist", room_id, why) == 1)

    async def release(self, visitor: str, room_id: str) -> None:
        await self._run("release", visitor, room_id)

    async def expire(self, before: float) -> list[str]:
        return [_text(r) for r in await self._run("expire", before)]

    async def playing(self, table: PlayingTable) -> None:
        await self._run("playing", table.room_id, orjson.dumps(table.to_json()).decode())

    async def ended(self, room_id: str) -> None:
        await self._run("ended", room_id)

    async def touch(self, room_ids: list[str]) -> None:
        if room_ids:
            now = time.time()
            await self.redis.client.zadd(KEYS[4], {r: now for r in room_ids}, xx=True)

    async def stale(self, before: float) -> list[str]:
        return [_text(r) for r in await self._run("stale", before)]

    async def tables(self) -> tuple[list[OpenTable], list[PlayingTable]]:
        open_tables = await self.redis.client.hgetall(KEYS[0])
        playing = await self.redis.client.hgetall(KEYS[3])
        return ([OpenTable.from_json(orjson.loads(v)) for v in open_tables.values()],
                [PlayingTable.from_json(orjson.loads(v)) for v in playing.values()])

    async def listen(self, listener: Listener) -> None:
        """Until cancelled: every change any process makes, as it is published; and, each
        time the channel is (re)made, a word to read the lists again."""

        async def handle(data: bytes) -> None:
            listener(orjson.loads(data))

        await self.redis.subscribe(CHANNEL, handle,
                                   subscribed=lambda: listener({"resync": True}))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
