"""``python -m maumau.gateway``: the web client and its bridge to the services.

Configured by ``MAUMAU_GATEWAY_*`` variables (see :class:`maumau.gateway.settings.GatewaySettings`)
and MAUMAU_TOKEN_SECRET (the platform's, to know a session's player). It runs as every service
does (``maumau.common.lifecycle``), its HTTP server in place of a gRPC one. On SIGTERM or SIGINT
it says not ready, tells every open page to reconnect (WebSocket close 1012), lets requests in
flight finish within the grace period, then closes its channels. A setting that is set but
unusable stops it at start with exit status 2 and a message naming it.
"""

from __future__ import annotations

import logging
import resource

import redis.asyncio as redis
from aiohttp import web

from maumau.common.config import ServiceConfig
from maumau.common.lifecycle import Service, run_service
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


class GatewayServer:
    """The gateway's application on a TCP site, as :class:`~maumau.common.lifecycle.Service`
    runs a server: ``start()`` opens the upstream channels and listens; ``stop()`` stops
    listening, tells open pages to reconnect, lets requests in flight finish within the grace
    period and closes the channels."""

    service_names = ("gateway",)

    def __init__(self, settings: GatewaySettings, secret: bytes) -> None:
        self.settings = settings
        self.secret = secret
        self.config: ServiceConfig = settings.server()
        self.port = settings.port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        raise_open_files_limit(self.settings.max_sockets)
        runner = web.AppRunner(
            create_app(self.settings, self.secret),
            shutdown_timeout=self.config.grace_seconds,
            access_log=None,
        )
        await runner.setup()
        self._runner = runner
        site = web.TCPSite(runner, self.config.host, self.config.port)
        await site.start()
        self.port = runner.addresses[0][1]

    async def stop(self, grace: float | None = None) -> None:
        runner, self._runner = self._runner, None
        if runner is None:
            return
        if grace is not None:
            # aiohttp takes the drain time when the runner is made; this call asks for another
            runner._shutdown_timeout = grace
        await runner.cleanup()


def build(settings: GatewaySettings, client: redis.Redis | None) -> Service:
    """The gateway as a service: its HTTP server, no workers (it holds no Redis of its own)."""
    return Service(GatewayServer(settings, settings.secret()))


if __name__ == "__main__":
    run_service(GatewaySettings, build)
