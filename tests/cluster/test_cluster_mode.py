"""Every service on a Redis Cluster: REDIS_URL names any one node, the platform finds out it is a
cluster and uses the cluster client; health says SERVING only while the store serves its calls."""

import asyncio
import dataclasses
import random
import uuid
from datetime import UTC, datetime

import grpc
import pytest
import redis.asyncio
from redis.exceptions import MovedError

from maumau.common.ratings import rating_key
from maumau.common.redis_client import (
    Call,
    Durability,
    Script,
    StoreError,
    connect,
    is_cluster,
    keyed_probe,
    probe_keys,
)
from maumau.common.redis_cluster import LocalCluster
from maumau.common.redis_server import EmbeddedRedis
from maumau.engine.app import EngineApp
from maumau.engine.matches import EngineSettings
from maumau.rating.ladder import Result
from maumau.rating.store import RatingStore
from maumau.rating.synthetic import synthetic_results
from maumau.v1 import game_pb2
from tests.support.engine import SECRET, Client, engine_config, follow, play_to_the_end
from tests.support.polling import eventually
from tests.support.rpc import NOT_SERVING, SERVING, health

BOTS = dict.fromkeys((1, 2, 3), game_pb2.BOT_LEVEL_RANDOM)


async def test_any_node_of_the_cluster_gives_a_cluster_client(redis_cluster: LocalCluster):
    for node in redis_cluster.nodes:
        client = await connect(node.url)
        try:
            assert is_cluster(client)
            # Keys of every slot answer, whichever node holds them.
            for n in range(50):
                await client.set(f"any-node:{{{n}}}", n)
                assert await client.get(f"any-node:{{{n}}}") == str(n).encode()
        finally:
            await client.aclose()


async def test_a_single_redis_gives_a_plain_client(redis_server: EmbeddedRedis):
    client = await connect(redis_server.url)
    try:
        assert not is_cluster(client)
        assert Durability(client).min_replicas == 0
    finally:
        await client.aclose()


async def test_writes_wait_for_one_replica_on_a_cluster_with_replicas(cluster_client):
    assert Durability(cluster_client).min_replicas == 1
    assert Durability(cluster_client, min_replicas=0).min_replicas == 0


async def test_the_probe_reads_a_key_on_every_master(redis_cluster, cluster_client):
    nodes = {cluster_client.get_node_from_key(key).port for key in probe_keys(cluster_client)}
    assert nodes == set(redis_cluster.master_ports())


async def test_a_match_with_bots_is_played_to_the_end_on_the_cluster(cluster_client):
    app = EngineApp(cluster_client, engine_config(), SECRET, poll_seconds=0.01)
    await app.start()
    address = f"127.0.0.1:{app.port}"
    player = await Client.register(address, "cluster player")
    try:
        await eventually(lambda: _reports(address, SERVING), 10, "SERVING")
        match = await player.create(
            "classic", 4, bots=BOTS, auto_start=True, options={"target": "0"}
        )
        following = asyncio.create_task(
            follow(address, player.seat_tokens[match.match_id], match.match_id, 60)
        )
        views = await play_to_the_end(match.match_id, [player], random.Random(13))
        assert views[-1].phase == "over"
        # Followed live from the first event to the last, on the cluster too.
        events = await following
        assert events[-1].event.WhichOneof("kind") == "seed_revealed"
        assert [e.id for e in events] == sorted({e.id for e in events}, key=events_order)
    finally:
        await player.close()
        await app.stop(0)


async def test_health_says_not_serving_when_a_plain_client_meets_a_cluster(redis_cluster):
    """The failure as a user met it: a single-Redis client pointed at one node said SERVING
    while every call on another node's slots failed with MOVED."""
    plain = redis.asyncio.Redis.from_url(redis_cluster.url)
    try:
        with pytest.raises(MovedError):
            await keyed_probe(plain)()
        app = EngineApp(plain, engine_config(), SECRET)
        await app.start()
        try:
            assert await health(f"127.0.0.1:{app.port}") == NOT_SERVING
        finally:
            await app.stop(0)
    finally:
        await plain.aclose()


async def test_a_write_short_of_its_replicas_is_refused_with_a_retry_hint(redis_server):
    """A single Redis has no replica: asking for one makes every commit UNAVAILABLE, never a
    silent success, and the retry with the same request id gets the same answer."""
    client = redis.asyncio.Redis.from_url(redis_server.url)
    settings = EngineSettings(bot_delay_seconds=0, min_replicas=1, wait_ms=50)
    app = EngineApp(client, engine_config(), SECRET, settings)
    await app.start()
    player = await Client.register(f"127.0.0.1:{app.port}", "needs a replica")
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await player.create("classic", 2, bots={1: game_pb2.BOT_LEVEL_RANDOM})
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "retry with the same request id" in refused.value.details()
    finally:
        await player.close()
        await app.stop(0)
        await client.aclose()


async def test_health_follows_a_master_that_dies_and_its_replica_taking_over(tmp_path):
    with LocalCluster(tmp_path / "cluster") as cluster:
        client = await connect(cluster.url)
        app = EngineApp(client, engine_config(), SECRET)
        await app.start()
        address = f"127.0.0.1:{app.port}"
        try:
            await eventually(lambda: _reports(address, SERVING), 10, "SERVING")
            victim = cluster.node_on(cluster.master_ports()[0])
            victim.kill()
            await eventually(lambda: _reports(address, NOT_SERVING), 10, "NOT_SERVING")
            await eventually(lambda: _reports(address, SERVING), 30, "SERVING after failover")
            victim.start()
            cluster.wait_until_healthy()
        finally:
            await app.stop(0)
            await client.aclose()


async def _reports(address: str, status: int) -> bool:
    return await health(address) == status


def events_order(event_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in event_id.split("-"))


async def test_a_batch_of_every_preset_is_rated_and_published_on_the_cluster(cluster_client):
    """On a cluster each preset's script goes to its own slot's master (with WAIT for its
    replica), and the queue's ratings are written to the players' own slots."""
    tag = f"rating-cluster-{uuid.uuid4().hex[:8]}"
    store = RatingStore(cluster_client, tag)
    now = datetime.now(UTC).timestamp()
    prefix = uuid.uuid4().hex[:8]
    batch = [
        Result.from_pb(message)
        for message in synthetic_results(40, seed=5, ranked=1.0, prefix=prefix, span_days=0.0)
    ]
    batch = [dataclasses.replace(r, finished_at=now) for r in batch]
    assert len({r.preset for r in batch}) > 1
    outcome = await store.apply(batch)
    assert sorted(outcome.applied) == sorted(r.match_id for r in batch)
    again = await store.apply(batch)
    assert again.applied == [] and sorted(again.duplicates) == sorted(outcome.applied)
    last = batch[-1]
    rated_id = next(iter(last.rated))
    state = (await store.player(rated_id)).presets[last.preset]  # type: ignore[union-attr]
    skill = state.skill(last.season)
    assert skill is not None
    published = await cluster_client.get(rating_key(last.preset, rated_id))
    assert published is not None and float(published) == skill.ordinal


INCR = Script("test.cluster_incr", "return redis.call('INCRBY', KEYS[1], ARGV[1])")
READ_HASH = Script("test.cluster_read_hash", "return redis.call('HGET', KEYS[1], 'f')")


async def test_the_script_runner_answers_calls_of_every_node_in_order(cluster_client):
    """One round trip over the slots of every master, each call followed by WAIT on its own
    node: a WRONGTYPE among them is a StoreError in its place and the calls after it are
    answered; a script the nodes lost is loaded and its calls sent again."""
    durability = Durability(cluster_client)
    assert durability.min_replicas == 1
    tags = [f"runner-{n}-{uuid.uuid4().hex[:6]}" for n in range(9)]
    nodes = {cluster_client.get_node_from_key(f"{{{tag}}}:n").name for tag in tags}
    assert len(nodes) > 1
    await cluster_client.set(f"{{{tags[4]}}}:text", "x")
    calls = [
        Call(READ_HASH, [f"{{{tag}}}:text"], wait=True)
        if n == 4
        else Call(INCR, [f"{{{tag}}}:n"], [n], wait=True)
        for n, tag in enumerate(tags)
    ]
    await cluster_client.script_flush()
    replies = await durability.replies(calls)
    assert [reply for n, reply in enumerate(replies) if n != 4] == [n for n in range(9) if n != 4]
    assert isinstance(replies[4], StoreError) and "script test.cluster_read_hash" in str(replies[4])
    assert replies[4].keys == [f"{{{tags[4]}}}:text"]
