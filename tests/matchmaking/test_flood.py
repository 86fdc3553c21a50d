"""A flood of tickets in distinct queues (issue 10, finding 5): the matchmaker visits only the
queues holding live tickets, so once the flood's tickets are gone a tick costs what the
legitimate queues cost, and the queues' keys and registry entries go after the retention.
And a player's enqueues are rate-limited."""

from __future__ import annotations

import asyncio

import grpc
import pytest
import redis.asyncio
from prometheus_client import REGISTRY

from maumau.common.errors import RETRY_AFTER_KEY
from maumau.matchmaking.queue import ACTIVE, FORGET
from tests.matchmaking.support import Player, StartMatchmaker
from tests.support.polling import eventually

FLOOD = 300


def sample(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


async def test_a_flood_of_queues_costs_nothing_once_its_tickets_are_gone(
    matchmakers: StartMatchmaker, redis_client: redis.asyncio.Redis
) -> None:
    app = await matchmakers(retention_seconds=1.0)
    address = f"127.0.0.1:{app.port}"
    channel_owner = Player.connect("flooder-0", address)
    flooders = [channel_owner]
    flooders += [Player.on(f"flooder-{n}", channel_owner.channel) for n in range(1, FLOOD)]
    # One ticket in each of FLOOD distinct queues (a target of its own), none of which can form
    # a table, each waiting at most a few seconds.
    await asyncio.gather(
        *(
            player.enqueue(f"classic target={n + 101}", seat_counts=[2], max_wait_seconds=4)
            for n, player in enumerate(flooders)
        )
    )
    assert await redis_client.zcard(ACTIVE) > FLOOD // 2  # the first may have expired already

    await eventually(lambda: _empty(redis_client, ACTIVE), 20, "the flood's tickets expired")

    # A legitimate pair is seated, each tick visiting their one queue only.
    ticks, visits = sample("matchmaking_ticks_total"), sample("matchmaking_queue_visits_total")
    pair = [Player.connect(f"fair-{n}", address) for n in "ab"]
    tickets = [await p.enqueue("classic", seat_counts=[2]) for p in pair]
    finals = [(await p.follow(t.ticket_id))[-1] for p, t in zip(pair, tickets, strict=True)]
    assert {t.state for t in finals} == {"seated"}
    ticks_run = sample("matchmaking_ticks_total") - ticks
    visited = sample("matchmaking_queue_visits_total") - visits
    assert ticks_run > 0
    assert visited <= ticks_run, f"{visited} queues visited in {ticks_run} ticks"

    # After the retention, the queues leave nothing behind: no ticket, no registry entry.
    await eventually(lambda: _nothing_left(redis_client), 60, "every ended ticket forgotten")
    for player in [channel_owner, *pair]:
        await player.close()


async def _empty(client: redis.asyncio.Redis, key: str) -> bool:
    return await client.zcard(key) == 0


async def _nothing_left(client: redis.asyncio.Redis) -> bool:
    queue_keys = [key async for key in client.scan_iter(match="mm:{*}:*", count=1000)]
    return not queue_keys and await _empty(client, FORGET) and await _empty(client, ACTIVE)


async def test_enqueues_past_a_players_rate_are_refused_with_a_retry_hint(
    matchmakers: StartMatchmaker,
) -> None:
    app = await matchmakers(rate_per_player="2/minute")
    player = Player.connect("impatient", f"127.0.0.1:{app.port}")
    for _ in range(2):
        ticket = await player.enqueue("classic", seat_counts=[4])
        await player.cancel(ticket.ticket_id)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await player.enqueue("classic", seat_counts=[4])
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "Enqueue" in (refused.value.details() or "")
    trailers = dict(refused.value.trailing_metadata() or ())
    assert 0 < int(trailers[RETRY_AFTER_KEY]) <= 60_000
    # Nothing was queued by the refused call: the latest ticket is the cancelled one.
    assert (await player.get()).ticket_id == ticket.ticket_id
    await player.close()
