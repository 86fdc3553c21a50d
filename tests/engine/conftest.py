"""Engine replicas on 127.0.0.1:0 over the shared real redis-server."""

from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from maumau.common.config import ServiceConfig
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.engine.matches import EngineSettings

SECRET = b"engine tests secret"


def engine_config(port: int = 0) -> ServiceConfig:
    return ServiceConfig(host="127.0.0.1", port=port, metrics_port=0, health_interval_seconds=0.2)


async def start_engine(url: str, bot_delay: float = 0.0) -> tuple[EngineApp, redis.asyncio.Redis]:
    client = redis.asyncio.Redis.from_url(url)
    app = EngineApp(
        client, engine_config(), SECRET, EngineSettings(bot_delay_seconds=bot_delay), 0.01
    )
    await app.start()
    return app, client


@pytest.fixture
async def engine(redis_server: EmbeddedRedis) -> AsyncIterator[EngineApp]:
    app, client = await start_engine(redis_server.url)
    yield app
    await app.stop(0)
    await client.aclose()


@pytest.fixture
def address(engine: EngineApp) -> str:
    return f"127.0.0.1:{engine.port}"


async def start_engine_with(
    url: str, settings: EngineSettings, port: int = 0
) -> tuple[EngineApp, redis.asyncio.Redis]:
    """A replica with explicit settings (bot delay, deadline lease, ...), on a chosen port."""
    client = redis.asyncio.Redis.from_url(url)
    app = EngineApp(client, engine_config(port), SECRET, settings, 0.01)
    await app.start()
    return app, client


@pytest.fixture
async def two_engines(redis_server: EmbeddedRedis) -> AsyncIterator[list[EngineApp]]:
    """Two replicas on the shared Redis, as behind a load balancer."""
    started = [await start_engine(redis_server.url) for _ in range(2)]
    yield [app for app, _ in started]
    for app, client in started:
        await app.stop(0)
        await client.aclose()
