"""The bot arena's pool in Redis: the matchmaker's one access layer for arena entries, claims,
strikes and pauses. What to do with them is :mod:`maumau.matchmaking.arena`'s (pure).

Every key of one preset's pool carries the hash tag ``{arena:<preset>}``, so claiming a table's
bots is one script in one Redis Cluster slot, all of them or none:

- ``{arena:<preset>}:pool``  sorted set: bot id -> waiting since (every bot in the arena)
- ``{arena:<preset>}:entry:<bot id>``  the entry's seat counts (JSON); it expires
  ``entry_ttl`` after the bot's latest JoinArena, so a bot that stops asking leaves the pool by
  itself, and a pool member whose entry is gone is dropped when the pool is read
- ``{arena:<preset>}:playing``  sorted set: bot id -> lease end, the bots claimed for a table
  (not free to be seated again until then)

A claim is a lease: the replica that claimed a table extends it once the match is created (to
the longest a match may last), and :meth:`ArenaPool.requeue` ends it when the match ends, the bot
waiting again from then if it has not left. A replica that dies between claim and creation
leaves nothing behind: the lease runs out and its bots are free again.

Per bot, in the bot's own slot:

- ``arena:strikes:{<bot id>}``  sorted set: match id -> when the bot's turns timed out until the
  engine's stand-in took its seat; it expires a strike window after the latest
- ``arena:paused:{<bot id>}``  when the bot's pause ends (Unix seconds); it expires then

Read beside them, from the contracts of others: the bot's bot-vs-bot matches today
(``maumau.common.daily_limits``), whether its event stream is open
(``maumau.common.account_events.online``) and whether it is the house's
(``maumau.common.players``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import orjson
import redis.asyncio as redis

from maumau.common import account_events, daily_limits
from maumau.common.players import house_bots
from maumau.common.redis_client import Durability, Script
from maumau.matchmaking.arena import ArenaEntry

# KEYS: the pool, playing. ARGV: now, lease end, bot ids. Leases them all if every one is in the
# pool and not playing (or its lease ran out); 1 if so.
_CLAIM = Script(
    "arena.claim",
    """
local now = tonumber(ARGV[1])
for i = 3, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then return 0 end
  local lease = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if lease and tonumber(lease) > now then return 0 end
end
for i = 3, #ARGV do
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[i])
end
return 1
""",
)

# KEYS: the pool, playing, the bot's entry. ARGV: bot id, now. Ends the bot's lease (-1: it
# held none); it waits again from now if its entry is there (1), else it leaves the pool (0).
_REQUEUE = Script(
    "arena.requeue",
    """
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then return -1 end
if redis.call('EXISTS', KEYS[3]) == 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
""",
)


class ArenaPool:
    """Reads and atomic writes of the arena's pool; every matchmaker replica uses one."""

    def __init__(
        self, client: redis.Redis, entry_ttl: int = 60, durability: Durability | None = None
    ) -> None:
        self.redis = client
        self.entry_ttl = entry_ttl
        self.durability = durability or Durability(client)

    @staticmethod
    def pool_key(preset: str) -> str:
        return f"{{arena:{preset}}}:pool"

    @staticmethod
    def playing_key(preset: str) -> str:
        return f"{{arena:{preset}}}:playing"

    @staticmethod
    def entry_key(preset: str, bot_id: str) -> str:
        return f"{{arena:{preset}}}:entry:{bot_id}"

    @staticmethod
    def strikes_key(bot_id: str) -> str:
        return f"arena:strikes:{{{bot_id}}}"

    @staticmethod
    def paused_key(bot_id: str) -> str:
        return f"arena:paused:{{{bot_id}}}"

    async def join(self, bot_id: str, preset: str, seat_counts: Sequence[int], now: float) -> None:
        """Enter (or stay in) the pool of ``preset``: the entry for another ``entry_ttl``, and
        the bot waiting from ``now`` unless it waits already (its place is kept)."""
        entry = orjson.dumps({"seat_counts": list(seat_counts)})
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(self.entry_key(preset, bot_id), entry, ex=self.entry_ttl)
            pipe.zadd(self.pool_key(preset), {bot_id: now}, nx=True)
            await pipe.execute()

    async def leave(self, bot_id: str, preset: str) -> bool:
        """Out of the pool of ``preset`` (a match it plays is played to its end); whether it
        was in."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self.entry_key(preset, bot_id))
            pipe.zrem(self.pool_key(preset), bot_id)
            removed = await pipe.execute()
        return any(removed)

    async def waiting(self, preset: str, now: float) -> list[ArenaEntry]:
        """The bots of the pool of ``preset`` free to be seated at ``now`` (not playing), with
        their pauses, matches today, presence and house flags; members whose entry expired are
        dropped, leases run out forgotten."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(self.playing_key(preset), "-inf", now)
            pipe.zrange(self.playing_key(preset), 0, -1)
            pipe.zrange(self.pool_key(preset), 0, -1, withscores=True)
            _, leased, pooled = await pipe.execute()
        playing = set(cast(list[bytes], leased))
        members = [m for m in cast(list[tuple[bytes, float]], pooled) if m[0] not in playing]
        if not members:
            return []
        bots = [member.decode() for member, _ in members]
        entries = await self.redis.mget([self.entry_key(preset, bot) for bot in bots])
        gone = [bot for bot, entry in zip(bots, entries, strict=True) if entry is None]
        if gone:
            await self.redis.zrem(self.pool_key(preset), *gone)
        kept = [b for b in bots if b not in gone]
        paused = await self.paused_until(kept)
        played = await self.matches_today(kept, now)
        online = await account_events.online(self.redis, kept, now)
        house = await house_bots(self.redis, kept)
        return [
            ArenaEntry(
                bot_id=bot,
                preset=preset,
                seat_counts=tuple(orjson.loads(entry)["seat_counts"]),
                waiting_since=since,
                matches_today=played.get(bot, 0),
                paused_until=paused.get(bot, 0.0),
                online=bot in online,
                house=bot in house,
            )
            for bot, (_, since), entry in zip(bots, members, entries, strict=True)
            if entry is not None
        ]

    async def count(self, preset: str, now: float) -> int:
        """How many bots wait in the pool of ``preset`` now (not playing)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrange(self.pool_key(preset), 0, -1)
            pipe.zrangebyscore(self.playing_key(preset), f"({now!r}", "+inf")
            pooled, leased = await pipe.execute()
        return len(set(cast(list[bytes], pooled)) - set(cast(list[bytes], leased)))

    async def matches_today(self, bot_ids: Sequence[str], now: float) -> dict[str, int]:
        """The bot-vs-bot matches of each of ``bot_ids`` started today (each key in its slot)."""
        if not bot_ids:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for bot_id in bot_ids:
                pipe.get(daily_limits.count_key(bot_id, daily_limits.BOT_MATCHES, now))
            found = await pipe.execute()
        return {bot: int(n) for bot, n in zip(bot_ids, found, strict=True) if n}

    async def claim(
        self, preset: str, bot_ids: Sequence[str], now: float, lease_end: float
    ) -> bool:
        """Lease a table's bots until ``lease_end``, all or none (False: another replica
        leased one first, or one left)."""
        keys = [self.pool_key(preset), self.playing_key(preset)]
        args = [repr(now), repr(lease_end), *bot_ids]
        return bool(await self.durability.call(_CLAIM, keys, args, wait=True))

    async def extend(self, preset: str, bot_ids: Sequence[str], lease_end: float) -> None:
        """Hold the leases of a created match's bots until ``lease_end`` (those still held)."""
        mapping: dict[str, float] = dict.fromkeys(bot_ids, lease_end)
        await self.redis.zadd(self.playing_key(preset), mapping, xx=True)

    async def requeue(self, bot_id: str, preset: str, now: float) -> int:
        """A match of ``bot_id`` ended: its lease ends, and it waits again from ``now`` (1)
        unless it left meanwhile (0: it leaves the pool); -1 when it held no lease (a player
        of no arena match, or a lease that ran out)."""
        keys = [self.pool_key(preset), self.playing_key(preset), self.entry_key(preset, bot_id)]
        return int(await self.durability.call(_REQUEUE, keys, [bot_id, repr(now)], wait=True))

    async def strike(self, bot_id: str, match_id: str, now: float, window: float) -> list[float]:
        """Record a strike of ``bot_id`` (once per match); when its strikes of the ``window``
        happened."""
        key = self.strikes_key(bot_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {match_id: now})
            pipe.zremrangebyscore(key, "-inf", now - window)
            pipe.expire(key, max(1, int(window)))
            pipe.zrange(key, 0, -1, withscores=True)
            replies = await pipe.execute()
        return [at for _, at in replies[-1]]

    async def pause(self, bot_id: str, until: float, now: float) -> None:
        """Pause ``bot_id`` from the arena until ``until`` (Unix seconds)."""
        await self.redis.set(self.paused_key(bot_id), repr(until), ex=max(1, int(until - now) + 1))

    async def paused_until(self, bot_ids: Sequence[str]) -> dict[str, float]:
        """The pauses of those of ``bot_ids`` paused (each key in its own slot)."""
        if not bot_ids:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for bot_id in bot_ids:
                pipe.get(self.paused_key(bot_id))
            found = await pipe.execute()
        return {bot: float(until) for bot, until in zip(bot_ids, found, strict=True) if until}
