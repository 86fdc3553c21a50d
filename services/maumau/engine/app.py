"""Assembling one engine replica: the gRPC server (Engine and Players) and its deadline worker."""

from __future__ import annotations

import asyncio
import logging
import time
from functools import partial

import redis.asyncio as redis

from maumau.common.config import ServiceConfig
from maumau.common.lifecycle import Service, pause
from maumau.common.players import PlayerDirectory
from maumau.common.redis_client import Durability, keyed_probe
from maumau.common.redis_server import reconnecting
from maumau.common.server import create_server
from maumau.engine.matches import DEADLINE_OVERDUE, MATCHES_ACTIVE, EngineSettings, Matches
from maumau.engine.players import PlayersService
from maumau.engine.service import EngineService
from maumau.engine.settings import Settings
from maumau.engine.store import ACTIVE, RESULTS, MatchStore
from maumau.v1 import engine_pb2_grpc, players_pb2_grpc

log = logging.getLogger(__name__)


class EngineApp(Service):
    """One replica: start() serves gRPC and claims due deadlines until stop()."""

    def __init__(
        self,
        client: redis.Redis,
        config: ServiceConfig,
        secret: bytes,
        settings: EngineSettings | None = None,
        poll_seconds: float = 0.05,
    ) -> None:
        reconnecting(client)
        settings = settings or EngineSettings()
        durability = Durability(client, settings.min_replicas, settings.wait_ms)
        self.matches = Matches(MatchStore(client, durability, settings.shards), settings)
        directory = PlayerDirectory(client)
        engine = EngineService(self.matches, secret, directory)
        players = PlayersService(directory, secret)
        server = create_server(
            {
                "maumau.v1.Engine": partial(engine_pb2_grpc.add_EngineServicer_to_server, engine),
                "maumau.v1.Players": partial(
                    players_pb2_grpc.add_PlayersServicer_to_server, players
                ),
            },
            config,
            keyed_probe(client, lambda: [*self.matches.store.deadline_keys, RESULTS, ACTIVE]),
        )
        self.poll_seconds = poll_seconds
        super().__init__(server, {"deadlines": self.run_deadlines})

    async def run_deadlines(self, stopping: asyncio.Event, batch: int = 20) -> None:
        """Claim due deadlines and act on them until ``stopping`` (finishing the deadline in
        hand, not cutting it off mid-commit); a claim is a lease (``deadline_lease_seconds``), so
        a deadline whose replica dies while acting on it comes due again elsewhere."""
        store = self.matches.store
        lease = self.matches.settings.deadline_lease_seconds
        next_gauge = 0.0
        while not stopping.is_set():
            wait = self.poll_seconds
            try:
                due = await store.claim_due(time.time(), lease, batch)
                for match_id in due:
                    if stopping.is_set():
                        break  # the rest come due again when their lease runs out
                    try:
                        await self.matches.handle_due(match_id)
                    except Exception:
                        log.exception("deadline of match %s failed; it comes due again", match_id)
                if time.monotonic() >= next_gauge:
                    MATCHES_ACTIVE.set(await store.count_active())
                    earliest = await store.earliest_deadline()
                    DEADLINE_OVERDUE.set(0 if earliest is None else max(0, time.time() - earliest))
                    next_gauge = time.monotonic() + 5
            except (redis.ConnectionError, redis.TimeoutError) as error:
                log.warning("deadlines paused: Redis unreachable (%s)", error)
                due, wait = [], max(wait, 0.5)
            except Exception:
                log.exception("deadline loop failed; trying again")
                due, wait = [], max(wait, 0.5)
            if not due:
                await pause(stopping, wait)


def build(settings: Settings, client: redis.Redis | None) -> EngineApp:
    assert client is not None, "the engine's settings include Redis"
    return EngineApp(client, settings.server(), settings.secret(), settings.engine())
