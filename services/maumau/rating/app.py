"""Assembling one rating replica: the gRPC server (Rating) and its results consumer."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from functools import partial

import redis.asyncio as redis

from maumau.common.config import ServiceConfig
from maumau.common.redis_server import reconnecting
from maumau.common.server import ServiceServer, create_server
from maumau.engine.store import RESULTS
from maumau.players.directory import PlayerDirectory
from maumau.rating.consumer import GROUP, ResultsConsumer
from maumau.rating.service import RatingService
from maumau.rating.store import RatingStore
from maumau.v1 import rating_pb2_grpc

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RatingSettings:
    """How a replica consumes results (see ``python -m maumau.rating`` for the variables)."""

    consumer: str | None = None
    """This replica's consumer name in the group; None: host-pid."""
    batch: int = 100
    claim_idle_seconds: float = 30.0
    block_seconds: float = 0.5
    stream: str = RESULTS
    group: str = GROUP
    tag: str = "rating"
    """The hash tag every rating key carries."""


class RatingApp:
    """One replica: start() serves gRPC and consumes results until stop()."""

    def __init__(
        self, client: redis.Redis, config: ServiceConfig, settings: RatingSettings | None = None
    ) -> None:
        settings = settings or RatingSettings()
        reconnecting(client)
        self.store = RatingStore(client, settings.tag)
        self.consumer = ResultsConsumer(
            client,
            self.store,
            consumer=settings.consumer,
            stream=settings.stream,
            group=settings.group,
            batch=settings.batch,
            claim_idle_seconds=settings.claim_idle_seconds,
            block_seconds=settings.block_seconds,
        )
        service = RatingService(self.store, PlayerDirectory(client))
        self.server: ServiceServer = create_server(
            {"maumau.v1.Rating": partial(rating_pb2_grpc.add_RatingServicer_to_server, service)},
            config,
            client.ping,
        )
        self._consuming: asyncio.Task[None] | None = None

    @property
    def port(self) -> int:
        return self.server.port

    async def start(self) -> None:
        await self.server.start()
        self._consuming = asyncio.create_task(self.consumer.run())

    async def stop(self, grace: float | None = None) -> None:
        """Stop consuming after the batch in hand (applied and acknowledged, not cut off), then
        drain the server."""
        await self.consumer.stop()
        if self._consuming is not None:
            await self._consuming
        with contextlib.suppress(redis.RedisError):
            await self.consumer.leave_group()
        await self.server.stop(grace)
