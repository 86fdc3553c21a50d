"""Where the matches' deadlines (turn timers, bot moves, results due) live and how a commit
writes one: a strategy chosen once, when the store is made (:func:`deadlines_for`).

The deadlines are ``MAUMAU_REDIS_SHARDS`` sorted sets (match id -> due time), the match's shard
by ``shard_of``; every replica claims from every shard. A commit moves its match's deadline only
ever earlier: one set by a commit that then lost its race is merely checked early (and pushed
back by ``Matches.handle_due``), while one moved later could hold up the bot or timer of the
state that won. Where the deadline is written differs by the kind of Redis:

- :class:`OneRedisDeadlines`: one script may touch any key, so the commit script writes the
  deadline itself: confirmed whenever the commit is, with nothing to do after it.
- :class:`ClusterDeadlines`: the shard lies in another slot than the match, so the deadline is
  written ahead of the commit in the same round trip, confirmed by its own ``WAIT``, and again
  after the commit (a replica that lost its race or rescheduled an older state may have moved
  it between). A deadline whose node failed where the match's did not leaves the commit
  standing: see ``aftercommit.AfterCommit`` for who sets it again.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, cast

import redis.asyncio as redis

from maumau.common.redis_client import Call, Durability, Script, is_cluster, shard_of
from maumau.engine.keys import deadlines_key

log = logging.getLogger(__name__)

# Claim due deadlines: push each one a lease into the future, so a replica that dies while
# handling it leaves it to come due again. KEYS: deadline shards (on a single Redis all of them,
# on a cluster one). ARGV: now, lease seconds, how many from each shard.
CLAIM = Script(
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


class Deadlines(ABC):
    """The deadline shards of a store: what both kinds of Redis do alike, and the three steps
    where they differ (:meth:`with_commit`, :meth:`commit_reply`, :meth:`again_calls`)."""

    def __init__(self, client: redis.Redis, durability: Durability, shards: int) -> None:
        self.redis = client
        self.durability = durability
        self.shards = shards
        self.keys = [deadlines_key(shard) for shard in range(shards)]

    def key_of(self, match_id: str) -> str:
        """The deadline shard of a match."""
        return self.keys[shard_of(match_id, self.shards)]

    def call(self, match_id: str, due: float, wait: bool, only_earlier: bool = True) -> Call:
        """ZADD of the match's deadline (``only_earlier``: only if sooner than the one set)."""
        flags = ("LT",) if only_earlier else ()
        return Call("ZADD", [self.key_of(match_id)], [*flags, due, match_id], wait)

    @abstractmethod
    def with_commit(
        self, match_id: str, due: float | None, commit: Call, confirm: bool
    ) -> list[Call]:
        """The calls of a commit's round trip that write ``commit`` and the deadline ``due``
        (only earlier; None: none); ``confirm``: the deadline's own write waits for replicas."""

    @abstractmethod
    def commit_reply(
        self, match_id: str, due: float | None, replies: Iterator[Any]
    ) -> tuple[Any, bool]:
        """From the replies of :meth:`with_commit`'s calls (taking only theirs): the commit
        script's reply, and whether the deadline was written (False: it must be set again)."""

    @abstractmethod
    def again_calls(self, dues: Sequence[tuple[str, float | None]]) -> list[Call]:
        """The calls that set each (match id, due) again after its commit, only earlier, each
        shard's last write confirmed by replicas; none where the commit wrote it for good."""

    @abstractmethod
    def _claim_calls(self, args: list[float]) -> list[Call]:
        """The calls that claim due deadlines from every shard (ARGV of CLAIM)."""

    async def again(self, match_id: str, due: float | None) -> None:
        """Set a committed match's deadline again where :meth:`again_calls` says so."""
        await self.durability.run(self.again_calls([(match_id, due)]))

    async def set(self, match_id: str, due: float, only_earlier: bool = False) -> None:
        """Set the match's deadline (confirmed by replicas); ``only_earlier`` leaves a sooner
        one in place."""
        await self.durability.run([self.call(match_id, due, True, only_earlier)])

    async def clear(self, match_id: str) -> None:
        await self.redis.zrem(self.key_of(match_id), match_id)

    async def due(self, match_id: str) -> float | None:
        """When the match is due (or its claim's lease ends); None: no deadline."""
        due: float | None = await self.redis.zscore(self.key_of(match_id), match_id)
        return due

    async def earliest(self) -> float | None:
        """The due time of the earliest deadline of any match (None: no deadline set)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in self.keys:
                pipe.zrange(key, 0, 0, withscores=True)
            firsts = cast(list[list[tuple[bytes, float]]], await pipe.execute())
        return min((first[0][1] for first in firsts if first), default=None)

    async def claim(self, now: float, lease_seconds: float, limit: int) -> list[str]:
        """Claim up to ``limit`` due deadlines, a share from every shard, in one round trip."""
        each = -(-limit // self.shards)
        calls = self._claim_calls([now, lease_seconds, each])
        return [member.decode() for found in await self.durability.run(calls) for member in found]


class OneRedisDeadlines(Deadlines):
    """A single Redis: the commit script writes the deadline (its last key and arguments, see
    ``store.COMMIT``), and one script claims from every shard (the loop polls often, and a
    script per shard cost as much as the moves between two polls)."""

    def with_commit(
        self, match_id: str, due: float | None, commit: Call, confirm: bool
    ) -> list[Call]:
        if due is None:
            return [commit]
        keys, args = [*commit.keys, self.key_of(match_id)], [*commit.args, repr(due), match_id]
        return [commit._replace(keys=keys, args=args)]

    def commit_reply(
        self, match_id: str, due: float | None, replies: Iterator[Any]
    ) -> tuple[Any, bool]:
        return next(replies), True

    def again_calls(self, dues: Sequence[tuple[str, float | None]]) -> list[Call]:
        return []

    def _claim_calls(self, args: list[float]) -> list[Call]:
        return [Call(CLAIM, self.keys, args)]


class ClusterDeadlines(Deadlines):
    """A Redis Cluster: the deadline is written ahead of the commit and again after it, on its
    own shard's node; each shard is claimed by a script of its own."""

    def with_commit(
        self, match_id: str, due: float | None, commit: Call, confirm: bool
    ) -> list[Call]:
        if due is None:
            return [commit]
        # A deadline lost in a failover would leave a bot's turn waiting forever: hence WAIT.
        return [self.call(match_id, due, wait=confirm), commit]

    def commit_reply(
        self, match_id: str, due: float | None, replies: Iterator[Any]
    ) -> tuple[Any, bool]:
        if due is None:
            return next(replies), True
        written, reply = next(replies), next(replies)
        if isinstance(written, Exception):
            log.warning("match %s: its deadline was not set with its commit: %r", match_id, written)
            return reply, False
        return reply, True

    def again_calls(self, dues: Sequence[tuple[str, float | None]]) -> list[Call]:
        calls: list[Call] = []
        last_of: dict[str, int] = {}  # a shard's last write waits for the replicas (all of them)
        for match_id, due in dues:
            if due is not None:
                last_of[self.key_of(match_id)] = len(calls)
                calls.append(self.call(match_id, due, wait=False))
        for n in last_of.values():
            calls[n] = calls[n]._replace(wait=True)
        return calls

    def _claim_calls(self, args: list[float]) -> list[Call]:
        return [Call(CLAIM, [key], args) for key in self.keys]


def deadlines_for(client: redis.Redis, durability: Durability, shards: int) -> Deadlines:
    """The deadline strategy of ``client``'s kind of Redis."""
    kind = ClusterDeadlines if is_cluster(client) else OneRedisDeadlines
    return kind(client, durability, shards)
