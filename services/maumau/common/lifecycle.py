"""One way to run a service: its server, its background workers, an ordered shutdown.

A service is a :class:`Service`: a :class:`~maumau.common.server.ServiceServer` (built with
``create_server``) plus named background workers, each an ``async def work(stopping)`` that loops
until the ``asyncio.Event`` it is given is set and then returns after the step in hand:

    class TournamentsApp(Service):
        def __init__(self, client: redis.Redis, settings: Settings) -> None:
            services = {"maumau.v1.TournamentsService": register}
            server = create_server(services, settings.server(), client.ping)
            super().__init__(server, {"seating": self.seat_tables})

        async def seat_tables(self, stopping: asyncio.Event) -> None:
            while not stopping.is_set():
                ...
                await pause(stopping, 1.0)

    def build(settings: Settings, client: redis.Redis | None) -> TournamentsApp: ...

and its ``__main__`` is ``run_service(Settings, build)``, which reads the settings (stopping with
exit status 2 and a message naming the variable when one is unusable), opens Redis when the
settings include :class:`~maumau.common.settings.RedisSettings`, serves until SIGTERM or SIGINT and
shuts down in order:

1. start: ``open()`` (the subclass's resources), the server, then the workers;
2. stop: health NOT_SERVING, the workers finish their step and return, the server drains its
   calls within the grace period, then ``close()``.

A worker that raises or returns early is logged and restarted after a backoff (0.1 s doubling to
5 s), so a replica never goes on answering calls while its background work silently stopped.

The server is any :class:`Server`: a gRPC ``ServiceServer`` for the services, the gateway's HTTP
server (``maumau.gateway.__main__``) for the web client, so every process starts, logs, serves
its metrics and stops the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol, TypeVar

import redis.asyncio as redis

from maumau.common.config import ConfigError, ServiceConfig
from maumau.common.memory import keep_large_blocks_mapped, keep_startup_objects_out_of_collections
from maumau.common.redis_server import open_redis
from maumau.common.server import start_metrics_server
from maumau.common.settings import RedisSettings, ServiceSettings, load_settings

log = logging.getLogger(__name__)

S = TypeVar("S", bound=ServiceSettings)

Worker = Callable[[asyncio.Event], Awaitable[None]]
"""A background loop: runs until the event is set, then returns after the step in hand."""

MAX_BACKOFF_SECONDS = 5.0
HEALTHY_RUN_SECONDS = 60.0
"""A worker that ran this long before failing starts its backoff from the beginning again."""


async def pause(stopping: asyncio.Event, seconds: float) -> None:
    """Wait until ``stopping`` is set, for at most ``seconds``. (Not ``asyncio.wait_for``: on
    Python 3.11 it can swallow a cancellation that meets its timeout, and a loop around it then
    runs on after its task was cancelled.)"""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await stopping.wait()


class Server(Protocol):
    """What a :class:`Service` serves with: a bound server that starts, and stops after its
    calls in flight finished within a grace period."""

    @property
    def config(self) -> ServiceConfig:
        """Where it listens (``host``, ``metrics_port``) and its ``grace_seconds``."""

    @property
    def port(self) -> int:
        """The port it is bound to (the one picked when configured as 0)."""

    @property
    def service_names(self) -> tuple[str, ...]:
        """What it serves, as the start-up log names it (a gRPC server: its services)."""

    async def start(self) -> None: ...

    async def stop(self, grace: float | None = None) -> None:
        """Stop taking calls, let those in flight finish within ``grace`` seconds (default:
        the configured grace period), then release what it holds."""


def backoff(failures: int, most: float = MAX_BACKOFF_SECONDS) -> float:
    """The pause after ``failures`` failures in a row: 0.1 s, doubling, at most ``most``.

    >>> [backoff(n) for n in (1, 2, 3, 7, 100)]
    [0.1, 0.2, 0.4, 5.0, 5.0]
    """
    return float(min(most, 0.1 * 2 ** min(failures - 1, 16)))


class Service:
    """One replica of a service: start() serves calls and runs the workers until stop()."""

    def __init__(self, server: Server, workers: Mapping[str, Worker] | None = None) -> None:
        self.server = server
        self.workers = dict(workers or {})
        self.stopping = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def port(self) -> int:
        return self.server.port

    async def open(self) -> None:
        """What the service needs before it serves calls (a subclass's hook)."""

    async def close(self) -> None:
        """What the service releases after its server stopped (a subclass's hook)."""

    async def start(self) -> None:
        await self.open()
        await self.server.start()
        self._tasks = [
            asyncio.create_task(self._supervise(name, work), name=name)
            for name, work in self.workers.items()
        ]

    async def stop(self, grace: float | None = None) -> None:
        """Let the workers finish their step, drain the server within ``grace`` seconds
        (default: the configured grace period), then close()."""
        self.stopping.set()
        await asyncio.gather(*self._tasks)
        await self.server.stop(grace)
        await self.close()

    async def kill(self) -> None:
        """Stop at once, mid-work, as a replica that dies does (for tests): what the workers
        claimed stays claimed until its lease runs out."""
        self.stopping.set()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.server.stop(0)
        await self.close()

    async def _supervise(self, name: str, work: Worker) -> None:
        failures = 0
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                await work(self.stopping)
                if self.stopping.is_set():
                    return
                log.error("worker %s ended on its own; restarting it", name)
            except Exception:
                log.exception("worker %s failed; restarting it", name)
            failures = 1 if time.monotonic() - started > HEALTHY_RUN_SECONDS else failures + 1
            await pause(self.stopping, backoff(failures))


async def serve(service: Service | Server) -> None:
    """Run ``service`` and its metrics endpoint until SIGTERM or SIGINT, then stop it in order."""
    if not isinstance(service, Service):
        service = Service(service)
    config = service.server.config
    metrics = start_metrics_server(config.metrics_port, config.host)
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    try:
        await service.start()
        keep_startup_objects_out_of_collections()
        log.info(
            "%s listening on %s:%d, metrics on port %d",
            ", ".join(service.server.service_names) or "server",
            config.host,
            service.port,
            metrics.server_port,
        )
        await stopping.wait()
        log.info("shutting down: finishing in-flight calls for up to %s s", config.grace_seconds)
    finally:
        await service.stop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        await asyncio.to_thread(metrics.shutdown)
        metrics.server_close()


def run_service(settings_class: type[S], build: Callable[[S, redis.Redis | None], Service]) -> None:
    """The whole of a service's ``__main__``: settings from the environment (exit status 2 and
    a message naming the variable when one is unusable), Redis when the settings include it,
    then serve ``build(settings, client)`` until SIGTERM or SIGINT."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    name = settings_class.service_name()
    try:
        settings = load_settings(settings_class)
    except ConfigError as error:
        print(f"{name}: {error}", file=sys.stderr)
        sys.exit(2)
    keep_large_blocks_mapped()
    asyncio.run(_run(settings, build))


async def _run(settings: S, build: Callable[[S, redis.Redis | None], Service]) -> None:
    if not isinstance(settings, RedisSettings):
        await serve(build(settings, None))
        return
    async with open_redis(settings.redis()) as client:
        await serve(build(settings, client))
