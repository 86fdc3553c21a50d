"""Engine replicas on 127.0.0.1:0 over the shared real redis-server (one replica: the ``engine``
fixture of tests/conftest.py)."""

from collections.abc import AsyncIterator

import pytest

from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from tests.support.engine import start_engine, stop_engine


@pytest.fixture
async def two_engines(redis_server: EmbeddedRedis) -> AsyncIterator[list[EngineApp]]:
    """Two replicas on the shared Redis, as behind a load balancer."""
    started = [await start_engine(redis_server.url) for _ in range(2)]
    yield [app for app, _ in started]
    for app, client in started:
        await stop_engine(app, client)
