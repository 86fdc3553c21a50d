"""Nothing kept forever: an applied match's record (its place in players' histories and the
mark that it was applied) expires after the match retention; a history skips records gone, and
keeps no place for a match that finished a retention before the player's newest."""

from __future__ import annotations

import itertools

import redis.asyncio

from maumau.rating.ladder import by_rated_id
from maumau.rating.store import HISTORY_KEPT, RatingStore
from maumau.rating.synthetic import synthetic_results
from tests.rating.support import JANUARY_2025, parse, result, seat


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


async def test_a_history_keeps_its_newest_matches_and_never_twice_as_many(
    client: redis.asyncio.Redis, tag: str
) -> None:
    """A history is trimmed to the newest HISTORY_KEPT each time the player's count of matches
    in the preset passes a multiple of it (counted in the player's state, not in the history):
    whatever the batches, it never holds twice as many, and always the newest."""
    store = RatingStore(client, tag)
    matches = [
        result([seat(0, "ada", winner=True), seat(1, f"p{n % 9}")], finished_at=JANUARY_2025 + n)
        for n in range(3 * HISTORY_KEPT + 7)
    ]
    key = store.history_key("ada", "classic")
    done = 0
    for size in itertools.cycle([1, 37, 99, 13, 64]):
        batch = parse(matches[done : done + size])
        if not batch:
            break
        await store.apply(batch)
        done += len(batch)
        kept = [m.decode() for m in await client.zrange(key, 0, -1)]
        assert min(done, HISTORY_KEPT) <= len(kept) < 2 * HISTORY_KEPT
        assert kept == [r.match_id for r in parse(matches[done - len(kept) : done])]
    total, shown = await store.history("ada", 0, HISTORY_KEPT)
    assert total == HISTORY_KEPT
    assert [m["result"]["match_id"] for m in shown] == [m.match_id for m in matches[::-1]][
        :HISTORY_KEPT
    ]
