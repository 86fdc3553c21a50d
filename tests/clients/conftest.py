"""The SDK and the terminal client against a real engine (the ``engine`` fixture of
tests/conftest.py) over the shared real redis-server."""

from collections.abc import AsyncIterator, Iterator

import pytest

from maumau_sdk import Platform
from tests.clients.platform import FAST, RunningPlatform, start_platform


@pytest.fixture
async def platform(address: str) -> AsyncIterator[Platform]:
    async with Platform.connect(address) as connected:
        yield connected


@pytest.fixture(scope="session")
def whole_platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningPlatform]:
    """``make run``'s platform (every service, its own Redis), shared by the tests that need
    more than the engine: the docs' commands, matchmaking and rating from the clients."""
    running = start_platform(tmp_path_factory.mktemp("platform"), **FAST)
    yield running
    running.stop()


@pytest.fixture
async def everywhere(whole_platform: RunningPlatform) -> AsyncIterator[Platform]:
    """The SDK connected to every service of the whole platform."""
    async with Platform.connect(
        whole_platform.address("engine"),
        matchmaking_address=whole_platform.address("matchmaking"),
        rating_address=whole_platform.address("rating"),
        bots_address=whole_platform.address("bots"),
        accounts_address=whole_platform.address("accounts"),
    ) as connected:
        yield connected
