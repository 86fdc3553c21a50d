"""``python -m maumau.tournaments``: one tournaments replica, configured from the environment.

MAUMAU_TOURNAMENTS_HOST/PORT/METRICS_PORT/GRACE_SECONDS (see maumau.common.config), REDIS_URL
(unset: an embedded redis-server in MAUMAU_DATA_DIR), MAUMAU_TOKEN_SECRET (the engine's), and the
settings of :class:`maumau.tournaments.settings.Settings`, e.g. MAUMAU_TOURNAMENTS_ENGINE_ADDRESS
(default 127.0.0.1:50051). A setting that is set but unusable stops the service at start, with
exit status 2 and a message naming it.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from maumau.common.config import ConfigError, RedisConfig, ServiceConfig, TokenConfig
from maumau.common.redis_server import open_redis
from maumau.common.server import serve
from maumau.tournaments.app import TournamentsApp
from maumau.tournaments.settings import Settings


async def main(
    config: ServiceConfig, settings: Settings, secret: bytes, redis: RedisConfig
) -> None:
    async with open_redis(redis) as client:
        app = TournamentsApp(client, config, secret, settings)
        await serve(app.server, app.start, app.stop)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        configured = (
            ServiceConfig.for_service("tournaments"),
            Settings.from_env(),
            TokenConfig.from_env().secret,
            RedisConfig.from_env(),
        )
    except ConfigError as error:
        print(f"tournaments: {error}", file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(*configured))
