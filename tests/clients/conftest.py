"""The SDK and the terminal client against a real engine (the ``engine`` fixture of
tests/conftest.py) over the shared real redis-server."""

from collections.abc import AsyncIterator

import pytest

from maumau_sdk import Platform


@pytest.fixture
async def platform(address: str) -> AsyncIterator[Platform]:
    async with Platform.connect(address) as connected:
        yield connected
