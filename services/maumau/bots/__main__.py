"""``python -m maumau.bots``: the AI-opponent service, configured from the environment.

MAUMAU_BOTS_HOST/PORT/METRICS_PORT/GRACE_SECONDS (see maumau.common.config). It keeps no state and
needs no Redis: its health follows its own event loop only.
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial

from maumau.bots.service import BotsService
from maumau.common.config import ServiceConfig
from maumau.common.server import ServiceServer, create_server, serve
from maumau.v1 import bots_pb2_grpc


async def always_healthy() -> None:
    """The bots depend on nothing outside the process."""


def build(config: ServiceConfig) -> ServiceServer:
    register = partial(bots_pb2_grpc.add_BotsServicer_to_server, BotsService())
    return create_server({"maumau.v1.Bots": register}, config, always_healthy)


async def main() -> None:
    await serve(build(ServiceConfig.for_service("bots")))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    asyncio.run(main())
