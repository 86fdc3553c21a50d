"""Assembling one rating replica: the gRPC server (Rating) and its results consumer."""

from __future__ import annotations

import contextlib
from functools import partial

import redis.asyncio as redis

from maumau.common.config import ServiceConfig
from maumau.common.lifecycle import Service
from maumau.common.players import PlayerDirectory
from maumau.common.redis_client import Durability, keyed_probe
from maumau.common.redis_server import reconnecting
from maumau.common.results import RESULTS_STREAM, consumed_streams, results_stream
from maumau.common.server import create_server
from maumau.rating.consumer import ResultsConsumer
from maumau.rating.service import RatingService
from maumau.rating.settings import Settings
from maumau.rating.store import RatingStore
from maumau.v1 import rating_pb2_grpc


class RatingApp(Service):
    """One replica: start() serves gRPC and consumes results until stop(), which finishes the
    batch in hand (applied and acknowledged, not cut off) before the server drains."""

    def __init__(
        self,
        client: redis.Redis,
        config: ServiceConfig,
        settings: Settings | None = None,
        *,
        stream: str = RESULTS_STREAM,
        tag: str = "rating",
    ) -> None:
        """``stream`` (the results stream its shards are named after) and ``tag`` (the hash
        tag every rating key starts with) differ only in tests."""
        settings = settings or Settings()
        reconnecting(client)
        durability = Durability(client, settings.redis_min_replicas, settings.redis_wait_ms)
        self.store = RatingStore(
            client,
            tag,
            durability,
            settings.match_retention_seconds,
            settings.farming_window_seconds,
        )
        self.consumers = [
            ResultsConsumer(client, self.store, settings.consuming(), stream=name, drain=drain)
            for name, drain in consumed_streams(settings.redis_shards, stream)
        ]
        service = RatingService(self.store, PlayerDirectory(client))
        server = create_server(
            {
                "maumau.v1.RatingService": partial(
                    rating_pb2_grpc.add_RatingServiceServicer_to_server, service
                )
            },
            config,
            keyed_probe(client, lambda: [*self.store.seq_keys, results_stream(0, stream)]),
        )
        super().__init__(server, {f"results {c.stream}": c.run for c in self.consumers})

    async def open(self) -> None:
        await self.store.warn_of_single_slot_keys()

    async def close(self) -> None:
        for consumer in self.consumers:
            with contextlib.suppress(redis.RedisError):
                await consumer.leave_group()


def build(settings: Settings, client: redis.Redis | None) -> RatingApp:
    assert client is not None, "the rating service's settings include Redis"
    return RatingApp(client, settings.server(), settings)
