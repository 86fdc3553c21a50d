"""Assembling one matchmaker replica: the gRPC server, table forming, the bot arena's tick and the
results (rooms' next matches, arena bots freed)."""

from __future__ import annotations

import secrets
from functools import partial

import grpc
import redis.asyncio as redis

from maumau.common.config import ServiceConfig
from maumau.common.lifecycle import Service
from maumau.common.players import PlayerDirectory
from maumau.common.quotas import Quotas
from maumau.common.redis_client import Durability, keyed_probe
from maumau.common.redis_server import pooled
from maumau.common.results import consumed_streams
from maumau.common.server import create_server
from maumau.matchmaking.arena import ArenaRules
from maumau.matchmaking.arena_pool import ArenaPool
from maumau.matchmaking.arena_worker import ArenaFormer, account_notices
from maumau.matchmaking.notify import Notifier
from maumau.matchmaking.parties import Parties
from maumau.matchmaking.queue import ACTIVE, FORGET, TicketQueue
from maumau.matchmaking.ratings import RatingLookup, redis_ratings
from maumau.matchmaking.rooms import RoomResults, Rooms
from maumau.matchmaking.service import MatchmakingService
from maumau.matchmaking.settings import Settings
from maumau.matchmaking.tables import Tables
from maumau.matchmaking.worker import Former, Hooks
from maumau.v1 import matchmaking_pb2_grpc


class MatchmakingApp(Service):
    """One replica: start() serves gRPC, forms tables and follows results until stop(), which
    finishes the tick in hand (its tables are created and seated) before the server drains."""

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
        # A call waits for a free connection instead of failing once a default pool's 100 are busy.
        self.redis = client = pooled(client, settings.redis_connections, wait_seconds=20)
        self.replica = f"mm-{secrets.token_hex(6)}"
        # Round robin over every address the target resolves to (several engine replicas).
        self.channel = grpc.aio.insecure_channel(
            settings.engine_address, options=[("grpc.lb_policy_name", "round_robin")]
        )
        self.tables = Tables(self.channel, secret, timeout=settings.lease_seconds / 2)
        self.notifier = Notifier(client)
        durability = Durability(client, settings.redis_min_replicas, settings.redis_wait_ms)
        self.queue = TicketQueue(
            client, settings.lease_seconds, settings.retention_seconds, durability
        )
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
        self.arena_pool = ArenaPool(client, settings.arena_entry_seconds, durability)
        seat, paused = account_notices(client)
        self.arena = ArenaFormer(
            self.arena_pool,
            self.tables,
            redis_ratings(client),
            seat,
            paused,
            ArenaRules(daily_matches=settings.arena_bot_matches_per_day),
            settings.arena_pools(),
            turn_seconds=settings.turn_seconds,
        )
        self.parties = Parties(
            client, settings.party_ttl_seconds, settings.invite_ttl_seconds, settings.party_max
        )
        service = MatchmakingService(
            self.queue,
            self.rooms,
            self.notifier,
            PlayerDirectory(client),
            secret,
            settings,
            self.parties,
            Quotas(client, settings.rates()),
            self.arena_pool,
        )
        self.results = [
            RoomResults(self.rooms, settings.results(), stream, drain, self.arena.result)
            for stream, drain in consumed_streams(settings.redis_shards)
        ]
        register = partial(matchmaking_pb2_grpc.add_MatchmakingServiceServicer_to_server, service)
        probe = keyed_probe(client, lambda: [ACTIVE, FORGET])
        server = create_server({"maumau.v1.MatchmakingService": register}, config, probe)
        workers = {f"results {r.stream}": r.run for r in self.results}
        arena = partial(self.arena.run, tick_seconds=settings.arena_tick_seconds)
        super().__init__(server, {"forming": self.former.run, "arena": arena, **workers})

    async def open(self) -> None:
        await self.notifier.start()
        for results in self.results:  # a room's next match waits for results from now on
            await results.ensure_group()

    async def close(self) -> None:
        await self.notifier.stop()
        await self.channel.close()
        await self.redis.aclose()


def build(settings: Settings, client: redis.Redis | None) -> MatchmakingApp:
    assert client is not None, "the matchmaker's settings include Redis"
    return MatchmakingApp(client, settings.server(), settings.secret(), settings)
