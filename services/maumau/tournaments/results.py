"""Reading the engine's results stream (``MatchResult``) with the consumer group ``tournaments``.

Every replica is one consumer of the group (``maumau.common.streams``: own pending entries first,
idle entries of a silent replica claimed, acknowledged only after handling). Each finished match
is looked up in ``tournaments:match:{match_id}``; a tournament's match has its final totals
recorded in the tournament, an idempotent change (a result already in, or of a match the
tournament no longer holds, changes nothing), so a result handled twice counts once. Other
matches' results are acknowledged and left alone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial

import prometheus_client
import redis.asyncio as redis

from maumau.common.config import ConsumerSettings
from maumau.common.results import RESULTS_STREAM, BadEntry, read_result
from maumau.common.streams import StreamConsumer, StreamEntry
from maumau.tournaments.state import Events, Tournament
from maumau.tournaments.store import NotFound, TournamentStore

log = logging.getLogger(__name__)

GROUP = "tournaments"

APPLIED = prometheus_client.Counter(
    "tournaments_results_applied_total",
    "Results of tournament matches read from the results stream and recorded.",
)


class TournamentResults(StreamConsumer):
    """The group ``tournaments`` on one results stream (a replica reads every shard)."""

    def __init__(
        self,
        store: TournamentStore,
        client: redis.Redis,
        settings: ConsumerSettings,
        stream: str = RESULTS_STREAM,
        drain: bool = False,
    ) -> None:
        # From the stream's end: results before the first replica started belong to no tournament.
        super().__init__(client, stream, GROUP, settings, start_at="$", drain=drain)
        self.store = store

    async def handle(self, entries: Sequence[StreamEntry]) -> None:
        results = []
        for entry in entries:
            try:
                results.append(read_result(entry))
            except BadEntry as error:
                log.error("results entry skipped: %s", error)
        owners = await self.store.tournament_of([r.match_id for r in results])
        for result, tournament_id in zip(results, owners, strict=True):
            if tournament_id is None:
                continue
            totals = [seat.total for seat in result.seats]
            try:
                await self.store.update(tournament_id, partial(_apply, result.match_id, totals))
            except NotFound:
                continue
            APPLIED.inc()


def _apply(match_id: str, totals: list[int], t: Tournament) -> tuple[Events, None]:
    return t.apply_result(match_id, totals), None
