"""Assembling one engine replica: the gRPC server (Engine and Players) and its deadline loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from functools import partial

import redis.asyncio as redis

from maumau.common.config import ServiceConfig
from maumau.common.redis_server import reconnecting
from maumau.common.server import ServiceServer, create_server
from maumau.engine.matches import DEADLINE_OVERDUE, MATCHES_ACTIVE, EngineSettings, Matches
from maumau.engine.service import EngineService
from maumau.engine.store import MatchStore
from maumau.players.directory import PlayerDirectory
from maumau.players.service import PlayersService
from maumau.v1 import engine_pb2_grpc, players_pb2_grpc

log = logging.getLogger(__name__)


class EngineApp:
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
        self.matches = Matches(MatchStore(client), settings or EngineSettings())
        directory = PlayerDirectory(client)
        engine = EngineService(self.matches, secret, directory)
        players = PlayersService(directory, secret)
        self.server: ServiceServer = create_server(
            {
                "maumau.v1.Engine": partial(engine_pb2_grpc.add_EngineServicer_to_server, engine),
                "maumau.v1.Players": partial(
                    players_pb2_grpc.add_PlayersServicer_to_server, players
                ),
            },
            config,
            client.ping,
        )
        self.poll_seconds = poll_seconds
        self._deadlines: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    @property
    def port(self) -> int:
        return self.server.port

    async def start(self) -> None:
        await self.server.start()
        self._deadlines = asyncio.create_task(self.run_deadlines())

    async def stop(self, grace: float | None = None) -> None:
        """Finish the deadline in hand (not cut it off mid-commit), then drain the server."""
        self._stopping.set()
        if self._deadlines is not None:
            await self._deadlines
        await self.server.stop(grace)

    async def run_deadlines(self, lease_seconds: float | None = None, batch: int = 20) -> None:
        """Claim due deadlines and act on them; a claim is a lease (``deadline_lease_seconds``
        of the settings unless given), so a deadline whose replica dies while acting on it comes
        due again elsewhere. Nothing but stop() ends the loop: a replica whose loop died would
        go on answering calls while its share of bots and turn timers silently stopped."""
        store = self.matches.store
        lease = (
            self.matches.settings.deadline_lease_seconds if lease_seconds is None else lease_seconds
        )
        next_gauge = 0.0
        while not self._stopping.is_set():
            pause = self.poll_seconds
            try:
                due = await store.claim_due(time.time(), lease, batch)
                for match_id in due:
                    if self._stopping.is_set():
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
                due, pause = [], max(pause, 0.5)
            except Exception:
                log.exception("deadline loop failed; trying again")
                due, pause = [], max(pause, 0.5)
            if not due:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), pause)
