"""Assembling one engine replica: the gRPC server (Engine and Players) and its deadline worker."""

from __future__ import annotations

import asyncio
import logging
import time
from functools import partial

import prometheus_client
import redis.asyncio as redis

from maumau.common import tokens
from maumau.common.config import ServiceConfig
from maumau.common.lifecycle import Service, pause
from maumau.common.players import PlayerDirectory
from maumau.common.quotas import Quotas
from maumau.common.redis_client import Durability, is_cluster, keyed_probe
from maumau.common.redis_server import pooled, reconnecting
from maumau.common.results import trim_results
from maumau.common.server import create_server
from maumau.engine.cache import MatchCache
from maumau.engine.follow import FollowHub, OpenStreams
from maumau.engine.keys import ACTIVE
from maumau.engine.matches import DEADLINE_OVERDUE, MATCHES_ACTIVE, Matches
from maumau.engine.players import PlayersService
from maumau.engine.record import Status
from maumau.engine.service import EngineService
from maumau.engine.settings import EngineSettings, Settings
from maumau.engine.store import MatchStore
from maumau.v1 import engine_pb2_grpc, players_pb2_grpc

log = logging.getLogger(__name__)

TRIMMED = prometheus_client.Counter(
    "engine_results_trimmed_total",
    "Results removed from the results stream after every consumer group acknowledged them.",
)


FOLLOW_LANE_SIZE = 250
"""Matches one follow reader (one Redis connection) reads at once."""
CALL_WAIT_SECONDS = 10.0
"""The longest a call waits for a free connection of its pool before it answers UNAVAILABLE."""


class EngineApp(Service):
    """One replica: start() serves gRPC and claims due deadlines until stop().

    Its Redis connections come in separate pools, so no kind of work can starve another: calls
    (``redis_connections``), the follow readers (one per lane of matches), the deadline loop
    (one per deadline in hand) and the health probe (one of its own)."""

    def __init__(
        self,
        client: redis.Redis,
        config: ServiceConfig,
        secret: bytes,
        settings: EngineSettings | None = None,
        poll_seconds: float = 0.05,
        player_token_ttl_seconds: float = tokens.PLAYER_TOKEN_TTL_SECONDS,
    ) -> None:
        settings = settings or EngineSettings()
        reconnecting(client)  # the caller's client, which the pools below are copied from
        calls = pooled(client, settings.redis_connections, CALL_WAIT_SECONDS)
        lanes = -(-settings.max_follow_streams // FOLLOW_LANE_SIZE)
        readers = pooled(client, lanes + 1, CALL_WAIT_SECONDS)
        # One per deadline in hand and one for the loop's own claims.
        background = pooled(client, settings.deadline_concurrency + 1, CALL_WAIT_SECONDS)
        health = pooled(client, 1, CALL_WAIT_SECONDS)
        self.clients = (calls, readers, background, health)
        cache = MatchCache(settings.cached_matches)  # whoever commits, the other reads on
        self.matches = Matches(self._store(calls, settings, cache), settings, secret)
        self.deadlines = Matches(self._store(background, settings, cache), settings, secret)
        # A lane's one XREAD must name keys of one Cluster slot: on a cluster, a lane per match.
        lane_size = 1 if is_cluster(client) else FOLLOW_LANE_SIZE
        self.hub = FollowHub(calls, readers, self._live, settings.follow_queue_events, lane_size)
        streams = OpenStreams(settings.follow_streams_per_player, settings.max_follow_streams)
        directory = PlayerDirectory(calls)
        quotas = Quotas(calls, settings.rates)
        engine = EngineService(self.matches, secret, directory, self.hub, streams, quotas)
        players = PlayersService(directory, secret, quotas, player_token_ttl_seconds)
        server = create_server(
            {
                "maumau.v1.EngineService": partial(
                    engine_pb2_grpc.add_EngineServiceServicer_to_server, engine
                ),
                "maumau.v1.PlayersService": partial(
                    players_pb2_grpc.add_PlayersServiceServicer_to_server, players
                ),
            },
            config,
            keyed_probe(
                health,
                lambda: [
                    *self.matches.store.deadlines.keys,
                    *self.matches.store.result_keys,
                    ACTIVE,
                ],
            ),
        )
        self.poll_seconds = poll_seconds
        super().__init__(server, {"deadlines": self.run_deadlines, "trimming": self.run_trimming})

    async def run_deadlines(self, stopping: asyncio.Event, batch: int = 20) -> None:
        """Claim due deadlines and act on them, up to ``deadline_concurrency`` at once, until
        ``stopping`` (finishing the deadlines in hand, not cutting them off mid-commit); a claim
        is a lease (``deadline_lease_seconds``), so a deadline whose replica dies while acting on
        it comes due again elsewhere."""
        store = self.deadlines.store
        lease = self.deadlines.settings.deadline_lease_seconds
        slots = self.deadlines.settings.deadline_concurrency
        in_hand: set[asyncio.Task[None]] = set()
        next_gauge = 0.0
        try:
            while not stopping.is_set():
                wait = self.poll_seconds
                due: list[str] = []
                try:
                    free = slots - len(in_hand)
                    if free > 0:
                        due = await store.deadlines.claim(time.time(), lease, min(batch, free))
                    for match_id in due:
                        task = asyncio.create_task(self._handle_due(match_id))
                        in_hand.add(task)
                        task.add_done_callback(in_hand.discard)
                    if time.monotonic() >= next_gauge:
                        MATCHES_ACTIVE.set(await store.count_active())
                        earliest = await store.deadlines.earliest()
                        overdue = 0 if earliest is None else max(0, time.time() - earliest)
                        DEADLINE_OVERDUE.set(overdue)
                        next_gauge = time.monotonic() + 5
                except (redis.ConnectionError, redis.TimeoutError) as error:
                    log.warning("deadlines paused: Redis unreachable (%s)", error)
                    due, wait = [], max(wait, 0.5)
                except Exception:
                    log.exception("deadline loop failed; trying again")
                    due, wait = [], max(wait, 0.5)
                if len(in_hand) >= slots:
                    await asyncio.wait(in_hand, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
                elif not due:
                    await pause(stopping, wait)
                else:
                    await asyncio.sleep(0)  # let the new tasks start before claiming more
        finally:
            if in_hand:
                await asyncio.gather(*in_hand, return_exceptions=True)

    async def _handle_due(self, match_id: str) -> None:
        try:
            await self.deadlines.handle_due(match_id)
        except Exception:
            log.exception("deadline of match %s failed; it comes due again", match_id)

    async def run_trimming(self, stopping: asyncio.Event) -> None:
        """Every ``results_trim_seconds``, remove the results every consumer group (rating,
        tournaments, rooms) has acknowledged; every replica may, each run is atomic."""
        every = self.deadlines.settings.results_trim_seconds
        while not stopping.is_set():
            try:
                store = self.deadlines.store
                TRIMMED.inc(await trim_results(store.redis, store.shards))
            except Exception as error:
                log.warning("trimming the results stream failed (%r); trying again", error)
            await pause(stopping, every)

    @staticmethod
    def _store(client: redis.Redis, settings: EngineSettings, cache: MatchCache) -> MatchStore:
        durability = Durability(client, settings.min_replicas, settings.wait_ms)
        return MatchStore(client, durability, settings.shards, cache)

    async def _live(self, match_id: str) -> bool:
        stored = await self.matches.store.load(match_id)
        return stored is not None and stored.record.status != Status.OVER

    async def close(self) -> None:
        await self.hub.close()
        for matches in (self.matches, self.deadlines):
            await matches.bots.close()
        for client in dict.fromkeys(self.clients):  # on a cluster, one client serves all
            await client.aclose()


def build(settings: Settings, client: redis.Redis | None) -> EngineApp:
    assert client is not None, "the engine's settings include Redis"
    return EngineApp(
        client,
        settings.server(),
        settings.secret(),
        settings.engine(),
        player_token_ttl_seconds=settings.player_token_ttl_seconds,
    )
