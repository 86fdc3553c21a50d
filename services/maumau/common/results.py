"""The results stream: how the engine hands a finished match to the services that follow it.

The contract is ``MatchResult`` in ``protos/maumau/v1/game.proto``: the stream's name is the
message's ``redis_stream`` option, and each entry carries ``match_id`` (text) and ``result`` (the
serialized message). The engine writes with :func:`result_entry`; readers (the rating service,
the matchmakers' rooms) follow the stream with a ``maumau.common.streams.StreamConsumer`` and
decode each entry with :func:`read_result`. :func:`trim_acknowledged` removes the entries every
consumer group has acknowledged, so the stream holds only what some reader still needs.
"""

from __future__ import annotations

from typing import cast

import redis.asyncio as redis
from google.protobuf.message import DecodeError

from maumau.common.streams import StreamEntry, stream_of
from maumau.v1 import game_pb2

RESULTS_STREAM = stream_of(game_pb2.MatchResult)


# KEYS: a stream. In one step (so no group moves meanwhile): for each consumer group the first
# id it may still need - its oldest pending entry, or the id after the last one delivered when
# none is pending - and XTRIM MINID to the lowest of them. A stream without groups is left
# whole (nobody has said what it needs). Answers the entries removed and the MINID ('' if none).
_TRIM = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, ''} end
local groups = redis.call('XINFO', 'GROUPS', KEYS[1])
if #groups == 0 then return {0, ''} end
local function parse(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local low_ms, low_seq
for _, group in ipairs(groups) do
  local info = {}
  for i = 1, #group, 2 do info[group[i]] = group[i + 1] end
  local ms, seq
  if info['pending'] > 0 then
    ms, seq = parse(redis.call('XPENDING', KEYS[1], info['name'])[2])
  else
    ms, seq = parse(info['last-delivered-id'])
    seq = seq + 1
  end
  if low_ms == nil or ms < low_ms or (ms == low_ms and seq < low_seq) then
    low_ms, low_seq = ms, seq
  end
end
local minid = string.format('%.0f-%.0f', low_ms, low_seq)
return {redis.call('XTRIM', KEYS[1], 'MINID', minid), minid}
"""


async def trim_acknowledged(client: redis.Redis, stream: str = RESULTS_STREAM) -> int:
    """Remove the entries of ``stream`` that every consumer group has acknowledged; how many.
    Safe on any number of replicas at once: each run is one atomic script."""
    removed, _ = cast(list[int | bytes], await client.eval(_TRIM, 1, stream))
    return int(removed)


class BadEntry(ValueError):
    """A results-stream entry that holds no readable MatchResult."""


def result_entry(result: game_pb2.MatchResult) -> dict[str, str | bytes]:
    """The stream entry's fields for ``result``."""
    return {"match_id": result.match_id, "result": result.SerializeToString()}


def read_result(entry: StreamEntry) -> game_pb2.MatchResult:
    """The MatchResult of ``entry``; BadEntry says why there is none."""
    data = entry.fields.get(b"result")
    if data is None:
        raise BadEntry(f"entry {entry.id.decode()} has no result field")
    try:
        result = game_pb2.MatchResult()
        result.ParseFromString(data)
    except DecodeError as error:
        raise BadEntry(f"entry {entry.id.decode()} is not a MatchResult: {error}") from None
    if not result.match_id:
        raise BadEntry(f"entry {entry.id.decode()} holds a result without a match_id")
    return result
