"""engine_deadline_overdue_seconds, which the MatchesStalled alert reads (deploy/prometheus):
when more deadlines are due than a replica handles in one step, the lateness of the ones left
waiting is reported, and it falls back to 0 once they are handled."""

import asyncio
import time
from pathlib import Path

import prometheus_client
import redis.asyncio

from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.matches import EngineSettings
from maumau.engine.store import MatchStore
from tests.support.engine import start_engine, stop_engine

BATCH = 20  # deadlines one step of the loop claims


def overdue() -> float:
    return prometheus_client.REGISTRY.get_sample_value("engine_deadline_overdue_seconds") or 0.0


async def test_a_backlog_of_due_deadlines_is_reported_until_it_is_worked_off(
    tmp_path: Path,
) -> None:
    # A Redis of its own: the deadlines set is global, and other tests' matches must not count.
    with EmbeddedRedis(tmp_path / "redis") as server:
        client = redis.asyncio.Redis.from_url(server.url)
        late = time.time() - 120
        store = MatchStore(client)
        for n in range(BATCH + 5):
            await store.deadlines.set(f"gone-{n}", late + n)
        app, engine_client = await start_engine(server.url, EngineSettings())
        try:
            deadline = time.monotonic() + 10
            while overdue() < 90 and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert overdue() >= 90, "the deadlines left after the first step are reported late"
            # The matches do not exist: each is dropped or leased into the future once handled.
            deadline = time.monotonic() + 20
            while overdue() > 0 and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert overdue() == 0
        finally:
            await stop_engine(app, engine_client)
            await client.aclose()
