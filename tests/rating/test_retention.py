"""Nothing kept forever: an applied match's record (its place in players' histories and the
mark that it was applied) expires after the match retention; a history skips records gone, and
keeps no place for a match that finished a retention before the player's newest."""

from __future__ import annotations

import redis.asyncio

from maumau.rating.ladder import by_rated_id
from maumau.rating.store import RatingStore
from maumau.rating.synthetic import synthetic_results
from tests.rating.support import parse


async def test_match_records_expire_and_histories_skip_the_expired(
    client: redis.asyncio.Redis, tag: str
) -> None:
    store = RatingStore(client, tag, match_retention_seconds=86400)
    results = parse(synthetic_results(40, seed=11, span_days=0.5))
    applied = await store.apply(results)
    assert len(applied.applied) == 40
    ttls = [await client.ttl(store.match_key(r.match_id, r.preset)) for r in results]
    assert all(0 < ttl <= 86400 for ttl in ttls)
    # A player's history lists their kept matches; one that expired is left out.
    player = next(iter(by_rated_id(results[-1])))
    total, shown = await store.history(player, 0, 100)
    played = [r for r in results if player in by_rated_id(r)]
    assert total == len(played) == len(shown)
    gone = played[-1]
    await client.delete(store.match_key(gone.match_id, gone.preset))  # what its expiry does
    _, after = await store.history(player, 0, 100)
    assert len(after) == len(shown) - 1
    assert after == [m for m in shown if m["result"]["match_id"] != gone.match_id]


async def test_a_history_drops_matches_a_retention_older_than_its_newest_and_expires(
    client: redis.asyncio.Redis, tag: str
) -> None:
    store = RatingStore(client, tag, match_retention_seconds=86400)
    results = parse(synthetic_results(60, seed=12, players=8, span_days=6.0))
    await store.apply(results)
    for player in {rated_id for r in results for rated_id in by_rated_id(r)}:
        for preset in {r.preset for r in results if player in by_rated_id(r)}:
            key = store.history_key(player, preset)
            played = [r for r in results if r.preset == preset and player in by_rated_id(r)]
            newest = max(r.finished_at for r in played)
            kept = {m.decode() for m in await client.zrange(key, 0, -1)}
            # One batch per preset: what it trims is measured from the newest of them all.
            assert kept == {r.match_id for r in played if r.finished_at >= newest - 86400}
            assert 0 < await client.ttl(key) <= 86400
