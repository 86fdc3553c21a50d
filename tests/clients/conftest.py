"""The SDK and the terminal client against a real engine on 127.0.0.1:0 over the shared real
redis-server (the session fixture of tests/conftest.py), built as tests/engine builds it."""

from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio

from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.engine.matches import EngineSettings
from maumau_sdk import Platform
from tests.clients.platform import FAST, RunningPlatform, start_platform
from tests.engine.conftest import start_engine_with


async def start_engine(url: str, port: int = 0) -> tuple[EngineApp, redis.asyncio.Redis]:
    """A replica whose bots move at once, on a chosen port (so a test can restart it there)."""
    return await start_engine_with(url, EngineSettings(bot_delay_seconds=0), port)


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


@pytest.fixture(scope="session")
def whole_platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningPlatform]:
    """``make run``'s platform (every service, its own Redis), shared by the tests that need
    more than the engine: the README's commands, matchmaking and rating from the clients."""
    running = start_platform(tmp_path_factory.mktemp("platform"), **FAST)
    yield running
    running.stop()
