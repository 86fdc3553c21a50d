"""``python -m maumau.gateway``: the web client and its bridge to the services.

Configured by ``MAUMAU_GATEWAY_*`` variables (see :class:`maumau.gateway.settings.GatewaySettings`)
and MAUMAU_TOKEN_SECRET (the platform's, to know a session's player). On SIGTERM or SIGINT it
says not ready, tells every open page to reconnect (WebSocket close 1012), lets requests in
flight finish within the grace period, then closes its channels. A setting that is set but
unusable stops it at start with exit status 2 and a message naming it.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import signal
import sys

from aiohttp import web

from maumau.common.config import ConfigError
from maumau.common.memory import keep_large_blocks_mapped, keep_startup_objects_out_of_collections
from maumau.common.server import start_metrics_server
from maumau.common.settings import load_settings
from maumau.gateway.app import create_app
from maumau.gateway.settings import GatewaySettings

log = logging.getLogger("maumau.gateway")


FILES_PER_SOCKET = 2
"""Descriptors one page may hold: its WebSocket and a keep-alive connection for its commands."""
FILES_SPARE = 256
"""Descriptors for everything else: listening sockets, upstream channels, files served."""


def raise_open_files_limit(max_sockets: int) -> int:
    """Lift this process's soft limit on open files to its hard limit, and return it.

    Every page holds a socket, so the usual soft limit of 1024 would refuse pages (accept()
    fails with EMFILE) long before ``max_sockets``; the hard limit is what the system lets
    this process have. A hard limit too low for ``max_sockets`` is logged, not fatal."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    needed = max_sockets * FILES_PER_SOCKET + FILES_SPARE
    if soft != resource.RLIM_INFINITY and soft < needed:
        log.warning(
            "open files limited to %d, fewer than the %d that %d WebSockets may need: raise "
            "the hard limit (ulimit -Hn, LimitNOFILE) or lower MAUMAU_GATEWAY_MAX_SOCKETS",
            soft,
            needed,
            max_sockets,
        )
    return soft


async def main(settings: GatewaySettings, secret: bytes) -> None:
    raise_open_files_limit(settings.max_sockets)
    metrics = start_metrics_server(settings.metrics_port, settings.host)
    runner = web.AppRunner(
        create_app(settings, secret), shutdown_timeout=settings.grace_seconds, access_log=None
    )
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.port)
    await site.start()
    keep_startup_objects_out_of_collections()
    log.info(
        "gateway on http://%s:%d/, metrics on port %d",
        settings.host,
        settings.port,
        metrics.server_port,
    )
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    try:
        await stopping.wait()
        log.info("shutting down: pages are told to reconnect")
    finally:
        await runner.cleanup()
        await asyncio.to_thread(metrics.shutdown)
        metrics.server_close()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        settings = load_settings(GatewaySettings)
        configured = (settings, settings.secret())
    except ConfigError as error:
        print(f"gateway: {error}", file=sys.stderr)
        sys.exit(2)
    keep_large_blocks_mapped()
    asyncio.run(main(*configured))
