"""The engine's one Redis access layer: match records, atomic moves, event streams, deadlines.

Every key of a match carries the hash tag ``{match_id}``, so a match lives in one Redis Cluster
slot and the move script touches one slot only:

- ``match:{id}``          hash: ``version``, ``meta`` (JSON :class:`MatchRecord`, a list of its
  fields' values), ``state`` (bytes), and ``a{seat}`` per seat that acted: what the seat keeps
  of its latest answers, for retried request ids (:func:`kept_answers`): each answer's request
  id, version and the id of its commit's stream entry, from which a retry reads its events
  again (in the match's hash, not a key of their own: about 120 bytes less per match)
- ``match:{id}:events``   stream of serialized ``maumau.v1.Event`` messages: one entry per
  commit, field ``p``, its events each preceded by its length (a varint), as
  :func:`stream_events` reads them; an event's id is that of the entry for its last event and
  counts down from there for the ones before it (the ids one entry per event would have had;
  entries of earlier versions hold one event each, field ``e``)
- ``match:{id}:requests`` hash: seat -> the seat's kept answers as the earlier release kept
  them (whole), in matches live during the upgrade: read while the seat has no ``a{seat}``
  field, its field dropped once it has
- ``match:{id}:request_ids`` hash: ``{seat}:{request id}`` -> ``{version} {stream entry id}
  {action}`` for every action a seat took with a request id, kept as long as the match: a
  request id used again is never applied again, and one used for another action is refused
- ``match:{id}:published`` set once the result went to the results stream

Global keys: ``engine:deadlines:{n}`` (sorted sets: match id -> due time, one per shard ``n``
of ``MAUMAU_REDIS_SHARDS``, the match's shard by :func:`shard_of`; every replica claims from
every shard), the results stream (its name and entries are the ``MatchResult`` contract in
game.proto), ``engine:active`` (set of matches being played), ``player:{id}:matches`` (sorted
set: a match not over scores :data:`NOT_OVER` plus when the player entered it, a finished one
when it finished, so the highest come first in the list; a finished match leaves it a retention
after it finished, with its record, and the list keeps ``player_history`` matches, the oldest
finished ones going first; the key goes a retention after the player's last new or finished
match).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import struct
from collections import OrderedDict
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, cast

import orjson
import redis.asyncio as redis

from maumau import fairness
from maumau.common.players import player_key
from maumau.common.redis_client import (
    DEFAULT_SHARDS,
    Call,
    Durability,
    Script,
    is_cluster,
    shard_of,
)
from maumau.common.results import result_entry, results_stream_of, results_streams
from maumau.v1 import game_pb2

log = logging.getLogger(__name__)

DEADLINES = "engine:deadlines"
"""The prefix of the deadline shards: ``engine:deadlines:{n}``."""
ACTIVE = "engine:active"
NOT_OVER = 1e12
"""Added to the score of a match not over in a player's list, so no time of a finished match
reaches it: matches being played list first, and trimming finished ones by time spares them."""

KEPT_ANSWERS_PER_SEAT = 2
"""Answers kept per seat of a match, for retried request ids. A client retries its latest
action as soon as its answer is lost, before it sends another, so its seat's latest answer is
the one a retry asks for; two cover a second action sent while the first was in flight. They
are kept per seat, so what the other seats do meanwhile never pushes a seat's answer out. Of
an answer only its request id, version and the id of its commit's stream entry are kept: a
retry (rare) reads the events from that entry again (the stream is never trimmed while the
match lives) and shows the seat's view as it is then. Older request ids are in the match's
``request_ids`` hash, which the commit script checks (:meth:`MatchStore.used_request`)."""

# Write the new state only if the version is unchanged, append the events, keep the seat's
# answers. KEYS: match hash, events stream, requests hash, the list of kept request ids of
# earlier versions (left by a match live during an upgrade: it expires with the match), the
# request ids hash; on a single Redis also the match's deadline shard (on a cluster it lies in
# another slot). ARGV: expected version ('' for a new match), meta, state, seat ('' for no
# answer to keep), the seat's kept answers up to the new one's stream entry id (which the
# script appends: two varints, its milliseconds and sequence, 0 and 0 when the commit has no
# events), seconds the match's keys live from now ('0': for good; a lobby's keys expire unless
# someone comes, a finished match's after the retention), the events packed, their count, the
# request id and the action's text (with a seat); with the deadline shard the due time (only
# ever moved earlier) and the match id. The entry's id leaves room for an id per event (see
# the docstring above). A request applied before cannot be applied again: the seat's request
# id is in the request ids hash, checked before the version, so 'used' answers what it was
# used for, whatever version the caller read. A conflict
# answers the match as it is (its version, its hash and the earlier release's kept answers;
# only '' when it is gone), so the caller tries again without reading it first.
_COMMIT = Script(
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
  local used = redis.call('HGET', KEYS[5], request)
  if used then return {'used', used} end
end
local version = redis.call('HGET', KEYS[1], 'version')
if (version or '') ~= ARGV[1] then
  if not version then return {'conflict', ''} end
  return {'conflict', version, redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[3])}
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
  redis.call('HDEL', KEYS[3], ARGV[4])
  redis.call('HSET', KEYS[5], request, next_version .. ' ' .. last .. ' ' .. ARGV[10])
end
if KEYS[6] then redis.call('ZADD', KEYS[6], 'LT', ARGV[11], ARGV[12]) end
if ARGV[6] ~= '0' then
  for i = 1, 5 do redis.call('EXPIRE', KEYS[i], ARGV[6]) end
else
  for i = 1, 5 do if i ~= 4 then redis.call('PERSIST', KEYS[i]) end end
end
return {'ok', tostring(next_version), last}
""",
)


def packed_events(events: list[bytes]) -> bytes:
    """The events of one commit as one stream entry holds them: each preceded by its length."""
    return b"".join(_varint(len(event)) + event for event in events)


def _varint(number: int) -> bytes:
    out = bytearray()
    while number > 0x7F:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def stream_events(entry_id: str, fields: dict[bytes, bytes]) -> list[tuple[str, bytes]]:
    """The events of one stream entry, each with its id.

    >>> stream_events("17-5", {b"p": packed_events([b"ab", b"c"])})
    [('17-4', b'ab'), ('17-5', b'c')]
    """
    single = fields.get(b"e")
    if single is not None:
        return [(entry_id, single)]
    data, events, at = fields[b"p"], [], 0
    while at < len(data):
        length, at = _read_varint(data, at)
        events.append(data[at : at + length])
        at += length
    ms, seq = entry_id.split("-")
    first = int(seq) - len(events) + 1
    return [(f"{ms}-{first + n}", event) for n, event in enumerate(events)]


def stream_position(event_id: str) -> tuple[int, int]:
    """An event id (or "0", the start) as numbers, in the order of the stream.

    >>> stream_position("1700000000000-3") > stream_position("1700000000000-2")
    True
    """
    ms, _, seq = event_id.partition("-")
    return int(ms), int(seq or 0)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    """The varint at ``at`` and where what follows it starts."""
    number, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        number |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return number, at


@dataclass(frozen=True)
class KeptAnswer:
    """What a seat keeps of an answer for a retried request id: the version the action made and
    the id of its commit's stream entry, whose events a retry reads again ('': none); or, kept
    by an earlier release, the answer itself (an ActResponse without its view)."""

    version: int
    entry_id: str
    answer: bytes | None = None
    action: str | None = None
    """The text of the action the request carried, when the match's request ids hash has it
    (None: not known, an answer kept before the hash was)."""


def used_answer(value: bytes) -> KeptAnswer:
    """What the request ids hash holds of a request: its version, stream entry id, action.

    >>> used_answer(b"7 1700000000000-2 JD:S!mau")
    KeptAnswer(version=7, entry_id='1700000000000-2', answer=None, action='JD:S!mau')
    """
    version, entry_id, action = value.decode().split(" ", 2)
    return KeptAnswer(int(version), entry_id, action=action or None)


_REFERENCE, _HEX_REFERENCE, _WHOLE = b"R", b"H", b"A"
"""The kinds of a kept answer: a reference (request id, version, stream entry id), the same
with a request id of lowercase hex digits kept as the bytes they spell (half the size: the
clients' ids are 32 such digits), or, carried over from an earlier release, the answer
itself."""
_KINDS = (_REFERENCE, _HEX_REFERENCE, _WHOLE)
_WHOLE_CODE = _WHOLE[0]
_OLD_KEPT = struct.Struct(">HI")
"""The head of an answer kept by an earlier release: the request id's length, the answer's."""


def kept_answers(value: bytes | None) -> list[tuple[str, KeptAnswer, bytes]]:
    """A seat's kept answers, oldest first, from its field of the requests hash: each with its
    request id and its record as the field holds it. A record is its kind, the request id
    (a varint length, then its UTF-8, or its bytes for a hex id), then for a reference the
    version and the entry's milliseconds and sequence (varints), for a whole answer its length
    (a varint) and bytes.
    A field of an earlier release (first byte the high byte of a 2-byte length, never a kind)
    is a list of (request id length, answer length, request id, answer)."""
    if not value:
        return []
    if value[:1] not in _KINDS:
        return [
            (request_id, KeptAnswer(0, "", answer), _whole_record(request_id, answer))
            for request_id, answer in _old_kept_answers(value)
        ]
    kept, at = [], 0
    while at < len(value):
        start, kind = at, value[at : at + 1]
        length, at = _read_varint(value, at + 1)
        spelt = value[at : at + length]
        request_id = spelt.hex() if kind == _HEX_REFERENCE else spelt.decode()
        number, at = _read_varint(value, at + length)
        if kind != _WHOLE:
            ms, at = _read_varint(value, at)
            seq, at = _read_varint(value, at)
            answer = KeptAnswer(number, f"{ms}-{seq}" if ms else "")
        else:
            answer, at = KeptAnswer(0, "", value[at : at + number]), at + number
        kept.append((request_id, answer, value[start:at]))
    return kept


def _old_kept_answers(value: bytes) -> list[tuple[str, bytes]]:
    kept: list[tuple[str, bytes]] = []
    at = 0
    while at < len(value):
        id_length, answer_length = _OLD_KEPT.unpack_from(value, at)
        at += _OLD_KEPT.size
        request_id = value[at : at + id_length].decode()
        at += id_length
        kept.append((request_id, value[at : at + answer_length]))
        at += answer_length
    return kept


def _whole_record(request_id: str, answer: bytes) -> bytes:
    encoded = request_id.encode()
    return _WHOLE + _varint(len(encoded)) + encoded + _varint(len(answer)) + answer


def with_answer(value: bytes | None, request_id: str, version: int) -> bytes:
    """The seat's field with an answer for ``request_id`` at ``version`` kept, but for its
    stream entry id (the commit script appends it), the oldest beyond the latest
    KEPT_ANSWERS_PER_SEAT forgotten."""
    records = _records(value)
    earlier = records[max(0, len(records) + 1 - KEPT_ANSWERS_PER_SEAT) :]
    kind, encoded = _spelt(request_id)
    return b"".join([*earlier, kind, _varint(len(encoded)), encoded, _varint(version)])


def _records(value: bytes | None) -> list[bytes]:
    """The records of a seat's field, oldest first, as :func:`kept_answers` finds them, but
    only told apart, not read (an earlier release's field: each made a record of today's)."""
    if not value:
        return []
    if value[:1] not in _KINDS:
        return [record for _, _, record in kept_answers(value)]
    records, at = [], 0
    while at < len(value):
        start = at
        length, at = _read_varint(value, at + 1)
        number, at = _read_varint(value, at + length)
        if value[start] == _WHOLE_CODE:
            at += number
        else:  # the entry's milliseconds and sequence
            at = _read_varint(value, _read_varint(value, at)[1])[1]
        records.append(value[start:at])
    return records


def _spelt(request_id: str) -> tuple[bytes, bytes]:
    """A request id's kind of record and its bytes there (see :func:`kept_answers`): the
    bytes its digits spell when it is pairs of lowercase hex digits (they read back the
    same), else its UTF-8."""
    if request_id:
        try:
            spelt = bytes.fromhex(request_id)
        except ValueError:
            pass
        else:
            if spelt.hex() == request_id:
                return _HEX_REFERENCE, spelt
    return _REFERENCE, request_id.encode()


# Claim due deadlines: push each one a lease into the future, so a replica that dies while
# handling it leaves it to come due again. KEYS: deadline shards (on a single Redis all of them,
# on a cluster one). ARGV: now, lease seconds, how many from each shard.
_CLAIM = Script(
    "engine.claim",
    """
local due = {}
for _, key in ipairs(KEYS) do
  local found = redis.call('ZRANGEBYSCORE', key, '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
  for _, member in ipairs(found) do
    redis.call('ZADD', key, tonumber(ARGV[1]) + tonumber(ARGV[2]), member)
    due[#due + 1] = member
  end
end
return due
""",
)


class Status(StrEnum):
    """Where a match is in its life: seats being taken, cards being played, finished."""

    LOBBY = "lobby"
    PLAYING = "playing"
    OVER = "over"


@dataclass
class MatchRecord:
    """Everything about a match besides the rules state: seats, players, timers, fairness."""

    match_id: str
    ruleset: str
    seats: int
    ranked: bool
    turn_seconds: int
    max_timeouts: int
    auto_start: bool
    seed_commitment: str
    server_seed: str
    players: list[str] = field(default_factory=list)
    """Player id per seat, '' for a free or bot seat."""
    names: list[str] = field(default_factory=list)
    bots: list[str] = field(default_factory=list)
    """Bot level per seat, '' for a human seat."""
    nonces: list[str] = field(default_factory=list)
    left: list[bool] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    status: Status = Status.LOBBY
    deal_seed: str = ""
    turn_started_at: float = 0.0
    created_at: float = 0.0
    moved_at: float = 0.0
    """When the last action was taken (or the deal); 0 in records of earlier versions."""

    def free_seats(self) -> list[int]:
        return [s for s in range(self.seats) if not self.players[s] and not self.bots[s]]

    def to_json(self) -> str:
        """The fields' values in their order, without their names (a third of the text); times
        to the millisecond; the seed commitment and the deal seed empty when they are the ones
        the server seed (and the nonces) give, as they are but in tests (:meth:`from_json`
        derives them again: 130 bytes less per match). Fields added later go last, with
        defaults, so older records read."""
        return self.to_json_bytes().decode()

    def to_json_bytes(self) -> bytes:
        """:meth:`to_json` as the UTF-8 bytes a commit stores."""
        values = [round(v, 3) if type(v) is float else v for v in vars(self).values()]
        derived = self._derived_seeds()
        for at, name in _DERIVABLE:
            if values[at] == derived[name]:
                values[at] = ""
        return orjson.dumps(values)

    def _derived_seeds(self) -> dict[str, str]:
        """The seed commitment and deal seed that the server seed and nonces give."""
        return _derived_seeds(self.server_seed, tuple(self.nonces))

    def copy(self) -> MatchRecord:
        """An independent copy (the per-seat lists too), for a change to work on."""
        copied = object.__new__(MatchRecord)
        fields = copied.__dict__
        fields.update(vars(self))
        for name, value in fields.items():
            if type(value) is list:
                fields[name] = value[:]
        return copied

    @classmethod
    def from_json(cls, text: str | bytes) -> MatchRecord:
        """A record as :meth:`to_json` writes it, or as an object of named fields (earlier
        versions)."""
        values = orjson.loads(text)
        record = cls(**values) if isinstance(values, dict) else cls(*values)
        record.status = Status(record.status)
        if not record.seed_commitment or (not record.deal_seed and record.status != Status.LOBBY):
            derived = record._derived_seeds()
            record.seed_commitment = record.seed_commitment or derived["seed_commitment"]
            if record.status != Status.LOBBY:
                record.deal_seed = record.deal_seed or derived["deal_seed"]
        return record


@functools.lru_cache(maxsize=1024)
def _derived_seeds(server_seed: str, nonces: tuple[str, ...]) -> dict[str, str]:
    """Two hashes that every commit of a match would compute again, remembered for the matches
    a replica is serving (the caller must not change the dict). An entry is about 0.9 KB and a
    miss costs two SHA-256s, so the bound is kept small: about 1 MB, filled early in a replica's
    life rather than growing for hours."""
    return {
        "seed_commitment": fairness.commitment(server_seed),
        "deal_seed": fairness.deal_seed(server_seed, nonces),
    }


_DERIVABLE = [
    (at, item.name)
    for at, item in enumerate(dataclasses.fields(MatchRecord))
    if item.name in ("seed_commitment", "deal_seed")
]
"""The positions of the seeds that :meth:`MatchRecord.to_json` leaves empty when derivable."""


@dataclass
class Stored:
    record: MatchRecord
    state: bytes
    version: int


@dataclass(frozen=True)
class NewMatch:
    """A match to store for the first time (:meth:`MatchStore.commit_new`)."""

    record: MatchRecord
    state: bytes
    events: list[bytes]
    retention_seconds: int
    deadline: float | None

    def commit_args(
        self,
    ) -> tuple[str, None, MatchRecord, bytes, list[bytes], None, int]:
        """The arguments of :meth:`MatchStore.commit` (before its deadline) that store it: no
        version expected and no answer kept."""
        record = self.record
        return record.match_id, None, record, self.state, self.events, None, self.retention_seconds


@dataclass
class Committed:
    """The outcome of a commit: 'ok' (with the new version), 'conflict' (the version moved
    on) or 'used' (the seat used the request id before: ``earlier`` says for what)."""

    status: Literal["ok", "conflict", "used"]
    version: int = 0
    deadline_set: bool = True
    """False: the deadline given with the commit was not confirmed (on a cluster its shard's
    node failed where the match's did not); the caller must set it again."""
    earlier: KeptAnswer | None = None


@dataclass
class Answers:
    """The answers a seat keeps for retried request ids, as read with the match (a commit
    writes them back with one more, the version check keeping them current)."""

    seat: int
    kept: bytes | None

    def answer(self, request_id: str) -> KeptAnswer | None:
        """What is kept of the answer to ``request_id`` (None: not applied, or long ago)."""
        kept = self.kept
        if not kept:
            return None
        # The usual case, told without reading the records one by one: the id is in none of
        # them (as a reference spells it, nor as a whole answer carried over holds it).
        absent = kept[:1] in _KINDS and request_id.encode() not in kept
        if absent and _spelt(request_id)[1] not in kept:
            return None
        return next((a for kept_id, a, _ in kept_answers(kept) if kept_id == request_id), None)


@dataclass(frozen=True)
class Current:
    """A match as a change starts from: the stored match and every seat's kept answers at its
    version. ``fresh``: read from Redis for this change, not remembered (see MatchCache)."""

    stored: Stored
    requests: dict[int, bytes]
    fresh: bool = True

    def answers(self, seat: int) -> Answers:
        return Answers(seat, self.requests.get(seat))


class MatchCache:
    """The matches this replica read or committed last, each as of its version (at most
    ``size``, the least recently used forgotten first; 0 remembers nothing). A finished match
    is not remembered: it takes no more actions, and keeping it would hold a replica's memory
    until ``size`` finished matches filled the cache.

    A change usually starts from here without reading Redis: the commit's version check refuses
    one computed from a match that another replica moved on meanwhile, and the refusal brings
    the match as it is now (see ``_COMMIT``). What is remembered decides nothing by itself: a
    change that fails or finds nothing to do on it is computed again from a fresh read."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[str, Current] = OrderedDict()

    def get(self, match_id: str) -> Current | None:
        entry = self._entries.get(match_id)
        if entry is not None:
            self._entries.move_to_end(match_id)
        return entry

    def put(self, match_id: str, current: Current) -> None:
        if self.size == 0:
            return
        if current.stored.record.status is Status.OVER:
            self.forget(match_id)
            return
        self._entries[match_id] = Current(current.stored, current.requests, fresh=False)
        self._entries.move_to_end(match_id)
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def forget(self, match_id: str) -> None:
        self._entries.pop(match_id, None)

    def committed(
        self, match_id: str, expected: int | None, stored: Stored, kept: tuple[int, bytes] | None
    ) -> None:
        """Remember a commit of ``stored`` over version ``expected`` (None: a new match) that
        kept ``kept`` (seat, its answers); forget the match when what it was is not at hand."""
        if expected is None:
            requests: dict[int, bytes] = {}
        else:
            before = self._entries.get(match_id)
            if before is None or before.stored.version != expected:
                self.forget(match_id)
                return
            requests = before.requests if kept is None else {**before.requests, kept[0]: kept[1]}
        self.put(match_id, Current(stored, requests))


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    """A hash as a script returns it (field, value, ...) as a dict."""
    return {flat[n]: flat[n + 1] for n in range(0, len(flat), 2)}


def _current(fields: dict[bytes, bytes], kept_before: dict[bytes, bytes]) -> Current | None:
    """The match as its hash holds it, with every seat's kept answers: its ``a{seat}`` field,
    else what the earlier release kept in ``kept_before`` (None: the match is gone)."""
    version, meta = fields.get(b"version"), fields.get(b"meta")
    if version is None or meta is None:
        return None
    stored = Stored(MatchRecord.from_json(meta), fields.get(b"state", b""), int(version))
    requests = {int(seat): kept for seat, kept in kept_before.items()}
    for name, kept in fields.items():
        if name[:1] == b"a":
            requests[int(name[1:])] = kept
    return Current(stored, requests)


def _entry_varints(entry_id: str) -> bytes:
    """A stream entry id as the commit script appends it to a kept answer (0 and 0: none)."""
    ms, _, seq = entry_id.partition("-")
    return _varint(int(ms or 0)) + _varint(int(seq or 0))


def match_key(match_id: str) -> str:
    return f"match:{{{match_id}}}"


def request_ids_key(match_id: str) -> str:
    """Every request id the match's seats acted with, and what for (see the module's keys)."""
    return f"{match_key(match_id)}:request_ids"


def published_key(match_id: str) -> str:
    """Set once the match's result went to the results stream."""
    return f"{match_key(match_id)}:published"


def player_matches_key(player_id: str) -> str:
    return f"{player_key(player_id)}:matches"


def deadlines_key(shard: int) -> str:
    return f"{DEADLINES}:{{{shard}}}"


class MatchStore:
    """Reads and atomic writes of matches in Redis; every replica uses one of these."""

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
        self.one_node = not is_cluster(client)
        """A single Redis, where one script may touch any key: the commit script sets the
        match's deadline itself, and one claims from every deadline shard. On a cluster the
        deadlines lie in other slots than the match and than each other."""
        self.deadline_keys = [deadlines_key(shard) for shard in range(shards)]
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
        """The match and every seat's kept answers, read in one round trip (and remembered);
        those the earlier release kept in a key of their own are read after the match: when a
        commit comes in between, it moved them into the match's hash, and a commit at the
        version read fails."""
        key = match_key(match_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(key)
            pipe.hgetall(f"{key}:requests")
            fields, kept_before = await pipe.execute()
        current = _current(fields, kept_before)
        if current is None:
            self.cache.forget(match_id)
        else:
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
        request id the seat used before is not applied again ('used').
        ``deadline`` is only ever moved earlier: on a single Redis by the script, on a cluster
        (where the deadlines lie outside the match's slot) ahead of it in the same round trip.
        The cache remembers the outcome: the match as committed, or as the conflict found it."""
        kept = None
        if answered is not None:
            answers, request_id = answered
            version = (expected_version or 0) + 1
            kept = answers.seat, with_answer(answers.kept, request_id, version)
        keys, args = self._commit_call(
            match_id, expected_version, record, state, events, kept, retention_seconds
        )
        if answered is not None:
            args[-2:] = [answered[1], action]
        deadline_set = True
        if deadline is None:
            reply = await self.durability.call(_COMMIT, keys, args, wait=True)
        elif self.one_node:
            keys.append(self.deadlines_of(match_id))
            args += [repr(deadline), match_id]
            reply = await self.durability.call(_COMMIT, keys, args, wait=True)
        else:
            reply, deadline_set = await self._commit_after_deadline(match_id, deadline, keys, args)
        if reply[0] == b"used":
            return Committed("used", earlier=used_answer(reply[1]))
        if reply[0] == b"ok":
            version = int(reply[1])
            if kept is not None:  # as the script keeps it: with its commit's stream entry id
                kept = kept[0], kept[1] + _entry_varints(reply[2].decode())
            self.cache.committed(match_id, expected_version, Stored(record, state, version), kept)
            return Committed("ok", version, deadline_set)
        current = None if len(reply) == 2 else _current(_pairs(reply[2]), _pairs(reply[3]))
        if current is None:  # the match is gone
            self.cache.forget(match_id)
        else:
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
    ) -> tuple[list[str], list[str | bytes]]:
        """The commit script's keys and arguments; ``kept``: a seat and its answers to keep."""
        key = match_key(match_id)
        keys = [
            key,
            f"{key}:events",
            f"{key}:requests",
            f"{key}:answered",
            request_ids_key(match_id),
        ]
        seat, answers = ("", b"") if kept is None else (str(kept[0]), kept[1])
        args: list[str | bytes] = [
            "" if expected_version is None else str(expected_version),
            record.to_json_bytes(),
            state,
            seat,
            answers,
            str(retention_seconds),
            packed_events(events),
            str(len(events)),
            "",  # the request id and the action's text (see commit)
            "",
        ]
        return keys, args

    async def commit_new(self, matches: list[NewMatch]) -> list[Committed]:
        """Store several new matches in one round trip: per match its deadline (only ever moved
        earlier) and its own commit script, as :meth:`commit` with no expected version does, so
        each match is stored whole or not at all, and one that exists already (a retried
        request id) is left as it is: "conflict". The deadlines are not waited for here:
        :meth:`settle_new` sets them again and waits for the replicas."""
        calls: list[Call] = []
        for new in matches:
            keys, args = self._commit_call(*new.commit_args())
            if new.deadline is not None:
                calls.append(self._deadline_call(new.record.match_id, new.deadline, wait=False))
            calls.append(Call(_COMMIT, keys, args, wait=True))
        replies = iter(await self.durability.replies(calls))
        committed = []
        for new in matches:
            deadline_set = next(replies) if new.deadline is not None else None
            reply = next(replies)
            if isinstance(reply, Exception):
                raise reply
            if isinstance(deadline_set, Exception):  # settle_new sets it again; see commit()
                log.warning(
                    "match %s: its deadline was not set with its commit: %r",
                    new.record.match_id,
                    deadline_set,
                )
            if reply[0] == b"ok":
                stored = Stored(new.record, new.state, int(reply[1]))
                self.cache.committed(new.record.match_id, None, stored, None)
                committed.append(Committed("ok", stored.version))
            else:
                committed.append(Committed("conflict"))
        return committed

    async def settle_new(self, settled: list[tuple[str, float | None, bool]]) -> None:
        """After :meth:`commit_new`, in one round trip: each (match id, deadline, playing)'s
        deadline set again (only earlier; confirmed by replicas where they are required) and a
        started match put among the active ones. Raises when a deadline was not confirmed."""
        calls: list[Call] = []
        last_of: dict[str, int] = {}  # a shard's last write waits for the replicas (all of them)
        for match_id, due, playing in settled:
            if due is not None:
                last_of[self.deadlines_of(match_id)] = len(calls)
                calls.append(self._deadline_call(match_id, due, wait=False))
            if playing:
                calls.append(Call("SADD", [ACTIVE], [match_id]))
        for n in last_of.values():
            calls[n] = calls[n]._replace(wait=True)
        await self.durability.run(calls)

    async def _commit_after_deadline(
        self, match_id: str, deadline: float, keys: list[str], args: list[str | bytes]
    ) -> tuple[Any, bool]:
        """The commit script's reply, and whether the deadline was set (and confirmed). A
        deadline that failed where the commit did not leaves the commit standing: the caller
        sets the deadline again, and goes on to its after-commit work either way."""
        deadline_set, reply = await self.durability.replies(
            [  # a deadline lost in a failover would leave a bot's turn waiting forever
                self._deadline_call(match_id, deadline, wait=True),
                Call(_COMMIT, keys, args, wait=True),
            ]
        )
        deadline_ok = not isinstance(deadline_set, Exception)
        if not deadline_ok:
            log.warning(
                "match %s: its deadline was not set with its commit: %r", match_id, deadline_set
            )
        if isinstance(reply, Exception):
            raise reply
        return reply, deadline_ok

    def _deadline_call(self, match_id: str, due: float, wait: bool, earlier: bool = True) -> Call:
        """ZADD of the match's deadline (``earlier``: only if sooner than the one set)."""
        flags = ("LT",) if earlier else ()
        return Call("ZADD", [self.deadlines_of(match_id)], [*flags, due, match_id], wait)

    async def used_request(self, match_id: str, seat: int, request_id: str) -> KeptAnswer | None:
        """What ``seat`` used ``request_id`` for in the match (version, stream entry, action);
        None: never, or before the match kept its request ids."""
        value = await self.redis.hget(request_ids_key(match_id), f"{seat}:{request_id}")
        return None if value is None else used_answer(cast(bytes, value))

    async def entry_events(self, match_id: str, entry_id: str) -> list[bytes] | None:
        """The events of one commit's stream entry, as a kept answer names it (a retry reads
        them again); None: the stream is gone (the match with it)."""
        if not entry_id:
            return []
        key = f"{match_key(match_id)}:events"
        entries = cast(
            list[tuple[bytes, dict[bytes, bytes]]], await self.redis.xrange(key, entry_id, entry_id)
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
            Any,
            await self.redis.xread(
                {f"{match_key(match_id)}:events": after}, count=count, block=block_ms
            ),
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

    def deadlines_of(self, match_id: str) -> str:
        """The deadline shard of a match."""
        return self.deadline_keys[shard_of(match_id, self.shards)]

    async def set_deadline(self, match_id: str, due: float, only_earlier: bool = False) -> None:
        """Set the match's deadline; ``only_earlier`` leaves a sooner one in place."""
        await self.durability.run([self._deadline_call(match_id, due, True, only_earlier)])

    async def clear_deadline(self, match_id: str) -> None:
        await self.redis.zrem(self.deadlines_of(match_id), match_id)

    async def deadline(self, match_id: str) -> float | None:
        """When the match is due (or its claim's lease ends); None: no deadline."""
        due: float | None = await self.redis.zscore(self.deadlines_of(match_id), match_id)
        return due

    async def claim_due(self, now: float, lease_seconds: float, limit: int) -> list[str]:
        """Claim up to ``limit`` due deadlines, a share from every shard, in one round trip:
        on a single Redis one script for every shard (the loop polls often, and a script per
        shard cost as much as the moves between two polls), on a cluster one per shard."""
        each = -(-limit // self.shards)
        args = [now, lease_seconds, each]
        if self.one_node:
            calls = [Call(_CLAIM, self.deadline_keys, args)]
        else:
            calls = [Call(_CLAIM, [key], args) for key in self.deadline_keys]
        return [member.decode() for found in await self.durability.run(calls) for member in found]

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

    async def mark_active(self, match_id: str, active: bool) -> None:
        """Keep the set of matches being played, for the matches-active metric."""
        if active:
            await self.redis.sadd(ACTIVE, match_id)
        else:
            await self.redis.srem(ACTIVE, match_id)

    async def count_active(self) -> int:
        count: int = await self.redis.scard(ACTIVE)
        return count

    async def earliest_deadline(self) -> float | None:
        """The due time of the earliest deadline of any match (None: no deadline set)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in self.deadline_keys:
                pipe.zrange(key, 0, 0, withscores=True)
            firsts = cast(list[list[tuple[bytes, float]]], await pipe.execute())
        return min((first[0][1] for first in firsts if first), default=None)

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
