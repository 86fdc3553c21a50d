"""Assembling one Accounts replica: the gRPC server over Redis, with its password hasher, sign-in
limits, passkey relying party, identity providers and the channels an export reads through."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

import aiohttp
import redis.asyncio as redis

from maumau.accounts.arena import ArenaService
from maumau.accounts.attempts import Attempts
from maumau.accounts.export import Services
from maumau.accounts.match_results import ChallengeResults
from maumau.accounts.passkeys import RelyingParty
from maumau.accounts.passwords import Cost, Hasher
from maumau.accounts.providers import Provider
from maumau.accounts.service import AccountsService
from maumau.accounts.settings import Settings
from maumau.accounts.store import AccountStore
from maumau.common.config import ServiceConfig
from maumau.common.lifecycle import Service
from maumau.common.redis_client import Durability, keyed_probe
from maumau.common.redis_server import reconnecting
from maumau.common.results import consumed_streams
from maumau.common.server import create_server
from maumau.v1 import accounts_pb2_grpc, arena_pb2_grpc

SERVICE = "maumau.v1.AccountsService"
ARENA = "maumau.v1.ArenaService"


class AccountsApp(Service):
    """One replica: serves AccountsService and ArenaService until stop(), reading accounts'
    event streams, expiring challenges and telling challenge matches' ends meanwhile."""

    def __init__(
        self,
        client: redis.Redis,
        config: ServiceConfig,
        secret: bytes,
        settings: Settings | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings = settings or Settings()
        self.redis = client = reconnecting(client)
        durability = Durability(client, settings.redis_min_replicas, settings.redis_wait_ms)
        self.store = AccountStore(client, durability)
        self.hasher = Hasher(
            Cost(
                settings.password_time_cost,
                settings.password_memory_kib,
                settings.password_parallelism,
            ),
            settings.hash_concurrency,
        )
        attempts = Attempts(
            client,
            settings.sign_ins_per_username,
            settings.sign_ins_per_address,
            settings.relays(),
            secret,
        )
        party = RelyingParty(
            settings.rp_id,
            settings.rp_name,
            settings.origin_list(),
            settings.challenge_seconds * 1000,
        )
        self.http = aiohttp.ClientSession()
        providers = {
            p.name: Provider(p, settings.oidc_redirect_uri, self.http) for p in settings.providers()
        }
        self.services = Services(
            settings.engine_address, settings.rating_address, settings.tournaments_address, secret
        )
        self.servicer = AccountsService(
            self.store, secret, settings, self.hasher, attempts, party, providers, self.services,
            clock,
        )  # fmt: skip
        register = partial(accounts_pb2_grpc.add_AccountsServiceServicer_to_server, self.servicer)
        self.arena = ArenaService(self.store, secret, settings, self.services, clock)
        register_arena = partial(arena_pb2_grpc.add_ArenaServiceServicer_to_server, self.arena)
        server = create_server(
            {SERVICE: register, ARENA: register_arena}, config, keyed_probe(client)
        )
        self.results = [
            ChallengeResults(client, settings.results(), stream, drain)
            for stream, drain in consumed_streams(settings.redis_shards)
        ]
        workers = {
            "account events": self.arena.feeds.run,
            "challenges": self.arena.sweep,
            **{f"results {r.stream}": r.run for r in self.results},
        }
        super().__init__(server, workers)

    async def close(self) -> None:
        await self.services.close()
        await self.http.close()


def build(settings: Settings, client: redis.Redis | None) -> AccountsApp:
    assert client is not None, "the accounts service's settings include Redis"
    return AccountsApp(client, settings.server(), settings.secret(), settings)
