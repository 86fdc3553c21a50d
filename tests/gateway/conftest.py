"""One platform and gateway for the gateway tests (the services keep no state between tests
but Redis, and every test registers players of its own)."""

from collections.abc import AsyncIterator

import pytest

from maumau.common.redis_server import EmbeddedRedis
from tests.gateway.support import Gateway, Platform, platform, start_gateway


@pytest.fixture(scope="session")
async def services(redis_server: EmbeddedRedis) -> AsyncIterator[Platform]:
    async with platform(redis_server.url) as started:
        yield started


@pytest.fixture(scope="session")
async def gateway(services: Platform) -> AsyncIterator[Gateway]:
    started = await start_gateway(services.settings())
    yield started
    await started.stop()
