"""Applying the results stream (``MatchResult``, see game.proto) to ratings, each match once.

Every replica is one consumer of the group ``rating`` on every shard of the results stream (and
on the unsharded stream of earlier versions whenever it exists; ``maumau.common.results``), each
read by a consumer of its own (``maumau.common.streams``: own pending entries first, new ones in
batches, idle ones claimed from silent replicas). A batch is applied
with one atomic script (RatingStore.apply, idempotent by match id) and only then acknowledged. So:

- a replica that dies before applying leaves its entries pending; after ``claim_idle_seconds``
  another replica (or itself, restarted under the same consumer name) claims and applies them;
- a replica that dies after applying and before acknowledging leaves entries that are claimed
  the same way, found applied, skipped and acknowledged: no match counts twice;
- a result delivered twice (the engine publishing again after a crash, a replayed stream) is
  skipped the same way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import prometheus_client
import redis.asyncio as redis

from maumau.common.config import ConsumerSettings
from maumau.common.results import RESULTS_STREAM, BadEntry, read_result
from maumau.common.streams import StreamConsumer, StreamEntry
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
CONFLICTS = prometheus_client.Counter(
    "rating_apply_conflicts_total",
    "Batches recomputed because another replica changed one of their players first.",
)
APPLY_SECONDS = prometheus_client.Histogram(
    "rating_apply_seconds",
    "Time to apply one batch of results: read, compute, atomic write.",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)


class ResultsConsumer(StreamConsumer):
    """One consumer of the results stream: run() until stop()."""

    def __init__(
        self,
        client: redis.Redis,
        store: RatingStore,
        settings: ConsumerSettings | None = None,
        *,
        stream: str = RESULTS_STREAM,
        group: str = GROUP,
        drain: bool = False,
    ) -> None:
        super().__init__(client, stream, group, settings, drain=drain)
        self.store = store

    async def handle(self, entries: Sequence[StreamEntry]) -> None:
        """Apply the results of ``entries`` in one atomic step (acknowledged after it)."""
        started = time.perf_counter()
        results = []
        for entry in entries:
            try:
                results.append(Result.from_pb(read_result(entry)))
            except (BadEntry, BadResult) as error:
                REJECTED.inc()
                log.error("results entry %s skipped: %s", entry.id.decode(), error)
        applied = await self.store.apply(results)
        APPLY_SECONDS.observe(time.perf_counter() - started)
        APPLIED.inc(len(applied.applied))
        DUPLICATES.inc(len(applied.duplicates))
        CONFLICTS.inc(applied.conflicts)
