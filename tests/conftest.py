"""Fixtures shared by every test folder."""

from collections.abc import Iterator

import pytest

from maumau.common.redis_server import EmbeddedRedis


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """One real redis-server for the whole run, on a free port with its files in a tmp folder.

    Shared: use keys of your own and leave it running; a test that stops or restarts Redis
    starts an EmbeddedRedis of its own.
    """
    with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server
