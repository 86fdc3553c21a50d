"""The bot arena end to end over real gRPC, a real engine and the shared real redis-server (issue
27, "The bot arena"): bot accounts made as a bot author makes them (registered, claimed,
BecomeBot, a bot:play token) join the arena's pool with that token, hear their seats on their
event streams, play them to the end through the SDK, hear MatchFinished, are seated again, and
stop when they leave or have played the day's matches; who may join, and with what, is checked."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
import uuid
from collections.abc import AsyncIterator

import grpc
import pytest
import redis.asyncio

from maumau.accounts.app import AccountsApp
from maumau.common import daily_limits
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.matchmaking.app import MatchmakingApp
from maumau.policies import decide
from maumau.v1 import (
    accounts_pb2,
    arena_pb2,
    arena_pb2_grpc,
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    matchmaking_pb2,
)
from maumau.v1 import matchmaking_pb2_grpc as mm_grpc
from maumau_sdk import Platform
from maumau_sdk.arena import Bot, token_subject
from maumau_sdk.errors import MauMauError
from tests.accounts.support import Player, trailer
from tests.accounts.test_arena_bots import accounts
from tests.matchmaking.support import Inbox, start_matchmaker
from tests.support.polling import eventually
from tests.support.rpc import auth

__all__ = ["accounts"]  # the bots' Accounts replica fixture, shared
PER_DAY = 2
GUARD_SECONDS = 60.0
"""What a test waits for an event at most before it fails (a hang, not a speed)."""


@pytest.fixture
def preset() -> str:
    """A pool of this test's own: classic, one round, a hand size no other test plays."""
    return f"classic hand_size={random.Random(uuid.uuid4().int).randint(3, 7)} target=0"


@pytest.fixture
async def matchmaker(
    redis_server: EmbeddedRedis, engine: EngineApp, preset: str
) -> AsyncIterator[MatchmakingApp]:
    app = await start_matchmaker(
        redis_server.url,
        f"127.0.0.1:{engine.port}",
        arena_presets=f"{preset},online",
        arena_tick_seconds=0.05,
        arena_bot_matches_per_day=PER_DAY,
        turn_seconds=60,
    )
    yield app
    await app.stop(0)
    await app.redis.aclose()


@pytest.fixture
async def platform(address: str, matchmaker: MatchmakingApp, accounts: AccountsApp):
    async with Platform.connect(
        address,
        matchmaking_address=f"127.0.0.1:{matchmaker.port}",
        accounts_address=f"127.0.0.1:{accounts.port}",
    ) as connected:
        yield connected


async def bot_token(address: str, accounts: AccountsApp, name: str = "Robo") -> str:
    """A bot account made as docs/arena.md says, and its bot:play access token."""
    player = await Player.register(address, f"127.0.0.1:{accounts.port}", name)
    await player.claim("arena" + secrets.token_hex(4))
    arena = arena_pb2_grpc.ArenaServiceStub(player.accounts)
    await arena.BecomeBot(arena_pb2.BecomeBotRequest(), metadata=player.auth)
    made = await player.stub.CreateAccessToken(
        accounts_pb2.CreateAccessTokenRequest(name="bot", scope=accounts_pb2.TOKEN_SCOPE_BOT_PLAY),
        metadata=player.auth,
    )
    await player.close()
    return str(made.access_token)


async def play(bot: Bot, started: arena_pb2.SeatMatchStarted) -> None:
    """Play the seat to its end as the heuristic level would."""
    seat = await bot.seat(started)
    rng = random.Random(started.seat)
    final = await seat.play(lambda view: decide(view.rules, "heuristic", rng))
    assert final.over


async def refused(call: object) -> tuple[grpc.StatusCode, str | None]:
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        return error.code(), trailer(error)["code"]
    return grpc.StatusCode.OK, None


def ruleset_of(text: str) -> game_pb2.Ruleset:
    preset, *pairs = text.split()
    return game_pb2.Ruleset(preset=preset, options=dict(p.split("=", 1) for p in pairs))


async def test_two_bots_play_their_arena_matches_to_the_end_until_they_leave_or_reach_the_limit(
    address: str,
    accounts: AccountsApp,
    matchmaker: MatchmakingApp,
    platform: Platform,
    preset: str,
    client: redis.asyncio.Redis,
) -> None:
    bots = [platform.bot(await bot_token(address, accounts, name)) for name in ("Ada", "Bo")]
    inboxes = [Inbox(bot.events(), GUARD_SECONDS) for bot in bots]
    pools = {pool.ruleset_text: pool.waiting for pool in await bots[0].arena_pools()}
    assert pools == {preset: 0, "online": 0}
    joined = [await bot.join_arena(preset) for bot in bots]
    assert [list(j.seat_counts) for j in joined] == [[2], [2]]
    assert all(j.pool.ruleset_text == preset and j.paused_until_unix_ms == 0 for j in joined)
    assert all(j.renew_before_unix_ms > time.time() * 1000 for j in joined)

    engine = engine_pb2_grpc.EngineServiceStub(grpc.aio.insecure_channel(address))
    seen: list[str] = []
    for round_ in range(PER_DAY):
        started = [(await inbox.take("match_started")).match_started for inbox in inboxes]
        assert len({s.match_id for s in started}) == 1 and started[0].match_id not in seen
        assert {s.seat for s in started} == {0, 1}
        assert all(s.arena and s.rated and s.ruleset_text == preset for s in started)
        match_id = started[0].match_id
        seen.append(match_id)
        info = await engine.GetMatch(
            engine_pb2.GetMatchRequest(match_id=match_id), metadata=auth(started[0].seat_token)
        )
        assert info.match.ranked
        assert {s.player_id for s in info.match.seat_info} == {b.player_id for b in bots}
        if round_ == 0:  # both renew their entries, so they wait again after the match
            await asyncio.gather(*(bot.join_arena(preset) for bot in bots))
        else:  # Bo leaves: its match is played on, and then it waits no more
            assert [pool.ruleset_text for pool in await bots[1].leave_arena()] == [preset]
        await asyncio.gather(*(play(b, s) for b, s in zip(bots, started, strict=True)))
        ends = [(await inbox.take("match_finished")).match_finished for inbox in inboxes]
        assert {e.match_id for e in ends} == {match_id}
        assert sorted(e.won for e in ends) == [False, True]

    async def waiting() -> int | None:
        pools = {pool.ruleset_text: pool.waiting for pool in await bots[0].arena_pools()}
        return pools[preset] or None

    assert await eventually(waiting, GUARD_SECONDS, "Ada back in the pool") == 1, "Bo left"
    for bot in bots:
        key = daily_limits.count_key(bot.player_id, daily_limits.BOT_MATCHES, time.time())
        assert await client.get(key) == str(PER_DAY).encode(), "each arena match counted"
    with pytest.raises(MauMauError) as limited:
        await bots[0].join_arena(preset)
    assert (limited.value.status, limited.value.code) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "daily_limit",
    )
    assert limited.value.metadata["limit"] == "bot_matches_per_day"
    assert limited.value.metadata["most"] == str(PER_DAY)
    assert limited.value.retry_after is not None and limited.value.retry_after > 0
    assert [pool.ruleset_text for pool in await bots[0].leave_arena()] == [preset]
    assert await bots[0].leave_arena() == [] == await bots[1].leave_arena(), "in no pool now"
    assert not any(e.HasField("match_started") for i in inboxes for e in i.kept), "no third"
    for inbox in inboxes:
        await inbox.close()


async def test_only_a_bot_joins_only_a_pool_and_table_sizes_the_arena_plays_and_hears_its_pause(
    address: str,
    accounts: AccountsApp,
    matchmaker: MatchmakingApp,
    platform: Platform,
    preset: str,
    client: redis.asyncio.Redis,
) -> None:
    token = await bot_token(address, accounts)
    stub = mm_grpc.MatchmakingServiceStub(grpc.aio.insecure_channel(f"127.0.0.1:{matchmaker.port}"))
    person = await Player.register(address, f"127.0.0.1:{accounts.port}")
    classic = game_pb2.Ruleset(preset="classic")
    join = matchmaking_pb2.JoinArenaRequest
    assert await refused(
        stub.JoinArena(join(ruleset=ruleset_of(preset)), metadata=person.auth)
    ) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "not_a_bot",
    )
    as_bot = auth(token)
    cases = [
        (join(ruleset=classic), "arena_ruleset"),
        (join(ruleset=ruleset_of(preset), seat_counts=[9]), "arena_seat_counts"),
        (join(ruleset=ruleset_of("online"), seat_counts=[2, 6]), "arena_seat_counts"),
    ]
    for request, code in cases:
        answer = await refused(stub.JoinArena(request, metadata=as_bot))
        assert answer == (grpc.StatusCode.INVALID_ARGUMENT, code), request
    waiting = await stub.ListArenaPools(matchmaking_pb2.ListArenaPoolsRequest(), metadata=as_bot)
    assert {p.ruleset_text: p.waiting for p in waiting.pools} == {preset: 0, "online": 0}
    joined = await stub.JoinArena(
        join(ruleset=ruleset_of("online"), seat_counts=[4, 2, 4]), metadata=as_bot
    )
    assert list(joined.seat_counts) == [4, 2] and joined.pool.waiting == 1
    assert joined.paused_until_unix_ms == 0
    now = time.time()
    bot_id = token_subject(token)
    await matchmaker.arena_pool.pause(bot_id, now + 600, now)  # as match_over pauses a bot
    paused = await stub.JoinArena(join(ruleset=ruleset_of("online")), metadata=as_bot)
    assert paused.paused_until_unix_ms == round((now + 600) * 1000), "told when it ends"
    await client.delete(matchmaker.arena_pool.paused_key(bot_id))
    read = await stub.ListArenaPools(matchmaking_pb2.ListArenaPoolsRequest(), metadata=person.auth)
    assert {p.ruleset_text: p.waiting for p in read.pools}["online"] == 1, "any token lists"
    assert await refused(
        stub.Enqueue(matchmaking_pb2.EnqueueRequest(ruleset=classic), metadata=as_bot)
    ) == (grpc.StatusCode.PERMISSION_DENIED, None), "the bot token still reaches no queue"
    left = await stub.LeaveArena(matchmaking_pb2.LeaveArenaRequest(), metadata=as_bot)
    assert [p.ruleset_text for p in left.left] == ["online"] and left.left[0].waiting == 0
    await person.close()


async def test_a_bot_account_is_refused_the_people_s_queue_and_nothing_is_queued(
    address: str, accounts: AccountsApp, matchmaker: MatchmakingApp
) -> None:
    """A bot account plays people only when they challenge it: with its own session's play
    token it may not queue for the people's tables, ranked or casual, and no ticket is left."""
    robo = await Player.register(address, f"127.0.0.1:{accounts.port}", "Robo")
    await robo.claim("queuebot" + secrets.token_hex(4))
    arena = arena_pb2_grpc.ArenaServiceStub(robo.accounts)
    await arena.BecomeBot(arena_pb2.BecomeBotRequest(), metadata=robo.auth)
    stub = mm_grpc.MatchmakingServiceStub(grpc.aio.insecure_channel(f"127.0.0.1:{matchmaker.port}"))
    for ranked in (True, False):
        request = matchmaking_pb2.EnqueueRequest(
            ruleset=game_pb2.Ruleset(preset="classic"), seat_counts=[2], ranked=ranked
        )
        try:
            await stub.Enqueue(request, metadata=robo.auth)
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert trailer(error)["code"] == "bot_in_queue"
            assert "never in the people's queue" in (error.details() or "")
        else:
            raise AssertionError("a bot account queued with the people")
    try:
        await stub.GetTicket(matchmaking_pb2.GetTicketRequest(), metadata=robo.auth)
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.NOT_FOUND  # no ticket was kept
    else:
        raise AssertionError("a ticket of the bot account was kept")
    await robo.close()
