"""The bot arena's pool over the shared real redis-server (issue 27, "The bot arena"): entries
that keep their place and expire when not renewed, claims of a table's bots all or none across
replicas, leases that run out when a replica dies, a bot back in the pool after its match unless
it left, strikes and pauses that keep a bot out of the tables."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
import redis.asyncio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau.common import daily_limits
from maumau.matchmaking.arena import ArenaRules, arena_tables, strikes_pause
from maumau.matchmaking.arena_pool import ArenaPool
from tests.matchmaking.support import listening

RULES = ArenaRules(strikes_to_pause=3, strike_window_seconds=3600, pause_seconds=600)


@pytest.fixture
def preset() -> str:
    """A pool of this test's own (the layer stores any preset name it is given)."""
    return f"test-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def pool(client: redis.asyncio.Redis) -> ArenaPool:
    return ArenaPool(client, entry_ttl=30)


async def test_a_bot_keeps_its_place_while_it_renews_and_leaves_when_its_entry_expires(
    client, pool, preset
):
    await pool.join("early", preset, [2, 4], now=100.0)
    await pool.join("late", preset, [2], now=200.0)
    await pool.join("early", preset, [4], now=300.0)  # renewed: place kept, counts changed
    waiting = {e.bot_id: e for e in await pool.waiting(preset, now=300.0)}
    assert (waiting["early"].waiting_since, waiting["early"].seat_counts) == (100.0, (4,))
    assert waiting["late"].waiting_since == 200.0
    assert 0 < await client.ttl(pool.entry_key(preset, "early")) <= 30, "nothing kept forever"

    await client.delete(pool.entry_key(preset, "late"))  # as its TTL would
    assert [e.bot_id for e in await pool.waiting(preset, now=300.0)] == ["early"]
    assert await client.zscore(pool.pool_key(preset), "late") is None, "dropped from the pool"
    assert await pool.leave("early", preset) and not await pool.leave("early", preset)
    assert await pool.waiting(preset, now=300.0) == []


async def test_a_bot_is_back_after_its_match_unless_it_left(pool, preset):
    for bot in ("stays", "goes"):
        await pool.join(bot, preset, [2], now=10.0)
    assert await pool.claim(preset, ["stays", "goes"], now=20.0, lease_end=30.0)
    await pool.extend(preset, ["stays", "goes"], lease_end=3600.0)  # the match was created
    assert await pool.waiting(preset, now=40.0) == [], "playing: not free to be seated"
    assert not await pool.claim(preset, ["stays"], now=40.0, lease_end=50.0), "seated once"
    await pool.leave("goes", preset)
    assert await pool.requeue("stays", preset, now=50.0) == 1
    assert await pool.requeue("goes", preset, now=50.0) == 0, "left: out of the pool"
    assert await pool.requeue("stranger", preset, now=50.0) == -1, "no lease held"
    [entry] = await pool.waiting(preset, now=60.0)
    assert (entry.bot_id, entry.waiting_since) == ("stays", 50.0)


async def test_the_bots_of_a_replica_that_died_after_claiming_are_free_when_its_lease_ends(
    pool, preset
):
    for bot in ("a", "b"):
        await pool.join(bot, preset, [2], now=0.0)
    assert await pool.claim(preset, ["a", "b"], now=1.0, lease_end=11.0)  # then nothing
    assert await pool.waiting(preset, now=10.0) == []
    assert {e.bot_id for e in await pool.waiting(preset, now=11.0)} == {"a", "b"}
    assert await pool.claim(preset, ["a", "b"], now=12.0, lease_end=22.0), "another replica"


async def test_repeated_strikes_pause_a_bot_out_of_the_tables(pool, preset):
    bot, other = f"sleepy-{preset}", f"awake-{preset}"
    for name in (bot, other):
        await pool.join(name, preset, [2], now=0.0)
    await listening(pool.redis, bot, other)
    strikes: list[float] = []
    for n in range(3):
        strikes = await pool.strike(bot, f"match-{n}", now=1000.0 + n, window=3600)
    assert await pool.strike(bot, "match-2", now=1002.0, window=3600) == strikes, "once a match"
    until = strikes_pause(strikes, RULES, now=1002.0)
    assert until == 1602.0
    await pool.pause(bot, until, now=1002.0)
    waiting = await pool.waiting(preset, now=1002.0)
    assert {e.bot_id: e.paused_until for e in waiting} == {bot: 1602.0, other: 0.0}
    assert arena_tables(waiting, RULES, now=1100.0) == []
    assert len(arena_tables(waiting, RULES, now=1602.0)) == 1


async def test_a_bot_not_listening_or_at_its_daily_limit_waits_unseated(pool, preset):
    """issue 27: only a bot whose event stream is open hears of a seat, so only it is seated;
    a bot's bot-vs-bot matches today (the daily limit's count, challenges' too) keep it out
    once they reach the limit."""
    deaf, busy, keen = (f"{name}-{preset}" for name in ("deaf", "busy", "keen"))
    now = time.time()
    for bot in (deaf, busy, keen):
        await pool.join(bot, preset, [2], now=now)
    await listening(pool.redis, busy, keen)
    rules = ArenaRules(daily_matches=2)
    for _ in range(2):
        await daily_limits.spend(pool.redis, busy, daily_limits.BOT_MATCHES, 2, now)
    waiting = {e.bot_id: e for e in await pool.waiting(preset, now)}
    assert {bot: (e.online, e.matches_today) for bot, e in waiting.items()} == {
        deaf: (False, 0),
        busy: (True, 2),
        keen: (True, 0),
    }
    assert arena_tables(list(waiting.values()), rules, now) == [], "keen has nobody to play"
    assert await pool.count(preset, now) == 3
    await listening(pool.redis, deaf)
    [table] = arena_tables(await pool.waiting(preset, now), rules, now)
    assert {bot for bot, _ in table.seating} == {deaf, keen}


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.lists(st.integers(0, 9), min_size=2, max_size=4, unique=True), min_size=2, max_size=8
    )
)
async def test_concurrent_claims_seat_no_bot_twice(redis_server, tables) -> None:
    """Replicas (each with its own connections) claiming overlapping tables at once: each bot
    goes to one table at most, and a table is claimed whole or not at all."""
    preset = f"test-{uuid.uuid4().hex[:10]}"
    clients = [redis.asyncio.Redis.from_url(redis_server.url) for _ in range(3)]
    try:
        replicas = [ArenaPool(c) for c in clients]
        for n in range(10):
            await replicas[0].join(f"b{n}", preset, [2, 3, 4], now=float(n))
        names = [[f"b{n}" for n in table] for table in tables]
        won = await asyncio.gather(
            *(
                replicas[k % 3].claim(preset, table, now=20.0, lease_end=60.0)
                for k, table in enumerate(names)
            )
        )
        claimed = [bot for table, ok in zip(names, won, strict=True) if ok for bot in table]
        assert len(claimed) == len(set(claimed)) and any(won)
        left = {e.bot_id for e in await replicas[0].waiting(preset, now=30.0)}
        assert left == {f"b{n}" for n in range(10)} - set(claimed)
    finally:
        for c in clients:
            await c.aclose()
