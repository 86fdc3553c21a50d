"""Fixtures shared by every test folder."""

import os
from collections.abc import Iterator

# The terminal-client tests fork (pexpect) from this process, which runs gRPC servers and clients.
# gRPC's fork handlers then run in the child before it execs the client and can kill it; the
# child needs none of them, as it execs at once. Set before anything imports grpc.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

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
