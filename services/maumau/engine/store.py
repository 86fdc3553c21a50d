"""The engine's I/O with Redis: match reads, the atomic commit of a change, event streams,
results and the players' lists of matches.

What the bytes mean is ``codec``'s, the record ``record``'s, the key names ``keys``'s (with the
layout), where deadlines go ``deadlines``'s; what a replica remembers is ``cache``'s.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal, cast

import redis.asyncio as redis

from maumau.common.redis_client import DEFAULT_SHARDS, Call, Durability, Script
from maumau.common.results import result_entry, results_stream_of, results_streams
from maumau.engine.cache import Current, MatchCache, current_from_hash
from maumau.engine.codec import (
    Answers,
    KeptAnswer,
    entry_suffix,
    packed_events,
    stream_events,
    stream_position,
    used_answer,
    with_answer,
)
from maumau.engine.deadlines import deadlines_for
from maumau.engine.keys import (
    ACTIVE,
    events_key,
    match_key,
    player_matches_key,
    published_key,
    request_ids_key,
)
from maumau.engine.record import MatchRecord, Stored
from maumau.v1 import game_pb2

log = logging.getLogger(__name__)

NOT_OVER = 1e12
"""Added to the score of a match not over in a player's list, so no time of a finished match
reaches it: matches being played list first, and trimming finished ones by time spares them."""

# Write the new state only if the version is unchanged, append the events, keep the seat's
# answer. KEYS: match hash, events stream, request ids hash; on a single Redis also the
# match's deadline shard (``deadlines.OneRedisDeadlines``; on a cluster it lies in another
# slot). ARGV: expected version ('' for a new match), meta, state, seat ('' for no answer to
# keep), the seat's kept answers up to the new one's stream entry id (``codec.with_answer``;
# the script appends ``codec.entry_suffix``), seconds the match's keys live from now ('0': for
# good; a lobby's keys expire unless someone comes, a finished match's after the retention),
# the events packed (``codec.packed_events``), their count, the request id and the action's
# text (with a seat); with the deadline shard the due time (only ever moved earlier) and the
# match id. The entry's id is that of the commit's last event (``codec.stream_events``). A
# request applied before is never applied again: the seat's request id is in the request ids
# hash (``codec.used_value``), checked before the version, so 'used' answers what it was used
# for, whatever version the caller read. A conflict answers the match's hash as it is (only
# '' when it is gone), so the caller tries again without reading it first.
COMMIT = Script(
    "engine.commit",
    """
local function varint(n)
  local out = ''
  while n > 127 do
    out = out .. string.char(n % 128 + 128)
    n = math.floor(n / 128)
  end
  return out .. string.char(n)
end
local request = ARGV[4] .. ':' .. ARGV[9]
if ARGV[4] ~= '' then
  local used = redis.call('HGET', KEYS[3], request)
  if used then return {'used', used} end
end
local version = redis.call('HGET', KEYS[1], 'version')
if (version or '') ~= ARGV[1] then
  if not version then return {'conflict', ''} end
  return {'conflict', version, redis.call('HGETALL', KEYS[1])}
end
local next_version = (tonumber(version) or 0) + 1
redis.call('HSET', KEYS[1], 'version', next_version, 'meta', ARGV[2], 'state', ARGV[3])
local last, entry = '', '\\0\\0'
local count = tonumber(ARGV[8])
if count > 0 then
  local now = redis.call('TIME')
  local ms, seq = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000), count - 1
  local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
  if newest then
    local last_ms, last_seq = string.match(newest[1], '^(%d+)-(%d+)$')
    last_ms, last_seq = tonumber(last_ms), tonumber(last_seq)
    if ms <= last_ms then ms, seq = last_ms, last_seq + count end
  end
  last = redis.call('XADD', KEYS[2], string.format('%.0f-%.0f', ms, seq), 'p', ARGV[7])
  entry = varint(ms) .. varint(seq)
end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'a' .. ARGV[4], ARGV[5] .. entry)
  redis.call('HSET', KEYS[3], request, next_version .. ' ' .. last .. ' ' .. ARGV[10])
end
if KEYS[4] then redis.call('ZADD', KEYS[4], 'LT', ARGV[11], ARGV[12]) end
for i = 1, 3 do
  if ARGV[6] ~= '0' then
    redis.call('EXPIRE', KEYS[i], ARGV[6])
  else
    redis.call('PERSIST', KEYS[i])
  end
end
return {'ok', tostring(next_version), last}
""",
)


@dataclass(frozen=True)
class NewMatch:
    """A match to store for the first time (:meth:`MatchStore.commit_new`)."""

    record: MatchRecord
    state: bytes
    events: list[bytes]
    retention_seconds: int
    deadline: float | None


@dataclass
class Committed:
    """The outcome of a commit: 'ok' (with the new version), 'conflict' (the version moved
    on) or 'used' (the seat used the request id before: ``earlier`` says for what)."""

    status: Literal["ok", "conflict", "used"]
    version: int = 0
    deadline_written: bool = True
    """False: the deadline given with the commit was not written (on a cluster its shard's
    node failed where the match's did not): ``aftercommit.AfterCommit`` sets it again."""
    earlier: KeptAnswer | None = None


class MatchStore:
    """Reads and atomic writes of matches in Redis; every replica uses one of these. Its
    deadline strategy (``deadlines``) is the one of the kind of Redis ``client`` is."""

    def __init__(
        self,
        client: redis.Redis,
        durability: Durability | None = None,
        shards: int = DEFAULT_SHARDS,
        cache: MatchCache | None = None,
    ) -> None:
        self.redis = client
        self.durability = durability or Durability(client)
        self.shards = shards
        self.cache = cache or MatchCache(0)
        self.deadlines = deadlines_for(client, self.durability, shards)
        self.result_keys = results_streams(shards)

    async def load(self, match_id: str) -> Stored | None:
        fields = await self.redis.hmget(match_key(match_id), ["version", "meta", "state"])
        version, meta, state = cast(list[bytes | None], fields)
        if version is None or meta is None:
            return None
        return Stored(MatchRecord.from_json(meta), state or b"", int(version))

    async def current(self, match_id: str) -> Current | None:
        """The match as a change starts from: as this replica remembers it, else as read."""
        return self.cache.get(match_id) or await self.load_current(match_id)

    async def load_current(self, match_id: str) -> Current | None:
        """The match and every seat's kept answers, read in one command (and remembered)."""
        fields = cast(dict[bytes, bytes], await self.redis.hgetall(match_key(match_id)))
        current = current_from_hash(fields)
        self.cache.put(match_id, current)
        return current

    async def commit(
        self,
        match_id: str,
        expected_version: int | None,
        record: MatchRecord,
        state: bytes,
        events: list[bytes],
        answered: tuple[Answers, str] | None = None,
        retention_seconds: int = 0,
        deadline: float | None = None,
        action: str = "",
    ) -> Committed:
        """Run the commit script; ``answered``: the seat's answers as read with the match and
        the request id whose answer (this commit's version and events) to keep with them, and
        in the match's request ids with ``action``, the text of the action it carried; a
        request id the seat used before is not applied again ('used'). ``deadline`` (only ever
        moved earlier) goes in the same round trip, as ``self.deadlines`` writes it.
        The cache remembers the outcome: the match as committed, or as the conflict found it."""
        kept = None
        if answered is not None:
            answers, request_id = answered
            kept = answers.seat, with_answer(answers.kept, request_id, (expected_version or 0) + 1)
        call = self._commit_call(
            match_id, expected_version, record, state, events, kept, retention_seconds
        )
        if answered is not None:
            call = call._replace(args=[*call.args[:-2], answered[1], action])
        calls = self.deadlines.with_commit(match_id, deadline, call, confirm=True)
        replies = iter(await self.durability.replies(calls))
        reply, written = self.deadlines.commit_reply(match_id, deadline, replies)
        if isinstance(reply, Exception):
            raise reply
        if reply[0] == b"used":
            return Committed("used", earlier=used_answer(reply[1]))
        if reply[0] == b"ok":
            version = int(reply[1])
            if kept is not None:  # as the script keeps it: with its commit's stream entry id
                kept = kept[0], kept[1] + entry_suffix(reply[2].decode())
            self.cache.committed(match_id, expected_version, Stored(record, state, version), kept)
            return Committed("ok", version, written)
        current = None if len(reply) == 2 else current_from_hash(_pairs(reply[2]))
        self.cache.put(match_id, current)
        return Committed("conflict")

    @staticmethod
    def _commit_call(
        match_id: str,
        expected_version: int | None,
        record: MatchRecord,
        state: bytes,
        events: list[bytes],
        kept: tuple[int, bytes] | None,
        retention_seconds: int,
    ) -> Call:
        """The commit script's call (see COMMIT) without a deadline; ``kept``: a seat and its
        answers to keep (the request id and action, its last two arguments, left empty)."""
        seat, answers = ("", b"") if kept is None else (str(kept[0]), kept[1])
        keys = [match_key(match_id), events_key(match_id), request_ids_key(match_id)]
        args: list[str | bytes] = [
            "" if expected_version is None else str(expected_version),
            record.to_json_bytes(),
            state,
            seat,
            answers,
            str(retention_seconds),
            packed_events(events),
            str(len(events)),
            "",
            "",
        ]
        return Call(COMMIT, keys, args, wait=True)

    async def commit_new(self, matches: list[NewMatch]) -> list[Committed]:
        """Store several new matches in one round trip: per match its own commit script with
        its deadline, as :meth:`commit` with no expected version does, so each match is stored
        whole or not at all, and one that exists already (a retried request id) is left as it
        is: "conflict". The deadlines are not confirmed by replicas here: the caller sets them
        again (``aftercommit.AfterCommit.created``)."""
        calls: list[Call] = []
        for new in matches:
            match_id = new.record.match_id
            call = self._commit_call(
                match_id, None, new.record, new.state, new.events, None, new.retention_seconds
            )
            calls += self.deadlines.with_commit(match_id, new.deadline, call, confirm=False)
        replies = iter(await self.durability.replies(calls))
        committed = []
        for new in matches:
            match_id = new.record.match_id
            reply, _ = self.deadlines.commit_reply(match_id, new.deadline, replies)
            if isinstance(reply, Exception):
                raise reply
            if reply[0] == b"ok":
                stored = Stored(new.record, new.state, int(reply[1]))
                self.cache.committed(match_id, None, stored, None)
                committed.append(Committed("ok", stored.version))
            else:
                committed.append(Committed("conflict"))
        return committed

    async def used_request(self, match_id: str, seat: int, request_id: str) -> KeptAnswer | None:
        """What ``seat`` used ``request_id`` for in the match (version, stream entry, action);
        None: never."""
        value = await self.redis.hget(request_ids_key(match_id), f"{seat}:{request_id}")
        return None if value is None else used_answer(cast(bytes, value))

    async def entry_events(self, match_id: str, entry_id: str) -> list[bytes] | None:
        """The events of one commit's stream entry, as a kept answer names it (a retry reads
        them again); None: the stream is gone (the match with it)."""
        if not entry_id:
            return []
        entries = cast(
            list[tuple[bytes, dict[bytes, bytes]]],
            await self.redis.xrange(events_key(match_id), entry_id, entry_id),
        )
        if not entries:
            return None
        return [event for _, event in stream_events(entry_id, entries[0][1])]

    async def read_events(
        self, match_id: str, after: str, block_ms: int | None, count: int = 100
    ) -> list[tuple[str, bytes]]:
        """Events after event id ``after`` ('0' for all), waiting up to ``block_ms``; at most
        ``count`` stream entries (commits) are read."""
        reply: list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]] = cast(
            Any, await self.redis.xread({events_key(match_id): after}, count=count, block=block_ms)
        )
        if not reply:
            return []
        # The first entry may hold events up to ``after`` too: its id is that of its last event.
        position = stream_position(after)
        return [
            (event_id, event)
            for entry_id, fields in reply[0][1]
            for event_id, event in stream_events(entry_id.decode(), fields)
            if stream_position(event_id) > position
        ]

    async def publish_result(self, result: game_pb2.MatchResult, retention_seconds: int) -> None:
        """Append a finished match's result to its shard of the results stream, once per match
        as far as this store knows (its readers are idempotent by match id for the rest)."""
        if await self.published(result.match_id):
            return
        stream = results_stream_of(result.match_id, self.shards)
        # The marker only once replicas hold the entry, or a failover could lose the entry alone.
        fields = [part for pair in result_entry(result).items() for part in pair]
        await self.durability.run([Call("XADD", [stream], ["*", *fields], wait=True)])
        await self.redis.set(published_key(result.match_id), 1, ex=retention_seconds or None)

    async def published(self, match_id: str) -> bool:
        """Whether the match's result went to the results stream."""
        return bool(await self.redis.exists(published_key(match_id)))

    def active_call(self, match_id: str, active: bool) -> Call:
        """The write that keeps the set of matches being played, for the matches-active metric."""
        return Call("SADD" if active else "SREM", [ACTIVE], [match_id])

    async def count_active(self) -> int:
        count: int = await self.redis.scard(ACTIVE)
        return count

    async def index_players(
        self,
        entries: list[tuple[str, str]],
        at: float,
        keep: int,
        keep_seconds: int,
        finished: bool = False,
    ) -> None:
        """Put each match in its player's list, in one round trip: a new one among those not
        over (``finished``: the match finished ``at``, and moves among the finished ones). The
        list drops finished matches older than ``keep_seconds`` (their records are gone), keeps
        the ``keep`` highest and goes ``keep_seconds`` after its last change. A new match is
        only ever added (NX), so an indexing retried after the match finished leaves it finished.
        Each player's commands are idempotent and travel together, so no transaction is needed
        (nor possible: the players' keys lie in different Cluster slots)."""
        score = at if finished else NOT_OVER + at
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id, match_id in entries:
                key = player_matches_key(player_id)
                pipe.zadd(key, {match_id: score}, nx=not finished)
                pipe.zremrangebyscore(key, "-inf", f"({at - keep_seconds}")
                pipe.zremrangebyrank(key, 0, -keep - 1)
                pipe.expire(key, keep_seconds)
            await pipe.execute()

    async def player_matches(self, player_id: str, limit: int) -> list[str]:
        ids = cast(
            list[bytes],
            await self.redis.zrevrange(player_matches_key(player_id), 0, limit - 1),
        )
        return [match_id.decode() for match_id in ids]


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    """A hash as a script returns it (field, value, ...) as a dict."""
    return {flat[n]: flat[n + 1] for n in range(0, len(flat), 2)}
