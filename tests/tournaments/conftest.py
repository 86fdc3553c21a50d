"""Tournaments replicas over the shared Redis, on the engine of tests/conftest.py (bots moving
without a pause)."""

from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
import pytest
import redis.asyncio

from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.tournaments.app import TournamentsApp
from maumau.v1 import tournaments_pb2_grpc
from tests.tournaments.support import Clock, clear_tournaments, start_tournaments

StartTournaments = Callable[..., Awaitable[TournamentsApp]]


@pytest.fixture
async def redis_client(redis_server: EmbeddedRedis) -> AsyncIterator[redis.asyncio.Redis]:
    client = redis.asyncio.Redis.from_url(redis_server.url)
    await clear_tournaments(client)
    yield client
    await client.aclose()


@pytest.fixture
def engine_address(engine: EngineApp) -> str:
    return f"127.0.0.1:{engine.port}"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def replicas(
    redis_server: EmbeddedRedis,
    redis_client: redis.asyncio.Redis,
    engine_address: str,
    clock: Clock,
) -> AsyncIterator[StartTournaments]:
    """Start tournaments replicas: ``await replicas(**settings)``; all stopped at the end."""
    started: list[TournamentsApp] = []

    async def start(**changes: object) -> TournamentsApp:
        app = await start_tournaments(redis_server.url, engine_address, clock, **changes)
        started.append(app)
        return app

    yield start
    for app in started:
        await app.kill()


@pytest.fixture
async def stub(
    replicas: StartTournaments,
) -> AsyncIterator[tournaments_pb2_grpc.TournamentsServiceStub]:
    app = await replicas()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{app.port}") as channel:
        yield tournaments_pb2_grpc.TournamentsServiceStub(channel)
