"""Challenges between accounts and block lists, in Redis: the arena's ``CreateChallenge``,
``AcceptChallenge``, ``DeclineChallenge``, ``CancelChallenge`` and the blocks calls stand on
:class:`ChallengeBook`.

- ``challenge:{<id>}``  hash: ``record`` (JSON: creator, challenged, ruleset text, rated, turn
  seconds, created at), ``accepted:<player id>`` per acceptance, ``state`` (``open``, then
  ``starting`` once the last acceptance came, set by the script that took it, so one call alone
  creates the match). It expires ``max_seconds`` after creation whatever happens.
- ``arena:challenge-deadlines``  sorted set: challenge id -> when it expires (Unix ms) unless its
  creator's event stream is open (then the sweep moves the deadline on, up to ``max_seconds``).
- ``blocks:{<player id>}``  set: the accounts the player blocked (at most ``MAX_BLOCKS``),
  expiring a year after its latest change.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

import redis.asyncio as redis

from maumau.common import tokens

DEADLINES = "arena:challenge-deadlines"
MAX_BLOCKS = 1000
BLOCKS_TTL_SECONDS = 366 * 86400

# KEYS[1] the challenge; ARGV[1] the accepting player. Answers 0 (no such open challenge),
# 1 (accepted, others still to answer) or 2 (the last acceptance: now starting).
_ACCEPT = """
if redis.call('HGET', KEYS[1], 'state') ~= 'open' then return 0 end
redis.call('HSET', KEYS[1], 'accepted:' .. ARGV[1], '1')
local record = cjson.decode(redis.call('HGET', KEYS[1], 'record'))
for _, player in ipairs(record.challenged) do
  if redis.call('HEXISTS', KEYS[1], 'accepted:' .. player) == 0 then return 1 end
end
redis.call('HSET', KEYS[1], 'state', 'starting')
return 2
"""

# KEYS[1] the challenge; ARGV[1] the state it must be in. Deletes it; 1 if it was there.
_END = """
if redis.call('HGET', KEYS[1], 'state') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
"""


def challenge_key(challenge_id: str) -> str:
    return f"challenge:{{{challenge_id}}}"


def blocks_key(player_id: str) -> str:
    return f"blocks:{{{player_id}}}"


@dataclass(frozen=True)
class Challenge:
    challenge_id: str
    creator: str
    challenged: tuple[str, ...]
    ruleset: str
    rated: bool
    turn_seconds: int
    created_ms: int
    accepted: frozenset[str]

    @property
    def seating(self) -> tuple[str, ...]:
        """Who sits where: the creator first, then the challenged in the order named."""
        return (self.creator, *self.challenged)


class ChallengeBook:
    def __init__(self, client: redis.Redis, challenge_seconds: float, max_seconds: float) -> None:
        self.redis = client
        self.challenge_ms = int(challenge_seconds * 1000)
        self.max_ms = int(max_seconds * 1000)
        self._accept = client.register_script(_ACCEPT)
        self._end = client.register_script(_END)

    async def create(
        self,
        creator: str,
        challenged: tuple[str, ...],
        ruleset: str,
        rated: bool,
        turn_seconds: int,
        now_ms: int,
    ) -> Challenge:
        challenge_id = tokens.new_id(12)
        record = {
            "creator": creator,
            "challenged": list(challenged),
            "ruleset": ruleset,
            "rated": rated,
            "turn_seconds": turn_seconds,
            "created_ms": now_ms,
        }
        key = challenge_key(challenge_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={"record": json.dumps(record), "state": "open"})
            pipe.pexpire(key, self.max_ms)
            await pipe.execute()
        await self.redis.zadd(DEADLINES, {challenge_id: now_ms + self.challenge_ms})
        return Challenge(
            challenge_id, creator, challenged, ruleset, rated, turn_seconds, now_ms, frozenset()
        )

    async def get(self, challenge_id: str) -> Challenge | None:
        """The open challenge, or None when it is unknown, over, or starting."""
        fields = cast(dict[bytes, bytes], await self.redis.hgetall(challenge_key(challenge_id)))
        if fields.get(b"state") != b"open":
            return None
        record: dict[str, Any] = json.loads(fields[b"record"])
        accepted = frozenset(
            name.decode().removeprefix("accepted:")
            for name in fields
            if name.startswith(b"accepted:")
        )
        return Challenge(
            challenge_id,
            record["creator"],
            tuple(record["challenged"]),
            record["ruleset"],
            bool(record["rated"]),
            int(record["turn_seconds"]),
            int(record["created_ms"]),
            accepted,
        )

    async def accept(self, challenge_id: str, player_id: str) -> int:
        """0: not open any more; 1: accepted; 2: the last acceptance (the caller starts it)."""
        return int(await self._accept(keys=[challenge_key(challenge_id)], args=[player_id]))

    async def end(self, challenge_id: str, state: str = "open") -> bool:
        """Remove the challenge if it is still in ``state``; whether this call removed it (so
        one caller alone tells the accounts)."""
        ended = bool(await self._end(keys=[challenge_key(challenge_id)], args=[state]))
        await self.redis.zrem(DEADLINES, challenge_id)
        return ended

    async def due(self, now_ms: int, count: int = 100) -> list[str]:
        found = cast(list[bytes], await self.redis.zrangebyscore(DEADLINES, 0, now_ms, 0, count))
        return [f.decode() for f in found]

    async def extend(self, challenge_id: str, now_ms: int) -> None:
        await self.redis.zadd(DEADLINES, {challenge_id: now_ms + self.challenge_ms})

    def deadline_ms(self, challenge: Challenge, now_ms: int) -> int:
        """When the challenge expires unless its creator's stream is open."""
        return min(now_ms + self.challenge_ms, challenge.created_ms + self.max_ms)

    def outlived(self, challenge: Challenge, now_ms: int) -> bool:
        return now_ms >= challenge.created_ms + self.max_ms

    # ---------------------------------------------------------------- blocks

    async def block(self, player_id: str, blocked: str) -> bool:
        """Block ``blocked``; False when the list is full."""
        key = blocks_key(player_id)
        if int(await self.redis.scard(key)) >= MAX_BLOCKS:
            return bool(await self.redis.sismember(key, blocked))
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.sadd(key, blocked)
            pipe.expire(key, BLOCKS_TTL_SECONDS)
            await pipe.execute()
        return True

    async def unblock(self, player_id: str, blocked: str) -> None:
        await self.redis.srem(blocks_key(player_id), blocked)

    async def blocked(self, player_id: str) -> list[str]:
        members = cast(set[bytes], await self.redis.smembers(blocks_key(player_id)))
        return sorted(m.decode() for m in members)

    async def blocked_by_any(self, players: tuple[str, ...], creator: str) -> bool:
        async with self.redis.pipeline(transaction=False) as pipe:
            for player in players:
                pipe.sismember(blocks_key(player), creator)
            answers = await pipe.execute()
        return any(answers)
