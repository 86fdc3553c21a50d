"""An Accounts replica over the shared real redis-server, beside an engine replica (whose
Players service registers the anonymous players that claim accounts)."""

from collections.abc import AsyncIterator

import pytest

from maumau.accounts.app import AccountsApp
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from tests.accounts.support import start_accounts, stop_accounts


@pytest.fixture
async def accounts(redis_server: EmbeddedRedis, engine: EngineApp) -> AsyncIterator[AccountsApp]:
    app = await start_accounts(redis_server.url, f"127.0.0.1:{engine.port}")
    yield app
    await stop_accounts(app)


@pytest.fixture
def accounts_address(accounts: AccountsApp) -> str:
    return f"127.0.0.1:{accounts.port}"
