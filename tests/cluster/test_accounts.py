"""Accounts on the Redis Cluster (issue 26): a username, its look-alikes and its sessions hold
across slots. Many players claiming one name (and look-alikes of it) at once through two
replicas: exactly one gets it, every other is ALREADY_EXISTS, and no key of the losers stays;
the winner's session token works on the engine, and signing it out ends it."""

from __future__ import annotations

import asyncio
import secrets

import grpc
import redis.asyncio

from maumau.common.redis_cluster import LocalCluster
from maumau.engine.app import EngineApp
from maumau.v1 import accounts_pb2 as pb
from maumau.v1 import engine_pb2, engine_pb2_grpc
from tests.accounts.support import Player, start_accounts, stop_accounts, trailer
from tests.support.rpc import auth


async def test_one_name_one_owner_on_a_cluster(
    redis_cluster: LocalCluster, engine: EngineApp, cluster_client: redis.asyncio.Redis
) -> None:
    address = f"127.0.0.1:{engine.port}"
    apps = [await start_accounts(redis_cluster.url, address) for _ in range(2)]
    try:
        tag = "".join(secrets.choice("abcdefghjkmnpqrstuvwxyz") for _ in range(6))
        wanted = [f"Ada{tag}", f"ADA{tag}", f"\u0410da{tag}", f"Ada{tag}".upper()] * 3
        players = [
            await Player.register(address, f"127.0.0.1:{apps[n % 2].port}")
            for n in range(len(wanted))
        ]

        async def claim(player: Player, name: str) -> str:
            try:
                await player.claim(name, "a passphrase of mine")
            except grpc.aio.AioRpcError as error:
                return str(trailer(error)["code"])
            return "ok"

        outcomes = await asyncio.gather(
            *(claim(p, n) for p, n in zip(players, wanted, strict=True))
        )
        assert sorted(outcomes) == ["ok"] + ["username_taken"] * (len(wanted) - 1), outcomes
        winner, won = players[outcomes.index("ok")], wanted[outcomes.index("ok")]
        engine_stub = engine_pb2_grpc.EngineServiceStub(winner.engine)
        await engine_stub.ListMatches(engine_pb2.ListMatchesRequest(), metadata=winner.auth)
        signed_in = await winner.stub.SignIn(
            pb.SignInRequest(username=won.lower(), password="a passphrase of mine")
        )
        await winner.stub.SignOut(
            pb.SignOutRequest(session_id=signed_in.signed_in.session_id), metadata=winner.auth
        )
        try:
            await engine_stub.ListMatches(
                engine_pb2.ListMatchesRequest(), metadata=auth(signed_in.signed_in.player_token)
            )
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.UNAUTHENTICATED
        else:
            raise AssertionError("a signed-out session's token still works")
        client = cluster_client
        owners = set()
        for key in [k async for k in client.scan_iter(match="account:*:{*}")]:
            owner = await client.get(key)
            if owner in {p.player_id.encode() for p in players}:
                owners.add(owner)
        assert owners == {winner.player_id.encode()}  # the losers gave back what they took
        for player in players:
            await player.close()
    finally:
        for app in apps:
            await stop_accounts(app)
