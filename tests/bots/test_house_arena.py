"""The house in the arena (issue 27, "the platform's own levels enter it as bot accounts"), over
real gRPC against a real engine, matchmaker, Accounts service and the Bots service on the shared
real redis-server: with MAUMAU_BOTS_HOUSE_LEVELS set, each level is a bot account of its own
(made once, named as the level is shown, marked a bot), it waits in the arena's pools, and a
third-party bot account that joins is seated against house levels, plays them to the end and
hears MatchFinished."""

from __future__ import annotations

import asyncio
import random
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import grpc
import pytest
import redis.asyncio

from maumau.accounts.app import AccountsApp
from maumau.bots.app import BotsApp, build
from maumau.bots.house import HOUSE_KEY, House, display_name, house_account, lease_key
from maumau.bots.settings import Settings as BotsSettings
from maumau.common.config import ServiceConfig
from maumau.common.players import player_key
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.matchmaking.app import MatchmakingApp
from maumau.policies import decide
from maumau.rating.app import RatingApp
from maumau.rating.settings import Settings as RatingSettings
from maumau.v1 import accounts_pb2, arena_pb2, arena_pb2_grpc, engine_pb2, engine_pb2_grpc
from maumau_sdk import Platform
from tests.accounts.support import Player, start_accounts, stop_accounts
from tests.matchmaking.support import Inbox, start_matchmaker
from tests.support.engine import SECRET
from tests.support.polling import eventually
from tests.support.rpc import auth

LEVELS = ("random", "heuristic")
GUARD_SECONDS = 60.0
"""What the test waits for an event at most before it fails (a hang, not a speed)."""


@dataclass
class Arena:
    preset: str
    accounts: AccountsApp
    matchmaker: MatchmakingApp
    bots: BotsApp


@pytest.fixture
async def arena(redis_server: EmbeddedRedis, engine: EngineApp) -> AsyncIterator[Arena]:
    preset = f"classic decks={1 + uuid.uuid4().int % 2} hand_size=3 target=0"
    config = ServiceConfig(host="127.0.0.1", port=0, metrics_port=0, health_interval_seconds=0.2)
    connection = redis.asyncio.Redis.from_url(redis_server.url)
    tag = f"house-test-{uuid.uuid4().hex[:12]}"
    rating = RatingApp(
        connection,
        config,
        RatingSettings(consumer="replica-1", block_seconds=0.05),
        stream=f"{tag}:results",
        tag=tag,
    )
    await rating.start()
    accounts = await start_accounts(
        redis_server.url,
        f"127.0.0.1:{engine.port}",
        rating_address=f"127.0.0.1:{rating.port}",
        arena_keepalive_seconds=0.2,
    )
    matchmaker = await start_matchmaker(
        redis_server.url,
        f"127.0.0.1:{engine.port}",
        arena_presets=preset,
        arena_tick_seconds=0.05,
        arena_bot_matches_per_day=1_000_000,
    )
    settings = BotsSettings(
        port=0,
        metrics_port=0,
        health_interval_seconds=0.2,
        token_secret=SECRET.decode(),
        house_levels=",".join(LEVELS),
        house_redis_url=redis_server.url,
        house_engine_address=f"127.0.0.1:{engine.port}",
        house_matchmaking_address=f"127.0.0.1:{matchmaker.port}",
    )
    bots = build(settings, None)
    await bots.start()
    try:
        yield Arena(preset, accounts, matchmaker, bots)
    finally:
        await bots.stop(0)
        await matchmaker.stop(0)
        await matchmaker.redis.aclose()
        await stop_accounts(accounts)
        await rating.stop(0)
        await connection.aclose()


async def bot_token(address: str, accounts: AccountsApp) -> str:
    """A third-party bot account, made as docs/arena.md says, and its bot:play token."""
    player = await Player.register(address, f"127.0.0.1:{accounts.port}", "Visitor")
    await player.claim("visitor" + secrets.token_hex(4))
    await arena_pb2_grpc.ArenaServiceStub(player.accounts).BecomeBot(
        arena_pb2.BecomeBotRequest(), metadata=player.auth
    )
    made = await player.stub.CreateAccessToken(
        accounts_pb2.CreateAccessTokenRequest(name="bot", scope=accounts_pb2.TOKEN_SCOPE_BOT_PLAY),
        metadata=player.auth,
    )
    await player.close()
    return str(made.access_token)


async def test_the_house_accounts_are_made_once_as_house_bots_named_as_their_levels(
    client: redis.asyncio.Redis,
) -> None:
    first = [await house_account(client, level) for level in LEVELS]
    assert [await house_account(client, level) for level in LEVELS] == first
    assert len(set(first)) == len(LEVELS)
    for level, player_id in zip(LEVELS, first, strict=True):
        assert await client.hget(HOUSE_KEY, level) == player_id.encode()
        entry = await client.hgetall(player_key(player_id))
        assert entry[b"name"] == display_name(level).encode()
        assert entry[b"bot"] == entry[b"house"] == b"1"


async def test_a_bot_in_the_arena_plays_the_house_levels(
    address: str, arena: Arena, client: redis.asyncio.Redis
) -> None:
    house = {await house_account(client, level): level for level in LEVELS}
    engine = engine_pb2_grpc.EngineServiceStub(grpc.aio.insecure_channel(address))
    async with Platform.connect(
        address,
        matchmaking_address=f"127.0.0.1:{arena.matchmaker.port}",
        accounts_address=f"127.0.0.1:{arena.accounts.port}",
    ) as platform:
        bot = platform.bot(await bot_token(address, arena.accounts))
        inbox = Inbox(bot.events(), GUARD_SECONDS)
        await bot.join_arena(arena.preset)
        opponents = set()
        rng = random.Random(1)
        for _ in range(2):
            started = (await inbox.take("match_started")).match_started
            info = await engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=started.match_id),
                metadata=auth(started.seat_token),
            )
            others = [s.player_id for s in info.match.seat_info if s.player_id != bot.player_id]
            assert len(others) == 1 and others[0] in house, "seated against a house level"
            opponents.add(house[others[0]])
            seat = await bot.seat(started)
            await seat.play(lambda view: decide(view.rules, "heuristic", rng))
            finished = (await inbox.take("match_finished")).match_finished
            assert finished.match_id == started.match_id
            await bot.join_arena(arena.preset)
        await bot.leave_arena()
        await inbox.close()
    assert opponents <= set(LEVELS)


async def test_one_replica_plays_each_level_and_another_takes_over_when_it_stops(
    address: str, redis_server: EmbeddedRedis, arena: Arena, client: redis.asyncio.Redis
) -> None:
    """Two Bots replicas with the house on: each level's bot is played by one of them (its
    lease), and when that one stops the other takes the level over."""

    async def holders() -> dict[str, bytes | None]:
        return {level: await client.get(lease_key(level)) for level in LEVELS}

    first = await eventually(
        lambda: _all_held(holders), GUARD_SECONDS, "the fixture's replica playing every level"
    )
    second = House(
        redis_server.url,
        SECRET,
        LEVELS,
        address,
        f"127.0.0.1:{arena.matchmaker.port}",
    )
    stopping = asyncio.Event()
    running = asyncio.ensure_future(second.run(stopping))
    try:
        assert await holders() == first, "the levels stay where they are played"
        await arena.bots.stop(0)  # releases its leases on the way out
        taken = await eventually(
            lambda: _all_held(holders, second.replica), GUARD_SECONDS, "the second taking over"
        )
        assert set(taken.values()) == {second.replica.encode()}
    finally:
        stopping.set()
        await running
    assert all(value is None for value in (await holders()).values()), "released when stopped"


async def _all_held(
    holders: Callable[[], Awaitable[dict[str, bytes | None]]], replica: str | None = None
) -> dict[str, bytes | None] | None:
    """The holders when every level is held (by ``replica``, when named), else None."""
    found = await holders()
    if any(value is None for value in found.values()):
        return None
    if replica is not None and any(value != replica.encode() for value in found.values()):
        return None
    return found
