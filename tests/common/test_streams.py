"""The one stream consumer (issue 9, section 1; docs/architecture.md, "Services meet only through
contracts": "Consumer groups use one shared consumer (own-pending pass, claiming idle entries, ack
after success)"), over a real Redis."""

import asyncio
import uuid
from collections.abc import Sequence

import prometheus_client
import pytest
import redis.asyncio

from maumau.common.config import ConsumerSettings
from maumau.common.results import RESULTS_STREAM, BadEntry, read_result, result_entry
from maumau.common.streams import StreamConsumer, StreamEntry, stream_of
from maumau.v1 import game_pb2

GROUP = "test-group"


class Crash(BaseException):
    """A replica's process dying: nothing after it runs, not even its error handling."""


class Recorder(StreamConsumer):
    """Records what it handled; ``fail`` batches raise (an error), ``crash_at`` dies."""

    def __init__(self, *args: object, fail: int = 0, crash_at: int = 0, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.seen: list[bytes] = []
        self.fail, self.crash_at, self.batches = fail, crash_at, 0

    async def handle(self, entries: Sequence[StreamEntry]) -> None:
        self.batches += 1
        if self.batches == self.crash_at:
            raise Crash
        if self.fail:
            self.fail -= 1
            raise RuntimeError("the handler failed")
        self.seen.extend(entry.fields[b"n"] for entry in entries)


@pytest.fixture
def stream() -> str:
    return f"test-stream-{uuid.uuid4().hex[:12]}"


def settings(name: str, **changes: float) -> ConsumerSettings:
    values: dict[str, float] = {"batch": 10, "claim_idle_seconds": 60.0, "block_seconds": 0.05}
    return ConsumerSettings(name, **(values | changes))  # type: ignore[arg-type]


async def add(client: redis.asyncio.Redis, stream: str, count: int) -> list[bytes]:
    return [await client.xadd(stream, {"n": str(n)}) for n in range(count)]


async def run_until(consumer: Recorder, done: asyncio.Future[None] | None, seconds: float) -> None:
    """Run ``consumer`` for ``seconds`` at most, or until ``done``, then stop it."""
    task = asyncio.create_task(consumer.run())
    try:
        async with asyncio.timeout(seconds):
            while task.done() is False and (done is None or not done.done()):
                await asyncio.sleep(0.02)
    except TimeoutError:
        pass
    await consumer.stop()
    await task


async def drained(client: redis.asyncio.Redis, stream: str) -> bool:
    groups = {g["name"].decode(): g for g in await client.xinfo_groups(stream)}
    last = (await client.xinfo_stream(stream))["last-generated-id"]
    group = groups.get(GROUP)
    return group is not None and group["last-delivered-id"] == last and group["pending"] == 0


async def until_drained(client: redis.asyncio.Redis, stream: str) -> asyncio.Future[None]:
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def watch() -> None:
        while not await drained(client, stream):
            await asyncio.sleep(0.02)
        done.set_result(None)

    asyncio.get_running_loop().create_task(watch())
    return done


async def test_entries_are_handled_in_order_and_acknowledged_after_the_handler(client, stream):
    await add(client, stream, 25)
    consumer = Recorder(client, stream, GROUP, settings("one"))
    await run_until(consumer, await until_drained(client, stream), 10)
    assert consumer.seen == [str(n).encode() for n in range(25)]
    assert (await client.xpending(stream, GROUP))["pending"] == 0


async def test_a_restarted_consumer_takes_its_own_pending_entries_back_at_once(client, stream):
    """A replica dies with a batch delivered and not handled; restarted under the same name it
    handles that batch first, long before the entries count as idle (60 s here)."""
    await add(client, stream, 15)
    dying = Recorder(client, stream, GROUP, settings("pod-1"), crash_at=1)
    with pytest.raises(Crash):
        await dying.run()
    assert (await client.xpending(stream, GROUP))["pending"] == 10
    again = Recorder(client, stream, GROUP, settings("pod-1"))
    await run_until(again, await until_drained(client, stream), 10)
    assert again.seen == [str(n).encode() for n in range(15)]


async def test_entries_left_idle_by_a_silent_consumer_are_claimed_by_another(client, stream):
    await add(client, stream, 10)
    dying = Recorder(client, stream, GROUP, settings("gone"), crash_at=1)
    with pytest.raises(Crash):
        await dying.run()
    reclaimed = prometheus_client.REGISTRY.get_sample_value(
        "stream_entries_reclaimed_total", {"stream": stream, "group": GROUP}
    )
    other = Recorder(client, stream, GROUP, settings("other", claim_idle_seconds=0.2))
    await run_until(other, await until_drained(client, stream), 10)
    assert sorted(other.seen, key=int) == [str(n).encode() for n in range(10)]
    after = prometheus_client.REGISTRY.get_sample_value(
        "stream_entries_reclaimed_total", {"stream": stream, "group": GROUP}
    )
    assert after == (reclaimed or 0) + 10


async def consumers(client: redis.asyncio.Redis, stream: str) -> dict[str, int]:
    """Every consumer name of the group and the entries pending with it."""
    return {c["name"].decode(): c["pending"] for c in await client.xinfo_consumers(stream, GROUP)}


async def test_consumers_gone_and_owning_nothing_leave_the_group(client, stream):
    """Every crashed replica used to leave its name in the group for good: a consumer silent
    longer than gone_after_seconds with nothing pending is removed; one that still owns
    entries is kept until they are claimed, and so is the live consumer itself."""
    await add(client, stream, 10)
    owner = Recorder(client, stream, GROUP, settings("crashed-with-work"), crash_at=1)
    with pytest.raises(Crash):
        await owner.run()  # 10 entries pending with it
    idle = Recorder(client, stream, GROUP, settings("crashed-idle"))
    await idle.ensure_group()
    await client.xgroup_createconsumer(stream, GROUP, "crashed-idle")  # it read nothing
    live = Recorder(client, stream, GROUP, settings("live", gone_after_seconds=0.2))
    await asyncio.sleep(0.3)
    assert await live.remove_gone_consumers() == ["crashed-idle"]
    assert await consumers(client, stream) == {"crashed-with-work": 10}
    # Running, a consumer claims the crashed owner's entries; owning nothing, the owner goes too.
    claimer = Recorder(
        client, stream, GROUP, settings("live", claim_idle_seconds=0.1, gone_after_seconds=0.2)
    )
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def watch() -> None:
        while set(await consumers(client, stream)) != {"live"}:
            await asyncio.sleep(0.02)
        done.set_result(None)

    watcher = asyncio.create_task(watch())
    await run_until(claimer, done, 10)
    watcher.cancel()
    assert sorted(claimer.seen, key=int) == [str(n).encode() for n in range(10)]
    assert await consumers(client, stream) == {"live": 0}


async def test_a_failing_handler_backs_off_and_its_batch_is_handled_again(client, stream):
    """Two failures in a row: the batch stays pending (nothing acknowledged), the consumer
    waits 0.1 s, then 0.2 s, and handles the same batch again, once."""
    await add(client, stream, 5)
    failures = prometheus_client.REGISTRY.get_sample_value(
        "stream_handler_failures_total", {"stream": stream, "group": GROUP}
    )
    consumer = Recorder(client, stream, GROUP, settings("flaky"), fail=2)
    started = asyncio.get_running_loop().time()
    await run_until(consumer, await until_drained(client, stream), 10)
    assert consumer.seen == [str(n).encode() for n in range(5)]
    assert asyncio.get_running_loop().time() - started >= 0.3
    after = prometheus_client.REGISTRY.get_sample_value(
        "stream_handler_failures_total", {"stream": stream, "group": GROUP}
    )
    assert after == (failures or 0) + 2


async def test_stop_ends_the_loop_within_one_read(client, stream):
    consumer = Recorder(client, stream, GROUP, settings("idle", block_seconds=0.2))
    task = asyncio.create_task(consumer.run())
    await asyncio.sleep(0.1)
    await consumer.stop()
    async with asyncio.timeout(1):
        await task


async def test_a_group_made_at_the_end_skips_what_came_before(client, stream):
    await add(client, stream, 3)
    consumer = Recorder(client, stream, GROUP, settings("late"), start_at="$")
    await run_until(consumer, None, 0.3)
    await client.xadd(stream, {"n": "new"})
    consumer = Recorder(client, stream, GROUP, settings("late"), start_at="$")
    await run_until(consumer, await until_drained(client, stream), 5)
    assert consumer.seen == [b"new"]


def test_the_results_stream_is_named_by_the_proto() -> None:
    assert RESULTS_STREAM == stream_of(game_pb2.MatchResult) == "engine:results"
    with pytest.raises(ValueError, match=r"maumau\.v1\.View names no redis_stream"):
        stream_of(game_pb2.View)


def test_a_result_entry_round_trips_and_a_bad_one_says_why() -> None:
    result = game_pb2.MatchResult(match_id="m1", preset="classic", winners=[1])
    fields = {
        k.encode(): v if isinstance(v, bytes) else v.encode()
        for k, v in result_entry(result).items()
    }
    assert fields[b"match_id"] == b"m1"
    assert read_result(StreamEntry(b"1-0", fields)) == result
    with pytest.raises(BadEntry, match="no result field"):
        read_result(StreamEntry(b"1-1", {b"match_id": b"m1"}))
    with pytest.raises(BadEntry, match="is not a MatchResult"):
        read_result(StreamEntry(b"1-2", {b"result": b"\xff\xff"}))
    with pytest.raises(BadEntry, match="without a match_id"):
        read_result(StreamEntry(b"1-3", {b"result": b""}))
