"""``python -m maumau.engine.migrate`` against a real Redis Cluster: the matches of an earlier
build sit on every master, and each is rewritten where it lives, with the replicas' WAIT."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid

import redis.asyncio

from maumau.common.redis_client import Durability
from maumau.common.redis_cluster import LocalCluster
from maumau.engine.keys import match_key
from maumau.engine.migrate import migrate_all
from maumau.engine.store import MatchStore
from tests.engine.test_migrate import old_record, write_the_old_way

PER_MASTER = 4
"""Old-format matches written on each of the three masters (each match is one slot)."""
MATCHES = 3 * PER_MASTER


def spread_ids(cluster_client: redis.asyncio.Redis) -> list[str]:
    """Match ids, :data:`PER_MASTER` owned by each master: random ids, kept until each has its
    share, so no master is left out by chance."""
    owned: dict[str, list[str]] = {}
    while len(owned) < 3 or any(len(ids) < PER_MASTER for ids in owned.values()):
        match_id = uuid.uuid4().hex
        ids = owned.setdefault(cluster_client.get_node_from_key(match_key(match_id)).name, [])
        if len(ids) < PER_MASTER:
            ids.append(match_id)
    return [match_id for ids in owned.values() for match_id in ids]


async def test_every_master_s_matches_are_rewritten(cluster_client: redis.asyncio.Redis) -> None:
    match_ids = spread_ids(cluster_client)
    for match_id in match_ids:
        await write_the_old_way(cluster_client, match_id)
    owners = {cluster_client.get_node_from_key(match_key(m)).name for m in match_ids}
    assert len(owners) == 3, "the matches are spread over every master"

    done = await migrate_all(cluster_client, Durability(cluster_client, 1, 2000))
    assert done["records"] >= MATCHES and done["event streams"] >= MATCHES

    store = MatchStore(cluster_client)
    for match_id in match_ids:
        stored = await store.load(match_id)
        assert stored is not None and stored.version == 4, match_id
        assert (await cluster_client.hget(match_key(match_id), "meta")).startswith(b"[")
        assert not await cluster_client.exists(f"{match_key(match_id)}:requests")
    assert not await migrate_all(cluster_client), "again: nothing left to rewrite"


def test_the_command_runs_against_the_engines_cluster(redis_cluster: LocalCluster) -> None:
    """The command with the engine's variables, REDIS_URL naming one node of the cluster."""
    match_id = uuid.uuid4().hex
    record = old_record(match_id)

    async def write() -> None:
        client = redis.asyncio.RedisCluster.from_url(redis_cluster.url)
        await client.hset(
            match_key(match_id), mapping={"version": 1, "meta": json.dumps(vars(record))}
        )
        await client.aclose()

    asyncio.run(write())
    env = {**os.environ, "REDIS_URL": redis_cluster.url}
    ran = subprocess.run(
        [sys.executable, "-m", "maumau.engine.migrate"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "records: 1" in ran.stdout, ran.stdout
