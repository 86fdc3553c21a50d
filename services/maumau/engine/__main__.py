"""``python -m maumau.engine``: one engine replica, configured from the environment.

MAUMAU_ENGINE_HOST/PORT/METRICS_PORT/GRACE_SECONDS (see maumau.common.config), REDIS_URL (unset:
an embedded redis-server in MAUMAU_DATA_DIR), MAUMAU_TOKEN_SECRET, MAUMAU_ENGINE_BOT_DELAY_MS
(default 300), MAUMAU_ENGINE_RETENTION_SECONDS (finished matches, default 7 days),
MAUMAU_ENGINE_DEADLINE_LEASE_SECONDS (how long a claimed bot move or turn timer waits before
another replica takes it over from one that died, default 10).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping

from maumau.common.config import RedisConfig, ServiceConfig, TokenConfig
from maumau.common.redis_server import open_redis
from maumau.common.server import serve
from maumau.engine.app import EngineApp
from maumau.engine.lobby import BOT_LEVELS
from maumau.engine.matches import EngineSettings


def settings_from_env() -> EngineSettings:
    return EngineSettings(
        bot_delay_seconds=int(os.environ.get("MAUMAU_ENGINE_BOT_DELAY_MS", "300")) / 1000,
        retention_seconds=int(os.environ.get("MAUMAU_ENGINE_RETENTION_SECONDS", str(7 * 86400))),
        deadline_lease_seconds=float(os.environ.get("MAUMAU_ENGINE_DEADLINE_LEASE_SECONDS", "10")),
        bot_addresses=bot_addresses_from_env(os.environ),
        bot_budget_ms=int(os.environ.get("MAUMAU_ENGINE_BOT_BUDGET_MS", "200")),
    )


def bot_addresses_from_env(environ: Mapping[str, str]) -> dict[str, str]:
    """MAUMAU_BOTS_ADDRESS for every level (default the local bots service; empty: the engine
    runs the bot policies itself), MAUMAU_BOTS_ADDRESS_<LEVEL> for one level."""
    addresses = {"": environ.get("MAUMAU_BOTS_ADDRESS", "127.0.0.1:50052")}
    for level in BOT_LEVELS:
        address = environ.get(f"MAUMAU_BOTS_ADDRESS_{level.upper()}")
        if address is not None:
            addresses[level] = address
    return addresses


async def main() -> None:
    config = ServiceConfig.for_service("engine")
    secret = TokenConfig.from_env().secret
    async with open_redis(RedisConfig.from_env()) as client:
        app = EngineApp(client, config, secret, settings_from_env())
        await serve(app.server, app.start, app.stop)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    asyncio.run(main())
