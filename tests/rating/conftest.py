"""Rating stores, consumers and replicas over the shared real redis-server, each test with a key
tag and a results stream of its own."""

import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from maumau.common.config import ServiceConfig
from maumau.common.redis_server import EmbeddedRedis
from maumau.rating.app import RatingApp
from maumau.rating.settings import Settings
from maumau.rating.store import RatingStore


@pytest.fixture
def tag() -> str:
    """The hash tag of this test's rating keys."""
    return f"rating-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def stream(tag: str) -> str:
    """This test's results stream, in place of engine:results."""
    return f"{tag}:results"


@pytest.fixture
def store(client: redis.asyncio.Redis, tag: str) -> RatingStore:
    return RatingStore(client, tag)


@pytest.fixture
def rating_settings() -> Settings:
    """The replica's settings; a test overrides this fixture to change them."""
    return Settings(consumer="replica-1", block_seconds=0.05)


@pytest.fixture
async def rating(
    redis_server: EmbeddedRedis, tag: str, stream: str, rating_settings: Settings
) -> AsyncIterator[RatingApp]:
    """One rating replica on 127.0.0.1:0 consuming this test's stream."""
    config = ServiceConfig(host="127.0.0.1", port=0, metrics_port=0, health_interval_seconds=0.2)
    settings = rating_settings
    connection = redis.asyncio.Redis.from_url(redis_server.url)
    app = RatingApp(connection, config, settings, stream=stream, tag=tag)
    await app.start()
    yield app
    await app.stop(0)
    await connection.aclose()
