"""``python -m maumau.engine.migrate`` on keys written the way earlier builds wrote them, against a
real redis-server: afterwards the engine reads them in today's formats only."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import uuid

import redis
import redis.asyncio

from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.codec import (
    HEX_REFERENCE,
    REFERENCE,
    KeptAnswer,
    entry_suffix,
    packed_events,
    used_value,
    varint,
)
from maumau.engine.keys import events_key, match_key, request_ids_key
from maumau.engine.migrate import migrate_all
from maumau.engine.record import MatchRecord, Status
from maumau.engine.store import MatchStore


def old_record(match_id: str) -> MatchRecord:
    """A playing match's record from before ``moved_at`` existed (0)."""
    record = MatchRecord(match_id, "classic", 3, False, 0, 3, False, "c", "s", ["p0", "", ""])
    record.names, record.bots = ["Ann", "", ""], ["", "random", ""]
    record.nonces, record.left, record.timeouts = ["", "", ""], [False] * 3, [0] * 3
    record.status, record.deal_seed, record.turn_started_at = Status.PLAYING, "d", 1700000000.5
    return record


def first_layout(*answers: tuple[bytes, bytes]) -> bytes:
    """Kept answers as the first build kept them: request id and whole answer, each with its
    length ahead of both."""
    return b"".join(struct.pack(">HI", len(r), len(a)) + r + a for r, a in answers)


def record_of(kind: bytes, spelt: bytes, tail: bytes) -> bytes:
    """One kept answer's record: its kind, the request id, then a reference or a whole answer."""
    return kind + varint(len(spelt)) + spelt + tail


async def write_the_old_way(client: redis.asyncio.Redis, match_id: str) -> tuple[list[bytes], str]:
    """A match as earlier builds left it; the events of its stream, in order, and the hex
    request id its seat 2 keeps an answer for."""
    key = match_key(match_id)
    record = old_record(match_id)
    events = [b"dealt", b"played", b"drew", b"passed"]
    for event in events[:3]:  # one entry per event, field 'e'
        await client.xadd(
            events_key(match_id), {"e": event}, id=f"1700000000000-{events.index(event)}"
        )
    await client.xadd(events_key(match_id), {"p": packed_events(events[3:])}, id="1700000000001-0")
    hex_id = uuid.uuid4().hex
    whole = record_of(b"A", b"w1", varint(len(b"an answer")) + b"an answer")
    reference = record_of(
        HEX_REFERENCE, bytes.fromhex(hex_id), varint(4) + entry_suffix("1700000000001-0")
    )
    await client.hset(
        key,
        mapping={
            "version": 4,
            "meta": json.dumps(vars(record)),  # an object of named fields
            "state": b"state",
            "a2": whole + reference,  # a whole answer beside a reference
        },
    )
    await client.hset(
        f"{key}:requests",
        mapping={
            "0": first_layout((b"o1", b"first answer"), ("ö2".encode(), b"second")),
            "1": record_of(REFERENCE, b"r1", varint(3) + entry_suffix("1700000000000-2")),
            "2": first_layout((b"ignored", b"a{2} has the seat's answers")),
        },
    )
    await client.rpush(f"{key}:answered", "o1", "o2")
    for name in (key, events_key(match_id), f"{key}:requests", f"{key}:answered"):
        await client.expire(name, 3600)
    await client.hset(request_ids_key(match_id), "1:r1", used_value(3, "1700000000000-2", "draw"))
    await client.expire(request_ids_key(match_id), 3600)
    return events, hex_id


async def test_the_migration_rewrites_every_format_of_an_earlier_build(
    redis_server: EmbeddedRedis,
) -> None:
    client = redis.asyncio.Redis.from_url(redis_server.url)
    try:
        match_id = uuid.uuid4().hex
        events, hex_id = await write_the_old_way(client, match_id)
        untouched = uuid.uuid4().hex  # a match of today's formats
        store = MatchStore(client)
        today = old_record(untouched)
        today.moved_at = 1700000001.0
        assert (await store.commit(untouched, None, today, b"", [b"e"])).status == "ok"
        before = await client.hgetall(match_key(untouched))

        done = await migrate_all(client)
        assert done["records"] == 1 and done["event streams"] == 1
        assert done["whole answers dropped"] == 3  # seat 0's two, seat 2's one
        assert done["request ids"] == 1  # seat 2's reference; seat 1's was there
        assert done["old keys deleted"] == 2

        key = match_key(match_id)
        stored = await store.load(match_id)
        assert stored is not None and stored.version == 4 and stored.state == b"state"
        expected = old_record(match_id)
        expected.moved_at = expected.turn_started_at
        assert stored.record == expected
        assert (await client.hget(key, "meta")).startswith(b"[")

        current = await store.load_current(match_id)
        assert current is not None
        assert current.answers(0).kept is None  # whole answers only: nothing to point at
        assert current.answers(1).answer("r1") == KeptAnswer(3, "1700000000000-2")
        assert current.answers(2).answer("w1") is None
        assert current.answers(2).answer(hex_id) == KeptAnswer(4, "1700000000001-0")
        assert await store.used_request(match_id, 1, "r1") == KeptAnswer(
            3, "1700000000000-2", "draw"
        )
        assert await store.used_request(match_id, 2, hex_id) == KeptAnswer(4, "1700000000001-0")

        read = await store.read_events(match_id, "0", None)
        assert read == [
            ("1700000000000-0", b"dealt"),
            ("1700000000000-1", b"played"),
            ("1700000000000-2", b"drew"),
            ("1700000000001-0", b"passed"),
        ]
        assert [event for _, event in read] == events
        assert not await client.exists(f"{key}:requests", f"{key}:answered")
        for name in (key, events_key(match_id), request_ids_key(match_id)):
            assert 3500 < await client.ttl(name) <= 3600, name

        assert await client.hgetall(match_key(untouched)) == before
        gone = uuid.uuid4().hex  # a match whose hash expired before its old keys
        await client.hset(f"{match_key(gone)}:requests", "0", first_layout((b"r", b"answer")))
        await client.rpush(f"{match_key(gone)}:answered", "r")
        assert (await migrate_all(client))["old keys deleted"] == 2
        assert not await client.exists(
            *(f"{match_key(gone)}{part}" for part in ("", ":requests", ":answered", ":request_ids"))
        )
        assert not await migrate_all(client), "again: nothing left to rewrite"
        # A commit on the migrated match goes on from it as from any match.
        answered = (current.answers(2), "r9")
        committed = await store.commit(match_id, 4, stored.record, b"s5", [b"e5"], answered)
        assert committed.status == "ok" and committed.version == 5
        assert (await store.read_events(match_id, "1700000000001-0", None))[0][1] == b"e5"
    finally:
        await client.aclose()


def test_the_command_runs_against_the_engines_redis(redis_server: EmbeddedRedis) -> None:
    """``python -m maumau.engine.migrate`` with the engine's variables: what it rewrote."""
    match_id = uuid.uuid4().hex
    client = redis.Redis.from_url(redis_server.url)
    client.hset(
        match_key(match_id), mapping={"version": 1, "meta": json.dumps(vars(old_record(match_id)))}
    )
    env = {**os.environ, "REDIS_URL": redis_server.url}
    ran = subprocess.run(
        [sys.executable, "-m", "maumau.engine.migrate"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "records: " in ran.stdout, ran.stdout
    assert client.hget(match_key(match_id), "meta").startswith(b"[")
    client.close()
