"""The one script runner of every store (``Durability.replies``) on a real Redis: one round trip
for a list of calls, their replies in order whatever fails among them, a script Redis lacks
loaded and its call sent again, WAIT after the calls that ask for replicas, and each error of
one of two kinds: a store that cannot answer for a moment (the caller retries) or a bug of the
platform, logged with its script and keys and counted (issue 25)."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import redis
import redis.asyncio
from prometheus_client import REGISTRY
from redis import exceptions

from maumau.common.redis_client import (
    Call,
    Durability,
    ReplicationShortfall,
    Script,
    StoreError,
)
from maumau.common.redis_server import EmbeddedRedis

INCR = Script("test.incr", "return redis.call('INCRBY', KEYS[1], ARGV[1])")
READ_HASH = Script("test.read_hash", "return redis.call('HGET', KEYS[1], 'f')")
FAILS = Script("test.fails", "return nil .. ARGV[1]")  # a Lua error: concatenating nil


def errors_counted(script: str) -> float:
    return REGISTRY.get_sample_value("maumau_store_errors_total", {"script": script}) or 0.0


@pytest.fixture
def tag() -> str:
    """A hash tag of the test's own on the shared Redis."""
    return f"runner-{uuid.uuid4().hex[:8]}"


@pytest.fixture
async def durability(client: redis.asyncio.Redis) -> AsyncIterator[Durability]:
    yield Durability(client)


def test_every_script_counts_its_errors_from_zero() -> None:
    """A series from 0 for each script, so Prometheus sees its first error as an increase."""
    assert REGISTRY.get_sample_value("maumau_store_errors_total", {"script": "test.incr"}) == 0.0
    assert REGISTRY.get_sample_value("maumau_store_errors_total", {"script": "command"}) is not None


async def test_replies_come_in_order_with_an_error_in_place_of_its_reply(
    durability: Durability, client: redis.asyncio.Redis, tag: str, caplog: pytest.LogCaptureFixture
) -> None:
    await client.set(f"{{{tag}}}:text", "x")
    before = errors_counted("test.read_hash")
    with caplog.at_level(logging.ERROR, "maumau.common.redis_client"):
        replies = await durability.replies(
            [
                Call(INCR, [f"{{{tag}}}:n"], [2]),
                Call(READ_HASH, [f"{{{tag}}}:text"]),
                Call("SET", [f"{{{tag}}}:after"], ["y"]),
                Call(INCR, [f"{{{tag}}}:n"], [3]),
            ]
        )
    assert replies[0] == 2 and replies[2] == b"OK" and replies[3] == 5
    refused = replies[1]
    assert isinstance(refused, StoreError) and refused.name == "script test.read_hash"
    assert refused.keys == [f"{{{tag}}}:text"] and "WRONGTYPE" in str(refused)
    assert errors_counted("test.read_hash") == before + 1
    [line] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert "test.read_hash" in line.getMessage() and f"{{{tag}}}:text" in line.getMessage()
    assert "WRONGTYPE" in line.getMessage()


async def test_run_raises_the_first_error_once_every_reply_is_in(
    durability: Durability, client: redis.asyncio.Redis, tag: str
) -> None:
    before = errors_counted("test.fails")
    with pytest.raises(StoreError, match=r"script test\.fails"):
        await durability.run(
            [Call(FAILS, [f"{{{tag}}}:x"], ["1"]), Call(INCR, [f"{{{tag}}}:n"], [1])]
        )
    assert errors_counted("test.fails") == before + 1
    assert await client.get(f"{{{tag}}}:n") == b"1"  # the call after it ran, and was read


async def test_a_plain_commands_error_is_reported_under_command(
    durability: Durability, client: redis.asyncio.Redis, tag: str
) -> None:
    await client.set(f"{{{tag}}}:text", "x")
    before = errors_counted("command")
    with pytest.raises(StoreError, match=r"command ZADD on keys \['\{runner-"):
        await durability.call("ZADD", [f"{{{tag}}}:text"], [1, "member"])
    assert errors_counted("command") == before + 1


async def test_a_script_redis_lacks_is_loaded_and_only_its_call_sent_again(
    durability: Durability, client: redis.asyncio.Redis, tag: str
) -> None:
    assert await durability.call(INCR, [f"{{{tag}}}:n"], [1]) == 1
    await client.script_flush()
    replies = await durability.run(
        [Call("INCRBY", [f"{{{tag}}}:plain"], [10]), Call(INCR, [f"{{{tag}}}:n"], [1])]
    )
    assert replies == [10, 2]
    assert await client.get(f"{{{tag}}}:plain") == b"10"  # the plain call ran once


async def test_calls_go_out_as_they_are_computed(
    durability: Durability, redis_server: EmbeddedRedis, tag: str
) -> None:
    """Redis runs a call while the caller computes the next (the rating service's steps): when
    the second call is computed, another client already sees what the first one wrote."""
    seen: list[bytes | None] = []
    with redis.Redis.from_url(redis_server.url) as other:

        def calls() -> Iterator[Call]:
            yield Call(INCR, [f"{{{tag}}}:n"], [1])
            deadline = time.monotonic() + 5
            while (value := other.get(f"{{{tag}}}:n")) is None and time.monotonic() < deadline:
                time.sleep(0.001)
            seen.append(value)
            yield Call(INCR, [f"{{{tag}}}:n"], [1])

        assert await durability.run(calls()) == [1, 2]
    assert seen == [b"1"]


async def test_a_call_that_asks_for_replicas_fails_short_of_them_and_only_it(
    client: redis.asyncio.Redis, tag: str
) -> None:
    """A single Redis has no replica: a call that waits for one is not acknowledged (its write
    is made, but UNAVAILABLE tells the caller to retry); one that does not wait is answered."""
    durability = Durability(client, min_replicas=1, wait_ms=10)
    replies = await durability.replies(
        [Call(INCR, [f"{{{tag}}}:n"], [1], wait=True), Call(INCR, [f"{{{tag}}}:m"], [1])]
    )
    assert isinstance(replies[0], ReplicationShortfall) and replies[1] == 1
    before = errors_counted("test.incr")
    with pytest.raises(ReplicationShortfall, match="0 of 1 replicas"):
        await durability.call(INCR, [f"{{{tag}}}:n"], [1], wait=True)
    assert errors_counted("test.incr") == before  # not a bug


async def test_a_store_that_does_not_answer_is_no_bug(tmp_path, tag: str) -> None:
    """Redis gone: ConnectionError, as redis-py raises it, neither logged as a bug nor counted;
    once it is back, the runner's held connection connects afresh."""
    server = EmbeddedRedis(tmp_path)
    server.start()
    client = redis.asyncio.Redis.from_url(server.url)
    durability = Durability(client)
    try:
        assert await durability.call(INCR, [f"{{{tag}}}:n"], [1]) == 1
        server.stop()
        before = errors_counted("test.incr")
        with pytest.raises(exceptions.ConnectionError):
            await durability.call(INCR, [f"{{{tag}}}:n"], [1])
        assert errors_counted("test.incr") == before
        server.start()
        assert await durability.call(INCR, [f"{{{tag}}}:n"], [1]) == 2
    finally:
        await client.aclose()
        server.stop()
