"""A tournaments replica SIGKILLed mid-block (docs/architecture.md, "Services are stateless; Redis
holds every match": a tournament's state, too, lives in Redis): the other replica takes the
tournament over after the lease, no block is started twice and no round counted twice, and the
tournament ends with the same invariants."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.tournaments.worker import Hooks
from maumau.v1 import tournaments_pb2 as pb
from maumau.v1 import tournaments_pb2_grpc
from tests.support.engine import SECRET
from tests.support.polling import eventually
from tests.tournaments.conftest import StartTournaments
from tests.tournaments.support import engine_rounds, follow, scores_after
from tests.tournaments.test_tournament import bot_tournament, check_played

ROOT = Path(__file__).resolve().parents[2]


def replica(redis_server: EmbeddedRedis, engine_address: str, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "REDIS_URL": redis_server.url,
        "MAUMAU_TOKEN_SECRET": SECRET.decode(),
        "MAUMAU_TOURNAMENTS_PORT": str(port),
        "MAUMAU_TOURNAMENTS_METRICS_PORT": "0",
        "MAUMAU_TOURNAMENTS_ENGINE_ADDRESS": engine_address,
        "MAUMAU_TOURNAMENTS_LEASE_SECONDS": "1.5",
        "MAUMAU_TOURNAMENTS_TICK_SECONDS": "0.05",
        "MAUMAU_TOURNAMENTS_RESULTS_CLAIM_IDLE_SECONDS": "2",
        "MAUMAU_TOURNAMENTS_MAX_PER_ORGANIZER": "50",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "maumau.tournaments"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def serving(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError(f"replica on port {port} did not start")


async def test_a_replica_killed_mid_block_leaves_the_tournament_to_the_other(
    redis_server: EmbeddedRedis, redis_client: object, engine_address: str
) -> None:
    ports = [free_port(), free_port()]
    first = replica(redis_server, engine_address, ports[0])
    second: subprocess.Popen[bytes] | None = None
    try:
        await serving(ports[0])
        async with grpc.aio.insecure_channel(f"127.0.0.1:{ports[0]}") as channel:
            stub = tournaments_pb2_grpc.TournamentsServiceStub(channel)
            tournament_id = await bot_tournament(stub, "Storm cup")
            # Wait until the second block is being played: rounds of block 1 are coming in.
            async for message in stub.FollowTournament(
                pb.FollowTournamentRequest(tournament_id=tournament_id)
            ):
                event = message.event
                r = event.round_result
                if event.HasField("round_result") and r.block == 1 and r.round == 2:
                    break
        second = replica(redis_server, engine_address, ports[1])
        await serving(ports[1])
        first.send_signal(signal.SIGKILL)
        first.wait()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{ports[1]}") as channel:
            stub = tournaments_pb2_grpc.TournamentsServiceStub(channel)
            played = await follow(stub, tournament_id)
            standings = (
                await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tournament_id))
            ).standings
            assert played.final() == standings
            await check_played(played, standings, engine_address)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()


async def test_a_creation_cut_short_by_a_dying_replica_is_repeated_into_the_same_match(
    replicas: StartTournaments, redis_client: object, engine_address: str
) -> None:
    """A replica dies after the engine made a table's match and before the tournament recorded
    it (a table of bots only, which no player's match list can reveal). The replica that takes
    over repeats the creation with the recorded request id and gets that same match: no table
    is created twice, and the tournament plays out with the usual invariants."""
    created: list[str] = []

    async def die_after_creating(tournament_id: str, match_id: str) -> None:
        created.append(match_id)
        await asyncio.Event().wait()  # the replica dies here: the match exists, unrecorded

    first = await replicas(hooks=Hooks(after_create=die_after_creating))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{first.port}") as channel:
        tournament_id = await bot_tournament(
            tournaments_pb2_grpc.TournamentsServiceStub(channel), "Cut short", entrants=4
        )

        async def made() -> bool:
            return bool(created)

        await eventually(made, 30, "the first table's match created")
    await first.kill()
    takeovers = REGISTRY.get_sample_value("tournaments_match_takeovers_total") or 0.0
    second = await replicas()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{second.port}") as channel:
        stub = tournaments_pb2_grpc.TournamentsServiceStub(channel)
        played = await follow(stub, tournament_id)
        standings = (
            await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tournament_id))
        ).standings
    started = [e.block_started for e in played.events if e.HasField("block_started")]
    assert started[0].match_id == created[0]
    assert len({s.match_id for s in started}) == len(started) == 4  # 4 blocks of one table
    assert REGISTRY.get_sample_value("tournaments_match_takeovers_total") == takeovers + 1
    # The standings are the engine's round scores of those four matches, 20 rounds each.
    await engine_rounds(engine_address, played)
    points, maumaus, rounds = scores_after(played, 4)
    assert {
        row.entrant_id: (row.points, row.maumaus, row.rounds_played) for row in standings.rows
    } == {entrant: (points[entrant], maumaus[entrant], 20) for entrant in points}
    assert set(rounds.values()) == {20}
