"""Assembling one matchmaker replica: the gRPC server, table forming and the rooms' results."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from functools import partial

import grpc
import redis.asyncio as redis

from maumau.common.config import ServiceConfig
from maumau.common.redis_server import reconnecting
from maumau.common.server import ServiceServer, create_server
from maumau.matchmaking.notify import Notifier
from maumau.matchmaking.queue import TicketQueue
from maumau.matchmaking.ratings import RatingLookup, redis_ratings
from maumau.matchmaking.rooms import Rooms
from maumau.matchmaking.service import MatchmakingService
from maumau.matchmaking.settings import Settings
from maumau.matchmaking.tables import Tables
from maumau.matchmaking.worker import Former, Hooks
from maumau.players.directory import PlayerDirectory
from maumau.v1 import matchmaking_pb2_grpc


def waiting_pool(client: redis.Redis, size: int) -> redis.Redis:
    """A client of the same Redis whose pool of ``size`` connections makes a call wait for a
    free connection (up to 20 s) instead of failing: a default pool raises once 100 calls are
    in flight, and every follow stream and enqueue of a busy replica calls Redis."""
    pool = client.connection_pool
    return redis.Redis(
        connection_pool=redis.BlockingConnectionPool(
            max_connections=size,
            timeout=20,
            connection_class=pool.connection_class,
            **pool.connection_kwargs,
        )
    )


class MatchmakingApp:
    """One replica: start() serves gRPC, forms tables and follows results until stop()."""

    def __init__(
        self,
        client: redis.Redis,
        config: ServiceConfig,
        secret: bytes,
        settings: Settings | None = None,
        ratings: RatingLookup | None = None,
        hooks: Hooks | None = None,
    ) -> None:
        self.settings = settings = settings or Settings()
        self.redis = client = reconnecting(waiting_pool(client, settings.redis_connections))
        self.replica = f"mm-{secrets.token_hex(6)}"
        # Round robin over every address the target resolves to (several engine replicas).
        self.channel = grpc.aio.insecure_channel(
            settings.engine_address, options=[("grpc.lb_policy_name", "round_robin")]
        )
        self.tables = Tables(self.channel, secret, timeout=settings.lease_seconds / 2)
        self.notifier = Notifier(client)
        self.queue = TicketQueue(client, settings.lease_seconds, settings.retention_seconds)
        self.rooms = Rooms(
            client,
            self.tables,
            self.notifier,
            self.replica,
            settings.lease_seconds,
            settings.room_ttl_seconds,
        )
        self.former = Former(
            self.queue,
            self.tables,
            self.notifier,
            settings,
            ratings or redis_ratings(client),
            self.replica,
            hooks,
            sweep=self.rooms.sweep,
        )
        service = MatchmakingService(
            self.queue, self.rooms, self.notifier, PlayerDirectory(client), secret, settings
        )
        register = partial(matchmaking_pb2_grpc.add_MatchmakingServicer_to_server, service)
        self.server: ServiceServer = create_server(
            {"maumau.v1.Matchmaking": register}, config, client.ping
        )
        self._stopping = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def port(self) -> int:
        return self.server.port

    async def start(self) -> None:
        await self.notifier.start()
        await self.server.start()
        self._tasks = [
            asyncio.create_task(self.former.run(self._stopping)),
            asyncio.create_task(self.rooms.follow_results(self._stopping)),
        ]

    async def stop(self, grace: float | None = None) -> None:
        """Finish the tick in hand (its tables are created and seated), then drain the server."""
        self._stopping.set()
        await asyncio.gather(*self._tasks)
        await self.server.stop(grace)
        await self.notifier.stop()
        await self.channel.close()
        await self.redis.aclose()

    async def kill(self) -> None:
        """Stop at once, mid-work, as a replica that dies does (for tests): claimed tickets
        stay claimed until their lease runs out."""
        self._stopping.set()
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.server.stop(0)
        await self.notifier.stop()
        await self.channel.close()
        await self.redis.aclose()
