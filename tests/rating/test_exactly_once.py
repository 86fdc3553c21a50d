"""Each finished match counts exactly once, however often it is delivered and whichever replica
dies where (issue 6: "a crash after applying and before acknowledging must not count a match
twice, and a crash before applying must not lose it"; docs/architecture.md, "Services":
"rating: results from the stream, exactly once"; docs/services.md, "Rating": "applies each match
exactly once (idempotent by match id, ...)".

The stream holds 1,000 synthetic results twice over (in order, then replayed in another order).
However it is consumed, every player's XP, counters, ratings and every ladder must equal a single
clean application of the 1,000 results, one at a time, in a fresh key space, in the order the
service applied them (ratings depend on order; each match once in some order is the promise).
"""

import asyncio
import random
import uuid
from collections import Counter

import prometheus_client
import pytest

from maumau.common.config import ConsumerSettings
from maumau.rating.consumer import GROUP, ResultsConsumer
from maumau.rating.ladder import xp_earned
from maumau.rating.store import RatingStore
from maumau.rating.synthetic import synthetic_results
from tests.rating.support import consumer, drained, parse, publish, result, seat, snapshot
from tests.support.polling import eventually

UNIQUE = synthetic_results(1000, seed=7)
RESULTS = parse(UNIQUE)
TWICE = UNIQUE + random.Random(3).sample(UNIQUE, len(UNIQUE))
RATED = {s.rated_id for r in RESULTS for s in r.seats}


class Crash(BaseException):
    """A replica's process dying: nothing after it runs, not even its error handling."""


class DiesAfterApplying(ResultsConsumer):
    """Dies with its third batch applied and not yet acknowledged."""

    batches = 0

    async def acknowledge(self, entry_ids):
        self.batches += 1
        if self.batches == 3:
            raise Crash
        await super().acknowledge(entry_ids)


class DiesBeforeApplying(ResultsConsumer):
    """Dies with its second batch read (delivered to it, pending) and not applied."""

    batches = 0

    async def handle(self, entries):
        self.batches += bool(entries)
        if self.batches == 2:
            raise Crash
        await super().handle(entries)


def metric(name: str) -> float:
    return prometheus_client.REGISTRY.get_sample_value(name) or 0.0


async def run_until_drained(consumers: list[ResultsConsumer], timeout: float = 30) -> None:
    tasks = [asyncio.create_task(c.run()) for c in consumers]
    try:
        await eventually(
            lambda: drained(consumers[0]), timeout, "every entry applied and acknowledged"
        )
    finally:
        for c in consumers:
            await c.stop()
        await asyncio.gather(*tasks)


async def assert_single_clean_application(store: RatingStore) -> list[str]:
    """The store equals the 1,000 results applied once each, one at a time, in a fresh key
    space, in the order the store applied them; returns that order."""
    order = await store.applied_order()
    assert sorted(order) == sorted(r.match_id for r in RESULTS), "each match applied once"
    reference = RatingStore(store.redis, f"reference-{uuid.uuid4().hex[:12]}")
    by_id = {r.match_id: r for r in RESULTS}
    for match_id in order:
        await reference.apply([by_id[match_id]])
    assert await snapshot(store, RATED) == await snapshot(reference, RATED)
    # and, computed without the store: matches played and XP per player
    played: Counter[str] = Counter()
    xp: Counter[str] = Counter()
    for r in RESULTS:
        played.update({s.rated_id for s in r.seats})
        xp.update({s.rated_id: xp_earned(s) for s in r.seats})
    for rated_id in RATED:
        stats = await store.player(rated_id)
        assert stats is not None
        assert stats.count("played") == played[rated_id]
        assert stats.count("xp") == xp[rated_id]
    return order


async def test_a_replayed_stream_counts_each_match_once(client, store, stream):
    """The stream is consumed, then consumed again from its start (the group reset, as after
    restoring a backup): the second time every match is found applied and skipped."""
    await publish(client, stream, TWICE)
    applied, duplicates = (
        metric("rating_results_applied_total"),
        metric("rating_results_duplicate_total"),
    )
    await run_until_drained([consumer(client, store, stream, "only")])
    await client.xgroup_setid(stream, GROUP, "0")
    await run_until_drained([consumer(client, store, stream, "only")])
    order = await assert_single_clean_application(store)
    in_stream_order = [r.match_id for r in sorted(RESULTS, key=lambda r: r.preset)]
    assert order == in_stream_order, "one consumer applies each preset's matches in stream order"
    assert metric("rating_results_applied_total") - applied == 1000
    assert metric("rating_results_duplicate_total") - duplicates == 3000


async def test_replicas_dying_before_and_after_applying_lose_and_double_nothing(
    client, store, stream
):
    """Replica A dies after applying its third batch, before acknowledging it; replica B dies
    with its second batch read but not applied. Replica C claims both batches once they have
    been pending 0.2 s: A's are found applied and skipped, B's are applied."""
    await publish(client, stream, TWICE)
    applied, duplicates = (
        metric("rating_results_applied_total"),
        metric("rating_results_duplicate_total"),
    )
    a = DiesAfterApplying(client, store, ConsumerSettings("a", batch=50), stream=stream)
    with pytest.raises(Crash):
        await a.run()
    b = DiesBeforeApplying(client, store, ConsumerSettings("b", batch=50), stream=stream)
    with pytest.raises(Crash):
        await b.run()
    pending = await client.xpending(stream, GROUP)
    assert pending["pending"] == 100
    assert {c["name"]: c["pending"] for c in pending["consumers"]} == {b"a": 50, b"b": 50}
    assert len(await store.applied_order()) == 200  # A: 3 batches, B: 1

    c = consumer(client, store, stream, "c", claim_idle_seconds=0.2)
    await run_until_drained([c])
    await assert_single_clean_application(store)
    assert metric("rating_results_applied_total") - applied == 1000
    assert metric("rating_results_duplicate_total") - duplicates == 1000 + 50


async def test_two_replicas_consuming_at_once_apply_each_match_once(client, store, stream):
    """Two replicas share the group and the players (bot levels sit in most matches), so their
    batches keep touching the same ratings: each commit is checked against the versions it read,
    and a replica that lost the race reads again and recomputes."""
    await publish(client, stream, TWICE)
    applied = metric("rating_results_applied_total")
    replicas = [
        consumer(client, store, stream, name, claim_idle_seconds=0.5) for name in ("r1", "r2")
    ]
    await run_until_drained(replicas)
    await assert_single_clean_application(store)
    assert metric("rating_results_applied_total") - applied == 1000


async def test_a_commit_on_ratings_that_moved_on_is_refused_and_recomputed(client, store):
    """Two replicas read Ada's rating, each to apply a different match of hers. The first
    commit lands; the second was computed from the old rating and is refused, so no update is
    lost; applying it again starts from the rating the first one left."""
    first = parse([result([seat(0, "ada", winner=True), seat(1, "bob")])])
    second = parse([result([seat(0, "ada", winner=True), seat(1, "cy")])])
    stale_first = await store._read({"classic": first})
    stale_second = await store._read({"classic": second})
    assert await store._commit(stale_first) == [True]
    assert await store._commit(stale_second) == [False]
    outcome = await store.apply(second)
    assert outcome.applied == [second[0].match_id] and outcome.conflicts == 0

    reference = RatingStore(client, f"reference-{uuid.uuid4().hex[:12]}")
    await reference.apply(first)
    await reference.apply(second)
    ada, clean = await store.player("ada"), await reference.player("ada")
    assert ada is not None and clean is not None
    assert ada.presets["classic"].data == clean.presets["classic"].data
    assert ada.count("played") == 2


async def test_an_entry_that_is_no_result_is_skipped_and_the_stream_goes_on(client, store, stream):
    """A malformed entry must not block the stream: it is logged, counted, acknowledged; a
    result without anyone to rate still counts as applied; the good results around it apply."""
    good = result([seat(0, "ada", winner=True), seat(1, "bob")])
    nobody = result([seat(0, "", winner=True), seat(1, "")])
    await client.xadd(stream, {"match_id": "broken", "result": b"\xff not a MatchResult"})
    await client.xadd(stream, {"match_id": "empty"})
    await publish(client, stream, [nobody, good])
    rejected = metric("rating_results_rejected_total")
    await run_until_drained([consumer(client, store, stream, "only")])
    assert metric("rating_results_rejected_total") - rejected == 2
    assert len(await store.applied_order()) == 2
    ada = await store.player("ada")
    assert ada is not None and ada.count("won") == 1


async def test_every_preset_of_a_batch_applies_after_the_script_cache_was_flushed(client, store):
    """Each preset's script goes out as soon as it is computed, one after the other on one
    connection; a Redis that lost its scripts (restarted, or a new master) answers each with
    NOSCRIPT, and each is sent again once the script is loaded: nothing is lost or doubled."""
    batch = parse(synthetic_results(60, seed=21, ranked=1.0))
    assert len({r.preset for r in batch}) > 1
    await store.apply(batch[:30])
    await client.script_flush()
    outcome = await store.apply(batch)
    assert sorted(outcome.applied) == sorted(r.match_id for r in batch[30:])
    assert sorted(outcome.duplicates) == sorted(r.match_id for r in batch[:30])
    assert sorted(await store.applied_order()) == sorted(r.match_id for r in batch)
