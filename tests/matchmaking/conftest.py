"""Matchmaker replicas on 127.0.0.1:0 on a real engine (the ``engine`` fixture of
tests/conftest.py), over a real redis-server of this folder's own."""

from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio

from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.matchmaking.app import MatchmakingApp
from maumau.matchmaking.worker import Hooks
from tests.matchmaking.support import StartMatchmaker, clear_matchmaking, start_matchmaker


@pytest.fixture(scope="package")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A redis-server of these tests' own: an engine started here plays out every bot move it
    finds due, and the unfinished matches other folders leave in a shared Redis would keep the
    event loop that the matchmakers under test share busy past their timeouts."""
    with EmbeddedRedis(tmp_path_factory.mktemp("redis-matchmaking")) as server:
        yield server


@pytest.fixture
async def redis_client(client: redis.asyncio.Redis) -> redis.asyncio.Redis:
    """A client of the shared Redis, with no ticket, room or rating of earlier tests."""
    await clear_matchmaking(client)
    return client


@pytest.fixture
async def matchmakers(
    redis_server: EmbeddedRedis, redis_client: redis.asyncio.Redis, engine: EngineApp
) -> AsyncIterator[StartMatchmaker]:
    """Start matchmaker replicas on the engine: ``await matchmakers(hooks=..., **settings)``
    (fast test settings by default); all are stopped at the end."""
    started: list[MatchmakingApp] = []

    async def start(hooks: Hooks | None = None, **changes: object) -> MatchmakingApp:
        app = await start_matchmaker(redis_server.url, f"127.0.0.1:{engine.port}", hooks, **changes)
        started.append(app)
        return app

    yield start
    for app in started:
        await app.kill()
