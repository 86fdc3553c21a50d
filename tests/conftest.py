"""Fixtures shared by every test folder."""

import os
from collections.abc import AsyncIterator, Iterator

# The terminal-client tests fork (pexpect) from this process, which runs gRPC servers and clients.
# gRPC's fork handlers then run in the child before it execs the client and can kill it; the
# child needs none of them, as it execs at once. Set before anything imports grpc.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import uuid

import pytest
import redis.asyncio

from maumau.common.config import ServiceConfig
from maumau.common.redis_server import FREE_PORTS, EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.rating.app import RatingApp
from maumau.rating.settings import Settings as RatingSettings
from tests.support.engine import start_engine, stop_engine

# On a pytest-xdist worker (`make test WORKERS=N`), the worker and every process it starts pick
# free ports from a share of their own, so two workers never pick the same port at once.
if "PYTEST_XDIST_WORKER" in os.environ:
    _worker = int(os.environ["PYTEST_XDIST_WORKER"].removeprefix("gw"))
    _share = len(FREE_PORTS) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"])
    _first = FREE_PORTS.start + _worker * _share
    os.environ["MAUMAU_FREE_PORTS"] = f"{_first}-{_first + _share - 1}"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`make test WORKERS=N` runs the files on N workers (pytest-xdist, ``--dist loadgroup``):
    each file on one worker, so that its module fixtures start once. Files that share a folder of
    installed packages name one group (``pytestmark = pytest.mark.xdist_group(...)``) and run
    one after another on one worker, so that one's install never pulls the folder from under
    another's run."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """One real redis-server for the whole run, on a free port with its files in a tmp folder.

    Shared: use keys of your own and leave it running; a test that stops or restarts Redis
    starts an EmbeddedRedis of its own.
    """
    with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture
async def client(redis_server: EmbeddedRedis) -> AsyncIterator[redis.asyncio.Redis]:
    """A client of the shared redis-server."""
    connection = redis.asyncio.Redis.from_url(redis_server.url)
    yield connection
    await connection.aclose()


@pytest.fixture
async def engine(redis_server: EmbeddedRedis) -> AsyncIterator[EngineApp]:
    """An engine replica on 127.0.0.1:0 over the shared Redis; its bots move at once."""
    app, client = await start_engine(redis_server.url)
    yield app
    await stop_engine(app, client)


@pytest.fixture
def address(engine: EngineApp) -> str:
    return f"127.0.0.1:{engine.port}"


@pytest.fixture
async def lone_rating(redis_server: EmbeddedRedis) -> AsyncIterator[RatingApp]:
    """A rating replica with keys and a results stream of its own, so it knows no games: what
    BecomeBot asks about an account (the arena's ratings themselves are the rating tests')."""
    config = ServiceConfig(host="127.0.0.1", port=0, metrics_port=0, health_interval_seconds=0.2)
    connection = redis.asyncio.Redis.from_url(redis_server.url)
    tag = f"arena-test-{uuid.uuid4().hex[:12]}"
    settings = RatingSettings(consumer="replica-1", block_seconds=0.05)
    app = RatingApp(connection, config, settings, stream=f"{tag}:results", tag=tag)
    await app.start()
    yield app
    await app.stop(0)
    await connection.aclose()
