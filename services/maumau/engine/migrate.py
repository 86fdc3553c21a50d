"""``python -m maumau.engine.migrate``: rewrite what earlier builds of the engine stored into the
formats the engine reads now (``engine/keys.py``), so that its hot path reads nothing else.

What it rewrites, per match:

- a record (``meta``) stored as an object of named fields: as the list of its values; a started
  match's ``moved_at`` of 0 (a record from before it existed): its turn's start
- kept answers in ``match:{id}:requests`` (each request id with its whole answer, or records
  of today's kinds): moved into the seat's ``a{seat}`` field when it has none. An answer kept
  whole (kind ``A``, or the first layout) names no stream entry, so it is dropped: a retry of
  that request after the upgrade is refused as the rules refuse an old action, never applied
- the request ids of every kept answer, into ``match:{id}:request_ids`` where missing (their
  action not known), so the commit script refuses each of them again
- stream entries of one event each (field ``e``): as today's entries (field ``p``), their ids
  kept, so clients resume from the ids they hold
- ``match:{id}:answered`` (an order of request ids no build reads): deleted

Run it once when upgrading from a build before the engine dropped these formats, against the
engine's Redis (its variables, e.g. ``REDIS_URL``), before starting the new replicas. Replicas of
the build before may keep serving meanwhile (they write today's formats themselves): each
match is rewritten by one script, and only if it did not change since it was read (else it is
read again). Running it again rewrites nothing.
"""

from __future__ import annotations

import asyncio
import re
import struct
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis.asyncio as redis

from maumau.common.config import ConfigError
from maumau.common.redis_client import Durability, Script
from maumau.common.redis_server import open_redis
from maumau.common.settings import load_settings
from maumau.engine.codec import (
    KeptAnswer,
    entry_suffix,
    kept_answers,
    packed_events,
    read_varint,
    used_value,
    with_answer,
)
from maumau.engine.keys import events_key, match_key, request_ids_key
from maumau.engine.record import MatchRecord, Status
from maumau.engine.settings import Settings

ATTEMPTS = 20
"""Reads of one match before giving up on it (each lost to a commit in between)."""

_MATCH_KEY = re.compile(rb"^match:\{(.+?)\}(?::.*)?$")
_OLD_HEAD = struct.Struct(">HI")
"""The head of a kept answer of the first layout: the request id's length, the answer's."""
_WHOLE, _HEX = ord("A"), ord("H")

# KEYS: match hash, events stream, the old requests hash, the old answered key, request ids
# hash. ARGV: the version and newest stream entry id read ('' for none), the new meta ('' to
# keep it), then counted groups: seat fields (name, value; '' deletes it), request ids to add
# (field, value), stream entries to write in place of the stream (id, packed events; a count of
# -1 keeps the stream). Returns 0, writing nothing, when the match changed since it was read.
_REWRITE = Script(
    "engine.migrate",
    """
if (redis.call('HGET', KEYS[1], 'version') or '') ~= ARGV[1] then return 0 end
local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
if ((newest and newest[1]) or '') ~= ARGV[2] then return 0 end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'meta', ARGV[3]) end
local at = 5
for _ = 1, tonumber(ARGV[4]) do
  if ARGV[at + 1] == '' then
    redis.call('HDEL', KEYS[1], ARGV[at])
  else
    redis.call('HSET', KEYS[1], ARGV[at], ARGV[at + 1])
  end
  at = at + 2
end
local ids = tonumber(ARGV[at])
at = at + 1
for _ = 1, ids do
  redis.call('HSETNX', KEYS[5], ARGV[at], ARGV[at + 1])
  at = at + 2
end
if ids > 0 then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[5], ttl) else redis.call('PERSIST', KEYS[5]) end
end
local entries = tonumber(ARGV[at])
at = at + 1
if entries >= 0 then
  local ttl = redis.call('PTTL', KEYS[2])
  redis.call('DEL', KEYS[2])
  for _ = 1, entries do
    redis.call('XADD', KEYS[2], ARGV[at], 'p', ARGV[at + 1])
    at = at + 2
  end
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
end
redis.call('DEL', KEYS[3], KEYS[4])
return 1
""",
)


@dataclass
class Rewrite:
    """What one match needs rewritten (nothing: :attr:`needed` is False)."""

    meta: bytes = b""
    seat_fields: dict[bytes, bytes] = field(default_factory=dict)
    request_ids: dict[str, bytes] = field(default_factory=dict)
    entries: list[tuple[bytes, bytes]] | None = None
    old_keys: bool = False
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def needed(self) -> bool:
        changes = self.meta or self.seat_fields or self.request_ids or self.old_keys
        return bool(changes) or self.entries is not None


def old_kept_answers(value: bytes) -> list[tuple[str, KeptAnswer | None]]:
    """A seat's kept answers as any build wrote them, oldest first: each request id with its
    reference (None: an answer kept whole, which names no stream entry)."""
    kept: list[tuple[str, KeptAnswer | None]] = []
    at = 0
    if value[:1] not in (b"R", b"H", b"A"):  # the first layout: every answer whole
        while at < len(value):
            id_length, answer_length = _OLD_HEAD.unpack_from(value, at)
            at += _OLD_HEAD.size
            kept.append((value[at : at + id_length].decode(), None))
            at += id_length + answer_length
        return kept
    while at < len(value):
        kind = value[at]
        length, at = read_varint(value, at + 1)
        spelt = value[at : at + length]
        request_id = spelt.hex() if kind == _HEX else spelt.decode()
        number, at = read_varint(value, at + length)
        if kind == _WHOLE:
            kept.append((request_id, None))
            at += number
            continue
        ms, at = read_varint(value, at)
        seq, at = read_varint(value, at)
        kept.append((request_id, KeptAnswer(number, f"{ms}-{seq}" if ms else "")))
    return kept


def record_json(meta: bytes) -> bytes:
    """A record as today's engine writes it, from one any build wrote; ``b""``: it is so."""
    values = orjson.loads(meta)
    record = MatchRecord(**values) if isinstance(values, dict) else MatchRecord(*values)
    record.status = Status(record.status)
    stale = isinstance(values, dict)
    if record.status != Status.LOBBY and not record.moved_at:
        record.moved_at, stale = record.turn_started_at, True
    return record.to_json_bytes() if stale else b""


def rewrite_of(
    fields: dict[bytes, bytes],
    old_requests: dict[bytes, bytes],
    answered: bool,
    entries: list[tuple[bytes, dict[bytes, bytes]]],
    used: set[bytes],
) -> Rewrite:
    """What a match as read needs rewritten (see the module's list); of a match that is gone
    (keys left of it expire on their own), only its old keys are deleted."""
    rewrite = Rewrite(old_keys=bool(old_requests) or answered)
    rewrite.counts["old keys deleted"] += bool(old_requests) + answered
    if b"version" not in fields:
        return rewrite
    if b"meta" in fields:
        rewrite.meta = record_json(fields[b"meta"])
        rewrite.counts["records"] += bool(rewrite.meta)
    seats = {name[1:]: value for name, value in fields.items() if name[:1] == b"a"}
    for seat, value in old_requests.items():
        seats.setdefault(seat, value)
    for seat, value in seats.items():
        if not value:
            continue
        if value[:1] not in b"RH" or any(  # an old layout, or a whole answer among today's
            answer is None for _, answer in old_kept_answers(value)
        ):
            rewrite.seat_fields[b"a" + seat] = _references(value, rewrite.counts)
        elif fields.get(b"a" + seat) != value:
            rewrite.seat_fields[b"a" + seat] = value
        for request_id, answer in kept_answers(rewrite.seat_fields.get(b"a" + seat, value)):
            name = f"{seat.decode()}:{request_id}"
            if name.encode() not in used:
                rewrite.request_ids[name] = used_value(answer.version, answer.entry_id, "")
    rewrite.counts["request ids"] += len(rewrite.request_ids)
    if any(b"e" in values for _, values in entries):
        rewrite.entries = [
            (entry_id, values[b"p"] if b"p" in values else packed_events([values[b"e"]]))
            for entry_id, values in entries
        ]
        rewrite.counts["event streams"] += 1
    return rewrite


def _references(value: bytes, counts: Counter[str]) -> bytes:
    """A seat's field of today's layout holding the references among ``value``'s answers."""
    field_value = b""
    for request_id, answer in old_kept_answers(value):
        if answer is None:
            counts["whole answers dropped"] += 1
            continue
        field_value = with_answer(field_value, request_id, answer.version)
        field_value += entry_suffix(answer.entry_id)
    counts["kept answers"] += 1
    return field_value


async def migrate_match(client: redis.Redis, durability: Durability, match_id: str) -> Counter[str]:
    """Rewrite one match (see the module's list); what was rewritten, by kind."""
    key = match_key(match_id)
    keys = [key, events_key(match_id), f"{key}:requests", f"{key}:answered"]
    keys.append(request_ids_key(match_id))
    for _ in range(ATTEMPTS):
        async with client.pipeline(transaction=False) as pipe:
            pipe.hgetall(keys[0])
            pipe.xrange(keys[1])
            pipe.hgetall(keys[2])
            pipe.exists(keys[3])
            pipe.hkeys(keys[4])
            read = await pipe.execute()
        fields, entries, old_requests, answered, used = read
        rewrite = rewrite_of(fields, old_requests, bool(answered), entries, set(used))
        if not rewrite.needed:
            return Counter()
        args: list[Any] = [
            fields.get(b"version", b""),
            entries[-1][0] if entries else b"",
            rewrite.meta,
            len(rewrite.seat_fields),
            *(part for pair in rewrite.seat_fields.items() for part in pair),
            len(rewrite.request_ids),
            *(part for pair in rewrite.request_ids.items() for part in pair),
            -1 if rewrite.entries is None else len(rewrite.entries),
            *(part for pair in rewrite.entries or [] for part in pair),
        ]
        if await durability.call(_REWRITE, keys, args, wait=True):
            return +rewrite.counts
    raise RuntimeError(f"match {match_id}: changed on every one of {ATTEMPTS} reads")


async def migrate_all(client: redis.Redis, durability: Durability | None = None) -> Counter[str]:
    """Rewrite every match in ``client``'s Redis (every master of a cluster)."""
    durability = durability or Durability(client)
    match_ids: set[str] = set()
    async for name in client.scan_iter(match="match:{*", count=1000):
        found = _MATCH_KEY.match(name)
        if found:
            match_ids.add(found.group(1).decode())
    total: Counter[str] = Counter()
    for match_id in sorted(match_ids):
        done = await migrate_match(client, durability, match_id)
        total["matches"] += bool(done)
        total += done
    return total


async def migrate(settings: Settings) -> Counter[str]:
    async with open_redis(settings.redis()) as client:
        durability = Durability(client, settings.redis_min_replicas, settings.redis_wait_ms)
        return await migrate_all(client, durability)


def main() -> None:
    try:
        settings = load_settings(Settings)
    except ConfigError as error:
        print(f"engine migrate: {error}", file=sys.stderr)
        sys.exit(2)
    done = asyncio.run(migrate(settings))
    if not done:
        print("nothing of an earlier build found: nothing rewritten")
    for kind, count in sorted(done.items()):
        print(f"{kind}: {count}")


if __name__ == "__main__":
    main()
