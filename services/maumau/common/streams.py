"""Reading a Redis stream with a consumer group, each entry handled by one replica at least once.

One way for every service that follows another's stream (the rating service and the
matchmakers' rooms both read ``MatchResult`` from the results stream). A service subclasses
:class:`StreamConsumer`, writes ``handle()``, and lists ``run`` among its background workers
(see ``maumau.common.lifecycle``); its settings class has a field per
:class:`~maumau.common.config.ConsumerSettings` value it lets operators change (the results
stream's readers: :class:`~maumau.common.settings.ResultsConsumerSettings`):

    class Follower(StreamConsumer):
        async def handle(self, entries: Sequence[StreamEntry]) -> None:
            for entry in entries:
                result = read_result(entry)  # maumau.common.results
                ...  # idempotent: an entry can come again

    follower = Follower(client, RESULTS_STREAM, "tournaments", ConsumerSettings(batch=50))
    super().__init__(server, {"results": follower.run})

What run() guarantees:

- each consumer first handles the entries delivered to its own name and never acknowledged (a
  container restarted under the same name takes its work back at once);
- then it reads new entries in batches of ``batch``, handles them, and acknowledges them only
  after ``handle()`` returned: an entry whose handler failed, or whose replica died, stays pending;
- every ``claim_idle_seconds / 2`` it claims the entries any consumer has left pending longer
  than ``claim_idle_seconds`` (XAUTOCLAIM) and handles them: a dead replica's work is taken over;
  then it removes from the group every consumer that owns nothing and has been silent longer
  than ``gone_after_seconds`` (a crashed replica's name; a live one that reads again is simply
  added again by Redis);
- a failing handler or an unreachable Redis pauses the loop with a growing backoff (up to
  ``max_backoff_seconds``), logged, and the failed batch is tried again: nothing but stop() ends
  the loop.

So an entry can be handled more than once (a replica that died after handling and before
acknowledging): handlers are idempotent, e.g. by the match id.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import prometheus_client
import redis.asyncio as redis
from google.protobuf.message import Message

from maumau.common.config import ConsumerSettings
from maumau.common.lifecycle import backoff, pause
from maumau.v1 import game_pb2

log = logging.getLogger(__name__)

RECLAIMED = prometheus_client.Counter(
    "stream_entries_reclaimed_total",
    "Pending entries claimed from a consumer that went silent.",
    ["stream", "group"],
)
PENDING = prometheus_client.Gauge(
    "stream_group_pending_entries",
    "Entries the group has not handled yet: delivered but unacknowledged, plus undelivered "
    "(counted up to LAG_COUNT_LIMIT). Every replica of the group reports the same.",
    ["stream", "group"],
)
OLDEST_PENDING_AGE = prometheus_client.Gauge(
    "stream_group_oldest_pending_age_seconds",
    "Age of the oldest entry the group has not handled yet (0 when none waits).",
    ["stream", "group"],
)
GONE_REMOVED = prometheus_client.Counter(
    "stream_consumers_removed_total",
    "Consumers removed from a group: silent too long and owning no pending entry.",
    ["stream", "group"],
)
LAG_COUNT_LIMIT = 10_000
LAG_INTERVAL_SECONDS = 5.0
HANDLER_FAILURES = prometheus_client.Counter(
    "stream_handler_failures_total",
    "Batches whose handling failed; they stay pending and are handled again.",
    ["stream", "group"],
)


def stream_of(message: type[Message]) -> str:
    """The Redis stream a message travels on, as its ``redis_stream`` option in the proto says.

    >>> stream_of(game_pb2.MatchResult)
    'engine:results'
    """
    name: str = message.DESCRIPTOR.GetOptions().Extensions[game_pb2.redis_stream]  # type: ignore[index]
    if not name:
        raise ValueError(f"{message.DESCRIPTOR.full_name} names no redis_stream in its proto")
    return name


def default_consumer_name() -> str:
    """host-pid: unique per replica, and the same again when a container restarts in its pod,
    so a restarted replica picks up its own pending entries at once."""
    return f"{socket.gethostname()}-{os.getpid()}"


@dataclass(frozen=True, slots=True)
class StreamEntry:
    id: bytes
    fields: dict[bytes, bytes]
    """Empty for an entry deleted from the stream after it was delivered."""


class StreamConsumer(ABC):
    """One consumer of ``stream`` in ``group``: run() until stop()."""

    def __init__(
        self,
        client: redis.Redis,
        stream: str,
        group: str,
        settings: ConsumerSettings | None = None,
        *,
        start_at: str = "0",
        max_backoff_seconds: float = 5.0,
        drain: bool = False,
    ) -> None:
        """``start_at`` is where a group created by this consumer begins: "0" for every entry
        the stream holds, "$" for only those added from now on. ``drain``: a stream only
        replicas of earlier versions write (the unsharded results stream): it is never created,
        but read whenever it exists (looked for every ten ``block_seconds``), and a group made
        on it starts at "0" (what it holds is unread by every group that was never made)."""
        settings = settings or ConsumerSettings()
        self.redis = client
        self.stream = stream
        self.group = group
        self.consumer = settings.consumer or default_consumer_name()
        self.batch = settings.batch
        self.claim_idle_seconds = settings.claim_idle_seconds
        self.block_seconds = settings.block_seconds
        self.gone_after_seconds = settings.gone_after_seconds
        self.start_at = "0" if drain else start_at
        self.max_backoff_seconds = max_backoff_seconds
        self.drain = drain
        self._stopping = asyncio.Event()

    @abstractmethod
    async def handle(self, entries: Sequence[StreamEntry]) -> None:
        """Handle a batch (in stream order); raising leaves the whole batch pending."""

    async def ensure_group(self) -> bool:
        """Create the group (and the stream) if missing, starting at ``start_at``; False for a
        stream to drain that is gone."""
        if self.drain and not await self.redis.exists(self.stream):
            return False
        try:
            await self.redis.xgroup_create(
                self.stream, self.group, id=self.start_at, mkstream=not self.drain
            )
        except redis.ResponseError as error:
            if self.drain and _gone(error):
                return False
            if "BUSYGROUP" not in str(error):
                raise
        return True

    async def run(self, stopping: asyncio.Event | None = None) -> None:
        """Consume until stop() or ``stopping`` is set, one step at a time so a stop waits for
        one batch at most."""
        if stopping is not None:
            self._stopping = stopping
        ready, own_pending, next_claim, failures = False, True, 0.0, 0
        next_lag = 0.0
        while not self._stopping.is_set():
            try:
                if not ready:  # again after a failure: the stream may have been deleted
                    if not await self.ensure_group():  # a drained stream gone: look again later
                        await pause(self._stopping, self.block_seconds * 10)
                        continue
                    ready = True
                if own_pending:
                    own_pending = await self.consume_own_pending() > 0
                elif time.monotonic() >= next_lag:
                    next_lag = time.monotonic() + LAG_INTERVAL_SECONDS
                    await self.measure_lag()
                elif time.monotonic() >= next_claim:
                    next_claim = time.monotonic() + self.claim_idle_seconds / 2
                    await self.reclaim()
                    await self.remove_gone_consumers()
                else:
                    await self.consume_new()
                failures = 0
                continue
            except (redis.ConnectionError, redis.TimeoutError) as error:
                log.warning("%s: consuming paused, Redis unreachable (%s)", self.stream, error)
            except redis.ResponseError as error:
                if not (self.drain and _gone(error)):
                    HANDLER_FAILURES.labels(self.stream, self.group).inc()
                    log.exception("%s: handling a batch failed; it stays pending", self.stream)
                else:  # a drained stream deleted meanwhile: ensure_group waits for it
                    ready, own_pending = False, True
                    continue
            except Exception:
                HANDLER_FAILURES.labels(self.stream, self.group).inc()
                log.exception("%s: handling a batch failed; it stays pending", self.stream)
            failures += 1
            ready, own_pending = False, True  # the failed batch first, once Redis answers
            await pause(self._stopping, backoff(failures, self.max_backoff_seconds))

    async def stop(self) -> None:
        """Ask run() to end after the batch in hand (its read waits at most block_seconds)."""
        self._stopping.set()

    async def measure_lag(self) -> None:
        """Set the lag gauges from the group's pending list and its undelivered entries."""
        groups = await self.redis.xinfo_groups(self.stream)
        group = next((g for g in groups if g["name"] == self.group.encode()), None)
        if group is None:
            return
        last = group["last-delivered-id"].decode()
        undelivered = await self.redis.xrange(self.stream, min=f"({last}", count=LAG_COUNT_LIMIT)
        oldest: bytes | None = None
        if group["pending"]:
            oldest = (await self.redis.xpending(self.stream, self.group))["min"]
        elif undelivered:
            oldest = cast(bytes, undelivered[0][0])
        PENDING.labels(self.stream, self.group).set(group["pending"] + len(undelivered or ()))
        age = 0.0 if oldest is None else time.time() - int(oldest.split(b"-")[0]) / 1000
        OLDEST_PENDING_AGE.labels(self.stream, self.group).set(max(0.0, age))

    async def consume_new(self) -> int:
        """Read and handle one batch of new entries (waiting up to block_seconds for them)."""
        reply = await self.redis.xreadgroup(
            self.group,
            self.consumer,
            {self.stream: ">"},
            count=self.batch,
            block=max(1, int(self.block_seconds * 1000)),
        )
        return await self._handle_reply(reply)

    async def consume_own_pending(self) -> int:
        """Handle one batch of entries delivered to this consumer name and not acknowledged."""
        reply = await self.redis.xreadgroup(
            self.group, self.consumer, {self.stream: "0"}, count=self.batch
        )
        return await self._handle_reply(reply)

    async def reclaim(self) -> int:
        """Claim and handle every entry pending longer than claim_idle_seconds with any
        consumer."""
        start, claimed = "0-0", 0
        while True:
            reply = await self.redis.xautoclaim(
                self.stream,
                self.group,
                self.consumer,
                min_idle_time=int(self.claim_idle_seconds * 1000),
                start_id=start,
                count=self.batch,
            )
            start = reply[0].decode() if isinstance(reply[0], bytes) else reply[0]
            entries = _entries(entry for entry in reply[1] if entry[0] is not None)
            if entries:
                RECLAIMED.labels(self.stream, self.group).inc(len(entries))
                log.info("%s: claimed %d entries left pending", self.stream, len(entries))
                await self._handle(entries)
                claimed += len(entries)
            if start == "0-0" or self._stopping.is_set():
                return claimed

    async def acknowledge(self, entry_ids: Sequence[bytes]) -> None:
        if entry_ids:
            await self.redis.xack(self.stream, self.group, *entry_ids)

    async def leave_group(self) -> None:
        """Remove this consumer's name from the group if it holds no pending entries (a replica
        that stops cleanly), so names of replicas long gone do not pile up."""
        pending = await self.redis.xpending_range(
            self.stream, self.group, min="-", max="+", count=1, consumername=self.consumer
        )
        if not pending:
            await self.redis.xgroup_delconsumer(self.stream, self.group, self.consumer)

    async def remove_gone_consumers(self) -> list[str]:
        """Remove every other consumer of the group that owns no pending entry and has been
        silent longer than ``gone_after_seconds``; their names. Checked and removed in one
        script, so no entry delivered meanwhile is dropped with its consumer."""
        removed = await self.redis.eval(
            REMOVE_GONE_CONSUMERS,
            1,
            self.stream,
            self.group,
            self.consumer,
            int(self.gone_after_seconds * 1000),
        )
        names = [name.decode() if isinstance(name, bytes) else str(name) for name in removed]
        if names:
            GONE_REMOVED.labels(self.stream, self.group).inc(len(names))
            log.info("%s: removed consumers gone from group %s: %s", self.stream, self.group, names)
        return names

    async def _handle_reply(self, reply: Any) -> int:
        entries = _entries(reply[0][1]) if reply else []
        await self._handle(entries)
        return len(entries)

    async def _handle(self, entries: list[StreamEntry]) -> None:
        if entries:
            await self.handle(entries)
            await self.acknowledge([entry.id for entry in entries])


REMOVE_GONE_CONSUMERS = """
local removed = {}
for _, consumer in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local info = {}
  for i = 1, #consumer, 2 do info[consumer[i]] = consumer[i + 1] end
  if info['name'] ~= ARGV[2] and tonumber(info['pending']) == 0
      and tonumber(info['idle']) > tonumber(ARGV[3]) then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], info['name'])
    removed[#removed + 1] = info['name']
  end
end
return removed
"""
"""KEYS: the stream; ARGV: the group, this consumer, the silence in ms after which an idle
consumer with nothing pending is removed. Returns the names removed."""


def _gone(error: redis.ResponseError) -> bool:
    """The error of a read or group command on a stream deleted meanwhile."""
    text = str(error)
    return any(sign in text for sign in ("NOGROUP", "no such key", "no longer exists"))


def _entries(raw: Any) -> list[StreamEntry]:
    return [StreamEntry(entry_id, fields or {}) for entry_id, fields in raw]
