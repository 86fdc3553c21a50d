"""Assembling the Bots service: its gRPC server alone (no Redis, no background work)."""

from __future__ import annotations

from functools import partial

import redis.asyncio as redis

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
        self, config: ServiceConfig, secret: bytes, max_searches: int = 4, max_budget_ms: int = 2000
    ) -> None:
        service = BotsService(secret, max_searches, max_budget_ms)
        register = partial(bots_pb2_grpc.add_BotsServiceServicer_to_server, service)
        super().__init__(create_server({"maumau.v1.BotsService": register}, config, always_healthy))


def build(settings: Settings, client: redis.Redis | None) -> BotsApp:
    return BotsApp(
        settings.server(), settings.secret(), settings.max_searches, settings.max_budget_ms
    )
