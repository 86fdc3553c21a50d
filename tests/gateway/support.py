"""The whole platform for gateway tests: engine, bots, matchmaker, rating, tournaments and
accounts on 127.0.0.1:0 over the shared real redis-server, and a real gateway in front of them on
a free port."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import pytest
import redis.asyncio
from aiohttp import web

from maumau.accounts.app import AccountsApp
from maumau.bots.app import BotsApp
from maumau.common.config import ServiceConfig
from maumau.common.tokens import issue_player_token
from maumau.engine.app import EngineApp
from maumau.engine.matches import EngineSettings
from maumau.gateway.app import create_app
from maumau.gateway.settings import PYODIDE_DIR, SOURCE_TREE, GatewaySettings
from maumau.matchmaking.app import MatchmakingApp
from maumau.rating.app import RatingApp
from maumau.rating.settings import Settings as RatingSettings
from maumau.tournaments.app import TournamentsApp
from maumau.v1 import tournaments_pb2, tournaments_pb2_grpc
from tests.accounts.support import start_accounts
from tests.matchmaking.support import fast
from tests.support.engine import SECRET, engine_config, generous
from tests.support.programs import require
from tests.tournaments.support import start_tournaments


def config() -> ServiceConfig:
    return ServiceConfig(host="127.0.0.1", port=0, metrics_port=0, health_interval_seconds=0.2)


@dataclass
class Platform:
    engine: EngineApp
    bots: BotsApp
    matchmaking: MatchmakingApp
    rating: RatingApp
    tournaments: TournamentsApp
    clients: list[redis.asyncio.Redis]
    accounts: AccountsApp

    def settings(self, **changes: object) -> GatewaySettings:
        """Gateway settings pointing at these services, on a free port."""
        base = GatewaySettings(
            port=0,
            metrics_port=0,
            engine_address=f"127.0.0.1:{self.engine.port}",
            matchmaking_address=f"127.0.0.1:{self.matchmaking.port}",
            bots_address=f"127.0.0.1:{self.bots.port}",
            rating_address=f"127.0.0.1:{self.rating.port}",
            tournaments_address=f"127.0.0.1:{self.tournaments.port}",
            accounts_address=f"127.0.0.1:{self.accounts.port}",
            grace_seconds=2.0,
            pyodide_dir="",  # solo on the server; test_browser_solo.py plays it in the page
        )
        return base.model_copy(update=changes)


@contextlib.asynccontextmanager
async def platform(redis_url: str, bot_delay: float = 0.0) -> AsyncIterator[Platform]:
    clients = [redis.asyncio.Redis.from_url(redis_url) for _ in range(3)]
    engine = EngineApp(
        clients[0],
        engine_config(),
        SECRET,
        generous(EngineSettings(bot_delay_seconds=bot_delay)),
        0.01,
    )
    await engine.start()
    bots = BotsApp(config(), SECRET)
    await bots.start()
    matchmaking = MatchmakingApp(
        clients[1],
        config(),
        SECRET,
        fast(f"127.0.0.1:{engine.port}"),
    )
    await matchmaking.start()
    rating = RatingApp(
        clients[2],
        config(),
        RatingSettings(consumer="gateway-tests", block_seconds=0.05),
    )
    await rating.start()
    tournaments = await start_tournaments(redis_url, f"127.0.0.1:{engine.port}")
    accounts = await start_accounts(
        redis_url,
        f"127.0.0.1:{engine.port}",
        rating_address=f"127.0.0.1:{rating.port}",
        tournaments_address=f"127.0.0.1:{tournaments.port}",
    )
    try:
        yield Platform(engine, bots, matchmaking, rating, tournaments, clients, accounts)
    finally:
        await accounts.stop(0)
        await accounts.redis.aclose()
        await tournaments.stop(0)
        await rating.stop(0)
        await matchmaking.stop(0)
        await bots.stop(0)
        await engine.stop(0)
        for client in clients:
            with contextlib.suppress(Exception):
                await client.aclose()


@dataclass
class Gateway:
    runner: web.AppRunner
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        await self.runner.cleanup()


async def start_gateway(settings: GatewaySettings) -> Gateway:
    runner = web.AppRunner(create_app(settings, SECRET), shutdown_timeout=settings.grace_seconds)
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.port)
    await site.start()
    server = site._server  # the bound socket tells the free port it got
    assert server is not None
    port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return Gateway(runner, port)


async def wait_for(check: object, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await check():  # type: ignore[operator]
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.05)


async def readiness_once_ready(session: aiohttp.ClientSession) -> dict[str, Any]:
    """What /readyz answers once it says ready (TimeoutError if it never does): a fresh
    gateway's first health checks connect its channels, which on a busy machine can take
    longer than a check's second."""
    answers: list[tuple[int, dict[str, Any]]] = []

    async def ready() -> bool:
        async with session.get("/readyz") as response:
            answers.append((response.status, await response.json()))
        return answers[-1][0] == 200

    await wait_for(ready)
    return answers[-1][1]


@dataclass
class Organizer:
    """A tournament organizer talking to the tournaments service over gRPC, as a club's own
    program would: it creates tournaments, enters bots and starts them."""

    stub: tournaments_pb2_grpc.TournamentsServiceStub
    channel: grpc.aio.Channel
    token: str

    @property
    def auth(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),)

    async def create(self, name: str, **options: Any) -> tournaments_pb2.Tournament:
        request = tournaments_pb2.CreateTournamentRequest(name=name, **options)
        return (await self.stub.CreateTournament(request, metadata=self.auth)).tournament

    async def add_bots(self, tournament_id: str, names: list[str]) -> None:
        for bot in names:
            request = tournaments_pb2.RegisterEntrantRequest(
                tournament_id=tournament_id, bot_name=bot, bot_level="random"
            )
            await self.stub.RegisterEntrant(request, metadata=self.auth)

    async def start(self, tournament_id: str) -> tournaments_pb2.Tournament:
        request = tournaments_pb2.StartTournamentRequest(tournament_id=tournament_id)
        return (await self.stub.StartTournament(request, metadata=self.auth)).tournament


@contextlib.asynccontextmanager
async def organizer(services: Platform) -> AsyncIterator[Organizer]:
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{services.tournaments.port}")
    token = issue_player_token(SECRET, f"organizer-{secrets.token_hex(4)}")
    try:
        yield Organizer(tournaments_pb2_grpc.TournamentsServiceStub(channel), channel, token)
    finally:
        await channel.close()


NPM_FOLDER = SOURCE_TREE / PYODIDE_DIR.parents[1]
"""clients/pyodide, whose committed package-lock.json pins the pyodide npm package."""


def installed_pyodide() -> Path:
    """Pyodide's npm package, installed with ``npm ci`` when missing (skipped naming it when
    that cannot be done, failed under MAUMAU_TEST_REQUIRE_ALL=1)."""
    if not (SOURCE_TREE / PYODIDE_DIR / "pyodide.asm.wasm").is_file():
        done = subprocess.run(
            [require("npm", "npm"), "ci", "--no-audit", "--no-fund"],
            cwd=NPM_FOLDER,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            message = f"the npm package pyodide is not installed: {done.stderr.strip()[-500:]}"
            if os.environ.get("MAUMAU_TEST_REQUIRE_ALL") == "1":
                pytest.fail(message)
            pytest.skip(message)
    return SOURCE_TREE / PYODIDE_DIR
