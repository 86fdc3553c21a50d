"""The SDK and the terminal client against a real engine on 127.0.0.1:0 over the shared real
redis-server (the session fixture of tests/conftest.py), built as tests/engine builds it."""

from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from maumau.common.config import ServiceConfig
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.engine.matches import EngineSettings
from maumau_sdk import Platform
from tests.engine.conftest import SECRET

HEALTH_INTERVAL_SECONDS = 60.0
"""Longer than any test here. ``ServiceServer.stop`` cancels its health watcher and awaits it, but
on Python 3.11 ``asyncio.wait_for`` swallows a cancellation that meets a probe just finishing, so
the watcher can run on and stop never returns; tests/engine's 0.2 s interval hits that about
once in ten runs of these tests."""


def engine_config(port: int = 0) -> ServiceConfig:
    return ServiceConfig(
        host="127.0.0.1", port=port, metrics_port=0, health_interval_seconds=HEALTH_INTERVAL_SECONDS
    )


async def start_engine(url: str, port: int = 0) -> tuple[EngineApp, redis.asyncio.Redis]:
    """A replica whose bots move at once, as tests/engine's ``start_engine``."""
    client = redis.asyncio.Redis.from_url(url)
    app = EngineApp(client, engine_config(port), SECRET, EngineSettings(bot_delay_seconds=0), 0.01)
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


@pytest.fixture
async def platform(address: str) -> AsyncIterator[Platform]:
    async with Platform.connect(address) as connected:
        yield connected
