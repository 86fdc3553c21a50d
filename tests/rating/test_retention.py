"""Nothing kept forever: an applied match's record (its place in players' histories and the
mark that it was applied) expires after the match retention; a history skips records gone."""

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
    results = parse(synthetic_results(40, seed=11))
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
