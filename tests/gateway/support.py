"""The whole platform for gateway tests: engine, bots, matchmaker and rating on 127.0.0.1:0 over
the shared real redis-server, and a real gateway in front of them on a free port."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import redis.asyncio
from aiohttp import web

from maumau.bots.app import BotsApp
from maumau.common.config import ServiceConfig
from maumau.engine.app import EngineApp
from maumau.engine.matches import EngineSettings
from maumau.gateway.app import create_app
from maumau.gateway.settings import GatewaySettings
from maumau.matchmaking.app import MatchmakingApp
from maumau.rating.app import RatingApp
from maumau.rating.settings import Settings as RatingSettings
from tests.matchmaking.support import fast
from tests.support.engine import SECRET, engine_config, generous


def config() -> ServiceConfig:
    return ServiceConfig(host="127.0.0.1", port=0, metrics_port=0, health_interval_seconds=0.2)


@dataclass
class Platform:
    engine: EngineApp
    bots: BotsApp
    matchmaking: MatchmakingApp
    rating: RatingApp
    clients: list[redis.asyncio.Redis]

    def settings(self, **changes: object) -> GatewaySettings:
        """Gateway settings pointing at these services, on a free port."""
        base = GatewaySettings(
            port=0,
            metrics_port=0,
            engine_address=f"127.0.0.1:{self.engine.port}",
            matchmaking_address=f"127.0.0.1:{self.matchmaking.port}",
            bots_address=f"127.0.0.1:{self.bots.port}",
            rating_address=f"127.0.0.1:{self.rating.port}",
            grace_seconds=2.0,
        )
        return base.model_copy(update=changes)


@contextlib.asynccontextmanager
async def platform(redis_url: str, bot_delay: float = 0.0) -> AsyncIterator[Platform]:
    clients = [redis.asyncio.Redis.from_url(redis_url) for _ in range(3)]
    engine = EngineApp(
        clients[0],
        engine_config(),
        SECRET,
        generous(EngineSettings(bot_delay_seconds=bot_delay)),
        0.01,
    )
    await engine.start()
    bots = BotsApp(config())
    await bots.start()
    matchmaking = MatchmakingApp(
        clients[1],
        config(),
        SECRET,
        fast(f"127.0.0.1:{engine.port}"),
    )
    await matchmaking.start()
    rating = RatingApp(
        clients[2],
        config(),
        RatingSettings(consumer="gateway-tests", block_seconds=0.05),
    )
    await rating.start()
    try:
        yield Platform(engine, bots, matchmaking, rating, clients)
    finally:
        await rating.stop(0)
        await matchmaking.stop(0)
        await bots.stop(0)
        await engine.stop(0)
        for client in clients:
            with contextlib.suppress(Exception):
                await client.aclose()


@dataclass
class Gateway:
    runner: web.AppRunner
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        await self.runner.cleanup()


async def start_gateway(settings: GatewaySettings) -> Gateway:
    runner = web.AppRunner(create_app(settings, SECRET), shutdown_timeout=settings.grace_seconds)
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.port)
    await site.start()
    server = site._server  # the bound socket tells the free port it got
    assert server is not None
    port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return Gateway(runner, port)


async def wait_for(check: object, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await check():  # type: ignore[operator]
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.05)
