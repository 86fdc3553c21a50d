"""Reading the engine's results stream with a consumer group, and applying each match once.

Every replica is one consumer of the group ``rating``. It reads batches of new entries
(XREADGROUP), applies them with one atomic script (RatingStore.apply, idempotent by match id),
and only then acknowledges them (XACK). So:

- a replica that dies before applying leaves its entries pending; after ``claim_idle_seconds``
  another replica (or itself, restarted under the same consumer name) claims them (XAUTOCLAIM)
  and applies them;
- a replica that dies after applying and before acknowledging leaves entries that are claimed
  the same way, found applied, skipped and acknowledged: no match counts twice;
- a result delivered twice (the engine publishing again after a crash, a replayed stream) is
  skipped the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import Sequence
from typing import Any, cast

import prometheus_client
import redis.asyncio as redis

from maumau.engine.store import RESULTS
from maumau.rating.ladder import BadResult, Result
from maumau.rating.store import RatingStore

log = logging.getLogger(__name__)

GROUP = "rating"

APPLIED = prometheus_client.Counter(
    "rating_results_applied_total", "Finished matches applied to XP, ratings and leaderboards."
)
DUPLICATES = prometheus_client.Counter(
    "rating_results_duplicate_total",
    "Results skipped because their match was applied before (redelivered or replayed).",
)
REJECTED = prometheus_client.Counter(
    "rating_results_rejected_total", "Results-stream entries that are not a result; acknowledged."
)
RECLAIMED = prometheus_client.Counter(
    "rating_results_reclaimed_total", "Pending entries claimed from a consumer that went silent."
)
CONFLICTS = prometheus_client.Counter(
    "rating_apply_conflicts_total",
    "Batches recomputed because another replica changed one of their players first.",
)
APPLY_SECONDS = prometheus_client.Histogram(
    "rating_apply_seconds",
    "Time to apply one batch of results: read, compute, atomic write.",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)

Entry = tuple[bytes, dict[bytes, bytes] | None]


def default_consumer_name() -> str:
    """host-pid: unique per replica, and the same again when a container restarts in its pod,
    so a restarted replica picks up its own pending entries at once."""
    return f"{socket.gethostname()}-{os.getpid()}"


class ResultsConsumer:
    """One consumer of the results stream: run() until stop()."""

    def __init__(
        self,
        client: redis.Redis,
        store: RatingStore,
        *,
        consumer: str | None = None,
        stream: str = RESULTS,
        group: str = GROUP,
        batch: int = 100,
        claim_idle_seconds: float = 30.0,
        block_seconds: float = 0.5,
    ) -> None:
        self.redis = client
        self.store = store
        self.consumer = consumer or default_consumer_name()
        self.stream = stream
        self.group = group
        self.batch = batch
        self.claim_idle_seconds = claim_idle_seconds
        self.block_seconds = block_seconds
        self._stopping = asyncio.Event()

    async def ensure_group(self) -> None:
        """Create the group (and the stream) if missing, reading from the stream's start, so
        results published before the first replica started are applied too."""
        try:
            await self.redis.xgroup_create(self.stream, self.group, id="0", mkstream=True)
        except redis.ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    async def run(self) -> None:
        """Consume until stop(): first this consumer's own pending entries, then new ones, and
        every ``claim_idle_seconds / 2`` the entries another consumer left pending too long.
        Nothing but stop() ends the loop; a failed batch stays pending and is claimed again."""
        await self.ensure_group()
        next_claim = 0.0
        own_pending = True
        while not self._stopping.is_set():
            try:
                # One step at a time, so a stop() waits for one batch at most.
                if own_pending:
                    own_pending = await self.consume_own_pending() > 0
                elif time.monotonic() >= next_claim:
                    next_claim = time.monotonic() + self.claim_idle_seconds / 2
                    await self.reclaim()
                else:
                    await self.consume_new()
            except (redis.ConnectionError, redis.TimeoutError) as error:
                log.warning("consuming paused: Redis unreachable (%s)", error)
                await self._pause(0.5)
            except Exception:
                log.exception("applying results failed; the batch stays pending")
                await self._pause(0.5)

    async def stop(self) -> None:
        """Ask run() to end after the batch in hand (its read waits at most block_seconds)."""
        self._stopping.set()

    async def consume_new(self) -> int:
        """Read and apply one batch of new entries (waiting up to block_seconds for them)."""
        reply = await self.redis.xreadgroup(
            self.group,
            self.consumer,
            {self.stream: ">"},
            count=self.batch,
            block=max(1, int(self.block_seconds * 1000)),
        )
        entries: list[Entry] = cast(Any, reply)[0][1] if reply else []
        await self.handle(entries)
        return len(entries)

    async def consume_own_pending(self) -> int:
        """Apply one batch of entries delivered to this consumer name and not acknowledged (left
        by an earlier run under the same name); an entry deleted from the stream meanwhile comes
        without fields and is acknowledged as rejected."""
        reply = await self.redis.xreadgroup(
            self.group, self.consumer, {self.stream: "0"}, count=self.batch
        )
        entries: list[Entry] = cast(Any, reply)[0][1] if reply else []
        await self.handle(entries)
        return len(entries)

    async def reclaim(self) -> int:
        """Claim and apply every entry pending longer than claim_idle_seconds with any consumer."""
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
            entries = [entry for entry in reply[1] if entry[0] is not None]
            if entries:
                RECLAIMED.inc(len(entries))
                log.info("claimed %d results left pending by another consumer", len(entries))
                await self.handle(entries)
                claimed += len(entries)
            if start == "0-0" or self._stopping.is_set():
                return claimed

    async def handle(self, entries: Sequence[Entry]) -> None:
        """Apply the results of ``entries`` in one atomic step, then acknowledge them."""
        if not entries:
            return
        started = time.perf_counter()
        results = []
        for entry_id, fields in entries:
            try:
                results.append(Result.from_json((fields or {}).get(b"result", b"")))
            except BadResult as error:
                REJECTED.inc()
                log.error("results entry %s skipped: %s", entry_id.decode(), error)
        applied = await self.store.apply(results)
        APPLY_SECONDS.observe(time.perf_counter() - started)
        APPLIED.inc(len(applied.applied))
        DUPLICATES.inc(len(applied.duplicates))
        CONFLICTS.inc(applied.conflicts)
        await self.acknowledge([entry_id for entry_id, _ in entries])

    async def acknowledge(self, entry_ids: Sequence[bytes]) -> None:
        await self.redis.xack(self.stream, self.group, *entry_ids)

    async def leave_group(self) -> None:
        """Remove this consumer's name from the group if it holds no pending entries (a replica
        that stops cleanly), so names of replicas long gone do not pile up."""
        pending = await self.redis.xpending_range(
            self.stream, self.group, min="-", max="+", count=1, consumername=self.consumer
        )
        if not pending:
            await self.redis.xgroup_delconsumer(self.stream, self.group, self.consumer)

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)
