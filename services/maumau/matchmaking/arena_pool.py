"""The bot arena's pool in Redis: the matchmaker's one access layer for arena entries, claims,
strikes and pauses. What to do with them is :mod:`maumau.matchmaking.arena`'s (pure).

Every key of one preset's pool carries the hash tag ``{arena:<preset>}``, so claiming a table's
bots is one script in one Redis Cluster slot, all of them or none:

- ``{arena:<preset>}:pool``  sorted set: bot id -> waiting since (bots free to be seated)
- ``{arena:<preset>}:entry:<bot id>``  the entry's seat counts (JSON); it expires
  ``entry_ttl`` after the bot's latest JoinArena, so a bot that stops asking leaves the pool by
  itself, and a pool member whose entry is gone is dropped when the pool is read

A claimed bot leaves ``pool`` but keeps its entry while it plays; :meth:`ArenaPool.requeue`
puts it back when its match ends, if its entry is still there (it has not left meanwhile).

Per bot, in the bot's own slot:

- ``arena:strikes:{<bot id>}``  sorted set: match id -> when the bot's turns timed out until the
  engine's stand-in took its seat; it expires a strike window after the latest
- ``arena:paused:{<bot id>}``  when the bot's pause ends (Unix seconds); it expires then
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import orjson
import redis.asyncio as redis

from maumau.common.redis_client import Durability, Script
from maumau.matchmaking.arena import ArenaEntry

# KEYS: the pool. ARGV: bot ids. Takes them all out of the pool if all are in it; 1 if so.
_CLAIM = Script(
    "arena.claim",
    """
for i = 1, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then return 0 end
end
redis.call('ZREM', KEYS[1], unpack(ARGV))
return 1
""",
)

# KEYS: the pool, the bot's entry. ARGV: bot id, now. Back in the pool if the entry is there.
_REQUEUE = Script(
    "arena.requeue",
    """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
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
        """Out of the pool of ``preset`` (also after its current match); whether it was in."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self.entry_key(preset, bot_id))
            pipe.zrem(self.pool_key(preset), bot_id)
            removed = await pipe.execute()
        return any(removed)

    async def waiting(self, preset: str) -> list[ArenaEntry]:
        """The bots waiting in the pool of ``preset``, with their pauses; members whose entry
        expired are dropped."""
        members = cast(
            list[tuple[bytes, float]],
            await self.redis.zrange(self.pool_key(preset), 0, -1, withscores=True),
        )
        if not members:
            return []
        bots = [member.decode() for member, _ in members]
        entries = await self.redis.mget([self.entry_key(preset, bot) for bot in bots])
        gone = [bot for bot, entry in zip(bots, entries, strict=True) if entry is None]
        if gone:
            await self.redis.zrem(self.pool_key(preset), *gone)
        paused = await self.paused_until([b for b in bots if b not in gone])
        return [
            ArenaEntry(
                bot_id=bot,
                preset=preset,
                seat_counts=tuple(orjson.loads(entry)["seat_counts"]),
                waiting_since=since,
                paused_until=paused.get(bot, 0.0),
            )
            for bot, (_, since), entry in zip(bots, members, entries, strict=True)
            if entry is not None
        ]

    async def claim(self, preset: str, bot_ids: Sequence[str]) -> bool:
        """Take a table's bots out of the pool, all or none (another replica took one first)."""
        claimed = await self.durability.call(
            _CLAIM, [self.pool_key(preset)], list(bot_ids), wait=True
        )
        return bool(claimed)

    async def requeue(self, bot_id: str, preset: str, now: float) -> bool:
        """Back in the pool after a match, waiting from ``now``, unless it left meanwhile."""
        keys = [self.pool_key(preset), self.entry_key(preset, bot_id)]
        return bool(await self.durability.call(_REQUEUE, keys, [bot_id, repr(now)], wait=True))

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
