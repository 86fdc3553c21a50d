"""Rate limits on registering and creating matches, counted in Redis across replicas, and a
full Redis answered UNAVAILABLE (issue 10: nothing is bounded).

Each test runs on a redis-server of its own: the limits count per client address, and every
test process calls from 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
import redis.asyncio
from redis.exceptions import OutOfMemoryError

from maumau.common.errors import RETRY_AFTER_KEY
from maumau.common.quotas import Rates
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.matches import EngineSettings
from maumau.engine.store import MatchStore
from maumau.v1 import engine_pb2, players_pb2, players_pb2_grpc
from tests.support.engine import Client, start_engine, stop_engine
from tests.support.rpc import auth

STRICT = Rates(per_player="3/minute", per_address="5/minute", registrations_per_address="4/minute")


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(tmp_path / "redis") as server:
        yield server


def retry_after_ms(error: grpc.aio.AioRpcError) -> int:
    trailers = dict(error.trailing_metadata() or ())
    assert RETRY_AFTER_KEY in trailers, f"no {RETRY_AFTER_KEY} in {trailers}"
    return int(trailers[RETRY_AFTER_KEY])


async def create(client: Client) -> engine_pb2.MatchInfo:
    return await client.create("classic", 2)


async def test_creating_past_the_player_limit_is_refused_with_a_retry_hint(own_redis):
    app, redis_client = await start_engine(own_redis.url, EngineSettings(rates=STRICT))
    address = f"127.0.0.1:{app.port}"
    player = await Client.register(address, "busy")
    other = await Client.register(address, "calm")
    try:
        for _ in range(3):
            await create(player)
        stored_before = await redis_client.keys("match:*")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await create(player)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "3 per minute" in (refused.value.details() or "")
        assert 0 < retry_after_ms(refused.value) <= 60_000
        assert sorted(await redis_client.keys("match:*")) == sorted(stored_before)
        # Another player is not held back by the first one's limit.
        await create(other)
    finally:
        await player.close()
        await other.close()
        await stop_engine(app, redis_client)


async def test_a_limit_holds_across_replicas(own_redis):
    """Two replicas count against the same window: 3 per player, wherever the calls land."""
    first, first_redis = await start_engine(own_redis.url, EngineSettings(rates=STRICT))
    second, second_redis = await start_engine(own_redis.url, EngineSettings(rates=STRICT))
    player = await Client.register(f"127.0.0.1:{first.port}", "roaming")
    on_second = Client(
        grpc.aio.insecure_channel(f"127.0.0.1:{second.port}"), player.player_id, player.token
    )
    try:
        await create(player)
        await create(on_second)
        await create(player)
        for client in (on_second, player):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await create(client)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert retry_after_ms(refused.value) > 0
    finally:
        await player.close()
        await on_second.close()
        await stop_engine(first, first_redis)
        await stop_engine(second, second_redis)


async def test_registrations_are_limited_per_address(own_redis):
    app, redis_client = await start_engine(own_redis.url, EngineSettings(rates=STRICT))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{app.port}") as channel:
            players = players_pb2_grpc.PlayersServiceStub(channel)
            for i in range(4):
                await players.Register(players_pb2.RegisterRequest(name=f"sock puppet {i}"))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await players.Register(players_pb2.RegisterRequest(name="one too many"))
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "address 127.0.0.1" in (refused.value.details() or "")
            assert 0 < retry_after_ms(refused.value) <= 60_000
            # A name refused as bad input costs nothing of the quota.
            with pytest.raises(grpc.aio.AioRpcError) as bad:
                await players.Register(players_pb2.RegisterRequest(name=""))
            assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        await stop_engine(app, redis_client)


async def test_an_exempt_proxy_address_is_limited_per_player_only(own_redis):
    rates = Rates("3/minute", "1/minute", "1/minute", exempt_addresses=("127.0.0.0/8",))
    app, redis_client = await start_engine(own_redis.url, EngineSettings(rates=rates))
    address = f"127.0.0.1:{app.port}"
    clients = [await Client.register(address, f"relayed {i}") for i in range(3)]
    try:
        for client in clients:
            await create(client)
            await create(client)
    finally:
        for client in clients:
            await client.close()
        await stop_engine(app, redis_client)


# ---------------------------------------------------------------- a full Redis


@pytest.fixture
async def tiny_redis(tmp_path: Path) -> AsyncIterator[EmbeddedRedis]:
    with EmbeddedRedis(tmp_path / "redis", maxmemory="4mb") as server:
        yield server


async def fill(client: redis.asyncio.Redis) -> int:
    """Write filler until Redis refuses a write for memory; the number of keys written."""
    for i in range(100_000):
        try:
            await client.set(f"filler:{i}", b"x" * 8192)
        except OutOfMemoryError:
            return i
    raise AssertionError("Redis never refused a write: is maxmemory set?")


async def test_a_full_redis_refuses_writes_as_unavailable_and_loses_nothing(tiny_redis):
    app, redis_client = await start_engine(tiny_redis.url)
    address = f"127.0.0.1:{app.port}"
    player = await Client.register(address, "early")
    joiner = await Client.register(address, "second")
    match = await create(player)
    store = MatchStore(redis_client)
    before = await store.load(match.match_id)
    filled = await fill(redis_client)
    # Held full: used memory also counts client buffers, which drain and would let a small
    # write fit again just under the limit.
    used = (await redis_client.info("memory"))["used_memory"]
    await redis_client.config_set("maxmemory", used // 2)
    try:
        for call in (
            lambda: create(player),
            lambda: Client.register(address, "late"),
            lambda: joiner.join(match.match_id),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call()
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "maxmemory" in (refused.value.details() or "")
        # What was stored before is still there, unchanged; reads still answer.
        assert await store.load(match.match_id) == before
        info = (
            await player.engine.GetMatch(
                engine_pb2.GetMatchRequest(match_id=match.match_id),
                metadata=auth(player.seat_tokens[match.match_id]),
            )
        ).match
        assert info.status == "lobby"
        # Once memory is freed, writes work again.
        await redis_client.config_set("maxmemory", "4mb")
        await redis_client.delete(*(f"filler:{i}" for i in range(filled)))
        await joiner.join(match.match_id)
        assert (await create(player)).match_id
    finally:
        await player.close()
        await joiner.close()
        await stop_engine(app, redis_client)
