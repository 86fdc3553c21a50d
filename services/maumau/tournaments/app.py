"""Assembling one tournaments replica: the gRPC server, the driver and the results reader."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable
from functools import partial

import grpc
import redis.asyncio as redis

from maumau.common.config import ServiceConfig
from maumau.common.redis_server import reconnecting
from maumau.common.server import ServiceServer, create_server
from maumau.tournaments.engine import Engine
from maumau.tournaments.results import ResultsReader
from maumau.tournaments.service import TournamentsService
from maumau.tournaments.settings import Settings
from maumau.tournaments.store import TournamentStore
from maumau.tournaments.worker import Driver, Hooks
from maumau.v1 import tournaments_pb2_grpc


class TournamentsApp:
    """One replica: start() serves gRPC, drives tournaments and reads results until stop()."""

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
        self.results = ResultsReader(
            client, self.store, settings.consumer, settings.claim_idle_seconds
        )
        service = TournamentsService(self.store, engine, secret, settings, clock)
        register = partial(tournaments_pb2_grpc.add_TournamentsServicer_to_server, service)
        self.server: ServiceServer = create_server(
            {"maumau.v1.Tournaments": register}, config, client.ping
        )
        self._stopping = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def port(self) -> int:
        return self.server.port

    async def start(self) -> None:
        await self.results.ensure_group()
        await self.server.start()
        self._tasks = [
            asyncio.create_task(self.driver.run(self._stopping)),
            asyncio.create_task(self.results.run(self._stopping)),
        ]

    async def stop(self, grace: float | None = None) -> None:
        """Stop driving (the leases are given up, so another replica continues at once), then
        drain the server."""
        self._stopping.set()
        await asyncio.gather(*self._tasks)
        await self.server.stop(grace)
        await self.channel.close()
        await self.redis.aclose()

    async def kill(self) -> None:
        """Stop at once, as a replica that dies does (for tests): leases stay until they run out."""
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.server.stop(0)
        await self.channel.close()
        await self.redis.aclose()
