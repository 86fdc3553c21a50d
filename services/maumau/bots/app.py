"""Assembling the Bots service: its gRPC server, and the house's bots in the arena when the
settings name levels for it (:mod:`maumau.bots.house`; then it reaches the platform's Redis)."""

from __future__ import annotations

from functools import partial

import redis.asyncio as redis

from maumau.bots.house import House
from maumau.bots.service import BotsService
from maumau.bots.settings import Settings
from maumau.common.config import ServiceConfig
from maumau.common.lifecycle import Service
from maumau.common.server import create_server
from maumau.v1 import bots_pb2_grpc


async def always_healthy() -> None:
    """The bots depend on nothing outside the process: health follows the event loop only."""


class BotsApp(Service):
    def __init__(
        self,
        config: ServiceConfig,
        secret: bytes,
        max_searches: int = 4,
        max_budget_ms: int = 2000,
        house: House | None = None,
    ) -> None:
        service = BotsService(secret, max_searches, max_budget_ms)
        register = partial(bots_pb2_grpc.add_BotsServiceServicer_to_server, service)
        server = create_server({"maumau.v1.BotsService": register}, config, always_healthy)
        super().__init__(server, {"house": house.run} if house is not None else {})


def build(settings: Settings, client: redis.Redis | None) -> BotsApp:
    house = None
    if settings.house():
        house = House(
            settings.house_redis_url,
            settings.secret(),
            settings.house(),
            settings.house_engine_address,
            settings.house_matchmaking_address,
            settings.max_budget_ms,
        )
    return BotsApp(
        settings.server(), settings.secret(), settings.max_searches, settings.max_budget_ms, house
    )
