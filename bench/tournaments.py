"""A 64-entrant bot tournament (8 tables of 8, 20 rounds in blocks of 5) from start to champion.

Real processes over a real ``redis-server``: one engine (``python -m maumau.engine``, bots moving
without a pause inside the engine) and one tournaments replica (``python -m maumau.tournaments``).
The reference, in the same run on the same engine: the same amount of play without the
tournament, i.e. 8 plain 8-seat bot matches of 20 rounds played at once.

Figures: wall time from the start to the final ranking, engine moves per second during it (from
the engine's ``engine_moves_total``), the ratio of the tournament's wall time to the reference's
(what running it as a tournament costs: table changes, blocks, counting), and Redis memory per
tournament (its own keys, and with its engine matches).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import grpc
import redis.asyncio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.engine import UNLIMITED, process, until_ready
from maumau.common import tokens
from maumau.common.redis_server import EmbeddedRedis, free_port
from maumau.v1 import engine_pb2, engine_pb2_grpc, game_pb2, tournaments_pb2_grpc
from maumau.v1 import tournaments_pb2 as pb

SECRET = "bench-tournaments-" + "x" * 32
ENTRANTS = 64


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def engine_moves(metrics_port: int) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics").read().decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("engine_moves_total{")
    )


async def serving(address: str) -> bool:
    async with grpc.aio.insecure_channel(address) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=1
        )
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


async def plain_matches(engine: str, secret: bytes) -> float:
    """Seconds for 8 bot matches of 8 seats and 20 rounds, played at once."""
    service = auth(tokens.issue_service_token(secret, "bench"))
    spectator = auth(tokens.issue_player_token(secret, "bench-spectator"))
    async with grpc.aio.insecure_channel(engine) as channel:
        stub = engine_pb2_grpc.EngineServiceStub(channel)

        async def one() -> None:
            created = await stub.CreateMatch(
                engine_pb2.CreateMatchRequest(
                    ruleset=game_pb2.Ruleset(preset="ostfriesland", options={"rounds": "20"}),
                    seats=8,
                    bots={seat: game_pb2.BOT_LEVEL_HEURISTIC for seat in range(8)},
                    auto_start=True,
                ),
                metadata=service,
            )
            async for _ in stub.Follow(
                engine_pb2.FollowRequest(match_id=created.match.match_id), metadata=spectator
            ):
                pass

        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(8)))
        return time.perf_counter() - started


async def tournament(address: str, secret: bytes) -> tuple[str, float, list[str]]:
    """Create, fill and start the tournament; seconds from the start to the final ranking."""
    organizer = auth(tokens.issue_player_token(secret, "bench-organizer"))
    async with grpc.aio.insecure_channel(address) as channel:
        stub = tournaments_pb2_grpc.TournamentsServiceStub(channel)
        created = (
            await stub.CreateTournament(
                pb.CreateTournamentRequest(name="Bench cup", ranked=True, turn_seconds=0),
                metadata=organizer,
            )
        ).tournament
        tid = created.tournament_id
        for number in range(ENTRANTS):
            await stub.RegisterEntrant(
                pb.RegisterEntrantRequest(tournament_id=tid, bot_name=f"Bot {number:02d}"),
                metadata=organizer,
            )
        started = time.perf_counter()
        await stub.StartTournament(pb.StartTournamentRequest(tournament_id=tid), metadata=organizer)
        matches = []
        async for message in stub.FollowTournament(pb.FollowTournamentRequest(tournament_id=tid)):
            event = message.event
            if event.HasField("block_started"):
                matches.append(event.block_started.match_id)
            if event.HasField("deciding_round") and not event.deciding_round.points:
                matches.append(event.deciding_round.match_id)
            if event.HasField("final_ranking"):
                break
        return tid, time.perf_counter() - started, matches


async def memory(client: redis.asyncio.Redis, tid: str, matches: list[str]) -> tuple[int, int]:
    """Bytes of the tournament's own keys, and of its engine matches' keys."""
    own = 0
    for key in (f"tour:{{{tid}}}", f"tour:{{{tid}}}:events"):
        own += await client.memory_usage(key) or 0
    played = 0
    for match_id in matches:
        async for key in client.scan_iter(match=f"match:{{{match_id}}}*"):
            played += await client.memory_usage(key) or 0
    return own, played


async def run(folder: Path) -> dict[str, float]:
    secret = SECRET.encode()
    with EmbeddedRedis(folder / "redis") as server:
        engine_port, engine_metrics = free_port(), free_port()
        tournaments_port = free_port()
        env = {
            **os.environ,
            "REDIS_URL": server.url,
            **UNLIMITED,
            "MAUMAU_TOKEN_SECRET": SECRET,
            "MAUMAU_ENGINE_PORT": str(engine_port),
            "MAUMAU_ENGINE_METRICS_PORT": str(engine_metrics),
            "MAUMAU_ENGINE_BOT_DELAY_MS": "0",
            "MAUMAU_BOTS_ADDRESS": "",
            "MAUMAU_TOURNAMENTS_PORT": str(tournaments_port),
            "MAUMAU_TOURNAMENTS_METRICS_PORT": str(free_port()),
            "MAUMAU_TOURNAMENTS_ENGINE_ADDRESS": f"127.0.0.1:{engine_port}",
        }
        engine = f"127.0.0.1:{engine_port}"
        address = f"127.0.0.1:{tournaments_port}"
        engine_log, tournaments_log = folder / "engine.log", folder / "tournaments.log"
        with (
            process([sys.executable, "-m", "maumau.engine"], engine_log, env),
            process([sys.executable, "-m", "maumau.tournaments"], tournaments_log, env),
        ):
            await until_ready(lambda: serving(engine), "engine", engine_log)
            await until_ready(lambda: serving(address), "tournaments", tournaments_log)
            reference = await plain_matches(engine, secret)
            before = engine_moves(engine_metrics)
            tid, seconds, matches = await tournament(address, secret)
            moves = engine_moves(engine_metrics) - before
            client = redis.asyncio.Redis.from_url(server.url)
            own, played = await memory(client, tid, matches)
            await client.aclose()
    return {
        "tournaments.64.wall_seconds": seconds,
        "tournaments.64.engine_moves_per_s": moves / seconds,
        "tournaments.64.reference_8_plain_matches_seconds": reference,
        "ratio.tournament_vs_plain_matches.wall": seconds / reference,
        "tournaments.64.redis_bytes_tournament": own,
        "tournaments.64.redis_bytes_with_matches": own + played,
    }


def bench_tournaments() -> dict[str, float]:
    print("tournaments: 64 bot entrants, 8 tables of 8, 20 rounds in blocks of 5:")
    with tempfile.TemporaryDirectory() as folder:
        figures = asyncio.run(run(Path(folder)))
    reference = figures["tournaments.64.reference_8_plain_matches_seconds"]
    print(
        f"  start to champion {figures['tournaments.64.wall_seconds']:.1f} s, "
        f"{figures['tournaments.64.engine_moves_per_s']:,.0f} engine moves/s; "
        f"8 plain 20-round matches at once {reference:.1f} s "
        f"(ratio {figures['ratio.tournament_vs_plain_matches.wall']:.2f})"
    )
    print(
        f"  Redis: {figures['tournaments.64.redis_bytes_tournament'] / 1024:,.0f} KiB for the "
        f"tournament's keys, {figures['tournaments.64.redis_bytes_with_matches'] / 1024:,.0f} KiB "
        "with its engine matches"
    )
    return figures
