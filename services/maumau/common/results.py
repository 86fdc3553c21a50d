"""The results stream: how the engine hands a finished match to the services that follow it.

The contract is ``MatchResult`` in ``protos/maumau/v1/game.proto``: the stream's name is the
message's ``redis_stream`` option, and each entry carries ``match_id`` (text) and ``result`` (the
serialized message). The stream is sharded so no Redis Cluster slot carries every result: a
result goes to ``engine:results:{n}``, ``n`` the shard of its match id among
``MAUMAU_REDIS_SHARDS`` (:func:`results_stream_of`). The engine writes with :func:`result_entry`;
readers (the rating service, the tournaments, the matchmakers' rooms) follow every shard, one
``maumau.common.streams.StreamConsumer`` each, and the unsharded ``engine:results`` of earlier
versions whenever it exists (:func:`consumed_streams`), and decode each entry with
:func:`read_result`. :func:`trim_acknowledged` removes the entries every consumer group has
acknowledged, so a stream holds only what some reader still needs; the old stream is deleted
once it is empty.
"""

from __future__ import annotations

from typing import cast

import redis.asyncio as redis
from google.protobuf.message import DecodeError

from maumau.common.redis_client import shard_of
from maumau.common.streams import StreamEntry, stream_of
from maumau.v1 import game_pb2

RESULTS_STREAM = stream_of(game_pb2.MatchResult)
"""The name the shards are named after; as a stream of its own, the unsharded results stream of
earlier versions, only read (until empty) and never written."""


def results_stream(shard: int, base: str = RESULTS_STREAM) -> str:
    """Shard ``shard`` of the results stream, a Cluster slot of its own (``engine:results:{3}``)."""
    return f"{base}:{{{shard}}}"


def results_streams(shards: int, base: str = RESULTS_STREAM) -> list[str]:
    return [results_stream(shard, base) for shard in range(shards)]


def results_stream_of(match_id: str, shards: int, base: str = RESULTS_STREAM) -> str:
    """The shard a match's result is written to."""
    return results_stream(shard_of(match_id, shards), base)


def consumed_streams(shards: int, base: str = RESULTS_STREAM) -> list[tuple[str, bool]]:
    """What a reader of results follows: every shard, and the unsharded stream of earlier
    versions, to be drained (True: read whenever it exists, never created)."""
    return [(stream, False) for stream in results_streams(shards, base)] + [(base, True)]


# KEYS: a stream. In one step (so no group moves meanwhile): for each consumer group the first
# id it may still need - its oldest pending entry, or the id after the last one delivered when
# none is pending - and XTRIM MINID to the lowest of them. A stream without groups is left
# whole (nobody has said what it needs). ARGV[1] '1': delete the stream once it is empty (the
# old unsharded stream, drained). Answers the entries removed and the MINID ('' if none).
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
local removed = redis.call('XTRIM', KEYS[1], 'MINID', minid)
if ARGV[1] == '1' and redis.call('XLEN', KEYS[1]) == 0 then redis.call('DEL', KEYS[1]) end
return {removed, minid}
"""


async def trim_acknowledged(
    client: redis.Redis, stream: str = RESULTS_STREAM, *, delete_when_empty: bool = False
) -> int:
    """Remove the entries of ``stream`` that every consumer group has acknowledged; how many.
    ``delete_when_empty``: then delete the stream if nothing is left (a drained old stream).
    Safe on any number of replicas at once: each run is one atomic script."""
    removed, _ = cast(
        list[int | bytes], await client.eval(_TRIM, 1, stream, "1" if delete_when_empty else "0")
    )
    return int(removed)


async def trim_results(client: redis.Redis, shards: int, base: str = RESULTS_STREAM) -> int:
    """Trim every shard, and the old unsharded stream (deleted once drained); how many removed."""
    removed = 0
    for stream, old in consumed_streams(shards, base):
        removed += await trim_acknowledged(client, stream, delete_when_empty=old)
    return removed


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
