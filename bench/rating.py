"""The rating service's results consumer, measured against raw openskill in the same run.

- End to end: synthetic ranked results (500 players, 2-8 seats, a quarter of the seats bots,
  colour partly in teams) are XADDed to a results stream, then one consumer (the service's own
  ResultsConsumer and RatingStore, production batch size) reads, applies and acknowledges them
  until every one is applied. Timed from the first XADD to the last acknowledgement, in rounds of
  ROUND results on a real redis-server with the append-only file on (``everysec``).
- Raw: ``PlackettLuce().rate(teams, ranks=...)`` on the same matches (the same team sizes and
  places), the rating objects built beforehand: the bare rating update each result needs.

``python -m bench.rating [seconds]`` runs it alone.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from typing import Any

import redis.asyncio

from maumau.common.config import ConsumerSettings
from maumau.common.redis_server import EmbeddedRedis
from maumau.common.results import result_entry
from maumau.rating.consumer import ResultsConsumer
from maumau.rating.ladder import MODEL, Result, places, side_of
from maumau.rating.settings import Settings
from maumau.rating.store import RatingStore
from maumau.rating.synthetic import synthetic_results

ROUND = 2000
PLAYERS = 500


def raw_rate_per_second(results: list[Result], seconds: float) -> float:
    """Bare ``rate()`` calls per second over the matches of ``results``, round and round."""
    matches: list[tuple[list[list[Any]], list[float]]] = []
    for result in results:
        place = places(result)
        sides: dict[int, list[int]] = {}
        for seat in result.seats:
            sides.setdefault(side_of(result, seat), []).append(seat.seat)
        teams = [[MODEL.rating() for _ in side] for side in sides.values()]
        matches.append((teams, [float(place[side[0]]) for side in sides.values()]))
    calls, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for teams, ranks in matches[:500]:
            MODEL.rate(teams, ranks=ranks)
        calls += len(matches[:500])
        matches = matches[500:] + matches[:500]
    return calls / elapsed


async def applied_per_second(url: str, seconds: float) -> float:
    """Results applied per second end to end, in rounds of ROUND until ``seconds`` have passed."""
    client = redis.asyncio.Redis.from_url(url)
    store = RatingStore(client, "bench")
    batch = Settings.model_fields["batch"].default
    consumer = ResultsConsumer(
        client, store, ConsumerSettings("bench", batch=batch), stream="bench:results"
    )
    await consumer.ensure_group()
    applied, busy, seed = 0, 0.0, 0
    try:
        while busy < seconds:
            seed += 1
            results = synthetic_results(ROUND, seed=seed, players=PLAYERS, ranked=1.0)
            started = time.perf_counter()
            async with client.pipeline(transaction=False) as pipe:
                for result in results:
                    pipe.xadd(consumer.stream, result_entry(result))  # type: ignore[arg-type]
                await pipe.execute()
            done = 0
            while done < ROUND:
                done += await consumer.consume_new()
            busy += time.perf_counter() - started
            applied += done
    finally:
        await client.aclose()
    return applied / busy


def bench_rating(seconds: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder, EmbeddedRedis(folder) as server:
        end_to_end = asyncio.run(applied_per_second(server.url, seconds))
    results = [Result.from_pb(m) for m in synthetic_results(ROUND, players=PLAYERS, ranked=1)]
    raw = raw_rate_per_second(results, seconds)
    ratio = end_to_end / raw
    print("rating, ranked results (2-8 seats, bots, colour teams), one consumer:")
    print(f"  end to end (XADD, XREADGROUP, apply, XACK): {end_to_end:9,.0f} results/s")
    print(f"  raw openskill PlackettLuce.rate():          {raw:9,.0f} matches/s")
    print(f"  end to end / raw = {ratio:.2f} (goal >= 0.5)")
    return {
        "rating.applied_per_s": end_to_end,
        "rating.openskill_rate_per_s": raw,
        "ratio.rating_applied_vs_openskill_rate": ratio,
    }


if __name__ == "__main__":
    bench_rating(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0)
