"""Reading the engine's results stream with the consumer group ``tournaments``.

Every replica is one consumer of the group. Each finished match's entry is looked up in
``tournaments:match:{match_id}``; a tournament's match has its final totals recorded in the
tournament (an idempotent change: a result already in, or of a match the tournament no longer
holds, changes nothing), and only then is the entry acknowledged. Entries of other matches are
acknowledged at once. A replica that dies leaves its entries pending; after
``claim_idle_seconds`` another replica claims them (XAUTOCLAIM) and applies them, so every
result is counted exactly once whatever dies when.

The entry's ``result`` field is the engine's JSON result (``match_id`` and per seat ``total``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Sequence
from functools import partial

import prometheus_client
import redis.asyncio as redis

from maumau.tournaments.state import Events, Tournament
from maumau.tournaments.store import NotFound, TournamentStore

log = logging.getLogger(__name__)

RESULTS = "engine:results"
"""The engine's results stream (documented in the engine's store module)."""
GROUP = "tournaments"

APPLIED = prometheus_client.Counter(
    "tournaments_results_applied_total",
    "Results of tournament matches read from the results stream and recorded.",
)
RECLAIMED = prometheus_client.Counter(
    "tournaments_results_reclaimed_total",
    "Pending results claimed from a consumer that went silent.",
)

Entry = tuple[bytes, dict[bytes, bytes] | None]


def default_consumer_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class ResultsReader:
    def __init__(
        self,
        client: redis.Redis,
        store: TournamentStore,
        consumer: str,
        claim_idle_seconds: float,
        block_seconds: float = 0.5,
    ) -> None:
        self.redis = client
        self.store = store
        self.consumer = consumer or default_consumer_name()
        self.claim_idle_seconds = claim_idle_seconds
        self.block_seconds = block_seconds

    async def ensure_group(self) -> None:
        """Create the group at the stream's end: results before the first replica started
        belong to no tournament."""
        try:
            await self.redis.xgroup_create(RESULTS, GROUP, id="$", mkstream=True)
        except redis.ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    async def run(self, stopping: asyncio.Event) -> None:
        own_pending = True
        next_claim = 0.0
        while not stopping.is_set():
            try:
                await self.ensure_group()
                if own_pending:
                    reply = await self.redis.xreadgroup(
                        GROUP, self.consumer, {RESULTS: "0"}, count=100
                    )
                    entries: list[Entry] = reply[0][1] if reply else []
                    own_pending = bool(entries)
                elif time.monotonic() >= next_claim:
                    next_claim = time.monotonic() + self.claim_idle_seconds / 2
                    claimed = await self.redis.xautoclaim(
                        RESULTS,
                        GROUP,
                        self.consumer,
                        min_idle_time=int(self.claim_idle_seconds * 1000),
                        start_id="0-0",
                        count=100,
                    )
                    entries = [e for e in claimed[1] if e[0] is not None]
                    RECLAIMED.inc(len(entries))
                else:
                    reply = await self.redis.xreadgroup(
                        GROUP,
                        self.consumer,
                        {RESULTS: ">"},
                        count=100,
                        block=int(self.block_seconds * 1000),
                    )
                    entries = reply[0][1] if reply else []
                await self.handle(entries)
            except (redis.ConnectionError, redis.TimeoutError) as error:
                log.warning("reading results paused: Redis unreachable (%s)", error)
                await _pause(stopping, 0.5)
            except Exception:
                log.exception("recording results failed; they stay pending")
                await _pause(stopping, 0.5)

    async def handle(self, entries: Sequence[Entry]) -> None:
        if not entries:
            return
        parsed = [_parse(fields) for _, fields in entries]
        owners = await self.store.tournament_of([p[0] if p else "" for p in parsed])
        for result, tournament_id in zip(parsed, owners, strict=True):
            if result is None or tournament_id is None:
                continue
            try:
                await self.store.update(tournament_id, partial(_apply, *result))
            except NotFound:
                continue
            APPLIED.inc()
        await self.redis.xack(RESULTS, GROUP, *(entry_id for entry_id, _ in entries))


def _apply(match_id: str, totals: list[int], t: Tournament) -> tuple[Events, None]:
    return t.apply_result(match_id, totals), None


def _parse(fields: dict[bytes, bytes] | None) -> tuple[str, list[int]] | None:
    """The match id and per-seat totals of an entry, or None for an entry that is no result."""
    try:
        result = json.loads((fields or {}).get(b"result", b""))
        return str(result["match_id"]), [int(seat["total"]) for seat in result["seats"]]
    except (ValueError, KeyError, TypeError):
        return None


async def _pause(stopping: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stopping.wait(), seconds)
