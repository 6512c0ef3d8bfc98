"""The Lua scripts that are every read and write of a room in Redis, and its two keys.

Two keys a room: a hash (its fields: app/redis_store.py's schema) and a list (the
match's entries, one JSON `[seat, action]` or `[seat, action, pack]` each).
`{room_id}` is a hash tag: both keys fall in one slot of a Redis Cluster, so a script may
touch both. Each script is one step in Redis: the version checked and the write made
together.
"""

from __future__ import annotations

# ARGV: ttl ms, the write id, then field, value pairs. A create sent twice (its answer
# lost) finds its own write id and answers as the first did.
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'write') == ARGV[2] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'write', ARGV[2], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
"""

# ARGV: version (the one this write makes), ttl ms, write id, kind, the field of a seat
# that must still be free ('' if none), when it was made (wall-clock seconds), then the
# kind's values: 'action': the entry; 'match' (a new match: its actions start afresh) and
# 'fields' (a change with no action, "Play again"): field, value pairs for the room's hash.
# A room's own `ttl` field (a slow table's) outranks the ttl sent.
# Answers 0: written (or written before: the same write sent again, which then writes
# its id again, so that a WAIT after it covers the first); -1: no such room; -3: the
# seat is taken; else the stored version, which is not one less than this write's.
SAVE = """
local stored = redis.call('HGET', KEYS[1], 'version')
if not stored then return -1 end
stored = tonumber(stored)
if stored == tonumber(ARGV[1]) and redis.call('HGET', KEYS[1], 'write') == ARGV[3] then
  redis.call('HSET', KEYS[1], 'write', ARGV[3])
  return 0
end
if stored + 1 ~= tonumber(ARGV[1]) then return stored end
if ARGV[5] ~= '' and redis.call('HEXISTS', KEYS[1], ARGV[5]) == 1 then return -3 end
local ttl = redis.call('HGET', KEYS[1], 'ttl') or ARGV[2]
if ARGV[4] == 'action' then
  redis.call('RPUSH', KEYS[2], ARGV[7])
  redis.call('PEXPIRE', KEYS[2], ttl)
else
  if ARGV[4] == 'match' then redis.call('DEL', KEYS[2]) end
  redis.call('HSET', KEYS[1], unpack(ARGV, 7))
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'write', ARGV[3], 'moved', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ttl)
return 0
"""

# A seat claimed twice by the same token (its answer lost) is still its.
CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then return 1 end
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return 1 end
return 0
"""

# The loader becomes the room's owner; the previous owner, if another process, is told
# to let go of its copy (its sockets then reconnect, through the proxy, to the new one).
# ARGV: this process's name, the room id.
HAND_OVER = """
local previous = redis.call('HGET', KEYS[1], 'owner')
if previous and previous ~= ARGV[1] then
  redis.call('HSET', KEYS[1], 'owner', ARGV[1])
  redis.call('PUBLISH', 'piquet:owner:' .. previous, ARGV[2])
end
"""

LOAD = """
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return {fields, {}} end
""" + HAND_OVER + """
return {fields, redis.call('LRANGE', KEYS[2], 0, -1)}
"""

# A process about to serve a room from its memory: the stored version (-1: gone), so a
# copy that is behind is dropped and loaded afresh; and it becomes the owner.
OWN = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return -1 end
""" + HAND_OVER + """
return tonumber(version)
"""

DELETE = """
if redis.call('HGET', KEYS[1], 'version') == ARGV[1] and
   redis.call('HGET', KEYS[1], 'owner') == ARGV[2] then
  return redis.call('DEL', KEYS[1], KEYS[2])
end
return 0
"""

SCRIPTS = {"create": CREATE, "save": SAVE, "claim": CLAIM, "load": LOAD, "own": OWN,
           "delete": DELETE}


def room_key(room_id: str) -> str:
    return f"piquet:{{{room_id}}}"


def actions_key(room_id: str) -> str:
    return f"piquet:{{{room_id}}}:actions"


