"""A cluster node that fails under a match's deadline shard but not under the match itself
(issue "Scale out", durability through failover; the results-stream shard of the match shares
its deadline shard's slot). The final move is stored on the match's node while the deadline's
and the result's writes fail on the other. The call is refused with a retry hint, and the retry
with the same request id, once the node answers, gets the first answer and hands the result on
at once: not when the match's older deadline (its abandonment, hours away) comes due."""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import grpc
import pytest
import redis.asyncio

from maumau import wire
from maumau.common.redis_cluster import LocalCluster
from maumau.engine.app import EngineApp
from maumau.engine.keys import match_key
from maumau.engine.record import Status, Stored
from maumau.v1 import game_pb2
from tests.support.engine import (
    Client,
    acting,
    pick,
    result_entries,
    start_engine,
    stop_engine,
)

ONE_ROUND = {"target": "0"}


async def test_a_final_move_hands_its_result_on_while_its_deadlines_node_refuses_writes(
    redis_cluster: LocalCluster, cluster_client: redis.asyncio.Redis
) -> None:
    app, client = await start_engine(redis_cluster.url)
    address = f"127.0.0.1:{app.port}"
    seats = [await Client.register(address, f"deadline node player {n}") for n in range(2)]
    try:
        match_id, player, final = await final_action_of_a_match_apart(seats, app, cluster_client)
        store = app.matches.store
        deadlines_port = cluster_client.get_node_from_key(store.deadlines.key_of(match_id)).port
        request_id = uuid.uuid4().hex

        async with refusing_writes(deadlines_port):
            for _ in range(2):  # the retry too, while the node refuses
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await player.act(match_id, final, request_id)
                assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
                assert "retry with the same request id" in (refused.value.details() or "")
            stored = await store.load(match_id)  # the move itself is stored
            assert stored is not None and stored.record.status == Status.OVER
            assert not await store.published(match_id)

        answer = await player.act(match_id, final, request_id)  # the retry, the node back
        assert answer.view.phase == "over"
        assert await store.published(match_id)
        assert len(await result_entries(cluster_client, store, match_id)) == 1
        assert await store.deadlines.due(match_id) is None  # finished: nothing left to come due
    finally:
        for seat in seats:
            await seat.close()
        await stop_engine(app, client)


async def final_action_of_a_match_apart(
    seats: list[Client], app: EngineApp, cluster: redis.asyncio.Redis
) -> tuple[str, Client, game_pb2.Action]:
    """A match of one round between the two ``seats`` whose deadline shard lies on another
    master than the match, played up to where one of the legal actions of the seat to act ends
    it (as the rules core says). The match, that seat and that action, not played yet. No bot
    plays: the setup moves only when the test does, so no deadline of the match is due in it."""
    store = app.matches.store
    rng = random.Random(7)
    for _ in range(100):
        match = await seats[0].create("classic", 2, auto_start=True, options=ONE_ROUND)
        match_id = match.match_id
        deadlines = cluster.get_node_from_key(store.deadlines.key_of(match_id)).port
        if cluster.get_node_from_key(match_key(match_id)).port == deadlines:
            continue
        await seats[1].join(match_id)
        return match_id, *await play_until_one_action_ends(match_id, seats, app, rng)
    raise AssertionError("no match of 100 apart from its deadlines")


async def play_until_one_action_ends(
    match_id: str, seats: list[Client], app: EngineApp, rng: random.Random
) -> tuple[Client, game_pb2.Action]:
    """Play both seats up to a turn where one of the acting seat's legal actions ends the
    match; that seat and that action."""
    for _ in range(5_000):
        views = [await seat.view(match_id) for seat in seats]
        assert views[0].phase != "over", "a match ended without a move of the test's"
        for seat, view in zip(seats, views, strict=True):
            if not acting(view):
                continue
            stored = await app.matches.load(match_id)
            for action in view.legal:
                trial = Stored(stored.record.copy(), stored.state, stored.version)
                change = app.matches.move(trial, view.seat, wire.action_from_pb(action))
                if change.record.status == Status.OVER:
                    return seat, action
            await seat.act(match_id, pick(view, rng))
            break
    raise AssertionError(f"match {match_id}: not over within 5,000 moves")


@asynccontextmanager
async def refusing_writes(port: int) -> AsyncIterator[None]:
    """The master on ``port`` refuses every write (it asks for more replicas than it has), as a
    failing node does to the commands sent to it, until the block ends."""
    node = redis.asyncio.Redis(port=port)
    try:
        await node.config_set("min-replicas-to-write", 5)
        yield
    finally:
        await node.config_set("min-replicas-to-write", 0)
        await node.aclose()
