"""The results stream is trimmed once every consumer group acknowledged an entry (issue 10:
nothing kept forever), by any number of engine replicas, never before a group is done."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio

from maumau.common.redis_server import EmbeddedRedis
from maumau.common.results import result_entry, results_stream
from maumau.engine.matches import EngineSettings
from maumau.v1 import game_pb2
from tests.support.engine import start_engine, stop_engine
from tests.support.polling import eventually

RESULTS_STREAM = results_stream(3)
"""One shard (the old unsharded stream is deleted once drained; tests/rating/test_sharding.py)."""


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    with EmbeddedRedis(tmp_path / "redis") as server:
        yield server


async def read(client: redis.asyncio.Redis, group: str, count: int) -> list[bytes]:
    reply = await client.xreadgroup(group, f"{group}-1", {RESULTS_STREAM: ">"}, count=count)
    return [entry_id for entry_id, _ in reply[0][1]]


async def test_results_go_once_rating_and_tournaments_both_acknowledged_them(own_redis):
    settings = EngineSettings(bot_delay_seconds=0, results_trim_seconds=0.05)
    replicas = [await start_engine(own_redis.url, settings) for _ in range(2)]
    client = redis.asyncio.Redis.from_url(own_redis.url)
    try:
        for group in ("rating", "tournaments"):
            await client.xgroup_create(RESULTS_STREAM, group, id="0", mkstream=True)
        ids = [
            await client.xadd(
                RESULTS_STREAM,
                result_entry(game_pb2.MatchResult(match_id=f"m{n}")),  # type: ignore[arg-type]
            )
            for n in range(6)
        ]

        async def left() -> list[bytes]:
            return [entry_id for entry_id, _ in await client.xrange(RESULTS_STREAM)]

        # Nothing acknowledged yet: everything stays.
        assert await left() == ids
        rating = await read(client, "rating", 6)
        await client.xack(RESULTS_STREAM, "rating", *rating)
        delivered = await read(client, "tournaments", 4)
        await client.xack(RESULTS_STREAM, "tournaments", *delivered[:2])

        # Rating is done with all six, tournaments with two: those two go, the others stay
        # (two delivered but pending, two not delivered yet).
        async def trimmed_to(expected: list[bytes]) -> bool:
            return await left() == expected

        await eventually(lambda: trimmed_to(ids[2:]), 5, "the first two results trimmed")
        assert await left() == ids[2:]

        await client.xack(RESULTS_STREAM, "tournaments", *delivered[2:])
        await client.xack(RESULTS_STREAM, "tournaments", *await read(client, "tournaments", 6))
        await eventually(lambda: trimmed_to([]), 5, "every result trimmed")
        # The groups still know where they are: a new result reaches both.
        new = await client.xadd(
            RESULTS_STREAM,
            result_entry(game_pb2.MatchResult(match_id="later")),  # type: ignore[arg-type]
        )
        assert await read(client, "rating", 6) == [new]
        assert await read(client, "tournaments", 6) == [new]
    finally:
        await client.aclose()
        for app, app_client in replicas:
            await stop_engine(app, app_client)
