"""Assembling one tournaments replica: the gRPC server, the driver and the results reader."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from functools import partial

import grpc
import redis.asyncio as redis

from maumau.common.config import ServiceConfig
from maumau.common.lifecycle import Service
from maumau.common.quotas import Quotas
from maumau.common.redis_client import keyed_probe
from maumau.common.redis_server import reconnecting
from maumau.common.results import consumed_streams
from maumau.common.server import create_server
from maumau.tournaments.engine import Engine
from maumau.tournaments.results import TournamentResults
from maumau.tournaments.service import TournamentsService
from maumau.tournaments.settings import Settings
from maumau.tournaments.store import TournamentStore
from maumau.tournaments.worker import Driver, Hooks
from maumau.v1 import tournaments_pb2_grpc


class TournamentsApp(Service):
    """One replica: serves gRPC, drives tournaments and reads results until stop(), which gives
    up the leases it holds (another replica continues at once) before the server drains."""

    def __init__(
        self,
        client: redis.Redis,
        config: ServiceConfig,
        secret: bytes,
        settings: Settings | None = None,
        clock: Callable[[], float] = time.time,
        hooks: Hooks | None = None,
    ) -> None:
        self.settings = settings = settings or Settings()
        self.redis = client = reconnecting(client)
        self.replica = f"tour-{secrets.token_hex(6)}"
        self.channel = grpc.aio.insecure_channel(
            settings.engine_address, options=[("grpc.lb_policy_name", "round_robin")]
        )
        self.store = TournamentStore(client, settings.retention_seconds)
        engine = Engine(self.channel, secret, timeout=settings.lease_seconds / 2)
        self.driver = Driver(self.store, engine, settings, self.replica, clock, hooks)
        self.results = [
            TournamentResults(self.store, client, settings.results(), stream, drain)
            for stream, drain in consumed_streams(settings.redis_shards)
        ]
        quotas = Quotas(client, settings.rates())
        service = TournamentsService(self.store, engine, secret, settings, quotas, clock)
        register = partial(tournaments_pb2_grpc.add_TournamentsServiceServicer_to_server, service)
        probe = keyed_probe(client)
        server = create_server({"maumau.v1.TournamentsService": register}, config, probe)
        workers = {f"results {r.stream}": r.run for r in self.results}
        super().__init__(server, {"driving": self.driver.run, **workers})

    async def open(self) -> None:
        for results in self.results:
            await results.ensure_group()

    async def close(self) -> None:
        await self.channel.close()
        await self.redis.aclose()


def build(settings: Settings, client: redis.Redis | None) -> TournamentsApp:
    assert client is not None, "the tournaments service's settings include Redis"
    return TournamentsApp(client, settings.server(), settings.secret(), settings)
