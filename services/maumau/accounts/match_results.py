"""The end of a bot-account match, told on its players' event streams (``MatchFinished``).

When a challenge's match starts, the arena marks it, and so does the matchmaker's arena pool for
its matches: ``arena:match:{<match_id>}`` (what started it), kept 8 days
(:func:`maumau.common.account_events.mark_match`). The Accounts replicas read the engine's results
stream in their own consumer group (``arena``, beside the rating service's and the others', from
the entries added after the group was made: earlier matches were marked by no one), and
for a marked match publish a ``MatchFinished`` to every seat's account, then drop the mark. A
replica that dies between the two leaves the entry pending, so another replica handles it again:
a seat may be told twice, never not at all (a bot takes a second MatchFinished of one match as
the first). Ratings are not touched here: the rating service applies every result exactly once
from the same stream.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import redis.asyncio as redis

from maumau.common import account_events
from maumau.common.account_events import match_mark_key
from maumau.common.config import ConsumerSettings
from maumau.common.results import BadEntry, read_result
from maumau.common.streams import StreamConsumer, StreamEntry
from maumau.v1 import arena_pb2 as pb
from maumau.v1 import game_pb2

log = logging.getLogger(__name__)

GROUP = "arena"


def finished_events(result: game_pb2.MatchResult) -> list[tuple[str, pb.AccountEvent]]:
    """Each seated account's MatchFinished: placement 1 for the winners, 2 for the others."""
    return [
        (
            seat.player_id,
            pb.AccountEvent(
                match_finished=pb.SeatMatchFinished(
                    match_id=result.match_id, placement=1 if seat.winner else 2, won=seat.winner
                )
            ),
        )
        for seat in result.seats
        if seat.player_id
    ]


class ChallengeResults(StreamConsumer):
    """One consumer of one results stream shard: run() until stop()."""

    def __init__(
        self, client: redis.Redis, settings: ConsumerSettings, stream: str, drain: bool
    ) -> None:
        super().__init__(client, stream, GROUP, settings, start_at="$", drain=drain)
        self.redis = client

    async def handle(self, entries: Sequence[StreamEntry]) -> None:
        for entry in entries:
            try:
                result = read_result(entry)
            except BadEntry as error:
                log.error("results entry %s skipped: %s", entry.id.decode(), error)
                continue
            key = match_mark_key(result.match_id)
            if not await self.redis.exists(key):
                continue
            for player_id, event in finished_events(result):
                await account_events.publish(self.redis, player_id, event)
            await self.redis.delete(key)
