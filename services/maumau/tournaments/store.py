"""The tournaments' one Redis access layer: tournament records, atomic changes, leases, the
championship.

A tournament's keys share the hash tag ``{tournament_id}``, so each lives in one Redis Cluster
slot and its commit script touches one slot only:

- ``tour:{id}``         hash: ``version``, ``state`` (JSON of :class:`~.state.Tournament`)
- ``tour:{id}:events``  stream of serialized ``maumau.v1.TournamentEvent`` (field ``e``), capped
- ``tour:{id}:owner``   the replica driving the tournament now (expires after the lease)

Keys of other slots, each written on its own (idempotent, so a repeat after a crash is harmless):

- ``tournaments:due``           sorted set: tournament id -> when a replica should look at it next
                                (while one drives it: when its lease runs out)
- ``tournaments:index``         sorted set: tournament id -> created at (listing)
- ``tournaments:expiring``      sorted set: tournament id -> when its keys expire (index cleanup)
- ``tournaments:organizer:{id}`` sorted set: the organizer's tournaments not over yet (the quota)
- ``tournaments:match:{match_id}`` the tournament a match belongs to (for the results stream)
- ``championship:{year}:points``   sorted set: player -> championship points of the year
- ``championship:{year}:maumaus``, ``:tournaments``, ``:names``  hashes per player
- ``championship:{year}:awarded``  set of the tournaments counted (each once)
- ``championship:{year}:deciders`` hash: player -> the deciding tournament of their tie
- ``championship:{year}:decided``  hash: player -> place in that deciding tournament
- ``tournaments:player:{player}``  sorted set: tournament id -> finished at (a player's history,
  the latest HISTORY_KEPT)
- ``tournaments:player:{player}:places``  hash: tournament id -> JSON place, points

Finished and cancelled tournaments expire ``retention_seconds`` after they end; championship
years and histories ``championship_retention_seconds`` after their last write.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import grpc
import redis.asyncio as redis

from maumau.common.errors import ServiceError
from maumau.common.redis_client import Durability, Script
from maumau.tournaments.state import OVER, Events, Tournament
from maumau.v1 import tournaments_pb2 as pb

log = logging.getLogger(__name__)

DUE = "tournaments:due"
INDEX = "tournaments:index"
EXPIRING = "tournaments:expiring"
EVENTS_KEPT = 5000
"""Events kept per tournament stream: a 64-entrant tournament writes about 1,500."""
CAS_ATTEMPTS = 50

T = TypeVar("T")

# Write the new state if the version is unchanged, append the events, set the expiry once over.
# KEYS: hash, events, owner. ARGV: expected version ('' for a new tournament), state, expiry
# seconds ('0': none), events cap, then the events.
_COMMIT = Script(
    "tournaments.commit",
    """
local version = redis.call('HGET', KEYS[1], 'version')
if (version or '') ~= ARGV[1] then return {'conflict', version or ''} end
local next_version = (tonumber(version) or 0) + 1
redis.call('HSET', KEYS[1], 'version', next_version, 'state', ARGV[2])
local last = ''
for i = 5, #ARGV do
  last = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'e', ARGV[i])
end
if ARGV[3] ~= '0' then
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[3]) end
end
return {'ok', tostring(next_version), last}
""",
)

# Take or keep the lease of driving a tournament. KEYS: owner. ARGV: replica, lease ms.
_LEASE = Script(
    "tournaments.lease",
    """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
""",
)

# Give up the lease if this replica holds it. KEYS: owner. ARGV: replica.
_RELEASE = Script(
    "tournaments.release",
    """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
""",
)

# Claim due tournaments: push each a lease into the future. KEYS: due. ARGV: now, lease, count.
_CLAIM = Script(
    "tournaments.claim",
    """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), member)
end
return due
""",
)

# Count an organizer's tournament against the quota. KEYS: organizer set. ARGV: id, now, limit.
_QUOTA = Script(
    "tournaments.quota",
    """
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
""",
)

# Add a finished tournament's places to a championship year, once. KEYS: points, maumaus,
# tournaments, names, awarded. ARGV: tournament id, expiry seconds, then per player: id, points,
# Mau-Mau finishes, name.
_AWARD = Script(
    "tournaments.award",
    """
if redis.call('SADD', KEYS[5], ARGV[1]) == 0 then return 0 end
for i = 3, #ARGV, 4 do
  redis.call('ZINCRBY', KEYS[1], ARGV[i + 1], ARGV[i])
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 2])
  redis.call('HINCRBY', KEYS[3], ARGV[i], 1)
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 3])
end
for i = 1, 5 do redis.call('EXPIRE', KEYS[i], ARGV[2]) end
return 1
""",
)


def tournament_key(tournament_id: str) -> str:
    return f"tour:{{{tournament_id}}}"


def match_key(match_id: str) -> str:
    return f"tournaments:match:{{{match_id}}}"


HISTORY_KEPT = 100
"""Tournaments kept in each player's history."""

# KEYS: a player's history, its places. ARGV: tournament id, finished at, place JSON, entries
# kept, seconds to keep. Adds the entry and forgets the oldest beyond those kept.
_RECORD_HISTORY = Script(
    "tournaments.record_history",
    """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
local old = redis.call('ZRANGE', KEYS[1], 0, -tonumber(ARGV[4]) - 1)
if #old > 0 then
  redis.call('ZREM', KEYS[1], unpack(old))
  redis.call('HDEL', KEYS[2], unpack(old))
end
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
""",
)


def organizer_key(player_id: str) -> str:
    return f"tournaments:organizer:{{{player_id}}}"


def championship_keys(year: int) -> list[str]:
    base = f"championship:{{{year}}}"
    return [f"{base}:{part}" for part in ("points", "maumaus", "tournaments", "names", "awarded")]


def decider_keys(year: int) -> tuple[str, str]:
    """The year's deciding tournaments and their places, in the slot of the year's keys."""
    base = f"championship:{{{year}}}"
    return f"{base}:deciders", f"{base}:decided"


def history_key(player: str) -> str:
    return f"tournaments:player:{{{player}}}"


class NotFound(ServiceError):
    def __init__(self, tournament_id: str) -> None:
        super().__init__(grpc.StatusCode.NOT_FOUND, f"no tournament {tournament_id!r}")


class AlreadyExists(ServiceError):
    def __init__(self, tournament_id: str) -> None:
        super().__init__(
            grpc.StatusCode.ALREADY_EXISTS, f"tournament id {tournament_id!r} is taken"
        )


@dataclass
class Stored:
    tournament: Tournament
    version: int


@dataclass(frozen=True)
class ChampionshipRow:
    player: str
    name: str
    points: int
    maumaus: int
    tournaments: int


class TournamentStore:
    """Reads and atomic writes of tournaments; every replica uses one of these."""

    def __init__(self, client: redis.Redis, retention_seconds: int) -> None:
        self.redis = client
        self.retention_seconds = retention_seconds
        self.scripts = Durability(client, min_replicas=0)
        """The scripts' runner; no write of a tournament waits for replicas."""

    # ------------------------------------------------------------ records

    async def load(self, tournament_id: str) -> Stored:
        version, state = cast(
            list[bytes | None],
            await self.redis.hmget(tournament_key(tournament_id), ["version", "state"]),
        )
        if version is None or state is None:
            raise NotFound(tournament_id)
        return Stored(Tournament.from_json(state), int(version))

    async def create(self, tournament: Tournament, events: Events) -> None:
        if not await self._write(tournament, None, events):
            raise AlreadyExists(tournament.tournament_id)
        await self.redis.zadd(INDEX, {tournament.tournament_id: tournament.created_at})

    async def update(
        self, tournament_id: str, change: Callable[[Tournament], tuple[Events, T]]
    ) -> tuple[Tournament, T]:
        """Apply ``change`` to the stored tournament and write it if nobody wrote meanwhile,
        else retry from a fresh read. ``change`` may raise to refuse (nothing is written); a
        change that leaves the state as it was writes nothing."""
        for _ in range(CAS_ATTEMPTS):
            stored = await self.load(tournament_id)
            before = stored.tournament.to_json()
            events, value = change(stored.tournament)
            if not events and stored.tournament.to_json() == before:
                return stored.tournament, value
            if await self._write(stored.tournament, stored.version, events):
                return stored.tournament, value
        raise ServiceError(
            grpc.StatusCode.UNAVAILABLE, "the tournament is changing too fast; try again"
        )

    async def _write(self, t: Tournament, version: int | None, events: Events) -> bool:
        key = tournament_key(t.tournament_id)
        expiry = self.retention_seconds if t.status in OVER else 0
        reply: list[Any] = await self.scripts.call(
            _COMMIT,
            [key, f"{key}:events", f"{key}:owner"],
            [
                "" if version is None else str(version),
                t.to_json(),
                str(expiry),
                str(EVENTS_KEPT),
                *(event.SerializeToString() for event in events),
            ],
        )
        return bool(reply[0] == b"ok")

    async def read_events(
        self, tournament_id: str, after: str, block_ms: int | None, count: int = 200
    ) -> list[tuple[str, bytes]]:
        reply = cast(
            list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]],
            await self.redis.xread(
                {f"{tournament_key(tournament_id)}:events": after}, count=count, block=block_ms
            ),
        )
        if not reply:
            return []
        return [(entry_id.decode(), fields[b"e"]) for entry_id, fields in reply[0][1]]

    async def recent(self, limit: int) -> list[Tournament]:
        """The newest tournaments still stored."""
        ids = [
            i.decode() for i in cast(list[bytes], await self.redis.zrevrange(INDEX, 0, limit - 1))
        ]
        if not ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for tournament_id in ids:
                pipe.hget(tournament_key(tournament_id), "state")
            states = await pipe.execute()
        return [Tournament.from_json(s) for s in states if s is not None]

    # ------------------------------------------------------------ quotas and matches

    async def count_for_organizer(
        self, organizer: str, tournament_id: str, now: float, limit: int
    ) -> bool:
        return bool(
            await self.scripts.call(_QUOTA, [organizer_key(organizer)], [tournament_id, now, limit])
        )

    async def release_organizer(self, organizer: str, tournament_id: str) -> None:
        await self.redis.zrem(organizer_key(organizer), tournament_id)

    async def remember_match(self, match_id: str, tournament_id: str) -> None:
        await self.redis.set(match_key(match_id), tournament_id, ex=self.retention_seconds)

    async def tournament_of(self, match_ids: Sequence[str]) -> list[str | None]:
        if not match_ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.get(match_key(match_id))
            found = await pipe.execute()
        return [value.decode() if value else None for value in found]

    # ------------------------------------------------------------ driving

    async def set_due(self, tournament_id: str, when: float) -> None:
        await self.redis.zadd(DUE, {tournament_id: when})

    async def drop_due(self, tournament_id: str) -> None:
        await self.redis.zrem(DUE, tournament_id)

    async def claim_due(self, now: float, lease_seconds: float, limit: int) -> list[str]:
        due: list[bytes] = await self.scripts.call(_CLAIM, [DUE], [now, lease_seconds, limit])
        return [member.decode() for member in due]

    async def hold(self, tournament_id: str, replica: str, lease_seconds: float) -> bool:
        """Take or renew the lease on driving the tournament; False if another replica has it."""
        owner = f"{tournament_key(tournament_id)}:owner"
        held = await self.scripts.call(_LEASE, [owner], [replica, int(lease_seconds * 1000)])
        return bool(held)

    async def let_go(self, tournament_id: str, replica: str) -> None:
        await self.scripts.call(_RELEASE, [f"{tournament_key(tournament_id)}:owner"], [replica])

    async def count_due(self, before: float) -> int:
        count: int = await self.redis.zcount(DUE, "-inf", before)
        return count

    # ------------------------------------------------------------ the championship

    async def award(
        self,
        t: Tournament,
        rows: Sequence[tuple[str, int, int, str]],
        keep_seconds: int,
    ) -> bool:
        """Add (player, points, Mau-Mau finishes, name) rows to the tournament's year, once."""
        args: list[str | int] = [t.tournament_id, keep_seconds]
        for player, points, maumaus, name in rows:
            args.extend([player, points, maumaus, name])
        return bool(await self.scripts.call(_AWARD, championship_keys(t.year), args))

    async def record_history(
        self, player: str, t: Tournament, place: dict[str, Any], keep_seconds: int
    ) -> None:
        key = history_key(player)
        await self.scripts.call(
            _RECORD_HISTORY,
            [key, f"{key}:places"],
            [t.tournament_id, t.finished_at, json.dumps(place), HISTORY_KEPT, keep_seconds],
        )

    async def history(self, player: str, limit: int) -> list[dict[str, Any]]:
        key = history_key(player)
        ids = [i.decode() for i in cast(list[bytes], await self.redis.zrevrange(key, 0, limit - 1))]
        if not ids:
            return []
        places = cast(list[bytes | None], await self.redis.hmget(f"{key}:places", ids))
        return [json.loads(p) for p in places if p is not None]

    async def championship(self, year: int, limit: int) -> list[ChampionshipRow]:
        points_key, maumaus_key, count_key, names_key, _ = championship_keys(year)
        top = cast(
            list[tuple[bytes, float]],
            await self.redis.zrevrange(points_key, 0, limit - 1, withscores=True),
        )
        if not top:
            return []
        players = [player for player, _ in top]
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hmget(maumaus_key, players)
            pipe.hmget(count_key, players)
            pipe.hmget(names_key, players)
            maumaus, counts, names = cast(list[list[bytes | None]], await pipe.execute())
        return [
            ChampionshipRow(
                player.decode(),
                (names[i] or b"").decode(),
                int(score),
                int(maumaus[i] or 0),
                int(counts[i] or 0),
            )
            for i, (player, score) in enumerate(top)
        ]

    async def deciders(self, year: int) -> tuple[dict[str, str], dict[str, int]]:
        """Each tied player's deciding tournament, and each decided player's place in it."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in decider_keys(year):
                pipe.hgetall(key)
            scheduled, decided = cast(list[dict[bytes, bytes]], await pipe.execute())
        return (
            {k.decode(): v.decode() for k, v in scheduled.items()},
            {k.decode(): int(v) for k, v in decided.items()},
        )

    async def schedule_decider(
        self, year: int, players: Sequence[str], tournament_id: str, keep_seconds: int
    ) -> None:
        await self._write_kept(
            decider_keys(year)[0], dict.fromkeys(players, tournament_id), keep_seconds
        )

    async def record_decided(self, year: int, places: Mapping[str, int], keep_seconds: int) -> None:
        await self._write_kept(decider_keys(year)[1], places, keep_seconds)

    async def _write_kept(self, key: str, mapping: Mapping[str, str | int], keep: int) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, items=[part for pair in mapping.items() for part in pair])
            pipe.expire(key, keep)
            await pipe.execute()

    # ------------------------------------------------------------ expiry

    async def mark_expiring(self, tournament_id: str, at: float) -> None:
        await self.redis.zadd(EXPIRING, {tournament_id: at})

    async def forget_expired(self, now: float) -> int:
        """Drop tournaments whose keys have expired from the index."""
        gone = await self.redis.zrangebyscore(EXPIRING, "-inf", now, start=0, num=500)
        if gone:
            await self.redis.zrem(INDEX, *gone)
            await self.redis.zrem(EXPIRING, *gone)
        return len(gone)


def events_of(reply: Sequence[tuple[str, bytes]]) -> list[pb.TournamentEvent]:
    events = []
    for entry_id, data in reply:
        event = pb.TournamentEvent.FromString(data)
        event.id = entry_id
        events.append(event)
    return events
