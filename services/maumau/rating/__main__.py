"""``python -m maumau.rating``: one rating replica, configured from the environment.

MAUMAU_RATING_HOST/PORT/METRICS_PORT/GRACE_SECONDS/... (see maumau.common.config), REDIS_URL
(unset: an embedded redis-server in MAUMAU_DATA_DIR), and:

- MAUMAU_RATING_CONSUMER: this replica's name in the consumer group (default host-pid; give each
  replica its own, e.g. the pod name)
- MAUMAU_RATING_BATCH: results applied per atomic step (default 100, at most 200: the Lua
  script unpacks a batch's keys and values onto its stack)
- MAUMAU_RATING_CLAIM_IDLE_SECONDS: how long a result may stay pending with a replica before
  another one takes it over (default 30)
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from typing import TypeVar

from maumau.common.config import ConfigError, RedisConfig, ServiceConfig
from maumau.common.redis_server import open_redis
from maumau.common.server import serve
from maumau.rating.app import RatingApp, RatingSettings

N = TypeVar("N", int, float)
MAX_BATCH = 200


def settings_from_env(environ: Mapping[str, str] | None = None) -> RatingSettings:
    env = os.environ if environ is None else environ
    batch = _number(env, "MAUMAU_RATING_BATCH", RatingSettings.batch)
    if batch > MAX_BATCH:
        raise ConfigError(f"MAUMAU_RATING_BATCH={batch}: at most {MAX_BATCH}")
    idle = _number(env, "MAUMAU_RATING_CLAIM_IDLE_SECONDS", RatingSettings.claim_idle_seconds)
    return RatingSettings(
        consumer=env.get("MAUMAU_RATING_CONSUMER") or None, batch=batch, claim_idle_seconds=idle
    )


def _number(env: Mapping[str, str], name: str, default: N) -> N:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = type(default)(text)
    except ValueError:
        raise ConfigError(f"{name}={text!r}: expected a {type(default).__name__}") from None
    if value <= 0:
        raise ConfigError(f"{name}={value}: must be greater than 0")
    return value


async def main() -> None:
    config = ServiceConfig.for_service("rating")
    settings = settings_from_env()
    async with open_redis(RedisConfig.from_env()) as client:
        app = RatingApp(client, config, settings)
        await serve(app.server, app.start, app.stop)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    asyncio.run(main())
