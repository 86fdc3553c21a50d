"""The engine's Redis layer against a real redis-server."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.store import MatchRecord, MatchStore, stream_position


@pytest.fixture
async def store(redis_server: EmbeddedRedis) -> AsyncIterator[MatchStore]:
    client = redis.asyncio.Redis.from_url(redis_server.url)
    yield MatchStore(client)
    await client.aclose()


def record() -> MatchRecord:
    return MatchRecord(uuid.uuid4().hex, "classic", 2, False, 0, 3, False, "c", "s", ["", ""])


async def test_a_commit_sets_its_deadline_only_earlier_and_survives_a_flushed_script_cache(
    store: MatchStore,
) -> None:
    """Redis forgets its scripts when it restarts: the commit loads the script again."""
    new = record()
    first = await store.commit(new.match_id, None, new, b"s1", [b"e1"], deadline=100.0)
    assert first.status == "ok" and first.version == 1
    await store.redis.script_flush()
    later = await store.commit(new.match_id, 1, new, b"s2", [b"e2"], deadline=200.0)
    assert later.status == "ok" and later.version == 2
    assert await store.deadline(new.match_id) == 100.0
    stale = await store.commit(new.match_id, 1, new, b"s3", [], deadline=50.0)
    assert stale.status == "conflict"
    loaded = await store.load(new.match_id)
    assert loaded is not None and loaded.state == b"s2" and loaded.version == 2
    assert [data for _, data in await store.read_events(new.match_id, "0", None)] == [b"e1", b"e2"]
    await store.clear_deadline(new.match_id)


async def test_a_commit_is_one_stream_entry_and_every_event_keeps_an_id_of_its_own(
    store: MatchStore,
) -> None:
    """The events of a commit share one stream entry (a fraction of the memory of one entry
    each), yet each has its own increasing id, as before: a read after any of them, the middle
    of a commit included, gives exactly the events after it. Entries written one event each by
    earlier versions read on in the same stream."""
    new = record()
    key = f"match:{{{new.match_id}}}:events"
    old = (await store.redis.xadd(key, {"e": b"old"})).decode()
    batches = [[b"a1", b"a2", b"a3"], [b"b1"], [], [b"c1", b"c2"] * 70]
    version = None
    for n, events in enumerate(batches):
        committed = await store.commit(new.match_id, version, new, b"", events)
        assert committed.status == "ok"
        version = n + 1
    assert await store.redis.xlen(key) == 4  # the old entry and one per commit with events
    read = await store.read_events(new.match_id, "0", None)
    assert [data for _, data in read] == [b"old", *(e for batch in batches for e in batch)]
    ids = [event_id for event_id, _ in read]
    assert ids[0] == old
    assert [stream_position(i) for i in ids] == sorted({stream_position(i) for i in ids})
    for at, event_id in enumerate(ids):
        after = await store.read_events(new.match_id, event_id, None)
        assert after == read[at + 1 :], event_id
