"""The engine's Redis layer against a real redis-server."""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from maumau import fairness
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.cache import MatchCache
from maumau.engine.codec import Answers, stream_position
from maumau.engine.keys import match_key
from maumau.engine.record import MatchRecord, Status, Stored
from maumau.engine.store import MatchStore


@pytest.fixture
async def store(redis_server: EmbeddedRedis) -> AsyncIterator[MatchStore]:
    client = redis.asyncio.Redis.from_url(redis_server.url)
    yield MatchStore(client)
    await client.aclose()


async def seat_answers(
    store: MatchStore, match_id: str, seat: int
) -> tuple[Stored | None, Answers]:
    """The match as read from Redis and what ``seat`` keeps of its answers."""
    current = await store.load_current(match_id)
    if current is None:
        return None, Answers(seat, None)
    return current.stored, current.answers(seat)


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
    assert await store.deadlines.due(new.match_id) == 100.0
    stale = await store.commit(new.match_id, 1, new, b"s3", [], deadline=50.0)
    assert stale.status == "conflict"
    loaded = await store.load(new.match_id)
    assert loaded is not None and loaded.state == b"s2" and loaded.version == 2
    assert [data for _, data in await store.read_events(new.match_id, "0", None)] == [b"e1", b"e2"]
    await store.deadlines.clear(new.match_id)


async def test_a_commit_is_one_stream_entry_and_every_event_keeps_an_id_of_its_own(
    store: MatchStore,
) -> None:
    """The events of a commit share one stream entry (a fraction of the memory of one entry
    each), yet each has its own increasing id, as before: a read after any of them, the middle
    of a commit included, gives exactly the events after it."""
    new = record()
    key = f"match:{{{new.match_id}}}:events"
    batches = [[b"a1", b"a2", b"a3"], [b"b1"], [], [b"c1", b"c2"] * 70]
    version = None
    for n, events in enumerate(batches):
        committed = await store.commit(new.match_id, version, new, b"", events)
        assert committed.status == "ok"
        version = n + 1
    assert await store.redis.xlen(key) == 3  # one entry per commit with events
    read = await store.read_events(new.match_id, "0", None)
    assert [data for _, data in read] == [e for batch in batches for e in batch]
    ids = [event_id for event_id, _ in read]
    assert [stream_position(i) for i in ids] == sorted({stream_position(i) for i in ids})
    for at, event_id in enumerate(ids):
        after = await store.read_events(new.match_id, event_id, None)
        assert after == read[at + 1 :], event_id


def test_a_record_is_stored_as_its_values() -> None:
    """The record is written as the list of its fields' values (no names: about a third less of
    every match's hash), times to the millisecond; one written before its latest fields were
    added (a shorter list) reads them as their defaults."""
    new = record()
    new.players, new.names, new.moved_at = ["p1", ""], ["Ann", ""], 1700000000.1234567
    text = new.to_json()
    assert text.startswith("[") and "moved_at" not in text
    again = MatchRecord.from_json(text)
    assert again.moved_at == 1700000000.123
    again.moved_at = new.moved_at
    assert again == new
    shorter = MatchRecord.from_json(json.dumps(list(vars(new).values())[:-1]))
    assert shorter.moved_at == 0.0 and shorter.players == new.players
    assert len(text) < 0.75 * len(json.dumps(vars(new), separators=(",", ":")))


def test_a_record_leaves_out_the_seeds_its_server_seed_gives() -> None:
    """The seed commitment and the deal seed follow from the server seed and the nonces: a
    record stores them empty and reads them back derived (130 bytes less per match); a lobby's
    deal seed stays empty, and seeds that do not follow read as stored."""
    lobby = record()
    lobby.server_seed = fairness.new_server_seed()
    lobby.seed_commitment = fairness.commitment(lobby.server_seed)
    lobby.nonces = ["n0", ""]
    text = lobby.to_json()
    assert lobby.seed_commitment not in text
    assert MatchRecord.from_json(text) == lobby
    playing = lobby.copy()
    playing.status = Status.PLAYING
    playing.deal_seed = fairness.deal_seed(playing.server_seed, playing.nonces)
    text = playing.to_json()
    assert playing.deal_seed not in text and playing.seed_commitment not in text
    assert MatchRecord.from_json(text) == playing
    assert len(text) <= len(json.dumps(list(vars(playing).values()))) - 128
    playing.deal_seed = "not derived"
    assert MatchRecord.from_json(playing.to_json()) == playing


async def test_a_match_hash_and_its_kept_answers_stay_packed(store: MatchStore) -> None:
    """The embedded Redis keeps hash values of up to 1 KiB packed in one allocation: a match's
    record and state (hundreds of bytes each) and its kept answers do not cost a table of
    separate allocations (about 650 bytes more per match)."""
    new = record()
    new.names = ["a name of some length " * 3] * 2
    state = bytes(range(256)) * 2
    await store.commit(new.match_id, None, new, state, [])
    _, answers = await seat_answers(store, new.match_id, 0)
    await store.commit(new.match_id, 1, new, state, [b"e" * 40], (answers, "r1"))
    key = f"match:{{{new.match_id}}}"
    assert await store.redis.object("encoding", key) in (b"ziplist", b"listpack")
    assert await store.redis.hget(key, "a0")


async def test_a_kept_answer_names_its_commits_stream_entry(store: MatchStore) -> None:
    """A seat keeps of an answer its request id, version and stream entry: a retry reads the
    commit's events from there (none for a commit without events). A request id of lowercase
    hex digits (what the clients send) is kept as the bytes it spells, any other as it is."""
    new = record()
    await store.commit(new.match_id, None, new, b"", [b"deal"])
    for version, (request_id, events) in enumerate([("r1", [b"a", b"b"]), ("r2", [])], 1):
        _, answers = await seat_answers(store, new.match_id, 1)
        await store.commit(new.match_id, version, new, b"", events, (answers, request_id))
    _, answers = await seat_answers(store, new.match_id, 1)
    first, second = answers.answer("r1"), answers.answer("r2")
    assert first is not None and first.version == 2
    assert await store.entry_events(new.match_id, first.entry_id) == [b"a", b"b"]
    assert second is not None and (second.version, second.entry_id) == (3, "")
    assert await store.entry_events(new.match_id, second.entry_id) == []
    hex_id, upper, odd = uuid.uuid4().hex, "ABCD", "abc"
    for version, request_id in enumerate([hex_id, upper, odd], 3):
        _, answers = await seat_answers(store, new.match_id, 2)
        await store.commit(new.match_id, version, new, b"", [b"c"], (answers, request_id))
    field = await store.redis.hget(f"match:{{{new.match_id}}}", "a2")
    assert bytes.fromhex(hex_id) not in field and b"ABCD" in field and b"abc" in field
    _, answers = await seat_answers(store, new.match_id, 2)
    assert answers.answer(hex_id) is None  # forgotten: the latest two are kept
    assert [answers.answer(r) is not None for r in (upper, odd, "abcd", "ab")] == [
        True,
        True,
        False,
        False,
    ]
    _, answers = await seat_answers(store, new.match_id, 1)
    await store.commit(new.match_id, 6, new, b"", [b"d"], (answers, hex_id))
    field = await store.redis.hget(f"match:{{{new.match_id}}}", "a1")
    assert bytes.fromhex(hex_id) in field and hex_id.encode() not in field
    _, answers = await seat_answers(store, new.match_id, 1)
    kept = answers.answer(hex_id)
    assert kept is not None and kept.version == 7 and answers.answer(hex_id.upper()) is None
    await store.redis.delete(f"match:{{{new.match_id}}}:events")
    assert await store.entry_events(new.match_id, first.entry_id) is None


async def test_a_replica_remembers_its_commits_and_a_conflict_brings_the_match_as_it_is(
    redis_server: EmbeddedRedis,
) -> None:
    """A change starts from what the replica last read or committed, without a read; when
    another replica moved the match on meanwhile, the commit is refused and the refusal brings
    the match as it is now (version, state, every seat's kept answers), again without a read.
    What it remembers of a commit is what a read finds. A match that is gone is forgotten."""
    clients = [redis.asyncio.Redis.from_url(redis_server.url) for _ in range(2)]
    here, there = (MatchStore(client, cache=MatchCache(10)) for client in clients)
    new = record()
    assert (await here.commit(new.match_id, None, new, b"s1", [])).status == "ok"
    first = await here.current(new.match_id)
    assert first is not None and not first.fresh
    assert (first.stored.version, first.stored.state, first.requests) == (1, b"s1", {})

    read = await there.current(new.match_id)
    assert read is not None and read.fresh
    answered = (read.answers(1), "r1")
    assert (await there.commit(new.match_id, 1, new, b"s2", [b"e1"], answered)).status == "ok"
    assert (await here.commit(new.match_id, 1, new, b"s3", [])).status == "conflict"
    now = await here.current(new.match_id)
    assert now is not None and not now.fresh
    assert (now.stored.version, now.stored.state) == (2, b"s2")
    kept = now.answers(1).answer("r1")
    assert kept is not None and kept.version == 2 and now.answers(0).kept is None

    answered = (now.answers(0), "r2")
    assert (await here.commit(new.match_id, 2, new, b"s4", [b"e2"], answered)).status == "ok"
    mine = await here.current(new.match_id)
    fresh = await here.load_current(new.match_id)
    assert mine is not None and fresh is not None
    assert (mine.stored.version, mine.stored.state, mine.requests) == (
        fresh.stored.version,
        fresh.stored.state,
        fresh.requests,
    )

    await here.redis.delete(match_key(new.match_id))
    assert (await here.commit(new.match_id, 3, new, b"s5", [])).status == "conflict"
    assert await here.current(new.match_id) is None
    for client in clients:
        await client.aclose()


def test_the_cache_forgets_the_least_recently_used_match_first() -> None:
    cache = MatchCache(2)
    for match_id in ("a", "b"):
        cache.committed(match_id, None, Stored(record(), b"", 1), None)
    assert cache.get("a") is not None  # "b" is now the least recently used
    cache.committed("c", None, Stored(record(), b"", 1), None)
    assert [cache.get(m) is not None for m in ("a", "b", "c")] == [True, False, True]


def test_the_cache_forgets_a_match_once_it_is_over() -> None:
    cache = MatchCache(10)
    cache.committed("a", None, Stored(record(), b"", 1), None)
    over = dataclasses.replace(record(), status=Status.OVER)
    cache.committed("a", 1, Stored(over, b"", 2), None)
    assert cache.get("a") is None


async def test_a_seats_request_ids_are_kept_for_the_whole_match(store: MatchStore) -> None:
    """engine.proto, Act: 'A seat's request ids are remembered as long as the match is kept:
    none is ever applied twice'. The commit script refuses a request id the seat used before at
    any version ('used', naming its version, stream entry and action), even long after the
    seat's two kept answers moved on; another seat's same id is its own. The ids expire with
    the match's other keys."""
    new = record()
    await store.commit(new.match_id, None, new, b"", [b"deal"])
    for version, request_id in enumerate(["r1", "r2", "r3"], 1):
        _, answers = await seat_answers(store, new.match_id, 0)
        committed = await store.commit(
            new.match_id, version, new, b"", [b"e"], (answers, request_id), action="draw"
        )
        assert committed.status == "ok"
    _, answers = await seat_answers(store, new.match_id, 0)
    assert answers.answer("r1") is None, "the seat's kept answers moved on"
    used = await store.commit(new.match_id, 4, new, b"", [b"e"], (answers, "r1"), action="pass")
    assert used.status == "used" and used.earlier is not None
    assert (used.earlier.version, used.earlier.action) == (2, "draw")
    assert used.earlier == await store.used_request(new.match_id, 0, "r1")
    assert (await seat_answers(store, new.match_id, 0))[0].version == 4  # type: ignore[union-attr]

    _, others = await seat_answers(store, new.match_id, 1)
    mine = await store.commit(new.match_id, 4, new, b"", [b"e"], (others, "r1"), action="draw")
    assert mine.status == "ok"
    await store.commit(new.match_id, 5, new, b"", [], retention_seconds=60)
    assert 0 < await store.redis.ttl(f"match:{{{new.match_id}}}:request_ids") <= 60
