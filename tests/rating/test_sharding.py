"""The rating keys sharded by preset and the results stream by match id: a replica applies every
shard's results and the unsharded stream of earlier versions once each, the engine's trimming
deletes that old stream once drained, histories merge every preset's, and the migration moves
the single-slot layout of earlier versions without losing a rating."""

import json

import redis.asyncio

from maumau.common.results import results_stream_of, trim_results
from maumau.rating.app import RatingApp
from maumau.rating.ladder import by_rated_id
from maumau.rating.store import HISTORY_KEPT, RatingStore
from maumau.rating.synthetic import synthetic_results
from maumau.rules.ruleset import PRESETS
from tests.rating.support import parse, publish
from tests.support.polling import eventually

SHARDS = 8  # the rating fixture's default MAUMAU_REDIS_SHARDS


async def test_every_shard_and_the_old_stream_are_applied_once_and_the_old_one_goes(
    client: redis.asyncio.Redis, store: RatingStore, stream: str, rating: RatingApp
) -> None:
    messages = list(synthetic_results(120, seed=3, prefix=stream))
    old, new = messages[:40], messages[40:]
    await publish(client, stream, old)  # left by an engine of an earlier version
    for message in new:  # as the engine writes now
        await publish(client, results_stream_of(message.match_id, SHARDS, stream), [message])
    assert len({results_stream_of(m.match_id, SHARDS, stream) for m in new}) == SHARDS

    async def all_applied() -> bool:
        return len(await store.applied_order()) == len(messages)

    await eventually(all_applied, 20, "every result applied")
    assert sorted(await store.applied_order()) == sorted(m.match_id for m in messages)

    async def old_stream_gone() -> bool:
        await trim_results(client, SHARDS, stream)
        return not await client.exists(stream)

    await eventually(old_stream_gone, 10, "the drained old stream deleted by trimming")
    shards = {results_stream_of(m.match_id, SHARDS, stream) for m in new}
    assert await client.exists(*shards) == SHARDS, "the shards stay (empty) for their groups"
    # An engine of an earlier version still writing it (a rolling upgrade): read again.
    late = list(synthetic_results(3, seed=4, prefix=f"{stream}-late"))
    await publish(client, stream, late)

    async def late_applied() -> bool:
        return len(await store.applied_order()) == len(messages) + len(late)

    await eventually(late_applied, 20, "results written to the old stream later applied")
    profile = await store.player(next(iter(by_rated_id(parse(late)[0]))))
    assert profile is not None


async def test_every_key_of_a_preset_shares_its_slot_and_presets_differ(store: RatingStore):
    for preset in PRESETS:
        keys = [
            store.state_key("p1", preset),
            store.ladder_key(preset, "2026"),
            store.history_key("p1", preset),
            store.match_key("m1", preset),
            store.seq_key(preset),
        ]
        assert {key[: key.index("}") + 1] for key in keys} == {store.slot(preset)}
    assert len({store.slot(preset) for preset in PRESETS}) == len(PRESETS)


async def test_a_history_merges_every_presets_newest_first(store: RatingStore) -> None:
    results = parse(synthetic_results(300, seed=8, players=6, span_days=90.0))
    await store.apply(results)
    player = next(iter(by_rated_id(results[0])))
    played = sorted((r for r in results if player in by_rated_id(r)), key=lambda r: -r.finished_at)
    assert len({r.preset for r in played}) > 1
    total, shown = await store.history(player, 0, HISTORY_KEPT)
    assert total == min(len(played), HISTORY_KEPT)
    newest = [r.finished_at for r in played[:HISTORY_KEPT]]
    assert [m["result"]["finished_at"] for m in shown] == newest
    _, page = await store.history(player, 10, 5)
    assert page == shown[10:15]


async def test_the_single_slot_layout_moves_to_the_per_preset_one(
    client: redis.asyncio.Redis, tag: str
) -> None:
    """Written as earlier versions did: every key under {tag}, states and ladders named with
    their preset."""
    results = parse(synthetic_results(60, seed=9, players=8))
    reference = RatingStore(client, f"{tag}-reference")
    await reference.apply(results)
    old = f"{{{tag}}}"
    for preset in PRESETS:
        async for key in client.scan_iter(match=f"{{{tag}-reference:{preset}}}:*"):
            name = key.decode().partition("}:")[2]
            kind, _, rest = name.partition(":")
            if kind == "player":
                await client.set(f"{old}:player:{rest}:{preset}", await client.get(key))
            elif kind == "ladder":
                entries = dict(await client.zrange(key, 0, -1, withscores=True))
                await client.zadd(f"{old}:ladder:{preset}:{rest}", entries)
            elif kind == "history":
                entries = dict(await client.zrange(key, 0, -1, withscores=True))
                await client.zadd(f"{old}:history:{rest}", entries)
            elif kind == "match":
                await client.set(f"{old}:match:{rest}", await client.get(key), ex=86400)
    await client.set(f"{old}:seq", len(results))

    store = RatingStore(client, tag)
    assert await store.warn_of_single_slot_keys()
    moved = await store.migrate_single_slot()
    assert moved > len(results)
    assert not [key async for key in client.scan_iter(match=f"{old}:*")]
    assert not await store.warn_of_single_slot_keys()
    assert await store.migrate_single_slot() == 0, "again: nothing left to move"

    rated = {rated_id for r in results for rated_id in by_rated_id(r)}
    for rated_id in rated:
        moved_player, kept = await store.player(rated_id), await reference.player(rated_id)
        assert moved_player is not None and kept is not None
        assert {p: s.data for p, s in moved_player.presets.items()} == {
            p: s.data for p, s in kept.presets.items()
        }
        assert await store.history(rated_id, 0, 100) == await reference.history(rated_id, 0, 100)
    for preset in PRESETS:
        for season in {r.season for r in results}:
            assert [(r.rated_id, r.rank) for r in await store.ladder(preset, season, 0, 50)] == [
                (r.rated_id, r.rank) for r in await reference.ladder(preset, season, 0, 50)
            ]
    # New matches count on after the moved ones, each preset from the old count.
    more = parse(synthetic_results(10, seed=10, players=8, prefix="after"))
    await store.apply(more)
    order = await store.applied_order()
    assert sorted(order) == sorted(r.match_id for r in [*results, *more])
    record = await client.get(store.match_key(more[0].match_id, more[0].preset))
    assert int(record.partition(b" ")[0]) > len(results)
    assert json.loads(record.partition(b" ")[2])["result"]["match_id"] == more[0].match_id
