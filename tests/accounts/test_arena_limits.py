"""The arena's daily limits (issue 27), over real gRPC against a real Redis: challenges per
account per day and bot-vs-bot matches per bot per day, each refused RESOURCE_EXHAUSTED with the
limit's key and when it resets in the error's details; and the day arithmetic (hypothesis)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import grpc
import pytest
import redis.asyncio
from google.rpc import error_details_pb2, status_pb2
from hypothesis import given
from hypothesis import strategies as st

from maumau.accounts.app import AccountsApp
from maumau.common import daily_limits
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.rating.app import RatingApp
from maumau.v1 import arena_pb2 as arena
from maumau.v1 import game_pb2
from tests.accounts.support import Player, start_accounts, stop_accounts, trailer
from tests.accounts.test_arena_bots import account, arena_of, bot
from tests.support.rpc import auth


@pytest.fixture
async def accounts(
    redis_server: EmbeddedRedis, engine: EngineApp, lone_rating: RatingApp
) -> AsyncIterator[AccountsApp]:
    app = await start_accounts(
        redis_server.url,
        f"127.0.0.1:{engine.port}",
        rating_address=f"127.0.0.1:{lone_rating.port}",
        arena_challenges_per_day=2,
        arena_bot_matches_per_day=1,
    )
    yield app
    await stop_accounts(app)


def challenge(to: list[Player]) -> arena.CreateChallengeRequest:
    return arena.CreateChallengeRequest(
        player_ids=[p.player_id for p in to], ruleset=game_pb2.Ruleset(preset="classic")
    )


def error_info(error: grpc.aio.AioRpcError) -> dict[str, str]:
    """The ErrorInfo's metadata of the call's rich status."""
    found = dict(error.trailing_metadata() or ())
    status = status_pb2.Status.FromString(found["grpc-status-details-bin"])
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return dict(info.metadata)
    raise AssertionError("no ErrorInfo")


async def exhausted(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert trailer(caught.value)["code"] == "daily_limit"
    return caught.value


async def test_challenges_per_day_say_when_they_reset(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    person = await account(address, accounts_address)
    robo, _ = await bot(address, accounts_address)
    for _ in range(2):
        await arena_of(person).CreateChallenge(challenge([robo]), metadata=person.auth)
    error = await exhausted(
        arena_of(person).CreateChallenge(challenge([robo]), metadata=person.auth)
    )
    resets = daily_limits.resets_at(time.time())
    info = error_info(error)
    assert info["limit"] == "challenges_per_day" and info["most"] == "2"
    assert info["resets_at_unix"] == str(resets)
    assert time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(resets)) in (error.details() or "")
    assert int(trailer(error)["retry-after-ms"]) > 0
    key = daily_limits.count_key(person.player_id, daily_limits.CHALLENGES, time.time())
    assert await accounts.redis.get(key) == b"2"  # the refused one counted nothing
    await person.close()
    await robo.close()


async def test_bot_matches_per_day_count_tables_of_bots_alone(
    address: str, accounts_address: str, accounts: AccountsApp
) -> None:
    robo, robo_token = await bot(address, accounts_address)
    other, other_token = await bot(address, accounts_address)
    made = await arena_of(robo).CreateChallenge(challenge([other]), metadata=auth(robo_token))
    accepted = await arena_of(other).AcceptChallenge(
        arena.AcceptChallengeRequest(challenge_id=made.challenge.challenge_id),
        metadata=auth(other_token),
    )
    assert accepted.match_id
    error = await exhausted(
        arena_of(other).CreateChallenge(challenge([robo]), metadata=auth(other_token))
    )
    assert error_info(error)["limit"] == "bot_matches_per_day"
    person = await account(address, accounts_address)  # a person's table is no bot-vs-bot match
    await arena_of(person).CreateChallenge(challenge([robo, other]), metadata=person.auth)
    await robo.close()
    await other.close()
    await person.close()


@given(now=st.floats(min_value=0, max_value=4e9))
def test_a_day_resets_at_the_next_utc_midnight(now: float) -> None:
    ends = daily_limits.resets_at(now)
    assert now < ends <= now + 86400 and ends % 86400 == 0
    assert daily_limits.day_of(ends - 1) == daily_limits.day_of(now) != daily_limits.day_of(ends)


@given(spends=st.lists(st.integers(min_value=0, max_value=2), min_size=1, max_size=12))
async def test_a_count_never_passes_its_limit(
    spends: list[int], redis_server: EmbeddedRedis
) -> None:
    """Spends on day offsets 0-2 against a limit of 3: each day's count is min(tries, 3)."""
    client = redis.asyncio.Redis.from_url(redis_server.url)
    who = f"limit-{time.time_ns()}"
    start = float(daily_limits.resets_at(time.time()))  # days to come: their counts are kept
    taken = {day: 0 for day in range(3)}
    for day in spends:
        try:
            await daily_limits.spend(client, who, "test", 3, start + day * 86400)
            taken[day] += 1
        except daily_limits.DailyLimitReached as reached:
            assert reached.resets_at == daily_limits.resets_at(start + day * 86400)
    for day, count in taken.items():
        assert count == min(spends.count(day), 3)
        left = 3 - count
        if left:
            assert await daily_limits.remaining(client, who, "test", 3, start + day * 86400) == left
    await client.aclose()
